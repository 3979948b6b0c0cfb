//! Runs a job: one worker thread per `--threads`, one reporter thread.
//!
//! Workers share nothing mutable but their own [`LiveCounters`] and the stop
//! flag. Each owns an engine (made by [`crate::engines::open`]), a workload
//! generator, its buffers and a recorder ([`IoRecord`]); the loop neither
//! prints nor allocates. The reporter thread starts the measured interval
//! (device counters), takes the per-second series from the live counters,
//! drives progress, and raises the stop flag at the deadline. After the
//! join the caller merges the recorders (`dbio bench`: into one
//! [`dbio_model::JobResult`]).
//!
//! Latency is measured from each I/O's *intended* start: with `--rate` that
//! is its slot in the schedule, so a stall delays the schedule's later I/Os
//! and their waiting time is counted (no coordinated omission); without a
//! rate it is when the worker picked the I/O.
//!
//! [`run_workers`] is the whole of it: any [`IoStream`] (what to do next)
//! and any [`IoRecord`] (what to keep) per worker, so a model such as the
//! datafile-read mix reuses this loop instead of copying it. What only
//! `dbio bench` needs (its recorder, its job set-up) lives in
//! [`crate::bench`], so this file is the generic loop alone.

use crate::buf::AlignedBuf;
use crate::clock::{now_ns, wait_until};
use crate::engines::{
    self, Completion, Dir, Engine, EngineFile, EngineOptions, IoRequest, Queued, SyncOp,
};
use crate::live::{LiveCounters, LiveSnapshot};
use crate::recorder::{IoRecord, IoTimes};
use crate::rusage::{thread_usage, Usage};
use crate::stripe::StripeMap;
use crate::sysinfo::{self, DiskCounters};
use crate::target::Target;
use crate::threads::{spawn_scoped, StartGate};
use crate::workload::{Io, IoStream};
use crate::EngineError;
use dbio_model::{
    CpuUsage, DiskStatsDelta, Durability, EngineKind, PageCacheResidency, SecondSample,
};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering::Relaxed};

// `dbio bench`'s entry point, still reachable where callers found it.
pub use crate::bench::{run_job, JobOutcome};

/// Shared run control: the stop flag that signals and errors raise.
#[derive(Debug, Default)]
pub struct Control {
    /// When set, workers stop issuing, reap what is in flight and return.
    pub stop: std::sync::Arc<AtomicBool>,
    /// When non-zero, the next run's workers start at this wall-clock
    /// time (ns since the Unix epoch; `--start-at`) instead of as soon as
    /// they are ready. The threads are started and waiting beforehand, so
    /// the start is as precise as the clock wait (tens of µs), not the
    /// thread start-up (ms on a loaded machine). Taken (reset) by the run.
    pub start_at_unix_ns: AtomicU64,
}

impl Control {
    /// Whether a stop was requested.
    pub fn stopped(&self) -> bool {
        self.stop.load(Relaxed)
    }
}

/// What the reporter tells the progress display, a few times a second.
#[derive(Debug, Clone, Copy)]
pub struct ProgressInfo {
    /// Seconds since the start, warm-up included.
    pub elapsed_s: f64,
    /// Planned seconds (warm-up + runtime) for time-based jobs.
    pub planned_s: Option<f64>,
    /// Operations completed so far.
    pub ops_done: u64,
    /// Planned operations for count-based jobs.
    pub ops_planned: Option<u64>,
    /// Operations per second over the last interval.
    pub iops: f64,
    /// Bytes per second over the last interval.
    pub bytes_per_sec: f64,
    /// True while in the warm-up.
    pub warming_up: bool,
    /// What `ops_done` and `iops` count.
    pub counted: Counted,
}

/// What a progress report's operations are: I/Os (shown with their byte
/// rate), commits (a commit is not an I/O) or buffer operations (the
/// database-writer model's foregrounds).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Counted {
    /// I/Os.
    #[default]
    Ios,
    /// Commits.
    Commits,
    /// Buffer operations.
    BufferOps,
}

/// Shows a run that is one step of a longer whole (a section of `dbio
/// check`) on the whole's display: the step's elapsed time is placed
/// after the `done_s` seconds of earlier steps, out of `total_s` planned
/// seconds for the whole.
pub struct Spanned<'a> {
    /// The whole's display.
    pub inner: &'a dyn Progress,
    /// Planned seconds of the steps before this one.
    pub done_s: f64,
    /// Planned seconds of the whole.
    pub total_s: f64,
}

impl Spanned<'_> {
    /// `info` as a report on the whole: elapsed time from the whole's
    /// start (this step counted at most to its plan), the whole's plan.
    pub fn place(&self, info: &ProgressInfo) -> ProgressInfo {
        let step = match info.planned_s {
            Some(p) => info.elapsed_s.min(p),
            None => info.elapsed_s,
        };
        ProgressInfo {
            elapsed_s: self.done_s + step,
            planned_s: Some(self.total_s),
            ops_planned: None,
            ..*info
        }
    }
}

impl Progress for Spanned<'_> {
    fn update(&self, info: &ProgressInfo) {
        self.inner.update(&self.place(info));
    }

    fn shown(&self) -> bool {
        self.inner.shown()
    }
}

/// A sink for progress (a terminal bar, or nothing).
pub trait Progress: Sync {
    /// Called from the reporter thread; must not block for long.
    fn update(&self, info: &ProgressInfo);

    /// Whether anything is shown: a model starts no reporter thread for a
    /// display that shows nothing (quiet, or not a terminal).
    fn shown(&self) -> bool {
        true
    }
}

/// Makes a progress display for a step named by its argument (a job, a
/// round); the display is dropped when the step ends.
pub type MakeProgress<'a> = dyn Fn(&str) -> Box<dyn Progress + 'a> + 'a;

/// A progress sink that shows nothing.
pub struct NoProgress;

impl Progress for NoProgress {
    fn update(&self, _: &ProgressInfo) {}

    fn shown(&self) -> bool {
        false
    }
}

/// How workers run, independent of what they do: engine, concurrency,
/// limits and schedule.
#[derive(Debug, Clone)]
pub struct RunParams {
    /// Engine.
    pub engine: EngineKind,
    /// I/Os in flight per worker.
    pub iodepth: u32,
    /// I/Os queued before one submission (1: each as soon as it is ready).
    pub iodepth_batch: u32,
    /// Worker threads.
    pub threads: u32,
    /// Bytes of each I/O buffer (the largest I/O a stream may ask for).
    pub buf_len: usize,
    /// Sync after each write.
    pub sync: Durability,
    /// Warm-up, ns (excluded from recording).
    pub warmup_ns: u64,
    /// Measured time, ns.
    pub runtime_ns: Option<u64>,
    /// Measured operations over all workers.
    pub ops_limit: Option<u64>,
    /// Rate over all workers, IOPS.
    pub rate_iops: Option<u64>,
    /// Service time of the null engine, ns.
    pub null_delay_ns: u64,
    /// Seed of the buffer contents.
    pub seed: u64,
}

/// What [`run_workers`] measured: one recorder per worker, unmerged.
pub struct RunOutput<R> {
    /// Each worker's recorder.
    pub recorders: Vec<R>,
    /// CPU of the workers over their measured part.
    pub usage: Usage,
    /// Measured time, ns (warm-up end to the last worker's end).
    pub runtime_ns: u64,
    /// Per-second series.
    pub series: Vec<SecondSample>,
    /// The total latencies of each sample of `series`: its non-empty
    /// log-linear buckets ([`crate::live`]), for models that split a
    /// second by latency (`dbio read`'s tiers).
    pub second_buckets: Vec<Vec<(u16, u64)>>,
    /// Disk counters over the measured interval.
    pub device: Option<DiskStatsDelta>,
    /// Each target's disk counters over the measured interval, in the
    /// order of the targets (one entry for a single target, the same as
    /// `device`).
    pub devices: Vec<Option<DiskStatsDelta>>,
    /// Wall-clock start of the measured interval (the end of the warm-up),
    /// ns since the Unix epoch.
    pub started_at_unix_ns: u64,
    /// Page-cache residency of the target before the run.
    pub cached_before: Option<PageCacheResidency>,
    /// Page-cache residency of the target after the run.
    pub cached_after: Option<PageCacheResidency>,
    /// Operations completed in the measured interval (from the recorders'
    /// point of view: every I/O handed to `record`).
    pub ops: u64,
    /// The first error a worker hit.
    pub error: Option<EngineError>,
}

/// CPU figures of `usage` over `ops` operations and `runtime_ns`.
pub fn cpu_usage(usage: &Usage, ops: u64, runtime_ns: u64) -> CpuUsage {
    let cpu_ns = usage.user_ns + usage.system_ns;
    CpuUsage {
        user_ns: usage.user_ns,
        system_ns: usage.system_ns,
        voluntary_cs: usage.nvcsw,
        involuntary_cs: usage.nivcsw,
        per_io_ns: if ops > 0 {
            cpu_ns as f64 / ops as f64
        } else {
            0.0
        },
        utilisation: cpu_ns as f64 / runtime_ns.max(1) as f64,
    }
}

struct WorkerOut<R> {
    recorder: R,
    ops: u64,
    usage: Usage,
    finished_ns: u64,
    error: Option<EngineError>,
}

#[derive(Clone, Copy)]
struct Schedule {
    warmup_end_ns: u64,
    /// Operations per thread (measured ones), when count-based.
    quota: Option<u64>,
    /// Per-thread interval between intended starts, when rate-limited.
    rate_interval_ns: Option<u64>,
}

/// Runs `p.threads` workers on `target` (None for the null engine); worker
/// `i` gets its stream and recorder from `make(i)`, called on its own thread.
/// Every stream I/O must fit in `p.buf_len` bytes.
pub fn run_workers<S, R, F>(
    p: &RunParams,
    target: Option<&Target>,
    control: &Control,
    progress: &dyn Progress,
    make: &F,
) -> Result<RunOutput<R>, EngineError>
where
    S: IoStream,
    R: IoRecord,
    F: Fn(u32) -> (S, R) + Sync,
{
    run_workers_on(p, target.as_slice(), None, control, progress, make)
}

/// [`run_workers`] over several targets laid out by `stripe` (the members
/// of a stripe, in order): each stream offset is logical and goes to the
/// member and offset [`StripeMap::locate`] gives. Without a map the one
/// target (or none, for the null engine) takes the offsets as they are.
pub fn run_workers_on<S, R, F>(
    p: &RunParams,
    targets: &[&Target],
    stripe: Option<StripeMap>,
    control: &Control,
    progress: &dyn Progress,
    make: &F,
) -> Result<RunOutput<R>, EngineError>
where
    S: IoStream,
    R: IoRecord,
    F: Fn(u32) -> (S, R) + Sync,
{
    let threads = p.threads as usize;
    let live: Vec<LiveCounters> = (0..threads).map(|_| LiveCounters::default()).collect();
    let target = targets.first().copied();
    // Each target's disk, and the distinct disks the reporter samples.
    let target_disks: Vec<Option<String>> = targets
        .iter()
        .map(|t| {
            sysinfo::disk_of_fd(&*t.file)
                .and_then(|(sys, _)| sys.file_name().map(|n| n.to_string_lossy().to_string()))
        })
        .collect();
    let mut disks: Vec<String> = Vec::new();
    for d in target_disks.iter().flatten() {
        if !disks.contains(d) {
            disks.push(d.clone());
        }
    }
    let cached_before = target.and_then(|t| sysinfo::page_cache_residency_fd(&t.file));
    let gate = StartGate::new();
    let finished = AtomicUsize::new(0);
    let mut start_ns = now_ns() + 1_000_000; // let every worker reach the gate
    let at = control.start_at_unix_ns.swap(0, Relaxed);
    if at > 0 {
        let ahead = at.saturating_sub(wall_ns());
        start_ns = start_ns.max(now_ns() + ahead);
    }
    let warmup_end_ns = start_ns + p.warmup_ns;
    let deadline_ns = p.runtime_ns.map(|r| warmup_end_ns + r);
    // Without a warm-up the measured window opens at `start_ns`, before
    // which no worker does I/O: the disks' counters are read now, so the
    // window they cover holds all of it. (Read by the reporter when it
    // wakes at `start_ns`, they missed what the workers did until a
    // loaded machine ran it: 93 of 6,967 O_DIRECT reads of a matrix point.
    // With a warm-up the reporter reads them at its end, up to one wake-up
    // late.)
    let disk_at_start: Option<Vec<Option<sysinfo::DiskCounters>>> =
        (p.warmup_ns == 0).then(|| disks.iter().map(|d| sysinfo::disk_counters(d)).collect());
    let sched = Schedule {
        warmup_end_ns,
        quota: p.ops_limit,
        rate_interval_ns: p
            .rate_iops
            .map(|r| (1e9 * p.threads as f64 / r as f64) as u64),
    };

    // Workers, then the reporter: threads + 1 in all.
    let total = threads + 1;
    let (outs, reporter, spawn_error) = std::thread::scope(|s| {
        let mut handles = Vec::with_capacity(threads);
        let mut spawn_error = None;
        for i in 0..threads {
            let live = &live[i];
            let gate = &gate;
            let finished = &finished;
            let quota = sched
                .quota
                .map(|q| q / p.threads as u64 + u64::from((i as u64) < q % p.threads as u64));
            let sched = Schedule { quota, ..sched };
            let spawned = spawn_scoped(s, format!("dbio-worker-{i}"), i, total, move || {
                let (stream, recorder) = make(i as u32);
                let args = WorkerArgs {
                    index: i as u32,
                    p,
                    control,
                    live,
                    gate,
                    start_ns,
                    sched,
                };
                let out = worker(args, targets, stripe, stream, recorder);
                finished.fetch_add(1, Relaxed);
                out
            });
            match spawned {
                Ok(h) => handles.push(h),
                Err(e) => {
                    spawn_error = Some(e);
                    break;
                }
            }
        }
        let rep = match spawn_error {
            Some(_) => None,
            None => match spawn_scoped(s, "dbio-reporter".into(), threads, total, || {
                reporter(
                    &live,
                    &finished,
                    threads,
                    control,
                    progress,
                    start_ns,
                    warmup_end_ns,
                    deadline_ns,
                    p,
                    &disks,
                    disk_at_start,
                )
            }) {
                Ok(h) => Some(h),
                Err(e) => {
                    spawn_error = Some(e);
                    None
                }
            },
        };
        if spawn_error.is_some() {
            // The threads already started return without doing any I/O.
            gate.abort();
        } else {
            gate.open_when_arrived(threads);
        }
        let outs: Vec<WorkerOut<R>> = handles
            .into_iter()
            .map(|h| h.join().expect("worker thread panicked"))
            .collect();
        let reporter = rep.map(|h| h.join().expect("reporter thread panicked"));
        (outs, reporter, spawn_error)
    });
    if let Some(e) = spawn_error {
        return Err(e.into());
    }
    let reporter = reporter.expect("the reporter ran when every thread started");

    let mut recorders = Vec::with_capacity(outs.len());
    let mut usage = Usage::default();
    let mut error = None;
    let mut end_ns = warmup_end_ns;
    let mut ops = 0;
    for o in outs {
        recorders.push(o.recorder);
        usage = usage.plus(&o.usage);
        end_ns = end_ns.max(o.finished_ns);
        ops += o.ops;
        if error.is_none() {
            error = o.error;
        }
    }
    let runtime_ns = end_ns.saturating_sub(warmup_end_ns).max(1);
    let deltas: Vec<Option<DiskStatsDelta>> = disks
        .iter()
        .zip(&reporter.disk_start)
        .map(|(name, start)| {
            start
                .as_ref()
                .and_then(|a| sysinfo::disk_counters(name).map(|b| b.delta(a)))
        })
        .collect();
    let devices: Vec<Option<DiskStatsDelta>> = target_disks
        .iter()
        .map(|d| {
            d.as_ref()
                .and_then(|d| disks.iter().position(|x| x == d))
                .and_then(|i| deltas.get(i).cloned().flatten())
        })
        .collect();
    let device = devices.first().cloned().flatten();
    // The monotonic clock's start, on the wall clock: both read together
    // (the pair is at most a few µs apart).
    let mono_now = now_ns();
    let wall_now = wall_ns();
    let started_at_unix_ns = wall_now.saturating_sub(mono_now.saturating_sub(warmup_end_ns));
    Ok(RunOutput {
        recorders,
        usage,
        runtime_ns,
        series: reporter.series,
        second_buckets: reporter.buckets,
        device,
        devices,
        started_at_unix_ns,
        cached_before,
        cached_after: target.and_then(|t| sysinfo::page_cache_residency_fd(&t.file)),
        ops,
        error,
    })
}

/// The wall clock, ns since the Unix epoch.
fn wall_ns() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as u64)
}

fn worker<S: IoStream, R: IoRecord>(
    args: WorkerArgs<'_>,
    targets: &[&Target],
    stripe: Option<StripeMap>,
    stream: S,
    recorder: R,
) -> WorkerOut<R> {
    let p = args.p;
    let files: Vec<EngineFile<'_>> = targets
        .iter()
        .map(|t| EngineFile {
            file: &t.file,
            path: &t.path,
        })
        .collect();
    worker_loop(args, stripe, stream, recorder, |bufs| {
        engines::open_files(
            p.engine,
            &files,
            &EngineOptions {
                depth: p.iodepth,
                bufs,
                buf_len: p.buf_len,
                null_delay_ns: p.null_delay_ns,
                null_out_of_order: None,
            },
        )
    })
}

/// Per-slot bookkeeping of an in-flight I/O.
#[derive(Clone, Copy)]
struct Slot {
    io: Io,
    intended: u64,
    submitted: u64,
    measured: bool,
}

/// What a worker needs besides its engine, stream and recorder.
struct WorkerArgs<'a> {
    index: u32,
    p: &'a RunParams,
    control: &'a Control,
    live: &'a LiveCounters,
    gate: &'a StartGate,
    start_ns: u64,
    sched: Schedule,
}

/// The measurement loop. `make_engine` receives the I/O buffers (one per
/// tag) so an engine can register them.
fn worker_loop<E: Engine, S: IoStream, R: IoRecord>(
    WorkerArgs {
        index,
        p,
        control,
        live,
        gate,
        start_ns,
        sched,
    }: WorkerArgs<'_>,
    stripe: Option<StripeMap>,
    mut stream: S,
    mut rec: R,
    make_engine: impl FnOnce(&[*mut u8]) -> Result<E, EngineError>,
) -> WorkerOut<R> {
    let qd = p.iodepth as usize;
    let bufs: Option<Vec<AlignedBuf>> = (0..qd)
        .map(|i| AlignedBuf::try_patterned(p.buf_len, p.seed ^ ((index as u64) << 32) ^ i as u64))
        .collect();
    let mut bufs = bufs.unwrap_or_default();
    let ptrs: Vec<*mut u8> = bufs.iter_mut().map(|b| b.as_mut_ptr()).collect();
    let engine = if bufs.is_empty() {
        Err(EngineError::Unsupported(crate::buf::alloc_error(
            qd * p.buf_len,
        )))
    } else {
        make_engine(&ptrs)
    };
    let mut engine = match engine {
        Ok(engine) => engine,
        Err(err) => {
            control.stop.store(true, Relaxed);
            gate.arrive();
            return WorkerOut {
                recorder: rec,
                ops: 0,
                usage: Usage::default(),
                finished_ns: now_ns(),
                error: Some(err),
            };
        }
    };
    let mut slots = vec![
        Slot {
            io: Io {
                dir: Dir::Read,
                offset: 0,
                len: 0,
                class: 0,
            },
            intended: 0,
            submitted: 0,
            measured: false
        };
        qd
    ];
    let mut free: Vec<u32> = (0..qd as u32).rev().collect();
    let mut batch: Vec<u32> = Vec::with_capacity(qd);
    let mut done: Vec<Completion> = Vec::with_capacity(qd);
    let sync_op = match p.sync {
        Durability::Fdatasync => SyncOp::Fdatasync,
        Durability::Fsync => SyncOp::Fsync,
        _ => SyncOp::None,
    };
    let submit_batch = p.iodepth_batch.max(1) as usize;
    let quota = sched.quota.unwrap_or(u64::MAX);
    let mut measured_issued = 0u64;
    let mut measured_done = 0u64;
    let mut inflight = 0usize;
    let mut usage_start: Option<Usage> = None;
    let mut error = None;

    if !gate.arrive() {
        // Another thread could not start: no I/O.
        return WorkerOut {
            recorder: rec,
            ops: 0,
            usage: Usage::default(),
            finished_ns: now_ns(),
            error: None,
        };
    }
    wait_until(start_ns);
    let mut next_due = start_ns;

    let mut complete = |c: &Completion, slots: &mut [Slot], rec: &mut R| {
        let s = slots[c.tag as usize];
        let t = IoTimes {
            intended: s.intended,
            submitted: s.submitted.max(s.intended),
            io_done: c.io_done_ns.max(s.submitted),
            sync_done: c.sync_done_ns.max(c.io_done_ns).max(s.submitted),
        };
        if s.measured {
            rec.record(&s.io, &t);
            measured_done += 1;
        }
        live.count(
            s.io.dir == Dir::Read,
            u64::from(s.io.len),
            t.sync_done - t.intended,
        );
    };

    'run: loop {
        // Issue until the queue is full, the quota is reached or a stop is asked.
        while measured_issued < quota && !control.stop.load(Relaxed) {
            let Some(tag) = free.pop() else { break };
            let intended = match sched.rate_interval_ns {
                Some(iv) => {
                    let due = next_due;
                    next_due += iv;
                    wait_until(due);
                    due
                }
                None => now_ns(),
            };
            let measured = intended >= sched.warmup_end_ns;
            if measured {
                if usage_start.is_none() {
                    usage_start = Some(thread_usage());
                }
                measured_issued += 1;
            }
            let io = stream.next();
            debug_assert!(io.len as usize <= p.buf_len);
            slots[tag as usize] = Slot {
                io,
                intended,
                submitted: intended,
                measured,
            };
            // A stripe's logical offset → its member and the offset there
            // (two divisions; the slot keeps the logical one for the recorder).
            let (file, offset) = match stripe {
                Some(m) => m.locate(io.offset),
                None => (0, io.offset),
            };
            let req = IoRequest {
                tag,
                dir: io.dir,
                offset,
                len: io.len,
                buf: ptrs[tag as usize],
                sync: if io.dir == Dir::Write {
                    sync_op
                } else {
                    SyncOp::None
                },
            };
            // SAFETY: `ptrs[tag]` is `bufs[tag]`, `buf_len` bytes (the
            // stream's I/Os fit, asserted above), alive until after the
            // engine is dropped below and never moved (the Vec is not
            // touched until then); `tag` came off the free list and goes
            // back only when its completion is handled, so no other I/O
            // uses the buffer meanwhile, and the loop never reads it.
            match unsafe { engine.queue_on(file, &req) } {
                Ok(Queued::Done(c)) => {
                    complete(&c, &mut slots, &mut rec);
                    free.push(tag);
                }
                Ok(Queued::InFlight) => {
                    batch.push(tag);
                    inflight += 1;
                    // Submitting as soon as `iodepth_batch` I/Os are ready
                    // keeps the device queue full: batching a whole reap's
                    // worth lost 25 % of the IOPS of 4 KiB O_DIRECT reads at
                    // QD32 against fio's one-at-a-time default here.
                    if batch.len() >= submit_batch {
                        if let Err(err) = submit(&mut engine, &mut batch, &mut slots) {
                            error = Some(err);
                            break 'run;
                        }
                    }
                }
                Err(err) => {
                    error = Some(err);
                    break 'run;
                }
            }
        }
        if !batch.is_empty() {
            if let Err(err) = submit(&mut engine, &mut batch, &mut slots) {
                error = Some(err);
                break 'run;
            }
        }
        if inflight == 0 {
            if measured_issued >= quota || control.stop.load(Relaxed) {
                break;
            }
            continue;
        }
        if let Err(err) = engine.reap(1, &mut done) {
            error = Some(err);
            break 'run;
        }
        for c in done.drain(..) {
            complete(&c, &mut slots, &mut rec);
            free.push(c.tag);
            inflight -= 1;
        }
    }
    if error.is_some() {
        control.stop.store(true, Relaxed);
    }
    let finished_ns = now_ns();
    let usage = usage_start.map_or(Usage::default(), |u0| thread_usage().since(&u0));
    // The engine first: io_uring waits in Drop for I/Os still using the buffers.
    drop(engine);
    drop(bufs);
    WorkerOut {
        recorder: rec,
        ops: measured_done,
        usage,
        finished_ns,
        error,
    }
}

/// Submits the queued I/Os and stamps their submission time (slat's end).
fn submit<E: Engine>(
    engine: &mut E,
    batch: &mut Vec<u32>,
    slots: &mut [Slot],
) -> Result<(), EngineError> {
    engine.commit()?;
    let t = now_ns();
    for &tag in batch.iter() {
        slots[tag as usize].submitted = t;
    }
    batch.clear();
    Ok(())
}

struct ReporterOut {
    series: Vec<SecondSample>,
    buckets: Vec<Vec<(u16, u64)>>,
    disk_start: Vec<Option<DiskCounters>>,
}

#[allow(clippy::too_many_arguments)]
fn reporter(
    live: &[LiveCounters],
    finished: &AtomicUsize,
    workers: usize,
    control: &Control,
    progress: &dyn Progress,
    start_ns: u64,
    warmup_end_ns: u64,
    deadline_ns: Option<u64>,
    p: &RunParams,
    disks: &[String],
    disk_at_start: Option<Vec<Option<sysinfo::DiskCounters>>>,
) -> ReporterOut {
    const TICK_NS: u64 = 100_000_000;
    let mut series = Vec::new();
    let mut buckets = Vec::new();
    let read_at_start = disk_at_start.is_some();
    let mut disk_start = disk_at_start.unwrap_or_default();
    let mut measuring = false;
    let mut sec_base = LiveSnapshot::take(live);
    let mut next_second = warmup_end_ns + 1_000_000_000;
    let mut tick_base = sec_base.clone();
    let mut tick_t = start_ns;
    let planned_s = p.runtime_ns.map(|r| (r + p.warmup_ns) as f64 / 1e9);
    loop {
        let now = now_ns();
        let mut wake = now + TICK_NS;
        if !measuring {
            wake = wake.min(warmup_end_ns);
        }
        if let Some(d) = deadline_ns {
            wake = wake.min(d);
        }
        if measuring {
            wake = wake.min(next_second);
        }
        while now_ns() < wake && finished.load(Relaxed) < workers {
            std::thread::sleep(std::time::Duration::from_millis(5).min(
                std::time::Duration::from_nanos(wake.saturating_sub(now_ns()).max(1)),
            ));
        }
        let now = now_ns();
        if !measuring && now >= warmup_end_ns {
            measuring = true;
            if !read_at_start {
                disk_start = disks.iter().map(|d| sysinfo::disk_counters(d)).collect();
            }
            sec_base = LiveSnapshot::take(live);
        }
        if measuring && now >= next_second {
            let snap = LiveSnapshot::take(live);
            let dt = (now - (next_second - 1_000_000_000)) as f64 / 1e9;
            series.push(SecondSample {
                t_s: (now - warmup_end_ns) as f64 / 1e9,
                read_iops: (snap.reads - sec_base.reads) as f64 / dt,
                write_iops: (snap.writes - sec_base.writes) as f64 / dt,
                bytes_per_sec: (snap.bytes - sec_base.bytes) as f64 / dt,
                p50_ns: snap.interval_quantile(&sec_base, 0.5),
                p99_ns: snap.interval_quantile(&sec_base, 0.99),
            });
            buckets.push(crate::series::sparse_diff(&snap.buckets, &sec_base.buckets));
            sec_base = snap;
            next_second = now + 1_000_000_000;
        }
        if deadline_ns.is_some_and(|d| now >= d) {
            control.stop.store(true, Relaxed);
        }
        if now >= tick_t + TICK_NS {
            let snap = LiveSnapshot::take(live);
            let dt = (now - tick_t) as f64 / 1e9;
            let ops = snap.reads + snap.writes;
            progress.update(&ProgressInfo {
                elapsed_s: (now - start_ns) as f64 / 1e9,
                planned_s,
                ops_done: ops,
                ops_planned: p.ops_limit,
                iops: (ops - tick_base.reads - tick_base.writes) as f64 / dt,
                bytes_per_sec: (snap.bytes - tick_base.bytes) as f64 / dt,
                warming_up: now < warmup_end_ns,
                counted: Counted::Ios,
            });
            tick_base = snap;
            tick_t = now;
        }
        if finished.load(Relaxed) >= workers {
            if !measuring && !read_at_start {
                disk_start = disks.iter().map(|d| sysinfo::disk_counters(d)).collect();
            }
            break;
        }
    }
    ReporterOut {
        series,
        buckets,
        disk_start,
    }
}
