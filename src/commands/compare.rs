//! `dbio compare A.json B.json [C.json ...]`: saved results of one command
//! side by side (`dbio_report::compare`), as a table, `--json` (a
//! comparison that `dbio report --from` re-renders) and `--csv`.
//!
//! Every input is read and checked before anything is printed: an
//! unreadable file, one that is not a dbio result, results of different
//! commands, or fewer than two results end with one sentence and status 2.

use crate::cli::CompareArgs;
use anyhow::Context;
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
        let (name, text) = if f.as_os_str() == "-" {
            let mut text = String::new();
            std::io::Read::read_to_string(&mut std::io::stdin(), &mut text)
                .context("reading standard input")?;
            ("standard input".to_string(), text)
        } else {
            let text = std::fs::read(f)
                .with_context(|| format!("reading {}", f.display()))
                .and_then(|b| {
                    String::from_utf8(b).map_err(|_| {
                        anyhow::anyhow!(
                            "{} is not a dbio JSON result: it is not UTF-8 text",
                            f.display()
                        )
                    })
                })?;
            (f.display().to_string(), text)
        };
        let result = dbio_report::from_json(&text).map_err(|e| anyhow::anyhow!("{name}: {e}"))?;
        inputs.push((name, result));
    }
    let tool = format!("dbio {}", env!("CARGO_PKG_VERSION"));
    let c = dbio_report::compare::compare(&inputs, &tool).map_err(anyhow::Error::msg)?;
    Ok(ctx.finish_result(&Outcome::Comparison(Box::new(c))))
}
