//! Result types of `dbio lgwr`: a log writer with group commit on real
//! storage, reported in Oracle's vocabulary.
//!
//! The session side is 'log file sync' (from the moment a session's redo
//! is in the log buffer until the session runs again after the log writer
//! posted it); the writer side is 'log file parallel write' (one write of
//! gathered redo plus the sync that makes it durable). The commit latency
//! is split into four parts whose timestamps telescope, so their means add
//! up to the mean 'log file sync' exactly (each summary is within the HDR
//! histograms' 1 %): waiting for the writer to pick the redo up, the
//! writer's I/O, the writer posting sessions before this one, and the
//! delay from the post until the session ran again (scheduling).

use crate::units::parse_size;
use crate::{CpuUsage, DiskStatsDelta, EngineKind, LatencySummary, Prepare};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// The result of one `dbio lgwr` configuration (merged over its rounds).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct LgwrResult {
    /// Name of the configuration.
    pub name: String,
    /// The configuration as it ran.
    pub config: LgwrConfig,
    /// Directory of the log files as given (`(null engine: no files)`
    /// without I/O).
    pub target: String,
    /// Rounds the configuration ran (interleaved with others under --compare).
    pub rounds: u32,
    /// Measured wall time summed over rounds, ns.
    pub runtime_ns: u64,
    /// Commits completed (made durable and acknowledged).
    pub commits: u64,
    /// Commits per second over all sessions.
    pub tps: f64,
    /// Commits per second of each round, in run order (interleaved runs).
    pub round_tps: Vec<f64>,
    /// 'log file sync': from the session's redo being in the log buffer
    /// until the session runs again after the writer's post.
    pub log_file_sync: LatencySummary,
    /// Where each commit's time went; the four means add up to the mean
    /// of `log_file_sync`.
    pub breakdown: CommitBreakdown,
    /// 'log buffer space': waits of sessions for room in the log buffer.
    pub log_buffer_space: LatencySummary,
    /// Per-session lines (as the test program of "Log File Sync wait event
    /// and SSD disks" prints them: commits, min and max commit time, TPS
    /// per thread).
    pub sessions: Vec<SessionLine>,
    /// The log writer's side.
    pub writer: WriterStats,
    /// CPU of all session threads together.
    pub session_cpu: CpuUsage,
    /// What the process and the disk did during the run.
    pub io: IoEvidence,
    /// Read-back of every committed record, when asked for.
    pub verify: Option<VerifyResult>,
    /// Per-second series (see [`crate::series`]); empty in results
    /// written before they were recorded.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub per_second: Vec<crate::series::Series>,
    /// Mean wall time of a transaction as its client sees it, ns: with
    /// client threads (`client_cpu_ns`), from handing the statement over
    /// until the answer is back (the session's wake-up, its CPU, its
    /// commit, the client's wake-up); without, from the start of the
    /// transaction's work until its commit returned. This, not 'log file
    /// sync' alone, is what a database client times for an autocommit
    /// insert. None in results written before.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client_seen_mean_ns: Option<f64>,
    /// With `config.pipeline`: the stages after the first (the first is
    /// `writer`), in commit order; empty otherwise.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub stages: Vec<StageStats>,
}

/// One later stage of a pipelined commit (`--pipeline`): its own leader
/// flushes every commit queued behind it with one write and one sync.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct StageStats {
    /// Durable writes the stage made.
    pub writes: u64,
    /// Commits covered per write (mean).
    pub commits_per_write: f64,
    /// One write and its sync.
    pub write_sync: LatencySummary,
}

/// Who makes a group of commits durable.
///
/// Oracle has a log writer: sessions post it and sleep while it writes for
/// everyone ('log file sync' around 'log file parallel write').
/// PostgreSQL's backends and InnoDB's group commit have none on the commit
/// path: the first session that wants its commit flushed takes the write
/// lock and flushes everything inserted so far, and the sessions queued
/// behind the lock find their commit already durable (PostgreSQL's
/// `XLogFlush`, waiting in `LWLock:WALWrite`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Protocol {
    /// A log-writer thread flushes for every session (Oracle).
    #[default]
    Writer,
    /// The first waiting session flushes for the group (PostgreSQL, InnoDB).
    Leader,
}

impl Protocol {
    /// The name as the command line and the result write it.
    pub fn name(self) -> &'static str {
        match self {
            Protocol::Writer => "writer",
            Protocol::Leader => "leader",
        }
    }

    /// A protocol from its [`Protocol::name`], or the one sentence that
    /// says which names there are.
    pub fn from_name(s: &str) -> Result<Self, String> {
        match s {
            "writer" => Ok(Protocol::Writer),
            "leader" => Ok(Protocol::Leader),
            _ => Err(format!("unknown protocol '{s}' (use writer or leader)")),
        }
    }
}

/// How the log writer makes a log write durable. Serialised with the
/// names the command line takes (`direct-dsync`, ...).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum Method {
    /// O_DIRECT + O_DSYNC: Oracle's LGWR with `filesystemio_options=setall`,
    /// PostgreSQL `open_datasync` with direct I/O.
    #[default]
    DirectDsync,
    /// O_DIRECT writes, then fdatasync (MariaDB `innodb_flush_method=O_DIRECT`).
    DirectFdatasync,
    /// Buffered writes, then fdatasync (PostgreSQL's Linux default).
    BufferedFdatasync,
    /// Buffered writes opened O_DSYNC (Oracle without direct I/O: the
    /// `noforcedirectio` mount of "Analyzing Oracle Logwriter w/ buffered
    /// vs. direct I/O"; PostgreSQL `open_datasync` without direct I/O).
    BufferedDsync,
    /// Buffered writes, then fsync (PostgreSQL `wal_sync_method=fsync`).
    BufferedFsync,
    /// O_DIRECT write submitted through io_uring, linked to an fdatasync.
    UringFdatasync,
    /// O_DIRECT write submitted through the kernel's native AIO
    /// (io_submit, as Oracle's log writer does with
    /// filesystemio_options=setall), then an asynchronous fdatasync
    /// (IOCB_CMD_FDSYNC) once the write completed.
    AioFdatasync,
}

impl Method {
    /// Every method, in the order `dbio check` compares them.
    pub const ALL: [Method; 7] = [
        Method::DirectDsync,
        Method::DirectFdatasync,
        Method::BufferedFdatasync,
        Method::BufferedDsync,
        Method::BufferedFsync,
        Method::UringFdatasync,
        Method::AioFdatasync,
    ];

    /// The method's name on the command line and in results.
    pub fn name(self) -> &'static str {
        match self {
            Method::DirectDsync => "direct-dsync",
            Method::DirectFdatasync => "direct-fdatasync",
            Method::BufferedFdatasync => "buffered-fdatasync",
            Method::BufferedDsync => "buffered-dsync",
            Method::BufferedFsync => "buffered-fsync",
            Method::UringFdatasync => "uring-fdatasync",
            Method::AioFdatasync => "aio-fdatasync",
        }
    }

    /// Parses a name; `direct` and `buffered` are the pair compared in
    /// "Analyzing Oracle Logwriter w/ buffered vs. direct I/O" (both
    /// O_DSYNC, as Oracle's log writer opens its files).
    pub fn parse(s: &str) -> Option<Method> {
        match s {
            "direct" => Some(Method::DirectDsync),
            "buffered" => Some(Method::BufferedDsync),
            "uring" | "io_uring" => Some(Method::UringFdatasync),
            "aio" | "libaio" => Some(Method::AioFdatasync),
            _ => Method::ALL.into_iter().find(|m| m.name() == s),
        }
    }

    /// [`Method::parse`], or the one sentence that lists the names.
    pub fn from_name(s: &str) -> Result<Method, String> {
        Method::parse(s).ok_or_else(|| {
            format!(
                "unknown method '{s}' (use direct, buffered, {})",
                Method::ALL.map(Method::name).join(", ")
            )
        })
    }

    /// Whether the log files are opened with O_DIRECT.
    pub fn direct(self) -> bool {
        matches!(
            self,
            Method::DirectDsync
                | Method::DirectFdatasync
                | Method::UringFdatasync
                | Method::AioFdatasync
        )
    }

    /// Whether the log files are opened with O_DSYNC.
    pub fn dsync(self) -> bool {
        matches!(self, Method::DirectDsync | Method::BufferedDsync)
    }

    /// Whether writes go through io_uring.
    pub fn uring(self) -> bool {
        self == Method::UringFdatasync
    }

    /// Whether writes go through an asynchronous engine (io_uring or
    /// native AIO), which keeps several log writes in flight.
    pub fn asynchronous(self) -> bool {
        matches!(self, Method::UringFdatasync | Method::AioFdatasync)
    }
}

impl std::fmt::Display for Method {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// How big each commit's redo record is (header included). Serialised as
/// the user writes it: `skewed`, `fixed:8192`, `uniform:512-8192` (bytes).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(into = "String", try_from = "String")]
pub enum RedoSize {
    /// Every record has this size.
    Fixed(u64),
    /// Uniform between the two sizes, inclusive.
    Uniform(u64, u64),
    /// The import of "Analyzing Oracle Logwriter w/ buffered vs. direct
    /// I/O" (2,734 bytes of redo per transaction): about 2.7 KB per commit
    /// on average, most records small and a long tail (256 B + an
    /// exponential of mean 2,444 B, capped at 32 KiB).
    #[default]
    Skewed,
}

/// Smallest record of the skewed distribution.
pub const SKEWED_MIN: u64 = 256;
/// Mean of the skewed distribution's exponential part (2,700 B mean in all).
pub const SKEWED_EXP_MEAN: f64 = 2_444.0;
/// Largest record of the skewed distribution.
pub const SKEWED_MAX: u64 = 32 * 1024;

impl RedoSize {
    /// Parses `skewed`, `8k`, `fixed:8k`, `512-8k` or `uniform:512-8k`.
    pub fn parse(s: &str) -> Result<RedoSize, String> {
        let t = s.trim();
        if t == "skewed" || t == "default" {
            return Ok(RedoSize::Skewed);
        }
        let body = t
            .strip_prefix("fixed:")
            .or_else(|| t.strip_prefix("uniform:"))
            .unwrap_or(t);
        if let Some((a, b)) = body.split_once('-') {
            let (lo, hi) = (parse_size(a)?, parse_size(b)?);
            if lo > hi {
                return Err(format!("redo size range '{s}' runs backwards"));
            }
            return Ok(RedoSize::Uniform(lo, hi));
        }
        if t.starts_with("uniform:") {
            return Err(format!(
                "uniform redo size '{s}' needs a range, e.g. uniform:512-8k"
            ));
        }
        Ok(RedoSize::Fixed(parse_size(body)?))
    }

    /// Smallest record.
    pub fn min(&self) -> u64 {
        match *self {
            RedoSize::Fixed(n) => n,
            RedoSize::Uniform(lo, _) => lo,
            RedoSize::Skewed => SKEWED_MIN,
        }
    }

    /// Largest record.
    pub fn max(&self) -> u64 {
        match *self {
            RedoSize::Fixed(n) => n,
            RedoSize::Uniform(_, hi) => hi,
            RedoSize::Skewed => SKEWED_MAX,
        }
    }
}

impl std::fmt::Display for RedoSize {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match *self {
            RedoSize::Fixed(n) => write!(f, "fixed:{n}"),
            RedoSize::Uniform(lo, hi) => write!(f, "uniform:{lo}-{hi}"),
            RedoSize::Skewed => f.write_str("skewed"),
        }
    }
}

impl From<RedoSize> for String {
    fn from(r: RedoSize) -> String {
        r.to_string()
    }
}

impl TryFrom<String> for RedoSize {
    type Error = String;
    fn try_from(s: String) -> Result<RedoSize, String> {
        RedoSize::parse(&s)
    }
}

/// One `dbio lgwr` configuration: what the user asked for and what the
/// result records (`LgwrResult::config`), in bytes and nanoseconds. The
/// command line builds it, `--compare` edits it by key, and
/// `dbio_sim::lgwr` resolves it into a run (log directory, open files,
/// verification) without copying its fields. A new option is a field here
/// (with its default below), its argument in `crates/cli/src/lgwr.rs` and one line
/// in `commands::lgwr::base_config`; the result and `report --from` carry
/// it from then on.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct LgwrConfig {
    /// Who flushes a group of commits: a log-writer thread or the first
    /// waiting session (results written before the leader protocol
    /// existed were all `writer`).
    #[serde(default)]
    pub protocol: Protocol,
    /// Committing session threads.
    pub sessions: u32,
    /// Commits per session (count-based run).
    pub commits_per_session: Option<u64>,
    /// Run time of each round, ns (time-based run: None when
    /// `commits_per_session` is given).
    pub runtime_ns: Option<u64>,
    /// Redo record size per commit.
    pub redo_size: RedoSize,
    /// Think time between a session's commits, ns.
    pub think_time_ns: u64,
    /// CPU time each transaction spends before its commit, ns, on the
    /// session's CPU clock: the work a database does around the redo.
    #[serde(default)]
    pub txn_cpu_ns: u64,
    /// CPU time, ns, a client thread of each session's own spends before
    /// each transaction (0: no client thread). With it every commit also
    /// makes a round trip: the client works, wakes the session, and is
    /// woken when the commit returns.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub client_cpu_ns: u64,
    /// Log buffer size, bytes.
    pub log_buffer_bytes: u64,
    /// Largest single log write, bytes (padding included).
    pub max_write_bytes: u64,
    /// Redo block size, bytes: every write is padded to it (`--bs`; saved
    /// as `block_size`).
    #[serde(rename = "block_size")]
    pub bs: u64,
    /// Durability method.
    pub method: Method,
    /// `Some(delay)`: no I/O at all, every write (and every sync) takes
    /// `delay` ns: the null engine with an injected service time.
    pub null_delay_ns: Option<u64>,
    /// Log files in the group.
    pub files: u32,
    /// Size of each log file, bytes.
    pub file_size: u64,
    /// Mirrored members per log file, written in parallel.
    pub members: u32,
    /// How the log files are prepared before the run.
    pub prepare: Prepare,
    /// Log writes in flight (1: the writer waits for each write).
    pub async_depth: u32,
    /// PostgreSQL's commit_delay, ns (0: off).
    pub commit_delay_ns: u64,
    /// PostgreSQL's commit_siblings.
    pub commit_siblings: u32,
    /// CPU the writer is pinned to.
    pub writer_cpu: Option<u32>,
    /// CPUs the sessions are kept on (empty: anywhere).
    pub session_cpus: Vec<u32>,
    /// Nice value of the writer thread.
    pub writer_nice: Option<i32>,
    /// SCHED_FIFO priority of the writer thread.
    pub writer_fifo: Option<u32>,
    /// How long a session watches for its post before it sleeps, ns
    /// (0: sleep at once; ignored on a single CPU).
    pub post_spin_ns: u64,
    /// Durable writes each flush makes one after the other (1: the log
    /// alone). MariaDB with `log_bin` and `sync_binlog=1` makes two per
    /// commit group: InnoDB's redo at prepare, then the binary log
    /// (docs/realdb-notes.md §1); results written before this option
    /// existed made one.
    #[serde(default = "one", skip_serializing_if = "is_one")]
    pub syncs_per_flush: u32,
    /// With `syncs_per_flush` above 1 under the leader protocol: each
    /// durable write is a stage of its own, with its own leader and
    /// queue, and a commit passes the stages in order; while one stage's
    /// leader syncs group N, the next group's sessions flush the stage
    /// before it (MariaDB's InnoDB prepare and binary-log group commits).
    /// False: one leader makes every durable write of a flush, one after
    /// the other.
    #[serde(default, skip_serializing_if = "is_false")]
    pub pipeline: bool,
    /// With `pipeline`: the later stages append buffered writes of the
    /// records' exact size to a file that starts empty and make them
    /// durable with fdatasync, as MariaDB's binary log does (`write` +
    /// `fdatasync` on a growing file, so every sync also commits the new
    /// size through the filesystem's journal); a full file is truncated
    /// to empty (the binary log rotates to a new file). False: the later
    /// stages write like the first (`method`, padded blocks, a prepared
    /// file).
    #[serde(default, skip_serializing_if = "is_false")]
    pub stage_append: bool,
    /// `txn_cpu_ns` and `client_cpu_ns` were measured with the commit
    /// path in them (a database backend's CPU holds its receives and
    /// sends, lock waits, wake-ups and, as a leader, its log writes and
    /// syncs; a client's its own system calls): each session burns
    /// `txn_cpu_ns` less the CPU the model's sessions spent per commit
    /// outside their burns so far, each client thread `client_cpu_ns`
    /// less the client threads' own per round trip, so that no part is
    /// spent twice. Leader protocol only. Results written before this
    /// name (`txn_cpu_includes_flush`, which took off the flushes' CPU
    /// only) read as this.
    #[serde(
        default,
        skip_serializing_if = "is_false",
        alias = "txn_cpu_includes_flush"
    )]
    pub cpu_includes_commit_path: bool,
    /// Seed of the redo size and payload generators.
    pub seed: u64,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

fn is_false(b: &bool) -> bool {
    !*b
}

fn one() -> u32 {
    1
}

fn is_one(n: &u32) -> bool {
    *n == 1
}

impl Default for LgwrConfig {
    /// The command line's defaults.
    fn default() -> Self {
        Self {
            protocol: Protocol::Writer,
            sessions: 10,
            commits_per_session: None,
            runtime_ns: Some(10_000_000_000),
            redo_size: RedoSize::Skewed,
            think_time_ns: 0,
            txn_cpu_ns: 0,
            client_cpu_ns: 0,
            log_buffer_bytes: 16 << 20,
            max_write_bytes: 1 << 20,
            bs: 512,
            method: Method::DirectDsync,
            null_delay_ns: None,
            files: 3,
            file_size: 64 << 20,
            members: 1,
            prepare: Prepare::Prewrite,
            async_depth: 1,
            commit_delay_ns: 0,
            commit_siblings: 5,
            writer_cpu: None,
            session_cpus: Vec::new(),
            writer_nice: None,
            writer_fifo: None,
            post_spin_ns: 0,
            syncs_per_flush: 1,
            pipeline: false,
            stage_append: false,
            cpu_includes_commit_path: false,
            seed: crate::DEFAULT_SEED,
        }
    }
}

impl LgwrConfig {
    /// Whether the run does real I/O (not the null engine).
    pub fn real_io(&self) -> bool {
        self.null_delay_ns.is_none()
    }

    /// The engine the writer uses: null (injected service time), io_uring
    /// (`uring-fdatasync`), libaio (`aio-fdatasync`) or psync.
    pub fn engine(&self) -> EngineKind {
        match (self.null_delay_ns, self.method) {
            (Some(_), _) => EngineKind::Null,
            (None, Method::UringFdatasync) => EngineKind::IoUring,
            (None, Method::AioFdatasync) => EngineKind::Libaio,
            (None, _) => EngineKind::Psync,
        }
    }
}

/// The parts of 'log file sync', each a distribution over commits.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct CommitBreakdown {
    /// From the redo being in the log buffer until the writer took it
    /// (the writer was busy with an earlier write, asleep, or in commit_delay).
    pub wait_for_writer: LatencySummary,
    /// From the writer taking the redo until its write and sync completed
    /// (copy, padding, write, sync).
    pub writer_io: LatencySummary,
    /// From the I/O completing until the writer's post to this session
    /// (posting sessions ahead of it).
    pub posting: LatencySummary,
    /// From the writer's post until the session ran again (wake-up and
    /// CPU scheduling: the gap between 20.8 ms of 'log file sync' and
    /// 0.1 ms of 'log file parallel write' in "Log File Sync wait event and
    /// SSD disks").
    pub wake_up: LatencySummary,
}

/// One session's line.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct SessionLine {
    /// Session number, from 1.
    pub id: u32,
    /// Commits completed.
    pub commits: u64,
    /// Shortest commit ('log file sync'), ns.
    pub min_ns: u64,
    /// Longest commit, ns.
    pub max_ns: u64,
    /// Mean commit, ns.
    pub mean_ns: f64,
    /// Commits per second of this session over the run.
    pub tps: f64,
}

/// The log writer's side of the run.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[schemars(rename = "LgwrWriterStats")]
pub struct WriterStats {
    /// Log writes ('redo writes'); a write to several members counts once.
    pub writes: u64,
    /// Writes per second.
    pub writes_per_sec: f64,
    /// 'log file parallel write': from issuing a write until it and its
    /// sync completed on every member.
    pub log_file_parallel_write: LatencySummary,
    /// Commits covered per write: the group commit factor (mean).
    pub commits_per_write: f64,
    /// Largest number of commits one write covered.
    pub max_commits_per_write: u64,
    /// How many writes covered 1, 2, 3, ... commits (index = commits).
    pub commits_per_write_counts: Vec<u64>,
    /// Redo size: bytes of records the sessions committed.
    pub redo_bytes: u64,
    /// Redo wastage: padding to the redo block size.
    pub wastage_bytes: u64,
    /// Bytes written per member (redo + wastage).
    pub written_bytes: u64,
    /// Redo write sizes (padded) on power-of-two byte buckets.
    pub write_sizes: Vec<SizeBucket>,
    /// Log switches.
    pub log_switches: u64,
    /// The first log switches (at most 64): where each happened.
    pub switches: Vec<LogSwitch>,
    /// Times the writer slept commit_delay before writing.
    pub commit_delays: u64,
    /// Time the idle writer spent watching the log buffer before it slept,
    /// ns (at most 100 µs each time the writer ran out of work; included
    /// in `cpu`).
    #[serde(default)]
    pub idle_watch_ns: u64,
    /// CPU of the writer thread.
    pub cpu: CpuUsage,
    /// CPUs the writer thread was allowed to run on after its placement,
    /// read back from the kernel (sched_getaffinity of the running thread).
    #[serde(default)]
    pub cpus: Vec<u32>,
    /// Leader protocol: CPU the leaders spent in flushes (every stage's
    /// write and sync system calls), per commit, ns (CLOCK_THREAD_CPUTIME_ID
    /// around each flush); None under the log writer.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub flush_cpu_per_commit_ns: Option<f64>,
    /// With `cpu_includes_commit_path`: the CPU the model's sessions
    /// spent per commit outside their burns (flushes included), ns, taken
    /// off `txn_cpu_ns`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session_path_cpu_per_commit_ns: Option<f64>,
    /// With `cpu_includes_commit_path` and client threads: the CPU the
    /// client threads spent per round trip outside their burns, ns, taken
    /// off `client_cpu_ns`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client_path_cpu_per_commit_ns: Option<f64>,
}

/// A bucket of the redo write size histogram.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct SizeBucket {
    /// Sizes at least this many bytes ...
    pub from_bytes: u64,
    /// ... and below this many.
    pub below_bytes: u64,
    /// Writes in the bucket.
    pub count: u64,
}

/// One log switch.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct LogSwitch {
    /// The log file that was full (index in the group, from 0).
    pub from_file: u32,
    /// Its write offset when the writer left it, bytes.
    pub at_offset: u64,
    /// The padded size of the write that did not fit, bytes.
    pub next_write_bytes: u64,
    /// The log file the writer went on with.
    pub to_file: u32,
}

/// Evidence from the process and the disk over the measured run.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct IoEvidence {
    /// Bytes this process caused to be read from storage (/proc/self/io
    /// `read_bytes`): reads of the log files forced by partial-block
    /// buffered rewrites show here (the 1 MB log-file reads of "Analyzing
    /// Oracle Logwriter w/ buffered vs. direct I/O").
    pub proc_read_bytes: u64,
    /// Bytes this process caused to be written to storage (/proc/self/io
    /// `write_bytes`).
    pub proc_write_bytes: u64,
    /// The log files' disk counters (whole disk, all processes).
    pub device: Option<DiskStatsDelta>,
    /// Device write requests per commit.
    pub device_writes_per_commit: Option<f64>,
    /// Device flush requests per commit.
    pub device_flushes_per_commit: Option<f64>,
    /// Device reads per commit.
    pub device_reads_per_commit: Option<f64>,
}

/// Read-back of committed records after the run.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct VerifyResult {
    /// Records read back at their recorded position and found intact (on
    /// every member).
    pub checked: u64,
    /// Records whose log file was reused later in the run (overwritten by
    /// design, as a database recycles its online logs).
    pub overwritten: u64,
    /// Records missing or different.
    pub bad: u64,
    /// The first bad record, in words.
    pub first_bad: Option<String>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_sizes_and_methods() {
        assert_eq!(RedoSize::parse("8k"), Ok(RedoSize::Fixed(8192)));
        assert_eq!(RedoSize::parse("fixed:512"), Ok(RedoSize::Fixed(512)));
        assert_eq!(
            RedoSize::parse("uniform:512-8k"),
            Ok(RedoSize::Uniform(512, 8192))
        );
        assert_eq!(RedoSize::parse("skewed"), Ok(RedoSize::Skewed));
        assert!(RedoSize::parse("8k-512").is_err());
        assert!(RedoSize::parse("uniform:8k").is_err());
        assert_eq!(Method::parse("direct"), Some(Method::DirectDsync));
        assert_eq!(Method::parse("buffered"), Some(Method::BufferedDsync));
        assert_eq!(Method::parse("buffered-fsync"), Some(Method::BufferedFsync));
        assert_eq!(Method::parse("nope"), None);
    }

    /// The echo writes the options as the command line takes them, and a
    /// saved configuration reads back equal.
    #[test]
    fn the_config_serialises_in_the_options_own_words() {
        let c = LgwrConfig {
            redo_size: RedoSize::Uniform(512, 8192),
            method: Method::UringFdatasync,
            prepare: Prepare::Fallocate,
            null_delay_ns: Some(1000),
            ..LgwrConfig::default()
        };
        let v = serde_json::to_value(&c).unwrap();
        assert_eq!(v["redo_size"], "uniform:512-8192");
        assert_eq!(v["method"], "uring-fdatasync");
        assert_eq!(v["prepare"], "fallocate");
        assert_eq!(v["runtime_ns"], 10_000_000_000u64);
        assert_eq!(serde_json::from_value::<LgwrConfig>(v).unwrap(), c);
        for m in Method::ALL {
            assert_eq!(serde_json::to_value(m).unwrap(), m.name());
            assert_eq!(Method::parse(&m.to_string()), Some(m));
        }
        for r in [RedoSize::Skewed, RedoSize::Fixed(700)] {
            let s = serde_json::to_string(&r).unwrap();
            assert_eq!(serde_json::from_str::<RedoSize>(&s).unwrap(), r);
        }
        let e = serde_json::from_str::<RedoSize>("\"8k-512\"").unwrap_err();
        assert!(e.to_string().contains("runs backwards"), "{e}");
    }

    /// A configuration saved under the option's first name reads back
    /// with the option on; it is written under the new name.
    #[test]
    fn the_option_saved_under_its_first_name_still_reads() {
        let mut v = serde_json::to_value(LgwrConfig::default()).unwrap();
        v["txn_cpu_includes_flush"] = true.into();
        let c: LgwrConfig = serde_json::from_value(v).unwrap();
        assert!(c.cpu_includes_commit_path);
        let v = serde_json::to_value(&c).unwrap();
        assert_eq!(v["cpu_includes_commit_path"], true);
        assert!(v.get("txn_cpu_includes_flush").is_none());
    }

    #[test]
    fn the_engine_follows_from_the_method_and_the_delay() {
        let c = LgwrConfig::default();
        assert_eq!(c.engine(), EngineKind::Psync);
        assert!(c.real_io());
        let u = LgwrConfig {
            method: Method::UringFdatasync,
            ..c.clone()
        };
        assert_eq!(u.engine(), EngineKind::IoUring);
        let a = LgwrConfig {
            method: Method::AioFdatasync,
            ..c.clone()
        };
        assert_eq!(a.engine(), EngineKind::Libaio);
        assert!(a.method.direct() && a.method.asynchronous());
        assert_eq!(Method::parse("libaio"), Some(Method::AioFdatasync));
        let n = LgwrConfig {
            null_delay_ns: Some(0),
            ..u
        };
        assert_eq!(n.engine(), EngineKind::Null);
        assert!(!n.real_io());
    }
}
