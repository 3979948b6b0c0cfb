//! The run report: what the measuring commands (`bench`, `check`, `lgwr`,
//! `read`, `dbwr`, `calibrate`) measured.

use crate::{Environment, LatencySummary, PageCacheResidency};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// A whole invocation's result: one or more jobs on one machine.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct RunReport {
    /// [`crate::SCHEMA_VERSION`] of the writer.
    pub schema_version: u32,
    /// The command line that produced it (argv joined with shell quoting,
    /// passwords in URLs redacted); absent in results written before it
    /// was recorded and in results built by a library caller.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub invocation: Option<String>,
    /// The build of dbio that wrote it (revision, target, features);
    /// absent in results written before it was recorded, in re-rendered
    /// results that lacked it, and in results built by a library caller.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub build: Option<crate::build::BuildInfo>,
    /// Tool name and version, e.g. `dbio 0.1.0`.
    pub tool: String,
    /// The subcommand that produced it (`bench`, `check`).
    pub command: String,
    /// Start time, seconds since the Unix epoch.
    pub started_at_unix: u64,
    /// Where it ran.
    pub environment: Environment,
    /// The raw I/O jobs, in the order they ran.
    pub jobs: Vec<JobResult>,
    /// Log-writer model runs (`dbio lgwr`, the commit section of `check`).
    #[serde(default)]
    pub lgwr: Vec<crate::lgwr::LgwrResult>,
    /// Datafile read runs (`dbio read`, the read section of `check`).
    #[serde(default)]
    pub reads: Vec<crate::read::ReadResult>,
    /// Database-writer model runs (`dbio dbwr`, the writer section of `check`).
    #[serde(default)]
    pub dbwr: Vec<crate::dbwr::DbwrResult>,
    /// Commit load on real database engines (`dbio load`, the database
    /// section of `check`).
    #[serde(default)]
    pub load: Vec<crate::load::LoadResult>,
    /// `dbio load --compare`: the configurations' medians and ranges
    /// (the rounds themselves are in `load`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub load_compare: Option<Box<crate::load_compare::LoadComparison>>,
    /// Live traces of running processes (`dbio watch`).
    #[serde(default)]
    pub watch: Vec<crate::watch::WatchResult>,
    /// Tier thresholds measured by `dbio calibrate`.
    #[serde(default)]
    pub calibration: Option<crate::calibrate::Calibration>,
    /// The load matrix and its search (`dbio matrix`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub matrix: Option<Box<crate::matrix::MatrixResult>>,
    /// Plain-words conclusions with their evidence, drawn from the rest
    /// of the report by `dbio_report::findings`. A result written before
    /// findings has a `conclusions` list of strings instead: it reads
    /// back here, one `legacy` finding per string.
    #[serde(default, alias = "conclusions")]
    pub findings: Vec<crate::Finding>,
    /// The answer to "is it the storage?" (or, for a measurement of the
    /// storage itself, what it gives a database), drawn from the ranked
    /// findings; absent in results written before verdicts.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub verdict: Option<crate::Verdict>,
    /// Set when the run stopped early: the jobs hold what was measured so far.
    pub partial: Option<PartialReason>,
    /// What results written before notes became findings had to say
    /// beside their findings (a scratch file removed, a section that could
    /// not run), as plain sentences: still read and printed as they were.
    /// dbio now writes these as `findings` (see `Finding::note`) and
    /// leaves this empty.
    pub warnings: Vec<String>,
    /// How the table shows the sections. A result written before this
    /// field reads back as `summary` when its command was `check`.
    #[serde(default)]
    pub layout: Layout,
    /// `--label`: the name this run is known by in a fleet (the host's
    /// name in a merged result when not given).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
    /// `--start-at`: the wall-clock start the run waited for, ns since the
    /// Unix epoch.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub start_at_unix_ns: Option<u64>,
    /// This host's wall clock when a `--start-at` run began (adjtimex(2):
    /// synchronised or not, its error bound): how far the shared start
    /// can be trusted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clock: Option<crate::clock::ClockStatus>,
    /// A merged result (`dbio merge`): each host's own result, unchanged,
    /// in the order given; the top-level jobs are their sums.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub parts: Vec<RunReport>,
}

/// How a report's sections are laid out in the terminal table: a property
/// of the result, saved with it, so `dbio report --from` prints what the
/// command printed.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Layout {
    /// Every entry of every section in full (a command that measures one
    /// thing: its jobs, runs or configurations each get a block).
    #[default]
    Detail,
    /// Each section as one summary table (a composite result such as
    /// `dbio check --detail`).
    Summary,
    /// The answer and one headline table of every section's first
    /// figures, fitting one screen (`dbio check` by default); `--detail`
    /// shows the [`Layout::Summary`] tables.
    Brief,
}

/// Why a run stopped before it was done.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum PartialReason {
    /// SIGINT, SIGTERM, SIGHUP or SIGQUIT arrived.
    Signal {
        /// Signal name.
        signal: String,
    },
    /// An I/O error (ENOSPC, EIO, ...) stopped a worker.
    IoError {
        /// The error as one sentence.
        message: String,
    },
    /// A part of the run could not run (a `dbio check` section); the
    /// other parts ran.
    Incomplete {
        /// What did not run and why, as one sentence.
        message: String,
    },
}

impl std::fmt::Display for PartialReason {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            PartialReason::Signal { signal } => write!(f, "interrupted by {signal}"),
            PartialReason::IoError { message } => write!(f, "stopped by an I/O error: {message}"),
            PartialReason::Incomplete { message } => write!(f, "{message}"),
        }
    }
}

/// I/O engine names, in fio's vocabulary.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum EngineKind {
    /// pread/pwrite, one I/O at a time per thread.
    Psync,
    /// io_uring with batched submit and reap.
    IoUring,
    /// The kernel's native AIO (io_submit/io_getevents), O_DIRECT only.
    Libaio,
    /// No I/O: measures dbio's own cost (optionally with an injected delay).
    Null,
}

impl EngineKind {
    /// The name the command line and the JSON use (`io_uring`).
    pub fn name(self) -> &'static str {
        match self {
            EngineKind::Psync => "psync",
            EngineKind::IoUring => "io_uring",
            EngineKind::Libaio => "libaio",
            EngineKind::Null => "null",
        }
    }
}

/// Access pattern (fio's `rw`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Pattern {
    /// Sequential reads.
    Read,
    /// Sequential writes.
    Write,
    /// Uniform random reads.
    Randread,
    /// Uniform random writes.
    Randwrite,
    /// Sequential mixed reads and writes (`read_pct` reads).
    Readwrite,
    /// Random mixed reads and writes (`read_pct` reads).
    Randrw,
}

impl Pattern {
    /// True for random offsets.
    pub fn is_random(self) -> bool {
        matches!(
            self,
            Pattern::Randread | Pattern::Randwrite | Pattern::Randrw
        )
    }
    /// Share of reads in percent for this pattern given the mixed-pattern setting.
    pub fn read_pct(self, mixed_read_pct: u8) -> u8 {
        match self {
            Pattern::Read | Pattern::Randread => 100,
            Pattern::Write | Pattern::Randwrite => 0,
            Pattern::Readwrite | Pattern::Randrw => mixed_read_pct,
        }
    }
}

/// How each write is made durable.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Durability {
    /// Nothing: the write may sit in the page cache or the device cache.
    None,
    /// The file is opened O_DSYNC: each write returns once data is durable.
    Dsync,
    /// The file is opened O_SYNC: data and metadata.
    Sync,
    /// fdatasync after each write (with io_uring: a linked fdatasync op).
    Fdatasync,
    /// fsync after each write (with io_uring: a linked fsync op).
    Fsync,
}

impl Durability {
    /// True when a separate sync operation follows each write.
    pub fn has_sync_op(self) -> bool {
        matches!(self, Durability::Fdatasync | Durability::Fsync)
    }
    /// True when each write is durable on return (a commit by itself).
    pub fn is_durable(self) -> bool {
        !matches!(self, Durability::None)
    }
}

/// How the target file is prepared before the run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Prepare {
    /// Every block written once and synced: later writes overwrite
    /// allocated, initialised blocks (a recycled log file, a datafile).
    Prewrite,
    /// fallocate: blocks reserved as unwritten extents; the first write to
    /// each converts its extent, which costs a metadata update per sync.
    Fallocate,
    /// ftruncate to the size: a hole, blocks allocated on first write.
    Sparse,
    /// An empty file grown by every write (appending).
    Append,
}

impl Prepare {
    /// A preparation from its name as the command line writes it
    /// (`prewrite`, `fallocate`, `sparse`, `append`), or the one sentence
    /// that lists them.
    pub fn from_name(v: &str) -> Result<Prepare, String> {
        Ok(match v {
            "prewrite" => Prepare::Prewrite,
            "fallocate" => Prepare::Fallocate,
            "sparse" => Prepare::Sparse,
            "append" => Prepare::Append,
            _ => {
                return Err(format!(
                    "unknown preparation '{v}' (prewrite, fallocate, sparse, append)"
                ))
            }
        })
    }
}

/// One raw I/O job (`dbio bench`, the raw sections of `dbio check`): what
/// the user asked, in canonical units (bytes, ns), and what the result
/// records. The engine checks it and resolves it into its run-time form
/// (`dbio_engine::Job`); [`JobResult::job`] is the checked value, cloned.
/// Where the I/O goes and what dbio may do there (overwrite, block
/// devices, keeping the file) is not part of a measurement's identity and
/// travels beside it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct JobConfig {
    /// I/O engine.
    pub engine: EngineKind,
    /// Access pattern.
    pub rw: Pattern,
    /// Share of reads, percent (100 or 0 for the pure patterns once checked).
    pub read_pct: u8,
    /// Block size, bytes.
    pub bs: u64,
    /// I/Os in flight per thread.
    pub iodepth: u32,
    /// I/Os queued before one submission (fio's `iodepth_batch_submit`).
    #[serde(default = "one")]
    pub iodepth_batch: u32,
    /// O_DIRECT.
    pub direct: bool,
    /// Durability per write.
    pub sync: Durability,
    /// Worker threads.
    pub threads: u32,
    /// Size of the region each run touches, bytes (a whole number of
    /// blocks once checked).
    pub size: u64,
    /// Target file preparation.
    pub prepare: Prepare,
    /// Time limit, ns (excluding warm-up), when time-based.
    pub runtime_ns: Option<u64>,
    /// Operation limit in total, when count-based.
    pub ops_limit: Option<u64>,
    /// Warm-up excluded from the statistics, ns.
    pub warmup_ns: u64,
    /// Rate limit over all threads, IOPS (latency measured from each
    /// operation's intended start).
    pub rate_iops: Option<u64>,
    /// Seed of the random offset generator.
    pub seed: u64,
    /// Injected service time of the null engine, ns.
    pub null_delay_ns: u64,
}

impl Default for JobConfig {
    /// 8 KiB random reads with psync on a pre-written 256 MiB file, one
    /// thread, no limit given (the engine then runs 10 s).
    fn default() -> Self {
        Self {
            engine: EngineKind::Psync,
            rw: Pattern::Randread,
            read_pct: 50,
            bs: 8192,
            iodepth: 1,
            iodepth_batch: 1,
            direct: false,
            sync: Durability::None,
            threads: 1,
            size: 256 << 20,
            prepare: Prepare::Prewrite,
            runtime_ns: None,
            ops_limit: None,
            warmup_ns: 0,
            rate_iops: None,
            seed: crate::DEFAULT_SEED,
            null_delay_ns: 0,
        }
    }
}

fn one() -> u32 {
    1
}

/// Statistics of one operation direction (reads or writes).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct OpStats {
    /// Operations completed in the measured interval.
    pub ops: u64,
    /// Bytes transferred in the measured interval.
    pub bytes: u64,
    /// Operations per second.
    pub iops: f64,
    /// Bytes per second.
    pub bytes_per_sec: f64,
    /// Submission latency (fio's slat): from the intended start until the
    /// engine accepted the I/O. Zero for synchronous engines.
    pub slat: LatencySummary,
    /// Completion latency (fio's clat): from submission until completion.
    pub clat: LatencySummary,
    /// Total latency (fio's lat): from the intended start until completion.
    pub lat: LatencySummary,
}

/// CPU used by the workers over the measured run (getrusage RUSAGE_THREAD).
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct CpuUsage {
    /// User time, ns.
    pub user_ns: u64,
    /// System time, ns.
    pub system_ns: u64,
    /// Voluntary context switches.
    pub voluntary_cs: u64,
    /// Involuntary context switches.
    pub involuntary_cs: u64,
    /// (user + system) / operations, ns (syncs not counted as operations).
    pub per_io_ns: f64,
    /// (user + system) / wall time of the run, as a share of one CPU.
    pub utilisation: f64,
}

/// /proc/diskstats counters of the target's disk over the run.
///
/// The counters are the whole disk's: other processes' I/O is included.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct DiskStatsDelta {
    /// Disk name.
    pub device: String,
    /// Reads completed.
    pub reads: u64,
    /// Reads merged.
    pub read_merges: u64,
    /// Sectors (512 B) read.
    pub read_sectors: u64,
    /// Time spent reading, ms.
    pub read_ms: u64,
    /// Writes completed.
    pub writes: u64,
    /// Writes merged.
    pub write_merges: u64,
    /// Sectors (512 B) written.
    pub write_sectors: u64,
    /// Time spent writing, ms.
    pub write_ms: u64,
    /// Time the device had I/O in flight, ms.
    pub io_ms: u64,
    /// Weighted time in queue, ms (sum over requests of their time in queue).
    pub queue_ms: u64,
    /// Flush requests completed (kernel 5.5+; None when not reported).
    pub flushes: Option<u64>,
    /// Time spent flushing, ms.
    pub flush_ms: Option<u64>,
}

/// One per-second sample of a run, taken by the reporter thread.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct SecondSample {
    /// Seconds since the start of the run (end of the sampled interval).
    pub t_s: f64,
    /// Reads per second in the interval.
    pub read_iops: f64,
    /// Writes per second in the interval.
    pub write_iops: f64,
    /// Bytes per second in the interval (reads + writes).
    pub bytes_per_sec: f64,
    /// Median total latency in the interval, ns (log-linear buckets, ≤ 12.5 % error).
    pub p50_ns: u64,
    /// 99th percentile total latency in the interval, ns (≤ 12.5 % error).
    pub p99_ns: u64,
}

/// One job's result.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct JobResult {
    /// Job name (shown as the row label).
    pub name: String,
    /// The job as it ran (checked: `read_pct` and `size` as used, the
    /// default run time filled in).
    pub job: JobConfig,
    /// The file or device the job used, as resolved (dbio's temporary file
    /// for a directory target).
    pub target: String,
    /// Measured wall time, ns (warm-up excluded).
    pub runtime_ns: u64,
    /// Read statistics when the job read.
    pub read: Option<OpStats>,
    /// Write statistics when the job wrote.
    pub write: Option<OpStats>,
    /// The separate sync operation (fdatasync/fsync) after each write.
    pub sync: Option<crate::LatencySummary>,
    /// Commit latency: write + its sync as one distribution, from the
    /// write's intended start until it is durable.
    pub commit: Option<crate::LatencySummary>,
    /// CPU used by the workers.
    pub cpu: CpuUsage,
    /// The target disk's counters over the measured run.
    pub device: Option<DiskStatsDelta>,
    /// Page-cache residency of the target before the job.
    pub cached_before: Option<PageCacheResidency>,
    /// Page-cache residency of the target after the job.
    pub cached_after: Option<PageCacheResidency>,
    /// Per-second samples.
    pub series: Vec<SecondSample>,
    /// Wall-clock start of the measured interval (the end of the warm-up),
    /// ns since the Unix epoch: what `dbio merge` aligns the series of
    /// several hosts by.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub started_at_unix_ns: Option<u64>,
    /// Striping across several targets (`--targets`): the layout and what
    /// each target did.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stripe: Option<crate::stripe::StripeResult>,
    /// The job ran on a block device (every member of a stripe was one),
    /// not a file: `job.prepare` then says nothing of it. False in
    /// results written before this was recorded.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub block_device: bool,
}

impl JobResult {
    /// Total operations (reads + writes).
    pub fn total_ops(&self) -> u64 {
        self.read.as_ref().map_or(0, |s| s.ops) + self.write.as_ref().map_or(0, |s| s.ops)
    }
    /// Total bytes (reads + writes).
    pub fn total_bytes(&self) -> u64 {
        self.read.as_ref().map_or(0, |s| s.bytes) + self.write.as_ref().map_or(0, |s| s.bytes)
    }

    /// `series` in the common shape of [`crate::series`] (what `lgwr`,
    /// `read`, `dbwr` and `load` record): `read_iops`, `write_iops`,
    /// `bytes_per_s`, and the total latency's `p50` and `p99` (of reads and
    /// writes together; null in a second without I/O).
    pub fn per_second(&self) -> Vec<crate::series::Series> {
        use crate::series::{Series, SeriesUnit};
        let mut r = Series::new("read_iops", SeriesUnit::PerSecond);
        let mut w = Series::new("write_iops", SeriesUnit::PerSecond);
        let mut b = Series::new("bytes_per_s", SeriesUnit::PerSecond);
        let mut p50 = Series::new("p50", SeriesUnit::Ns);
        let mut p99 = Series::new("p99", SeriesUnit::Ns);
        for s in &self.series {
            let any = s.read_iops + s.write_iops > 0.0;
            r.push(s.t_s, Some(s.read_iops));
            w.push(s.t_s, Some(s.write_iops));
            b.push(s.t_s, Some(s.bytes_per_sec));
            p50.push(s.t_s, any.then_some(s.p50_ns as f64));
            p99.push(s.t_s, any.then_some(s.p99_ns as f64));
        }
        if self.series.is_empty() {
            return Vec::new();
        }
        vec![r, w, b, p50, p99]
    }
}
