//! `dbio merge RESULT.json...`: the results of one job run on many hosts
//! at once, as one result (the library is `dbio_report::sections::jobs::merge`).

use crate::cli::MergeArgs;
use dbio_model::Outcome;
use std::process::ExitCode;

/// Runs `dbio merge`.
pub fn run(a: MergeArgs) -> anyhow::Result<ExitCode> {
    let mut parts = Vec::with_capacity(a.results.len());
    for p in &a.results {
        let (name, text) = crate::inputs::read_text(p, "a dbio result")?;
        match dbio_report::from_json(&text).map_err(|e| anyhow::anyhow!("{name}: {e}"))? {
            Outcome::Run(r) => parts.push((name, r)),
            other => anyhow::bail!(
                "{name} is a '{}' result; dbio merge combines measurements (bench) only",
                other.command()
            ),
        }
    }
    let merged = dbio_report::sections::jobs::merge::merge_checked(
        parts,
        &dbio_report::sections::jobs::merge::Skew {
            max_ns: a.max_skew,
            allow: a.allow_skew,
        },
    )
    .map_err(|e| anyhow::anyhow!(e))?;
    let ctx = crate::run_context::RunContext::without_signals(crate::output::Outputs::for_run(
        &a.output,
    )?);
    let mut merged = merged;
    // The merge's own notes are ranked with what the rules draw from the sums.
    dbio_report::verdict::conclude_run(&mut merged);
    Ok(ctx.finish_result(&Outcome::Run(merged)))
}
