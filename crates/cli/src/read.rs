//! `dbio read`'s own flags.

use super::engine::{Direct, Engine, Queue};
use super::limits::{Ops, Rounds, Runtime, Seed};
use super::output::OutputArgs;
use super::target::{BlockDevice, BlockSize, Keep, Target};
use super::tiers::Tiers;
use clap::Args;

/// Arguments of `dbio read`.
#[derive(Debug, Args)]
#[command(mut_arg("target", |a| a.help(
    "The datafile: a file (only read, so any file will do), a directory (a temporary file is made there and removed after) or a block device"
)))]
#[command(mut_arg("size", |a| a.help(
    "Datafile size (e.g. 256m, 1g). Default: an existing file's own size, else 1 GiB"
)))]
#[command(mut_arg("threads", |a| a.help("Reader threads, 1..1024")))]
#[command(mut_arg("direct", |a| a.help("O_DIRECT reads (bypass the page cache)")))]
#[command(mut_arg("runtime", |a| a.help(
    "Measured time per cache state, all rounds together (e.g. 10, 10s, 500ms; a bare number is seconds; at most 30 days). Default 10 s unless --ops is given"
)))]
#[command(mut_arg("ops", |a| a.help("Reads per cache state and round (instead of a time)")))]
#[command(mut_arg("seed", |a| a.help("Seed of the offsets")))]
#[command(mut_arg("allow_block_device", |a| a.help(
    "Allow a blank block device as the target (only read, but opened exclusively and refused when it holds any signature or is in use, as for bench)"
)))]
pub struct ReadArgs {
    /// The datafile and its size.
    #[command(flatten)]
    pub target: Target,
    /// Striping over several datafiles (--size is the logical size; a
    /// multiblock read is cut at the end of its stripe unit).
    #[command(flatten)]
    pub stripe: super::stripe::Stripe,
    /// Database block size.
    #[command(flatten)]
    pub bs: BlockSize,
    /// Blocks per multiblock read ('db file scattered read'; Oracle's
    /// db_file_multiblock_read_count).
    #[arg(long, default_value_t = 16, value_name = "N")]
    pub multiblock_count: u32,
    /// Share of reads that are multiblock scan reads, percent; the rest are
    /// single-block random reads ('db file sequential read').
    #[arg(long, default_value_t = 10, value_name = "PCT")]
    pub multiblock_pct: u8,
    /// Distribution of single-block reads: uniform, zipf:THETA (e.g.
    /// zipf:1.2) or hot:DATA/ACCESS (e.g. hot:10/90: 10 % of the blocks get
    /// 90 % of the reads). Hot blocks are at the start of the file.
    #[arg(long, default_value = "uniform", value_name = "DIST")]
    pub distribution: String,
    /// Cache state(s) to measure in: cold, warm or a share such as 30% (that
    /// share of the file, from its start where the hot set lies, is read
    /// into the cache first and the rest dropped). A list (cold,warm) runs
    /// each in interleaved rounds and compares them side by side.
    #[arg(
        long,
        alias = "compare",
        default_value = "cold",
        value_delimiter = ',',
        value_name = "STATES"
    )]
    pub cached: Vec<String>,
    /// Engine and O_DIRECT.
    #[command(flatten)]
    pub engine: Engine,
    /// `--direct`.
    #[command(flatten)]
    pub direct: Direct,
    /// Queue depth and threads.
    #[command(flatten)]
    pub queue: Queue,
    /// Run time.
    #[command(flatten)]
    pub runtime: Runtime,
    /// Read count.
    #[command(flatten)]
    pub ops: Ops,
    /// Rounds.
    #[command(flatten)]
    pub rounds: Rounds,
    /// Seed.
    #[command(flatten)]
    pub seed: Seed,
    /// Tier thresholds.
    #[command(flatten)]
    pub tiers: Tiers,
    /// `--allow-block-device`.
    #[command(flatten)]
    pub block_device: BlockDevice,
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
