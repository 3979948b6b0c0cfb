//! Several reports as one trend (`dbio awr A B C ...`).
//!
//! A DBA handed a week of hourly AWR reports wants to see what moved:
//! DB time, the top wait events' times and averages, 'log file sync'
//! against 'log file parallel write', the load profile. Reports are put
//! in the order of their begin snapshot time (whatever order the files
//! were given in), and reports of different databases or instances are
//! refused unless the caller allows them: a trend across two databases
//! reads as a change that never happened.

use crate::sortable_time;
use dbio_model::awr::{AwrInterval, AwrReport, AwrTrend, WaitEventRow};

/// Top events taken from each report.
const EVENTS_PER_REPORT: usize = 5;
/// Events in the trend at most.
const TREND_EVENTS: usize = 8;

/// Events that are idle time, not work (AWR prints them in the
/// foreground wait events with the class `Idle`; their list is
/// `dbio tracefile`'s).
pub fn is_idle(e: &WaitEventRow) -> bool {
    e.class
        .as_deref()
        .is_some_and(|c| c.eq_ignore_ascii_case("idle"))
        || dbio_oracle::events::IDLE_EVENTS
            .iter()
            .any(|i| *i == e.name || (e.name.len() >= 20 && i.starts_with(&e.name)))
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

    // The trend's events: each report's top foreground events by time,
    // ranked by their time summed over the reports.
    let mut ranked: Vec<(String, f64)> = Vec::new();
    for r in &reports {
        let mut fg: Vec<&WaitEventRow> = r
            .foreground_events
            .iter()
            .chain(r.top_events.iter())
            .filter(|e| !is_idle(e) && e.name != "DB CPU" && e.time_s.is_some())
            .collect();
        fg.sort_by(|a, b| b.time_s.unwrap_or(0.0).total_cmp(&a.time_s.unwrap_or(0.0)));
        fg.dedup_by(|a, b| a.name == b.name);
        for e in fg.into_iter().take(EVENTS_PER_REPORT) {
            if !ranked.iter().any(|(n, _)| *n == e.name) {
                ranked.push((e.name.clone(), 0.0));
            }
        }
    }
    for (name, total) in ranked.iter_mut() {
        *total = reports
            .iter()
            .filter_map(|r| r.event(name).and_then(|e| e.time_s))
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
                    .filter_map(|n| {
                        r.event(n).map(|e| WaitEventRow {
                            name: n.clone(),
                            ..e.clone()
                        })
                    })
                    .collect(),
                log_file_sync_us: r.derived.log_file_sync_us,
                log_file_parallel_write_us: r.derived.log_file_parallel_write_us,
                lfs_lfpw_ratio: r.derived.lfs_lfpw_ratio,
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
