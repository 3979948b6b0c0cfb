//! `dbio awr`'s own flags.

use super::output::OutputArgs;
use super::tiers::Tiers;
use clap::Args;

/// Arguments of `dbio awr`.
#[derive(Debug, Args)]
#[command(
    about = "Read AWR and Statspack reports: derived figures and findings",
    long_about = "Read an AWR report (text or HTML, 10g to 23ai, single instance or RAC), a \
Statspack report (9i to 19c), or report sections pasted on standard input (also pastes whose \
whitespace was collapsed into one line): header, load profile, wait events, statistics and \
wait histograms (merged onto power-of-two µs buckets), then the arithmetic a DBA does by hand \
(redo write size and time, commits per redo write, 'log file sync' against 'log file parallel \
write', single-block read tiers, DBWR batch size, log switches per hour) and what it means."
)]
#[command(mut_arg("page_cache_max", |a| a.help(
    "Single-block read waits faster than this are counted as OS page-cache hits (a unit is required, e.g. 100us)"
)))]
#[command(mut_arg("quiet", |a| a.help(
    "No progress output (awr draws none; accepted as in every command)"
)))]
pub struct AwrArgs {
    /// The report: a file, or `-` for standard input.
    #[arg(value_name = "REPORT")]
    pub input: Option<String>,

    /// Compare two reports side by side, aligned by event and statistic.
    #[arg(long, num_args = 2, value_names = ["A", "B"], conflicts_with = "input")]
    pub compare: Option<Vec<String>>,

    /// Outputs.
    #[command(flatten)]
    pub output: OutputArgs,

    /// Tier thresholds for single-block reads.
    #[command(flatten)]
    pub tiers: Tiers,
}
