//! `dbio dbwr`'s own flags.

use super::engine::{Direct, Engine, NullDelay};
use super::limits::{Ops, Rate, Runtime, Seed};
use super::output::OutputArgs;
use super::parse_duration_arg;
use super::target::{Keep, Overwrite, Target};
use clap::Args;
use dbio_model::dbwr::Placement;

/// Arguments of `dbio dbwr`.
#[derive(Debug, Args)]
#[command(mut_arg("target", |a| a.help(
    "Datafile: a file, or a directory where a temporary one is made and removed after. Default: a temporary file in the current directory"
)))]
#[command(mut_arg("size", |a| a.help("Datafile size (a multiple of 8 KiB). Default: 256 MiB")))]
#[command(mut_arg("engine", |a| a.default_value("io_uring").help(
    "Writers' I/O engine (foregrounds read with pread)"
)))]
#[command(mut_arg("direct", |a| a.help("Open the datafile with O_DIRECT")))]
#[command(mut_arg("runtime", |a| a.help(
    "Measured time of each configuration (e.g. 10, 10s, 500ms; a bare number is seconds; at most 30 days). Default 10 s unless --ops"
)))]
#[command(mut_arg("ops", |a| a.help(
    "Buffer operations in total per configuration, split across foregrounds"
)))]
#[command(mut_arg("rate", |a| a.value_name("OPS").help(
    "Foreground rate over all threads, buffer operations per second. Default: full speed"
)))]
#[command(mut_arg("seed", |a| a.help("Seed of the foregrounds' block choice")))]
#[command(mut_arg("overwrite", |a| a.help("Allow writing to an existing file dbio did not create")))]
#[command(mut_arg("keep", |a| a.help("Keep the temporary datafile after the run")))]
pub struct DbwrArgs {
    /// The datafile and its size.
    #[command(flatten)]
    pub target: Target,
    /// Striping the datafile over several files (--size is the logical
    /// size; writers' batches and checkpoints spread over the members).
    #[command(flatten)]
    pub stripe: super::stripe::Stripe,
    /// Buffers of 8 KiB in the cache (at most the datafile's blocks).
    #[arg(long, default_value_t = 8192)]
    pub buffers: u32,
    /// LRU lists the cache is split into (block b lives on list b mod L).
    #[arg(long, default_value_t = 16)]
    pub lists: u32,
    /// Writer threads, 1..4096; a comma list runs a sweep (e.g. 1,2,4,8).
    #[arg(long, default_value = "1", value_delimiter = ',')]
    pub writers: Vec<u32>,
    /// Foreground threads touching random blocks, 1..4096.
    #[arg(long, default_value_t = 4)]
    pub foregrounds: u32,
    /// Share of touches that change the block, percent.
    #[arg(long, default_value_t = 25.0, value_name = "PCT")]
    pub dirty: f64,
    /// Largest write batch, buffers.
    #[arg(long, default_value_t = 64)]
    pub batch: u32,
    /// How deep foregrounds (for a free buffer) and writers (for dirty
    /// ones) look from the cold end of a list, percent of the list.
    #[arg(long, default_value_t = 40, value_name = "PCT")]
    pub scan_depth: u32,
    /// The writers' engine and O_DIRECT.
    #[command(flatten)]
    pub engine: Engine,
    /// `--direct`.
    #[command(flatten)]
    pub direct: Direct,
    /// Run time.
    #[command(flatten)]
    pub runtime: Runtime,
    /// Operation count.
    #[command(flatten)]
    pub ops: Ops,
    /// Foreground rate limit.
    #[command(flatten)]
    pub rate: Rate,
    /// Force every dirty buffer out at this interval (e.g. 1s; a bare number
    /// is seconds).
    #[arg(long, value_parser = parse_duration_arg, value_name = "TIME")]
    pub checkpoint_interval: Option<f64>,
    /// Writer CPU placement: free, pin (writer i on the i-th allowed CPU),
    /// pin:CPUS, or set:CPUS (all writers confined, like taskset -c).
    #[arg(long, default_value = "free", value_parser = Placement::parse)]
    pub placement: Placement,
    /// Seed.
    #[command(flatten)]
    pub seed: Seed,
    /// The null engine's delay.
    #[command(flatten)]
    pub null_delay: NullDelay,
    /// `--overwrite`.
    #[command(flatten)]
    pub overwrite: Overwrite,
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
