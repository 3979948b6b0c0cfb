//! `dbio matrix`'s own flags: the two ladders, the search's latency
//! target and ORION's CSV layout. The time each point is measured for is
//! the shared `--runtime` (per point here), as in every command that runs
//! for a time.

use super::engine::{Engine, NullDelay};
use super::limits::{Runtime, Seed, Warmup};
use super::output::OutputArgs;
use super::parse_threshold_arg;
use super::target::{BlockDevice, Keep, Overwrite, Target};
use clap::{Args, ValueEnum};
use std::path::PathBuf;

/// Arguments of `dbio matrix`.
#[derive(Debug, Args)]
#[command(mut_arg("size", |a| a.help(
    "Size of the region the I/Os spread over (e.g. 1g). Default: 1 GiB"
)))]
#[command(mut_arg("engine", |a| a.default_value("libaio").help(
    "I/O engine of the small and the large I/Os (libaio is ORION's and Oracle's). Every engine but null opens the target with O_DIRECT, always, so matrix takes no --direct"
)))]
#[command(mut_arg("warmup", |a| a.default_value("0.2").help(
    "Warm-up before each point, excluded from its figures (a bare number is seconds)"
)))]
#[command(mut_arg("runtime", |a| a.help(
    "Measured time of each point of the matrix or the search (e.g. 2, 2s, 500ms; a bare number is seconds; at most an hour). Default 2 s"
)))]
pub struct MatrixArgs {
    /// Target and size.
    #[command(flatten)]
    pub target: Target,
    /// Striping over several targets (--size is the logical size; the
    /// stripe unit must be a multiple of the 1 MiB large I/O).
    #[command(flatten)]
    pub stripe: super::stripe::Stripe,
    /// Outstanding 8 KiB random I/Os at each point, a climbing comma list
    /// (e.g. 0,1,2,4,8; 0 = none). Default: 0, then powers of two up to the
    /// device's queue depth (/sys/block/*/queue/nr_requests, 8..256).
    #[arg(long, value_name = "LIST")]
    pub small: Option<String>,
    /// Outstanding 1 MiB I/Os at each point, a climbing comma list (e.g.
    /// 0,1,2; 0 = none). Default: 0, then powers of two up to twice the
    /// core count (at most a sixteenth of the queue depth).
    #[arg(long, value_name = "LIST")]
    pub large: Option<String>,
    /// The large I/Os: `seq` (each outstanding I/O a sequential stream:
    /// backups, scans) or `rand` (random 1 MiB reads).
    #[arg(long, value_enum, default_value = "seq")]
    pub large_pattern: LargePatternArg,
    /// Share of the small I/Os that are writes, percent (0: reads only).
    #[arg(long, default_value_t = 0, value_name = "PCT")]
    pub write_pct: u8,
    /// Search instead of the grid: the highest small-I/O load whose p99
    /// stays under this latency (e.g. 5ms, 500us; a unit is required),
    /// with max IOPS, max MB/s and the latency at one outstanding I/O, as
    /// DBMS_RESOURCE_MANAGER.CALIBRATE_IO reports them.
    #[arg(long, value_name = "TIME", value_parser = parse_threshold_arg)]
    pub max_latency: Option<u64>,
    /// Time per point.
    #[command(flatten)]
    pub runtime: Runtime,
    /// Warm-up before each point.
    #[command(flatten)]
    pub warmup: Warmup,
    /// The engine.
    #[command(flatten)]
    pub engine: Engine,
    /// Write the matrix also in ORION's layout: NAME_iops.csv, NAME_mbps.csv
    /// and NAME_lat.csv in this directory (rows: large I/Os, columns: small
    /// I/Os; latency in microseconds).
    #[arg(long, value_name = "DIR")]
    pub orion_csv: Option<PathBuf>,
    /// The name of the ORION files (default: dbio).
    #[arg(long, default_value = "dbio", value_name = "NAME")]
    pub orion_name: String,
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
    /// `--start-at`, `--label`.
    #[command(flatten)]
    pub fleet: super::fleet::Fleet,
}

/// `--large-pattern` values.
#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum LargePatternArg {
    /// Sequential streams, one per outstanding I/O.
    Seq,
    /// Random 1 MiB reads.
    Rand,
}
