//! Result types of `dbio read`, and the tier attribution that `dbio read`,
//! `dbio calibrate` and trace analysis share.
//!
//! A database cannot tell where a "physical" read was served from: the OS
//! page cache, a storage-array (or hypervisor) cache, or the device. Kyle
//! Hailey's "Oracle 'Physical I/O'? not always physical" infers it from
//! latency alone, with 100 µs and 1 ms as the boundaries. [`TierThresholds`] is that rule, in one place, so every
//! command classifies a latency the same way; `dbio calibrate` measures the
//! boundaries instead of guessing them.

use crate::calibrate::Boundary;
use crate::{CpuUsage, DiskStatsDelta, EngineKind, LatencySummary, PageCacheResidency};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Where a read was (probably) served from, judged by its latency.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Tier {
    /// The OS page cache: a memory copy, no I/O below the filesystem.
    PageCache,
    /// A cache below the OS: storage array, RAID controller, hypervisor host.
    StorageCache,
    /// The device itself (flash or disk media).
    Device,
}

impl Tier {
    /// The three tiers, fastest first (the index order of tier arrays).
    pub const ALL: [Tier; 3] = [Tier::PageCache, Tier::StorageCache, Tier::Device];

    /// The tier of a read that took `ns` nanoseconds, given the two
    /// boundaries (the convention of [`TierThresholds`]: a latency equal to
    /// a boundary goes to the slower tier).
    #[inline]
    pub fn of(ns: u64, page_cache_max_ns: u64, storage_cache_max_ns: u64) -> Tier {
        if ns < page_cache_max_ns {
            Tier::PageCache
        } else if ns < storage_cache_max_ns {
            Tier::StorageCache
        } else {
            Tier::Device
        }
    }

    /// Position in [`Tier::ALL`].
    pub fn index(self) -> usize {
        self as usize
    }

    /// Words for tables.
    pub fn label(self) -> &'static str {
        match self {
            Tier::PageCache => "page cache",
            Tier::StorageCache => "storage cache",
            Tier::Device => "device",
        }
    }
}

/// The page-cache boundary of Kyle Hailey's "Oracle 'Physical I/O'? not
/// always physical": 100 µs ("faster than a SAN could supply 8 KiB plus
/// code path and scheduling").
pub const DEFAULT_PAGE_CACHE_MAX_NS: u64 = 100_000;
/// The storage-cache boundary of the same article: 1 ms.
pub const DEFAULT_STORAGE_CACHE_MAX_NS: u64 = 1_000_000;

/// The latency boundaries between the tiers.
///
/// Convention (the same as `dbio tracefile`'s, so a trace and a measurement
/// agree): a latency strictly below `page_cache_max_ns` is a page-cache hit;
/// one at or above it and strictly below `storage_cache_max_ns` is a
/// storage-cache hit; one at or above `storage_cache_max_ns` is a device
/// read. A latency *equal* to a threshold therefore goes to the slower tier.
/// `storage_cache_max_ns == u64::MAX` means "no device tier" (calibrated on
/// a filesystem without a block device, such as tmpfs).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct TierThresholds {
    /// Page-cache hits are faster than this, ns.
    pub page_cache_max_ns: u64,
    /// Storage-cache hits are faster than this, ns.
    pub storage_cache_max_ns: u64,
    /// Where the thresholds came from (`default`, `option`, or a file).
    pub source: String,
}

impl Default for TierThresholds {
    fn default() -> Self {
        Self {
            page_cache_max_ns: DEFAULT_PAGE_CACHE_MAX_NS,
            storage_cache_max_ns: DEFAULT_STORAGE_CACHE_MAX_NS,
            source: "default".into(),
        }
    }
}

impl TierThresholds {
    /// The tier of a read that took `ns` nanoseconds (see the type's
    /// boundary convention).
    #[inline]
    pub fn classify(&self, ns: u64) -> Tier {
        Tier::of(ns, self.page_cache_max_ns, self.storage_cache_max_ns)
    }

    /// The thresholds an O_DIRECT read is classed with: no page-cache tier.
    /// An O_DIRECT read bypasses the page cache whatever its latency; one
    /// faster than the page-cache boundary came from a cache below it
    /// (the storage's), so it is counted there.
    pub fn without_page_cache(&self) -> TierThresholds {
        TierThresholds {
            page_cache_max_ns: 0,
            ..self.clone()
        }
    }

    /// False when the thresholds say no read can come from a device.
    pub fn has_device_tier(&self) -> bool {
        self.storage_cache_max_ns != u64::MAX
    }

    /// Checks the order of the two boundaries.
    pub fn validate(&self) -> Result<(), String> {
        if self.page_cache_max_ns > self.storage_cache_max_ns {
            return Err(format!(
                "the page-cache threshold ({} ns) is above the storage-cache threshold ({} ns)",
                self.page_cache_max_ns, self.storage_cache_max_ns
            ));
        }
        Ok(())
    }
}

/// Where a tier boundary came from.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum BoundarySource {
    /// Derived in this run from reads of both tiers, provoked on purpose
    /// (the calibrate method).
    Measured,
    /// The fixed value (Kyle Hailey's 100 µs or 1 ms): this run could not
    /// measure the boundary.
    #[default]
    Default,
    /// No block device under the file (tmpfs): every read is served from
    /// memory, so there is no device tier to draw a boundary to.
    NoDevice,
    /// Given by the command line (`--page-cache-max`,
    /// `--storage-cache-max`) or a `dbio calibrate` file.
    Given,
}

impl BoundarySource {
    /// Words for tables.
    pub fn label(self) -> &'static str {
        match self {
            BoundarySource::Measured => "measured in this run",
            BoundarySource::Default => "default, not measured here",
            BoundarySource::NoDevice => "no block device under the file, so no device tier",
            BoundarySource::Given => "given by the options or a calibration file",
        }
    }
}

/// One boundary as used to attribute reads.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct UsedBoundary {
    /// The threshold, ns (a latency equal to it goes to the slower tier);
    /// `None` when the two tiers could not be told apart and count as one.
    pub ns: Option<u64>,
    /// Where it came from.
    pub source: BoundarySource,
    /// When measured: the fit at the best boundary (the shares of each
    /// side's reads that land on the wrong side), even when the tiers
    /// overlap too much for `ns` to be used.
    #[serde(default)]
    pub fit: Option<Boundary>,
}

/// How the reads of a result were attributed when the boundaries come
/// from the run itself (`dbio check`) or the reads are O_DIRECT (`dbio
/// read --direct`: none is a page-cache hit, and the storage-cache
/// boundary is measured in the run unless given); absent where a result
/// uses the given [`TierThresholds`] as they are (buffered `dbio read`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct TierAttribution {
    /// Page-cache hits are faster than this; other reads came from storage.
    pub page_cache_max: UsedBoundary,
    /// Storage-cache hits are faster than this; slower reads, and every
    /// storage read when `ns` is `None`, are device reads.
    pub storage_cache_max: UsedBoundary,
    /// The reads bypassed the page cache (O_DIRECT): none is a page-cache
    /// hit, whatever its latency.
    pub direct: bool,
    /// The O_DIRECT re-reads of a block just read that the storage-cache
    /// boundary was measured with (the evidence for that tier).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rereads: Option<LatencySummary>,
}

impl TierAttribution {
    /// O_DIRECT reads attributed with given thresholds: none is a
    /// page-cache hit; the storage-cache boundary is `t`'s (`source` says
    /// whether it was given or is the default).
    pub fn direct_with(t: &TierThresholds, source: BoundarySource) -> TierAttribution {
        let used = |ns: u64| UsedBoundary {
            ns: Some(ns),
            source,
            fit: None,
        };
        TierAttribution {
            page_cache_max: used(t.page_cache_max_ns),
            storage_cache_max: if t.has_device_tier() {
                used(t.storage_cache_max_ns)
            } else {
                UsedBoundary {
                    ns: Some(u64::MAX),
                    source: BoundarySource::NoDevice,
                    fit: None,
                }
            },
            direct: true,
            rereads: None,
        }
    }

    /// The tier of a read that took `ns` nanoseconds (the boundary
    /// convention of [`TierThresholds`]).
    pub fn tier(&self, ns: u64) -> Tier {
        let page = self.page_cache_max.ns.unwrap_or(DEFAULT_PAGE_CACHE_MAX_NS);
        if !self.direct && ns < page {
            Tier::PageCache
        } else if self.storage_cache_max.ns.is_some_and(|s| ns < s) {
            Tier::StorageCache
        } else {
            Tier::Device
        }
    }

    /// The same boundaries as plain thresholds (for the histogram's tier
    /// column); no separate storage-cache tier makes both equal.
    pub fn thresholds(&self) -> TierThresholds {
        let page = self.page_cache_max.ns.unwrap_or(DEFAULT_PAGE_CACHE_MAX_NS);
        TierThresholds {
            page_cache_max_ns: page,
            storage_cache_max_ns: self.storage_cache_max.ns.unwrap_or(page).max(page),
            source: match (self.page_cache_max.source, self.storage_cache_max.source) {
                (a, b) if a == b => a.label().into(),
                (a, b) => format!("page cache {}; storage cache {}", a.label(), b.label()),
            },
        }
    }
}

/// Reads served by one tier.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct TierTally {
    /// Reads.
    pub count: u64,
    /// Their summed latency, ns.
    pub total_ns: u64,
}

impl TierTally {
    /// Mean latency, ns (0 when empty).
    pub fn mean_ns(&self) -> f64 {
        if self.count == 0 {
            0.0
        } else {
            self.total_ns as f64 / self.count as f64
        }
    }
}

/// Reads split by tier, in [`Tier::ALL`] order.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct TierSplit {
    /// Page-cache hits.
    pub page_cache: TierTally,
    /// Storage-cache hits.
    pub storage_cache: TierTally,
    /// Device reads.
    pub device: TierTally,
}

impl TierSplit {
    /// Builds the split from counts and summed latencies in tier order.
    pub fn from_arrays(count: [u64; 3], total_ns: [u64; 3]) -> Self {
        let t = |i: usize| TierTally {
            count: count[i],
            total_ns: total_ns[i],
        };
        Self {
            page_cache: t(0),
            storage_cache: t(1),
            device: t(2),
        }
    }

    /// The tally of `tier`.
    pub fn get(&self, tier: Tier) -> &TierTally {
        match tier {
            Tier::PageCache => &self.page_cache,
            Tier::StorageCache => &self.storage_cache,
            Tier::Device => &self.device,
        }
    }

    /// Adds another split into this one.
    pub fn add(&mut self, o: &TierSplit) {
        for (a, b) in [
            (&mut self.page_cache, &o.page_cache),
            (&mut self.storage_cache, &o.storage_cache),
            (&mut self.device, &o.device),
        ] {
            a.count += b.count;
            a.total_ns += b.total_ns;
        }
    }

    /// All reads.
    pub fn count(&self) -> u64 {
        self.page_cache.count + self.storage_cache.count + self.device.count
    }

    /// Share of the reads served by `tier`, 0..=1.
    pub fn share(&self, tier: Tier) -> f64 {
        let n = self.count();
        if n == 0 {
            0.0
        } else {
            self.get(tier).count as f64 / n as f64
        }
    }

    /// Share of the summed latency spent in `tier`, 0..=1.
    pub fn time_share(&self, tier: Tier) -> f64 {
        let t = self.page_cache.total_ns + self.storage_cache.total_ns + self.device.total_ns;
        if t == 0 {
            0.0
        } else {
            self.get(tier).total_ns as f64 / t as f64
        }
    }
}

/// The two kinds of datafile read, by their Oracle wait-event names.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ReadKind {
    /// One block at a random place (an index lookup): 'db file sequential read'.
    Single,
    /// Several adjacent blocks of a scan: 'db file scattered read'.
    Multi,
}

impl ReadKind {
    /// The wait event a database reports for it.
    pub fn event(self) -> &'static str {
        match self {
            ReadKind::Single => "db file sequential read",
            ReadKind::Multi => "db file scattered read",
        }
    }

    /// Index used by recorders (0 single, 1 multi).
    pub fn class(self) -> u8 {
        self as u8
    }

    /// The kind of a recorder class.
    pub fn from_class(c: u8) -> ReadKind {
        if c == 0 {
            ReadKind::Single
        } else {
            ReadKind::Multi
        }
    }
}

/// The one configuration of a `dbio read` run, the same for every cache
/// state it measures: what the command builds from its options and what
/// each [`ReadResult`] records, in bytes and ns. The tier thresholds are
/// not in it: how reads are attributed is decided apart (a calibration,
/// or `dbio check`'s own measurements) and recorded in
/// [`ReadResult::thresholds`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ReadConfig {
    /// I/O engine (psync, io_uring or libaio; null for measuring dbio itself).
    pub engine: EngineKind,
    /// O_DIRECT.
    pub direct: bool,
    /// Reader threads.
    pub threads: u32,
    /// I/Os in flight per thread (io_uring and libaio).
    pub iodepth: u32,
    /// Database block size, bytes (`--bs`; saved as `block_size`).
    #[serde(rename = "block_size")]
    pub bs: u64,
    /// Blocks per multiblock read.
    pub multiblock_count: u32,
    /// Share of reads that are multiblock reads, percent.
    pub multiblock_pct: u8,
    /// Datafile size, bytes (a whole number of blocks).
    pub size: u64,
    /// Access distribution of single-block reads.
    pub distribution: Access,
    /// Measured time per cache state, all rounds together, ns (None when
    /// count-based).
    pub runtime_ns: Option<u64>,
    /// Reads per cache state and round, when count-based.
    pub ops_limit: Option<u64>,
    /// Interleaved rounds.
    pub rounds: u32,
    /// Seed of the offsets (round `r` uses `seed + r`).
    pub seed: u64,
}

impl Default for ReadConfig {
    /// 8 KiB blocks, 10 % multiblock reads of 16 blocks, uniform, psync,
    /// buffered, one thread, 1 GiB, one round of 10 s.
    fn default() -> Self {
        Self {
            engine: EngineKind::Psync,
            direct: false,
            threads: 1,
            iodepth: 1,
            bs: 8192,
            multiblock_count: 16,
            multiblock_pct: 10,
            size: 1 << 30,
            distribution: Access::Uniform,
            runtime_ns: Some(10_000_000_000),
            ops_limit: None,
            rounds: 1,
            seed: crate::DEFAULT_SEED,
        }
    }
}

impl ReadConfig {
    /// Bytes of the largest read.
    pub fn max_read(&self) -> u64 {
        self.bs * u64::from(self.multiblock_count)
    }

    /// Whole blocks in the file.
    pub fn blocks(&self) -> u64 {
        self.size / self.bs.max(1)
    }
}

/// How random block numbers are distributed over a file.
///
/// In JSON it is the string the command line takes (`uniform`,
/// `zipf:1.2`, `hot:10/90`), written by its `Display` and read back by
/// [`Access::parse`].
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(into = "String", try_from = "String")]
pub enum Access {
    /// Every block equally likely.
    #[default]
    Uniform,
    /// Zipf with exponent `theta` (> 0, != 1, as fio's `zipf:theta`): block
    /// `k` (0-based) is drawn with probability proportional to `1/(k+1)^theta`.
    /// The hottest blocks are at the start of the file.
    Zipf {
        /// The exponent.
        theta: f64,
    },
    /// `access_pct` % of the draws fall uniformly in the first `data_pct` %
    /// of the blocks (the hot set), the rest uniformly in the others.
    Hot {
        /// Share of the blocks that is hot, percent (0, 100].
        data_pct: f64,
        /// Share of the draws that go to the hot blocks, percent [0, 100].
        access_pct: f64,
    },
}

impl Access {
    /// Parses `uniform`, `zipf:1.2` or `hot:10/90` (10 % of the blocks get
    /// 90 % of the reads).
    pub fn parse(s: &str) -> Result<Access, String> {
        let s = s.trim();
        if s == "uniform" {
            return Ok(Access::Uniform);
        }
        if let Some(t) = s.strip_prefix("zipf:") {
            let theta: f64 = t
                .parse()
                .map_err(|_| format!("'{s}': the zipf exponent must be a number, e.g. zipf:1.2"))?;
            if !(theta > 0.0 && theta.is_finite()) || (theta - 1.0).abs() < 1e-9 {
                return Err(format!(
                    "'{s}': the zipf exponent must be above 0 and not 1 (as in fio)"
                ));
            }
            return Ok(Access::Zipf { theta });
        }
        if let Some(t) = s.strip_prefix("hot:") {
            let bad = || {
                format!("'{s}' is not a hot set; write hot:DATA/ACCESS in percent, e.g. hot:10/90")
            };
            let (d, a) = t.split_once('/').ok_or_else(bad)?;
            let d: f64 = d.trim_end_matches('%').parse().map_err(|_| bad())?;
            let a: f64 = a.trim_end_matches('%').parse().map_err(|_| bad())?;
            if !(d > 0.0 && d <= 100.0 && (0.0..=100.0).contains(&a)) {
                return Err(format!(
                    "'{s}': the hot share of the data must be in (0, 100] and the share of reads in [0, 100]"
                ));
            }
            return Ok(Access::Hot {
                data_pct: d,
                access_pct: a,
            });
        }
        Err(format!(
            "unknown access distribution '{s}' (use uniform, zipf:THETA or hot:DATA/ACCESS)"
        ))
    }
}

/// The distribution in the syntax [`Access::parse`] reads.
impl std::fmt::Display for Access {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Access::Uniform => write!(f, "uniform"),
            Access::Zipf { theta } => write!(f, "zipf:{theta}"),
            Access::Hot {
                data_pct,
                access_pct,
            } => write!(f, "hot:{data_pct}/{access_pct}"),
        }
    }
}

impl From<Access> for String {
    fn from(a: Access) -> String {
        a.to_string()
    }
}

impl TryFrom<String> for Access {
    type Error = String;
    fn try_from(s: String) -> Result<Access, String> {
        Access::parse(&s)
    }
}

/// Reads of one kind (and, in `by_size`, one size).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ReadGroup {
    /// Read kind.
    pub kind: Option<ReadKind>,
    /// Bytes per read, when the group is one size.
    pub io_bytes: Option<u64>,
    /// Reads.
    pub ops: u64,
    /// Database blocks read.
    pub blocks: u64,
    /// Bytes read.
    pub bytes: u64,
    /// Latency of the reads.
    pub lat: LatencySummary,
    /// Tier attribution.
    pub tiers: TierSplit,
}

/// The result of one `dbio read` configuration (e.g. `cold` or `warm`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ReadResult {
    /// Name of the configuration.
    pub name: String,
    /// What ran: the run's configuration, as it is.
    pub config: ReadConfig,
    /// Share of the file brought into the cache before each round, percent
    /// (this state's).
    pub cached_pct: f64,
    /// The datafile, as resolved (dbio's temporary file for a directory
    /// target; `null` for the null engine).
    pub target: String,
    /// The tier boundaries used.
    pub thresholds: TierThresholds,
    /// Measured time over all rounds, ns.
    pub runtime_ns: u64,
    /// Reads completed.
    pub ops: u64,
    /// Database blocks read.
    pub blocks: u64,
    /// Bytes read.
    pub bytes: u64,
    /// Reads per second.
    pub iops: f64,
    /// Latency of every read.
    pub lat: LatencySummary,
    /// Tier attribution of every read.
    pub tiers: TierSplit,
    /// One group per read kind.
    pub by_kind: Vec<ReadGroup>,
    /// One group per read kind and size.
    pub by_size: Vec<ReadGroup>,
    /// Page-cache residency after the cache was prepared, before the first
    /// round's reads (mincore).
    pub cached_before: Option<PageCacheResidency>,
    /// Residency after the last round.
    pub cached_after: Option<PageCacheResidency>,
    /// Disk counters over the measured rounds (/proc/diskstats).
    pub device: Option<DiskStatsDelta>,
    /// CPU of the reader threads.
    pub cpu: CpuUsage,
    /// The boundaries `tiers` was attributed with and where they came
    /// from, when the run measured them itself (`dbio check`) or its reads
    /// are O_DIRECT (`dbio read --direct`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub attribution: Option<TierAttribution>,
    /// Per-second series (see [`crate::series`]); empty in results
    /// written before they were recorded.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub per_second: Vec<crate::series::Series>,
    /// With `--targets`: what each member of the stripe did, all rounds
    /// of this state together.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stripe: Option<crate::stripe::StripeResult>,
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The distribution is the string the command line takes, both ways;
    /// a string `--distribution` would refuse is refused in JSON too.
    #[test]
    fn a_distribution_is_its_command_line_string_in_json() {
        for (a, text) in [
            (Access::Uniform, "\"uniform\""),
            (Access::Zipf { theta: 1.2 }, "\"zipf:1.2\""),
            (
                Access::Hot {
                    data_pct: 10.0,
                    access_pct: 90.0,
                },
                "\"hot:10/90\"",
            ),
        ] {
            assert_eq!(serde_json::to_string(&a).unwrap(), text);
            assert_eq!(serde_json::from_str::<Access>(text).unwrap(), a);
        }
        let e = serde_json::from_str::<Access>("\"zipf:1\"").unwrap_err();
        assert!(e.to_string().contains("not 1"), "{e}");
    }

    #[test]
    fn a_latency_equal_to_a_threshold_goes_to_the_slower_tier() {
        let t = TierThresholds::default();
        assert_eq!(t.classify(0), Tier::PageCache);
        assert_eq!(t.classify(99_999), Tier::PageCache);
        assert_eq!(t.classify(100_000), Tier::StorageCache);
        assert_eq!(t.classify(999_999), Tier::StorageCache);
        assert_eq!(t.classify(1_000_000), Tier::Device);
        assert_eq!(t.classify(u64::MAX), Tier::Device);
        let none = TierThresholds {
            page_cache_max_ns: 5_000,
            storage_cache_max_ns: u64::MAX,
            source: "tmpfs".into(),
        };
        assert!(!none.has_device_tier());
        assert_eq!(none.classify(4_999), Tier::PageCache);
        assert_eq!(none.classify(5_000), Tier::StorageCache);
        assert_eq!(none.classify(u64::MAX - 1), Tier::StorageCache);
    }

    #[test]
    fn equal_thresholds_leave_no_storage_tier() {
        let t = TierThresholds {
            page_cache_max_ns: 1000,
            storage_cache_max_ns: 1000,
            source: "option".into(),
        };
        assert!(t.validate().is_ok());
        assert_eq!(t.classify(999), Tier::PageCache);
        assert_eq!(t.classify(1000), Tier::Device);
        let bad = TierThresholds {
            page_cache_max_ns: 2000,
            ..t
        };
        assert!(bad.validate().unwrap_err().contains("above"));
    }

    #[test]
    fn an_o_direct_read_is_never_a_page_cache_hit() {
        let used = |ns, source| UsedBoundary {
            ns,
            source,
            fit: None,
        };
        let mut a = TierAttribution {
            page_cache_max: used(Some(20_000), BoundarySource::Measured),
            storage_cache_max: used(Some(50_000), BoundarySource::Default),
            direct: false,
            rereads: None,
        };
        assert_eq!(a.tier(19_999), Tier::PageCache);
        assert_eq!(a.tier(20_000), Tier::StorageCache);
        assert_eq!(a.tier(50_000), Tier::Device);
        a.direct = true;
        assert_eq!(a.tier(0), Tier::StorageCache);
        assert_eq!(a.tier(19_999), Tier::StorageCache);
        // No separate storage-cache tier: every storage read is a device read.
        a.storage_cache_max.ns = None;
        assert_eq!(a.tier(0), Tier::Device);
        let th = a.thresholds();
        assert_eq!(
            (th.page_cache_max_ns, th.storage_cache_max_ns),
            (20_000, 20_000)
        );
        assert_eq!(
            th.source,
            "page cache measured in this run; storage cache default, not measured here"
        );
    }

    #[test]
    fn split_shares() {
        let s = TierSplit::from_arrays([6, 3, 1], [600, 3_000, 6_000]);
        assert_eq!(s.count(), 10);
        assert!((s.share(Tier::PageCache) - 0.6).abs() < 1e-12);
        assert!((s.time_share(Tier::Device) - 0.625).abs() < 1e-12);
        assert_eq!(s.storage_cache.mean_ns(), 1_000.0);
        let mut a = s;
        a.add(&s);
        assert_eq!(a.device.count, 2);
    }
}
