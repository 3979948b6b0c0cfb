//! `dbio bench`'s use of the generic worker loop ([`crate::runner`]): the
//! job's parameters, one [`Workload`] and one by-direction recorder per
//! worker, and the merge into a [`JobResult`]. Kept apart so the loop in
//! runner.rs holds nothing that only one command needs.

use crate::engines::Dir;
use crate::recorder::{new_histogram, IoRecord, IoTimes, Recorder};
use crate::runner::{cpu_usage, run_workers_on, Control, Progress, RunParams};
use crate::stripe::StripeMap;
use crate::target::Target;
use crate::workload::{Io, Workload};
use crate::{EngineError, Job};
use dbio_model::stripe::{StripeResult, StripeTarget};
use dbio_model::{JobConfig, JobResult, LatencySummary};
use hdrhistogram::Histogram;

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

/// `dbio bench`'s recorder: by direction, with commits; for a stripe,
/// also by member.
struct BenchRecorder {
    rec: Recorder,
    durable: bool,
    has_sync: bool,
    /// The stripe's translation and one recorder per member (allocated
    /// before the run; recording indexes them).
    stripe: Option<(StripeMap, Vec<MemberRec>)>,
}

/// What one member of a stripe did, in one worker.
#[derive(Clone)]
struct MemberRec {
    reads: u64,
    writes: u64,
    bytes: u64,
    lat: Histogram<u64>,
}

impl Default for MemberRec {
    fn default() -> Self {
        Self {
            reads: 0,
            writes: 0,
            bytes: 0,
            lat: new_histogram(),
        }
    }
}

impl IoRecord for BenchRecorder {
    #[inline]
    fn record(&mut self, io: &Io, t: &IoTimes) {
        if let Some((map, members)) = &mut self.stripe {
            let m = &mut members[map.locate(io.offset).0 as usize];
            if io.dir == Dir::Read {
                m.reads += 1;
            } else {
                m.writes += 1;
            }
            m.bytes += u64::from(io.len);
            m.lat
                .saturating_record(t.sync_done.saturating_sub(t.intended));
        }
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
    run_job_on(name, job, target.as_slice(), None, control, progress)
}

/// Runs `job` on the members of a stripe (`targets`, in order, laid out
/// by `stripe`), or on one target (or none) without a map. The result
/// reports each member beside the totals.
pub fn run_job_on(
    name: &str,
    job: &Job,
    targets: &[&Target],
    stripe: Option<StripeMap>,
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
                stripe: stripe.map(|m| (m, vec![MemberRec::default(); m.members as usize])),
            },
        )
    };
    let out = run_workers_on(&p, targets, stripe, control, progress, &make)?;
    let mut rec = Recorder::default();
    for r in &out.recorders {
        rec.merge(&r.rec);
    }
    let stripe_result = stripe.map(|m| {
        let mut members = vec![MemberRec::default(); m.members as usize];
        for r in &out.recorders {
            if let Some((_, theirs)) = &r.stripe {
                for (a, b) in members.iter_mut().zip(theirs) {
                    a.reads += b.reads;
                    a.writes += b.writes;
                    a.bytes += b.bytes;
                    a.lat.add(&b.lat).expect("same bounds");
                }
            }
        }
        StripeResult {
            layout: m.layout,
            stripe_bytes: m.unit,
            targets: members
                .iter()
                .enumerate()
                .map(|(i, r)| StripeTarget {
                    path: targets
                        .get(i)
                        .map(|t| t.path.display().to_string())
                        .unwrap_or_default(),
                    size: m.member_size,
                    reads: r.reads,
                    writes: r.writes,
                    bytes: r.bytes,
                    lat: LatencySummary::from_histogram(&r.lat),
                    device: out.devices.get(i).cloned().flatten(),
                })
                .collect(),
        }
    });
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
            // Residency is measured on the first target only: for a
            // stripe it would describe one member as if it were all.
            cached_before: out.cached_before.filter(|_| stripe.is_none()),
            cached_after: out.cached_after.filter(|_| stripe.is_none()),
            series: out.series,
            started_at_unix_ns: Some(out.started_at_unix_ns),
            stripe: stripe_result,
            block_device: !targets.is_empty() && targets.iter().all(|t| t.is_block_device),
        },
        error: out.error,
    })
}
