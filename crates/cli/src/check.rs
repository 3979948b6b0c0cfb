//! `dbio check`'s own flags.

use super::limits::Runtime;
use super::output::OutputArgs;
use super::target::{Dir, Size};
use clap::Args;

/// check's measured time per test when `--runtime` is not given, seconds.
pub const DEFAULT_RUNTIME_S: f64 = 3.0;

/// Options of `dbio check`.
#[derive(Debug, Args)]
#[command(mut_arg("dir", |a| a.help(
    "A directory on the storage to check (default: the current directory)"
)))]
#[command(mut_arg("size", |a| a.help(
    "Scratch space for the whole battery (e.g. 256m, 1g). Default: 512 MiB, or half the free space when that is less; every section scales its files to fit within it and says so"
)))]
#[command(mut_arg("runtime", |a| a.help(
    "Measured time of each test (e.g. 3, 3s, 500ms; a bare number is seconds; at most 30 days). Default 3 s"
)))]
pub struct CheckArgs {
    /// The directory.
    #[command(flatten)]
    pub dir: Dir,
    /// Time per test.
    #[command(flatten)]
    pub runtime: Runtime,
    /// Scratch space.
    #[command(flatten)]
    pub size: Size,
    /// Outputs.
    #[command(flatten)]
    pub output: OutputArgs,
    /// `--start-at`, `--label`.
    #[command(flatten)]
    pub fleet: super::fleet::Fleet,
    /// Print every section's tables, histograms and per-second series and
    /// every finding, not only the answer and the headline table (the
    /// JSON, CSV and HTML outputs always hold everything).
    #[arg(long)]
    pub detail: bool,
}
