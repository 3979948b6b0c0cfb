//! `dbio awr`: AWR and Statspack reports with derived figures and findings.
//!
//! Glue only: read the input (a file or standard input, bounded in size),
//! let `dbio-awr` recognise and parse it and derive its figures, draw the
//! findings with `dbio-report`, and hand the result ([`Outcome::Awr`],
//! [`Outcome::AwrComparison`] or, for several reports, [`Outcome::AwrTrend`])
//! to the one output path. What is not a report is refused in one
//! sentence that says what it is; so are reports of different databases
//! in one trend (unless `--allow-mixed`).

use crate::cli::awr::AwrArgs;
use anyhow::bail;
use dbio_awr::derive::{derive, Thresholds};
use dbio_model::awr::{AwrComparison, AwrReport, TraceBeside};
use dbio_model::{Outcome, SCHEMA_VERSION};
use std::process::ExitCode;

/// The largest report dbio reads (bytes): AWR reports are a few MB; a
/// larger input is not one, and reading it whole would only cost memory.
pub const MAX_REPORT_BYTES: u64 = 256 << 20;

/// The report's bytes, opened by `dbio_input` (a FIFO, socket, device or
/// directory is refused; `-` is standard input) and bounded: a file larger
/// than the cap is refused before reading, a stream when it passes it.
fn read_input(path: &str) -> anyhow::Result<Vec<u8>> {
    use dbio_input::ReadError;
    let input = dbio_input::open(std::path::Path::new(path))?;
    dbio_input::read_capped(&input, MAX_REPORT_BYTES).map_err(|e| match e {
        ReadError::TooLarge => anyhow::anyhow!(
            "{path} is larger than {} MiB, far more than any AWR or Statspack report; give one report",
            MAX_REPORT_BYTES >> 20
        ),
        ReadError::NoMemory(n) => anyhow::anyhow!(
            "reading {path} needs {} MiB of memory, more than this process may allocate (ulimit -v or a cgroup's memory.max)",
            n.div_ceil(1 << 20)
        ),
        ReadError::Io(e) => anyhow::anyhow!("cannot read {path}: {e}"),
    })
}

fn thresholds(a: &AwrArgs) -> anyhow::Result<Thresholds> {
    let t = match &a.tiers.calibration {
        Some(p) => {
            let c = super::calibrate::load_thresholds(p)?;
            Thresholds {
                page_cache_max_ns: c.page_cache_max_ns,
                storage_cache_max_ns: c.storage_cache_max_ns,
                from: p.display().to_string(),
            }
        }
        None => Thresholds {
            page_cache_max_ns: a.tiers.page_cache_max,
            storage_cache_max_ns: a.tiers.storage_cache_max,
            from: a.tiers.source().to_string(),
        },
    };
    if t.page_cache_max_ns > t.storage_cache_max_ns {
        bail!(
            "the page-cache threshold ({} ns) is above the storage-cache threshold ({} ns)",
            t.page_cache_max_ns,
            t.storage_cache_max_ns
        );
    }
    Ok(t)
}

/// Reads, parses and derives one report, with its findings.
pub fn analyze(path: &str, t: &Thresholds) -> anyhow::Result<AwrReport> {
    let bytes = read_input(path)?;
    let name = if path == "-" { "standard input" } else { path };
    let mut r = dbio_awr::parse(&bytes, name).map_err(|e| anyhow::anyhow!("{e}"))?;
    r.source = path.to_string();
    derive(&mut r, t);
    dbio_report::verdict::conclude_awr(&mut r);
    Ok(r)
}

/// Runs `dbio awr`.
pub fn run(args: AwrArgs) -> anyhow::Result<ExitCode> {
    let t = thresholds(&args)?;
    // Output files are opened and checked before the reports are read.
    let ctx = crate::run_context::RunContext::without_signals(crate::output::Outputs::for_run(
        &args.output,
    )?);
    if args.with_trace.is_some() && args.inputs.len() > 1 {
        bail!("--with-trace reads one report beside the trace; give one report");
    }
    for (i, p) in args.inputs.iter().enumerate() {
        if args.inputs[..i].contains(p) {
            bail!("{p} is given twice: a trend needs each report once");
        }
    }
    let result = if let Some(pair) = &args.compare {
        let mut c = AwrComparison {
            schema_version: SCHEMA_VERSION,
            invocation: None,
            a: analyze(&pair[0], &t)?,
            b: analyze(&pair[1], &t)?,
            ..Default::default()
        };
        dbio_report::verdict::conclude_awr_comparison(&mut c);
        Outcome::AwrComparison(Box::new(c))
    } else {
        match args.inputs.as_slice() {
            [] => bail!(
                "give one AWR or Statspack report (several for a trend), or - for standard input (see dbio awr --help)"
            ),
            [one] => {
                let mut r = analyze(one, &t)?;
                if let Some(trace) = &args.with_trace {
                    r.with_trace = Some(beside(&r, trace, &args)?);
                }
                Outcome::Awr(r)
            }
            many => {
                let reports = many
                    .iter()
                    .map(|p| analyze(p, &t))
                    .collect::<anyhow::Result<Vec<_>>>()?;
                let mut t = dbio_awr::trend::trend(reports, args.allow_mixed)
                    .map_err(|e| anyhow::anyhow!("{e}"))?;
                dbio_report::verdict::conclude_awr_trend(&mut t);
                Outcome::AwrTrend(Box::new(t))
            }
        }
    };
    Ok(ctx.finish_result(&result))
}

/// Analyses a 10046 trace (as `dbio tracefile` would, one thread) and
/// puts its events beside the report's.
fn beside(r: &AwrReport, trace: &str, args: &AwrArgs) -> anyhow::Result<TraceBeside> {
    if r.source == "-" && trace == "-" {
        bail!("standard input (-) can be given once: the report or the trace");
    }
    let t = thresholds(args)?;
    let opts = dbio_oracle::Options {
        page_cache_max_ns: t.page_cache_max_ns,
        storage_cache_max_ns: t.storage_cache_max_ns,
        thresholds_from: t.from,
        hot_blocks: false,
        ..dbio_oracle::Options::default()
    };
    let sources = dbio_oracle::input::expand(&[trace.to_string()])?;
    let a = dbio_oracle::analyze_sources(&opts, &sources, 1, trace)?;
    if let Some(e) = a.failed.first() {
        bail!("cannot read the trace {trace}: {e}");
    }
    if a.report.files.iter().map(|f| f.wait_lines).sum::<u64>() == 0 {
        bail!("{trace} holds no WAIT lines: is it a 10046 trace at level 8 or 12?");
    }
    Ok(dbio_awr::join::with_trace(r, &a.report, trace))
}
