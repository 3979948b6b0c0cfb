//! `dbio read`: datafile reads as a database does them, in explicit cache
//! states, with every read attributed to a cache tier by its latency.
//!
//! `dbio read --cached cold,warm` reproduces Kyle Hailey's "Oracle
//! 'Physical I/O'? not always physical" (the same query averaged 9 ms on a
//! development database and 5 ms on production only because production's
//! OS had cached more of it) in one command: the same read workload on a
//! cold and on a warm file, run in interleaved rounds, shown side by side
//! (tri-modal histogram, averages, tier table).

use crate::cli::ReadArgs;
use crate::progress::Bar;
use crate::run_context::{io_error, new_report, stopped_by, RunContext};
use dbio_engine::runner::Control;
use dbio_engine::stripe::{StripeMap, StripePlan};
use dbio_engine::target::Target;
use dbio_engine::{EngineError, JobTarget};
use dbio_model::read::{Access, BoundarySource, ReadConfig, TierAttribution, TierThresholds};
use dbio_model::units::seconds_to_ns;
use dbio_model::{EngineKind, Finding, JobConfig, Pattern, RunReport, Severity};
use dbio_sim::read::datafile::{members, policy, target, target_name, target_spec};
use dbio_sim::read::{attribute, CacheState, ReadRun};
use std::path::Path;
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering::Relaxed};
use std::sync::Arc;

/// The size to use when `--size` is not given: an existing regular file's
/// own size (it is only read, so all of it is the datafile), else 1 GiB.
/// `Target::prepare` checks the size again on the descriptor it opens.
pub(super) fn default_size(target: &Path, asked: Option<u64>) -> u64 {
    asked.unwrap_or_else(|| match std::fs::metadata(target) {
        Ok(m) if m.is_file() => m.len(),
        _ => 1 << 30,
    })
}

/// The thresholds the options ask for.
fn thresholds(a: &ReadArgs) -> anyhow::Result<TierThresholds> {
    if let Some(p) = &a.tiers.calibration {
        return super::calibrate::load_thresholds(p);
    }
    let t = TierThresholds {
        page_cache_max_ns: a.tiers.page_cache_max,
        storage_cache_max_ns: a.tiers.storage_cache_max,
        source: a.tiers.source().into(),
    };
    t.validate().map_err(anyhow::Error::msg)?;
    Ok(t)
}

/// The logical size of a stripe when `--size` is not given: each member's
/// share is the smallest existing member file's size (they are only
/// read), else 1 GiB in all.
fn default_stripe_size(members: &[std::path::PathBuf], asked: Option<u64>) -> u64 {
    if let Some(s) = asked {
        return s;
    }
    let sizes: Option<Vec<u64>> = members
        .iter()
        .map(|p| {
            std::fs::metadata(p)
                .ok()
                .filter(|m| m.is_file())
                .map(|m| m.len())
        })
        .collect();
    match sizes.and_then(|v| v.into_iter().min()) {
        Some(min) => min * members.len() as u64,
        None => 1 << 30,
    }
}

/// The validated configuration, tier thresholds and cache states of an
/// invocation: the one place the arguments become a [`ReadConfig`].
fn config(a: &ReadArgs) -> anyhow::Result<(ReadConfig, TierThresholds, Vec<CacheState>)> {
    let states: Vec<CacheState> = a
        .cached
        .iter()
        .map(|s| CacheState::parse(s).map_err(anyhow::Error::msg))
        .collect::<anyhow::Result<_>>()?;
    let engine: EngineKind = a.engine.engine.into();
    let (iodepth, direct) = (a.queue.iodepth, a.direct.direct);
    if iodepth > 1 && !dbio_engine::engines::Capabilities::of(engine).queue_depth {
        anyhow::bail!(
            "--iodepth {} needs --engine io_uring or libaio (psync runs one read at a time per thread; use --threads)",
            iodepth
        );
    }
    if engine == EngineKind::Libaio && !direct {
        anyhow::bail!(
            "the libaio engine needs --direct: the kernel's native AIO is asynchronous only for O_DIRECT, and a buffered io_submit completes the read inside the call"
        );
    }
    if engine == EngineKind::Null && direct {
        anyhow::bail!("the null engine does no I/O, so --direct has no meaning with it");
    }
    if engine == EngineKind::IoUring {
        dbio_engine::engines::probe_io_uring().map_err(anyhow::Error::msg)?;
    }
    let bs = a.bs.bs.max(1);
    let cfg = ReadConfig {
        engine,
        direct,
        threads: a.queue.threads,
        iodepth,
        bs: a.bs.bs,
        multiblock_count: a.multiblock_count,
        multiblock_pct: a.multiblock_pct,
        size: if a.stripe.targets.is_empty() {
            default_size(&a.target.path, a.target.size.size)
        } else {
            default_stripe_size(&a.stripe.targets, a.target.size.size)
        } / bs
            * bs,
        distribution: Access::parse(&a.distribution)
            .map_err(|e| anyhow::anyhow!("--distribution {e}"))?,
        runtime_ns: match (a.runtime.runtime.map(seconds_to_ns), a.ops.ops) {
            (None, None) => ReadConfig::default().runtime_ns,
            (r, _) => r,
        },
        ops_limit: a.ops.ops,
        rounds: a.rounds.unwrap_or(if states.len() > 1 { 3 } else { 1 }),
        seed: a.seed.seed,
    };
    dbio_sim::read::validate(&cfg).map_err(anyhow::Error::msg)?;
    Ok((cfg, thresholds(a)?, states))
}

/// A stripe's plan (None without `--targets`), checked as `bench` checks
/// one: the members' paths, the stripe unit a whole number of blocks,
/// the logical size split evenly into whole units (which becomes the
/// configuration's size).
fn stripe_plan(a: &ReadArgs, cfg: &mut ReadConfig) -> anyhow::Result<Option<StripePlan>> {
    let Some(first) = a.stripe.targets.first() else {
        return Ok(None);
    };
    let jc = JobConfig {
        engine: cfg.engine,
        rw: Pattern::Randread,
        bs: cfg.bs,
        iodepth: cfg.iodepth,
        threads: cfg.threads,
        direct: cfg.direct,
        size: cfg.size,
        ..JobConfig::default()
    };
    let place = JobTarget {
        path: first.clone(),
        overwrite: false,
        block_device: policy(a.block_device.allow_block_device),
        keep: a.keep.keep,
    };
    let Some(plan) = super::stripe::plan(&a.stripe, &jc, &place, "--bs", "a block")? else {
        return Ok(None);
    };
    cfg.size = plan.map.logical_size();
    dbio_sim::read::validate(cfg).map_err(anyhow::Error::msg)?;
    Ok(Some(plan))
}

/// Runs every round of every state into `report`; stops early (partial
/// report) on a signal or an I/O error. A thread that cannot be started
/// before anything was measured is an error.
///
/// O_DIRECT reads (`cfg.direct`) bypass the page cache, so none is
/// counted as a page-cache hit whatever its latency, as in `dbio check`.
/// Their storage-cache boundary is the one given (`given`: the options
/// or a calibration file) or, by default, measured in the run as `dbio
/// calibrate` and `check` measure it: O_DIRECT re-reads of a block just
/// read against the reads of the least cached state ([`direct_boundaries`]).
#[allow(clippy::too_many_arguments)]
fn measure(
    cfg: ReadConfig,
    thresholds: TierThresholds,
    given: bool,
    states: &[CacheState],
    targets: &[&Target],
    stripe: Option<StripeMap>,
    stop: &Arc<AtomicBool>,
    signal: &dyn Fn() -> Option<&'static str>,
    quiet: bool,
    report: &mut RunReport,
) -> anyhow::Result<()> {
    let direct = cfg.direct;
    let run = measure_run(
        cfg,
        thresholds.clone(),
        states,
        targets,
        stripe,
        stop,
        signal,
        quiet,
        report,
    )?;
    let att = match () {
        _ if !direct => None,
        _ if given => Some(TierAttribution::direct_with(
            &thresholds,
            BoundarySource::Given,
        )),
        _ if signal().is_some() => Some(TierAttribution::direct_with(
            &thresholds,
            BoundarySource::Default,
        )),
        _ => Some(direct_boundaries(
            &run,
            &thresholds,
            states,
            targets,
            stripe,
            stop,
        )),
    };
    report
        .reads
        .extend(run.finish_attributed(&target_name(targets), att.as_ref()));
    Ok(())
}

/// The boundaries of an O_DIRECT run measured in the run: up to 1000
/// blocks of the first target re-read with O_DIRECT right after reading
/// each (what a cache below the OS answers; a quarter of a round, 0.05 to
/// 0.5 s) against the reads of the least cached state, derived with
/// calibrate's rules ([`attribute::derive`]). The page-cache boundary is
/// the default and counts for nothing: no O_DIRECT read is a page-cache
/// hit. Where the re-reads cannot be made, the given thresholds stand,
/// marked as defaults.
fn direct_boundaries(
    run: &ReadRun,
    thresholds: &TierThresholds,
    states: &[CacheState],
    targets: &[&Target],
    stripe: Option<StripeMap>,
    stop: &Arc<AtomicBool>,
) -> TierAttribution {
    use dbio_model::calibrate::CalibrateConfig;
    use dbio_sim::calibrate::storage_cache_reads;
    let fallback = || TierAttribution::direct_with(thresholds, BoundarySource::Default);
    let coldest = states
        .iter()
        .enumerate()
        .min_by(|a, b| a.1.cached_pct.total_cmp(&b.1.cached_pct))
        .map(|(i, _)| i);
    let (Some(t), Some(reads)) = (targets.first(), coldest.and_then(|i| run.histogram(i))) else {
        return fallback();
    };
    let cfg = run.config();
    let size = stripe.map_or(cfg.size, |m| m.member_size);
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
    stop.store(false, Relaxed);
    let Ok(rereads) = storage_cache_reads(&t.file, &t.path, size / cfg.bs.max(1), &probe, stop)
    else {
        return fallback();
    };
    let has_device = dbio_engine::sysinfo::disk_of_fd(&*t.file).is_some();
    let mut att = attribute::derive(
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
#[allow(clippy::too_many_arguments)]
fn measure_run(
    cfg: ReadConfig,
    thresholds: TierThresholds,
    states: &[CacheState],
    targets: &[&Target],
    stripe: Option<StripeMap>,
    stop: &Arc<AtomicBool>,
    signal: &dyn Fn() -> Option<&'static str>,
    quiet: bool,
    report: &mut RunReport,
) -> anyhow::Result<ReadRun> {
    let rounds = cfg.rounds;
    let mut run = ReadRun::new(cfg, thresholds, states);
    let control = Control {
        stop: stop.clone(),
        ..Default::default()
    };
    'rounds: for r in 0..rounds {
        for (i, s) in states.iter().enumerate() {
            stop.store(signal().is_some(), Relaxed);
            let label = if rounds > 1 {
                format!("{} {}/{rounds}", s.name, r + 1)
            } else {
                s.name.clone()
            };
            let bar = Bar::new(&label, quiet);
            let res = run.round(i, r, targets, stripe, &control, &bar);
            bar.finish();
            if stopped_by(report, signal()) {
                break 'rounds;
            }
            if let Err(e) = res {
                if matches!(e, EngineError::Threads(_)) && r == 0 && i == 0 {
                    return Err(e.into());
                }
                io_error(report, e.to_string());
                break 'rounds;
            }
        }
    }
    Ok(run)
}

/// Runs `dbio read`.
pub fn run(a: ReadArgs) -> anyhow::Result<ExitCode> {
    a.stripe.check().map_err(anyhow::Error::msg)?;
    let (mut cfg, thresholds, states) = config(&a)?;
    let plan = stripe_plan(&a, &mut cfg)?;
    let outputs = crate::output::Outputs::for_run(&a.output)?;
    let ctx = RunContext::new(outputs, a.output.quiet)?;
    let stop = ctx.stop_flag().clone();
    let mut report = new_report("read", &a.target.path);
    super::fleet::begin(&a.fleet, ctx.stop_flag(), &mut report)?;
    let prepared = match &plan {
        Some(p) => members(
            &cfg,
            p,
            a.block_device.allow_block_device,
            a.keep.keep,
            &stop,
        ),
        None => target(
            &cfg,
            &a.target.path,
            a.block_device.allow_block_device,
            a.keep.keep,
            &stop,
        )
        .map(|t| t.into_iter().collect()),
    };
    let ts: Vec<Target> = match prepared {
        Ok(t) => t,
        // Ctrl-C while the datafile was being written: nothing measured.
        Err(_) if ctx.interrupted(&mut report) => {
            return Ok(ctx.finish(&report));
        }
        Err(e) => return Err(e.into()),
    };
    for t in &ts {
        report
            .findings
            .extend(t.notices.iter().map(dbio_engine::target::scratch_note));
    }
    if let Some(t) = ts.first() {
        report.environment = dbio_engine::sysinfo::environment(&t.path);
        if dbio_engine::sysinfo::disk_of_fd(&*t.file).is_none() && thresholds.has_device_tier() {
            report.findings.push(Finding::note(
                "read.no_block_device",
                Severity::Warning,
                format!(
                    "{} has no block device under it ({}): every read is served from memory, so reads the thresholds call storage-cache hits or device reads are slow memory reads",
                    t.path.display(),
                    report.environment.fs_type
                ),
            ));
        }
    }
    let refs: Vec<&Target> = ts.iter().collect();
    let given = a.tiers.calibration.is_some() || a.tiers.source() == "option";
    measure(
        cfg,
        thresholds,
        given,
        &states,
        &refs,
        plan.as_ref().map(|p| p.map),
        &stop,
        &|| ctx.signal(),
        a.output.quiet,
        &mut report,
    )?;
    Ok(ctx.finish(&report))
}

/// The planned time of [`check_section`], seconds: its timed reads, the
/// storage-cache re-reads and about a second to prepare and warm the file.
pub fn check_planned_s(
    dir: &dbio_engine::scratch::ScratchDir,
    runtime_s: f64,
    _space: u64,
) -> anyhow::Result<f64> {
    let each = (runtime_s / 2.0).max(0.2);
    Ok(match dir.supports_direct()? {
        true => 2.0 * each + (runtime_s / 4.0).clamp(0.05, 0.5) + 1.0,
        false => each + 1.0,
    })
}

/// Adds this command's section to `dbio check` (its results go into
/// `report`; `dbio_report::findings::read` reads them); `runtime_s` is check's per-test time, `stop` is
/// raised by SIGINT, SIGTERM, SIGHUP or SIGQUIT.
///
/// The section reads a file of `space` bytes (256 MiB at most) with 8 KiB
/// single-block reads for `runtime_s / 2` twice: buffered with the file
/// warm (page-cache hits) and with O_DIRECT (storage reads), then re-reads
/// up to 1000 blocks with O_DIRECT right after reading each (storage-cache
/// hits, as `dbio calibrate` provokes them; `runtime_s / 4`, 0.5 s at
/// most). The tiers are attributed with the boundaries derived from these
/// reads (an O_DIRECT read is never a page-cache hit), and the section says
/// how far apart the tiers are on this storage and where they overlap.
/// Preparing the file and warming it add about a second.
pub fn check_section(
    dir: &dbio_engine::scratch::ScratchDir,
    runtime_s: f64,
    space: u64,
    stop: &std::sync::Arc<std::sync::atomic::AtomicBool>,
    report: &mut dbio_model::RunReport,
) -> anyhow::Result<()> {
    use dbio_model::calibrate::CalibrateConfig;
    use dbio_sim::calibrate::storage_cache_reads;
    let direct_ok = dir.supports_direct()?;
    let cfg = ReadConfig {
        multiblock_pct: 0,
        size: space.min(256 << 20),
        runtime_ns: Some(seconds_to_ns((runtime_s / 2.0).max(0.2))),
        ..ReadConfig::default()
    };
    // Page-cache hits: buffered reads of a warm file. Storage reads:
    // O_DIRECT reads of the same file (a buffered "cold" file warms up as
    // it is read, so its median soon measures memory, not storage).
    let t = match cfg.engine {
        EngineKind::Null => None,
        // Made in the directory check opened once for the whole run.
        _ => Some(Target::prepare_in(
            &target_spec(&cfg, dir.path(), false, false),
            dir,
            stop,
        )?),
    };
    let name = target_name(t.as_slice().iter().collect::<Vec<_>>().as_slice());
    let before = report.reads.len();
    let never = || None;
    let warm = CacheState::parse("warm").expect("static state");
    let mut runs = vec![measure_run(
        cfg.clone(),
        TierThresholds::default(),
        &[warm],
        t.iter().collect::<Vec<_>>().as_slice(),
        None,
        stop,
        &never,
        true,
        report,
    )?];
    let mut rereads = None;
    // What failed after the buffered reads is returned once their results
    // (and the O_DIRECT ones, if any) are in the report.
    let storage_part = (|| -> anyhow::Result<()> {
        if !direct_ok {
            return Ok(());
        }
        let dcfg = ReadConfig {
            direct: true,
            ..cfg.clone()
        };
        let td = match &t {
            // The same file, through its descriptor (never its path again).
            Some(t) => Some(t.reopen(&target_spec(&dcfg, &t.path, false, false), stop)?),
            None => None,
        };
        let cold = CacheState::parse("cold").expect("static state");
        runs.push(measure_run(
            dcfg,
            TierThresholds::default(),
            &[cold],
            td.iter().collect::<Vec<_>>().as_slice(),
            None,
            stop,
            &never,
            true,
            report,
        )?);
        if let Some(td) = &td {
            let probe = CalibrateConfig {
                bs: cfg.bs,
                size: cfg.size,
                samples: 1000,
                tier_time_ns: seconds_to_ns((runtime_s / 4.0).clamp(0.05, 0.5)),
                ..CalibrateConfig::default()
            };
            let blocks = cfg.size / cfg.bs;
            // The timed run above ends by raising `stop`, as each round
            // begins by clearing it (a signal is kept by the session).
            stop.store(false, Relaxed);
            rereads = Some(storage_cache_reads(
                &td.file, &td.path, blocks, &probe, stop,
            )?);
        }
        Ok(())
    })();
    // The boundaries come from this run's own reads of each tier.
    let hist = |i: usize| runs.get(i).and_then(|r| r.histogram(0));
    let has_device = t
        .as_ref()
        .is_some_and(|t| dbio_engine::sysinfo::disk_of_fd(&*t.file).is_some());
    let att = hist(0).map(|page| {
        let storage = hist(1).unwrap_or_else(dbio_engine::recorder::new_histogram);
        attribute::derive(&page, &storage, rereads.as_ref(), has_device)
    });
    for run in runs {
        report
            .reads
            .extend(run.finish_attributed(&name, att.as_ref()));
    }
    let names = [
        "check page cache (buffered, warm)",
        "check storage (O_DIRECT)",
    ];
    for (r, name) in report.reads[before..].iter_mut().zip(names) {
        r.name = name.to_string();
    }
    // What the section found is drawn by `dbio_report::findings::read`.
    storage_part
}
