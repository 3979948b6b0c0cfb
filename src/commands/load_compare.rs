//! `dbio load`'s device baseline and `--compare`.
//!
//! The baseline is measured where the database's log lives when dbio can
//! reach it (PostgreSQL's `pg_wal`, InnoDB's redo-log directory, SQLite's
//! scratch directory), else in `--dir`, and the result says which: a
//! baseline of another device is still the best available, but it must
//! not pass for the log's. The comparison itself is
//! `dbio_load::compare`; this file runs it through the [`RunContext`]
//! (signals, partial marking, exit status) and puts every setting left
//! changed on stderr as well as in the warnings.

use crate::cli::LoadArgs;
use crate::progress::Bar;
use crate::run_context::RunContext;
use dbio_load::compare::{prepare, run_compare};
use dbio_load::{Database, DbKind};
use dbio_model::load::LoadConfig;
use dbio_model::load_compare::LoadBaseline;
use dbio_model::RunReport;
use dbio_model::{Finding, Severity};
use std::path::Path;
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

/// How long each baseline probe runs.
pub const BASELINE: Duration = Duration::from_secs(1);

/// Where the baseline is measured, and why there: where the database
/// keeps its log when the server runs on this machine (the same
/// [`dbio_load::predict::LogLocation`] `--predict` uses), else `dir`.
fn place(db: &mut dyn Database, dir: &Path) -> (String, String) {
    if db.kind() == DbKind::Sqlite {
        return (
            dir.display().to_string(),
            "the directory of SQLite's scratch database (its WAL is there)".into(),
        );
    }
    match db.log_location() {
        Some(loc) if loc.dir.is_dir() && loc.is_local() => (
            loc.dir.display().to_string(),
            "the database's log directory".into(),
        ),
        _ => (
            dir.display().to_string(),
            "--dir (the current directory by default): the database's log directory is not on \
             this machine or this user cannot read where it is, so this may be another device \
             than the log's"
                .into(),
        ),
    }
}

/// The baseline before the load; `None` (with a warning) when it cannot
/// be measured.
pub fn before(
    db: &mut dyn Database,
    dir: &Path,
    stop: &AtomicBool,
    findings: &mut Vec<Finding>,
) -> Option<LoadBaseline> {
    let (dir, place) = place(db, dir);
    match dbio_engine::commit_probe::probe(Path::new(&dir), BASELINE, stop) {
        Ok(p) => Some(LoadBaseline {
            dir,
            place,
            before: Some(p),
            after: None,
        }),
        Err(e) => {
            findings.push(baseline_failed(e));
            None
        }
    }
}

/// The baseline after the load (skipped once a signal arrived).
pub fn after(b: &mut Option<LoadBaseline>, stop: &AtomicBool, findings: &mut Vec<Finding>) {
    let Some(b) = b else { return };
    if stop.load(Ordering::Relaxed) {
        return;
    }
    match dbio_engine::commit_probe::probe(Path::new(&b.dir), BASELINE, stop) {
        Ok(p) => b.after = Some(p),
        Err(e) => findings.push(baseline_failed(e)),
    }
}

/// Why a commit baseline is missing: the load's figures stand, without
/// the storage's own commit latency beside them.
fn baseline_failed(why: String) -> Finding {
    Finding::note("load.baseline_failed", Severity::Notice, why)
}

/// Runs `dbio load --compare` on the opened target.
pub fn run(
    a: &LoadArgs,
    cfg: &LoadConfig,
    db: &mut dyn Database,
    ctx: &mut RunContext,
    mut report: RunReport,
) -> anyhow::Result<ExitCode> {
    // Refusals come before anything is changed or measured (exit 2).
    let p = prepare(db, &a.compare, a.rounds.or(3))?;
    // The settings are put back however many stop signals come: each
    // only raises the stop flag (see src/signals.rs).
    let stop = ctx.stop_flag();
    let mut base = (!a.no_baseline)
        .then(|| before(db, &a.dir, stop, &mut report.findings))
        .flatten();
    let bar = Bar::new("load --compare", a.output.quiet);
    let label = std::cell::RefCell::new(String::new());
    let out = run_compare(
        db,
        cfg,
        &p,
        stop,
        &mut |l, r| *label.borrow_mut() = format!("{l} #{r}: "),
        &|t| bar.load(t, &label.borrow()),
    );
    bar.finish();
    after(&mut base, stop, &mut report.findings);
    for s in &out.left_changed {
        crate::say::line(&format!("dbio: {s}"));
    }
    report.findings.extend(out.findings);
    if let Some(e) = &out.error {
        crate::say::line(&format!("dbio: the comparison stopped early: {e}"));
        report.io_error(e.clone());
    }
    if let (None, Some(first)) = (&out.error, out.left_changed.first()) {
        report.io_error(first.clone());
    }
    ctx.interrupted(&mut report);
    let mut c = out.comparison;
    c.baseline = base;
    report.load = out.results;
    report.load_compare = Some(Box::new(c));
    Ok(ctx.finish(&report))
}
