//! `dbio bench`'s own flags (fio's vocabulary); the shared groups are
//! flattened in.

use super::engine::{Direct, Engine, NullDelay, Queue};
use super::limits::{Ops, Rate, Runtime, Seed, Warmup};
use super::output::OutputArgs;
use super::target::{BlockDevice, Keep, Layout, Overwrite, Target};
use clap::{Args, ValueEnum};
use dbio_model::units::parse_size;
use dbio_model::{Durability, Pattern};

/// Options of `dbio bench`.
#[derive(Debug, Args)]
pub struct BenchArgs {
    /// Target and size.
    #[command(flatten)]
    pub target: Target,
    /// Striping over several targets.
    #[command(flatten)]
    pub stripe: super::stripe::Stripe,
    /// `--start-at`, `--label`.
    #[command(flatten)]
    pub fleet: super::fleet::Fleet,
    /// Access pattern.
    #[arg(long, value_enum, default_value = "randread")]
    pub rw: RwArg,
    /// Share of reads in percent for readwrite and randrw.
    #[arg(long, default_value_t = 50, value_name = "PCT")]
    pub read_pct: u8,
    /// Block size, 512 B .. 8 MiB; a comma list runs a sweep (e.g. 4k,8k,1m).
    #[arg(long, default_value = "8k", value_delimiter = ',', value_parser = parse_size)]
    pub bs: Vec<u64>,
    /// Engine and O_DIRECT.
    #[command(flatten)]
    pub engine: Engine,
    /// `--direct`.
    #[command(flatten)]
    pub direct: Direct,
    /// Queue depth and threads.
    #[command(flatten)]
    pub queue: Queue,
    /// I/Os queued before one io_uring submission (fio's iodepth_batch_submit;
    /// 1 submits each I/O as soon as it is ready).
    #[arg(long, default_value_t = 1)]
    pub iodepth_batch: u32,
    /// Durability of each write: none, dsync (O_DSYNC), sync (O_SYNC),
    /// fdatasync or fsync after each write (io_uring: a linked sync op).
    #[arg(long, value_enum, default_value = "none")]
    pub sync: SyncArg,
    /// How a new file is laid out.
    #[command(flatten)]
    pub prepare: Layout,
    /// Run time.
    #[command(flatten)]
    pub runtime: Runtime,
    /// Operation count.
    #[command(flatten)]
    pub ops: Ops,
    /// Warm-up.
    #[command(flatten)]
    pub warmup: Warmup,
    /// Rate limit.
    #[command(flatten)]
    pub rate: Rate,
    /// Seed.
    #[command(flatten)]
    pub seed: Seed,
    /// The null engine's delay.
    #[command(flatten)]
    pub null_delay: NullDelay,
    /// `--overwrite`.
    #[command(flatten)]
    pub overwrite: Overwrite,
    /// `--allow-block-device`.
    #[command(flatten)]
    pub block_device: BlockDevice,
    /// `--keep`.
    #[command(flatten)]
    pub keep: Keep,
    /// Outputs.
    #[command(flatten)]
    pub output: OutputArgs,
}

/// `--rw` values.
#[derive(Debug, Clone, Copy, ValueEnum)]
#[allow(missing_docs)]
pub enum RwArg {
    Read,
    Write,
    Randread,
    Randwrite,
    Readwrite,
    Randrw,
}

impl From<RwArg> for Pattern {
    fn from(a: RwArg) -> Self {
        match a {
            RwArg::Read => Pattern::Read,
            RwArg::Write => Pattern::Write,
            RwArg::Randread => Pattern::Randread,
            RwArg::Randwrite => Pattern::Randwrite,
            RwArg::Readwrite => Pattern::Readwrite,
            RwArg::Randrw => Pattern::Randrw,
        }
    }
}

/// `--sync` values.
#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum SyncArg {
    /// No durability: writes may stay in the page cache or device cache.
    None,
    /// Open with O_DSYNC: each write returns when its data is durable.
    Dsync,
    /// Open with O_SYNC: data and metadata.
    Sync,
    /// fdatasync after each write.
    Fdatasync,
    /// fsync after each write.
    Fsync,
}

impl From<SyncArg> for Durability {
    fn from(a: SyncArg) -> Self {
        match a {
            SyncArg::None => Durability::None,
            SyncArg::Dsync => Durability::Dsync,
            SyncArg::Sync => Durability::Sync,
            SyncArg::Fdatasync => Durability::Fdatasync,
            SyncArg::Fsync => Durability::Fsync,
        }
    }
}
