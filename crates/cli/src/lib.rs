//! The command line: clap derive definitions only, every flag declared
//! once.
//!
//! Options that several commands take live in shared groups, flattened
//! into each command that accepts them: [`target`] (where the I/O goes,
//! `--size`, `--bs`, `--prepare`, and what dbio may touch), [`limits`]
//! (`--runtime`, `--ops`, `--rate`, `--warmup`, `--seed`, and lgwr's and
//! load's `--sessions`, `--commits`, `--think-time`), [`engine`] (how the
//! I/O is issued), [`tiers`] (cache-tier thresholds), [`fleet`]
//! (`--start-at`, `--label`) and [`output`] (`--json`, `--csv`, `--html`,
//! `--quiet`). The names are fio's where fio has one (`--bs`, `--iodepth`,
//! `--rw`, `--runtime`; `--rate` is its rate_iops), and one meaning has
//! one name in every command. Each command's own flags
//! are in the file named after it. A group states one help text and one
//! default; a command whose meaning or default differs says so with
//! `mut_arg` on its own struct, so the flag is still declared once and the
//! difference is visible where the command is.
//!
//! [`command`] is the one clap command built from these definitions: it
//! parses the command line (with the old names of [`renamed`] flags as
//! hidden aliases), prints `--help`, and writes the man page and the
//! shell completions (`dbio generate`; [`man`], [`completions`]).
//!
//! The definitions are a library, not part of the binary, so that they
//! are data any build step can use: packaging writes the man page and
//! the completions on the build host for a binary cross-built for
//! another architecture (which the host cannot run), and the binary
//! itself stays glue.
//!
//! Sizes and durations go through the one parser of each in
//! `dbio_model::units`: a bare size is bytes; a bare duration is seconds
//! for spans of a run (`--runtime 10`) and refused for latencies, delays
//! and thresholds (`--page-cache-max 100us`). Everything that depends on
//! several options together is checked by the commands (and
//! `dbio_engine::Job::resolve`) before any I/O.

pub mod awr;
pub mod bench;
pub mod calibrate;
pub mod check;
pub mod compare;
pub mod dbwr;
pub mod engine;
pub mod fleet;
pub mod generate;
pub mod lgwr;
pub mod limits;
pub mod load;
pub mod man;
pub mod matrix;
pub mod merge;
pub mod output;
pub mod read;
pub mod renamed;
pub mod report;
pub mod snap;
pub mod stripe;
pub mod target;
pub mod tiers;
pub mod tracefile;
pub mod watch;

pub use awr::AwrArgs;
pub use bench::BenchArgs;
pub use calibrate::CalibrateArgs;
pub use check::CheckArgs;
pub use compare::CompareArgs;
pub use dbwr::DbwrArgs;
pub use generate::GenerateArgs;
pub use lgwr::LgwrArgs;
pub use load::LoadArgs;
pub use matrix::MatrixArgs;
pub use merge::MergeArgs;
pub use output::OutputArgs;
pub use read::ReadArgs;
pub use report::ReportArgs;
pub use snap::SnapArgs;
pub use tracefile::TracefileArgs;
pub use watch::WatchArgs;

/// `dbio version`'s flags.
#[derive(Debug, clap::Args)]
pub struct VersionArgs {
    /// Print the build as JSON (the `build` record of every result).
    #[arg(long)]
    pub json: bool,
}

use clap::{CommandFactory, FromArgMatches, Parser, Subcommand};
use dbio_model::units::{self, parse_duration};

/// The command line's one definition: parsing, `--help`, the man page
/// and the completions all come from it.
pub fn command() -> clap::Command {
    renamed::with_old_names(Cli::command())
}

/// The completions of `shell` for `dbio`, from [`command`].
pub fn completions(shell: clap_complete::Shell) -> Vec<u8> {
    let mut out = Vec::new();
    clap_complete::generate(shell, &mut command(), "dbio", &mut out);
    out
}

/// Parses a command line (the program name first) with [`command`].
/// `long_version` is what `--version` prints after the name: the
/// binary's build (revision, target, features), which only the binary
/// knows.
pub fn parse(args: &[std::ffi::OsString], long_version: &'static str) -> Result<Cli, clap::Error> {
    let mut matches = command()
        .long_version(long_version)
        .try_get_matches_from(args)?;
    Cli::from_arg_matches_mut(&mut matches)
}

/// The database I/O lab: measure storage the way databases use it, and read
/// the evidence databases leave behind.
#[derive(Debug, Parser)]
#[command(name = "dbio", version, max_term_width = 100)]
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
    Lgwr(LgwrArgs),
    /// Datafile reads as a database does them ('db file sequential read',
    /// 'db file scattered read') with cache-tier attribution.
    Read(ReadArgs),
    /// Measure this machine's page-cache, storage-cache and device read
    /// latencies and derive the tier thresholds.
    Calibrate(CalibrateArgs),
    /// ORION-style load matrix: outstanding small random I/Os × outstanding
    /// large I/Os, or (--max-latency) CALIBRATE_IO's max IOPS at a latency.
    Matrix(MatrixArgs),
    /// Model database writers (DBWR) flushing a buffer cache to a datafile.
    Dbwr(DbwrArgs),
    /// Commit load on a real database engine (embedded SQLite by default):
    /// per-session commit latency and the engine's own flush counters.
    Load(LoadArgs),
    /// Re-render a JSON result of any command (trace analyses included) as
    /// a table, JSON, CSV or HTML without re-running.
    Report(ReportArgs),
    /// Put saved JSON results of one command side by side: ratios against
    /// the first, spreads, noise verdicts and the settings that differ.
    Compare(CompareArgs),
    /// Analyze Oracle 10046 extended SQL trace files.
    Tracefile(TracefileArgs),
    /// Read AWR and Statspack reports (text, HTML or pasted sections):
    /// derived figures and findings.
    Awr(AwrArgs),
    /// An AWR for PostgreSQL and MariaDB: two snapshots of a live server's
    /// statistics, DB time by wait class and event, and a verdict.
    Snap(SnapArgs),
    /// Watch a running process's I/O system calls in the kernel (BPF on
    /// tracepoints): counts, bytes and latency histograms per file.
    Watch(WatchArgs),
    /// Combine the JSON results of one job run on many hosts at once
    /// (`--start-at`) into one result: counts summed, histograms merged
    /// exactly, per-second series aligned, each host kept as a part.
    Merge(MergeArgs),
    /// Write the man page or shell completions, made from the same
    /// definitions as --help.
    Generate(GenerateArgs),
    /// What build this is: version, git revision, target, the glibc it
    /// needs, features, the BPF object's hash and the result schema (as
    /// `--version` prints; `--json` for the record every result keeps).
    Version(VersionArgs),
}

/// Spans of a run: `10`, `10s`, `500ms`, `250us`, `2m`, `1.5e3ms` into
/// seconds (a bare number is seconds). Refuses what is not a finite,
/// non-negative duration of at most 30 days: a huge value would overflow
/// the nanosecond clock and silently become no time at all.
pub fn parse_duration_arg(s: &str) -> Result<f64, String> {
    parse_duration(s, units::SPAN)
}

/// Injected delays, think times and spins, into seconds: a unit is
/// required (`1ms`, `100us`; a bare 0 is accepted), at most 100 s.
pub fn parse_delay_arg(s: &str) -> Result<f64, String> {
    parse_duration(s, units::DELAY)
}

/// Latency thresholds, into nanoseconds: a unit is required (`100us`,
/// `1ms`), at most 30 days.
pub fn parse_threshold_arg(s: &str) -> Result<u64, String> {
    parse_duration(s, units::THRESHOLD).map(units::seconds_to_ns)
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

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
        assert!(parse_delay_arg("1e20s")
            .unwrap_err()
            .contains("longer than 100 s"));
        assert!(parse_delay_arg("101s")
            .unwrap_err()
            .contains("longer than 100 s"));
        assert_eq!(parse_delay_arg("100s").unwrap(), 100.0);
        assert_eq!(parse_delay_arg("0").unwrap(), 0.0);
        assert!(parse_delay_arg("100").unwrap_err().contains("needs a unit"));
        assert_eq!(parse_threshold_arg("100us").unwrap(), 100_000);
        assert!(parse_threshold_arg("100")
            .unwrap_err()
            .contains("needs a unit"));
    }

    #[test]
    fn the_definitions_are_consistent() {
        use clap::CommandFactory;
        Cli::command().debug_assert();
    }

    /// Each command keeps its own defaults after flattening the shared
    /// groups (a group states one default; commands override theirs).
    #[test]
    fn shared_groups_keep_each_commands_defaults() {
        let parse = |args: &[&str]| Cli::try_parse_from(args).unwrap().command;
        match parse(&["dbio", "read"]) {
            Command::Read(a) => {
                // An existing file's own size, else 1 GiB (commands::read).
                assert_eq!(a.target.size.size, None);
                assert_eq!(a.bs.bs, 8192);
                assert_eq!(a.tiers.page_cache_max, 100_000);
                assert_eq!(a.tiers.storage_cache_max, 1_000_000);
            }
            c => panic!("{c:?}"),
        }
        match parse(&["dbio", "dbwr"]) {
            Command::Dbwr(a) => {
                assert_eq!(a.target.size_or_default(), 256 << 20);
                assert!(matches!(a.engine.engine, engine::EngineArg::IoUring));
            }
            c => panic!("{c:?}"),
        }
        match parse(&["dbio", "lgwr"]) {
            Command::Lgwr(a) => assert_eq!(a.bs.bs, 512),
            c => panic!("{c:?}"),
        }
        match parse(&["dbio", "calibrate"]) {
            Command::Calibrate(a) => assert_eq!(a.target.size.size, None),
            c => panic!("{c:?}"),
        }
        match parse(&["dbio", "bench"]) {
            Command::Bench(a) => {
                assert_eq!(a.target.size_or_default(), 256 << 20);
                assert!(matches!(a.engine.engine, engine::EngineArg::Psync));
            }
            c => panic!("{c:?}"),
        }
        // The same threshold means the same in both commands that take it.
        for cmd in ["read", "tracefile"] {
            let t = match parse(&["dbio", cmd, "--page-cache-max", "250us"]) {
                Command::Read(a) => a.tiers,
                Command::Tracefile(a) => a.tiers,
                c => panic!("{c:?}"),
            };
            assert_eq!(t.page_cache_max, 250_000, "{cmd}");
            assert!(Cli::try_parse_from(["dbio", cmd, "--page-cache-max", "100"]).is_err());
        }
    }
}
