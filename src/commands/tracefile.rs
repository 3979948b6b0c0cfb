//! `dbio tracefile`: Oracle 10046 extended SQL trace analysis.
//!
//! Glue only: resolve the inputs and settings, run `dbio-oracle` over them
//! (one file per thread), and hand the [`TraceReport`] to the renderers in
//! `dbio-report`. Everything the user can get wrong (a missing file, a bad
//! threshold, an unreadable calibration file) ends in one sentence that
//! names the culprit, never in a panic.

use anyhow::{bail, Context};
use dbio_model::trace::{TraceComparison, TraceReport, TRACE_SCHEMA_VERSION};
use dbio_oracle::{analyze_sources, input, Options, Units};
use std::path::PathBuf;
use std::process::ExitCode;

/// Time unit of the traces.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum UnitsArg {
    /// From the banner: centiseconds before 9i, microseconds otherwise.
    Auto,
    /// Microseconds (9i and later).
    Us,
    /// Centiseconds (8i and earlier).
    Cs,
}

/// Arguments of `dbio tracefile`.
#[derive(Debug, clap::Args)]
#[command(
    about = "Analyze Oracle 10046 extended SQL trace files",
    long_about = "Analyze Oracle 10046 extended SQL trace files (levels 4, 8, 12; 8i to 23ai): \
response-time profile, wait events with percentiles, power-of-two latency histograms \
(parsetrc.pl's and AWR's buckets), I/O sizes, page-cache/storage-cache/device attribution, \
statements, objects, hot blocks, the slowest waits, sessions and a timeline."
)]
pub struct TracefileArgs {
    /// Trace files, directories (their *.trc, *.trc.gz, *.trc.xz files) or
    /// glob patterns; `-` reads standard input. gzip and xz are recognised
    /// by content.
    #[arg(value_name = "TRACE")]
    pub inputs: Vec<String>,

    /// Compare two traces or groups side by side; A and B are each a file, a
    /// directory or a quoted glob.
    #[arg(long, num_args = 2, value_names = ["A", "B"], conflicts_with = "inputs")]
    pub compare: Option<Vec<String>>,

    /// Write the result as JSON to FILE (`-`: standard output, no table).
    #[arg(long, value_name = "FILE|-")]
    pub json: Option<String>,

    /// Write the result as long-form CSV to FILE (`-`: standard output).
    #[arg(long, value_name = "FILE|-")]
    pub csv: Option<String>,

    /// Time unit of c, e, ela and tim.
    #[arg(long, value_enum, default_value = "auto")]
    pub units: UnitsArg,

    /// Waits faster than this are counted as OS page-cache hits.
    #[arg(long, value_name = "TIME", default_value = "100us")]
    pub page_cache_max: String,

    /// Waits faster than this (and not page cache) are counted as storage
    /// cache hits; slower ones as device reads.
    #[arg(long, value_name = "TIME", default_value = "1ms")]
    pub storage_cache_max: String,

    /// Tier thresholds from a JSON file: {"page_cache_max_ns": N,
    /// "storage_cache_max_ns": M} (what `dbio calibrate` will write).
    #[arg(long, value_name = "FILE", conflicts_with_all = ["page_cache_max", "storage_cache_max"])]
    pub calibration: Option<PathBuf>,

    /// Rows in the top-N tables (statements, objects, slowest waits,
    /// blocks), 1..100000.
    #[arg(long, value_name = "N", default_value_t = 20)]
    pub top: usize,

    /// Timeline interval such as 1s, 10s or 1m (default: by trace span).
    #[arg(long, value_name = "TIME")]
    pub interval: Option<String>,

    /// Database block size, for sizes shown in bytes.
    #[arg(long, value_name = "SIZE", default_value = "8k")]
    pub block_size: String,

    /// Skip the per-block hot-spot table (faster on very large traces; the
    /// per-file and per-object tables stay).
    #[arg(long)]
    pub no_hot_blocks: bool,

    /// Threads reading files in parallel (0: one per CPU; at most 1024).
    #[arg(long, short = 'j', value_name = "N", default_value_t = 0)]
    pub threads: usize,
}

/// The most rows a top-N table may ask for.
const MAX_TOP: usize = 100_000;
/// The most reader threads.
const MAX_THREADS: usize = 1024;

/// Parses `250ns`, `100us`, `100µs`, `1ms`, `2s` (a bare number is µs).
fn parse_time_ns(s: &str) -> anyhow::Result<u64> {
    let t = s.trim();
    let split = t
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(t.len());
    let (num, unit) = t.split_at(split);
    let mult = match unit.trim() {
        "ns" => 1.0,
        "" | "us" | "µs" => 1e3,
        "ms" => 1e6,
        "s" => 1e9,
        "m" | "min" => 60e9,
        other => bail!("unknown time unit '{other}' in '{s}' (use ns, us, ms, s or m)"),
    };
    let v: f64 = num
        .parse()
        .map_err(|_| anyhow::anyhow!("'{s}' is not a time (examples: 100us, 1ms, 1s)"))?;
    let ns = v * mult;
    if !(0.0..1.8e19).contains(&ns) {
        bail!("'{s}' is out of range");
    }
    Ok(ns as u64)
}

/// Reads `{"page_cache_max_ns": N, "storage_cache_max_ns": M}` (what
/// `dbio calibrate --save` writes), with the same rules as `dbio read`.
fn read_calibration(path: &std::path::Path) -> anyhow::Result<(u64, u64)> {
    let t = super::calibrate::load_thresholds(path)?;
    Ok((t.page_cache_max_ns, t.storage_cache_max_ns))
}

fn options(a: &TracefileArgs) -> anyhow::Result<Options> {
    if a.top == 0 || a.top > MAX_TOP {
        anyhow::bail!("--top must be between 1 and {MAX_TOP}");
    }
    if a.threads > MAX_THREADS {
        anyhow::bail!("--threads must be between 0 (one per CPU) and {MAX_THREADS}");
    }
    let (page, storage, from) = match &a.calibration {
        Some(p) => {
            let (x, y) = read_calibration(p)?;
            (x, y, p.display().to_string())
        }
        None => {
            let x = parse_time_ns(&a.page_cache_max).context("--page-cache-max")?;
            let y = parse_time_ns(&a.storage_cache_max).context("--storage-cache-max")?;
            let from = if a.page_cache_max == "100us" && a.storage_cache_max == "1ms" {
                "default"
            } else {
                "option"
            };
            (x, y, from.to_string())
        }
    };
    if page > storage {
        bail!("the page-cache threshold ({page} ns) is above the storage-cache threshold ({storage} ns)");
    }
    let interval_s = match &a.interval {
        Some(s) => {
            let ns = parse_time_ns(s).context("--interval")?;
            if ns < 1_000_000_000 || ns % 1_000_000_000 != 0 {
                bail!("--interval must be a whole number of seconds, at least 1s (got '{s}')");
            }
            Some(ns / 1_000_000_000)
        }
        None => None,
    };
    let block_size = dbio_model::units::parse_size(&a.block_size)
        .map_err(|e| anyhow::anyhow!("--block-size: {e}"))?;
    if block_size == 0 {
        bail!("--block-size must be above zero");
    }
    Ok(Options {
        units: match a.units {
            UnitsArg::Auto => Units::Auto,
            UnitsArg::Us => Units::Microseconds,
            UnitsArg::Cs => Units::Centiseconds,
        },
        page_cache_max_ns: page,
        storage_cache_max_ns: storage,
        thresholds_from: from,
        top: a.top,
        interval_s,
        block_size,
        hot_blocks: !a.no_hot_blocks,
    })
}

fn analyze(
    opts: &Options,
    inputs: &[String],
    threads: usize,
    label: &str,
) -> anyhow::Result<TraceReport> {
    let sources = input::expand(inputs)?;
    let mut r = analyze_sources(opts, &sources, threads, label)?;
    r.findings = dbio_report::findings::evaluate_trace(&r);
    Ok(r)
}

fn json(v: Result<String, serde_json::Error>) -> anyhow::Result<String> {
    let mut s = v.context("cannot serialise the result")?;
    s.push('\n');
    Ok(s)
}

/// Runs `dbio tracefile`.
pub fn run(args: TracefileArgs) -> anyhow::Result<ExitCode> {
    let opts = options(&args)?;
    let threads = if args.threads == 0 {
        std::thread::available_parallelism().map_or(1, |n| n.get())
    } else {
        args.threads
    };
    // Output files are opened and checked before the traces are read.
    let outputs = crate::output::Outputs::open(args.json.as_deref(), args.csv.as_deref())?;
    let (table, json_text, csv_rows) = if let Some(pair) = &args.compare {
        let a = analyze(&opts, &pair[..1], threads, &pair[0])?;
        let b = analyze(&opts, &pair[1..2], threads, &pair[1])?;
        let mut rows = dbio_report::trace::csv_rows(&a, "A");
        rows.extend(dbio_report::trace::csv_rows(&b, "B"));
        let c = TraceComparison {
            schema_version: TRACE_SCHEMA_VERSION,
            a,
            b,
        };
        (
            dbio_report::trace::render_comparison(&c),
            json(serde_json::to_string_pretty(&c))?,
            rows,
        )
    } else {
        if args.inputs.is_empty() {
            bail!("give at least one trace file, directory or glob, or - for standard input (see dbio tracefile --help)");
        }
        let label = args.inputs.join(" ");
        let r = analyze(&opts, &args.inputs, threads, &label)?;
        let rows = dbio_report::trace::csv_rows(&r, &label);
        (
            dbio_report::trace::render(&r),
            json(serde_json::to_string_pretty(&r))?,
            rows,
        )
    };
    let csv_text = if args.csv.is_some() {
        dbio_report::trace::to_csv(&csv_rows)
            .map_err(|e| anyhow::anyhow!("cannot write CSV: {e}"))?
    } else {
        String::new()
    };
    if !outputs.write_all(&table, || json_text.clone(), || csv_text.clone()) {
        return Ok(ExitCode::from(1));
    }
    Ok(ExitCode::SUCCESS)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times() {
        assert_eq!(parse_time_ns("100us").unwrap(), 100_000);
        assert_eq!(parse_time_ns("100µs").unwrap(), 100_000);
        assert_eq!(parse_time_ns("1ms").unwrap(), 1_000_000);
        assert_eq!(parse_time_ns("1m").unwrap(), 60_000_000_000);
        assert_eq!(parse_time_ns("250").unwrap(), 250_000);
        assert!(parse_time_ns("1h").is_err());
        assert!(parse_time_ns("x").is_err());
    }
}
