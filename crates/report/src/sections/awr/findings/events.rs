//! Where a rule reads an event: what sessions waited on from the
//! foreground table, what the writers waited on from the background
//! table.
//!
//! AWR prints an event in both tables when both kinds of process wait on
//! it: 'log file switch (checkpoint incomplete)' is a few dozen waits of
//! LGWR and the other background processes in one, and thousands of
//! sessions' waits, a double-digit share of DB time, in the other. Only
//! the foreground row is DB time; a background row is never DB time, it
//! explains a foreground wait (LGWR's 'log file parallel write' under the
//! sessions' 'log file sync'). So session-facing events ('log file sync',
//! 'log file switch …', 'buffer busy waits', 'free buffer waits', 'write
//! complete waits', 'log buffer space', 'resmgr:cpu quantum') are read
//! from the foreground table, then from the top events (11g and later
//! print foreground top events); the writers' events ('log file parallel
//! write', 'db file parallel write', 'LGWR …', Data Guard's transport,
//! LMS's 'gcs log flush sync') from the background table. A report with
//! no background table (Statspack's and 10g's one table of every
//! process's waits, kept as the foreground list) gives both from its one
//! table.
//!
//! Names are matched whole, or as a name the report cut at its column
//! width: a printed name of at least [`MIN_CUT`] characters that begins
//! the full name (`log file switch (checkpoint in` is 'log file switch
//! (checkpoint incomplete)'; `log file switch (private s` and `log file
//! switch (private stran` both are '… (private strand flush
//! incomplete)'). The first matching row of a table is taken, so a name
//! printed twice, cut at two widths, counts once.

use dbio_model::awr::{AwrReport, WaitEventRow};

/// A printed name this long or longer may be a full name cut at its
/// column width (the model's one rule for cut names).
pub use dbio_model::event_names::MIN_CUT;

/// Whether the printed `name` is `full`, or `full` cut at a column width.
pub fn names(name: &str, full: &str) -> bool {
    let name = name.trim();
    name == full || (name.len() >= MIN_CUT && full.starts_with(name))
}

/// The first row of `rows` that names `full` (whole names first).
pub fn find<'a>(rows: &'a [WaitEventRow], full: &str) -> Option<&'a WaitEventRow> {
    rows.iter()
        .find(|e| e.name.trim() == full)
        .or_else(|| rows.iter().find(|e| names(&e.name, full)))
}

/// A session-facing event: the foreground table's row, else the top
/// events'.
pub fn foreground<'a>(r: &'a AwrReport, full: &str) -> Option<&'a WaitEventRow> {
    find(&r.foreground_events, full).or_else(|| find(&r.top_events, full))
}

/// A background process's event: the background table's row; a report
/// without a background table gives it from its one table of waits.
pub fn background<'a>(r: &'a AwrReport, full: &str) -> Option<&'a WaitEventRow> {
    if r.background_events.is_empty() {
        find(&r.foreground_events, full).or_else(|| find(&r.top_events, full))
    } else {
        find(&r.background_events, full)
    }
}

/// An event wherever the report prints it (background first): for
/// telling what the database runs (Data Guard, RAC, Exadata), not for
/// its time.
pub fn anywhere<'a>(r: &'a AwrReport, full: &str) -> Option<&'a WaitEventRow> {
    find(&r.background_events, full)
        .or_else(|| find(&r.foreground_events, full))
        .or_else(|| find(&r.top_events, full))
}

/// Every event row of the report (background, foreground, top).
pub fn all_rows(r: &AwrReport) -> impl Iterator<Item = &WaitEventRow> {
    r.background_events
        .iter()
        .chain(&r.foreground_events)
        .chain(&r.top_events)
}

/// A row's waits when it has some.
pub fn waited(e: &WaitEventRow) -> Option<f64> {
    e.waits.filter(|w| *w > 0.0)
}

/// A row's average wait, µs: as printed when above zero, else time /
/// waits (a printed `0` is one under the report's unit: Statspack and
/// 11g text print whole milliseconds).
pub fn average_us(e: &WaitEventRow) -> Option<f64> {
    match e.avg_us {
        Some(a) if a > 0.0 => Some(a),
        printed => waited(e)
            .zip(e.time_s)
            .map(|(w, t)| t * 1e6 / w)
            .or(printed),
    }
}

/// A foreground row's time as a share of the report's DB time, percent.
pub fn share_of_db_time(r: &AwrReport, e: &WaitEventRow) -> Option<f64> {
    let db = r.header.db_time_s.filter(|s| *s > 0.0)?;
    e.time_s.map(|t| 100.0 * t / db)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(name: &str, waits: f64) -> WaitEventRow {
        WaitEventRow {
            name: name.into(),
            waits: Some(waits),
            time_s: Some(waits / 100.0),
            ..Default::default()
        }
    }

    #[test]
    fn cut_names_match_from_twenty_characters_and_whole_names_first() {
        let full = "log file switch (private strand flush incomplete)";
        assert!(names("log file switch (private s", full));
        assert!(names("log file switch (private stran", full));
        assert!(!names("log file switch (pr", full), "19 characters");
        assert!(names("log file switch (pri", full), "20 characters");
        assert!(!names("log file switch (checkpoint in", full));
        let rows = [
            row("log file switch (private s", 3.0),
            row("log file switch (private stran", 5.0),
        ];
        assert_eq!(find(&rows, full).unwrap().waits, Some(3.0), "counted once");
        let rows = [row("log file sync", 1.0), row("log file sync", 2.0)];
        assert_eq!(find(&rows, "log file sync").unwrap().waits, Some(1.0));
    }

    #[test]
    fn session_events_come_from_the_foreground_and_writers_from_the_background() {
        let name = "log file switch (checkpoint incomplete)";
        let mut r = AwrReport {
            foreground_events: vec![row(name, 4627.0)],
            background_events: vec![row(name, 37.0), row("log file parallel write", 10.0)],
            ..Default::default()
        };
        assert_eq!(foreground(&r, name).unwrap().waits, Some(4627.0));
        assert_eq!(background(&r, name).unwrap().waits, Some(37.0));
        assert!(background(&r, "log file sync").is_none());
        // One table of every process's waits (Statspack, 10g).
        r.background_events.clear();
        r.foreground_events
            .push(row("log file parallel write", 10.0));
        assert_eq!(
            background(&r, "log file parallel write").unwrap().waits,
            Some(10.0)
        );
    }

    #[test]
    fn a_printed_zero_average_is_time_over_waits() {
        let mut e = row("control file sequential read", 108_970.0);
        e.time_s = Some(2.0);
        e.avg_us = Some(0.0);
        assert!((average_us(&e).unwrap() - 18.353).abs() < 1e-3);
        e.avg_us = Some(5000.0);
        assert_eq!(average_us(&e), Some(5000.0));
    }
}
