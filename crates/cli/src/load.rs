//! `dbio load`'s own flags.

use super::limits::{Rounds, Runtime, Sessions, Warmup};
use super::output::OutputArgs;
use super::target::Keep;
use clap::{Args, ValueEnum};
use dbio_model::load::LoadMode;
use dbio_model::units::parse_size;
use std::path::PathBuf;

/// `--mode` values.
#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum ModeArg {
    /// Each insert is its own transaction; the insert with its commit is timed.
    Autocommit,
    /// BEGIN, the inserts, COMMIT; COMMIT alone is the commit latency.
    Explicit,
}

impl From<ModeArg> for LoadMode {
    fn from(m: ModeArg) -> Self {
        match m {
            ModeArg::Autocommit => LoadMode::Autocommit,
            ModeArg::Explicit => LoadMode::Explicit,
        }
    }
}

/// Arguments of `dbio load`.
#[derive(Debug, Args)]
#[command(mut_arg("rounds", |a| a.default_value("3").requires("compare").help(
    "Rounds of the --compare configurations, interleaved (A B A B ...), 1..100"
)))]
#[command(mut_arg("runtime", |a| a.conflicts_with("commits").help(
    "Measured run time (e.g. 10, 10s, 500ms, 2m; a bare number is seconds; at most 30 days). Default 10 s unless --commits is given"
)))]
#[command(mut_arg("sessions", |a| a.help(
    "Sessions: one connection and one thread each, 1..4096"
)))]
#[command(mut_arg("keep", |a| a.help(
    "Keep the table after the run (and, for SQLite, the private directory with the scratch database holding it)"
)))]
pub struct LoadArgs {
    /// The database: none for embedded SQLite in a scratch file (in --dir);
    /// a server URL (postgres://..., mysql://..., mariadb://...) where this
    /// build supports servers.
    #[arg(value_name = "URL")]
    pub url: Option<String>,
    /// Directory for SQLite's scratch database (default: the current
    /// directory): dbio makes a private directory in it
    /// (`dbio-load-<pid>-<random>`, mode 0700) for the database and its
    /// -wal and -shm files.
    #[arg(long, value_name = "DIR", default_value = ".")]
    pub dir: PathBuf,
    /// Sessions, commits and think time.
    #[command(flatten)]
    pub sessions: Sessions,
    /// Run time.
    #[command(flatten)]
    pub runtime: Runtime,
    /// Warm-up.
    #[command(flatten)]
    pub warmup: Warmup,
    /// Rows inserted per transaction (above 1 needs --mode explicit).
    #[arg(long, default_value_t = 1)]
    pub rows_per_commit: u32,
    /// Payload bytes per row (e.g. 100, 1k), at most 1 MiB.
    #[arg(long, default_value = "100", value_parser = parse_size)]
    pub row_size: u64,
    /// How sessions commit.
    #[arg(long, value_enum, default_value = "autocommit")]
    pub mode: ModeArg,
    /// Compare values of a commit-path setting, SETTING=V1,V2[,..]
    /// (repeatable: every combination is a configuration, at most 16).
    /// PostgreSQL: synchronous_commit, commit_delay, commit_siblings (set
    /// for dbio's sessions only); wal_sync_method, wal_writer_delay,
    /// wal_writer_flush_after (server-wide: ALTER SYSTEM, needs a
    /// superuser). MariaDB: innodb_flush_log_at_trx_commit, sync_binlog,
    /// binlog_commit_wait_count, binlog_commit_wait_usec (server-wide: SET
    /// GLOBAL). SQLite: synchronous. Server-wide settings are restored at
    /// the end, also after an error, SIGINT or a lost connection.
    #[arg(long, value_name = "SETTING=V1,V2", value_parser = dbio_load::settings::parse_compare)]
    pub compare: Vec<dbio_load::settings::CompareArg>,
    /// Rounds.
    #[command(flatten)]
    pub rounds: Rounds,
    /// Skip the device baseline (4 KiB write + fdatasync at queue depth 1
    /// for about 1 s before and after the load, on the storage holding the
    /// database's log when it is on this machine, else in --dir).
    #[arg(long)]
    pub no_baseline: bool,
    /// After the run, run the log-writer model (dbio lgwr) on the same
    /// storage with the same sessions, the database's group-commit
    /// protocol and sync method, and the CPU per commit measured during
    /// the run, and show predicted against measured TPS and commits per
    /// flush. Not with --compare.
    #[arg(long, conflicts_with = "compare")]
    pub predict: bool,
    /// Where --predict writes its log files (default: the directory of
    /// the database's log when the server runs on this machine and dbio
    /// can write there, SQLite's --dir, else the current directory).
    #[arg(long, value_name = "DIR", requires = "predict")]
    pub predict_dir: Option<PathBuf>,
    /// `--keep`.
    #[command(flatten)]
    pub keep: Keep,
    /// Outputs.
    #[command(flatten)]
    pub output: OutputArgs,
    /// `--start-at`, `--label`.
    #[command(flatten)]
    pub fleet: super::fleet::Fleet,
}
