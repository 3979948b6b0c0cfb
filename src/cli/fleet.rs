//! `--start-at` and `--label`: what a run needs to be one part of a
//! measurement taken from many hosts at once (`dbio merge` combines the
//! parts). One group, flattened into every measuring command, so the
//! flags mean the same everywhere.

use clap::Args;

/// `--start-at TIME`, `--label NAME`.
#[derive(Debug, Clone, Default, Args)]
pub struct Fleet {
    /// Start measuring at this wall-clock time, shared by hosts started
    /// independently: RFC 3339 (`2026-11-24T12:00:00Z`,
    /// `2026-11-24T13:00:00.5+01:00`) or Unix seconds (`1795000000`). Refused
    /// when it is in the past or more than 24 h ahead (the message says
    /// how far this host's clock is). `bench` waits after preparing its
    /// target(s); the other commands wait before they begin.
    #[arg(long, value_name = "TIME", value_parser = parse_start_at)]
    pub start_at: Option<u64>,
    /// A name for this run, recorded in the result (`dbio merge` keeps each
    /// part under its label, or its host name).
    #[arg(long, value_name = "NAME")]
    pub label: Option<String>,
}

/// `--start-at`'s value into ns since the Unix epoch (only the form is
/// checked here; the distance from now when the command starts).
pub fn parse_start_at(s: &str) -> Result<u64, String> {
    crate::commands::fleet::parse_time(s)
}
