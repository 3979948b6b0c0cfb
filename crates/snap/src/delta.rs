//! Two snapshots into one interval: every counter's growth, never a
//! negative rate.
//!
//! Cumulative counters go backwards only when something restarted them:
//! the server (a restart, or a crash: PostgreSQL 15+ keeps its
//! statistics over a clean shutdown and drops them after a crash;
//! MariaDB always starts from zero), or a reset (`pg_stat_reset_shared`,
//! `pg_stat_reset`, `FLUSH STATUS`). Each is detected per group of
//! counters, from the server's start time, the group's reset time, or a
//! counter found lower than before, and said in one sentence
//! ([`CounterReset`]). The group's figures are then the counts since the
//! reset (the value in the second snapshot): a lower bound for the
//! interval, never a difference across the reset.
//!
//! A row of a keyed group that is new in the second snapshot (a
//! statement first seen, a file opened) counts from zero; a row whose
//! counters went backwards while the rest of its group did not (a
//! `pg_stat_statements` entry evicted and made again) counts from its
//! new start. Neither is a reset of the group.
//!
//! Two snapshots of different servers (another `system_identifier` or
//! `server_uuid`: a failover, or a DNS name now pointing elsewhere) are
//! not an interval: [`diff`] refuses them in one sentence.

use crate::{Group, Row, Snapshot};
use dbio_model::snap::CounterReset;

/// One group's growth over the interval.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct GroupDelta {
    /// The group as read (its `rows` hold the growth, not the values).
    pub group: Group,
    /// The group's counters restarted inside the interval.
    pub reset: bool,
}

/// Two snapshots' difference.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Interval {
    /// Seconds between the snapshots (this host's monotonic clock).
    pub elapsed_s: f64,
    /// Each group present in both snapshots, as growth.
    pub groups: Vec<GroupDelta>,
    /// The groups that restarted, one sentence each.
    pub resets: Vec<CounterReset>,
    /// The server restarted between the snapshots.
    pub restarted: bool,
}

impl Interval {
    /// A group's growth by name.
    pub fn group(&self, name: &str) -> Option<&Group> {
        self.groups
            .iter()
            .find(|g| g.group.name == name)
            .map(|g| &g.group)
    }
}

/// The interval from `a` to `b`; refused in one sentence when they are
/// snapshots of different servers.
pub fn diff(a: &Snapshot, b: &Snapshot, server: &str) -> Result<Interval, String> {
    same_server(a.identity.as_deref(), b.identity.as_deref(), server)?;
    let restarted = match (&a.started, &b.started) {
        (Some(x), Some(y)) => differs(x, y),
        _ => false,
    };
    let mut out = Interval {
        elapsed_s: b.at.saturating_duration_since(a.at).as_secs_f64(),
        restarted,
        ..Default::default()
    };
    for gb in &b.groups {
        let Some(ga) = a.group(&gb.name) else {
            continue;
        };
        let g = grow(ga, gb);
        let went_back = g.one_back || (restarted && g.any_back);
        let reset = g.reset_changed.is_some() || went_back;
        if reset {
            out.resets.push(CounterReset {
                group: gb.name.clone(),
                restart: restarted,
                text: reset_sentence(&gb.name, restarted, g.reset_changed.as_deref(), b),
            });
        }
        out.groups.push(GroupDelta {
            group: g.group,
            reset,
        });
    }
    Ok(out)
}

/// Refuses two identities of different servers in one sentence (an
/// unknown identity proves nothing either way). Also used before a
/// reconnected monitor reads anything: the new server may be another
/// version, whose views the old server's queries do not fit.
pub fn same_server(before: Option<&str>, after: Option<&str>, server: &str) -> Result<(), String> {
    match (before, after) {
        (Some(x), Some(y)) if x != y => Err(format!(
            "the second snapshot is of another server than the first ({server}: identity \
             {x} before, {y} after; a failover or a target now pointing elsewhere): the \
             interval spans two servers and is not reported"
        )),
        _ => Ok(()),
    }
}

/// The one sentence about a group that restarted.
fn reset_sentence(name: &str, restarted: bool, changed: Option<&str>, b: &Snapshot) -> String {
    let why = if restarted {
        format!(
            "the server restarted inside the interval (it started at {})",
            b.started.as_deref().unwrap_or("?")
        )
    } else if let Some(at) = changed {
        format!("its statistics were reset inside the interval (at {at})")
    } else {
        "its counters went backwards inside the interval (a reset the server does not \
         date)"
            .to_string()
    };
    format!("{name}: {why}; its figures count from the reset only, a lower bound for the interval")
}

/// A group's growth and what it says about resets.
struct Grown {
    group: Group,
    /// A one-row group's counters went backwards.
    one_back: bool,
    /// Some row's counters went backwards.
    any_back: bool,
    /// Some row's reset time changed: the latest reset time.
    reset_changed: Option<String>,
}

/// `b` minus `a` row by row: a row that is new, whose reset time changed
/// or whose counters went backwards counts from its start.
fn grow(a: &Group, b: &Group) -> Grown {
    let one_row = b.keys.is_empty();
    let mut out = Grown {
        group: Group {
            rows: Vec::with_capacity(b.rows.len()),
            ..b.clone()
        },
        one_back: false,
        any_back: false,
        reset_changed: None,
    };
    for rb in &b.rows {
        let before = a.rows.iter().find(|ra| ra.key == rb.key);
        let reset = before.is_some_and(|ra| match (&ra.reset, &rb.reset) {
            (Some(x), Some(y)) => differs(x, y),
            (None, Some(_)) => true,
            _ => false,
        });
        if reset && out.reset_changed < rb.reset {
            out.reset_changed = rb.reset.clone();
        }
        let back = !reset && before.is_some_and(|ra| backwards(ra, rb));
        out.any_back |= back;
        out.one_back |= back && one_row;
        let values = match before {
            Some(ra) if !back && !reset => rb
                .values
                .iter()
                .zip(&ra.values)
                .map(|(vb, va)| match (vb, va) {
                    (Some(x), Some(y)) => Some((x - y).max(0.0)),
                    (Some(x), None) => Some(*x),
                    _ => None,
                })
                .collect(),
            // New, reset or restarted: counts from its start.
            _ => rb.values.clone(),
        };
        out.group.rows.push(Row {
            values,
            ..rb.clone()
        });
    }
    out
}

/// Whether two start or reset times differ. Times given as whole Unix
/// seconds (MariaDB's: now − `Uptime`, read at two moments) differ only
/// beyond 2 s, the rounding of two readings of a one-second counter;
/// timestamps as text (PostgreSQL's) differ when they are not equal.
fn differs(x: &str, y: &str) -> bool {
    match (x.parse::<f64>(), y.parse::<f64>()) {
        (Ok(a), Ok(b)) => (a - b).abs() > 2.0,
        _ => x != y,
    }
}

/// Whether any counter of `b` is below the same counter of `a`.
fn backwards(a: &Row, b: &Row) -> bool {
    b.values
        .iter()
        .zip(&a.values)
        .any(|(vb, va)| matches!((vb, va), (Some(x), Some(y)) if x < y))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::{Duration, Instant};

    fn wal(sync: f64, reset: &str) -> Group {
        Group {
            name: "pg_stat_wal".into(),
            keys: vec![],
            cols: vec![("wal_sync".into(), "count"), ("wal_bytes".into(), "bytes")],
            rows: vec![Row {
                key: vec![],
                label: None,
                values: vec![Some(sync), Some(sync * 100.0)],
                reset: Some(reset.into()),
            }],
        }
    }

    fn snap(at: Instant, id: &str, started: &str, groups: Vec<Group>) -> Snapshot {
        Snapshot {
            at,
            wall: String::new(),
            identity: Some(id.into()),
            started: Some(started.into()),
            groups,
            own_commits: 0,
        }
    }

    #[test]
    fn growth_is_after_minus_before() {
        let t = Instant::now();
        let a = snap(t, "1", "s", vec![wal(100.0, "r")]);
        let b = snap(t + Duration::from_secs(60), "1", "s", vec![wal(350.0, "r")]);
        let i = diff(&a, &b, "pg").unwrap();
        assert_eq!(i.elapsed_s, 60.0);
        assert!(i.resets.is_empty() && !i.restarted);
        assert_eq!(
            i.group("pg_stat_wal").unwrap().scalar("wal_sync"),
            Some(250.0)
        );
        assert_eq!(
            i.group("pg_stat_wal").unwrap().scalar("wal_bytes"),
            Some(25_000.0)
        );
    }

    #[test]
    fn a_reset_counts_from_the_reset_and_is_said_never_negative() {
        let t = Instant::now();
        let a = snap(t, "1", "s", vec![wal(100.0, "r1")]);
        // Reset time changed, counters lower: counts since the reset.
        let b = snap(t, "1", "s", vec![wal(7.0, "r2")]);
        let i = diff(&a, &b, "pg").unwrap();
        assert_eq!(
            i.group("pg_stat_wal").unwrap().scalar("wal_sync"),
            Some(7.0)
        );
        assert_eq!(i.resets.len(), 1);
        assert!(!i.resets[0].restart);
        assert!(
            i.resets[0].text.contains("reset inside the interval"),
            "{}",
            i.resets[0].text
        );
        // Reset time changed but counters higher (reset early, busy
        // after): still counted from the reset, not as a difference.
        let b = snap(t, "1", "s", vec![wal(170.0, "r2")]);
        let i = diff(&a, &b, "pg").unwrap();
        assert_eq!(
            i.group("pg_stat_wal").unwrap().scalar("wal_sync"),
            Some(170.0)
        );
        // Backwards with the same reset time: undated reset.
        let b = snap(t, "1", "s", vec![wal(99.0, "r1")]);
        let i = diff(&a, &b, "pg").unwrap();
        assert_eq!(
            i.group("pg_stat_wal").unwrap().scalar("wal_sync"),
            Some(99.0)
        );
        assert!(i.resets[0].text.contains("went backwards"));
    }

    #[test]
    fn a_restart_is_told_from_a_reset_and_a_clean_restart_keeps_counting() {
        let t = Instant::now();
        let a = snap(t, "1", "s1", vec![wal(100.0, "r")]);
        let b = snap(t, "1", "s2", vec![wal(3.0, "r")]);
        let i = diff(&a, &b, "pg").unwrap();
        assert!(i.restarted);
        assert!(i.resets[0].restart);
        assert!(
            i.resets[0].text.contains("restarted"),
            "{}",
            i.resets[0].text
        );
        assert_eq!(
            i.group("pg_stat_wal").unwrap().scalar("wal_sync"),
            Some(3.0)
        );
        // PostgreSQL kept its statistics over a clean shutdown: a restart
        // with counters still growing is no reset of the counters.
        let b = snap(t, "1", "s2", vec![wal(130.0, "r")]);
        let i = diff(&a, &b, "pg").unwrap();
        assert!(i.restarted && i.resets.is_empty());
        assert_eq!(
            i.group("pg_stat_wal").unwrap().scalar("wal_sync"),
            Some(30.0)
        );
    }

    #[test]
    fn second_counted_start_times_differ_only_beyond_their_rounding() {
        assert!(!differs("1700000000", "1700000002"));
        assert!(differs("1700000000", "1700000003"));
        assert!(differs("2026-01-01 10:00:00+00", "2026-01-01 10:00:01+00"));
        assert!(!differs("2026-01-01 10:00:00+00", "2026-01-01 10:00:00+00"));
    }

    #[test]
    fn another_server_is_a_failover_and_refused() {
        let t = Instant::now();
        let a = snap(t, "7001", "s", vec![wal(1.0, "r")]);
        let b = snap(t, "7002", "s", vec![wal(2.0, "r")]);
        let e = diff(&a, &b, "postgres://h/db").unwrap_err();
        assert!(e.contains("another server"), "{e}");
        assert!(e.contains("7001") && e.contains("7002"), "{e}");
    }

    #[test]
    fn keyed_rows_new_or_restarted_count_from_their_start() {
        let g = |rows: Vec<(&str, f64)>| Group {
            name: "pg_stat_statements".into(),
            keys: vec!["queryid".into()],
            cols: vec![("calls".into(), "count")],
            rows: rows
                .into_iter()
                .map(|(k, v)| Row {
                    key: vec![k.into()],
                    label: None,
                    values: vec![Some(v)],
                    reset: None,
                })
                .collect(),
        };
        let t = Instant::now();
        let a = snap(t, "1", "s", vec![g(vec![("q1", 10.0), ("q2", 50.0)])]);
        let b = snap(
            t,
            "1",
            "s",
            vec![g(vec![("q1", 15.0), ("q2", 4.0), ("q3", 2.0)])],
        );
        let i = diff(&a, &b, "pg").unwrap();
        let grown = i.group("pg_stat_statements").unwrap();
        let calls: Vec<f64> = grown.rows.iter().map(|r| r.values[0].unwrap()).collect();
        assert_eq!(calls, [5.0, 4.0, 2.0]);
        assert!(i.resets.is_empty(), "an evicted entry is not a reset");
    }
}
