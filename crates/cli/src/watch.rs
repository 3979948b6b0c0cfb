//! `dbio watch`'s own flags: whom to watch and how.

use super::limits::Runtime;
use super::output::OutputArgs;
use clap::Args;

/// Options of `dbio watch`.
#[derive(Debug, Args)]
#[command(mut_arg("runtime", |a| a.value_name("DURATION").help(
    "Stop after this long (e.g. 30s, 1m; a bare number is seconds; at most 30 days). Default: when the watched processes have all exited, or at Ctrl-C, which prints the summary"
)))]
#[command(group = clap::ArgGroup::new("whom").required(true).multiple(false).args(["pid", "comm", "cgroup", "command", "device"]))]
pub struct WatchArgs {
    /// Watch these processes, all their threads (repeat or comma-separate).
    #[arg(long, value_name = "PID", value_delimiter = ',')]
    pub pid: Vec<u32>,
    /// With one --pid: watch only this thread of it.
    #[arg(long, value_name = "TID", requires = "pid")]
    pub tid: Option<u32>,
    /// Watch processes whose command name matches PATTERN (`*` matches
    /// any run of characters, e.g. `ora_lgwr_*`); processes that start
    /// later with a matching name are picked up.
    #[arg(long, value_name = "PATTERN")]
    pub comm: Option<String>,
    /// Watch every process in this cgroup v2 directory and in the cgroups
    /// below it (a systemd unit's `/sys/fs/cgroup/system.slice/NAME.service`,
    /// a container's), including processes that start or move in later;
    /// the kernel compares each caller's cgroup, so none is added late.
    #[arg(long, value_name = "PATH")]
    pub cgroup: Option<std::path::PathBuf>,
    /// Watch every block request on this block device (`/dev/vdb`, or
    /// `MAJOR:MINOR`), whoever issues it, per issuing process and request
    /// class, with device-time histograms; no system call is traced. A
    /// partition's requests are counted on its whole disk.
    #[arg(long, value_name = "DEVICE", conflicts_with_all = ["follow", "stream", "no_block"])]
    pub device: Option<String>,
    /// How long to watch.
    #[command(flatten)]
    pub runtime: Runtime,
    /// Print the per-file histograms on standard error every DURATION, as
    /// well as the summary at the end.
    #[arg(long, value_parser = super::parse_duration_arg, value_name = "DURATION")]
    pub interval: Option<f64>,
    /// Print every call as it completes (time, pid/tid, comm, call, file,
    /// offset, size, latency, result), besides the histograms.
    #[arg(long)]
    pub stream: bool,
    /// With --stream: only calls at least this slow (`1ms`), filtered in
    /// the kernel.
    #[arg(long, value_parser = super::parse_threshold_arg, value_name = "LATENCY", requires = "stream")]
    pub min_latency: Option<u64>,
    /// Watch the processes the watched ones have forked and fork (a
    /// database's backends forked by its postmaster): those running when
    /// the watch starts, and each new one from its first instruction (the
    /// kernel adds each child as it is forked).
    #[arg(long)]
    pub follow: bool,
    /// Do not trace the block layer (by default every block request is
    /// timed from issue to completion per device, and the requests on the
    /// devices holding the watched files are attributed to those files by
    /// their extents).
    #[arg(long)]
    pub no_block: bool,
    /// Report the tracer's own cost: the kernel's run-time statistics of
    /// its BPF programs (runs and time inside them, per traced call),
    /// turned on for the watch; they add two clock reads (about 20 to 40
    /// ns) to every run of every BPF program on the machine meanwhile.
    #[arg(long)]
    pub bpf_stats: bool,
    /// Print a row and a histogram for every file. By default pseudo-files
    /// (/proc, /sys, terminals, /dev/null, pipes, sockets), shared
    /// libraries and files under 1 % of the traced time are folded into
    /// one "other files (N)" row; the saved result keeps every row either
    /// way, and `dbio report --from` folds as the watch did.
    #[arg(long)]
    pub all_files: bool,
    /// Outputs (the table goes to standard output unless JSON or CSV does).
    #[command(flatten)]
    pub output: OutputArgs,
    /// `--start-at`, `--label`.
    #[command(flatten)]
    pub fleet: super::fleet::Fleet,
    /// Start this command and watch it from its first system call
    /// (`dbio watch -- COMMAND ARGS`); the watch ends when it exits.
    #[arg(last = true, value_name = "COMMAND")]
    pub command: Vec<String>,
}
