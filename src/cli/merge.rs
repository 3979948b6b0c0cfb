//! `dbio merge`'s flags.

use super::output::OutputArgs;
use clap::Args;
use std::path::PathBuf;

/// Options of `dbio merge`.
#[derive(Debug, Args)]
pub struct MergeArgs {
    /// JSON results of the same command and jobs from several hosts
    /// (each written with `--json`), at least two.
    #[arg(value_name = "RESULT.json", required = true, num_args = 2..)]
    pub results: Vec<PathBuf>,
    /// Outputs.
    #[command(flatten)]
    pub output: OutputArgs,
}
