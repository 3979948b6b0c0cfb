//! How the I/O is issued: the engine, O_DIRECT, queue depth, threads, and
//! the null engine's injected service time. One `EngineArg` for every
//! command: a command that supports fewer engines refuses the others in
//! its own validation, with a sentence, rather than with a second enum.

use super::parse_delay_arg;
use clap::{Args, ValueEnum};
use dbio_model::EngineKind;

/// `--engine` values.
#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum EngineArg {
    /// pread/pwrite, one I/O at a time per thread.
    Psync,
    /// I/Os queued on a ring: one submit, completions reaped.
    #[value(name = "io_uring", alias = "uring")]
    IoUring,
    /// The kernel's native AIO (io_submit/io_getevents), as Oracle, ORION
    /// and InnoDB issue it; asynchronous only with O_DIRECT, which bench,
    /// read and dbwr ask for with --direct.
    Libaio,
    /// No I/O: measures dbio's own cost.
    Null,
}

impl From<EngineArg> for EngineKind {
    fn from(a: EngineArg) -> Self {
        match a {
            EngineArg::Psync => EngineKind::Psync,
            EngineArg::IoUring => EngineKind::IoUring,
            EngineArg::Libaio => EngineKind::Libaio,
            EngineArg::Null => EngineKind::Null,
        }
    }
}

/// `--engine` (bench, read, dbwr, matrix).
#[derive(Debug, Clone, Args)]
pub struct Engine {
    /// I/O engine.
    #[arg(long, value_enum, default_value = "psync")]
    pub engine: EngineArg,
}

/// `--direct` (bench, read, dbwr; matrix always opens with O_DIRECT).
#[derive(Debug, Clone, Args)]
pub struct Direct {
    /// Use O_DIRECT (bypass the page cache; buffers are 4 KiB aligned).
    #[arg(long)]
    pub direct: bool,
}

/// `--iodepth` and `--threads` (bench, read).
#[derive(Debug, Clone, Args)]
pub struct Queue {
    /// I/Os in flight per thread (io_uring and libaio), 1..1024.
    #[arg(long, default_value_t = 1)]
    pub iodepth: u32,
    /// Worker threads, each with its own engine and iodepth, 1..1024.
    #[arg(long, default_value_t = 1)]
    pub threads: u32,
}

/// `--null-delay` (bench, lgwr, dbwr).
#[derive(Debug, Clone, Args)]
pub struct NullDelay {
    /// Injected service time per I/O for the null engine (e.g. 1ms or
    /// 100us; a unit is required; at most 100 s).
    #[arg(long, value_parser = parse_delay_arg, value_name = "TIME")]
    pub null_delay: Option<f64>,
}

impl NullDelay {
    /// The delay in whole nanoseconds, if given.
    pub fn ns(&self) -> Option<u64> {
        self.null_delay.map(dbio_model::units::seconds_to_ns)
    }
}
