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
use dbio_model::read::{BoundarySource, ReadConfig, TierAttribution, TierThresholds};
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
///
/// O_DIRECT reads (`cfg.direct`) bypass the page cache, so none is
/// counted as a page-cache hit whatever its latency, as in `dbio check`.
/// Their storage-cache boundary is the one `given` (the options or a
/// calibration file) or, by default, measured in the run as `dbio
/// calibrate` and `check` measure it: O_DIRECT re-reads of a block just
/// read against the reads of the least cached state.
pub fn measure(
    cfg: ReadConfig,
    thresholds: TierThresholds,
    given: bool,
    states: &[CacheState],
    at: &Rounds<'_, '_>,
    report: &mut RunReport,
) -> Result<(), EngineError> {
    let direct = cfg.direct;
    let run = measure_run(cfg, thresholds.clone(), states, at, report)?;
    let att = match () {
        _ if !direct => None,
        _ if given => Some(TierAttribution::direct_with(
            &thresholds,
            BoundarySource::Given,
        )),
        _ if (at.signal)().is_some() => Some(TierAttribution::direct_with(
            &thresholds,
            BoundarySource::Default,
        )),
        _ => Some(direct_boundaries(&run, &thresholds, states, at)),
    };
    report
        .reads
        .extend(run.finish_attributed(&super::datafile::target_name(at.targets), att.as_ref()));
    Ok(())
}

/// The boundaries of an O_DIRECT run measured in the run: up to 1000
/// blocks of the first target re-read with O_DIRECT right after reading
/// each (what a cache below the OS answers; a quarter of a round, 0.05 to
/// 0.5 s) against the reads of the least cached state, derived with
/// calibrate's rules ([`super::attribute::derive`]). The page-cache
/// boundary is the default and counts for nothing: no O_DIRECT read is a
/// page-cache hit. Where the re-reads cannot be made, the given thresholds
/// stand, marked as defaults.
fn direct_boundaries(
    run: &ReadRun,
    thresholds: &TierThresholds,
    states: &[CacheState],
    at: &Rounds<'_, '_>,
) -> TierAttribution {
    use crate::calibrate::storage_cache_reads;
    use dbio_model::calibrate::CalibrateConfig;
    let fallback = || TierAttribution::direct_with(thresholds, BoundarySource::Default);
    let coldest = states
        .iter()
        .enumerate()
        .min_by(|a, b| a.1.cached_pct.total_cmp(&b.1.cached_pct))
        .map(|(i, _)| i);
    let (Some(t), Some(reads)) = (at.targets.first(), coldest.and_then(|i| run.histogram(i)))
    else {
        return fallback();
    };
    let cfg = run.config();
    let size = at.stripe.map_or(cfg.size, |m| m.member_size);
    let probe = CalibrateConfig {
        bs: cfg.bs,
        size,
        samples: 1000,
        tier_time_ns: run
            .round_runtime_ns()
            .map_or(250_000_000, |r| (r / 4).clamp(50_000_000, 500_000_000)),
        ..CalibrateConfig::default()
    };
    // The timed rounds end by raising `stop`, as each round begins by
    // clearing it (a signal was checked by the caller).
    at.stop.store(false, Relaxed);
    let Ok(rereads) = storage_cache_reads(&t.file, &t.path, size / cfg.bs.max(1), &probe, at.stop)
    else {
        return fallback();
    };
    let has_device = dbio_engine::sysinfo::disk_of_fd(&*t.file).is_some();
    let mut att = super::attribute::derive(
        &dbio_engine::recorder::new_histogram(),
        &reads,
        Some(&rereads),
        has_device,
    );
    att.direct = true;
    att
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
