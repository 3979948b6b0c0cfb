//! `dbio snap`: an AWR for PostgreSQL and MariaDB.
//!
//! Oracle's AWR is two snapshots of cumulative counters, the difference
//! over the interval, DB time split by wait class and event, and a
//! verdict. A live PostgreSQL or MariaDB server keeps the same kind of
//! counters (`pg_stat_wal`, `pg_stat_io`, `pg_stat_database`,
//! performance_schema, `SHOW GLOBAL STATUS`) but no snapshot history and
//! no ASH: this crate reads them at both ends of an interval
//! ([`postgres`], [`mariadb`]), samples the active sessions in between
//! where the server has no DB time of its own ([`sampler`]), takes the
//! difference with resets, restarts and failovers detected ([`delta`]),
//! and writes the interval as a [`dbio_model::awr::AwrReport`] whose
//! top events speak Oracle's vocabulary ([`mapping`]), so the AWR
//! verdict, comparison and trend read it unchanged.
//!
//! Read-only: every statement goes through the monitoring connections of
//! `dbio_load` (`postgres::Monitor`, `mysql::Monitor`), which send only
//! `SELECT` and `SHOW`; no setting is ever changed. What the server does
//! not track with its present settings is named with the setting that
//! would enable it ([`dbio_model::snap::NotTracked`]).

pub mod delta;
pub mod layers;
pub mod mapping;
#[cfg(feature = "mysql")]
pub mod mariadb;
#[cfg(feature = "postgres")]
pub mod postgres;
pub mod report;
#[cfg(feature = "postgres")]
pub mod sampler;

use dbio_load::target::{ServerFamily, ServerSpec};
use dbio_load::LoadError;
use dbio_model::awr::AwrReport;
use std::time::Instant;

/// The `application_name` of dbio snap's monitoring connection.
pub const MONITOR_APP: &str = "dbio snap";
/// The `application_name` of its sampler's connection.
pub const SAMPLER_APP: &str = "dbio snap sampler";

/// Why a snapshot could not be taken, as one sentence without secrets.
#[derive(Debug, thiserror::Error)]
pub enum SnapError {
    /// No connection (an unreachable server, a wrong password).
    #[error("{0}")]
    Connect(String),
    /// The role may not read what a snapshot needs, or the target is not
    /// a server.
    #[error("{0}")]
    Refused(String),
    /// The second snapshot is of another server than the first (a
    /// failover): the interval is refused.
    #[error("{0}")]
    Failover(String),
    /// A statistics query failed, or the connection was lost and could
    /// not be made again.
    #[error("{0}")]
    Failed(String),
}

impl From<LoadError> for SnapError {
    fn from(e: LoadError) -> Self {
        match e {
            LoadError::Connect { .. } => SnapError::Connect(e.to_string()),
            LoadError::Refused(m) => SnapError::Refused(m),
            other => SnapError::Failed(other.to_string()),
        }
    }
}

/// How a snapshot interval is taken.
#[derive(Debug, Clone, PartialEq)]
pub struct SnapOptions {
    /// The interval asked for, s.
    pub interval_s: f64,
    /// The active-session sampler's period, s (ASH samples once a
    /// second).
    pub sample_period_s: f64,
}

impl Default for SnapOptions {
    fn default() -> Self {
        SnapOptions {
            interval_s: 60.0,
            sample_period_s: 1.0,
        }
    }
}

/// One row of a group of counters: its key (empty for a server-wide
/// group), an optional label (a statement's text) and its values, one
/// per column of the group (`None` where the server shows NULL).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Row {
    /// The key columns' values (`client backend`, `relation`, `normal`).
    pub key: Vec<String>,
    /// Text shown with the row, not compared (a statement's text).
    pub label: Option<String>,
    /// The counters.
    pub values: Vec<Option<f64>>,
    /// When this row's statistics were last reset, as the server shows
    /// it (`stats_reset`; MariaDB's status: the time of the last `FLUSH
    /// STATUS`): a change between the snapshots is a reset.
    pub reset: Option<String>,
}

/// A group of cumulative counters read in one statement (`pg_stat_wal`,
/// `pg_stat_io`, `global status`).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Group {
    /// The view or source (`pg_stat_wal`).
    pub name: String,
    /// The key columns' names (none for a one-row view).
    pub keys: Vec<String>,
    /// The counter columns' names with their units (`count`, `bytes`,
    /// `ms`, `ps`).
    pub cols: Vec<(String, &'static str)>,
    /// The rows.
    pub rows: Vec<Row>,
}

impl Group {
    /// The value of column `col` in the row with no key (a one-row view).
    pub fn scalar(&self, col: &str) -> Option<f64> {
        let i = self.cols.iter().position(|(c, _)| c == col)?;
        self.rows.first()?.values.get(i).copied().flatten()
    }

    /// Column `col` summed over every row.
    pub fn sum(&self, col: &str) -> Option<f64> {
        let i = self.cols.iter().position(|(c, _)| c == col)?;
        let vals: Vec<f64> = self
            .rows
            .iter()
            .filter_map(|r| r.values.get(i).copied().flatten())
            .collect();
        (!vals.is_empty()).then(|| vals.iter().sum())
    }

    /// Column `col` summed over the rows whose key satisfies `keep`.
    pub fn sum_where(&self, col: &str, keep: impl Fn(&[String]) -> bool) -> Option<f64> {
        let i = self.cols.iter().position(|(c, _)| c == col)?;
        let vals: Vec<f64> = self
            .rows
            .iter()
            .filter(|r| keep(&r.key))
            .filter_map(|r| r.values.get(i).copied().flatten())
            .collect();
        (!vals.is_empty()).then(|| vals.iter().sum())
    }
}

/// One snapshot of a server's cumulative statistics.
#[derive(Debug, Clone, PartialEq)]
pub struct Snapshot {
    /// When it was taken, on this host's monotonic clock.
    pub at: Instant,
    /// The server's clock then, as AWR prints snapshot times
    /// (`04-Feb-23 19:00:39`, the server's time zone).
    pub wall: String,
    /// Which server this is: PostgreSQL's `system_identifier`, MariaDB's
    /// `server_uuid` (or `server_id` and host where there is none).
    pub identity: Option<String>,
    /// When the server started (PostgreSQL `pg_postmaster_start_time()`,
    /// MariaDB now − `Uptime`, to the second).
    pub started: Option<String>,
    /// The counters.
    pub groups: Vec<Group>,
    /// Transactions dbio itself committed before the counters were read
    /// (its monitoring connection), to be subtracted from the server's
    /// commit count ([`report`]).
    pub own_commits: u64,
}

impl Snapshot {
    /// A group by name.
    pub fn group(&self, name: &str) -> Option<&Group> {
        self.groups.iter().find(|g| g.name == name)
    }
}

/// A live server that snapshots can be taken of.
pub trait Snapper: Send {
    /// Takes a snapshot now (connecting again once if the connection was
    /// lost, as after a restart).
    fn snapshot(&mut self) -> Result<Snapshot, SnapError>;
    /// Starts whatever runs during the interval (the active-session
    /// sampler), after `begin` was taken.
    fn start_interval(&mut self) -> Result<(), SnapError>;
    /// Stops what [`Snapper::start_interval`] started and takes the
    /// closing snapshot; then the interval from `begin` to it as an AWR
    /// result (`partial` names the signal that cut it short). A failover
    /// between the snapshots is [`SnapError::Failover`].
    fn finish_interval(
        &mut self,
        begin: &Snapshot,
        planned_s: f64,
        partial: Option<&str>,
    ) -> Result<(Snapshot, AwrReport), SnapError>;
    /// The server's processes on this host and its log files' names, for
    /// `--watch` ([`layers`]): one sentence when the server does not run
    /// on this host.
    fn server_process(&mut self) -> Result<layers::ServerProcess, SnapError>;
}

/// Opens `url` (a PostgreSQL or MariaDB target, as `dbio load` takes
/// them) for snapshots. Checks the version and the privileges before
/// anything is measured: an unreachable server, a wrong password or a
/// role that may not read the statistics views is one sentence.
pub fn open(url: &str, opts: &SnapOptions) -> Result<Box<dyn Snapper>, SnapError> {
    let Some(spec) = ServerSpec::parse(url) else {
        return Err(SnapError::Refused(format!(
            "'{}' is not a database server target: expected postgres://..., postgresql://..., \
             a libpq keyword string (host=... dbname=...), mysql://... or mariadb://...",
            dbio_load::target::redact(url)
        )));
    };
    match spec.family() {
        ServerFamily::Postgres => open_postgres(&spec, opts),
        ServerFamily::Mysql => open_mariadb(&spec, opts),
    }
}

#[cfg(feature = "postgres")]
fn open_postgres(spec: &ServerSpec, opts: &SnapOptions) -> Result<Box<dyn Snapper>, SnapError> {
    Ok(Box::new(postgres::PgSnapper::open(spec, opts)?))
}

#[cfg(not(feature = "postgres"))]
fn open_postgres(spec: &ServerSpec, _: &SnapOptions) -> Result<Box<dyn Snapper>, SnapError> {
    Err(SnapError::Refused(format!(
        "cannot snap {spec}: this dbio was built without the PostgreSQL client (cargo feature `servers`: cargo build --release --features full)"
    )))
}

#[cfg(feature = "mysql")]
fn open_mariadb(spec: &ServerSpec, opts: &SnapOptions) -> Result<Box<dyn Snapper>, SnapError> {
    Ok(Box::new(mariadb::MariaSnapper::open(spec, opts)?))
}

#[cfg(not(feature = "mysql"))]
fn open_mariadb(spec: &ServerSpec, _: &SnapOptions) -> Result<Box<dyn Snapper>, SnapError> {
    Err(SnapError::Refused(format!(
        "cannot snap {spec}: this dbio was built without the MariaDB/MySQL client (cargo feature `servers`: cargo build --release --features full)"
    )))
}

/// A number from a server's text (`NULL` and what does not parse are
/// `None`).
#[cfg(any(feature = "postgres", feature = "mysql"))]
pub(crate) fn num(v: &Option<String>) -> Option<f64> {
    v.as_deref()?.trim().parse().ok()
}
