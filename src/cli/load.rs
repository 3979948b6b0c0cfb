//! `dbio load`'s own flags.

use super::limits::{Runtime, Warmup};
use super::output::OutputArgs;
use super::parse_delay_arg;
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
#[command(mut_arg("runtime", |a| a.conflicts_with("commits").help(
    "Measured run time (e.g. 10, 10s, 500ms, 2m; a bare number is seconds; at most 30 days). Default 10 s unless --commits is given"
)))]
#[command(mut_arg("keep", |a| a.help(
    "Keep the table after the run (and, for SQLite, the scratch database holding it)"
)))]
pub struct LoadArgs {
    /// The database: none for embedded SQLite in a scratch file (in --dir);
    /// a server URL (postgres://..., mysql://..., mariadb://...) where this
    /// build supports servers.
    #[arg(value_name = "URL")]
    pub url: Option<String>,
    /// Directory for SQLite's scratch database (default: the current directory).
    #[arg(long, value_name = "DIR", default_value = ".")]
    pub dir: PathBuf,
    /// Sessions: one connection and one thread each, 1..4096.
    #[arg(long, default_value_t = 10)]
    pub sessions: u32,
    /// Transactions per session (instead of a run time).
    #[arg(long)]
    pub commits: Option<u64>,
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
    /// Think time between a session's transactions (e.g. 1ms; a unit is
    /// required; at most 100 s).
    #[arg(long, default_value = "0", value_parser = parse_delay_arg)]
    pub think_time: f64,
    /// How sessions commit.
    #[arg(long, value_enum, default_value = "autocommit")]
    pub mode: ModeArg,
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
