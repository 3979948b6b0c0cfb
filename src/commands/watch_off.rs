//! `dbio watch` in a build without the `watch` feature (the BPF tracer
//! and its loader left out, as a default build does): refused in
//! one sentence naming the build that has it.

use crate::cli::WatchArgs;
use std::process::ExitCode;

/// Why a command that needs the tracer cannot run in this build.
pub const WITHOUT_WATCH: &str = "this dbio was built without the BPF tracer (cargo feature `watch`): dbio watch and dbio snap --watch need a build with it (cargo build --release --features full)";

/// Refuses `dbio watch` in one sentence.
pub fn run(_: WatchArgs) -> anyhow::Result<ExitCode> {
    anyhow::bail!(WITHOUT_WATCH)
}
