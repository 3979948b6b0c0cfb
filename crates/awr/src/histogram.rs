//! Wait event histograms, whatever bucket set the report printed.
//!
//! Each event's cells are gathered over every histogram section (the
//! main one and 12c's `(up to 64 us)`, `(up to 32 ms)`, ... or 11g's
//! `Detail (64 msec to 2 sec)`), then merged onto power-of-two µs buckets.
//!
//! **Totals.** A histogram prints each event's total waits in a column
//! five characters wide with K/M/G abbreviations (`363.3K`). In 11g text
//! reports a total of 100K or more does not fit with its `K`, and the
//! column cuts it: `123.4` is 123.4 K, `1234.` is 1,234 K. Read as printed,
//! every count of such a histogram is 1,000 times too small (the HTML
//! version of the same report has them right). So each total is checked
//! against the wait event tables' count of the same event (foreground
//! plus background, or the combined fg+bg table): when the count agrees
//! with the printed total within its rounding, or with the printed total
//! times 1,000 (or 10^6, 10^9), the count is the total (it is exact where
//! `363.3K` is ± 50); when no table row confirms it, a total printed as a
//! fraction is no count of waits and is read as thousands. Either way
//! the printed total is kept beside it ([`AwrHistogram::printed_total_waits`]).
//! AWR rounds its abbreviated totals (`77.9K` for 77,874 waits);
//! Statspack 12.1 cuts them (`120K` for 120,772, `112K` for 112,737:
//! `jasmin-statspack-12102.txt`), so a total stands for anything from half
//! a unit of its last digit below it to a whole unit above.

use crate::names::canonical;
use crate::num::{self, Printed};
use crate::text::Table;
use dbio_model::awr::{AwrHistogram, HistogramCell, TotalWaitsFrom};
use dbio_model::Log2Buckets;
use std::collections::HashMap;

/// One event's histogram as read so far.
#[derive(Default)]
struct EventCells {
    /// The name as printed (the first time).
    printed: String,
    /// Total waits printed in the main section.
    total: Option<Printed>,
    /// A detail section's waits in its range with the share of its
    /// bounded cells.
    range: Option<(f64, f64)>,
    /// Every cell.
    cells: Vec<HistogramCell>,
}

/// Wait event histogram rows gathered over every bucket set, merged at
/// the end.
#[derive(Default)]
pub struct Histograms {
    order: Vec<String>,
    /// Per event (full name).
    by_event: HashMap<String, EventCells>,
}

/// µs per unit of a histogram heading (`us`, `ms` = 1024 µs, `s` = 1024
/// ms; `m` is minutes, 64 s, in the sections up to 2 min and 1 hr and
/// 1024 µs elsewhere, where it abbreviates `ms`).
fn unit_us(unit: &str, minutes: bool) -> Option<f64> {
    Some(match unit {
        "" | "u" | "us" | "usec" => 1.0,
        "ms" | "msec" => 1024.0,
        "m" if !minutes => 1024.0,
        "m" | "min" => 64.0 * 1_048_576.0,
        "s" | "sec" => 1_048_576.0,
        "h" | "hr" => 4096.0 * 1_048_576.0,
        _ => return None,
    })
}

/// A histogram heading (`<8us`, `>=512`, `<1/8s`, `<=1s`) into
/// (is a lower bound, edge µs). Statspack's and 11g's `<=1s` is "truly
/// <1024ms" and `>1s` "truly >=1024ms" (the reports' note), so `<=` is
/// read as `<` and `>` as `>=`.
fn edge(label: &str, minutes: bool) -> Option<(bool, u64)> {
    let p = label.rfind(['<', '>'])?;
    let l = &label[p..];
    let (lower, rest) = if let Some(r) = l.strip_prefix(">=") {
        (true, r)
    } else if let Some(r) = l.strip_prefix('>') {
        (true, r)
    } else if let Some(r) = l.strip_prefix("<=") {
        (false, r)
    } else {
        (false, &l[1..])
    };
    let rest = rest.trim();
    let split = rest
        .find(|c: char| c.is_ascii_alphabetic())
        .unwrap_or(rest.len());
    let (n, unit) = rest.split_at(split);
    let v = match n.split_once('/') {
        Some((a, b)) => num::plain(a)? / num::plain(b)?,
        None => num::plain(n)?,
    };
    let us = v * unit_us(unit, minutes)?;
    (0.0..1e18)
        .contains(&us)
        .then_some((lower, us.round() as u64))
}

impl Histograms {
    /// Reads one histogram table of a section titled `title`
    /// (lower-cased).
    pub fn read(&mut self, t: &Table, title: &str) {
        let head0 = t
            .headers
            .first()
            .map_or(String::new(), |h| h.to_ascii_lowercase());
        if t.headers.len() < 3 || !head0.contains("event") {
            return;
        }
        let main = title.trim() == "wait event histogram";
        let minutes = title.contains("min") || title.contains("hr");
        let edges: Vec<Option<(bool, u64)>> =
            t.headers.iter().skip(2).map(|h| edge(h, minutes)).collect();
        for row in &t.rows {
            let printed = row.first().map_or("", |c| c.trim());
            let Some(total) = row.get(1).and_then(|c| num::count_printed(c)) else {
                continue;
            };
            if printed.is_empty() {
                continue;
            }
            let name = canonical(printed).into_owned();
            let entry = self.by_event.entry(name.clone()).or_insert_with(|| {
                self.order.push(name);
                EventCells {
                    printed: printed.to_string(),
                    ..Default::default()
                }
            });
            let mut lo = 0u64;
            let mut bounded = 0.0;
            for (i, e) in edges.iter().enumerate() {
                let Some((lower, x)) = *e else { continue };
                let text = row.get(i + 2).map(String::as_str).unwrap_or("").trim();
                let pct = if text.is_empty() {
                    0.0
                } else {
                    match num::plain(text) {
                        Some(p) => p,
                        None => continue,
                    }
                };
                let label = &t.headers[i + 2];
                let label = label
                    .rfind(['<', '>'])
                    .map_or(label.clone(), |p| label[p..].to_string());
                let blank = text.is_empty();
                let cell = if lower {
                    HistogramCell {
                        label,
                        lo_us: x,
                        hi_us: None,
                        pct,
                        blank,
                    }
                } else {
                    let c = HistogramCell {
                        label,
                        lo_us: lo,
                        hi_us: Some(x),
                        pct,
                        blank,
                    };
                    if i > 0 {
                        bounded += pct;
                    }
                    lo = x;
                    c
                };
                entry.cells.push(cell);
            }
            if main {
                entry.total.get_or_insert(total);
            } else if entry.range.is_none() {
                entry.range = Some((thousands_if_cut(&total), bounded));
            }
        }
    }

    /// The histograms, each total checked against `waits_of` (the wait
    /// event tables' count of an event, by full name).
    pub fn finish(mut self, waits_of: impl Fn(&str) -> Option<f64>) -> Vec<AwrHistogram> {
        let mut out = Vec::new();
        for name in self.order {
            let Some(e) = self.by_event.remove(&name) else {
                continue;
            };
            let (total, from, printed_total) = match e.total {
                Some(p) => {
                    let (t, from) = checked_total(&p, waits_of(&name));
                    (
                        t,
                        from,
                        (from != TotalWaitsFrom::Printed).then_some(p.value),
                    )
                }
                // Without the main section, the total follows from a
                // detail section's waits in its range and their share.
                None => (
                    e.range
                        .filter(|r| r.1 > 0.0)
                        .map_or(0.0, |(w, p)| w * 100.0 / p),
                    TotalWaitsFrom::Printed,
                    None,
                ),
            };
            let buckets = merge(&e.cells, total);
            out.push(AwrHistogram {
                printed_event: (e.printed != name).then_some(e.printed),
                event: name,
                total_waits: total,
                total_waits_from: from,
                printed_total_waits: printed_total,
                cells: e.cells,
                buckets,
            });
        }
        out
    }
}

/// A printed count that is a fraction without a suffix (`123.4`,
/// `1234.`) is thousands whose `K` the column cut; any other as printed.
fn thousands_if_cut(p: &Printed) -> f64 {
    if p.fraction && !p.abbreviated {
        p.value * 1e3
    } else {
        p.value
    }
}

/// The histogram's total from its printed total and the wait event
/// tables' count of the event (see the module's note).
pub fn checked_total(p: &Printed, events: Option<f64>) -> (f64, TotalWaitsFrom) {
    if let Some(c) = events.filter(|c| *c > 0.0) {
        // A printed suffix is not lost: only the scale printed.
        let scales: &[f64] = if p.abbreviated {
            &[1.0]
        } else {
            &[1.0, 1e3, 1e6, 1e9]
        };
        for &m in scales {
            // Rounded (± half a unit of the last printed digit) or cut
            // (up to a whole unit above), and half a wait for the
            // count's own rounding.
            let (t, h) = (p.value * m, p.half_unit * m);
            let rounded = p.abbreviated || p.fraction || m > 1.0;
            let (below, above) = if rounded {
                (h + 0.5, 2.0 * h + 0.5)
            } else {
                (0.0, 0.0)
            };
            if c >= t - below && c <= t + above {
                let from = if m == 1.0 && c == t {
                    TotalWaitsFrom::Printed
                } else {
                    TotalWaitsFrom::WaitEvents
                };
                return (c, from);
            }
        }
    }
    if p.fraction && !p.abbreviated {
        return (thousands_if_cut(p), TotalWaitsFrom::PrintedThousands);
    }
    (p.value, TotalWaitsFrom::Printed)
}

/// The chosen cells onto power-of-two µs buckets: a bounded cell counts
/// in the bucket just below its upper edge, an open one at its lower edge.
pub fn merge(cells: &[HistogramCell], total: f64) -> Log2Buckets {
    let mut b = Log2Buckets::default();
    for c in dbio_model::awr::chosen_cells(cells) {
        let n = c.waits(total);
        if n < 1.0 {
            continue;
        }
        let us = match c.hi_us {
            Some(h) => h - 1,
            None => c.lo_us,
        };
        b.record_us_n(us, n as u64);
    }
    b
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn histogram_edges_are_powers_of_two_microseconds() {
        assert_eq!(edge("<8us", false), Some((false, 8)));
        assert_eq!(edge("<128u", false), Some((false, 128)));
        assert_eq!(edge(">=512", false), Some((true, 512)));
        assert_eq!(edge("<1ms", false), Some((false, 1024)));
        assert_eq!(edge(">=32m", false), Some((true, 32768)));
        assert_eq!(edge("<1/8s", false), Some((false, 131_072)));
        assert_eq!(edge("% of Total <=1s", false), Some((false, 1_048_576)));
        assert_eq!(edge(">1s", false), Some((true, 1_048_576)));
        assert_eq!(edge("Total Waits", false), None);
    }

    #[test]
    fn the_finest_cells_win_and_catch_alls_fill_the_rest() {
        let c = |lo, hi: Option<u64>, pct| HistogramCell {
            label: String::new(),
            lo_us: lo,
            hi_us: hi,
            pct,
            blank: false,
        };
        // Main: <8us 50, >=512 50; detail: <2us 25, <4us 25, >=64u 50.
        let cells = [
            c(0, Some(8), 50.0),
            c(512, None, 50.0),
            c(0, Some(1), 0.0),
            c(1, Some(2), 25.0),
            c(2, Some(4), 25.0),
            c(4, Some(8), 0.0),
            c(64, None, 50.0),
        ];
        let b = merge(&cells, 4.0);
        assert_eq!(b.counts, [0, 1, 1, 0, 0, 0, 0, 0, 0, 0, 2]);
    }

    #[test]
    fn a_total_whose_k_was_cut_is_taken_from_the_wait_event_tables() {
        let p = |s| num::count_printed(s).unwrap();
        // Agrees within its rounding: the exact count.
        assert_eq!(
            checked_total(&p("77.9K"), Some(77_874.0)),
            (77_874.0, TotalWaitsFrom::WaitEvents)
        );
        // 50 below `77.9K` (its rounding) and one past it; 100 above
        // (a cut `77.9K`) and one past it.
        assert_eq!(
            checked_total(&p("77.9K"), Some(77_850.0)).1,
            TotalWaitsFrom::WaitEvents
        );
        assert_eq!(
            checked_total(&p("77.9K"), Some(77_849.0)),
            (77_900.0, TotalWaitsFrom::Printed)
        );
        assert_eq!(
            checked_total(&p("77.9K"), Some(78_000.0)).1,
            TotalWaitsFrom::WaitEvents
        );
        assert_eq!(
            checked_total(&p("77.9K"), Some(78_001.0)).1,
            TotalWaitsFrom::Printed
        );
        // Statspack cuts: `120K` for 120,772.
        assert_eq!(
            checked_total(&p("120K"), Some(120_772.0)),
            (120_772.0, TotalWaitsFrom::WaitEvents)
        );
        // 11g text: `123.4` is 123.4 K, `1234.` 1,234 K.
        assert_eq!(
            checked_total(&p("123.4"), Some(123_412.0)),
            (123_412.0, TotalWaitsFrom::WaitEvents)
        );
        assert_eq!(
            checked_total(&p("1234."), Some(1_233_601.0)),
            (1_233_601.0, TotalWaitsFrom::WaitEvents)
        );
        assert_eq!(
            checked_total(&p("1800."), Some(1_800_000.0)),
            (1_800_000.0, TotalWaitsFrom::WaitEvents)
        );
        // No table row: a fraction is thousands; a whole number as printed.
        assert_eq!(
            checked_total(&p("123.4"), None),
            (123_400.0, TotalWaitsFrom::PrintedThousands)
        );
        assert_eq!(
            checked_total(&p("1400"), Some(1390.0)),
            (1400.0, TotalWaitsFrom::Printed)
        );
        assert_eq!(
            checked_total(&p("4229"), Some(4229.0)),
            (4229.0, TotalWaitsFrom::Printed)
        );
        // A whole number is exact: one wait apart is another count.
        assert_eq!(
            checked_total(&p("5225"), Some(5226.0)),
            (5225.0, TotalWaitsFrom::Printed)
        );
        // A printed `K` is not lost: 12K does not become 12 M.
        assert_eq!(
            checked_total(&p("12K"), Some(12_000_000.0)),
            (12_000.0, TotalWaitsFrom::Printed)
        );
    }
}
