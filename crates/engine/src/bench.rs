//! `dbio bench`'s use of the generic worker loop ([`crate::runner`]): the
//! job's parameters, one [`Workload`] and one by-direction recorder per
//! worker, and the merge into a [`JobResult`]. Kept apart so the loop in
//! runner.rs holds nothing that only one command needs.

use crate::engines::Dir;
use crate::recorder::{IoRecord, IoTimes, Recorder};
use crate::runner::{cpu_usage, run_workers, Control, Progress, RunParams};
use crate::target::Target;
use crate::workload::{Io, Workload};
use crate::{EngineError, Job};
use dbio_model::{JobConfig, JobResult, LatencySummary};

/// What a job produced: its result, and the error that stopped it early.
pub struct JobOutcome {
    /// Everything measured (partial when `error` is set or a stop was requested).
    pub result: JobResult,
    /// The first error a worker hit.
    pub error: Option<EngineError>,
}

impl RunParams {
    /// The parameters of a `dbio bench` job.
    pub fn from_job(e: &JobConfig) -> Self {
        Self {
            engine: e.engine,
            iodepth: e.iodepth,
            iodepth_batch: e.iodepth_batch,
            threads: e.threads,
            buf_len: e.bs as usize,
            sync: e.sync,
            warmup_ns: e.warmup_ns,
            runtime_ns: e.runtime_ns,
            ops_limit: e.ops_limit,
            rate_iops: e.rate_iops,
            null_delay_ns: e.null_delay_ns,
            seed: e.seed,
        }
    }
}

/// `dbio bench`'s recorder: by direction, with commits.
struct BenchRecorder {
    rec: Recorder,
    durable: bool,
    has_sync: bool,
}

impl IoRecord for BenchRecorder {
    #[inline]
    fn record(&mut self, io: &Io, t: &IoTimes) {
        if io.dir == Dir::Read {
            self.rec.record_read(u64::from(io.len), t);
        } else {
            self.rec
                .record_write(u64::from(io.len), t, self.durable, self.has_sync);
        }
    }
}

/// Runs `job` on `target` (None for the null engine). An error means
/// nothing was measured (a thread could not be started).
pub fn run_job(
    name: &str,
    job: &Job,
    target: Option<&Target>,
    control: &Control,
    progress: &dyn Progress,
) -> Result<JobOutcome, EngineError> {
    let e = &job.config;
    let p = RunParams::from_job(e);
    let make = |index: u32| {
        (
            Workload::new(e.rw, e.read_pct, e.bs, e.size, e.seed, index, e.threads),
            BenchRecorder {
                rec: Recorder::default(),
                durable: e.sync.is_durable(),
                has_sync: e.sync.has_sync_op(),
            },
        )
    };
    let out = run_workers(&p, target, control, progress, &make)?;
    let mut rec = Recorder::default();
    for r in &out.recorders {
        rec.merge(&r.rec);
    }
    let runtime_ns = out.runtime_ns;
    let read = rec.read.stats(runtime_ns);
    let write = rec.write.stats(runtime_ns);
    let ops = rec.read.ops + rec.write.ops;
    let usage = out.usage;
    let wrote = rec.write.ops > 0;
    Ok(JobOutcome {
        result: JobResult {
            name: name.to_string(),
            job: e.clone(),
            target: job.target_name.clone(),
            runtime_ns,
            read,
            write,
            sync: (wrote && e.sync.has_sync_op())
                .then(|| LatencySummary::from_histogram(&rec.sync)),
            commit: (wrote && e.sync.is_durable())
                .then(|| LatencySummary::from_histogram(&rec.commit)),
            cpu: cpu_usage(&usage, ops, runtime_ns),
            device: out.device,
            cached_before: out.cached_before,
            cached_after: out.cached_after,
            series: out.series,
        },
        error: out.error,
    })
}
