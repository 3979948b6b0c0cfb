//! Striping across several targets (`--targets a,b,c --stripe 1m`): one
//! logical address space laid over several files or devices, as RAID-0,
//! Oracle ASM's coarse striping (1 MiB allocation units spread over the
//! disks of a disk group) or SAME ("stripe and mirror everything") do.
//!
//! The result keeps, besides the job's totals, what each target did, so a
//! reader sees whether the load was balanced: a stripe is only as fast as
//! its slowest member.

use crate::{DiskStatsDelta, LatencySummary};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// How logical offsets are laid over the targets.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum StripeLayout {
    /// RAID-0: stripe unit `n` goes to target `n mod K`, at unit `n / K`
    /// of that target.
    Raid0,
    /// Concatenation: the first target's region, then the second's, ...
    Concat,
}

impl StripeLayout {
    /// The name `--layout` takes.
    pub fn name(self) -> &'static str {
        match self {
            StripeLayout::Raid0 => "raid0",
            StripeLayout::Concat => "concat",
        }
    }
}

/// A striped job's layout and each target's share.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct StripeResult {
    /// The layout.
    pub layout: StripeLayout,
    /// Stripe unit, bytes (raid0; the per-target region for concat).
    pub stripe_bytes: u64,
    /// Each target, in `--targets` order.
    pub targets: Vec<StripeTarget>,
}

/// What one member of a stripe did over the measured interval.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct StripeTarget {
    /// The file or device, as resolved (dbio's temporary file for a
    /// directory).
    pub path: String,
    /// Bytes of this target the stripe uses.
    pub size: u64,
    /// Reads completed on it.
    pub reads: u64,
    /// Writes completed on it.
    pub writes: u64,
    /// Bytes transferred to and from it.
    pub bytes: u64,
    /// Total latency (fio's lat) of its I/Os, reads and writes together.
    pub lat: LatencySummary,
    /// Its disk's /proc/diskstats counters over the run (the whole disk's:
    /// targets on the same disk show the same counters).
    pub device: Option<DiskStatsDelta>,
}

impl StripeTarget {
    /// Operations (reads + writes).
    pub fn ops(&self) -> u64 {
        self.reads + self.writes
    }
}
