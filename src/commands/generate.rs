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
    match a.what {
        Generated::Man { dir: None } => write(None, &crate::cli::man::page()?)?,
        Generated::Man { dir: Some(dir) } => {
            write(Some(&dir.join("dbio.1")), &crate::cli::man::page()?)?;
            for (file, page) in crate::cli::man::subcommand_pages()? {
                write(Some(&dir.join(file)), &page)?;
            }
        }
        Generated::Completions { shell } => write(None, &crate::cli::completions(shell.into()))?,
    }
    Ok(ExitCode::SUCCESS)
}

/// Writes `bytes` to `dest`, or to standard output.
fn write(dest: Option<&Path>, bytes: &[u8]) -> anyhow::Result<()> {
    let shown = dest.map_or_else(|| "-".to_string(), |p| p.display().to_string());
    let (sink, _) = Sink::open(&shown, dest.unwrap_or(Path::new("-")))?;
    sink.write(bytes)
        .map_err(|e| anyhow::anyhow!("cannot write {shown}: {e}"))
}
