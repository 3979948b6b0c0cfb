//! `dbio generate man [DIR]` and `dbio generate completions SHELL`: writes
//! what `dbio_cli::man::page` and `dbio_cli::completions` make from the
//! one definition of the command line, to standard output or through a
//! `dbio_output::Sink` (a planted link cannot redirect the write).

use crate::cli::generate::{GenerateArgs, Generated};
use dbio_output::Sink;
use std::path::Path;
use std::process::ExitCode;

/// Runs `dbio generate`.
pub fn run(a: GenerateArgs) -> anyhow::Result<ExitCode> {
    let (dest, bytes) = match a.what {
        Generated::Man { dir } => {
            let dest = dir.map(|d| d.join("dbio.1"));
            (dest, crate::cli::man::page()?)
        }
        Generated::Completions { shell } => (None, crate::cli::completions(shell.into())),
    };
    let shown = dest
        .as_deref()
        .map_or_else(|| "-".to_string(), |p| p.display().to_string());
    let (sink, _) = Sink::open(&shown, dest.as_deref().unwrap_or(Path::new("-")))?;
    sink.write(&bytes)
        .map_err(|e| anyhow::anyhow!("cannot write {shown}: {e}"))?;
    Ok(ExitCode::SUCCESS)
}
