//! `dbio report --from run.json`: re-render a saved result.

use crate::cli::ReportArgs;
use anyhow::Context;
use dbio_report::table::TableOptions;
use std::process::ExitCode;

/// Runs `dbio report`.
pub fn run(a: ReportArgs) -> anyhow::Result<ExitCode> {
    let ctx = crate::run_context::RunContext::without_signals(crate::output::Outputs::for_run(
        &a.output,
    )?);
    let text = std::fs::read_to_string(&a.from)
        .with_context(|| format!("reading {}", a.from.display()))?;
    let report =
        dbio_report::from_json(&text).map_err(|e| anyhow::anyhow!("{}: {e}", a.from.display()))?;
    let detail = report.command != "check";
    // Re-rendering a partial result is itself complete: status 0 unless an
    // output could not be written.
    Ok(ctx.finish_rendered(
        &dbio_report::table::render(&report, TableOptions { detail }),
        || dbio_report::to_json(&report),
        || dbio_report::csv_out::to_csv(&report),
    ))
}
