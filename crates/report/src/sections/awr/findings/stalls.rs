//! Sessions stopped by the writers: DBWR behind ('free buffer waits',
//! 'write complete waits'), a log that cannot be switched ('log file
//! switch …'), a full log buffer ('log buffer space').
//!
//! Each is what sessions lost, so each is read from the foreground
//! table ([`super::events`]) and weighed by its share of DB time
//! ([`severity_of_share`]: a warning from half of DB time, a notice from
//! a tenth, else information). The background table's rows of the same
//! events are LGWR's and DBWR's own waits, not DB time: 'log file switch
//! (checkpoint incomplete)' can be a few dozen background waits beside
//! thousands of sessions' waits. A stall under [`MIN_STALL_S`] in all
//! (and under a tenth of DB time) is left out.

use super::events::{average_us, foreground, share_of_db_time, waited};
use super::{MIN_STALL_S, OF_DB_TIME};
use crate::kit::findings::{ev, finding, Finding, Severity};
use crate::kit::references::{over_configuring_dbwr, sizing_redo_logs};
use crate::sections::trace::findings::COMPONENT_SHARE;
use crate::verdict::severity_of_share;
use dbio_model::awr::{AwrReport, WaitEventRow};

/// Log switches per hour from which the logs are said to switch often:
/// one every 20 minutes, the rate Oracle's redo log sizing advice aims
/// under.
pub const OFTEN_SWITCHES_PER_HOUR: f64 = 3.0;

/// The log switch waits and what each one means.
pub const LOG_SWITCH_EVENTS: [(&str, &str); 4] = [
    (
        "log file switch (checkpoint incomplete)",
        "DBWR had not finished writing the blocks the next log protects: more or larger redo log groups give the checkpoint time (or make DBWR write faster)",
    ),
    (
        "log file switch (archiving needed)",
        "the archiver had not copied the log to be reused: the archive destination is slow or full",
    ),
    (
        "log file switch (private strand flush incomplete)",
        "LGWR had to write the private redo strands out before the switch; larger logs switch, and stall, less often",
    ),
    (
        "log file switch completion",
        "the switch itself took that long; larger logs switch less often",
    ),
];

/// A foreground stall worth a finding: its waits, time and share of DB
/// time (`None` without DB time).
fn stall(r: &AwrReport, e: &WaitEventRow) -> Option<(f64, f64, Option<f64>)> {
    let waits = waited(e)?;
    let t = e.time_s?;
    let share = share_of_db_time(r, e);
    let matters = t >= MIN_STALL_S || share.is_some_and(|s| s >= COMPONENT_SHARE);
    matters.then_some((waits, t, share))
}

/// The severity of a stall: by its share of DB time; a notice when the
/// report gives no DB time.
fn severity(share: Option<f64>) -> Severity {
    share.map_or(Severity::Notice, severity_of_share)
}

fn with_share(f: Finding, share: Option<f64>) -> Finding {
    match share {
        Some(s) => f.with_impact(s, OF_DB_TIME),
        None => f,
    }
}

/// The time and share in words: "828.0 s, 11.5 % of DB time".
fn lost(t: f64, share: Option<f64>) -> String {
    match share {
        Some(s) => format!("{t:.1} s, {s:.1} % of DB time"),
        None => format!("{t:.1} s"),
    }
}

/// DBWR not keeping up: free buffer waits, write complete waits.
pub fn dbwr_behind(r: &AwrReport, out: &mut Vec<Finding>) {
    let writers = super::setup::parameter(r, "db_writer_processes")
        .and_then(|v| v.trim().parse::<f64>().ok());
    for name in ["free buffer waits", "write complete waits"] {
        let Some(e) = foreground(r, name) else {
            continue;
        };
        let Some((waits, t, share)) = stall(r, e) else {
            continue;
        };
        let mut evidence = vec![ev("waits", waits, "count"), ev("time", t, "s")];
        let w = match writers {
            Some(n) => {
                evidence.push(ev("db_writer_processes", n, "count"));
                format!(" with {n:.0} database writers configured")
            }
            None => String::new(),
        };
        let f = finding(
            "awr.dbwr_behind",
            Some(name),
            severity(share),
            format!(
                "sessions waited {waits:.0} times on '{name}' ({}){w}: DBWR did not write dirty buffers out fast enough; more writers help only when one writer is CPU-bound, otherwise look at the write latency of the datafiles",
                lost(t, share)
            ),
            evidence,
            Some(over_configuring_dbwr()),
        );
        out.push(with_share(f, share));
    }
}

/// Sessions stopped while the log could not be switched, with the
/// switch rate.
pub fn log_switch_stalls(r: &AwrReport, out: &mut Vec<Finding>) {
    let rate = r.derived.log_switches_per_hour;
    for (name, meaning) in LOG_SWITCH_EVENTS {
        let Some(e) = foreground(r, name) else {
            continue;
        };
        let Some((waits, t, share)) = stall(r, e) else {
            continue;
        };
        let mut evidence = vec![ev("waits", waits, "count"), ev("time", t, "s")];
        if let Some(a) = average_us(e) {
            evidence.push(ev("average wait", a * 1000.0, "ns"));
        }
        let switches = match rate {
            Some(s) => {
                evidence.push(ev("log switches per hour", s, "count"));
                let often = if s > OFTEN_SWITCHES_PER_HOUR {
                    format!(
                        ", more than the {OFTEN_SWITCHES_PER_HOUR:.0} an hour (one every 20 minutes) redo log sizing aims under"
                    )
                } else {
                    String::new()
                };
                format!("; the log switched {s:.1} times an hour{often}")
            }
            None => String::new(),
        };
        let f = finding(
            "awr.log_switch_stall",
            Some(name),
            severity(share),
            format!(
                "sessions waited {waits:.0} times on '{name}' ({}): {meaning}{switches}",
                lost(t, share)
            ),
            evidence,
            Some(sizing_redo_logs()),
        );
        out.push(with_share(f, share));
    }
}

/// Sessions waiting for room in the log buffer.
pub fn log_buffer_space(r: &AwrReport, out: &mut Vec<Finding>) {
    let Some(e) = foreground(r, "log buffer space") else {
        return;
    };
    let Some((waits, t, share)) = stall(r, e) else {
        return;
    };
    let f = finding(
        "awr.log_buffer_space",
        Some("log buffer space"),
        severity(share),
        format!(
            "sessions waited {waits:.0} times on 'log buffer space' ({}): they filled the log buffer faster than {} wrote it out; the redo writes are too slow for this redo rate, or the log buffer too small",
            lost(t, share),
            super::commit::LogWriter::of(r.kind).writer
        ),
        vec![ev("waits", waits, "count"), ev("time", t, "s")],
        None,
    );
    out.push(with_share(f, share));
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(name: &str, waits: f64, time_s: f64) -> WaitEventRow {
        WaitEventRow {
            name: name.into(),
            waits: Some(waits),
            time_s: Some(time_s),
            ..Default::default()
        }
    }

    fn stalls(r: &AwrReport) -> Vec<Finding> {
        let mut out = Vec::new();
        dbwr_behind(r, &mut out);
        log_switch_stalls(r, &mut out);
        log_buffer_space(r, &mut out);
        out
    }

    #[test]
    fn a_log_switch_is_judged_from_the_sessions_not_the_background() {
        let name = "log file switch (checkpoint incomplete)";
        let mut r = AwrReport::default();
        r.header.db_time_s = Some(7200.0);
        r.derived.log_switches_per_hour = Some(12.0);
        r.background_events.push(row(name, 37.0, 2.0));
        r.foreground_events
            .push(row("log file switch (checkpoint in", 4627.0, 828.0));
        let f = stalls(&r);
        assert_eq!(f.len(), 1);
        assert_eq!(f[0].rule, "awr.log_switch_stall");
        assert_eq!(f[0].severity, Severity::Notice, "11.5 % of DB time");
        assert!(
            f[0].text.starts_with("sessions waited 4627 times on 'log file switch (checkpoint incomplete)' (828.0 s, 11.5 % of DB time)")
                && f[0].text.contains("switched 12.0 times an hour, more than the 3 an hour"),
            "{}",
            f[0].text
        );
        // Without the foreground row, the background's is not DB time.
        r.foreground_events.clear();
        assert!(stalls(&r).is_empty());
    }

    #[test]
    fn a_stall_is_a_warning_only_from_half_of_db_time() {
        let name = "log file switch (archiving needed)";
        let mut r = AwrReport::default();
        r.header.db_time_s = Some(1000.0);
        r.foreground_events.push(row(name, 100.0, 499.0));
        assert_eq!(stalls(&r)[0].severity, Severity::Notice);
        r.foreground_events[0].time_s = Some(500.0);
        assert_eq!(stalls(&r)[0].severity, Severity::Warning);
        r.foreground_events[0].time_s = Some(99.0);
        assert_eq!(stalls(&r)[0].severity, Severity::Info);
        // Under a second and under a tenth: left out; a tenth of a short
        // DB time is kept.
        r.foreground_events[0].time_s = Some(0.99);
        assert!(stalls(&r).is_empty());
        r.header.db_time_s = Some(9.9);
        assert_eq!(stalls(&r)[0].severity, Severity::Notice);
        // No DB time: a notice.
        r.header.db_time_s = None;
        r.foreground_events[0].time_s = Some(1.0);
        assert_eq!(stalls(&r)[0].severity, Severity::Notice);
    }

    #[test]
    fn writer_stalls_need_waits() {
        let mut r = AwrReport {
            foreground_events: vec![
                row("free buffer waits", 0.0, 5.0),
                row("log buffer space", 326.0, 118.0),
            ],
            ..Default::default()
        };
        r.header.db_time_s = Some(7200.0);
        let rules: Vec<String> = stalls(&r).into_iter().map(|f| f.rule).collect();
        assert_eq!(rules, ["awr.log_buffer_space"]);
        r.foreground_events[0].waits = Some(164.0);
        let f = stalls(&r);
        assert_eq!(f[0].rule, "awr.dbwr_behind");
        assert_eq!(f[0].severity, Severity::Info, "0.1 % of DB time");
    }
}
