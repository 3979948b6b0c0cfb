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

use crate::{CpuUsage, DiskStatsDelta, LatencySummary};
use serde::{Deserialize, Serialize};

/// The result of one `dbio lgwr` configuration (merged over its rounds).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct LgwrResult {
    /// Name of the configuration.
    pub name: String,
    /// The configuration as it ran.
    pub config: LgwrEcho,
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
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
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
}

/// The configuration of a run, echoed into its result.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct LgwrEcho {
    /// Who flushes a group of commits (results written before the leader
    /// protocol existed were all `writer`).
    #[serde(default)]
    pub protocol: Protocol,
    /// Session threads.
    pub sessions: u32,
    /// Commits per session, when count-based.
    pub commits_per_session: Option<u64>,
    /// Time limit per round, seconds, when time-based.
    pub runtime_s: Option<f64>,
    /// Redo size per commit, as given (`skewed`, `fixed:8k`, `uniform:512-8k`).
    pub redo_size: String,
    /// Think time between a session's commits, ns.
    pub think_time_ns: u64,
    /// CPU time each transaction spent before its commit, ns (0: none).
    #[serde(default)]
    pub txn_cpu_ns: u64,
    /// Log buffer size, bytes.
    pub log_buffer_bytes: u64,
    /// Largest single log write, bytes.
    pub max_write_bytes: u64,
    /// Redo block size, bytes: every write is padded to it.
    pub block_size: u64,
    /// Durability method (`direct-dsync`, `buffered-fdatasync`, ...).
    pub method: String,
    /// `null` when no I/O was done (injected service time), else `psync`
    /// or `io_uring`.
    pub engine: String,
    /// Injected service time per write and per sync of the null engine, ns.
    pub null_delay_ns: u64,
    /// Log files in the group.
    pub files: u32,
    /// Size of each log file, bytes.
    pub file_size: u64,
    /// Mirrored members per log file.
    pub members: u32,
    /// How the log files were prepared (`prewrite`, `fallocate`, `append`, `sparse`).
    pub prepare: String,
    /// Log writes in flight (1: the writer waits for each write).
    pub async_depth: u32,
    /// PostgreSQL's commit_delay, ns (0: off).
    pub commit_delay_ns: u64,
    /// PostgreSQL's commit_siblings.
    pub commit_siblings: u32,
    /// CPU the writer was pinned to.
    pub writer_cpu: Option<u32>,
    /// CPUs the sessions were kept on (empty: anywhere).
    #[serde(default)]
    pub session_cpus: Vec<u32>,
    /// Nice value of the writer thread.
    pub writer_nice: Option<i32>,
    /// SCHED_FIFO priority of the writer thread.
    pub writer_fifo: Option<u32>,
    /// How long a session watched for its post before sleeping, ns.
    #[serde(default)]
    pub post_spin_ns: u64,
    /// Directory of the log files.
    pub target: String,
    /// Rounds the configuration ran (interleaved with others under --compare).
    pub rounds: u32,
}

/// The parts of 'log file sync', each a distribution over commits.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
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
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
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
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
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
}

/// A bucket of the redo write size histogram.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SizeBucket {
    /// Sizes at least this many bytes ...
    pub from_bytes: u64,
    /// ... and below this many.
    pub below_bytes: u64,
    /// Writes in the bucket.
    pub count: u64,
}

/// One log switch.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
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
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
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
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
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
