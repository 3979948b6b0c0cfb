//! `dbio bench`: a raw workload, or a sweep over block sizes.

use crate::cli::BenchArgs;
use crate::session::{new_report, resolve_all, Session};
use dbio_engine::blockdev::BlockDevicePolicy;
use dbio_engine::JobSpec;
use dbio_model::units::format_bytes;
use dbio_report::table::TableOptions;
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
                engine: a.engine.into(),
                rw: a.rw.into(),
                read_pct: a.read_pct,
                bs,
                iodepth: a.iodepth,
                iodepth_batch: a.iodepth_batch,
                direct: a.direct,
                sync: a.sync.into(),
                threads: a.threads,
                size: a.size,
                prepare: a.prepare.into(),
                runtime_s: a.runtime,
                ops: a.ops,
                warmup_s: a.warmup,
                rate_iops: a.rate,
                seed: a.seed,
                null_delay_ns: a.null_delay.map_or(0, |d| (d * 1e9) as u64),
                target: a.target.clone(),
                overwrite: a.overwrite,
                block_device: if a.allow_block_device {
                    BlockDevicePolicy::Allowed
                } else {
                    BlockDevicePolicy::NeedsFlag
                },
                keep: a.keep,
            };
            (name, spec)
        })
        .collect()
}

/// Runs `dbio bench`.
pub fn run(a: BenchArgs) -> anyhow::Result<ExitCode> {
    let jobs = resolve_all(specs(&a))?;
    let outputs = crate::output::Outputs::for_run(&a.output)?;
    let mut session = Session::new(a.output.quiet)?;
    let mut report = new_report("bench", &a.target);
    for j in &jobs {
        if !session.run(j, &mut report, &outputs)? {
            break;
        }
    }
    Ok(outputs.finish(&report, TableOptions { detail: true }))
}
