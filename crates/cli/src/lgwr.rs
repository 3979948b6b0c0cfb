//! `dbio lgwr`'s own flags.

use super::engine::NullDelay;
use super::limits::{Rounds, Runtime, Seed, Sessions};
use super::output::OutputArgs;
use super::parse_delay_arg;
use super::target::{BlockSize, Dir, Keep, Layout};
use clap::Args;
use dbio_model::lgwr::{Method, Protocol, RedoSize};
use dbio_model::units::parse_size;

/// `--protocol`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum ProtocolArg {
    /// A log-writer thread flushes for every session (Oracle).
    Writer,
    /// The first waiting session flushes for the group (PostgreSQL, InnoDB).
    Leader,
}

impl From<ProtocolArg> for Protocol {
    fn from(p: ProtocolArg) -> Self {
        match p {
            ProtocolArg::Writer => Protocol::Writer,
            ProtocolArg::Leader => Protocol::Leader,
        }
    }
}

/// `--method`'s values.
pub fn parse_method(s: &str) -> Result<Method, String> {
    Method::from_name(s)
}

/// Arguments of `dbio lgwr`.
#[derive(Debug, Args)]
#[command(mut_arg("dir", |a| a.help(
    "Directory for the log files (temporary files, removed after the run)"
)))]
#[command(mut_arg("runtime", |a| a.help(
    "Run time of each run (e.g. 10, 10s, 500ms; a bare number is seconds; at most 30 days). Default 10 s unless --commits is given"
)))]
#[command(mut_arg("bs", |a| a.default_value("512").help(
    "Redo block size: every write is padded to it (redo wastage)"
)))]
#[command(mut_arg("null_delay", |a| a.help(
    "No I/O, every write and every sync takes this long (e.g. 1ms; a unit is required; at most 100 s)"
)))]
#[command(mut_arg("rounds", |a| a.default_value("1").help(
    "Interleaved rounds of the configurations (A B A B ...), 1..1000"
)))]
#[command(mut_arg("seed", |a| a.help("Seed of the redo sizes and payloads")))]
#[command(mut_arg("prepare", |a| a.help("How the log files are laid out before the run")))]
#[command(mut_arg("keep", |a| a.help("Keep the log files after the run")))]
pub struct LgwrArgs {
    /// Directory for the log files.
    #[command(flatten)]
    pub dir: Dir,
    /// Sessions, commits and think time.
    #[command(flatten)]
    pub sessions: Sessions,
    /// Run time.
    #[command(flatten)]
    pub runtime: Runtime,
    /// Redo per commit: `skewed` (about 2.7 KB on average, the 2,734 B per
    /// transaction of "Analyzing Oracle Logwriter w/ buffered vs. direct I/O"),
    /// a fixed size (`8k`), or a uniform range (`512-8k`).
    #[arg(long, default_value = "skewed", value_parser = RedoSize::parse)]
    pub redo_size: RedoSize,
    /// CPU time each transaction spends before its commit (a database's
    /// parse, execute, redo generation and locking; e.g. 150us; a unit is
    /// required; at most 100 s). Spent on the session's own CPU clock, so
    /// sessions compete for CPUs as a database's do; 0: none.
    #[arg(long, default_value = "0", value_parser = parse_delay_arg)]
    pub txn_cpu: f64,
    /// CPU time a client thread of each session's own spends before each
    /// transaction (e.g. 50us; a unit is required; at most 1 s). With it
    /// every commit makes a round trip as a database client's does: the
    /// client works, wakes the session, and is woken when the commit
    /// returns; 0: no client thread.
    #[arg(long, default_value = "0", value_parser = parse_delay_arg)]
    pub client_cpu: f64,
    /// Log buffer size, at most 1 GiB; sessions wait for room ('log buffer space').
    #[arg(long, default_value = "16m", value_parser = parse_size)]
    pub log_buffer: u64,
    /// Largest log write (padding included).
    #[arg(long, default_value = "1m", value_parser = parse_size)]
    pub max_write: u64,
    /// Redo block size.
    #[command(flatten)]
    pub bs: BlockSize,
    /// Durability: direct-dsync (O_DIRECT+O_DSYNC), direct-fdatasync,
    /// buffered-fdatasync, buffered-dsync, buffered-fsync, uring-fdatasync
    /// (O_DIRECT write linked to fdatasync), aio-fdatasync (O_DIRECT write
    /// through the kernel's native AIO, io_submit, then an asynchronous
    /// fdatasync: Oracle's log writer with filesystemio_options=setall);
    /// `direct` (direct-dsync), `buffered` (buffered-dsync: Oracle's log
    /// writer on a filesystem without direct I/O), `uring`/`io_uring`
    /// (uring-fdatasync) and `aio`/`libaio` (aio-fdatasync) are aliases.
    #[arg(long, default_value = "direct-dsync", value_parser = parse_method)]
    pub method: Method,
    /// Who makes a group of commits durable: `writer` (a log-writer thread
    /// flushes for every session, as Oracle's LGWR) or `leader` (the first
    /// waiting session flushes for the group while the others queue behind
    /// it, as PostgreSQL's backends and InnoDB's group commit do; psync
    /// methods only).
    #[arg(long, value_enum, default_value = "writer")]
    pub protocol: ProtocolArg,
    /// No I/O at all: measure the model itself.
    #[arg(long)]
    pub null: bool,
    /// The null model's delay.
    #[command(flatten)]
    pub null_delay: NullDelay,
    /// Log files in the group (used round-robin, switching when full).
    #[arg(long, default_value_t = 3)]
    pub files: u32,
    /// Size of each log file.
    #[arg(long, default_value = "64m", value_parser = parse_size)]
    pub file_size: u64,
    /// Mirrored members per log file, written in parallel.
    #[arg(long, default_value_t = 1)]
    pub members: u32,
    /// How the log files are laid out.
    #[command(flatten)]
    pub prepare: Layout,
    /// Log writes in flight (needs --method uring-fdatasync or
    /// aio-fdatasync, or --null-delay,
    /// whose writes then finish out of order).
    #[arg(long, default_value_t = 1)]
    pub async_depth: u32,
    /// PostgreSQL's commit_delay: the writer sleeps this long before
    /// writing when enough other sessions are in a transaction (a unit is
    /// required; at most 100 s).
    #[arg(long, default_value = "0", value_parser = parse_delay_arg)]
    pub commit_delay: f64,
    /// PostgreSQL's commit_siblings.
    #[arg(long, default_value_t = 5)]
    pub commit_siblings: u32,
    /// Durable writes per flush, one after the other (1..4): 2 models
    /// MariaDB with log_bin and sync_binlog=1 (InnoDB's redo at prepare,
    /// then the binary log). Needs a synchronous --method (not uring).
    #[arg(long, default_value_t = 1)]
    pub syncs_per_flush: u32,
    /// With --protocol leader and --syncs-per-flush 2 or more: each
    /// durable write is a group commit of its own (its own leader and
    /// queue), and a commit passes them in order, so that while one
    /// leader syncs a group the next group flushes the stage before
    /// (MariaDB's InnoDB prepare and binary-log group commits overlap so).
    /// Each later stage writes a file of its own, --file-size, with
    /// --method.
    #[arg(long)]
    pub pipeline: bool,
    /// With --pipeline: the later stages append buffered writes of the
    /// records' exact size to a file that starts empty and sync them with
    /// fdatasync, as MariaDB's binary log does (each sync then also
    /// commits the file's new size through the filesystem's journal); a
    /// full file starts again empty. Without it they write like the
    /// first stage.
    #[arg(long)]
    pub stage_append: bool,
    /// --txn-cpu was measured with the flushes in it (a database
    /// backend's CPU includes the write and sync system calls it made as
    /// a leader): each session spends --txn-cpu less the CPU the model's
    /// own leaders spent in flushes per commit so far. --protocol leader
    /// only.
    #[arg(long)]
    pub cpu_includes_commit_path: bool,
    /// Pin the log writer to this CPU.
    #[arg(long)]
    pub writer_cpu: Option<u32>,
    /// Keep the sessions on these CPUs (comma list, e.g. 1 or 0,1).
    #[arg(long, value_delimiter = ',')]
    pub session_cpus: Vec<u32>,
    /// Nice value of the log writer thread (-20..19; negative needs root).
    #[arg(long, allow_hyphen_values = true)]
    pub writer_nice: Option<i32>,
    /// Run the log writer SCHED_FIFO at this priority (1..99; needs root).
    #[arg(long)]
    pub writer_fifo: Option<u32>,
    /// How long a waiting session watches for the writer's post before it
    /// sleeps (default 0: sleep at once, Oracle's post/wait; a few µs
    /// approximate adaptive polling; a unit is required; at most 100 s).
    #[arg(long, default_value = "0", value_parser = parse_delay_arg)]
    pub post_spin: f64,
    /// Read every committed record back after the run and compare it.
    #[arg(long)]
    pub verify: bool,
    /// Configurations to run side by side, comma-separated; each is `+`-joined
    /// overrides of the options above: a method name or `method=NAME`
    /// (--method, with the aliases direct, buffered, uring), `bs=4k`
    /// (also `block=` or `block-size=`: --bs), `protocol=leader`, `sessions=N`,
    /// `members=N`, `files=N`, `async=N` (--async-depth),
    /// `prepare=fallocate`, `dir=/other/path`, `redo=8k` (--redo-size),
    /// `delay=100us` (--commit-delay), `siblings=N` (--commit-siblings),
    /// `spin=5us` (--post-spin), `null-delay=1ms`.
    /// Example: `--compare direct,buffered` or `--compare bs=512,bs=4k`.
    #[arg(long, value_delimiter = ',')]
    pub compare: Vec<String>,
    /// Rounds.
    #[command(flatten)]
    pub rounds: Rounds,
    /// Seed.
    #[command(flatten)]
    pub seed: Seed,
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
