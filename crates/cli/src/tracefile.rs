//! `dbio tracefile`'s own flags.

use super::output::OutputArgs;
use super::parse_duration_arg;
use super::target::BlockSize;
use super::tiers::Tiers;
use clap::Args;

/// Time unit of the traces.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum UnitsArg {
    /// From the banner: centiseconds before 9i, microseconds otherwise.
    Auto,
    /// Microseconds (9i and later).
    Us,
    /// Centiseconds (8i and earlier).
    Cs,
}

/// Arguments of `dbio tracefile`.
#[derive(Debug, Args)]
#[command(
    about = "Analyze Oracle 10046 extended SQL trace files",
    long_about = "Analyze Oracle 10046 extended SQL trace files (levels 4, 8, 12; 8i to 23ai): \
response-time profile, wait events with percentiles, power-of-two latency histograms \
(parsetrc.pl's and AWR's buckets), I/O sizes, page-cache/storage-cache/device attribution, \
statements, objects, hot blocks, the slowest waits, sessions and a timeline."
)]
#[command(mut_arg("page_cache_max", |a| a.help(
    "Waits faster than this are counted as OS page-cache hits (a unit is required, e.g. 100us)"
)))]
#[command(mut_arg("storage_cache_max", |a| a.help(
    "Waits faster than this (and not page cache) are counted as storage cache hits; slower ones as device reads (a unit is required, e.g. 1ms)"
)))]
#[command(mut_arg("bs", |a| a.value_name("SIZE").help(
    "Database block size, for sizes shown in bytes"
)))]
#[command(mut_arg("quiet", |a| a.help(
    "No progress output (tracefile draws none today; accepted as in every command)"
)))]
pub struct TracefileArgs {
    /// Trace files, directories (their *.trc, *.trc.gz, *.trc.xz files) or
    /// glob patterns; `-` reads standard input. gzip and xz are recognised
    /// by content.
    #[arg(value_name = "TRACE")]
    pub inputs: Vec<String>,

    /// Compare two traces or groups side by side; A and B are each a file, a
    /// directory or a quoted glob.
    #[arg(long, num_args = 2, value_names = ["A", "B"], conflicts_with = "inputs")]
    pub compare: Option<Vec<String>>,

    /// Outputs.
    #[command(flatten)]
    pub output: OutputArgs,

    /// Time unit of c, e, ela and tim.
    #[arg(long, value_enum, default_value = "auto")]
    pub units: UnitsArg,

    /// Tier thresholds.
    #[command(flatten)]
    pub tiers: Tiers,

    /// Rows in the top-N tables (statements, objects, slowest waits,
    /// blocks), 1..100000.
    #[arg(long, value_name = "N", default_value_t = 20)]
    pub top: usize,

    /// Timeline interval, whole seconds, such as 1s, 10s or 1m (a bare
    /// number is seconds; default: by trace span).
    #[arg(long, value_name = "TIME", value_parser = parse_duration_arg)]
    pub interval: Option<f64>,

    /// Database block size.
    #[command(flatten)]
    pub bs: BlockSize,

    /// Skip the per-block hot-spot table (faster on very large traces; the
    /// per-file and per-object tables stay).
    #[arg(long)]
    pub no_hot_blocks: bool,

    /// Threads reading files in parallel (0: one per CPU; at most 1024).
    #[arg(long, short = 'j', value_name = "N", default_value_t = 0)]
    pub threads: usize,
}
