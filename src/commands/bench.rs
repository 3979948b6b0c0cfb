//! `dbio bench`: a raw workload, or a sweep over block sizes.

use crate::cli::BenchArgs;
use crate::run_context::{new_report, resolve_all, RunContext};
use dbio_engine::blockdev::BlockDevicePolicy;
use dbio_engine::{stripe, JobTarget};
use dbio_model::units::{format_bytes, seconds_to_ns};
use dbio_model::JobConfig;
use std::process::ExitCode;

/// The jobs of a bench invocation, one per block size: the one place the
/// arguments become [`JobConfig`]s.
pub fn configs(a: &BenchArgs) -> Vec<(String, JobConfig)> {
    a.bs.iter()
        .map(|&bs| {
            let name = if a.bs.len() > 1 {
                format!("bs={}", format_bytes(bs))
            } else {
                "bench".to_string()
            };
            let config = JobConfig {
                engine: a.engine.engine.into(),
                rw: a.rw.into(),
                read_pct: a.read_pct,
                bs,
                iodepth: a.queue.iodepth,
                iodepth_batch: a.iodepth_batch,
                direct: a.direct.direct,
                sync: a.sync.into(),
                threads: a.queue.threads,
                size: a.target.size_or_default(),
                prepare: a.prepare.prepare.into(),
                runtime_ns: a.runtime.runtime.map(seconds_to_ns),
                ops_limit: a.ops.ops,
                warmup_ns: seconds_to_ns(a.warmup.warmup),
                rate_iops: a.rate.rate,
                seed: a.seed.seed,
                null_delay_ns: a.null_delay.ns().unwrap_or(0),
            };
            (name, config)
        })
        .collect()
}

/// Where bench's jobs go and what they may do there.
fn target(a: &BenchArgs) -> JobTarget {
    JobTarget {
        path: a.target.path.clone(),
        overwrite: a.overwrite.overwrite,
        block_device: if a.block_device.allow_block_device {
            BlockDevicePolicy::Allowed
        } else {
            BlockDevicePolicy::NeedsFlag
        },
        keep: a.keep.keep,
    }
}

/// Runs `dbio bench`.
pub fn run(a: BenchArgs) -> anyhow::Result<ExitCode> {
    a.stripe.check().map_err(anyhow::Error::msg)?;
    let (start_at, clock) = super::fleet::check(&a.fleet)?;
    let striped = !a.stripe.targets.is_empty();
    let mut place = target(&a);
    if striped {
        place.path = a.stripe.targets[0].clone();
    }
    let mut jobs = resolve_all(configs(&a), &place)?;
    // A stripe's plan per job (the same members for every block size).
    let plans = if striped {
        jobs.iter_mut()
            .map(|j| {
                stripe::plan(
                    &mut j.job,
                    &a.stripe.targets,
                    a.stripe.layout(),
                    a.stripe.unit(),
                )
                .map(Some)
            })
            .collect::<Result<Vec<_>, _>>()?
    } else {
        vec![None; jobs.len()]
    };
    let outputs = crate::output::Outputs::for_run(&a.output)?;
    let mut ctx = RunContext::new(outputs, a.output.quiet)?;
    ctx.set_start_at(start_at);
    let mut report = new_report("bench", &place.path);
    super::fleet::record(&mut report, a.fleet.label.as_deref(), start_at);
    report.clock = clock;
    for (j, plan) in jobs.iter().zip(&plans) {
        let go_on = match plan {
            Some(p) => ctx.run_striped(j, p, &mut report)?,
            None => ctx.run(j, &mut report)?,
        };
        if !go_on {
            break;
        }
    }
    Ok(ctx.finish(&report))
}
