//! The interface between the load loop and a database engine.
//!
//! The load loop (sessions, timing, histograms) is the same for every
//! engine; what differs is how to connect, how to insert and commit, how
//! to own a table safely, and which counters the server keeps about its
//! commit path. Those are the two traits here. Implementations never put
//! a password into an error or a setting they return: errors are shown
//! to the user and saved in results.

use crate::settings::{SavedSetting, Scope};
use std::fmt;

/// Which engine a target is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DbKind {
    /// Embedded SQLite in a scratch file (WAL mode, synchronous=FULL).
    Sqlite,
    /// A PostgreSQL server.
    Postgres,
    /// A MariaDB or MySQL server.
    Mysql,
}

impl fmt::Display for DbKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            DbKind::Sqlite => "sqlite",
            DbKind::Postgres => "postgresql",
            DbKind::Mysql => "mariadb",
        })
    }
}

/// How a session commits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CommitMode {
    /// Each insert is its own transaction (one round trip per commit);
    /// the timed span is the insert, commit included.
    Autocommit,
    /// `BEGIN`, the inserts, `COMMIT`; the commit latency is the
    /// `COMMIT` alone (the transaction's span is kept apart).
    Explicit,
}

/// The table dbio creates for a run, and how it recognises it as its own.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TableSpec {
    /// Table name; always starts with [`TableSpec::PREFIX`].
    pub name: String,
    /// Bytes of payload per row.
    pub row_bytes: u32,
    /// The mark stored with the table (a comment, or a row in a side
    /// table where the engine has no comments) that says dbio created it
    /// in this run; a table without it is never written or dropped.
    pub mark: String,
}

impl TableSpec {
    /// Every table dbio creates starts with this.
    pub const PREFIX: &'static str = "dbio_load_";
}

/// One cumulative server counter, read before and after a run; the
/// delta is what the run did. Names are the server's own
/// (`pg_stat_wal.wal_sync`, `Innodb_data_fsyncs`, ...).
#[derive(Debug, Clone, PartialEq)]
pub struct Counter {
    /// The server's name for it, qualified by its view where it has one.
    pub name: String,
    /// Its value.
    pub value: f64,
    /// Its unit as dbio writes units (`count`, `bytes`, `ms`, `ps`).
    pub unit: &'static str,
}

/// What dbio records about a server before a run: who it is and the
/// settings that decide how commits reach storage.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ServerInfo {
    /// Version as the server reports it (`15.18`, `10.11.19-MariaDB`).
    pub version: String,
    /// Numeric version for gates (PostgreSQL's `server_version_num`,
    /// MariaDB's major × 10000 + minor × 100 + patch).
    pub version_num: u32,
    /// Commit-path settings, name and value as the server shows them.
    pub settings: Vec<(String, String)>,
    /// What cannot be measured with these settings, one sentence each
    /// (e.g. "track_wal_io_timing is off: WAL write and sync times are
    /// not available").
    pub missing: Vec<String>,
}

/// One sample of what a committing backend was doing, in the server's
/// words (`LWLock:WALWrite`, `IO:WALSync`, `CPU`, ...).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WaitSample {
    /// `wait_event_type:wait_event`, or `CPU` when the backend was
    /// active with no wait event.
    pub state: String,
    /// The backend type (`client backend`, `walwriter`, ...).
    pub backend: String,
}

/// The server's log-flush path over a run, from its own counters: the
/// numbers behind "commits per flush" and the 'log file parallel write'
/// equivalent. `None` where the server does not count or time it (say
/// why in [`ServerInfo::missing`]).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct FlushPath {
    /// Log flushes (PostgreSQL `wal_sync`, or `wal_write` under
    /// `open_*sync`; InnoDB `Innodb_data_fsyncs`; SQLite WAL syncs).
    pub flushes: Option<u64>,
    /// Time in those flushes, ns (PostgreSQL with
    /// `track_wal_io_timing`; MariaDB's binlog sync timer; SQLite's shim).
    pub flush_time_ns: Option<u64>,
    /// Log bytes written (`wal_bytes`, `Innodb_os_log_written`).
    pub bytes: Option<u64>,
    /// Commits the server counted (`xact_commit` includes read-only
    /// transactions, so the load loop's own count is the one to divide by).
    pub server_commits: Option<u64>,
    /// Other named figures worth showing (binlog group commits, WAL
    /// records, full-page images, ...), as deltas with units.
    pub extra: Vec<Counter>,
}

/// Why a database operation failed, as one sentence without secrets.
#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    /// No connection could be made (server down, wrong password, ...).
    #[error("cannot connect to {target}: {message}")]
    Connect {
        /// The target without its password.
        target: String,
        /// The server's or the OS's reason.
        message: String,
    },
    /// The server refused or failed a statement.
    #[error("{0}")]
    Sql(String),
    /// The connection broke during the run.
    #[error("lost the connection to the server: {0}")]
    Lost(String),
    /// dbio will not touch this object (a table it did not create).
    #[error("{0}")]
    Refused(String),
    /// A local I/O error (SQLite's file, a scratch directory).
    #[error("{0}")]
    Io(String),
}

/// One database target: it makes sessions, owns the run's table and
/// reads the server's counters. Called from the main thread only, on a
/// connection of its own (never one of the sessions').
pub trait Database: Send + Sync {
    /// Which engine this is.
    fn kind(&self) -> DbKind;
    /// The target as shown in output: never with a password.
    fn display_target(&self) -> String;
    /// Version, commit-path settings and what they leave unmeasurable.
    fn describe(&mut self) -> Result<ServerInfo, LoadError>;
    /// Creates the table; refuses when a table of that name exists.
    fn create_table(&mut self, table: &TableSpec) -> Result<(), LoadError>;
    /// Drops the table if it carries `table.mark`; otherwise refuses
    /// and leaves it.
    fn drop_table(&mut self, table: &TableSpec) -> Result<(), LoadError>;
    /// A new connection for one session, ready to insert into `table`
    /// (statements prepared).
    fn connect(&self, table: &TableSpec) -> Result<Box<dyn Session>, LoadError>;
    /// The server's cumulative commit-path counters now.
    fn counters(&mut self) -> Result<Vec<Counter>, LoadError>;
    /// The flush path over a run, from counters read before and after it.
    fn flush_path(&self, before: &[Counter], after: &[Counter]) -> FlushPath;
    /// What each committing backend is doing now (empty where the
    /// engine offers no such view). Called every 10–20 ms during a run
    /// from a sampler thread with its own `Database` value.
    fn sample_waits(&mut self) -> Result<Vec<WaitSample>, LoadError>;
    /// A second value on a connection of its own for the wait sampler
    /// thread, or `None` where the engine offers no wait view (the
    /// load loop then starts no sampler). The default is `None`.
    fn waits_sampler(&self) -> Result<Option<Box<dyn Database>>, LoadError> {
        Ok(None)
    }
    /// Before a comparison changes setting `name` ([`crate::settings`]):
    /// checks that this user may set it to each of `values` (refused
    /// otherwise, before anything changed) and returns its value now
    /// with the statement that restores it. The default refuses.
    fn save_setting(
        &mut self,
        name: &str,
        _scope: Scope,
        _values: &[String],
    ) -> Result<SavedSetting, LoadError> {
        Err(LoadError::Refused(format!(
            "dbio cannot change {name} on {}",
            self.kind()
        )))
    }
    /// Sets `name` to `value` for the sessions connected from now on
    /// (session scope) or server-wide (server scope), returning once new
    /// sessions see it.
    fn change_setting(&mut self, name: &str, _value: &str, _scope: Scope) -> Result<(), LoadError> {
        Err(LoadError::Refused(format!(
            "dbio cannot change {name} on {}",
            self.kind()
        )))
    }
    /// Puts a saved setting back (after connecting again once when the
    /// monitoring connection was lost).
    fn restore_setting(&mut self, saved: &SavedSetting) -> Result<(), LoadError> {
        Err(LoadError::Refused(format!(
            "dbio cannot restore {} on {}",
            saved.name,
            self.kind()
        )))
    }
    /// Where the server keeps its log, for `--predict` and the device
    /// baseline (None where the
    /// engine has no server or the user may not read the settings). The
    /// default is `None`.
    fn log_location(&mut self) -> Option<crate::predict::LogLocation> {
        None
    }
}

/// One session's connection. Methods are called in a measurement loop:
/// they must not allocate per call beyond what the client library does.
pub trait Session: Send {
    /// One insert committed on its own (autocommit). `id` is unique over
    /// the run.
    fn insert_autocommit(&mut self, id: u64) -> Result<(), LoadError>;
    /// Starts a transaction.
    fn begin(&mut self) -> Result<(), LoadError>;
    /// One insert inside the open transaction.
    fn insert(&mut self, id: u64) -> Result<(), LoadError>;
    /// Commits the open transaction.
    fn commit(&mut self) -> Result<(), LoadError>;
    /// The server-side process id of this connection, where the engine
    /// has one (for wait sampling and CPU accounting).
    fn backend_pid(&self) -> Option<u32>;
}

/// Runs `op` on a backend's monitoring connection; when that connection
/// was lost, connects again once and runs `op` again, so that the run's
/// table is still dropped and its last counters read. A second loss is
/// the error.
pub fn once_more_if_lost<D: ?Sized, T>(
    db: &mut D,
    reconnect: impl FnOnce(&mut D) -> Result<(), LoadError>,
    mut op: impl FnMut(&mut D) -> Result<T, LoadError>,
) -> Result<T, LoadError> {
    match op(db) {
        Err(LoadError::Lost(_)) => {
            reconnect(db)?;
            op(db)
        }
        r => r,
    }
}

/// How much counter `name` grew between two readings (None when either
/// lacks it; never below zero, as after a server-side reset).
pub fn counter_delta(before: &[Counter], after: &[Counter], name: &str) -> Option<f64> {
    let a = after.iter().find(|c| c.name == name)?.value;
    let b = before.iter().find(|c| c.name == name)?.value;
    Some((a - b).max(0.0))
}
