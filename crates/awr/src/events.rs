//! Wait event tables: Top events, foreground, background, and the
//! combined fg+bg tables of Statspack and 10g.
//!
//! Columns are found by their headings. Two things are read beyond the
//! numbers:
//!
//! * **Averages at their precision.** 11g text reports and Statspack
//!   print the average wait in whole milliseconds: `0`, `5`. Taken as
//!   exact, a `0` reads as no time at all and 'log file sync' −
//!   'log file parallel write' is off by up to a millisecond. Total time
//!   / waits is another rounding of the same quantity (Oracle computes
//!   both from `TIME_WAITED_MICRO`), so each average is bounded by both
//!   and the estimate is the middle of the two bounds' overlap (or of the
//!   narrower one, if they do not overlap), with half its width as the
//!   error ([`WaitEventRow::avg_error_us`]). An average printed finer
//!   than 1 % (`373.76us`, `1327` ms) is kept as printed.
//! * **What the share column is a share of** ([`PctOf`]), and which rows
//!   are idle: of the class `Idle`; in a foreground or background list,
//!   printed without a share (AWR and Statspack list idle events last
//!   with an empty share column); or on dbio's list
//!   ([`crate::names::is_idle_name`]) unless AWR printed a share of DB
//!   time for it (AWR's classes are Oracle's own for that release;
//!   Statspack's idle list goes stale, so its Top 5 can rank 'LGWR worker
//!   group idle' first).

use crate::names::{canonical, is_idle_name};
use crate::num::{self, Printed};
use crate::text::Table;
use dbio_model::awr::{PctOf, StatRow, WaitEventRow};

/// Which list a table is read into.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum List {
    /// Top timed events (their share column counts idle events in
    /// Statspack, whose idle list is stale).
    Top,
    /// Foreground, background, or combined: idle events last, with no
    /// share.
    Waits,
}

/// The share column's meaning from its heading: `% DB time`, `% bg time`,
/// `%Total Call Time` (Statspack, 10g), `% Total Ela Time` (9i
/// Statspack and 10g's first AWR).
pub fn pct_of(heading: &str) -> Option<PctOf> {
    let h = heading.to_ascii_lowercase();
    if h.contains("bg time") {
        Some(PctOf::BgTime)
    } else if h.contains("db time") {
        Some(PctOf::DbTime)
    } else if h.contains("call time") {
        Some(PctOf::CallTime)
    } else if h.contains("ela time") {
        Some(PctOf::ElaTime)
    } else {
        None
    }
}

/// Index of the first heading after the first column that `pred`
/// accepts (lower-cased).
fn col(t: &Table, pred: impl Fn(&str) -> bool) -> Option<usize> {
    t.headers
        .iter()
        .enumerate()
        .skip(1)
        .find(|(_, h)| pred(&h.to_ascii_lowercase()))
        .map(|(i, _)| i)
}

/// Rows of a wait event table into `out`; a row that is no event (a
/// statistic line pasted under the table) goes to `stats`. Returns what
/// the table's share column is of, when it has one.
pub fn read(
    t: &Table,
    list: List,
    out: &mut Vec<WaitEventRow>,
    stats: &mut Vec<StatRow>,
) -> Option<PctOf> {
    let head0 = t
        .headers
        .first()
        .map_or(String::new(), |h| h.to_ascii_lowercase());
    if !head0.contains("event") {
        return None;
    }
    let waits = col(t, |h| {
        h.contains("waits") && !h.contains("/txn") && !h.contains('%') && !h.contains("time")
    });
    let time = col(t, |h| {
        (h.contains("(s)") || h.contains("(sec)") || h.contains("time(s)"))
            && !h.starts_with("avg")
            && !h.contains('%')
    });
    let avg = col(t, |h| h.starts_with("avg"));
    let class = col(t, |h| h.contains("class"));
    let pct = col(t, |h| pct_of(h).is_some());
    let share = pct.and_then(|i| pct_of(&t.headers[i]));
    let avg_unit = avg.map_or(1000.0, |i| {
        let h = t.headers[i].to_ascii_lowercase();
        if h.contains("(us)") {
            1.0
        } else if h.contains("(s)") {
            1e6
        } else {
            1000.0
        }
    });
    let cell = |row: &[String], i: Option<usize>| -> Option<String> {
        i.and_then(|i| row.get(i)).map(|c| c.trim().to_string())
    };
    for row in &t.rows {
        let printed_name = row.first().map_or("", |c| c.trim());
        if printed_name.is_empty() || printed_name.starts_with('-') {
            continue;
        }
        let w = cell(row, waits).and_then(|c| num::count_printed(&c));
        let ts = cell(row, time).and_then(|c| num::count_printed(&c));
        if w.is_none() && ts.is_none() {
            let line: Vec<&str> = row.iter().map(String::as_str).collect();
            crate::stats_from_words(&line.join(" "), stats);
            continue;
        }
        let printed_avg = cell(row, avg).and_then(|c| num::time_us_printed(&c, avg_unit));
        let (avg_us, avg_error_us) = average(printed_avg, w, ts).unzip();
        let class = cell(row, class).filter(|c| !c.is_empty());
        let pct_text = cell(row, pct);
        let name = canonical(printed_name);
        let blank_share = pct.is_some() && pct_text.as_deref() == Some("");
        // AWR gives a share of DB (or background) time to what Oracle's
        // current wait classes count as work ('SQL*Net more data from
        // client' is Network there): its print decides. Statspack's
        // share is of call time by its own stale idle list: dbio's
        // decides.
        let awr_share = matches!(share, Some(PctOf::DbTime | PctOf::BgTime)) && !blank_share;
        let idle = class
            .as_deref()
            .is_some_and(|c| c.eq_ignore_ascii_case("idle"))
            || (list == List::Waits && blank_share)
            || (!awr_share && is_idle_name(&name));
        out.push(WaitEventRow {
            printed_name: (name != printed_name).then(|| printed_name.to_string()),
            name: name.into_owned(),
            class,
            waits: w.map(|p| p.value),
            time_s: ts.map(|p| p.value),
            avg_us,
            avg_error_us: avg_error_us.flatten(),
            pct_db_time: pct_text.and_then(|c| num::count(&c)),
            idle,
        });
    }
    share
}

/// An interval `[lo, hi]` µs the true average lies in.
type Interval = (f64, f64);

/// The interval a printed average stands for (never below 0).
fn printed_interval(p: &Printed) -> Interval {
    ((p.value - p.half_unit).max(0.0), p.value + p.half_unit)
}

/// The interval total time / waits stands for, each at its printed
/// precision (waits printed whole are exact; `12.3K` is ± 50); `None`
/// without waits, or when the waits' bound reaches 0.
fn quotient_interval(waits: &Printed, time_s: &Printed) -> Option<Interval> {
    let ew = if waits.fraction || waits.abbreviated {
        waits.half_unit
    } else {
        0.0
    };
    if waits.value <= 0.0 || waits.value - ew <= 0.0 {
        return None;
    }
    let lo = (time_s.value - time_s.half_unit).max(0.0) * 1e6 / (waits.value + ew);
    let hi = (time_s.value + time_s.half_unit) * 1e6 / (waits.value - ew);
    Some((lo, hi))
}

/// Whether a bound is finer than 1 % of its value (then it is not
/// recorded).
fn fine(value: f64, error: f64) -> bool {
    value > 0.0 && error < 0.01 * value
}

/// The average (µs) and its ± bound (`None` when finer than 1 %): as
/// printed when printed finely, else the middle of where the printed
/// average and time / waits both put it (or of the narrower of the two
/// when they disagree), else whichever there is.
pub fn average(
    printed: Option<Printed>,
    waits: Option<Printed>,
    time_s: Option<Printed>,
) -> Option<(f64, Option<f64>)> {
    if let Some(p) = &printed {
        if fine(p.value, p.half_unit) {
            return Some((p.value, None));
        }
    }
    let from_printed = printed.as_ref().map(printed_interval);
    let from_quotient = waits
        .as_ref()
        .zip(time_s.as_ref())
        .and_then(|(w, t)| quotient_interval(w, t));
    let (lo, hi) = match (from_printed, from_quotient) {
        (Some(a), Some(b)) => {
            let (lo, hi) = (a.0.max(b.0), a.1.min(b.1));
            if lo <= hi {
                (lo, hi)
            } else if a.1 - a.0 <= b.1 - b.0 {
                a
            } else {
                b
            }
        }
        (Some(a), None) => {
            // Printed alone: kept as printed, with its bound.
            let p = printed.expect("an interval from a printed average");
            let error = (a.1 - p.value).max(p.value - a.0);
            return Some((p.value, (!fine(p.value, error)).then_some(error)));
        }
        (None, Some(b)) => b,
        (None, None) => return None,
    };
    let value = (lo + hi) / 2.0;
    let error = (hi - lo) / 2.0;
    Some((value, (!fine(value, error)).then_some(error)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn c(s: &str) -> Option<Printed> {
        num::count_printed(s)
    }

    fn ms(s: &str) -> Option<Printed> {
        num::time_us_printed(s, 1000.0)
    }

    #[test]
    fn a_fine_average_is_kept_as_printed() {
        let p = num::time_us_printed("373.76us", 1.0);
        assert_eq!(average(p, c("77,820"), c("29")), Some((373.76, None)));
        // 1327 ms: ± 0.5 ms is 0.04 %.
        assert_eq!(
            average(ms("1327"), c("5,188"), c("6,885")),
            Some((1_327_000.0, None))
        );
    }

    #[test]
    fn a_whole_millisecond_average_is_narrowed_by_time_over_waits() {
        // Statspack 'log file sync': 4,491 waits, 25 s, 5 ms. 25 s ± 0.5
        // over 4,491 is 5.455..5.678 ms; 5 ms ± 0.5 is 4.5..5.5 ms: both
        // hold for 5.455..5.5 ms.
        let (v, e) = average(ms("5"), c("4,491"), c("25")).unwrap();
        let lo = 24.5e6 / 4491.0;
        assert!((v - (lo + 5500.0) / 2.0).abs() < 1e-9, "{v}");
        // Half of 45 µs is under 1 % of 5.48 ms: not recorded.
        assert_eq!(e, None);
        // 'log file parallel write': 5,226 waits, 31 s, 6 ms: 5.836..6.028
        // ms inside 5.5..6.5 ms; ± 96 µs is 1.6 %.
        let (v, e) = average(ms("6"), c("5,226"), c("31")).unwrap();
        assert!((v - 31e6 / 5226.0).abs() < 1e-6, "{v}");
        let e = e.unwrap();
        assert!((e - 0.5e6 / 5226.0).abs() < 1e-6, "{e}");
    }

    #[test]
    fn a_printed_zero_is_a_bound_not_zero() {
        // 160,620 waits in 34 s, printed 0 ms: 208.6..214.8 µs.
        let (v, e) = average(ms("0"), c("160,620"), c("34")).unwrap();
        assert!((v - 34e6 / 160_620.0).abs() < 1e-6);
        assert!(e.unwrap() > 3.0 && e.unwrap() < 3.2);
        // 6,378 waits in 0 s, printed 0 ms: under 78.4 µs, so 39.2 ± 39.2.
        let (v, e) = average(ms("0"), c("6,378"), c("0")).unwrap();
        let top = 0.5e6 / 6378.0;
        assert!((v - top / 2.0).abs() < 1e-9 && (e.unwrap() - top / 2.0).abs() < 1e-9);
        // Printed 0 alone: 0 ± 500 µs, never an exact 0.
        assert_eq!(average(ms("0"), None, None), Some((0.0, Some(500.0))));
    }

    #[test]
    fn disagreeing_bounds_keep_the_narrower_and_time_over_waits_fills_in() {
        // 2 ms printed, but 10 s / 1,000 waits = 10 ms ± 0.05: disjoint;
        // the quotient is narrower.
        let (v, e) = average(ms("2"), c("1,000"), c("10.0")).unwrap();
        assert!((v - 10_000.0).abs() < 1e-9 && e.is_none());
        // `######`: no printed average, time / waits alone.
        let (v, _) = average(None, c("4"), c("14,400")).unwrap();
        assert_eq!(v, 3_600_000_000.0);
        assert_eq!(average(None, c("0"), c("3")), None);
        assert_eq!(average(None, None, c("3")), None);
    }

    #[test]
    fn share_columns_are_named_by_their_heading() {
        assert_eq!(pct_of("% DB time"), Some(PctOf::DbTime));
        assert_eq!(pct_of("% bg time"), Some(PctOf::BgTime));
        assert_eq!(pct_of("%Total Call Time"), Some(PctOf::CallTime));
        assert_eq!(pct_of("% Total Ela Time"), Some(PctOf::ElaTime));
        assert_eq!(pct_of("Waits /txn"), None);
    }
}
