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
    /// Worker threads, each with its own engine and iodepth, 1..1024.
    #[arg(long, default_value_t = 1)]
    pub threads: u32,
    /// Size of the target region (e.g. 256m, 1g).
    #[arg(long, default_value = "256m", value_parser = parse_size_arg)]
    pub size: u64,
    /// How a new file is laid out before the run.
    #[arg(long, value_enum, default_value = "prewrite")]
    pub prepare: PrepareArg,
    /// Measured run time (e.g. 10, 10s, 500ms, 2m; at most 30 days). Default 10 s unless --ops is given.
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
    /// Injected service time per I/O for the null engine (e.g. 1ms; at most 100 s).
    #[arg(long, value_parser = parse_delay_arg, value_name = "TIME")]
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

/// The longest duration any option accepts: 30 days.
pub const MAX_DURATION_S: f64 = 30.0 * 86400.0;
/// The longest injected delay or think time: 100 s.
pub const MAX_DELAY_S: f64 = 100.0;

/// Parses `10`, `10s`, `500ms`, `250us`, `2m`, `1.5e3ms` into seconds.
/// Refuses what is not a finite, non-negative duration of at most 30 days:
/// a huge value would overflow the nanosecond clock and silently become
/// no time at all.
pub fn parse_duration_arg(s: &str) -> Result<f64, String> {
    parse_bounded(s, MAX_DURATION_S, "30 days")
}

/// [`parse_duration_arg`] for injected delays, think times and spins: at
/// most 100 s.
pub fn parse_delay_arg(s: &str) -> Result<f64, String> {
    parse_bounded(s, MAX_DELAY_S, "100 s")
}

fn parse_bounded(s: &str, max_s: f64, max_text: &str) -> Result<f64, String> {
    let t = s.trim();
    let b = t.as_bytes();
    // The number: digits, a point, a sign, and an exponent (1e3).
    let mut split = 0;
    while split < b.len() {
        let c = b[split];
        let exponent = (c == b'e' || c == b'E')
            && split > 0
            && b.get(split + 1)
                .is_some_and(|n| n.is_ascii_digit() || *n == b'-' || *n == b'+');
        let sign = (c == b'-' || c == b'+') && (split == 0 || matches!(b[split - 1], b'e' | b'E'));
        if !(c.is_ascii_digit() || c == b'.' || exponent || sign) {
            break;
        }
        split += 1;
    }
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
    let secs = v * mult;
    if v.is_sign_negative() && v != 0.0 {
        return Err(format!("'{s}' is negative; a duration must be 0 or more"));
    }
    if !secs.is_finite() || secs > max_s {
        return Err(format!(
            "'{s}' is longer than {max_text}, the most it may be"
        ));
    }
    Ok(secs)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_parse_and_overflows_are_refused() {
        assert_eq!(parse_duration_arg("10").unwrap(), 10.0);
        assert_eq!(parse_duration_arg("500ms").unwrap(), 0.5);
        assert_eq!(parse_duration_arg("2m").unwrap(), 120.0);
        assert_eq!(parse_duration_arg("1.5e3ms").unwrap(), 1.5);
        assert_eq!(parse_duration_arg("0").unwrap(), 0.0);
        assert!(parse_duration_arg("30d").unwrap_err().contains("unit"));
        for bad in ["99999999999999999999", "1e20", "721h", "inf", "1e400"] {
            let e = parse_duration_arg(bad).unwrap_err();
            assert!(
                e.contains("longer than 30 days") || e.contains("not a duration"),
                "{bad}: {e}"
            );
        }
        assert!(parse_duration_arg("-1").unwrap_err().contains("negative"));
        assert!(parse_duration_arg("-1ms").unwrap_err().contains("negative"));
        assert!(parse_duration_arg("nan")
            .unwrap_err()
            .contains("not a duration"));
        assert!(parse_delay_arg("1e20")
            .unwrap_err()
            .contains("longer than 100 s"));
        assert!(parse_delay_arg("101")
            .unwrap_err()
            .contains("longer than 100 s"));
        assert_eq!(parse_delay_arg("100").unwrap(), 100.0);
    }
}
