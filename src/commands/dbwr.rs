//! `dbio dbwr` (in progress).

use std::process::ExitCode;

/// Arguments of `dbio dbwr`.
#[derive(Debug, clap::Args)]
pub struct DbwrArgs {}

/// Runs `dbio dbwr`.
pub fn run(_args: DbwrArgs) -> anyhow::Result<ExitCode> {
    anyhow::bail!("dbio dbwr is not built yet")
}

/// Adds this command's section to `dbio check` (results and conclusions
/// go into `report`); `runtime_s` is check's per-test time, `stop` is
/// raised by SIGINT/SIGTERM.
pub fn check_section(
    _dir: &std::path::Path,
    _runtime_s: f64,
    _stop: &std::sync::Arc<std::sync::atomic::AtomicBool>,
    _report: &mut dbio_model::RunReport,
) -> anyhow::Result<()> {
    Ok(())
}
