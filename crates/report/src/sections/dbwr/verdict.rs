//! The answer `dbio dbwr` gives, by Kevin Closson's rule ("Over-Configuring
//! DBWR Processes – Part III"): one database writer is enough until it is
//! CPU-bound. The first configuration answers (a sweep starts at the
//! fewest writers):
//!
//! - its busiest writer on a CPU [`CPU_BOUND_SHARE`] of the time or more:
//!   CPU, the one case where another writer can help;
//! - else foregrounds waiting for free buffers [`FREE_BUFFER_PCT`] of
//!   their time or more: the writer, not CPU-bound, waits on its writes,
//!   so the storage bounds it (with the null engine and no injected
//!   delay nothing was written: the writer was not scheduled, not the
//!   storage);
//! - else what one writer sustains: one is enough.
//!
//! A sweep adds what the other writer counts did to throughput.

use super::findings::{busiest_writer, free_buffer_share_pct, CPU_BOUND_SHARE};
use crate::kit::findings::{pct, plural};

use dbio_model::dbwr::DbwrResult;
use dbio_model::units::{format_count_rate, format_ns};
use dbio_model::{EngineKind, Finding, RunReport, Verdict, VerdictClass};

/// The share of the foregrounds' time in free buffer waits (percent) from
/// which the writers falling behind is the answer.
pub const FREE_BUFFER_PCT: f64 = 10.0;

/// The verdict of a `dbio dbwr` result (`check`'s writer section answers
/// within check's own).
pub fn verdict(r: &RunReport, fs: &[Finding]) -> Option<Verdict> {
    if r.command != "dbwr" {
        return None;
    }
    let first = r.dbwr.first()?;
    let question = format!(
        "Is the database writer held up by the storage? (dbio dbwr, {} foreground{}, {})",
        first.config.foregrounds,
        plural(first.config.foregrounds),
        if first.config.engine == EngineKind::Null {
            "null engine".to_string()
        } else {
            r.environment.target.clone()
        }
    );
    let (class, mut answer, rule) = one(first);
    if class == VerdictClass::StorageBound && fs.iter().any(|f| f.rule == "dbwr.cpu_oversubscribed")
    {
        answer.push_str(
            " (but the foregrounds and writers outnumber the CPUs, so part of that wait may be the scheduler's)",
        );
    }
    if r.dbwr.len() > 1 && r.partial.is_none() {
        let last = &r.dbwr[r.dbwr.len() - 1];
        let change =
            (last.foreground.ops_per_min / first.foreground.ops_per_min.max(1e-9) - 1.0) * 100.0;
        answer.push_str(&format!(
            "; from {} to {} writers throughput changed by {change:+.1} %",
            first.config.writers, last.config.writers
        ));
    }
    let t: Vec<usize> = fs
        .iter()
        .position(|f| f.rule == rule && f.subject.as_deref() == Some(&first.name))
        .into_iter()
        .collect();
    let t = crate::verdict::top_after(t, fs);
    Some(Verdict {
        question,
        class,
        answer,
        top: t,
    })
}

/// One configuration's class, sentence, and the rule of the finding that
/// carries it.
pub fn one(x: &DbwrResult) -> (VerdictClass, String, &'static str) {
    let k = x.config.writers;
    let busiest = busiest_writer(x);
    let waits = free_buffer_share_pct(x);
    let writes = format!(
        "{} writer{} wrote {} blocks/s",
        k,
        plural(k),
        format_count_rate(x.writes.write_iops)
    );
    if busiest >= CPU_BOUND_SHARE {
        return (
            VerdictClass::Cpu,
            format!(
                "CPU: {writes} and the busiest was on a CPU {} of the time: CPU-bound, the one case where another writer can help (as long as CPUs are free for it); foregrounds waited for free buffers {} of their time",
                pct(busiest * 100.0),
                pct(waits)
            ),
            "dbwr.cpu_bound",
        );
    }
    if waits >= FREE_BUFFER_PCT {
        let nothing_written = x.config.engine == EngineKind::Null && x.config.null_delay_ns == 0;
        return if nothing_written {
            (
                VerdictClass::NotStorage,
                format!(
                    "Not the storage: foregrounds waited for free buffers {} of their time, but the null engine wrote nothing and the busiest writer used only {} of a CPU: the writer{} were not scheduled in time (the foregrounds and writers share the CPUs)",
                    pct(waits),
                    pct(busiest * 100.0),
                    plural(k)
                ),
                "dbwr.free_buffer_waits",
            )
        } else {
            (
                VerdictClass::StorageBound,
                format!(
                    "Storage-bound: foregrounds waited for free buffers {} of their time while the busiest writer used {} of a CPU: {writes} at {} a batch write and could not keep up, so another writer would not help, faster writes would",
                    pct(waits),
                    pct(busiest * 100.0),
                    format_ns(x.writes.parallel_write.mean_ns)
                ),
                "dbwr.free_buffer_waits",
            )
        };
    }
    let enough = if k == 1 {
        "one is enough".to_string()
    } else {
        format!("not CPU-bound, so one writer would do as well as {k}")
    };
    (
        VerdictClass::Capability,
        format!(
            "{writes} with the busiest at {} of a CPU and foregrounds waiting for free buffers {} of their time: {enough} (Kevin Closson: one DBWR until it is CPU-bound)",
            pct(busiest * 100.0),
            pct(waits)
        ),
        "dbwr.not_cpu_bound",
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use dbio_model::dbwr::WriterStats;

    /// One writer at `busiest` of a CPU; 4 foregrounds over 1 s, of which
    /// `waits_ms` in free buffer waits (1 % of their time is 40 ms).
    fn x(busiest: f64, waits_ms: u64) -> DbwrResult {
        let mut d = DbwrResult {
            name: "writers=1".into(),
            runtime_ns: 1_000_000_000,
            ..Default::default()
        };
        d.config.writers = 1;
        d.config.foregrounds = 4;
        d.config.engine = EngineKind::Psync;
        d.writes.write_iops = 20_000.0;
        d.writes.parallel_write.mean_ns = 500_000.0;
        d.foreground.ops_per_min = 1e6;
        d.foreground.free_buffer_waits.count = waits_ms;
        d.foreground.free_buffer_waits.total_ns = waits_ms * 1_000_000;
        let mut w = WriterStats::default();
        w.cpu.utilisation = busiest;
        d.writers = vec![w];
        d
    }

    fn answer(xs: Vec<DbwrResult>) -> Verdict {
        let r = RunReport {
            command: "dbwr".into(),
            dbwr: xs,
            ..Default::default()
        };
        let fs = crate::verdict::rank((super::super::findings::RULES.evaluate)(&r));
        verdict(&r, &fs).unwrap()
    }

    /// CPU-bound from 80 % of a CPU whatever the waits; free buffer waits
    /// from 10 % of the foregrounds' time (400 ms of 4 s; 390 ms is under); else one is
    /// enough.
    #[test]
    fn cpu_then_free_buffer_waits_then_one_is_enough_at_the_thresholds() {
        assert_eq!(answer(vec![x(0.8, 400)]).class, VerdictClass::Cpu);
        let v = answer(vec![x(0.79, 400)]);
        assert_eq!(v.class, VerdictClass::StorageBound, "{}", v.answer);
        assert!(
            v.answer.starts_with(
                "Storage-bound: foregrounds waited for free buffers 10 % of their time while the busiest writer used 79 % of a CPU"
            ),
            "{}",
            v.answer
        );
        let v = answer(vec![x(0.5, 390)]);
        assert_eq!(v.class, VerdictClass::Capability, "{}", v.answer);
        assert_eq!(
            v.answer,
            "1 writer wrote 20.0 k blocks/s with the busiest at 50 % of a CPU and foregrounds waiting for free buffers 9.8 % of their time: one is enough (Kevin Closson: one DBWR until it is CPU-bound)"
        );
        // The free buffer waits carry their share of the foregrounds' time.
        let r = RunReport {
            command: "dbwr".into(),
            dbwr: vec![x(0.79, 400)],
            ..Default::default()
        };
        let mut fs = crate::verdict::rank((super::super::findings::RULES.evaluate)(&r));
        let v = verdict(&r, &fs).unwrap();
        let f = &fs[v.top[0]];
        assert!(v.answer.ends_with("faster writes would"), "{}", v.answer);
        assert_eq!(f.rule, "dbwr.free_buffer_waits");
        assert_eq!(f.impact.as_ref().unwrap().share_pct, 10.0);
        assert_eq!(f.impact.as_ref().unwrap().of, "foreground time");
        // More threads than CPUs: the wait may be partly the scheduler's.
        fs.push(Finding::note(
            "dbwr.cpu_oversubscribed",
            dbio_model::Severity::Warning,
            "4 foregrounds and up to 1 writers share 2 CPUs",
        ));
        let v = verdict(&r, &fs).unwrap();
        assert!(
            v.answer.ends_with("may be the scheduler's)"),
            "{}",
            v.answer
        );
    }

    /// The null engine writes nothing: its free buffer waits are the
    /// CPUs', not the storage's. A sweep adds its change; check is not
    /// answered here.
    #[test]
    fn null_engine_sweep_and_check() {
        let mut n = x(0.2, 2000);
        n.config.engine = EngineKind::Null;
        assert_eq!(answer(vec![n]).class, VerdictClass::NotStorage);
        let mut eight = x(0.1, 0);
        eight.name = "writers=8".into();
        eight.config.writers = 8;
        eight.foreground.ops_per_min = 0.925e6;
        let v = answer(vec![x(0.5, 0), eight]);
        assert!(
            v.answer
                .ends_with("; from 1 to 8 writers throughput changed by -7.5 %"),
            "{}",
            v.answer
        );
        let r = RunReport {
            command: "check".into(),
            dbwr: vec![x(0.5, 0)],
            ..Default::default()
        };
        assert!(verdict(&r, &[]).is_none());
    }
}
