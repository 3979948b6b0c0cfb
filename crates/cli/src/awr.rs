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
write', single-block read tiers, DBWR batch size, log switches per hour) and what it means.

Several reports make a trend: one column per interval, ordered by begin snapshot time (DB time, \
the top foreground wait events' time and average, 'log file sync' against 'log file parallel \
write', the load profile per second). Reports of different databases or instances are refused \
unless --allow-mixed is given.

Numbers are read in the report's own locale: a report that prints a decimal comma (60,25) has \
its bare 1,234 read as 1.234, judged from the numbers only one locale prints. Snapshot times \
are read with the month names Oracle prints in English, German, French, Spanish, Italian, \
Portuguese and Dutch sessions (Mär, déc., dic, Okt; short or full, any case, with or without \
the dot) and the month numbers of Chinese, Japanese and Korean ones (8月)."
)]
#[command(mut_arg("page_cache_max", |a| a.help(
    "Single-block read waits faster than this are counted as OS page-cache hits (a unit is required, e.g. 100us)"
)))]
#[command(mut_arg("quiet", |a| a.help(
    "No progress output (awr draws none; accepted as in every command)"
)))]
pub struct AwrArgs {
    /// The report: a file, or `-` for standard input. Several reports
    /// make a trend across their intervals.
    #[arg(value_name = "REPORT")]
    pub inputs: Vec<String>,

    /// Line up reports of different databases or instances in one trend.
    #[arg(long)]
    pub allow_mixed: bool,

    /// Put this 10046 trace's wait events beside the report's foreground
    /// wait events (one report only; the trace covers its sessions, the
    /// report the whole instance).
    #[arg(long, value_name = "TRACE", conflicts_with = "compare")]
    pub with_trace: Option<String>,

    /// Compare two reports side by side, aligned by event and statistic.
    #[arg(long, num_args = 2, value_names = ["A", "B"], conflicts_with = "inputs")]
    pub compare: Option<Vec<String>>,

    /// Outputs.
    #[command(flatten)]
    pub output: OutputArgs,

    /// Tier thresholds for single-block reads.
    #[command(flatten)]
    pub tiers: Tiers,
}
