//! `dbio tracefile`: Oracle 10046 trace analysis (issue 5, in progress).

use std::process::ExitCode;

/// Arguments of `dbio tracefile`.
#[derive(Debug, clap::Args)]
pub struct TracefileArgs {
    /// Trace files, directories or globs; `-` reads standard input.
    pub inputs: Vec<String>,
}

/// Runs `dbio tracefile`.
pub fn run(_args: TracefileArgs) -> anyhow::Result<ExitCode> {
    anyhow::bail!("dbio tracefile is not built yet")
}
