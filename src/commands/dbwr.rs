//! `dbio dbwr`: the database-writer model on a real datafile, one
//! configuration or a sweep over writer counts (`--writers 1,2,4,8`, seed
//! 004's experiment), and the writer section of `dbio check`.

use crate::cli::engine::EngineArg;
use crate::cli::DbwrArgs;
use crate::run_context::{io_error, new_report, RunContext};
use dbio_engine::blockdev::BlockDevicePolicy;
use dbio_engine::engines::probe_io_uring;
use dbio_engine::stripe::{self, StripePlan};
use dbio_engine::sysinfo;
use dbio_engine::JobTarget;
use dbio_model::dbwr::DbwrResult;
use dbio_model::dbwr::{DbwrConfig, Placement};
use dbio_model::units::seconds_to_ns;
use dbio_model::EngineKind;
use dbio_model::{Finding, JobConfig, Pattern, Severity};
use dbio_sim::dbwr::config::validate;
use dbio_sim::dbwr::datafile::{prepare, prepare_stripe, Prepared};
use dbio_sim::dbwr::{report, standard_engines, striped_engines, Datafile, BLOCK_SIZE};
use std::process::ExitCode;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

/// One configuration per writer count, validated.
fn configs(a: &DbwrArgs) -> anyhow::Result<Vec<DbwrConfig>> {
    if a.writers.is_empty() {
        anyhow::bail!("--writers needs at least one writer count");
    }
    let runtime_ns = match (a.runtime.runtime, a.ops.ops) {
        (None, None) => Some(10_000_000_000),
        (r, _) => r.map(seconds_to_ns),
    };
    if runtime_ns == Some(0) {
        anyhow::bail!("--runtime must be longer than 0");
    }
    if a.null_delay.null_delay.is_some() && !matches!(a.engine.engine, EngineArg::Null) {
        anyhow::bail!("--null-delay applies to --engine null only");
    }
    let base = DbwrConfig {
        buffers: a.buffers,
        lists: a.lists,
        writers: 1,
        foregrounds: a.foregrounds,
        dirty_pct: a.dirty,
        batch_max: a.batch,
        scan_depth_pct: a.scan_depth,
        datafile_bytes: a.target.size_or_default(),
        engine: a.engine.engine.into(),
        direct: a.direct.direct,
        null_delay_ns: a.null_delay.ns().unwrap_or(0),
        runtime_ns,
        ops_limit: a.ops.ops,
        rate_iops: a.rate.rate,
        checkpoint_interval_ns: a.checkpoint_interval.map(seconds_to_ns),
        placement: a.placement.clone(),
        seed: a.seed.seed,
    };
    a.writers
        .iter()
        .map(|&writers| {
            let c = DbwrConfig {
                writers,
                ..base.clone()
            };
            validate(&c)?;
            Ok(c)
        })
        .collect()
}

/// A stripe's plan (None without `--targets`), checked as `bench` checks
/// one, with the stripe unit a whole number of 8 KiB blocks; the
/// configurations' datafile size becomes the stripe's logical size.
fn stripe_plan(a: &DbwrArgs, cfgs: &mut [DbwrConfig]) -> anyhow::Result<Option<StripePlan>> {
    let Some(first) = a.stripe.targets.first() else {
        return Ok(None);
    };
    let c = &cfgs[0];
    let jc = JobConfig {
        engine: c.engine,
        rw: Pattern::Randrw,
        bs: BLOCK_SIZE as u64,
        iodepth: if c.engine == EngineKind::Psync {
            1
        } else {
            c.batch_max.max(1)
        },
        direct: c.direct,
        size: c.datafile_bytes,
        null_delay_ns: c.null_delay_ns,
        ..JobConfig::default()
    };
    let place = JobTarget {
        path: first.clone(),
        overwrite: a.overwrite.overwrite,
        block_device: BlockDevicePolicy::NotAccepted,
        keep: a.keep.keep,
    };
    let Some(plan) = super::stripe::plan(&a.stripe, &jc, &place, "the block", "a block")? else {
        return Ok(None);
    };
    for c in cfgs.iter_mut() {
        c.datafile_bytes = plan.map.logical_size();
        validate(c)?;
    }
    Ok(Some(plan))
}

/// Runs one configuration; the result, and the error that cut it short.
/// Behind a progress bar (blocks the writers wrote per second so far, against the
/// planned time or touches) unless `quiet` or stderr is not a terminal.
fn run_one(
    name: &str,
    cfg: &DbwrConfig,
    p: &Prepared,
    stop: &AtomicBool,
    quiet: bool,
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
    let bar = crate::progress::Bar::for_model(&format!("dbwr {name}"), quiet);
    let watch = crate::progress::RateWatch {
        bar: &bar,
        counter: dbio_sim::dbwr::PROBE_WRITES,
        unit: "blocks",
        planned_s: cfg.runtime_ns.map(|ns| ns as f64 / 1e9),
        planned: cfg.ops_limit.map(|n| (dbio_sim::dbwr::PROBE_OPS, n)),
    };
    let ran = dbio_sim::dbwr::run_watched(cfg, &engines, stop, p.disk.as_deref(), verify, &watch);
    bar.finish();
    let (out, _inst) = ran?;
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

/// Runs `dbio dbwr`.
pub fn run(a: DbwrArgs) -> anyhow::Result<ExitCode> {
    a.stripe.check().map_err(anyhow::Error::msg)?;
    let mut cfgs = configs(&a)?;
    let plan = stripe_plan(&a, &mut cfgs)?;
    let outputs = crate::output::Outputs::for_run(&a.output)?;
    let ctx = RunContext::new(outputs, a.output.quiet)?;
    let stop = ctx.stop_flag().clone();
    let mut rep = new_report("dbwr", &a.target.path);
    super::fleet::begin(&a.fleet, ctx.stop_flag(), &mut rep)?;
    // One datafile for the sweep: the configurations differ only in writers.
    let prepared = match &plan {
        Some(plan) => prepare_stripe(plan, &cfgs[0], a.overwrite.overwrite, a.keep.keep, &stop),
        None => prepare(
            &a.target.path,
            None,
            &cfgs[0],
            a.overwrite.overwrite,
            a.keep.keep,
            &stop,
        ),
    };
    let prepared = match prepared {
        Ok(p) => p,
        Err(_) if ctx.interrupted(&mut rep) => {
            return Ok(ctx.finish(&rep));
        }
        Err(e) => return Err(e.into()),
    };
    for t in prepared.target.iter().chain(&prepared.members) {
        rep.findings
            .extend(t.notices.iter().map(dbio_engine::target::scratch_note));
    }
    if let Some(t) = prepared.members.first() {
        // A stripe's environment is its first member's.
        rep.environment = sysinfo::environment(&t.path);
    }
    if let Some(t) = prepared.target.iter().chain(&prepared.members).next() {
        dbio_engine::lifecycle::fill_dio_alignment(&mut rep, t);
    }
    let cpus = rep.environment.cpus;
    let most = cfgs.iter().map(|c| c.writers).max().unwrap_or(1);
    if cpus > 0 && (most + a.foregrounds) as usize > cpus {
        rep.findings.push(
            Finding::note(
                "dbwr.cpu_oversubscribed",
                Severity::Warning,
                format!(
                    "{} foregrounds and up to {most} writers share {cpus} CPUs: when they are all runnable the scheduler, not the storage, sets the pace",
                    a.foregrounds
                ),
            )
            .with_evidence("foreground threads", f64::from(a.foregrounds), "count")
            .with_evidence("writer threads, at most", f64::from(most), "count")
            .with_evidence("CPUs", cpus as f64, "count"),
        );
    }
    for cfg in &cfgs {
        let name = format!("writers={}", cfg.writers);
        let (r, err) = match run_one(&name, cfg, &prepared, &stop, a.output.quiet) {
            Ok(x) => x,
            // What earlier configurations measured is kept: a partial result.
            Err(e) if !rep.dbwr.is_empty() => {
                io_error(&mut rep, format!("{e:#}"));
                break;
            }
            Err(e) => return Err(e),
        };
        rep.dbwr.push(r);
        if ctx.interrupted(&mut rep) {
            break;
        }
        if let Some(message) = err {
            io_error(&mut rep, message);
            break;
        }
        ctx.save(&rep);
    }
    let code = ctx.finish(&rep);
    drop(prepared);
    Ok(code)
}

/// The planned time of [`check_section`], seconds (its run, and about
/// half a second to make the datafile and checkpoint it).
pub fn check_planned_s(
    _dir: &dbio_engine::scratch::ScratchDir,
    runtime_s: f64,
    _space: u64,
) -> anyhow::Result<f64> {
    Ok(runtime_s.max(0.1) + 0.5)
}

/// Adds this command's section to `dbio check` (its results go into
/// `report`; `dbio_report::findings::dbwr` reads them); `runtime_s` is check's per-test time, `stop` is
/// raised by SIGINT, SIGTERM, SIGHUP or SIGQUIT.
///
/// One writer, two full-speed foregrounds changing half the blocks they
/// touch, a cache of 1,024 buffers over a 64 MiB datafile: the writer is
/// the bottleneck, so its write rate is what one writer sustains here, and
/// its CPU share says whether it is CPU-bound. io_uring and O_DIRECT when
/// the system has them; the datafile is `space` bytes at most. About
/// runtime_s + 0.5 s.
pub fn check_section(
    dir: &dbio_engine::scratch::ScratchDir,
    runtime_s: f64,
    space: u64,
    stop: &std::sync::Arc<std::sync::atomic::AtomicBool>,
    report: &mut dbio_model::RunReport,
) -> anyhow::Result<()> {
    let engine = if probe_io_uring().is_ok() {
        EngineKind::IoUring
    } else {
        EngineKind::Psync
    };
    let cfg = DbwrConfig {
        buffers: 1024,
        lists: 8,
        writers: 1,
        foregrounds: 2,
        dirty_pct: 50.0,
        batch_max: 64,
        scan_depth_pct: 40,
        datafile_bytes: space.min(64 << 20) / BLOCK_SIZE as u64 * BLOCK_SIZE as u64,
        engine,
        // O_DIRECT when the filesystem takes it.
        direct: dir.supports_direct()?,
        null_delay_ns: 0,
        runtime_ns: Some(seconds_to_ns(runtime_s.max(0.1))),
        ops_limit: None,
        rate_iops: None,
        checkpoint_interval_ns: None,
        placement: Placement::Free,
        seed: dbio_model::DEFAULT_SEED,
    };
    validate(&cfg)?;
    let prepared = prepare(dir.path(), Some(dir), &cfg, false, false, stop)?;
    // `dbio check` shows a bar per section.
    let (r, err) = run_one("writer check", &cfg, &prepared, stop, true)?;
    if let Some(message) = err {
        io_error(report, message);
    }
    report.dbwr.push(r);
    Ok(())
}
