//! `dbio report`'s own flags.

use super::output::OutputArgs;
use clap::Args;
use std::path::PathBuf;

/// Options of `dbio report`.
#[derive(Debug, Args)]
pub struct ReportArgs {
    /// A JSON result written by any command's `--json` (a measurement, a
    /// `tracefile` analysis or comparison, an AWR reading); `-` reads it
    /// from standard input.
    #[arg(long, value_name = "FILE")]
    pub from: PathBuf,
    /// Outputs (the table goes to standard output unless JSON, CSV or HTML
    /// does).
    #[command(flatten)]
    pub output: OutputArgs,
    /// For a `dbio check` result: every section's tables and every
    /// finding, as `dbio check --detail` prints them; for a `dbio watch`
    /// result: every file's row, as `dbio watch --all-files` prints them.
    #[arg(long)]
    pub detail: bool,
}
