//! Where a command does its I/O and what it may touch there: the target
//! path, its size, and the switches that let dbio write to something it
//! did not create (`--overwrite`) or to a block device
//! (`--allow-block-device`). They are one group because they are the
//! safety surface: each is declared once, with one help text, so what
//! `--help` promises cannot drift between commands.

use clap::{Args, ValueEnum};
use dbio_model::units::parse_size;
use dbio_model::Prepare;
use std::path::PathBuf;

/// A storage target and its size (bench, read, calibrate, dbwr, matrix).
#[derive(Debug, Clone, Args)]
pub struct Target {
    /// File, directory (a temporary file is made there and removed after) or
    /// block device. Default: a temporary file in the current directory.
    #[arg(id = "target", value_name = "TARGET", default_value = ".")]
    pub path: PathBuf,
    /// The target region's size.
    #[command(flatten)]
    pub size: Size,
}

impl Target {
    /// `--size` when given, else the 256 MiB that `bench` and `dbwr` use
    /// (`read` and `calibrate` default to an existing file's own size).
    pub fn size_or_default(&self) -> u64 {
        self.size.size.unwrap_or(256 << 20)
    }
}

/// `--size`: how much storage a command uses (a target's region, in
/// [`Target`]; check's scratch space for its whole battery).
#[derive(Debug, Clone, Args)]
pub struct Size {
    /// Size of the target region (e.g. 256m, 1g). Default: 256 MiB.
    #[arg(long, value_parser = parse_size)]
    pub size: Option<u64>,
}

/// A directory for scratch files (check, lgwr).
#[derive(Debug, Clone, Args)]
pub struct Dir {
    /// A directory on the storage to use (default: the current directory).
    #[arg(id = "dir", value_name = "DIR", default_value = ".")]
    pub path: PathBuf,
}

/// `--keep` (every command that makes a scratch file).
#[derive(Debug, Clone, Args)]
pub struct Keep {
    /// Keep the temporary file after the run.
    #[arg(long)]
    pub keep: bool,
}

/// `--overwrite` (commands that write to their target: bench, dbwr).
#[derive(Debug, Clone, Args)]
pub struct Overwrite {
    /// Allow writing to an existing file dbio did not create, or to a file
    /// named through a symbolic link, or to a block device whose first or
    /// last MiB is not all zero (one with a signature is refused even so).
    #[arg(long)]
    pub overwrite: bool,
}

/// `--allow-block-device` (bench, read).
#[derive(Debug, Clone, Args)]
pub struct BlockDevice {
    /// Allow a blank block device as the target. dbio opens it exclusively
    /// (O_EXCL) and refuses it when it is mounted (in any mount namespace),
    /// in use, or holds any signature util-linux's wipefs finds (filesystem,
    /// partition table, RAID, LVM, LUKS, swap, Oracle ASM, ...), also at the
    /// usual partition starts (blkid -p --offset); a job that writes is
    /// refused when its first or last MiB is not all zero, unless
    /// --overwrite. A path in /dev that does not exist is refused.
    #[arg(long)]
    pub allow_block_device: bool,
}

/// `--bs`: the database block (read, calibrate, tracefile; lgwr's redo
/// block), named as fio and `bench` name the size of one I/O (`--block-size`
/// until this release, still accepted: see `renamed`).
#[derive(Debug, Clone, Args)]
pub struct BlockSize {
    /// Database block size: the size of a single-block read.
    #[arg(long, default_value = "8k", value_parser = parse_size)]
    pub bs: u64,
}

/// `--prepare` (bench, lgwr).
#[derive(Debug, Clone, Args)]
pub struct Layout {
    /// How a new file is laid out before the run.
    #[arg(long, value_enum, default_value = "prewrite")]
    pub prepare: PrepareArg,
}

/// `--prepare` values: how a new file is laid out before the run.
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
