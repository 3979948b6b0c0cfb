//! Result types of `dbio load`: commit load on a real database engine.
//!
//! N sessions each commit small inserts; the client side is what the
//! sessions waited for (Oracle's 'log file sync' as a client sees it),
//! the server side is the engine's own log-flush counters over the same
//! interval (the 'log file parallel write' equivalent). [`LoadConfig`]
//! is both what the user asked for and what the result records, in
//! canonical units (ns, bytes).

use crate::LatencySummary;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// How a session commits.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum LoadMode {
    /// Each insert is its own transaction; the timed span is the insert,
    /// commit included (one round trip).
    #[default]
    Autocommit,
    /// `BEGIN`, the inserts, `COMMIT`; the commit latency is `COMMIT`
    /// alone, the transaction's span is kept apart.
    Explicit,
}

impl LoadMode {
    /// The name `--mode` takes.
    pub fn name(self) -> &'static str {
        match self {
            LoadMode::Autocommit => "autocommit",
            LoadMode::Explicit => "explicit",
        }
    }
}

/// A `dbio load` run as asked for and as it ran (the config is the echo).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct LoadConfig {
    /// The database: `sqlite:` and the scratch file, or a server URL
    /// without its password. Empty until the target is opened.
    pub target: String,
    /// `sqlite`, `postgresql` or `mariadb`.
    pub engine: String,
    /// Sessions (one connection and one thread each).
    pub sessions: u32,
    /// Commits per session, when count-based.
    pub commits_per_session: Option<u64>,
    /// Measured run time, ns, when time-based.
    pub runtime_ns: Option<u64>,
    /// Warm-up before the measured interval, ns (its commits are not in
    /// the statistics).
    pub warmup_ns: u64,
    /// Rows inserted per transaction.
    pub rows_per_commit: u32,
    /// Payload bytes per row.
    pub row_bytes: u32,
    /// Think time between a session's transactions, ns.
    pub think_time_ns: u64,
    /// Autocommit or explicit transactions.
    pub mode: LoadMode,
    /// Keep the table (and SQLite's scratch database) after the run.
    pub keep: bool,
}

impl Default for LoadConfig {
    fn default() -> Self {
        LoadConfig {
            target: String::new(),
            engine: "sqlite".into(),
            sessions: 10,
            commits_per_session: None,
            runtime_ns: Some(10_000_000_000),
            warmup_ns: 0,
            rows_per_commit: 1,
            row_bytes: 100,
            think_time_ns: 0,
            mode: LoadMode::Autocommit,
            keep: false,
        }
    }
}

/// One `dbio load` run's result.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct LoadResult {
    /// Row label (`load`, or `1 session` in `dbio check`).
    pub name: String,
    /// The run as asked for and as it ran.
    pub config: LoadConfig,
    /// The engine: version, commit-path settings, what cannot be measured.
    pub server: ServerEcho,
    /// The table dbio created for the run.
    pub table: String,
    /// Measured wall time, ns: from the end of the warm-up until the last
    /// session's last commit.
    pub runtime_ns: u64,
    /// Transactions committed in the measured interval.
    pub commits: u64,
    /// Rows those transactions inserted.
    pub rows: u64,
    /// Transactions committed during the warm-up (in the table, not in
    /// the statistics).
    pub warmup_commits: u64,
    /// Commits per second over all sessions (`commits` / `runtime_ns`).
    pub tps: f64,
    /// Commit latency as the client saw it: the insert with its commit
    /// (autocommit), or `COMMIT` alone (explicit).
    pub commit: LatencySummary,
    /// Explicit mode: from `BEGIN` until `COMMIT` returned.
    pub transaction: Option<LatencySummary>,
    /// CPU of the session threads over the measured run (getrusage per
    /// thread); `per_io_ns` is per commit. For embedded SQLite the engine
    /// runs in these threads, so this is the database's CPU too; for a
    /// server it is the client's alone.
    #[serde(default)]
    pub cpu: crate::CpuUsage,
    /// CPU of the server's backends serving the sessions over the
    /// measured run (`/proc/PID/stat`), when the server runs on this
    /// machine and names its backends; `per_io_ns` is per commit.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub server_cpu: Option<crate::CpuUsage>,
    /// One line per session.
    pub sessions: Vec<LoadSession>,
    /// Commits in each second of the measured run.
    pub series: Vec<LoadSecond>,
    /// The engine's log-flush path over the measured run.
    pub flush: LoadFlush,
    /// What the committing backends were doing, from the engine's own
    /// view, sampled every 25 ms (empty where the engine has none).
    pub waits: Vec<WaitShare>,
    /// Figures derived from the client and server sides together.
    pub derived: LoadDerived,
    /// The device baseline around this run (absent with `--no-baseline`,
    /// in `dbio check` and in a comparison's rounds).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub baseline: Option<crate::load_compare::LoadBaseline>,
    /// The comparison configuration and round this run was
    /// (`--compare`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub round: Option<crate::load_compare::LoadRound>,
    /// Per-second series (see [`crate::series`]); empty in results
    /// written before they were recorded.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub per_second: Vec<crate::series::Series>,
    /// The log-writer model's prediction for the same load on the same
    /// storage (`--predict`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub predict: Option<crate::load_predict::LoadPrediction>,
}

/// The engine as recorded before the run.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ServerEcho {
    /// Version as the engine reports it.
    pub version: String,
    /// Commit-path settings as the engine shows them.
    pub settings: Vec<Setting>,
    /// What cannot be measured with these settings, one sentence each.
    pub missing: Vec<String>,
}

/// One setting.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Setting {
    /// Its name (`synchronous`, `wal_sync_method`).
    pub name: String,
    /// Its value as the engine shows it.
    pub value: String,
}

/// One session's line (the per-thread lines of "Log File Sync wait event
/// and SSD disks").
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct LoadSession {
    /// Session number, from 1.
    pub id: u32,
    /// Transactions committed in the measured interval.
    pub commits: u64,
    /// Commits per second of this session over its measured time.
    pub tps: f64,
    /// Shortest commit, ns.
    pub min_ns: u64,
    /// Median commit, ns.
    pub p50_ns: u64,
    /// 99th percentile commit, ns.
    pub p99_ns: u64,
    /// Longest commit, ns.
    pub max_ns: u64,
    /// Mean commit, ns.
    pub mean_ns: f64,
}

/// One second of the measured run.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct LoadSecond {
    /// Seconds since the start of the measured run (end of the interval).
    pub t_s: f64,
    /// Commits in the interval.
    pub commits: u64,
    /// Commits per second in the interval.
    pub tps: f64,
}

/// The engine's log-flush path over the measured run, from its own
/// counters (deltas); `None` where the engine does not count or time it.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct LoadFlush {
    /// Log flushes (SQLite: syncs of the WAL file; PostgreSQL
    /// `wal_sync`; InnoDB `Innodb_data_fsyncs`).
    pub flushes: Option<u64>,
    /// Time in those flushes, ns.
    pub flush_time_ns: Option<u64>,
    /// Log bytes written.
    pub bytes: Option<u64>,
    /// Commits the engine counted (may include other sessions' work).
    pub server_commits: Option<u64>,
    /// Other named figures, as deltas with their units.
    pub extra: Vec<LoadCounter>,
}

/// A named counter delta.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct LoadCounter {
    /// The engine's name for it.
    pub name: String,
    /// The delta over the run.
    pub value: f64,
    /// `count`, `bytes`, `ns`, `ms`, `ps`.
    pub unit: String,
}

/// The share of samples in one state.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct WaitShare {
    /// `wait_event_type:wait_event`, or `CPU`.
    pub state: String,
    /// The backend type.
    pub backend: String,
    /// Samples in this state.
    pub samples: u64,
    /// Share of all samples of this backend type, percent.
    pub share_pct: f64,
}

/// Figures derived from both sides, in the database's words and in
/// Oracle's.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct LoadDerived {
    /// Commits per log flush: the group-commit factor.
    pub commits_per_flush: Option<f64>,
    /// Mean flush latency, ns: the 'log file parallel write' equivalent.
    pub flush_latency_ns: Option<f64>,
    /// Flush time over wall time: how busy the flush path was (1.0 =
    /// always flushing).
    pub flush_utilisation: Option<f64>,
    /// Mean client commit latency over mean flush latency: 'log file
    /// sync' over 'log file parallel write' (about 1 at one session,
    /// about 2 when commits queue behind a flush).
    pub sync_to_flush_ratio: Option<f64>,
    /// Consistency check: sessions / (mean transaction time + think
    /// time), commits per second; close to `tps` when the sessions spent
    /// their time committing.
    pub tps_from_latency: f64,
    /// Consistency check: commits per flush × flushes per second (with
    /// the engine's commit count where it has one).
    pub tps_from_flushes: Option<f64>,
}
