//! `dbio dbwr`: the database-writer model on a real datafile, one
//! configuration or a sweep over writer counts (`--writers 1,2,4,8`, seed
//! 004's experiment). The sweep is `dbio_sim::dbwr::sweep`'s; this file
//! turns the arguments into configurations and a datafile.

use crate::cli::engine::EngineArg;
use crate::cli::DbwrArgs;
use crate::run_context::{new_report, RunContext};
use dbio_engine::blockdev::BlockDevicePolicy;
use dbio_engine::stripe::StripePlan;
use dbio_engine::JobTarget;
use dbio_model::dbwr::DbwrConfig;
use dbio_model::units::seconds_to_ns;
use dbio_model::EngineKind;
use dbio_model::{JobConfig, Pattern};
use dbio_sim::dbwr::config::validate;
use dbio_sim::dbwr::datafile::{prepare, prepare_stripe};
use dbio_sim::dbwr::sweep::{adopt, oversubscribed, sweep, Hooks};
use dbio_sim::dbwr::BLOCK_SIZE;
use std::process::ExitCode;

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
    adopt(&mut rep, &prepared);
    oversubscribed(&mut rep, &cfgs, a.foregrounds);
    let quiet = a.output.quiet;
    let hooks = Hooks {
        stop: &stop,
        signal: &|| ctx.signal(),
        save: &|r| ctx.save(r),
        progress: &|name| Box::new(crate::progress::Bar::new(name, quiet)),
    };
    sweep(&cfgs, &prepared, &hooks, &mut rep)?;
    let code = ctx.finish(&rep);
    drop(prepared);
    Ok(code)
}
