//! Terminal summary of a result's per-second series
//! ([`dbio_model::series`]): one line per series with its minimum, median
//! and maximum, and a note when the first second looks like a warm-up or
//! some seconds look like stalls.
//!
//! Why a summary and not the values: an hour is 3,600 numbers per series;
//! `--json`, `--csv` (and the HTML report's charts) carry them all, and the
//! table says whether they are worth looking at.
//!
//! The rules, on a rate series (unit `/s`) with at least 3 seconds: a
//! *stall* is a second at or below 10 % of the median (a null latency
//! second is one with nothing completed, which its rate shows as 0); a
//! *warm-up* is a first second below 80 % of the median.

use crate::kit::text::{new_table, right_align};
use comfy_table::Cell;
use dbio_model::series::{Series, SeriesUnit};
use dbio_model::units::{format_count_rate, format_ns};
use std::fmt::Write;

/// A stall: a second at or below this share of the median rate.
pub const STALL_SHARE: f64 = 0.10;
/// A warm-up: a first second below this share of the median rate.
pub const WARMUP_SHARE: f64 = 0.80;

/// A value in the series' unit.
pub fn format_value(unit: SeriesUnit, v: f64) -> String {
    match unit {
        SeriesUnit::PerSecond => format_count_rate(v),
        SeriesUnit::Ns => format_ns(v),
        SeriesUnit::Ratio => format!("{v:.2}"),
    }
}

/// The notes on a rate series: stalls and a warm-up (empty when none).
pub fn notes(s: &Series) -> Vec<String> {
    let mut out = Vec::new();
    let Some(sp) = s.spread() else {
        return out;
    };
    if s.unit != SeriesUnit::PerSecond || s.values.len() < 3 || sp.median <= 0.0 {
        return out;
    }
    let stalls = s.dips_below(STALL_SHARE);
    if !stalls.is_empty() {
        let at: Vec<String> = stalls.iter().take(8).map(|t| format!("{t:.0}")).collect();
        out.push(format!(
            "{}: {} second(s) at or below {:.0} % of the median (stalls?), ending at {} s{}",
            s.name,
            stalls.len(),
            STALL_SHARE * 100.0,
            at.join(", "),
            if stalls.len() > 8 { ", ..." } else { "" }
        ));
    }
    if let Some(Some(first)) = s.values.first() {
        if *first < sp.median * WARMUP_SHARE && !stalls.contains(&s.t_s[0]) {
            out.push(format!(
                "{}: the first second ran at {:.0} % of the median: a warm-up, which the figures above include",
                s.name,
                first / sp.median * 100.0
            ));
        }
    }
    out
}

/// Fewer seconds than this give no spread worth a table (one or two
/// values are their own min, median and max).
pub const MIN_SECONDS_FOR_SPREAD: usize = 3;

/// The summary block of `per_second` under the heading `what` (empty when
/// there are no series; one line when too few seconds were sampled for a
/// spread).
pub fn summary(what: &str, per_second: &[Series]) -> String {
    if per_second.is_empty() {
        return String::new();
    }
    let seconds = per_second.iter().map(|s| s.values.len()).max().unwrap_or(0);
    if seconds < MIN_SECONDS_FOR_SPREAD {
        return format!(
            "{what}: {seconds} second(s) sampled, too few for a per-second spread (the series is in the JSON and on the HTML page)\n"
        );
    }
    let mut t = new_table(&["per second", "min", "median", "max", "seconds"]);
    let mut notes_all = Vec::new();
    for s in per_second {
        let Some(sp) = s.spread() else {
            continue;
        };
        t.add_row(vec![
            Cell::new(&s.name),
            Cell::new(format_value(s.unit, sp.min)),
            Cell::new(format_value(s.unit, sp.median)),
            Cell::new(format_value(s.unit, sp.max)),
            Cell::new(sp.n),
        ]);
        notes_all.extend(notes(s));
    }
    right_align(&mut t);
    let mut out = format!(
        "{what}: {seconds} second(s) sampled (rates exact, percentiles within 12.5 %):\n{t}\n"
    );
    for n in notes_all {
        let _ = writeln!(out, "  note: {n}");
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rate(values: &[f64]) -> Series {
        let mut s = Series::new("tps", SeriesUnit::PerSecond);
        for (i, v) in values.iter().enumerate() {
            s.push(i as f64 + 1.0, Some(*v));
        }
        s
    }

    #[test]
    fn stalls_and_a_warm_up_are_noted_and_a_steady_series_is_not() {
        let n = notes(&rate(&[500.0, 1000.0, 1010.0, 50.0, 990.0]));
        assert_eq!(n.len(), 2, "{n:?}");
        assert!(
            n[0].contains("1 second(s)") && n[0].contains("ending at 4 s"),
            "{n:?}"
        );
        assert!(n[1].contains("first second ran at 51 %"), "{n:?}");
        assert!(notes(&rate(&[1000.0, 1000.0, 990.0, 1010.0])).is_empty());
        let short = summary("read", &[rate(&[1000.0, 1000.0])]);
        assert!(short.contains("too few for a per-second spread"), "{short}");
        assert_eq!(short.lines().count(), 1, "{short}");
        let text = summary("lgwr", &[rate(&[1000.0, 2000.0, 3000.0])]);
        assert!(text.contains("3 second(s)"), "{text}");
        assert!(text.contains("2.00 k"), "{text}");
    }
}
