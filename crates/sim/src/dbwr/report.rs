//! Turns a run's per-thread counters into a [`DbwrResult`]: merged once,
//! at the end, never while the load runs.

use super::config::DbwrConfig;
use super::foreground::ForegroundCounters;
use super::run::RunData;
use dbio_engine::recorder::new_histogram;
use dbio_engine::rusage::Usage;
use dbio_model::dbwr::{
    CheckpointStats, DbwrEcho, DbwrResult, ForegroundStats, WriteStats, WriterStats,
};
use dbio_model::units::format_count_rate;
use dbio_model::{CpuUsage, LatencySummary, Log2Buckets};

/// CPU usage over `runtime_ns`, with `per_unit` the work it is divided by.
fn cpu(u: &Usage, runtime_ns: u64, per_unit: u64) -> CpuUsage {
    let total = (u.user_ns + u.system_ns) as f64;
    CpuUsage {
        user_ns: u.user_ns,
        system_ns: u.system_ns,
        voluntary_cs: u.nvcsw,
        involuntary_cs: u.nivcsw,
        per_io_ns: if per_unit == 0 {
            0.0
        } else {
            total / per_unit as f64
        },
        utilisation: total / runtime_ns.max(1) as f64,
    }
}

/// The configuration as the result echoes it (`target` and `direct` are
/// the caller's to fill in).
pub fn echo(cfg: &DbwrConfig) -> DbwrEcho {
    DbwrEcho {
        buffers: cfg.buffers,
        lists: cfg.lists,
        writers: cfg.writers,
        foregrounds: cfg.foregrounds,
        dirty_pct: cfg.dirty_pct,
        batch_max: cfg.batch_max,
        scan_depth_pct: cfg.scan_depth_pct,
        block_size: super::BLOCK_SIZE as u32,
        datafile_bytes: cfg.blocks * super::BLOCK_SIZE as u64,
        engine: Some(cfg.engine),
        direct: false,
        null_delay_ns: cfg.null_delay_ns,
        rate_ops: cfg.rate,
        checkpoint_interval_s: cfg.checkpoint_interval_ns.map(|n| n as f64 / 1e9),
        placement: cfg.placement.to_string(),
        seed: cfg.seed,
        target: String::new(),
    }
}

/// Builds the result of a run named `name`.
pub fn result(name: &str, cfg: &DbwrConfig, d: &RunData) -> DbwrResult {
    let rt = d.runtime_ns.max(1);
    let secs = rt as f64 / 1e9;

    let mut fg = ForegroundCounters::default();
    let mut fg_usage = Usage::default();
    for f in &d.foregrounds {
        fg.merge(&f.stats);
        fg_usage = fg_usage.plus(&f.usage);
    }
    let foreground = ForegroundStats {
        ops: fg.ops,
        ops_per_sec: fg.ops as f64 / secs,
        ops_per_min: fg.ops as f64 / secs * 60.0,
        hits: fg.hits,
        blocks_read: fg.blocks_read,
        changes: fg.changes,
        hit_ratio: if fg.ops == 0 {
            0.0
        } else {
            fg.hits as f64 / fg.ops as f64
        },
        read_time: LatencySummary::from_histogram(&fg.read_time),
        free_buffer_waits: fg.free_buffer_waits.to_model(),
        write_complete_waits: fg.write_complete_waits.to_model(),
        read_by_other_waits: fg.read_by_other_waits.to_model(),
        dirty_buffers_inspected: fg.dirty_inspected,
        free_buffers_inspected: fg.free_inspected,
        cpu: cpu(&fg_usage, rt, fg.ops),
    };

    let total_written: u64 = d.writers.iter().map(|w| w.stats.blocks_written).sum();
    let mut pw = new_histogram();
    let mut sizes = Log2Buckets::default();
    let mut wu = Usage::default();
    let mut writes = WriteStats::default();
    let mut writers = Vec::with_capacity(d.writers.len());
    for w in &d.writers {
        let s = &w.stats;
        pw.add(&s.parallel_write).expect("same bounds");
        sizes.merge(&s.batch_sizes);
        wu = wu.plus(&w.usage);
        writes.blocks_written += s.blocks_written;
        writes.batches += s.batches;
        writes.batch_max = writes.batch_max.max(s.batch_max);
        writes.checkpoint_writes += s.checkpoint_writes;
        writes.buffers_scanned += s.scanned;
        writers.push(WriterStats {
            index: w.index,
            lists: w.lists.clone(),
            cpus: w.cpus.clone(),
            blocks_written: s.blocks_written,
            batches: s.batches,
            share_pct: if total_written == 0 {
                0.0
            } else {
                s.blocks_written as f64 * 100.0 / total_written as f64
            },
            buffers_scanned: s.scanned,
            idle_sleeps: s.idle_sleeps,
            cpu: cpu(&w.usage, rt, s.blocks_written),
        });
    }
    while sizes.counts.last() == Some(&0) {
        sizes.counts.pop();
    }
    writes.write_iops = writes.blocks_written as f64 / secs;
    writes.bytes_per_sec = writes.write_iops * super::BLOCK_SIZE as f64;
    writes.batch_mean = if writes.batches == 0 {
        0.0
    } else {
        writes.blocks_written as f64 / writes.batches as f64
    };
    writes.batch_sizes = sizes;
    writes.parallel_write = LatencySummary::from_histogram(&pw);

    let mut ck = new_histogram();
    for &ns in &d.checkpoints_ns {
        ck.saturating_record(ns.max(1));
    }
    DbwrResult {
        name: name.to_string(),
        config: echo(cfg),
        runtime_ns: d.runtime_ns,
        foreground,
        writers_cpu: cpu(&wu, rt, writes.blocks_written),
        writes,
        writers,
        checkpoints: CheckpointStats {
            count: d.checkpoints_ns.len() as u64,
            blocks_written: d.writers.iter().map(|w| w.stats.checkpoint_writes).sum(),
            duration: LatencySummary::from_histogram(&ck),
        },
        shutdown_writes: d.writers.iter().map(|w| w.stats.shutdown_writes).sum(),
        dirty_after_shutdown: d.dirty_after_shutdown,
        device: d.device.clone(),
        conclusion: None,
    }
}

/// A writer is called CPU-bound when its user + system time covers at
/// least this share of the wall time: it was on a CPU nearly all the time,
/// so a faster device would not make it write faster.
pub const CPU_BOUND_SHARE: f64 = 0.8;

/// The busiest writer's share of one CPU.
pub fn busiest_writer(r: &DbwrResult) -> f64 {
    r.writers
        .iter()
        .map(|w| w.cpu.utilisation)
        .fold(0.0, f64::max)
}

/// One configuration in plain words.
pub fn conclude(r: &DbwrResult) -> String {
    let k = r.config.writers;
    let busiest = busiest_writer(r);
    let fbw = &r.foreground.free_buffer_waits;
    let mut s = format!(
        "{k} writer{}: {} buffer operations per minute; the writers wrote {} blocks/s in batches of {:.1} on average, using {:.0} % of one CPU together",
        if k == 1 { "" } else { "s" },
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
    if busiest >= CPU_BOUND_SHARE {
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
    s
}

/// A writer sweep in plain words, against Kevin Closson's finding in
/// "Over-Configuring DBWR Processes – Part III" (1 DBWR 62.6 TPM, 8 DBWR
/// 57.9 TPM: -7.5 %).
pub fn conclude_sweep(rs: &[DbwrResult]) -> Vec<String> {
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
    let mut out = vec![format!(
        "Highest throughput with {} writer{} ({} ops/min). From {} to {} writers throughput changed by {:+.1} % and aggregate writer CPU went from {:.2} s to {:.2} s (Kevin Closson, \"Over-Configuring DBWR Processes\": 1 to 8 DBWR, -7.5 % throughput, 291 to 256 CPU s).",
        best.config.writers,
        if best.config.writers == 1 { "" } else { "s" },
        format_count_rate(best.foreground.ops_per_min),
        first.config.writers,
        last.config.writers,
        change,
        cpu_s(&first.writers_cpu),
        cpu_s(&last.writers_cpu),
    )];
    if busiest_writer(first) < CPU_BOUND_SHARE {
        out.push(format!(
            "With {} writer{} the busiest was not CPU-bound ({:.0} % of a CPU), so extra writers could only add scheduling and cache misses: differences within a few percent are noise unless repeated.",
            first.config.writers,
            if first.config.writers == 1 { "" } else { "s" },
            busiest_writer(first) * 100.0
        ));
    } else {
        out.push(format!(
            "With {} writer{} the busiest was CPU-bound ({:.0} % of a CPU): this is the case where more writers can raise throughput, as long as CPUs are free for them.",
            first.config.writers,
            if first.config.writers == 1 { "" } else { "s" },
            busiest_writer(first) * 100.0
        ));
    }
    out
}

/// CPU seconds (user + system).
pub fn cpu_s(c: &CpuUsage) -> f64 {
    (c.user_ns + c.system_ns) as f64 / 1e9
}
