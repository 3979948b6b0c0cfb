//! The command line: clap derive definitions only. Parsing of values that
//! clap cannot check by itself (sizes, durations) lives in small value
//! parsers here; everything that depends on several options together is
//! checked by `dbio_engine::Job::resolve` before any I/O.

use clap::{Args, Parser, Subcommand, ValueEnum};
use dbio_model::{Durability, EngineKind, Pattern, Prepare};
use std::path::PathBuf;

/// The database I/O lab: measure storage the way databases use it, and read
/// the evidence databases leave behind.
#[derive(Debug, Parser)]
#[command(name = "dbio", version, about, max_term_width = 100)]
pub struct Cli {
    /// The subcommand.
    #[command(subcommand)]
    pub command: Command,
}

/// dbio's subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Is this storage good for a database? A ~30 s battery: commit latency,
    /// random-read latency, sequential throughput, in plain words.
    Check(CheckArgs),
    /// Run a raw I/O workload (fio's vocabulary: rw, bs, iodepth, direct, sync).
    Bench(BenchArgs),
    /// Model a database log writer with group commit on real storage
    /// ('log file sync' vs 'log file parallel write').
    Lgwr(crate::commands::lgwr::LgwrArgs),
    /// Datafile reads as a database does them ('db file sequential read',
    /// 'db file scattered read') with cache-tier attribution.
    Read(crate::commands::read::ReadArgs),
    /// Measure this machine's page-cache, storage-cache and device read
    /// latencies and derive the tier thresholds.
    Calibrate(crate::commands::calibrate::CalibrateArgs),
    /// Model database writers (DBWR) flushing a buffer cache to a datafile.
    Dbwr(crate::commands::dbwr::DbwrArgs),
    /// Re-render a JSON result as a table, JSON or CSV without re-running.
    Report(ReportArgs),
    /// Analyze Oracle 10046 extended SQL trace files.
    Tracefile(crate::commands::tracefile::TracefileArgs),
}

/// Where results go besides the terminal table.
#[derive(Debug, Clone, Args)]
pub struct OutputArgs {
    /// Write the result as JSON to FILE (`-` for standard output).
    #[arg(long, value_name = "FILE")]
    pub json: Option<String>,
    /// Write the result as CSV to FILE (`-` for standard output).
    #[arg(long, value_name = "FILE")]
    pub csv: Option<String>,
    /// No progress bar (it is also hidden when stderr is not a terminal).
    #[arg(long, short)]
    pub quiet: bool,
}

/// Options of `dbio bench`.
#[derive(Debug, Args)]
pub struct BenchArgs {
    /// File, directory (a temporary file is made there and removed after) or
    /// block device. Default: a temporary file in the current directory.
    #[arg(value_name = "TARGET", default_value = ".")]
    pub target: PathBuf,
    /// Access pattern.
    #[arg(long, value_enum, default_value = "randread")]
    pub rw: RwArg,
    /// Share of reads in percent for readwrite and randrw.
    #[arg(long, default_value_t = 50, value_name = "PCT")]
    pub read_pct: u8,
    /// Block size, 512 B .. 8 MiB; a comma list runs a sweep (e.g. 4k,8k,1m).
    #[arg(long, default_value = "8k", value_delimiter = ',', value_parser = parse_size_arg)]
    pub bs: Vec<u64>,
    /// I/O engine.
    #[arg(long, value_enum, default_value = "psync")]
    pub engine: EngineArg,
    /// I/Os in flight per thread (io_uring only), 1..1024.
    #[arg(long, default_value_t = 1)]
    pub iodepth: u32,
    /// I/Os queued before one io_uring submission (fio's iodepth_batch_submit;
    /// 1 submits each I/O as soon as it is ready).
    #[arg(long, default_value_t = 1)]
    pub iodepth_batch: u32,
    /// Use O_DIRECT (bypass the page cache; buffers are 4 KiB aligned).
    #[arg(long)]
    pub direct: bool,
    /// Durability of each write: none, dsync (O_DSYNC), sync (O_SYNC),
    /// fdatasync or fsync after each write (io_uring: a linked sync op).
    #[arg(long, value_enum, default_value = "none")]
    pub sync: SyncArg,
    /// Worker threads, each with its own engine and iodepth.
    #[arg(long, default_value_t = 1)]
    pub threads: u32,
    /// Size of the target region (e.g. 256m, 1g).
    #[arg(long, default_value = "256m", value_parser = parse_size_arg)]
    pub size: u64,
    /// How a new file is laid out before the run.
    #[arg(long, value_enum, default_value = "prewrite")]
    pub prepare: PrepareArg,
    /// Measured run time (e.g. 10, 10s, 500ms, 2m). Default 10 s unless --ops is given.
    #[arg(long, value_parser = parse_duration_arg)]
    pub runtime: Option<f64>,
    /// Stop after this many operations in total (split across threads).
    #[arg(long)]
    pub ops: Option<u64>,
    /// Warm-up before the measured interval, excluded from the statistics.
    #[arg(long, default_value = "0", value_parser = parse_duration_arg)]
    pub warmup: f64,
    /// Rate limit in IOPS over all threads; latency counts from each I/O's
    /// scheduled start, so stalls are not hidden (no coordinated omission).
    #[arg(long, value_name = "IOPS")]
    pub rate: Option<u64>,
    /// Seed of the random offsets (same seed, same offsets).
    #[arg(long, default_value_t = 0x5eed)]
    pub seed: u64,
    /// Injected service time per I/O for the null engine (e.g. 1ms).
    #[arg(long, value_parser = parse_duration_arg, value_name = "TIME")]
    pub null_delay: Option<f64>,
    /// Allow writing to an existing file dbio did not create, or to a file
    /// named through a symbolic link.
    #[arg(long)]
    pub overwrite: bool,
    /// Allow a blank block device as the target. dbio opens it exclusively
    /// (O_EXCL) and refuses it when it is mounted (in any mount namespace),
    /// in use, or holds any signature util-linux's wipefs finds (filesystem,
    /// partition table, RAID, LVM, LUKS, swap, Oracle ASM, ...).
    #[arg(long)]
    pub allow_block_device: bool,
    /// Keep the temporary file after the run.
    #[arg(long)]
    pub keep: bool,
    /// Outputs.
    #[command(flatten)]
    pub output: OutputArgs,
}

/// Options of `dbio check`.
#[derive(Debug, Args)]
pub struct CheckArgs {
    /// A directory on the storage to check (default: the current directory).
    #[arg(value_name = "DIR", default_value = ".")]
    pub dir: PathBuf,
    /// Measured time of each test (default 3 s).
    #[arg(long, default_value = "3", value_parser = parse_duration_arg)]
    pub runtime: f64,
    /// Scratch space for the whole battery (default: 512m, or half the free
    /// space when that is less); every section scales its files to fit
    /// within it and says so.
    #[arg(long, value_parser = parse_size_arg)]
    pub size: Option<u64>,
    /// Outputs.
    #[command(flatten)]
    pub output: OutputArgs,
}

/// Options of `dbio report`.
#[derive(Debug, Args)]
pub struct ReportArgs {
    /// A JSON result written by `--json`.
    #[arg(long, value_name = "FILE")]
    pub from: PathBuf,
    /// Outputs (the table goes to standard output unless JSON or CSV does).
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

/// `--engine` values.
#[derive(Debug, Clone, Copy, ValueEnum)]
#[allow(missing_docs)]
pub enum EngineArg {
    Psync,
    #[value(name = "io_uring", alias = "uring")]
    IoUring,
    Null,
}

impl From<EngineArg> for EngineKind {
    fn from(a: EngineArg) -> Self {
        match a {
            EngineArg::Psync => EngineKind::Psync,
            EngineArg::IoUring => EngineKind::IoUring,
            EngineArg::Null => EngineKind::Null,
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

/// `--prepare` values.
#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum PrepareArg {
    /// Write every block once and sync (a recycled log file, a datafile).
    Prewrite,
    /// fallocate: unwritten extents, converted (and journaled) on first write.
    Fallocate,
    /// ftruncate: a hole, allocated on first write.
    Sparse,
    /// An empty file that every write extends (sequential writes only).
    Append,
}

impl From<PrepareArg> for Prepare {
    fn from(a: PrepareArg) -> Self {
        match a {
            PrepareArg::Prewrite => Prepare::Prewrite,
            PrepareArg::Fallocate => Prepare::Fallocate,
            PrepareArg::Sparse => Prepare::Sparse,
            PrepareArg::Append => Prepare::Append,
        }
    }
}

fn parse_size_arg(s: &str) -> Result<u64, String> {
    dbio_model::units::parse_size(s)
}

/// Parses `10`, `10s`, `500ms`, `250us`, `2m` into seconds.
pub fn parse_duration_arg(s: &str) -> Result<f64, String> {
    let t = s.trim();
    let split = t
        .find(|c: char| !c.is_ascii_digit() && c != '.')
        .unwrap_or(t.len());
    let (num, unit) = t.split_at(split);
    let v: f64 = num
        .parse()
        .map_err(|_| format!("'{s}' is not a duration (examples: 10, 10s, 500ms, 2m)"))?;
    let mult = match unit {
        "" | "s" => 1.0,
        "ms" => 1e-3,
        "us" | "µs" => 1e-6,
        "ns" => 1e-9,
        "m" | "min" => 60.0,
        "h" => 3600.0,
        _ => {
            return Err(format!(
                "unknown time unit '{unit}' in '{s}' (use ns, us, ms, s, m or h)"
            ))
        }
    };
    Ok(v * mult)
}
