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
    /// Refuse parts whose measured intervals began further apart than this
    /// (e.g. 20ms, 1s; a unit is required): they did not run together.
    /// The default is twice --max-clock-error's default, the farthest two
    /// hosts within that bound can be apart.
    #[arg(long, value_name = "TIME", default_value = "20ms", value_parser = super::parse_threshold_arg)]
    pub max_skew: u64,
    /// Merge parts that began further apart than --max-skew anyway, with
    /// a warning (rates are over the span from the first start to the last
    /// end, so a late part dilutes them).
    #[arg(long)]
    pub allow_skew: bool,
    /// Outputs.
    #[command(flatten)]
    pub output: OutputArgs,
}
