//! `dbio check [DIR]`: the battery a newcomer runs first.

use crate::cli::CheckArgs;
use crate::session::{new_report, resolve_all, Session};
use anyhow::Context;
use dbio_engine::check::{battery, conclude};
use dbio_report::table::TableOptions;
use std::process::ExitCode;

/// A section of `dbio check` added by a model command.
type Section = fn(
    &std::path::Path,
    f64,
    &std::sync::Arc<std::sync::atomic::AtomicBool>,
    &mut dbio_model::RunReport,
) -> anyhow::Result<()>;

/// Runs `dbio check`.
pub fn run(a: CheckArgs) -> anyhow::Result<ExitCode> {
    if !a.dir.is_dir() {
        anyhow::bail!("{} is not a directory", a.dir.display());
    }
    let direct_ok = dbio_engine::target::supports_direct(&a.dir)
        .with_context(|| format!("cannot create a file in {}", a.dir.display()))?;
    let jobs = resolve_all(battery(&a.dir, a.runtime, a.size, direct_ok))?;
    let mut session = Session::new(a.output.quiet)?;
    let mut report = new_report("check", &a.dir);
    if !direct_ok {
        report.warnings.push(format!(
            "{} does not support O_DIRECT ({}): every test ran buffered, so the figures describe memory and the page cache, not a device",
            a.dir.display(),
            report.environment.fs_type
        ));
    }
    let mut complete = true;
    for j in &jobs {
        if !session.run(j, &mut report, &a.output)? {
            complete = false;
            break;
        }
    }
    report.conclusions = conclude(&mut report.jobs);
    if complete {
        // The model sections: commit path, datafile reads, database writers.
        let sections: [Section; 3] = [
            super::lgwr::check_section,
            super::read::check_section,
            super::dbwr::check_section,
        ];
        let stop = session.stop_flag().clone();
        for section in sections {
            stop.store(false, std::sync::atomic::Ordering::Relaxed);
            section(&a.dir, a.runtime, &stop, &mut report)?;
            if let Some(sig) = session.signal() {
                report.partial = Some(dbio_model::PartialReason::Signal { signal: sig.into() });
                break;
            }
        }
    }
    crate::output::emit(&report, &a.output, TableOptions { detail: false })?;
    Ok(crate::exit_code(&report))
}
