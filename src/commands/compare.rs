//! `dbio compare A.json B.json [C.json ...]`: saved results of one command
//! side by side (`dbio_report::sections::compare`), as a table, `--json` (a
//! comparison that `dbio report --from` re-renders) and `--csv`.
//!
//! Every input is read and checked before anything is printed: an
//! unreadable file, one that is not a dbio result, results of different
//! commands, or fewer than two results end with one sentence and status 2.

use crate::cli::CompareArgs;
use dbio_model::Outcome;
use std::process::ExitCode;

/// Runs `dbio compare`.
pub fn run(a: CompareArgs) -> anyhow::Result<ExitCode> {
    let ctx = crate::run_context::RunContext::without_signals(crate::output::Outputs::for_run(
        &a.output,
    )?);
    if a.files.iter().filter(|f| f.as_os_str() == "-").count() > 1 {
        anyhow::bail!("standard input ('-') can hold only one of the results");
    }
    let mut inputs: Vec<(String, Outcome)> = Vec::with_capacity(a.files.len());
    for f in &a.files {
        let (name, text) = crate::inputs::read_text(f, "a dbio JSON result")?;
        let result = dbio_report::from_json(&text).map_err(|e| anyhow::anyhow!("{name}: {e}"))?;
        inputs.push((name, result));
    }
    let tool = format!("dbio {}", env!("CARGO_PKG_VERSION"));
    let c = dbio_report::sections::compare::compare(&inputs, &tool).map_err(anyhow::Error::msg)?;
    Ok(ctx.finish_result(&Outcome::Comparison(Box::new(c))))
}
