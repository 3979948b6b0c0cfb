//! `dbio awr`: AWR and Statspack reports with derived figures and findings.
//!
//! Glue only: read the input (a file or standard input, bounded in size),
//! let `dbio-awr` recognise and parse it and derive its figures, draw the
//! findings with `dbio-report`, and hand the result ([`Outcome::Awr`] or
//! [`Outcome::AwrComparison`]) to the one output path. What is not a
//! report is refused in one sentence that says what it is.

use crate::cli::awr::AwrArgs;
use anyhow::bail;
use dbio_awr::derive::{derive, Thresholds};
use dbio_model::awr::{AwrComparison, AwrReport};
use dbio_model::{Outcome, SCHEMA_VERSION};
use std::io::Read;
use std::process::ExitCode;

/// The largest report dbio reads (bytes): AWR reports are a few MB; a
/// larger input is not one, and reading it whole would only cost memory.
pub const MAX_REPORT_BYTES: u64 = 256 << 20;

fn read_input(path: &str) -> anyhow::Result<Vec<u8>> {
    let mut buf = Vec::new();
    let res = if path == "-" {
        std::io::stdin()
            .lock()
            .take(MAX_REPORT_BYTES + 1)
            .read_to_end(&mut buf)
    } else {
        std::fs::File::open(path).and_then(|f| f.take(MAX_REPORT_BYTES + 1).read_to_end(&mut buf))
    };
    if let Err(e) = res {
        bail!("cannot read {path}: {e}");
    }
    if buf.len() as u64 > MAX_REPORT_BYTES {
        bail!(
            "{path} is larger than {} MiB, far more than any AWR or Statspack report; give one report",
            MAX_REPORT_BYTES >> 20
        );
    }
    Ok(buf)
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
    r.findings = dbio_report::findings::evaluate_awr(&r);
    Ok(r)
}

/// Runs `dbio awr`.
pub fn run(args: AwrArgs) -> anyhow::Result<ExitCode> {
    let t = thresholds(&args)?;
    // Output files are opened and checked before the reports are read.
    let ctx = crate::run_context::RunContext::without_signals(crate::output::Outputs::for_run(
        &args.output,
    )?);
    let result = if let Some(pair) = &args.compare {
        Outcome::AwrComparison(Box::new(AwrComparison {
            schema_version: SCHEMA_VERSION,
            invocation: None,
            a: analyze(&pair[0], &t)?,
            b: analyze(&pair[1], &t)?,
        }))
    } else {
        match &args.input {
            Some(one) => Outcome::Awr(analyze(one, &t)?),
            None => bail!(
                "give one AWR or Statspack report, or - for standard input (see dbio awr --help)"
            ),
        }
    };
    Ok(ctx.finish_result(&result))
}
