//! A read run's rounds on prepared targets: every round of every cache
//! state, in order, each behind its own progress display, stopping (with
//! the report marked partial) at a signal or an I/O error.
//!
//! Why here: `dbio read` and the read section of `dbio check` run the
//! same rounds; what stops them and how that marks the result is the
//! model's, the command only gives the targets and the display.

use super::{CacheState, ReadRun};
use dbio_engine::runner::{Control, MakeProgress};
use dbio_engine::stripe::StripeMap;
use dbio_engine::target::Target;
use dbio_engine::EngineError;
use dbio_model::read::{ReadConfig, TierThresholds};
use dbio_model::RunReport;
use std::sync::atomic::{AtomicBool, Ordering::Relaxed};
use std::sync::Arc;

/// Where a read run goes and how it is stopped and shown.
pub struct Rounds<'a, 'p> {
    /// The datafile, or a stripe's members (empty for the null engine).
    pub targets: &'a [&'a Target],
    /// A stripe's layout over `targets`.
    pub stripe: Option<StripeMap>,
    /// The stop flag (signals, and each round's deadline).
    pub stop: &'a Arc<AtomicBool>,
    /// The signal that arrived, if one did.
    pub signal: &'a dyn Fn() -> Option<&'static str>,
    /// A progress display per round, by the round's label.
    pub progress: &'a MakeProgress<'p>,
}

/// Runs every round of every state into `report`; stops early (partial
/// report) on a signal or an I/O error. A thread that cannot be started
/// before anything was measured is an error.
pub fn measure(
    cfg: ReadConfig,
    thresholds: TierThresholds,
    states: &[CacheState],
    at: &Rounds<'_, '_>,
    report: &mut RunReport,
) -> Result<(), EngineError> {
    let run = measure_run(cfg, thresholds, states, at, report)?;
    report
        .reads
        .extend(run.finish(&super::datafile::target_name(at.targets)));
    Ok(())
}

/// [`measure`]'s rounds, without making the results: the caller decides
/// how their reads are attributed. Marks `report` partial on a signal or
/// an I/O error.
pub fn measure_run(
    cfg: ReadConfig,
    thresholds: TierThresholds,
    states: &[CacheState],
    at: &Rounds<'_, '_>,
    report: &mut RunReport,
) -> Result<ReadRun, EngineError> {
    let rounds = cfg.rounds;
    let mut run = ReadRun::new(cfg, thresholds, states);
    let control = Control {
        stop: at.stop.clone(),
        ..Default::default()
    };
    'rounds: for r in 0..rounds {
        for (i, s) in states.iter().enumerate() {
            at.stop.store((at.signal)().is_some(), Relaxed);
            let label = if rounds > 1 {
                format!("{} {}/{rounds}", s.name, r + 1)
            } else {
                s.name.clone()
            };
            let bar = (at.progress)(&label);
            let res = run.round(i, r, at.targets, at.stripe, &control, &*bar);
            drop(bar);
            if report.stopped_by((at.signal)()) {
                break 'rounds;
            }
            if let Err(e) = res {
                if matches!(e, EngineError::Threads(_)) && r == 0 && i == 0 {
                    return Err(e);
                }
                report.io_error(e.to_string());
                break 'rounds;
            }
        }
    }
    Ok(run)
}
