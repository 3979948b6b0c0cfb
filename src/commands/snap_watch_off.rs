//! `dbio snap URL --watch` in a build without the `watch` feature: refused.
//! What the full build does: one snapshot interval with the server's
//! processes (the postmaster or mariadbd, and every process it has forked
//! or forks) followed by a `dbio_watch` session, block layer included;
//! the interval's result gets the layers of a commit
//! (`dbio_snap::layers::join`). Built with the `watch` feature; without
//! it, `--watch` is refused in one sentence.

use crate::run_context::RunContext;
use dbio_snap::Snapper;
use std::process::ExitCode;

/// Never made: [`load`] refuses.
pub enum Loaded {}

/// Refuses `--watch` in one sentence.
pub fn load(_: &mut dyn Snapper) -> anyhow::Result<Loaded> {
    anyhow::bail!(crate::commands::watch::WITHOUT_WATCH)
}

/// Unreachable: there is no [`Loaded`].
pub fn interval(
    _: &mut dyn Snapper,
    w: Loaded,
    _: f64,
    _: &RunContext,
    _: &crate::progress::Bar,
) -> anyhow::Result<ExitCode> {
    match w {}
}
