//! Terminal rendering of what striping and fleets add to a result: the
//! members of a stripe (is the load balanced?) and the parts of a merged
//! result (did every host do its share, and did they start together?).

use crate::kit::text::{lat_cells, new_table, right_align};
use comfy_table::Cell;
use dbio_model::stripe::StripeResult;
use dbio_model::units::{format_bytes, format_count_rate};
use dbio_model::{JobResult, RunReport};
use std::fmt::Write;

/// One row per member of a stripe: its I/Os, its share of them, its
/// latency and its disk's counters.
pub fn stripe(s: &StripeResult, runtime_ns: u64) -> String {
    let mut out = String::new();
    let total: u64 = s.targets.iter().map(|t| t.ops()).sum();
    let _ = writeln!(
        out,
        "stripe: {} over {} targets, unit {}, {} each",
        s.layout.name(),
        s.targets.len(),
        format_bytes(s.stripe_bytes),
        format_bytes(s.targets.first().map_or(0, |t| t.size))
    );
    let mut t = new_table(&[
        "target", "ops", "share", "rate", "mean", "p50", "p90", "p99", "p99.9", "max", "disk",
        "disk r/w",
    ]);
    let secs = runtime_ns.max(1) as f64 / 1e9;
    for m in &s.targets {
        let mut row = vec![
            Cell::new(&m.path),
            Cell::new(m.ops()),
            Cell::new(format!(
                "{:.1} %",
                if total > 0 {
                    m.ops() as f64 * 100.0 / total as f64
                } else {
                    0.0
                }
            )),
            Cell::new(format!("{} IOPS", format_count_rate(m.ops() as f64 / secs))),
        ];
        row.extend(lat_cells(&m.lat));
        match &m.device {
            Some(d) => {
                row.push(Cell::new(&d.device));
                row.push(Cell::new(format!("{}/{}", d.reads, d.writes)));
            }
            None => {
                row.push(Cell::new("-"));
                row.push(Cell::new(""));
            }
        }
        t.add_row(row);
    }
    right_align(&mut t);
    let _ = writeln!(out, "{t}");
    out
}

/// One row per part of a merged result and job: who did how much, and
/// when each began measuring relative to the first.
pub fn parts(r: &RunReport) -> String {
    if r.parts.is_empty() {
        return String::new();
    }
    let mut out = String::new();
    let _ = writeln!(out, "merged from {} parts:", r.parts.len());
    let mut t = new_table(&["part", "job", "ops", "rate", "p50", "p99", "began"]);
    for (i, j) in r.jobs.iter().enumerate() {
        let begin = r
            .parts
            .iter()
            .filter_map(|p| p.jobs.get(i).and_then(|x| x.started_at_unix_ns))
            .min();
        for (k, p) in r.parts.iter().enumerate() {
            let Some(pj) = p.jobs.get(i) else { continue };
            let lat = headline(pj);
            t.add_row(vec![
                Cell::new(crate::sections::jobs::merge::part_label(p, k)),
                Cell::new(&j.name),
                Cell::new(pj.total_ops()),
                Cell::new(format!(
                    "{} IOPS",
                    format_count_rate(pj.total_ops() as f64 / (pj.runtime_ns.max(1) as f64 / 1e9))
                )),
                Cell::new(lat.map_or(String::new(), |l| {
                    dbio_model::units::format_ns(l.p50_ns() as f64)
                })),
                Cell::new(lat.map_or(String::new(), |l| {
                    dbio_model::units::format_ns(l.p99_ns() as f64)
                })),
                Cell::new(match (pj.started_at_unix_ns, begin) {
                    (Some(s), Some(b)) => format!("+{:.3} ms", (s - b) as f64 / 1e6),
                    _ => "?".into(),
                }),
            ]);
        }
    }
    right_align(&mut t);
    let _ = writeln!(out, "{t}");
    out
}

fn headline(j: &JobResult) -> Option<&dbio_model::LatencySummary> {
    crate::sections::jobs::table::headline(j).map(|(_, l, _)| l)
}

/// The line saying when a `--start-at` run was told to start and what
/// this host's clock was worth then (adjtimex's status and error bound);
/// empty without `--start-at`.
pub fn start_line(r: &RunReport) -> String {
    let Some(t) = r.start_at_unix_ns else {
        return String::new();
    };
    let mut s = format!(
        "start at {}.{:03} (Unix s, --start-at)",
        t / 1_000_000_000,
        t / 1_000_000 % 1000
    );
    if let Some(c) = &r.clock {
        let ms = |us: u64| us as f64 / 1000.0;
        let _ = write!(
            s,
            "; this host's clock {}, maximum error {:.3} ms, estimated {:.3} ms (--max-clock-error {})",
            if c.synchronised {
                "synchronised"
            } else {
                "NOT synchronised"
            },
            ms(c.max_error_us),
            ms(c.est_error_us),
            c.limit_us
                .map_or("off".to_string(), |l| format!("{:.3} ms", ms(l)))
        );
    }
    s.push('\n');
    s
}
