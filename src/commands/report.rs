//! `dbio report --from FILE` (or `-` for standard input): re-render any
//! saved result (a measurement,
//! a trace analysis or a trace comparison) to the table, `--json`,
//! `--csv` and `--html`, as the command that saved it printed and wrote
//! them (the HTML page says that the command line is not in the result).

use crate::cli::ReportArgs;
use std::process::ExitCode;

/// Runs `dbio report`.
pub fn run(a: ReportArgs) -> anyhow::Result<ExitCode> {
    let ctx = crate::run_context::RunContext::without_signals(crate::output::Outputs::for_run(
        &a.output,
    )?);
    let (name, text) = crate::inputs::read_text(&a.from, "a dbio result")?;
    let mut result = dbio_report::from_json(&text).map_err(|e| anyhow::anyhow!("{name}: {e}"))?;
    if let (true, dbio_model::Outcome::Run(r)) = (a.detail, &mut result) {
        if r.layout == dbio_model::Layout::Brief {
            r.layout = dbio_model::Layout::Summary;
        }
        // A watch: every file's row, as `dbio watch --all-files`.
        for w in &mut r.watch {
            w.config.all_files = true;
        }
    }
    // Re-rendering a partial result is itself complete: status 0 unless an
    // output could not be written.
    Ok(ctx.finish_result(&result))
}
