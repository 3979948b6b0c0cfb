//! `dbio compare`'s own flags.

use super::output::OutputArgs;
use clap::Args;
use std::path::PathBuf;

/// Options of `dbio compare`.
#[derive(Debug, Args)]
pub struct CompareArgs {
    /// Two or more JSON results of one command, written by its `--json`
    /// (`-` reads one of them from standard input); ratios are against
    /// the first.
    #[arg(value_name = "RESULT.json", required = true)]
    pub files: Vec<PathBuf>,
    /// Outputs (the table goes to standard output unless JSON or CSV does).
    #[command(flatten)]
    pub output: OutputArgs,
}
