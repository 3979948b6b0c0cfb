//! Several reports as one trend (`dbio awr A B C ...`).
//!
//! A DBA handed a week of hourly AWR reports wants to see what moved:
//! DB time, the top wait events' times and averages, 'log file sync'
//! against 'log file parallel write', the load profile. Reports are put
//! in the order of their begin snapshot time (whatever order the files
//! were given in), and reports of different databases or instances are
//! refused unless the caller allows them: a trend across two databases
//! reads as a change that never happened.
//!
//! One event is one row however each report printed its name: a name a
//! report cut at its column width (`log file switch (private s`, 26
//! characters; `… (private stran`, 30) joins the longer name of the same
//! event another report printed. Each interval also keeps the figures the
//! trend's outlier rule reads (DB CPU, commits per second, 'log file sync'
//! and the single-block read with their printed precision).

use crate::sortable_time;
use dbio_model::awr::{AwrInterval, AwrReport, AwrTrend, WaitEventRow};
use dbio_model::event_names::PrintedNames;

/// Top events taken from each report.
const EVENTS_PER_REPORT: usize = 5;
/// Events in the trend at most.
const TREND_EVENTS: usize = 8;

/// Events that are idle time, not work: the class the report printed
/// (`Idle`), else dbio's one list of idle events
/// ([`dbio_model::wait_class::IDLE_EVENTS`]: Oracle's Idle class and
/// Statspack's idle events, whole or cut at the column width).
pub fn is_idle(e: &WaitEventRow) -> bool {
    e.class
        .as_deref()
        .is_some_and(|c| c.eq_ignore_ascii_case("idle"))
        || dbio_model::wait_class::is_idle_event(&e.name)
}

/// Every event name a report prints (top, foreground, background).
fn event_names(r: &AwrReport) -> impl Iterator<Item = &str> {
    event_rows(r).map(|e| e.name.as_str())
}

/// Whether the report's parser gave its averages their ± bounds: it
/// leaves out a bound finer than 1 % of the average, so in such a report
/// an average without one is as good as exact (0), whatever round number
/// its digits make; in a result written before the bounds, unknown.
fn bounds_known(r: &AwrReport) -> bool {
    event_rows(r).any(|e| e.avg_error_us.is_some())
}

fn event_rows(r: &AwrReport) -> impl Iterator<Item = &WaitEventRow> {
    r.top_events
        .iter()
        .chain(&r.foreground_events)
        .chain(&r.background_events)
}

/// The report's foreground row of the event the trend calls `name`
/// (else its top events' row), named so, its bound as the parser means
/// it ([`bounds_known`]).
fn foreground(r: &AwrReport, names: &PrintedNames, name: &str) -> Option<WaitEventRow> {
    r.foreground_events
        .iter()
        .chain(&r.top_events)
        .find(|e| names.whole(&e.name) == name)
        .map(|e| WaitEventRow {
            name: name.to_string(),
            avg_error_us: e.avg_error_us.or_else(|| bounds_known(r).then_some(0.0)),
            ..e.clone()
        })
}

/// The top events' CPU row: `DB CPU` (Statspack: `CPU time`).
fn is_cpu(e: &WaitEventRow) -> bool {
    matches!(e.name.as_str(), "DB CPU" | "CPU time" | "CPU")
}

/// DB CPU, s.
fn db_cpu_s(r: &AwrReport) -> Option<f64> {
    r.top_events
        .iter()
        .find(|e| is_cpu(e))
        .and_then(|e| e.time_s)
}

/// User commits per second: 'user commits' over the elapsed time, else
/// the load profile's transactions per second.
fn commits_per_s(r: &AwrReport) -> Option<f64> {
    let from_stat = match (r.stat("user commits"), r.header.elapsed_s) {
        (Some(c), Some(e)) if e > 0.0 => Some(c / e),
        _ => None,
    };
    from_stat.or_else(|| {
        r.load_profile
            .iter()
            .find(|p| p.name.starts_with("Transactions"))
            .and_then(|p| p.per_second)
    })
}

/// The single-block read row: 'db file sequential read', or Exadata's
/// 'cell single block physical read' when it has more waits.
fn single_block_read(r: &AwrReport, names: &PrintedNames) -> Option<WaitEventRow> {
    let waits = |e: &Option<WaitEventRow>| e.as_ref().and_then(|e| e.waits).unwrap_or(0.0);
    let db = foreground(r, names, "db file sequential read");
    let cell = foreground(r, names, "cell single block physical read");
    if waits(&cell) > waits(&db) {
        cell
    } else {
        db.or(cell)
    }
}

/// Which database and instance a report is of, as words, or `None`
/// when the report does not say (a paste without its header).
fn identity(r: &AwrReport) -> Option<String> {
    let h = &r.header;
    let db = match (&h.db_name, &h.dbid) {
        (Some(n), Some(id)) => format!("database {n} (DBID {id})"),
        (Some(n), None) => format!("database {n}"),
        (None, Some(id)) => format!("DBID {id}"),
        (None, None) => return None,
    };
    Some(match &h.instance {
        Some(i) => format!("{db} instance {i}"),
        None => db,
    })
}

/// The key reports are compared by: DBID when both print one, else the
/// name; and the instance.
fn same_database(a: &AwrReport, b: &AwrReport) -> Option<bool> {
    let (x, y) = (&a.header, &b.header);
    let db = match ((&x.dbid, &y.dbid), (&x.db_name, &y.db_name)) {
        ((Some(p), Some(q)), _) => p == q,
        (_, (Some(p), Some(q))) => p.eq_ignore_ascii_case(q),
        _ => return None,
    };
    let inst = match (&x.instance, &y.instance) {
        (Some(p), Some(q)) => p.eq_ignore_ascii_case(q),
        _ => true,
    };
    Some(db && inst)
}

/// Builds the trend. Refuses (one sentence) reports of different
/// databases or instances unless `allow_mixed`.
pub fn trend(mut reports: Vec<AwrReport>, allow_mixed: bool) -> Result<AwrTrend, String> {
    let mut notes = Vec::new();
    let mut mixed = false;
    for (i, a) in reports.iter().enumerate() {
        for b in &reports[i + 1..] {
            if same_database(a, b) == Some(false) {
                if !allow_mixed {
                    return Err(format!(
                        "{} is a report of {} and {} of {}: a trend needs one database and instance (give --allow-mixed to line them up anyway)",
                        a.source,
                        identity(a).unwrap_or_default(),
                        b.source,
                        identity(b).unwrap_or_default()
                    ));
                }
                mixed = true;
            }
        }
    }
    if mixed {
        notes.push(
            "the reports are of different databases or instances (--allow-mixed): a change between intervals may be a change of database".to_string(),
        );
    }
    for r in &reports {
        if identity(r).is_none() {
            notes.push(format!(
                "{} does not name its database: it could not be checked against the others",
                r.source
            ));
        }
    }
    let key = |r: &AwrReport| {
        let t = r
            .header
            .begin_time
            .as_deref()
            .and_then(|t| t.split_once(' '))
            .and_then(|(d, t)| sortable_time(d, t));
        (
            t.is_none(),
            t,
            r.header.begin_snap.is_none(),
            r.header.begin_snap,
        )
    };
    reports.sort_by_key(key);
    for r in &reports {
        if r.header.begin_time.is_none() {
            notes.push(format!(
                "{} prints no begin snapshot time: placed after the timed reports, by snapshot id",
                r.source
            ));
        }
    }
    for w in reports.windows(2) {
        let end = w[0]
            .header
            .end_time
            .as_deref()
            .and_then(|t| t.split_once(' '))
            .and_then(|(d, t)| sortable_time(d, t));
        let begin = w[1]
            .header
            .begin_time
            .as_deref()
            .and_then(|t| t.split_once(' '))
            .and_then(|(d, t)| sortable_time(d, t));
        if let (Some(e), Some(b)) = (end, begin) {
            if b < e {
                notes.push(format!(
                    "{} begins before {} ends: the intervals overlap (their figures count the overlap twice)",
                    w[1].source, w[0].source
                ));
            } else if b > e {
                notes.push(format!(
                    "no report covers {} to {} (between {} and {})",
                    e, b, w[0].source, w[1].source
                ));
            }
        }
    }

    // One name per event: names cut at the column width join the longer
    // name another report printed.
    let names = PrintedNames::of(reports.iter().flat_map(event_names));
    // The trend's events: each report's top foreground events by time,
    // ranked by their time summed over the reports.
    let mut ranked: Vec<(String, f64)> = Vec::new();
    for r in &reports {
        let mut fg: Vec<&WaitEventRow> = r
            .foreground_events
            .iter()
            .chain(r.top_events.iter())
            .filter(|e| !is_idle(e) && !is_cpu(e) && e.time_s.is_some())
            .collect();
        fg.sort_by(|a, b| b.time_s.unwrap_or(0.0).total_cmp(&a.time_s.unwrap_or(0.0)));
        let mut seen: Vec<String> = Vec::new();
        for e in fg {
            let n = names.whole(&e.name);
            if seen.len() == EVENTS_PER_REPORT || seen.contains(&n) {
                continue;
            }
            if !ranked.iter().any(|(x, _)| *x == n) {
                ranked.push((n.clone(), 0.0));
            }
            seen.push(n);
        }
    }
    for (name, total) in ranked.iter_mut() {
        *total = reports
            .iter()
            .filter_map(|r| foreground(r, &names, name).and_then(|e| e.time_s))
            .sum();
    }
    ranked.sort_by(|a, b| b.1.total_cmp(&a.1));
    ranked.truncate(TREND_EVENTS);
    let events: Vec<String> = ranked.into_iter().map(|(n, _)| n).collect();

    let intervals = reports
        .into_iter()
        .map(|r| {
            let h = &r.header;
            AwrInterval {
                source: r.source.clone(),
                kind: r.kind,
                average_active_sessions: match (h.db_time_s, h.elapsed_s) {
                    (Some(d), Some(e)) if e > 0.0 => Some(d / e),
                    _ => None,
                },
                events: events
                    .iter()
                    .filter_map(|n| foreground(&r, &names, n))
                    .collect(),
                log_file_sync_us: r.derived.log_file_sync_us,
                log_file_parallel_write_us: r.derived.log_file_parallel_write_us,
                lfs_lfpw_ratio: r.derived.lfs_lfpw_ratio,
                db_cpu_s: db_cpu_s(&r),
                commits_per_s: commits_per_s(&r),
                log_file_sync: foreground(&r, &names, "log file sync"),
                single_block_read: single_block_read(&r, &names),
                header: r.header,
                load_profile: r.load_profile,
                findings: r.findings,
                verdict: r.verdict,
            }
        })
        .collect();
    Ok(AwrTrend {
        schema_version: dbio_model::SCHEMA_VERSION,
        invocation: None,
        build: None,
        mixed,
        events,
        intervals,
        notes,
        findings: Vec::new(),
        verdict: None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(name: &str, waits: f64, time_s: f64) -> WaitEventRow {
        WaitEventRow {
            name: name.into(),
            waits: Some(waits),
            time_s: Some(time_s),
            avg_us: Some(time_s * 1e6 / waits),
            ..Default::default()
        }
    }

    fn report(begin: &str, fg: Vec<WaitEventRow>) -> AwrReport {
        let mut r = AwrReport {
            source: format!("{begin}.txt"),
            foreground_events: fg,
            ..Default::default()
        };
        r.header.db_name = Some("SYN".into());
        r.header.begin_time = Some(format!("02-Mar-25 {begin}"));
        r.header.elapsed_s = Some(3600.0);
        r.header.db_time_s = Some(3600.0);
        r
    }

    #[test]
    fn names_cut_at_26_and_30_characters_are_one_event() {
        let full = "log file switch (private strand flush incomplete)";
        let n = PrintedNames::of([
            "log file switch (private s",
            "log file switch (private stran",
            full,
            "log file sync",
        ]);
        assert_eq!(n.whole("log file switch (private s"), full);
        assert_eq!(n.whole("log file switch (private stran"), full);
        assert_eq!(n.whole(full), full);
        // Under 20 characters a name is whole: `log file s` is not cut.
        assert_eq!(n.whole("log file s"), "log file s");
        // Two events a cut name could be: left as printed.
        let n = PrintedNames::of([
            "log file switch (checkpoint",
            "log file switch (checkpoint incomplete)",
            "log file switch (checkpoint something else)",
        ]);
        assert_eq!(
            n.whole("log file switch (checkpoint"),
            "log file switch (checkpoint"
        );
        // A trend of a report with the cut name and one with the whole
        // name lists the event once, with the whole name, in both.
        let t = trend(
            vec![
                report(
                    "09:00:00",
                    vec![row("log file switch (private s", 100.0, 50.0)],
                ),
                report("10:00:00", vec![row(full, 300.0, 90.0)]),
            ],
            false,
        )
        .unwrap();
        assert_eq!(t.events, [full]);
        assert_eq!(t.intervals[0].events[0].name, full);
        assert_eq!(t.intervals[0].events[0].time_s, Some(50.0));
        assert_eq!(t.intervals[1].events[0].time_s, Some(90.0));
    }

    #[test]
    fn statspack_idle_events_and_cpu_are_not_trend_events() {
        let t = trend(
            vec![report(
                "09:00:00",
                vec![
                    row("LGWR worker group idle", 10.0, 9000.0),
                    row("SQL*Net message from client", 10.0, 8000.0),
                    row("Space Manager: slave idle wait", 10.0, 7000.0),
                    row("CPU time", 1.0, 6000.0),
                    row("db file sequential read", 1000.0, 5.0),
                ],
            )],
            false,
        )
        .unwrap();
        assert_eq!(t.events, ["db file sequential read"]);
    }

    #[test]
    fn an_interval_keeps_what_the_outlier_rule_reads() {
        let mut r = report(
            "09:00:00",
            vec![
                row("log file sync", 1000.0, 2.0),
                row("db file sequential read", 1000.0, 5.0),
                row("cell single block physical read", 9000.0, 4.5),
            ],
        );
        r.top_events.push(WaitEventRow {
            name: "DB CPU".into(),
            time_s: Some(1800.0),
            ..Default::default()
        });
        r.load_profile.push(dbio_model::awr::LoadProfileRow {
            name: "Transactions".into(),
            per_second: Some(12.5),
            per_transaction: None,
        });
        let t = trend(vec![r.clone()], false).unwrap();
        let i = &t.intervals[0];
        assert_eq!(i.db_cpu_s, Some(1800.0));
        // No 'user commits': the load profile's transactions.
        assert_eq!(i.commits_per_s, Some(12.5));
        assert_eq!(i.log_file_sync.as_ref().unwrap().time_s, Some(2.0));
        // Exadata: the cell read has more waits than the file read.
        assert_eq!(
            i.single_block_read.as_ref().unwrap().name,
            "cell single block physical read"
        );
        r.statistics.push(dbio_model::awr::StatRow {
            name: "user commits".into(),
            total: 36_000.0,
            ..Default::default()
        });
        let t = trend(vec![r], false).unwrap();
        assert_eq!(t.intervals[0].commits_per_s, Some(10.0));
    }

    #[test]
    fn a_report_with_bounds_gives_exact_averages_the_bound_they_lack() {
        let mut r = report("09:00:00", vec![row("log file sync", 1000.0, 2.0)]);
        let t = trend(vec![r.clone()], false).unwrap();
        assert_eq!(
            t.intervals[0].log_file_sync.as_ref().unwrap().avg_error_us,
            None
        );
        r.foreground_events.push(WaitEventRow {
            avg_error_us: Some(500.0),
            ..row("db file sequential read", 1000.0, 1.0)
        });
        let t = trend(vec![r], false).unwrap();
        let i = &t.intervals[0];
        assert_eq!(i.log_file_sync.as_ref().unwrap().avg_error_us, Some(0.0));
        assert_eq!(
            i.single_block_read.as_ref().unwrap().avg_error_us,
            Some(500.0)
        );
    }
}
