//! One `dbio matrix` run end to end on its target: the target (or a
//! stripe's members) prepared under the same rules as `bench`'s, the grid
//! or the search measured point by point behind a progress display, and
//! the result recorded, partial when a signal or an I/O error cut it
//! short (a search cut short is not an answer).
//!
//! Why here: preparing the matrix's target and deciding what a cut-short
//! grid or search means are the experiment's; the command only turns the
//! arguments into the configuration and writes the outputs.

use super::{grid, measure_point, search};
use dbio_engine::runner::{Control, MakeProgress};
use dbio_engine::stripe::{self, StripePlan};
use dbio_engine::target::{Target, TargetSpec};
use dbio_engine::{EngineError, JobTarget};
use dbio_model::matrix::{MatrixConfig, MatrixResult};
use dbio_model::{Durability, EngineKind, Prepare, RunReport};
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

/// Prepares the target of `place`, or the members of `plan` (all of them
/// or none); none for the null engine. Each is written once in full
/// (read-only loads read written blocks) and opened with O_DIRECT.
pub fn prepare_targets(
    cfg: &MatrixConfig,
    place: &JobTarget,
    plan: Option<&StripePlan>,
    stop: &AtomicBool,
) -> Result<Vec<Target>, EngineError> {
    if cfg.engine == EngineKind::Null {
        return Ok(Vec::new());
    }
    let spec = TargetSpec {
        path: place.path.clone(),
        size: cfg.size,
        prepare: Prepare::Prewrite,
        direct: true,
        bs: cfg.small_bs,
        sync: Durability::None,
        writes: cfg.write_pct > 0,
        overwrite: place.overwrite,
        block_device: place.block_device,
        keep: place.keep,
    };
    // Every member is prepared under the same rules as one target;
    // when one fails, what was made for the others is removed.
    let specs: Vec<TargetSpec> = match plan {
        Some(p) => p
            .members
            .iter()
            .map(|m| TargetSpec {
                path: m.path.clone(),
                size: p.map.member_size,
                ..spec.clone()
            })
            .collect(),
        None => vec![spec],
    };
    stripe::prepare_members(&specs, stop)
}

/// Records in `report` what preparing the targets found: the first one's
/// environment and O_DIRECT alignment, and every one's notices.
pub fn adopt(report: &mut RunReport, targets: &[Target]) {
    if let Some(t) = targets.first() {
        report.environment = dbio_engine::sysinfo::environment(&t.path);
        dbio_engine::lifecycle::fill_dio_alignment(report, t);
    }
    for t in targets {
        report
            .findings
            .extend(t.notices.iter().map(dbio_engine::target::scratch_note));
    }
}

/// Where the matrix runs and how it is stopped and shown.
pub struct At<'a> {
    /// Where the I/O goes and what dbio may do there.
    pub place: &'a JobTarget,
    /// The prepared targets (empty for the null engine).
    pub targets: &'a [Target],
    /// A stripe's layout over `targets`.
    pub plan: Option<&'a StripePlan>,
    /// The stop flag signals raise.
    pub stop: &'a Arc<AtomicBool>,
    /// The signal that arrived, if one did.
    pub signal: &'a dyn Fn() -> Option<&'static str>,
    /// A progress display per point, by its label.
    pub progress: &'a MakeProgress<'a>,
}

/// Measures the grid, or the search with `--max-latency`, into
/// `report.matrix`; a signal or an I/O error marks the report partial.
pub fn run(cfg: MatrixConfig, at: &At<'_>, report: &mut RunReport) -> Result<(), EngineError> {
    let refs: Vec<&Target> = at.targets.iter().collect();
    let map = at.plan.map(|p| p.map);
    let control = Control {
        stop: at.stop.clone(),
        ..Default::default()
    };
    let mut failed = None;
    let measure = |s: u32, l: u32| {
        if control.stopped() || failed.is_some() {
            return Ok(None);
        }
        let bar = (at.progress)(&format!("small {s} large {l}"));
        let measured = measure_point(&cfg, at.place, &refs, map, s, l, &control, &*bar);
        drop(bar);
        match measured {
            // A point cut short by a signal is not a point.
            Ok(_) if control.stopped() => Ok(None),
            Ok(p) => Ok(Some(p)),
            Err(e) => {
                failed = Some(e.to_string());
                Ok(None)
            }
        }
    };
    let (points, search) = if cfg.max_latency_ns.is_some() {
        let (p, s) = search(&cfg, measure)?;
        (p, Some(s))
    } else {
        (grid(&cfg, measure)?, None)
    };
    let stopped = report.stopped_by((at.signal)());
    if let Some(e) = failed {
        report.io_error(e);
    }
    let complete = !stopped && report.partial.is_none();
    let no_answer = match (&search, &report.partial) {
        (Some(_), Some(why)) if !complete => Some(format!(
            "the search was cut short ({why}): the {} point{} measured so far are kept, but an unfinished search has not found the highest load under the target",
            points.len(),
            if points.len() == 1 { "" } else { "s" }
        )),
        _ => None,
    };
    report.matrix = Some(Box::new(MatrixResult {
        name: "matrix".into(),
        target: if at.targets.is_empty() {
            "none (null engine)".to_string()
        } else {
            at.targets
                .iter()
                .map(|t| t.path.display().to_string())
                .collect::<Vec<_>>()
                .join(",")
        },
        config: cfg,
        points,
        // A search cut short is not an answer.
        search: search.filter(|_| complete),
        no_answer,
    }));
    Ok(())
}
