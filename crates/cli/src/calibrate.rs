//! `dbio calibrate`'s own flags.

use super::limits::Runtime;
use super::output::OutputArgs;
use super::target::{BlockSize, Keep, Target};
use clap::Args;

/// calibrate's time per tier when `--runtime` is not given, seconds.
pub const DEFAULT_RUNTIME_S: f64 = 2.0;

/// Arguments of `dbio calibrate`.
#[derive(Debug, Args)]
#[command(mut_arg("target", |a| a.help(
    "A directory (a temporary file is made there and removed after) or an existing file to read (only read; a large datafile gives the truest device figure)"
)))]
#[command(mut_arg("size", |a| a.help(
    "Size of the region read. Device reads are first reads of distinct blocks, so a region larger than every cache below the OS (array, hypervisor host) keeps them off those caches. Default: an existing file's own size, else 1 GiB"
)))]
#[command(mut_arg("bs", |a| a.help("Bytes per read")))]
#[command(mut_arg("runtime", |a| a.help(
    "Time per tier at most (e.g. 2, 2s, 500ms; a bare number is seconds; at most 30 days). Default 2 s"
)))]
pub struct CalibrateArgs {
    /// The file or directory and the region's size.
    #[command(flatten)]
    pub target: Target,
    /// Bytes per read.
    #[command(flatten)]
    pub bs: BlockSize,
    /// Reads per tier at most, 1..1000000.
    #[arg(long, default_value_t = 2000)]
    pub samples: u64,
    /// Time per tier.
    #[command(flatten)]
    pub runtime: Runtime,
    /// Where to save the thresholds (JSON with top-level
    /// page_cache_max_ns and storage_cache_max_ns). Default:
    /// dbio-calibration.json in the current directory, which is never
    /// replaced unless named here.
    #[arg(long, value_name = "FILE")]
    pub save: Option<std::path::PathBuf>,
    /// Do not save a calibration file.
    #[arg(long, conflicts_with = "save")]
    pub no_save: bool,
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
