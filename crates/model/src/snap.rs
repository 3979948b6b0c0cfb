//! What only a live snapshot interval has (`dbio snap`), beside the AWR
//! result model it is written in.
//!
//! `dbio snap URL` reads a running PostgreSQL or MariaDB server's
//! cumulative statistics twice and writes the difference as an
//! [`crate::awr::AwrReport`] (kinds [`crate::awr::ReportKind::PostgresSnap`]
//! and [`crate::awr::ReportKind::MariadbSnap`]), so that everything built
//! for AWR reports (the verdict, `dbio compare`, the trend, `report
//! --from`, HTML and CSV) reads a snapshot too. What an AWR report has no
//! place for is here, in [`SnapInfo`]: how DB time was sampled and what
//! the sampling cost the server, which statistics the server does not
//! keep with its present settings (and the setting that would make it
//! keep them), counters that went backwards inside the interval (a
//! statistics reset or a restart), and whether the interval was cut short.
//!
//! The three layers of a commit (`dbio snap --watch`: the database's own
//! flush time, the system calls the kernel saw on the log files, the
//! device time of their requests) will be a field of their own here when
//! that step is built; a snapshot written without them reads unchanged.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Which server a snapshot was taken of.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum SnapFamily {
    /// PostgreSQL.
    #[default]
    Postgres,
    /// MariaDB (or MySQL).
    Mariadb,
}

impl SnapFamily {
    /// The server's name as a DBA writes it.
    pub fn name(self) -> &'static str {
        match self {
            SnapFamily::Postgres => "PostgreSQL",
            SnapFamily::Mariadb => "MariaDB",
        }
    }
}

/// Where the active-session samples came from.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum SampleSource {
    /// dbio's own sampler read `pg_stat_activity` at a fixed period (as
    /// Oracle's ASH reads `v$session` once a second).
    #[default]
    PgStatActivity,
    /// The `pg_wait_sampling` extension's profile (its own collector,
    /// 10 ms by default), read at both ends of the interval.
    PgWaitSampling,
    /// No sampling: DB time is the statements' own timer
    /// (MariaDB's `events_statements_summary_global_by_event_name`).
    StatementTimers,
}

/// What the active-session sampler cost, measured while it ran.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct SamplerCost {
    /// Samples taken.
    pub samples: u64,
    /// The period asked for, s.
    pub period_s: f64,
    /// Mean time of one sample query as the client saw it (round trip
    /// included), µs.
    pub mean_query_us: f64,
    /// The slowest sample query, µs.
    pub max_query_us: f64,
    /// Samples that came later than one period after the previous one
    /// (the sampler fell behind: the server or this host was busy).
    pub late: u64,
    /// CPU time the server's process serving the sampler used over the
    /// interval (utime + stime of its backend or thread in /proc), s;
    /// absent when the server does not run on this host.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub server_cpu_s: Option<f64>,
}

/// A statistic the server does not keep with its present settings: what
/// is missing, and the setting that would make the server keep it (dbio
/// never changes it).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct NotTracked {
    /// The setting or instrument (`track_io_timing`,
    /// `performance_schema`, `wait/io/file/innodb/innodb_data_file`).
    pub setting: String,
    /// What is missing because of it, in a few words.
    pub missing: String,
    /// What would enable it (`ALTER SYSTEM SET track_io_timing = on;
    /// SELECT pg_reload_conf()`).
    pub enable: String,
}

/// Counters that went backwards between the snapshots.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct CounterReset {
    /// The group of counters (`pg_stat_wal`, `global status`).
    pub group: String,
    /// The server restarted (its start time changed), or the group's
    /// statistics were reset (its reset time changed, or counters
    /// went backwards with the same start time).
    pub restart: bool,
    /// One sentence: what happened and what the interval's figures for
    /// this group are (the value after the reset: a lower bound).
    pub text: String,
}

/// What only a snapshot interval has ([`crate::awr::AwrReport::snap`]).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct SnapInfo {
    /// The server.
    pub family: SnapFamily,
    /// The server's version as it reports it.
    pub server_version: String,
    /// The server's version as a number (PostgreSQL `server_version_num`,
    /// MariaDB major × 10000 + minor × 100 + patch).
    pub version_num: u32,
    /// The target as given, without its password.
    pub target: String,
    /// The interval asked for, s (`--interval`, or `--every`).
    pub planned_s: f64,
    /// This interval's place in a series (`--every`), from 1.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub series_index: Option<u32>,
    /// Where the active-session samples behind DB time came from.
    pub sample_source: SampleSource,
    /// The sampler's cost, when dbio sampled.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sampler: Option<SamplerCost>,
    /// Statistics the server does not keep with its present settings.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub not_tracked: Vec<NotTracked>,
    /// What this role may not see, one sentence each naming the grant
    /// that would show it.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub hidden: Vec<String>,
    /// Counters that went backwards inside the interval.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub resets: Vec<CounterReset>,
    /// Other things the reader should know (a version outside the tested
    /// range, an extension used instead of sampling), one sentence each.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
    /// The interval was cut short by this signal: its figures cover
    /// `elapsed_s`, not `planned_s`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub partial: Option<String>,
}
