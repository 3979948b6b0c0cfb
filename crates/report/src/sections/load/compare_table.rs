//! Terminal rendering of `dbio load --compare` and of the device
//! baseline.
//!
//! The comparison answers one question per configuration: is it
//! different from the first, beyond what the same configuration does
//! from round to round? Each figure is the median of the rounds with the
//! min–max range beside it; the verdict says whether the TPS ranges
//! overlap. The baseline puts the storage's own durable-write latency
//! (4 KiB + `fdatasync` at queue depth 1) beside the database's commit
//! latency, so the reader sees how much of a commit is the storage.

use crate::kit::text::{new_table, right_align};
use comfy_table::Cell;
use dbio_model::load_compare::{BaselineProbe, LoadBaseline, LoadComparison, Spread};
use dbio_model::units::{format_count_rate, format_ns};
use std::fmt::Write;

fn spread(s: &Spread, f: impl Fn(f64) -> String) -> String {
    if s.min == s.max {
        f(s.median)
    } else {
        format!("{} ({}–{})", f(s.median), f(s.min), f(s.max))
    }
}

fn opt_spread(s: &Option<Spread>, f: impl Fn(f64) -> String) -> String {
    s.as_ref().map_or_else(|| "-".into(), |s| spread(s, f))
}

/// The comparison's table and verdicts.
pub fn render(c: &LoadComparison) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "comparison: {} configurations interleaved in {} round{} (A B A B ...); median \
         (min–max) over the rounds",
        c.configs.len(),
        c.rounds,
        if c.rounds == 1 { "" } else { "s" }
    );
    let mut t = new_table(&[
        "configuration",
        "rounds",
        "commits/s",
        "commit p50 ('log file sync')",
        "commit p99",
        "flush ('log file parallel write')",
        "commits per flush",
        "vs first",
    ]);
    for x in &c.configs {
        t.add_row(vec![
            Cell::new(&x.config),
            Cell::new(x.rounds),
            Cell::new(spread(&x.tps, format_count_rate)),
            Cell::new(spread(&x.commit_p50_ns, format_ns)),
            Cell::new(spread(&x.commit_p99_ns, format_ns)),
            Cell::new(opt_spread(&x.flush_latency_ns, format_ns)),
            Cell::new(opt_spread(&x.commits_per_flush, |v| format!("{v:.2}"))),
            Cell::new(format!("{:.2}x", x.tps_ratio)),
        ]);
    }
    right_align(&mut t);
    let _ = writeln!(s, "{t}");
    if let Some(first) = c.configs.first() {
        for x in &c.configs[1..] {
            let verdict = if x.rounds < 2 || first.rounds < 2 {
                "one round each cannot tell a difference from run-to-run variation (use \
                 --rounds 3 or more)"
                    .to_string()
            } else if x.beyond_range {
                "larger than the run-to-run range (the TPS ranges do not overlap)".to_string()
            } else {
                "within the run-to-run range (the TPS ranges overlap): not a measured difference"
                    .to_string()
            };
            let _ = writeln!(
                s,
                "{} vs {}: {:.2}x the commits per second, {verdict}",
                x.config, first.config, x.tps_ratio
            );
        }
    }
    for x in &c.settings {
        let _ = writeln!(
            s,
            "{} ({}): was {}, {}",
            x.name,
            if x.scope == "server" {
                "changed server-wide"
            } else {
                "set for dbio's sessions only"
            },
            x.original,
            if x.restored {
                "restored"
            } else {
                "NOT restored (see the warnings)"
            }
        );
    }
    if let Some(b) = &c.baseline {
        let first = c.configs.first().map(|x| x.commit_p50_ns.median as u64);
        s.push_str(&baseline(b, first));
    }
    s
}

fn probe_line(when: &str, p: &BaselineProbe) -> String {
    format!(
        "{when}: {} writes in {}, {} per second, p50 {}, p99 {}, max {}",
        p.writes,
        format_ns(p.runtime_ns as f64),
        format_count_rate(p.per_second),
        format_ns(p.latency.p50_ns() as f64),
        format_ns(p.latency.p99_ns() as f64),
        format_ns(p.latency.max_ns as f64)
    )
}

/// The baseline lines; with the database's median commit latency, how
/// it compares with the storage's.
pub fn baseline(b: &LoadBaseline, commit_p50_ns: Option<u64>) -> String {
    let mut s = format!(
        "device baseline (4 KiB write + fdatasync, queue depth 1) in {}, {}:\n",
        b.dir, b.place
    );
    for (when, p) in [("  before", &b.before), ("  after", &b.after)] {
        if let Some(p) = p {
            let _ = writeln!(s, "{}", probe_line(when, p));
        }
    }
    let storage = b
        .before
        .iter()
        .chain(b.after.iter())
        .map(|p| p.latency.p50_ns())
        .filter(|&v| v > 0)
        .min();
    if let (Some(st), Some(db)) = (storage, commit_p50_ns.filter(|&v| v > 0)) {
        let _ = writeln!(
            s,
            "  the database's median commit took {} against the storage's {}: {:.1}x",
            format_ns(db as f64),
            format_ns(st as f64),
            db as f64 / st as f64
        );
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use dbio_model::load_compare::{ComparedSetting, ConfigSummary};

    fn sp(median: f64, min: f64, max: f64) -> Spread {
        Spread { median, min, max }
    }

    #[test]
    fn medians_ranges_verdicts_and_the_restore_are_shown() {
        let c = LoadComparison {
            rounds: 3,
            settings: vec![ComparedSetting {
                name: "synchronous_commit".into(),
                scope: "session".into(),
                original: "on".into(),
                restored: true,
            }],
            configs: vec![
                ConfigSummary {
                    config: "synchronous_commit=on".into(),
                    rounds: 3,
                    tps: sp(1000.0, 900.0, 1100.0),
                    tps_ratio: 1.0,
                    ..Default::default()
                },
                ConfigSummary {
                    config: "synchronous_commit=off".into(),
                    rounds: 3,
                    tps: sp(5000.0, 4800.0, 5100.0),
                    tps_ratio: 5.0,
                    beyond_range: true,
                    ..Default::default()
                },
            ],
            baseline: None,
        };
        let s = render(&c);
        assert!(
            s.contains("synchronous_commit=off vs synchronous_commit=on: 5.00x"),
            "{s}"
        );
        assert!(s.contains("larger than the run-to-run range"), "{s}");
        assert!(s.contains("was on, restored"), "{s}");
        let mut p = BaselineProbe {
            writes: 100,
            runtime_ns: 1_000_000_000,
            per_second: 100.0,
            ..Default::default()
        };
        p.latency.count = 100;
        p.latency.percentiles = vec![dbio_model::Percentile {
            p: 50.0,
            ns: 2_000_000,
        }];
        let b = LoadBaseline {
            dir: "/x/pg_wal".into(),
            place: "the database's log directory".into(),
            before: Some(p),
            after: None,
        };
        let s = baseline(&b, Some(4_000_000));
        assert!(
            s.contains("in /x/pg_wal, the database's log directory"),
            "{s}"
        );
        assert!(s.contains("before: 100 writes"), "{s}");
        assert!(s.contains("2.0x"), "{s}");
    }
}
