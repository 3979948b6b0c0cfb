//! `dbio report --from run.json`: re-render a saved result.

use crate::cli::ReportArgs;
use anyhow::Context;
use dbio_report::table::TableOptions;
use std::process::ExitCode;

/// Runs `dbio report`.
pub fn run(a: ReportArgs) -> anyhow::Result<ExitCode> {
    let text = std::fs::read_to_string(&a.from)
        .with_context(|| format!("reading {}", a.from.display()))?;
    let report =
        dbio_report::from_json(&text).map_err(|e| anyhow::anyhow!("{}: {e}", a.from.display()))?;
    let detail = report.command != "check";
    crate::output::emit(&report, &a.output, TableOptions { detail })?;
    Ok(ExitCode::SUCCESS)
}
