//! Result types of `dbio matrix`: an ORION-style load matrix (outstanding
//! small random I/Os × outstanding large I/Os) and the CALIBRATE_IO-style
//! search for the highest small-I/O load whose p99 stays under a target.
//!
//! The figures follow ORION's tables: small-I/O IOPS, large-I/O MB/s
//! (10^6 bytes per second, as ORION writes them) and small-I/O latency,
//! one point per pair of outstanding counts. Each point also keeps the
//! device's own counters over its measured interval, so a reader sees
//! whether the device (and not dbio) was the bottleneck.

use crate::{DiskStatsDelta, EngineKind};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// How the large I/Os move through the target.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum LargePattern {
    /// Each outstanding large I/O is a sequential stream through its own
    /// region (ORION's `-type seq`: backups, full scans).
    #[default]
    Sequential,
    /// Large I/Os at random aligned offsets (ORION's `-type rand`).
    Random,
}

/// The one configuration of `dbio matrix`, echoed into the result.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct MatrixConfig {
    /// Engine of both loads.
    pub engine: EngineKind,
    /// Bytes per small I/O (8 KiB: a database block).
    pub small_bs: u64,
    /// Bytes per large I/O (1 MiB).
    pub large_bs: u64,
    /// Outstanding small I/Os at each point, ascending (0: none).
    pub small_ladder: Vec<u32>,
    /// Outstanding large I/Os at each point, ascending (0: none).
    pub large_ladder: Vec<u32>,
    /// How the ladders were chosen (the device's queue depth and the
    /// core count for the default, or "given").
    pub ladder_source: String,
    /// Share of small I/Os that are writes, percent.
    pub write_pct: u8,
    /// Large-I/O pattern.
    pub large_pattern: LargePattern,
    /// Measured time per point, ns (`--runtime`; saved as `point_time_ns`).
    #[serde(rename = "point_time_ns")]
    pub runtime_ns: u64,
    /// Warm-up before each point's measurement, ns (not measured).
    pub warmup_ns: u64,
    /// Bytes of the target used.
    pub size: u64,
    /// The search's p99 target for small I/Os, ns (None: the full grid).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_latency_ns: Option<u64>,
    /// The null engine's service time per I/O, ns (tests and dbio's own cost).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub null_delay_ns: u64,
    /// Seed of the random offsets.
    pub seed: u64,
}

fn is_zero(x: &u64) -> bool {
    *x == 0
}

impl Default for MatrixConfig {
    fn default() -> Self {
        Self {
            engine: EngineKind::Libaio,
            small_bs: 8192,
            large_bs: 1 << 20,
            small_ladder: vec![1, 2, 4, 8],
            large_ladder: vec![0, 1, 2, 4],
            ladder_source: "given".into(),
            write_pct: 0,
            large_pattern: LargePattern::Sequential,
            runtime_ns: 2_000_000_000,
            warmup_ns: 200_000_000,
            size: 1 << 30,
            max_latency_ns: None,
            null_delay_ns: 0,
            seed: crate::DEFAULT_SEED,
        }
    }
}

/// Small-I/O latency at one point (the I/O's total latency, fio's `lat`:
/// from its intended start to its completion), ns. Percentiles come from an
/// HDR histogram with 3 significant digits (≤ 0.1 % error).
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct PointLatency {
    /// Mean.
    pub mean_ns: f64,
    /// Median.
    pub p50_ns: u64,
    /// 99th percentile.
    pub p99_ns: u64,
    /// 99.9th percentile.
    pub p99_9_ns: u64,
}

/// One point of the matrix.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct MatrixPoint {
    /// Outstanding small I/Os.
    pub small: u32,
    /// Outstanding large I/Os.
    pub large: u32,
    /// Measured time, ns (warm-up excluded).
    pub runtime_ns: u64,
    /// Small I/Os per second (reads and writes).
    pub small_iops: f64,
    /// Large-I/O throughput, MB/s (10^6 bytes per second).
    pub large_mbps: f64,
    /// Small-I/O latency (None without small I/Os).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub small_lat: Option<PointLatency>,
    /// Share of the measured time the device had I/O in flight, percent
    /// (/proc/diskstats io_ticks; the whole disk, every process).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub device_util_pct: Option<f64>,
    /// Average requests in the device's queue (/proc/diskstats weighted
    /// time in queue over the measured time; iostat's aqu-sz).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub device_queue: Option<f64>,
    /// The device's counters over the point.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub device: Option<DiskStatsDelta>,
    /// With `--targets`: what each member of the stripe did at this point,
    /// small and large I/Os together (their latency is both loads').
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stripe: Option<crate::stripe::StripeResult>,
}

/// What the `--max-latency` search found (DBMS_RESOURCE_MANAGER.
/// CALIBRATE_IO's three figures, measured without Oracle).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct MatrixSearch {
    /// The p99 target for small I/Os, ns.
    pub max_latency_ns: u64,
    /// The outstanding small-I/O count of the point that reached
    /// `max_iops` with its p99 under the target ([`max_iops_point`]; the
    /// fewer outstanding on a tie); None: not even one outstanding I/O
    /// kept under it. Results written before this was fixed hold the
    /// highest count under the target instead, which may not be the point
    /// of the maximum: renderers read the point from the points.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_iops_outstanding: Option<u32>,
    /// Small IOPS at that load (0 when none met the target).
    pub max_iops: f64,
    /// p99 of small I/Os at that point, ns.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_iops_p99_ns: Option<u64>,
    /// The highest large-I/O throughput measured without small I/Os, MB/s.
    pub max_mbps: f64,
    /// The outstanding large-I/O count that reached it.
    pub max_mbps_outstanding: u32,
    /// Mean small-I/O latency at one outstanding I/O, ns.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub latency_at_one_ns: Option<f64>,
    /// Ladder points left unmeasured because an earlier one was already
    /// past the knee (the p99 over the target, or MB/s no longer growing).
    pub skipped_points: u32,
}

/// `dbio matrix`'s result.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct MatrixResult {
    /// Row label.
    pub name: String,
    /// The target as resolved.
    pub target: String,
    /// The configuration as it ran.
    pub config: MatrixConfig,
    /// Every point measured, in the order measured.
    pub points: Vec<MatrixPoint>,
    /// The search's answer (with `--max-latency`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub search: Option<MatrixSearch>,
    /// Why a `--max-latency` search has no answer although it was asked
    /// for (a signal or an error cut it short: its points are kept, but a
    /// search that did not finish has not found the highest load).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub no_answer: Option<String>,
}

/// Of `points`, the one without large I/Os whose small-I/O p99 stayed at
/// or under `target_ns` with the most small IOPS (the fewer outstanding
/// on a tie): where the search's max IOPS was measured.
pub fn max_iops_point(points: &[MatrixPoint], target_ns: u64) -> Option<&MatrixPoint> {
    points
        .iter()
        .filter(|p| p.large == 0 && p.small > 0)
        .filter(|p| p.small_lat.is_some_and(|l| l.p99_ns <= target_ns))
        .fold(None, |best: Option<&MatrixPoint>, p| match best {
            Some(b) if b.small_iops > p.small_iops => Some(b),
            Some(b) if b.small_iops == p.small_iops && b.small <= p.small => Some(b),
            _ => Some(p),
        })
}

impl MatrixResult {
    /// The search's max IOPS as (IOPS, outstanding, p99 ns), read from the
    /// point that reached it ([`max_iops_point`]), or from the saved
    /// figures when the points do not hold it; None without a search or
    /// when no load kept under the target.
    pub fn search_max(&self) -> Option<(f64, u32, Option<u64>)> {
        let s = self.search.as_ref()?;
        let n = s.max_iops_outstanding?;
        match max_iops_point(&self.points, s.max_latency_ns) {
            Some(p) => Some((p.small_iops, p.small, p.small_lat.map(|l| l.p99_ns))),
            None => Some((s.max_iops, n, s.max_iops_p99_ns)),
        }
    }

    /// The point at (`small`, `large`), if measured.
    pub fn point(&self, small: u32, large: u32) -> Option<&MatrixPoint> {
        self.points
            .iter()
            .find(|p| p.small == small && p.large == large)
    }
}
