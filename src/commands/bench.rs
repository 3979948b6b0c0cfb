//! `dbio bench`: a raw workload, or a sweep over block sizes.

use crate::cli::BenchArgs;
use crate::run_context::{new_report, resolve_all, RunContext};
use dbio_engine::blockdev::BlockDevicePolicy;
use dbio_engine::JobSpec;
use dbio_model::units::format_bytes;
use std::process::ExitCode;

/// The job specs of a bench invocation: one per block size.
pub fn specs(a: &BenchArgs) -> Vec<(String, JobSpec)> {
    a.bs.iter()
        .map(|&bs| {
            let name = if a.bs.len() > 1 {
                format!("bs={}", format_bytes(bs))
            } else {
                "bench".to_string()
            };
            let spec = JobSpec {
                engine: a.engine.engine.into(),
                rw: a.rw.into(),
                read_pct: a.read_pct,
                bs,
                iodepth: a.queue.iodepth,
                iodepth_batch: a.iodepth_batch,
                direct: a.engine.direct,
                sync: a.sync.into(),
                threads: a.queue.threads,
                size: a.target.size_or_default(),
                prepare: a.prepare.into(),
                runtime_s: a.runtime.runtime,
                ops: a.ops.ops,
                warmup_s: a.warmup.warmup,
                rate_iops: a.rate,
                seed: a.seed.seed,
                null_delay_ns: a.null_delay.ns().unwrap_or(0),
                target: a.target.path.clone(),
                overwrite: a.overwrite.overwrite,
                block_device: if a.block_device.allow_block_device {
                    BlockDevicePolicy::Allowed
                } else {
                    BlockDevicePolicy::NeedsFlag
                },
                keep: a.keep.keep,
            };
            (name, spec)
        })
        .collect()
}

/// Runs `dbio bench`.
pub fn run(a: BenchArgs) -> anyhow::Result<ExitCode> {
    let jobs = resolve_all(specs(&a))?;
    let outputs = crate::output::Outputs::for_run(&a.output)?;
    let mut ctx = RunContext::new(outputs, a.output.quiet)?;
    let mut report = new_report("bench", &a.target.path);
    for j in &jobs {
        if !ctx.run(j, &mut report)? {
            break;
        }
    }
    Ok(ctx.finish(&report))
}
