//! Sends a finished [`RunReport`] to its destinations: the table on
//! standard output (unless JSON or CSV claimed it with `-`), and the JSON
//! and CSV files. Written once at the end and again after each job, so an
//! error in a later job does not lose an earlier one.

use crate::cli::OutputArgs;
use anyhow::Context;
use dbio_model::RunReport;
use dbio_report::table::TableOptions;
use std::io::Write;

/// Writes `text` to FILE, or to standard output for `-`.
fn write_to(dest: &str, text: &str) -> anyhow::Result<()> {
    if dest == "-" {
        let mut out = std::io::stdout().lock();
        return match out.write_all(text.as_bytes()).and_then(|_| out.flush()) {
            Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
            r => r.context("writing to standard output"),
        };
    }
    // Write beside and rename, so a full disk never leaves half a file.
    let tmp = format!("{dest}.dbio-partial");
    std::fs::write(&tmp, text)
        .and_then(|_| std::fs::rename(&tmp, dest))
        .inspect_err(|_| {
            let _ = std::fs::remove_file(&tmp);
        })
        .with_context(|| format!("writing {dest}"))
}

/// Writes the files only (for intermediate saves after each job).
pub fn save_files(r: &RunReport, o: &OutputArgs) -> anyhow::Result<()> {
    if let Some(f) = o.json.as_deref().filter(|f| *f != "-") {
        write_to(f, &dbio_report::to_json(r))?;
    }
    if let Some(f) = o.csv.as_deref().filter(|f| *f != "-") {
        write_to(f, &dbio_report::csv_out::to_csv(r))?;
    }
    Ok(())
}

/// Writes every requested output.
pub fn emit(r: &RunReport, o: &OutputArgs, opts: TableOptions) -> anyhow::Result<()> {
    let stdout_taken = o.json.as_deref() == Some("-") || o.csv.as_deref() == Some("-");
    if !stdout_taken {
        write_to("-", &dbio_report::table::render(r, opts))?;
    }
    if o.json.as_deref() == Some("-") {
        write_to("-", &dbio_report::to_json(r))?;
    }
    if o.csv.as_deref() == Some("-") {
        write_to("-", &dbio_report::csv_out::to_csv(r))?;
    }
    save_files(r, o)
}
