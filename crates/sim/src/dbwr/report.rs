//! Turns a run's per-thread counters into a [`DbwrResult`]: merged once,
//! at the end, never while the load runs.

use super::config::DbwrConfig;
use super::foreground::ForegroundCounters;
use super::instance::{PROBE_FREE_BUFFER_WAITS, PROBE_OPS, PROBE_WRITES};
use super::run::RunData;
use dbio_engine::recorder::new_histogram;
use dbio_engine::rusage::Usage;
use dbio_engine::series::{self, Tick};
use dbio_model::dbwr::{CheckpointStats, DbwrResult, ForegroundStats, WriteStats, WriterStats};
use dbio_model::series::{Series, SeriesUnit};
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

/// Builds the result of a run named `name` of `cfg` (echoed as it is) on
/// `target`, the datafile as prepared (empty for the null engine).
pub fn result(name: &str, cfg: &DbwrConfig, target: String, d: &RunData) -> DbwrResult {
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
        config: cfg.clone(),
        block_size: super::BLOCK_SIZE as u32,
        target,
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
        per_second: per_second(&d.ticks),
        stripe: None,
    }
}

/// Foreground touches, blocks written and 'free buffer waits' per second.
fn per_second(t: &[Tick]) -> Vec<Series> {
    if t.is_empty() {
        return Vec::new();
    }
    vec![
        series::series_of(t, "ops_per_s", SeriesUnit::PerSecond, |t| {
            Some(t.rate(PROBE_OPS))
        }),
        series::series_of(t, "writes_per_s", SeriesUnit::PerSecond, |t| {
            Some(t.rate(PROBE_WRITES))
        }),
        series::series_of(t, "free_buffer_waits_per_s", SeriesUnit::PerSecond, |t| {
            Some(t.rate(PROBE_FREE_BUFFER_WAITS))
        }),
    ]
}
