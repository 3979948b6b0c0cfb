//! How long a run lasts, how much it does, how fast, and which random
//! sequence it follows. A span (`--runtime`, `--warmup`) takes a bare number as
//! seconds, the documented default in every command; the bounds (finite,
//! at least 0, at most 30 days) are the units module's.

use super::{parse_delay_arg, parse_duration_arg};
use clap::Args;

/// `--runtime` (every measuring command; check and calibrate state their
/// own default).
#[derive(Debug, Clone, Args)]
pub struct Runtime {
    /// Measured run time (e.g. 10, 10s, 500ms, 2m; a bare number is seconds;
    /// at most 30 days). Default 10 s unless --ops is given.
    #[arg(long, value_parser = parse_duration_arg)]
    pub runtime: Option<f64>,
}

impl Runtime {
    /// The run time in seconds, `default` when not given.
    pub fn or(&self, default: f64) -> f64 {
        self.runtime.unwrap_or(default)
    }
}

/// `--rounds` (lgwr, load, read): configurations or cache states run in
/// interleaved rounds (A B A B ...). Each command states its default and
/// bound in its help (`mut_arg`); the value is checked where it is used.
#[derive(Debug, Clone, Args)]
pub struct Rounds {
    /// Interleaved rounds, 1..1000 (default: 1 for one state, 3 for several).
    #[arg(long)]
    pub rounds: Option<u32>,
}

impl Rounds {
    /// The rounds, `default` when not given.
    pub fn or(&self, default: u32) -> u32 {
        self.rounds.unwrap_or(default)
    }
}

/// `--ops` (bench, read, dbwr).
#[derive(Debug, Clone, Args)]
pub struct Ops {
    /// Stop after this many operations in total (split across threads).
    #[arg(long)]
    pub ops: Option<u64>,
}

/// `--rate` (bench, dbwr): fio's rate_iops.
#[derive(Debug, Clone, Args)]
pub struct Rate {
    /// Rate limit in IOPS over all threads; latency counts from each I/O's
    /// scheduled start, so stalls are not hidden (no coordinated omission).
    /// Default: full speed.
    #[arg(long, value_name = "IOPS")]
    pub rate: Option<u64>,
}

/// `--warmup` (bench).
#[derive(Debug, Clone, Args)]
pub struct Warmup {
    /// Warm-up before the measured interval, excluded from the statistics
    /// (a bare number is seconds).
    #[arg(long, default_value = "0", value_parser = parse_duration_arg)]
    pub warmup: f64,
}

/// `--sessions`, `--commits`, `--think-time` (lgwr, load): who commits,
/// how many times, and how far apart.
#[derive(Debug, Clone, Args)]
pub struct Sessions {
    /// Committing sessions, each on a thread of its own, 1..4096.
    #[arg(long, default_value_t = 10)]
    pub sessions: u32,
    /// Commits (transactions) per session, instead of a run time.
    #[arg(long)]
    pub commits: Option<u64>,
    /// Think time between a session's commits (e.g. 1ms; a unit is
    /// required; at most 100 s).
    #[arg(long, default_value = "0", value_parser = parse_delay_arg)]
    pub think_time: f64,
}

/// `--seed` (bench, lgwr, read, dbwr, matrix).
#[derive(Debug, Clone, Args)]
pub struct Seed {
    /// Seed of the random choices (same seed, same offsets and sizes).
    #[arg(long, default_value_t = dbio_model::DEFAULT_SEED)]
    pub seed: u64,
}
