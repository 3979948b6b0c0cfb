//! `dbio tracefile`: Oracle 10046 extended SQL trace analysis.
//!
//! Glue only: resolve the inputs and settings, run `dbio-oracle` over them
//! (one file per thread), and hand the result ([`Outcome::Trace`] or
//! [`Outcome::TraceComparison`]) to the one output path, which renders it
//! with `dbio-report`'s exporters and writes files atomically. Everything
//! the user can get wrong (a missing file, a bad threshold, an unreadable
//! calibration file) ends in one sentence that names the culprit, never in
//! a panic.

use crate::cli::tracefile::UnitsArg;
use crate::cli::TracefileArgs;
use anyhow::bail;
use dbio_model::awr::ReportKind;
use dbio_model::trace::{TraceComparison, TraceReport};
use dbio_model::{Outcome, SCHEMA_VERSION};
use dbio_oracle::{analyze_sources, input, Options, Units};
use std::process::ExitCode;

/// The most rows a top-N table may ask for.
const MAX_TOP: usize = 100_000;
/// The most reader threads.
const MAX_THREADS: usize = 1024;

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
    let (page, storage, from) = match &a.tiers.calibration {
        Some(p) => {
            let (x, y) = read_calibration(p)?;
            (x, y, p.display().to_string())
        }
        None => (
            a.tiers.page_cache_max,
            a.tiers.storage_cache_max,
            a.tiers.source().to_string(),
        ),
    };
    if page > storage {
        bail!("the page-cache threshold ({page} ns) is above the storage-cache threshold ({storage} ns)");
    }
    let interval_s = match a.interval {
        Some(s) => {
            if s < 1.0 || s.fract() != 0.0 {
                bail!("--interval must be a whole number of seconds, at least 1s (got {s} s)");
            }
            Some(s as u64)
        }
        None => None,
    };
    let bs = a.bs.bs;
    if bs == 0 {
        bail!("--bs must be above zero");
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
        bs,
        hot_blocks: !a.no_hot_blocks,
    })
}

/// Analyses one group of inputs. A file that cannot be read is reported on
/// standard error and sets `failed`; the others are still analysed.
fn analyze(
    opts: &Options,
    inputs: &[String],
    threads: usize,
    label: &str,
    failed: &mut bool,
) -> anyhow::Result<TraceReport> {
    let sources = input::expand(inputs)?;
    for src in &sources {
        if let input::Source::File(path) = src {
            refuse_reports(path)?;
        }
    }
    let a = analyze_sources(opts, &sources, threads, label)?;
    for e in &a.failed {
        crate::say::line(&format!(
            "dbio: error: {e}; the report covers the other files"
        ));
        *failed = true;
    }
    let mut r = a.report;
    dbio_report::verdict::conclude_trace(&mut r);
    Ok(r)
}

/// Refuses an AWR or Statspack report given as a trace: its profile would
/// be empty, and `dbio awr` reads it. Only the first 64 KiB are looked at;
/// a file that cannot be opened is left to the analysis to report, and a
/// descriptor (`/dev/fd/N`, a pipe) is not read ahead of the analysis.
fn refuse_reports(path: &std::path::Path) -> anyhow::Result<()> {
    use std::io::Read;
    let f = match dbio_input::open(path) {
        Ok(i) if i.origin == dbio_input::Origin::File => i.file,
        _ => return Ok(()),
    };
    let mut head = Vec::with_capacity(64 << 10);
    if f.take(64 << 10).read_to_end(&mut head).is_err() {
        return Ok(());
    }
    match dbio_awr::detect::report_kind(&head) {
        Some(kind) if kind != ReportKind::Pasted => bail!(
            "{} is {}, not a trace file; use `dbio awr`",
            path.display(),
            kind.describe()
        ),
        _ => Ok(()),
    }
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
    let ctx = crate::run_context::RunContext::without_signals(crate::output::Outputs::for_run(
        &args.output,
    )?);
    let mut failed = false;
    let result = if let Some(pair) = &args.compare {
        let a = analyze(&opts, &pair[..1], threads, &pair[0], &mut failed)?;
        let b = analyze(&opts, &pair[1..2], threads, &pair[1], &mut failed)?;
        let mut c = TraceComparison {
            schema_version: SCHEMA_VERSION,
            invocation: None,
            a,
            b,
            ..Default::default()
        };
        dbio_report::verdict::conclude_trace_comparison(&mut c);
        Outcome::TraceComparison(c)
    } else {
        if args.inputs.is_empty() {
            bail!("give at least one trace file, directory or glob, or - for standard input (see dbio tracefile --help)");
        }
        let label = args.inputs.join(" ");
        Outcome::Trace(analyze(&opts, &args.inputs, threads, &label, &mut failed)?)
    };
    let code = ctx.finish_result(&result);
    // A file that could not be read makes the run fail (exit 1) after the
    // others were reported.
    Ok(if failed { ExitCode::from(1) } else { code })
}
