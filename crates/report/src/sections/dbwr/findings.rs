//! Database writers in words (`dbio dbwr` and the writer section of `dbio
//! check`): what each configuration sustained, whether its busiest writer
//! was CPU-bound, and what adding writers did.
//!
//! The rule is Kevin Closson's ("Over-Configuring DBWR Processes – Part
//! III"): keep one writer until that writer is CPU-bound; on Linux 10g/11g
//! he measured one DBWR at 62.6 TPM with 291 CPU s against eight at 57.9
//! TPM with 256 CPU s (-7.5 %). `docs/dbwr.md` explains the model.

use crate::kit::findings::RuleSet;
use crate::kit::findings::{ev, finding, pct, plural, Finding, Severity};
use crate::kit::references::over_configuring_dbwr;
use crate::verdict::severity_of_share;
use dbio_model::dbwr::DbwrResult;
use dbio_model::units::{format_bytes, format_count_rate, format_ns};
use dbio_model::{CpuUsage, EngineKind, RunReport};

/// The writer rules (the `dbwr` section of `dbwr` and `check`).
pub const RULES: RuleSet<RunReport> = RuleSet {
    area: "dbwr",
    evaluate,
};

/// A writer is called CPU-bound when its user + system time covers at
/// least this share of the wall time: it was on a CPU nearly all the time,
/// so a faster device would not make it write faster.
pub const CPU_BOUND_SHARE: f64 = 0.8;

fn evaluate(r: &RunReport) -> Vec<Finding> {
    let mut out: Vec<Finding> = Vec::new();
    match r.command.as_str() {
        "dbwr" => {
            out.extend(r.dbwr.iter().map(configuration));
            out.extend(r.dbwr.iter().filter_map(free_buffer_waits));
            if r.partial.is_none() {
                out.extend(sweep(&r.dbwr));
            }
        }
        // One writer finding: `check_writer` says what `configuration`
        // would, in check's words (the two were near-identical).
        "check" => {
            out.extend(r.dbwr.first().map(check_writer));
        }
        _ => {}
    }
    out
}

/// The busiest writer's share of one CPU.
pub fn busiest_writer(r: &DbwrResult) -> f64 {
    r.writers
        .iter()
        .map(|w| w.cpu.utilisation)
        .fold(0.0, f64::max)
}

/// CPU seconds (user + system).
pub fn cpu_s(c: &CpuUsage) -> f64 {
    (c.user_ns + c.system_ns) as f64 / 1e9
}

/// One configuration in plain words.
pub fn configuration(r: &DbwrResult) -> Finding {
    let k = r.config.writers;
    let busiest = busiest_writer(r);
    let fbw = &r.foreground.free_buffer_waits;
    let mut s = format!(
        "{k} writer{}: {} buffer operations per minute; the writers wrote {} blocks/s in batches of {:.1} on average, using {:.0} % of one CPU together",
        plural(k),
        format_count_rate(r.foreground.ops_per_min),
        format_count_rate(r.writes.write_iops),
        r.writes.batch_mean,
        r.writers_cpu.utilisation * 100.0,
    );
    if fbw.count > 0 {
        s.push_str(&format!(
            "; foregrounds waited for free buffers {} times ({:.0} ms in all)",
            fbw.count,
            fbw.total_ns as f64 / 1e6
        ));
    } else {
        s.push_str("; no foreground waited for a free buffer");
    }
    let bound = busiest >= CPU_BOUND_SHARE;
    if bound {
        s.push_str(&format!(
            ". The busiest writer was on a CPU {:.0} % of the time: CPU-bound, the case where more writers can help",
            busiest * 100.0
        ));
    } else {
        s.push_str(&format!(
            ". The busiest writer used {:.0} % of a CPU: not CPU-bound",
            busiest * 100.0
        ));
    }
    s.push('.');
    finding(
        if bound {
            "dbwr.cpu_bound"
        } else {
            "dbwr.not_cpu_bound"
        },
        Some(&r.name),
        if bound {
            Severity::Notice
        } else {
            Severity::Info
        },
        s,
        vec![
            ev(
                "buffer operations per minute",
                r.foreground.ops_per_min,
                "ops/min",
            ),
            ev("blocks written per second", r.writes.write_iops, "ops/s"),
            ev("mean batch", r.writes.batch_mean, "count"),
            ev(
                "writers' CPU, share of one CPU",
                r.writers_cpu.utilisation * 100.0,
                "%",
            ),
            ev("busiest writer, share of one CPU", busiest * 100.0, "%"),
            ev("free buffer waits", fbw.count as f64, "count"),
        ],
        Some(over_configuring_dbwr()),
    )
}

/// The foregrounds' time, ns: each foreground over the whole run.
pub fn foreground_ns(r: &DbwrResult) -> f64 {
    r.config.foregrounds as f64 * r.runtime_ns as f64
}

/// The share of the foregrounds' time spent waiting for a free buffer
/// (the writers not keeping up), percent; 0 without a run time.
pub fn free_buffer_share_pct(r: &DbwrResult) -> f64 {
    let t = foreground_ns(r);
    if t > 0.0 {
        (100.0 * r.foreground.free_buffer_waits.total_ns as f64 / t).min(100.0)
    } else {
        0.0
    }
}

/// Free buffer waits with their share of the foregrounds' time: what the
/// writers falling behind cost the sessions.
pub fn free_buffer_waits(r: &DbwrResult) -> Option<Finding> {
    let w = &r.foreground.free_buffer_waits;
    if w.count == 0 || foreground_ns(r) <= 0.0 {
        return None;
    }
    let share = free_buffer_share_pct(r);
    Some(
        finding(
            "dbwr.free_buffer_waits",
            Some(&r.name),
            severity_of_share(share),
            format!(
                "{}: 'free buffer waits' are {} of the foregrounds' time ({} waits, {} in all over {} foreground{} and {}): the writer{} fell behind the foregrounds' changes",
                r.name,
                pct(share),
                w.count,
                format_ns(w.total_ns as f64),
                r.config.foregrounds,
                plural(r.config.foregrounds),
                format_ns(r.runtime_ns as f64),
                plural(r.config.writers)
            ),
            vec![
                ev("free buffer waits", w.count as f64, "count"),
                ev("time in free buffer waits", w.total_ns as f64, "ns"),
                ev("share of the foregrounds' time", share, "%"),
            ],
            Some(over_configuring_dbwr()),
        )
        .with_impact(share, "foreground time"),
    )
}

/// A writer sweep in plain words, against Kevin Closson's measurement.
pub fn sweep(rs: &[DbwrResult]) -> Vec<Finding> {
    if rs.len() < 2 {
        return Vec::new();
    }
    let best = rs
        .iter()
        .max_by(|a, b| {
            a.foreground
                .ops_per_min
                .total_cmp(&b.foreground.ops_per_min)
        })
        .expect("non-empty");
    let first = &rs[0];
    let last = &rs[rs.len() - 1];
    let change =
        (last.foreground.ops_per_min / first.foreground.ops_per_min.max(1e-9) - 1.0) * 100.0;
    let kf = first.config.writers;
    let busiest = busiest_writer(first);
    let bound = busiest >= CPU_BOUND_SHARE;
    vec![
        finding(
            "dbwr.sweep",
            None,
            Severity::Info,
            format!(
                "Highest throughput with {} writer{} ({} ops/min). From {kf} to {} writers throughput changed by {change:+.1} % and aggregate writer CPU went from {:.2} s to {:.2} s (Kevin Closson, \"Over-Configuring DBWR Processes\": 1 to 8 DBWR, -7.5 % throughput, 291 to 256 CPU s).",
                best.config.writers,
                plural(best.config.writers),
                format_count_rate(best.foreground.ops_per_min),
                last.config.writers,
                cpu_s(&first.writers_cpu),
                cpu_s(&last.writers_cpu),
            ),
            vec![
                ev("writers at the highest throughput", best.config.writers as f64, "count"),
                ev("highest throughput", best.foreground.ops_per_min, "ops/min"),
                ev("throughput change, first to last", change, "%"),
                ev("aggregate writer CPU, first", cpu_s(&first.writers_cpu), "s"),
                ev("aggregate writer CPU, last", cpu_s(&last.writers_cpu), "s"),
            ],
            Some(over_configuring_dbwr()),
        ),
        finding(
            "dbwr.sweep_first_cpu",
            Some(&first.name),
            Severity::Info,
            if bound {
                format!(
                    "With {kf} writer{} the busiest was CPU-bound ({:.0} % of a CPU): this is the case where more writers can raise throughput, as long as CPUs are free for them.",
                    plural(kf),
                    busiest * 100.0
                )
            } else {
                format!(
                    "With {kf} writer{} the busiest was not CPU-bound ({:.0} % of a CPU), so extra writers could only add scheduling and cache misses: differences within a few percent are noise unless repeated.",
                    plural(kf),
                    busiest * 100.0
                )
            },
            vec![ev("busiest writer, share of one CPU", busiest * 100.0, "%")],
            Some(over_configuring_dbwr()),
        ),
    ]
}

/// `dbio check`'s writer section: one writer against two foregrounds.
pub fn check_writer(r: &DbwrResult) -> Finding {
    let w = &r.writes;
    let busiest = busiest_writer(r);
    let how = format!(
        "{}{}",
        match r.config.engine {
            EngineKind::IoUring => "io_uring",
            EngineKind::Libaio => "libaio",
            EngineKind::Psync => "pwrite",
            EngineKind::Null => "null",
        },
        if r.config.direct {
            ", O_DIRECT"
        } else {
            ", buffered"
        }
    );
    let saturated = r.foreground.free_buffer_waits.count > 0;
    let rate = if saturated {
        format!("sustained {:.0} writes/s", w.write_iops)
    } else {
        format!(
            "wrote {:.0} writes/s without falling behind (so it can sustain at least that)",
            w.write_iops
        )
    };
    let bound = busiest >= CPU_BOUND_SHARE;
    let verdict = if bound {
        "it is CPU-bound, the only case where a second writer can help"
    } else {
        "it is not CPU-bound, so one writer is enough here and more would only add scheduling (Kevin Closson, \"Over-Configuring DBWR Processes\": one DBWR did 62.6 TPM, eight 57.9)"
    };
    finding(
        "dbwr.check_writer",
        Some(&r.name),
        if bound {
            Severity::Notice
        } else {
            Severity::Info
        },
        format!(
            "One database writer {rate} of 8 KiB blocks ({}/s, {how}, batches of {:.0} on average) on a CPU {:.0} % of the time: {verdict}.",
            format_bytes(w.bytes_per_sec as u64),
            w.batch_mean,
            busiest * 100.0
        ),
        vec![
            ev("blocks written per second", w.write_iops, "ops/s"),
            ev("bytes written per second", w.bytes_per_sec, "bytes/s"),
            ev("mean batch", w.batch_mean, "count"),
            ev("writer on a CPU", busiest * 100.0, "%"),
            ev("free buffer waits", r.foreground.free_buffer_waits.count as f64, "count"),
        ],
        Some(over_configuring_dbwr()),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use dbio_model::dbwr::WriterStats;

    fn result(writers: u32, opm: f64, busiest: f64) -> DbwrResult {
        let mut d = DbwrResult {
            name: format!("writers={writers}"),
            ..Default::default()
        };
        d.config.writers = writers;
        d.foreground.ops_per_min = opm;
        d.writers = (0..writers)
            .map(|i| {
                let mut w = WriterStats {
                    index: i,
                    ..Default::default()
                };
                w.cpu.utilisation = if i == 0 { busiest } else { 0.1 };
                w
            })
            .collect();
        d
    }

    #[test]
    fn cpu_bound_from_80_percent() {
        let below = configuration(&result(1, 1.0, 0.79));
        assert_eq!(below.rule, "dbwr.not_cpu_bound");
        assert!(below.text.starts_with("1 writer: "), "{}", below.text);
        assert!(below.text.ends_with("used 79 % of a CPU: not CPU-bound."));
        let above = configuration(&result(1, 1.0, 0.81));
        assert_eq!(above.rule, "dbwr.cpu_bound");
        assert!(above
            .text
            .contains("CPU-bound, the case where more writers can help"));
        assert!(check_writer(&result(1, 1.0, 0.79)).text.contains("it is not CPU-bound, so one writer is enough here and more would only add scheduling (Kevin Closson"));
        assert!(check_writer(&result(1, 1.0, 0.81))
            .text
            .contains("it is CPU-bound, the only case"));
        let mut saturated = result(1, 1.0, 0.5);
        saturated.foreground.free_buffer_waits.count = 1;
        assert!(check_writer(&saturated)
            .text
            .contains("One database writer sustained"));
    }

    #[test]
    fn a_sweep_needs_two_configurations_and_a_whole_run() {
        assert!(sweep(&[result(1, 1.0, 0.5)]).is_empty());
        let f = sweep(&[result(1, 62.6, 0.79), result(8, 57.9, 0.5)]);
        assert_eq!(f.len(), 2);
        assert!(
            f[0].text
                .starts_with("Highest throughput with 1 writer (63 ops/min)."),
            "{}",
            f[0].text
        );
        assert!(f[0].text.contains("changed by -7.5 %"), "{}", f[0].text);
        assert!(f[1].text.contains("was not CPU-bound (79 %"));
        let f = sweep(&[result(1, 62.6, 0.81), result(8, 57.9, 0.5)]);
        assert!(f[1].text.contains("was CPU-bound (81 %"));
        let mut r = RunReport {
            command: "dbwr".into(),
            dbwr: vec![result(1, 62.6, 0.5), result(2, 60.0, 0.5)],
            ..Default::default()
        };
        assert_eq!(evaluate(&r).len(), 4, "no free buffer waits, none named");
        r.partial = Some(dbio_model::PartialReason::Signal {
            signal: "SIGINT".into(),
        });
        assert_eq!(
            evaluate(&r).len(),
            2,
            "no sweep reading of a cut-short sweep"
        );
        r.command = "check".into();
        r.dbwr.truncate(1);
        let f = evaluate(&r);
        assert_eq!(f.len(), 1, "one writer finding in check");
        assert_eq!(f[0].rule, "dbwr.check_writer");
    }
}
