//! The model against reality (`dbio load --predict`): what the log-writer
//! model (`dbio lgwr`) predicts for the same load on the same storage,
//! next to what the database did.
//!
//! The model knows the storage (it writes and syncs real files in the
//! directory the database's log lives in), the group-commit protocol and
//! the CPU each transaction cost during the real run; it does not know
//! the client round trip, lock hand-offs inside the engine, or anything
//! else the database does on its commit path. The residual is the share
//! of the measured rate that those explain, so a large one is a finding
//! in itself, not a failure of the run.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// The prediction for one `dbio load` run, side by side with the
/// measurement.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct LoadPrediction {
    /// Directory the model's log files were written in.
    pub dir: String,
    /// Why that directory, in one sentence ("PostgreSQL's WAL directory",
    /// "--predict-dir", "the current directory: the server is not on
    /// this machine").
    pub dir_reason: String,
    /// The model's group-commit protocol (`leader` or `writer`).
    pub protocol: String,
    /// The model's durability method (`buffered-fdatasync`, ...).
    pub method: String,
    /// Durable writes per flush, one after the other (2 for MariaDB with
    /// `log_bin` and `sync_binlog=1`).
    pub syncs_per_flush: u32,
    /// Whether each durable write was a group commit of its own (the
    /// model's `--pipeline`: MariaDB's InnoDB prepare and binary log).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub pipeline: bool,
    /// Whether the later stages appended buffered writes as a binary log
    /// does (the model's `--stage-append`).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub stage_append: bool,
    /// CPU per commit the model's own leaders spent in flushes (write and
    /// sync system calls), ns: part of `model_session_path_cpu_ns` (in
    /// results written before that field, the whole deduction from
    /// `txn_cpu_ns`). None under a log writer.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model_flush_cpu_ns: Option<f64>,
    /// CPU per commit the model's sessions spent outside their burns
    /// (the round trip, the flush-lock queue, wake-ups, the flushes they
    /// led), ns: taken off `txn_cpu_ns` as the model ran, since the
    /// measured CPU already holds the database's own
    /// (`--cpu-includes-commit-path`). None in results written before.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model_session_path_cpu_ns: Option<f64>,
    /// CPU per round trip the model's client threads spent outside their
    /// burns, ns: taken off `model_client_cpu_ns` in the same way.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model_client_path_cpu_ns: Option<f64>,
    /// Sessions the model ran (SQLite: 1, because its write lock makes
    /// commits one at a time).
    pub model_sessions: u32,
    /// Redo bytes per commit the model wrote (the engine's own log bytes
    /// per commit where it counts them).
    pub redo_bytes: u64,
    /// Redo block size, bytes: every model write is padded to it.
    pub block_size: u64,
    /// CPU per commit the model's sessions spend (`--txn-cpu`), ns: the
    /// server backends' for a server (0 when not measured), the session
    /// threads' for SQLite.
    pub txn_cpu_ns: u64,
    /// CPU per commit the model's client threads spend (`--client-cpu`),
    /// ns: a server's client, whose every commit is a round trip (two
    /// wake-ups) to its backend; 0 for SQLite, which runs in the client.
    #[serde(default)]
    pub model_client_cpu_ns: u64,
    /// The client's CPU per commit during the run, ns (for SQLite the
    /// engine's too: it runs in the client's threads).
    pub client_cpu_ns: f64,
    /// The server's CPU per commit during the run, ns (its backends'
    /// `/proc/PID/stat` times); None when the server is not on this
    /// machine or its backends' ids are unknown.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub server_cpu_ns: Option<f64>,
    /// Commits per second the model reached.
    pub predicted_tps: f64,
    /// Commits per second the database reached.
    pub measured_tps: f64,
    /// (predicted − measured) / measured, percent: positive when the
    /// database is slower than its storage and CPU allow.
    pub tps_residual_pct: f64,
    /// Commits per flush in the model.
    pub predicted_commits_per_flush: f64,
    /// Commits per flush the database's own counters show.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub measured_commits_per_flush: Option<f64>,
    /// (predicted − measured) / measured commits per flush, percent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub commits_per_flush_residual_pct: Option<f64>,
    /// Mean commit latency in the model, ns, timed as the load timed
    /// its commits: in autocommit mode the insert with its commit as the
    /// model's client sees it (LgwrResult's `client_seen_mean_ns`), in
    /// explicit mode 'log file sync' (results written before this took
    /// 'log file sync' in both).
    pub predicted_commit_ns: f64,
    /// Mean flush latency in the model ('log file parallel write'), ns.
    pub predicted_flush_ns: f64,
    /// The residual the model's own uncertainty accounts for, percent;
    /// beyond it the difference is the database's (a finding says so).
    pub error_bound_pct: f64,
    /// The model's measured time, ns.
    pub model_runtime_ns: u64,
    /// Commits the model made.
    pub model_commits: u64,
    /// What the mapping from the database to the model assumed, one
    /// sentence each.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
    /// Why the model run stopped early, when it did.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}
