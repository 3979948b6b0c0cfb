//! `dbio calibrate` (in progress).

use std::process::ExitCode;

/// Arguments of `dbio calibrate`.
#[derive(Debug, clap::Args)]
pub struct CalibrateArgs {}

/// Runs `dbio calibrate`.
pub fn run(_args: CalibrateArgs) -> anyhow::Result<ExitCode> {
    anyhow::bail!("dbio calibrate is not built yet")
}
