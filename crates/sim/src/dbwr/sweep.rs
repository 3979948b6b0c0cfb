//! The writer-count sweep on one prepared datafile (`dbio dbwr --writers
//! 1,2,4,8`): each configuration starts from a cold page cache, runs, and
//! becomes one result with each stripe member's share; a signal or an I/O
//! error ends the sweep with what was measured kept as a partial result.
//!
//! Why here: the sweep and what a run on a stripe records are the model's;
//! `dbio dbwr` and the writer section of `dbio check` only choose the
//! configurations and the datafile.

use super::datafile::Prepared;
use super::{report, standard_engines, striped_engines, Datafile, DbwrConfig};
use dbio_engine::runner::{MakeProgress, Progress};
use dbio_engine::{stripe, sysinfo};
use dbio_model::dbwr::DbwrResult;
use dbio_model::{EngineKind, Finding, RunReport, Severity};
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

/// Runs one configuration, its progress shown on `progress`; the result,
/// and the error that cut it short.
pub fn run_one(
    name: &str,
    cfg: &DbwrConfig,
    p: &Prepared,
    stop: &AtomicBool,
    progress: &dyn Progress,
) -> anyhow::Result<(DbwrResult, Option<String>)> {
    // Each configuration starts from a cold page cache, as the first did.
    for t in p.target.iter().chain(&p.members) {
        let _ = sysinfo::drop_from_page_cache_fd(&t.file);
    }
    let sink = Arc::new(std::sync::Mutex::new(Vec::new()));
    let engines = match p.map {
        Some(map) => {
            let files: Vec<Datafile> = p
                .members
                .iter()
                .map(|t| Datafile {
                    file: Arc::clone(&t.file),
                    path: t.path.clone(),
                })
                .collect();
            striped_engines(cfg, &files, map, sink.clone())?
        }
        None => standard_engines(cfg, p.datafile.as_ref())?,
    };
    let verify = cfg.engine != EngineKind::Null;
    // Each member's disk over the whole run (the run's own device
    // counters cover the first member's disk over the load only).
    let before: Vec<_> = p
        .member_disks
        .iter()
        .map(|d| d.as_deref().and_then(sysinfo::disk_counters))
        .collect();
    let (out, _inst) = super::run_shown(cfg, &engines, stop, p.disk.as_deref(), verify, progress)?;
    drop(engines);
    let devices: Vec<_> = p
        .member_disks
        .iter()
        .zip(&before)
        .map(|(d, b)| {
            let after = d.as_deref().and_then(sysinfo::disk_counters)?;
            Some(after.delta(b.as_ref()?))
        })
        .collect();
    let paths: Vec<String> = p
        .target
        .iter()
        .chain(&p.members)
        .map(|t| t.path.display().to_string())
        .collect();
    let mut r = report::result(name, cfg, paths.join(","), &out.data);
    if let Some(map) = &p.map {
        let tallies = sink.lock().map(|v| v.clone()).unwrap_or_default();
        r.stripe = Some(stripe::result(map, &tallies, &paths, &devices));
    }
    Ok((r, out.error.map(|e| e.to_string())))
}

/// Records in `rep` what preparing the datafile found: its notices, a
/// stripe's environment (its first member's) and the O_DIRECT alignment.
pub fn adopt(rep: &mut RunReport, prepared: &Prepared) {
    for t in prepared.target.iter().chain(&prepared.members) {
        rep.findings
            .extend(t.notices.iter().map(dbio_engine::target::scratch_note));
    }
    if let Some(t) = prepared.members.first() {
        // A stripe's environment is its first member's.
        rep.environment = sysinfo::environment(&t.path);
    }
    if let Some(t) = prepared.target.iter().chain(&prepared.members).next() {
        dbio_engine::lifecycle::fill_dio_alignment(rep, t);
    }
}

/// A note when `foregrounds` and the most writers of `cfgs` outnumber the
/// CPUs: the scheduler, not the storage, then sets the pace.
pub fn oversubscribed(rep: &mut RunReport, cfgs: &[DbwrConfig], foregrounds: u32) {
    let cpus = rep.environment.cpus;
    let most = cfgs.iter().map(|c| c.writers).max().unwrap_or(1);
    if cpus > 0 && (most + foregrounds) as usize > cpus {
        rep.findings.push(
            Finding::note(
                "dbwr.cpu_oversubscribed",
                Severity::Warning,
                format!(
                    "{foregrounds} foregrounds and up to {most} writers share {cpus} CPUs: when they are all runnable the scheduler, not the storage, sets the pace"
                ),
            )
            .with_evidence("foreground threads", f64::from(foregrounds), "count")
            .with_evidence("writer threads, at most", f64::from(most), "count")
            .with_evidence("CPUs", cpus as f64, "count"),
        );
    }
}

/// How a sweep is stopped, kept and shown.
pub struct Hooks<'a> {
    /// The stop flag signals raise.
    pub stop: &'a AtomicBool,
    /// The signal that arrived, if one did.
    pub signal: &'a dyn Fn() -> Option<&'static str>,
    /// Gets the result after each configuration.
    pub save: &'a dyn Fn(&RunReport),
    /// A progress display per configuration, by its name.
    pub progress: &'a MakeProgress<'a>,
}

/// Runs every configuration on `prepared`, in order, into `rep`. Stops
/// at a signal or an I/O error (the report is marked partial).
pub fn sweep(
    cfgs: &[DbwrConfig],
    prepared: &Prepared,
    hooks: &Hooks<'_>,
    rep: &mut RunReport,
) -> anyhow::Result<()> {
    let Hooks {
        stop, signal, save, ..
    } = *hooks;
    for cfg in cfgs {
        let name = format!("writers={}", cfg.writers);
        let bar = (hooks.progress)(&name);
        let done = run_one(&name, cfg, prepared, stop, &*bar);
        drop(bar);
        let (r, err) = match done {
            Ok(x) => x,
            // What earlier configurations measured is kept: a partial result.
            Err(e) if !rep.dbwr.is_empty() => {
                rep.io_error(format!("{e:#}"));
                break;
            }
            Err(e) => return Err(e),
        };
        rep.dbwr.push(r);
        if rep.stopped_by(signal()) {
            break;
        }
        if let Some(message) = err {
            rep.io_error(message);
            break;
        }
        save(rep);
    }
    Ok(())
}
