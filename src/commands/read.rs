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
use crate::run_context::{new_report, RunContext};
use dbio_engine::stripe::StripePlan;
use dbio_engine::target::Target;
use dbio_engine::JobTarget;
use dbio_model::read::{Access, ReadConfig, TierThresholds};
use dbio_model::units::seconds_to_ns;
use dbio_model::{EngineKind, JobConfig, Pattern};
use dbio_sim::read::check_engine;
use dbio_sim::read::datafile::{adopt, default_size, default_stripe_size, members, policy, target};
use dbio_sim::read::rounds::{measure, Rounds};
use dbio_sim::read::CacheState;
use std::process::ExitCode;

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
    check_engine(engine, iodepth, direct).map_err(anyhow::Error::msg)?;
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
        rounds: a.rounds.or(if states.len() > 1 { 3 } else { 1 }),
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
    adopt(&mut report, &ts, &thresholds);
    let refs: Vec<&Target> = ts.iter().collect();
    let quiet = a.output.quiet;
    let at = Rounds {
        targets: &refs,
        stripe: plan.as_ref().map(|p| p.map),
        stop: &stop,
        signal: &|| ctx.signal(),
        progress: &|label| Box::new(Bar::new(label, quiet)),
    };
    // Boundaries the user gave (an option or a calibration file) stand;
    // otherwise an O_DIRECT run measures its storage-cache boundary.
    let given = a.tiers.calibration.is_some() || a.tiers.source() == "option";
    measure(cfg, thresholds, given, &states, &at, &mut report)?;
    Ok(ctx.finish(&report))
}
