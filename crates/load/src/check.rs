//! The database section of `dbio check`: embedded SQLite's commit path at
//! 1 and at 10 sessions in the checked directory.
//!
//! Why here: which load stands for "a real database's commit" is this
//! crate's knowledge (the engine, its files and the loop); the binary
//! only runs `dbio check`'s sections in turn.

use crate::run::{execute_with, Tick};
use crate::sqlite::SqliteDb;
use dbio_engine::runner::{Counted, Progress, ProgressInfo, Spanned};
use dbio_model::load::LoadConfig;
use dbio_model::units::seconds_to_ns;
use dbio_model::RunReport;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// A load run's tick as the engine's progress report.
fn info(t: &Tick) -> ProgressInfo {
    ProgressInfo {
        elapsed_s: t.elapsed_s,
        planned_s: t.planned_s,
        ops_done: t.commits,
        ops_planned: t.commits_planned,
        iops: t.tps,
        bytes_per_sec: 0.0,
        warming_up: t.warming_up,
        counted: Counted::Commits,
    }
}

/// Adds the database section to `dbio check`: embedded SQLite at 1 and at
/// 10 sessions, each for a sixth of check's per-test time (0.5 s at the
/// default 3 s), in a scratch database of a few MiB (the WAL is
/// checkpointed every 1,000 pages). `stop` is raised by SIGINT, SIGTERM,
/// SIGHUP or SIGQUIT; both runs are shown on `progress`.
pub fn section(
    dir: &dbio_engine::scratch::ScratchDir,
    runtime_s: f64,
    stop: &Arc<AtomicBool>,
    progress: &dyn Progress,
    report: &mut RunReport,
) -> anyhow::Result<()> {
    let each = (runtime_s / 6.0).max(0.1);
    for (i, (name, sessions)) in [("1 session", 1), ("10 sessions", 10)]
        .into_iter()
        .enumerate()
    {
        let cfg = LoadConfig {
            sessions,
            runtime_ns: Some(seconds_to_ns(each)),
            commits_per_session: None,
            ..LoadConfig::default()
        };
        let mut db = SqliteDb::create_in(dir.fd(), dir.path(), false)?;
        report.findings.extend(
            db.take_notices()
                .iter()
                .map(dbio_engine::target::scratch_note),
        );
        // Both runs on the section's one display, one after the other.
        let shown = Spanned {
            inner: progress,
            done_s: i as f64 * each,
            total_s: 2.0 * each,
        };
        let out = execute_with(&mut db, &cfg, name, stop, &|t| shown.update(&info(t)))?;
        report.findings.extend(out.findings);
        report.load.push(out.result);
        if let Some(e) = out.error {
            anyhow::bail!(e);
        }
        if stop.load(Ordering::Relaxed) {
            break;
        }
    }
    Ok(())
}
