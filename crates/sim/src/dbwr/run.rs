//! One run of the model: spawn writers and foregrounds, run the load for a
//! time or an operation count, request checkpoints at the interval, stop
//! the load, take a shutdown checkpoint, and merge each thread's counters.
//!
//! The coordinator (the calling thread) never touches buffers; it sleeps
//! on park_timeout between its deadlines. Every thread sets itself up (CPU
//! placement, its engine) before a start gate, so the measured interval
//! starts with all of them ready (and a thread that cannot be started
//! releases the others without any I/O), and per-thread getrusage(RUSAGE_THREAD) readings
//! bracket exactly the load.

use super::config::DbwrConfig;
use super::foreground::{Foreground, ForegroundCounters, LoadSpec};
use super::instance::{Instance, PROBE_OPS};
use super::writer::{Writer, WriterCounters};
use super::DbwrError;
use dbio_engine::clock::now_ns;
use dbio_engine::engines::{self, Capabilities, Engine, EngineFile, EngineOptions};
use dbio_engine::runner::{Counted, NoProgress, Progress};
use dbio_engine::rusage::{thread_usage, Usage};
use dbio_engine::series::{self, Probes, Tick};
use dbio_engine::stripe::{MemberTally, StripeMap, StripedEngine};
use dbio_engine::sysinfo::disk_counters;
use dbio_engine::threads::{spawn_scoped, StartGate};
use dbio_engine::EngineError;
use dbio_model::{DiskStatsDelta, EngineKind};
use std::fs::File;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::sync::Arc;
use std::time::Duration;

/// The datafile the model reads and writes.
#[derive(Clone)]
pub struct Datafile {
    /// The open file (read-write).
    pub file: Arc<File>,
    /// Its path, for messages.
    pub path: PathBuf,
}

/// Who asks the factory for an engine.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    /// Foreground `n` (reads one block at a time).
    Foreground(u32),
    /// Writer `n` (writes batches).
    Writer(u32),
}

/// Makes each thread's engine, inside that thread (io_uring rings are
/// single-issuer). Tests pass their own to observe every I/O.
pub type EngineFactory<'a> = dyn Fn(Role) -> Result<Box<dyn Engine>, EngineError> + Sync + 'a;

/// The engines `cfg` asks for: foregrounds read with pread (or nothing with
/// the null engine); writers use `cfg.engine`, io_uring with a ring as deep
/// as the largest batch. Buffers are not registered with io_uring: writes
/// go straight from the cache, whose buffers are too many to register.
pub fn standard_engines(
    cfg: &DbwrConfig,
    datafile: Option<&Datafile>,
) -> Result<Box<EngineFactory<'static>>, DbwrError> {
    let kind = cfg.engine;
    let delay = cfg.null_delay_ns;
    let depth = cfg.batch_max;
    let df = match (kind, datafile) {
        (EngineKind::Null, _) => None,
        (_, Some(d)) => Some(d.clone()),
        (_, None) => {
            return Err(DbwrError::Invalid(
                "the psync and io_uring engines need a datafile".into(),
            ))
        }
    };
    Ok(Box::new(
        move |role| -> Result<Box<dyn Engine>, EngineError> {
            // Writers keep a batch in flight when the engine can; a
            // foreground reads one block at a time, so pread serves it.
            let engine = match role {
                Role::Writer(_) => kind,
                Role::Foreground(_) if Capabilities::of(kind).needs_file => EngineKind::Psync,
                Role::Foreground(_) => kind,
            };
            let file = df.as_ref().map(|d| EngineFile {
                file: &d.file,
                path: &d.path,
            });
            let opts = EngineOptions {
                depth,
                null_delay_ns: delay,
                ..EngineOptions::default()
            };
            Ok(Box::new(engines::open(engine, file, &opts)?))
        },
    ))
}

/// [`standard_engines`] over the members of a stripe (`files`, in order,
/// laid out by `map`): every thread's engine is opened on all of them,
/// block offsets go to their member, and what each member did is added
/// to `sink` when a thread's engine is dropped.
pub fn striped_engines(
    cfg: &DbwrConfig,
    files: &[Datafile],
    map: StripeMap,
    sink: Arc<std::sync::Mutex<Vec<MemberTally>>>,
) -> Result<Box<EngineFactory<'static>>, DbwrError> {
    let kind = cfg.engine;
    if kind == EngineKind::Null || files.len() != map.members as usize {
        return Err(DbwrError::Invalid(format!(
            "a stripe needs a datafile per member and the psync, io_uring or libaio engine, not {} files with {}",
            files.len(),
            kind.name()
        )));
    }
    let delay = cfg.null_delay_ns;
    let depth = cfg.batch_max;
    let files = files.to_vec();
    Ok(Box::new(
        move |role| -> Result<Box<dyn Engine>, EngineError> {
            let engine = match role {
                Role::Writer(_) => kind,
                Role::Foreground(_) => EngineKind::Psync,
            };
            let fs: Vec<EngineFile<'_>> = files
                .iter()
                .map(|d| EngineFile {
                    file: &d.file,
                    path: &d.path,
                })
                .collect();
            let opts = EngineOptions {
                depth,
                null_delay_ns: delay,
                ..EngineOptions::default()
            };
            let inner = engines::open_files(engine, &fs, &opts)?;
            Ok(Box::new(StripedEngine::new(
                inner,
                map,
                depth,
                sink.clone(),
            )))
        },
    ))
}

/// What one foreground thread hands back.
pub struct ForegroundReport {
    /// Its counters.
    pub stats: ForegroundCounters,
    /// Its CPU over the load.
    pub usage: Usage,
}

/// What one writer thread hands back.
pub struct WriterReport {
    /// Writer number.
    pub index: u32,
    /// Lists it owned.
    pub lists: Vec<u32>,
    /// CPUs it ran on, read back from the kernel.
    pub cpus: String,
    /// Its counters.
    pub stats: WriterCounters,
    /// Its CPU over the load.
    pub usage: Usage,
}

/// Everything a run measured, before it becomes a result.
pub struct RunData {
    /// Wall time of the load, ns.
    pub runtime_ns: u64,
    /// Foregrounds, in order.
    pub foregrounds: Vec<ForegroundReport>,
    /// Writers, in order.
    pub writers: Vec<WriterReport>,
    /// Duration of each checkpoint completed during the load, ns.
    pub checkpoints_ns: Vec<u64>,
    /// Dirty buffers left after the shutdown checkpoint.
    pub dirty_after_shutdown: u64,
    /// Disk counters over the load.
    pub device: Option<DiskStatsDelta>,
    /// Per-second samples of the load.
    pub ticks: Vec<Tick>,
}

/// How a run ended.
pub struct Outcome {
    /// What it measured (partial when `error` is set or `stop` was raised).
    pub data: RunData,
    /// The first error of any thread.
    pub error: Option<DbwrError>,
}

/// Runs the model on `inst` (made for this run with `cfg`'s geometry).
/// `stop` (SIGINT, SIGTERM, SIGHUP, SIGQUIT) ends the load early; `disk`
/// names the disk whose /proc/diskstats counters to take. An error means
/// nothing was measured (a thread could not be started).
pub fn run_on(
    inst: &Instance,
    cfg: &DbwrConfig,
    engines: &EngineFactory<'_>,
    stop: &AtomicBool,
    disk: Option<&str>,
) -> Result<Outcome, DbwrError> {
    run_on_shown(inst, cfg, engines, stop, disk, &NoProgress)
}

/// [`run_on`], its progress (the foregrounds' buffer operations) shown
/// on `progress` by a thread of its own.
pub fn run_on_shown(
    inst: &Instance,
    cfg: &DbwrConfig,
    engines: &EngineFactory<'_>,
    stop: &AtomicBool,
    disk: Option<&str>,
    progress: &dyn Progress,
) -> Result<Outcome, DbwrError> {
    let k = cfg.writers;
    let f = cfg.foregrounds;
    let total = (k + f) as usize;
    let gate = StartGate::new();
    let first_error: std::sync::Mutex<Option<DbwrError>> = std::sync::Mutex::new(None);
    let fail = |e: DbwrError| {
        let mut g = first_error.lock().expect("error slot");
        if g.is_none() {
            *g = Some(e);
        }
        drop(g);
        inst.abort.store(true, Ordering::Release);
        inst.wake_writers();
        if let Some(c) = inst.coordinator.get() {
            c.unpark();
        }
    };
    let active = AtomicU32::new(f);
    let _ = inst.coordinator.set(std::thread::current());
    // A reused instance keeps its first run's probes (and no series).
    let fresh = inst.probes.set(Probes::new(total)).is_ok();
    let sampling = AtomicBool::new(false);
    let shown = AtomicBool::new(false);

    std::thread::scope(|s| {
        let mut spawn_error = None;
        let mut writers = Vec::with_capacity(k as usize);
        for w in 0..k {
            let (gate, fail) = (&gate, &fail);
            match spawn_scoped(s, format!("dbw{w}"), w as usize, total, move || {
                writer_thread(inst, cfg, engines, w, gate, fail)
            }) {
                Ok(h) => writers.push(h),
                Err(e) => {
                    spawn_error = Some(e);
                    break;
                }
            }
        }
        let _ = inst
            .writer_threads
            .set(writers.iter().map(|h| h.thread().clone()).collect());
        let mut foregrounds = Vec::with_capacity(f as usize);
        for i in 0..f {
            if spawn_error.is_some() {
                break;
            }
            let (gate, fail, active) = (&gate, &fail, &active);
            match spawn_scoped(s, format!("fg{i}"), (k + i) as usize, total, move || {
                foreground_thread(inst, cfg, engines, i, gate, fail, active)
            }) {
                Ok(h) => foregrounds.push(h),
                Err(e) => spawn_error = Some(e),
            }
        }
        if let Some(e) = spawn_error {
            // The threads already started return without any I/O.
            gate.abort();
            for h in foregrounds {
                let _ = h.join();
            }
            for h in writers {
                let _ = h.join();
            }
            return Err(DbwrError::Engine(e.into()));
        }

        let disk_before = disk.and_then(disk_counters);
        gate.open_when_arrived(total);
        let t0 = *inst.start.get_or_init(now_ns);
        // The sampler reads the probes once a second; one that cannot
        // start costs the series, not the measurement.
        let sampler = match (fresh, inst.probes.get()) {
            (true, Some(p)) => std::thread::Builder::new()
                .name("dbwr-sampler".into())
                .spawn_scoped(s, {
                    let sampling = &sampling;
                    move || series::sample(p, sampling, t0)
                })
                .ok(),
            _ => None,
        };
        let shown = &shown;
        // Fresh probes only, as for the series: a reused instance's count
        // the runs before this one.
        let reporter = inst
            .probes
            .get()
            .filter(|_| fresh && progress.shown())
            .and_then(|p| {
                let plan = series::Plan {
                    planned_s: cfg.runtime_ns.map(|r| r as f64 / 1e9),
                    ops_planned: cfg.ops_limit,
                    counter: PROBE_OPS,
                    counted: Counted::BufferOps,
                };
                std::thread::Builder::new()
                    .name("dbwr-progress".into())
                    .spawn_scoped(s, move || {
                        series::report_progress(p, shown, t0, plan, progress)
                    })
                    .ok()
            });
        let checkpoints_ns = coordinate(inst, cfg, stop, &active, t0);
        shown.store(true, Ordering::Relaxed);
        if let Some(r) = reporter {
            r.join().expect("the progress reporter panicked");
        }
        // The end is read after the foregrounds are told, so that every
        // touch they start falls inside the measured time.
        inst.load_over.store(true, Ordering::Release);
        let t_end = now_ns();
        let foregrounds: Vec<ForegroundReport> = foregrounds
            .into_iter()
            .map(|h| h.join().expect("a foreground thread panicked"))
            .collect();
        sampling.store(true, Ordering::Relaxed);
        let ticks = sampler
            .map(|h| h.join().expect("the sampler panicked"))
            .unwrap_or_default();
        let device = match (disk_before, disk.and_then(disk_counters)) {
            (Some(b), Some(a)) => Some(a.delta(&b)),
            _ => None,
        };
        // Shutdown checkpoint: leaves the datafile holding every change.
        if !inst.aborted() && checkpoint(inst, stop).is_none() && !inst.aborted() {
            // Interrupted: stop the writers where they are.
            inst.abort.store(true, Ordering::Release);
        }
        inst.shutdown.store(true, Ordering::Release);
        inst.wake_writers();
        let writers: Vec<WriterReport> = writers
            .into_iter()
            .map(|h| h.join().expect("a writer thread panicked"))
            .collect();
        let data = RunData {
            runtime_ns: t_end - t0,
            foregrounds,
            writers,
            checkpoints_ns,
            dirty_after_shutdown: inst.cache.dirty_buffers(),
            device,
            ticks,
        };
        Ok(Outcome {
            data,
            error: first_error.lock().expect("error slot").take(),
        })
    })
}

/// Runs the model with a fresh instance; returns the outcome and the
/// instance (whose cache tests inspect).
pub fn run(
    cfg: &DbwrConfig,
    engines: &EngineFactory<'_>,
    stop: &AtomicBool,
    disk: Option<&str>,
    verify_reads: bool,
) -> Result<(Outcome, Instance), DbwrError> {
    super::config::validate(cfg)?;
    let inst = Instance::try_new(
        cfg.buffers,
        cfg.lists,
        super::config::blocks(cfg),
        cfg.writers,
        verify_reads,
    )
    .map_err(DbwrError::Invalid)?;
    let out = run_on(&inst, cfg, engines, stop, disk)?;
    Ok((out, inst))
}

/// [`run()`] with a fresh instance, its progress shown on `progress`.
pub fn run_shown(
    cfg: &DbwrConfig,
    engines: &EngineFactory<'_>,
    stop: &AtomicBool,
    disk: Option<&str>,
    verify_reads: bool,
    progress: &dyn Progress,
) -> Result<(Outcome, Instance), DbwrError> {
    super::config::validate(cfg)?;
    let inst = Instance::try_new(
        cfg.buffers,
        cfg.lists,
        super::config::blocks(cfg),
        cfg.writers,
        verify_reads,
    )
    .map_err(DbwrError::Invalid)?;
    let out = run_on_shown(&inst, cfg, engines, stop, disk, progress)?;
    Ok((out, inst))
}

/// The coordinator's loop during the load: deadlines and checkpoints.
fn coordinate(
    inst: &Instance,
    cfg: &DbwrConfig,
    stop: &AtomicBool,
    active: &AtomicU32,
    t0: u64,
) -> Vec<u64> {
    const SLICE_NS: u64 = 50_000_000;
    let end = cfg.runtime_ns.map(|r| t0 + r);
    let mut next_ckpt = cfg.checkpoint_interval_ns.map(|i| t0 + i);
    let mut done = Vec::new();
    loop {
        if stop.load(Ordering::Relaxed) || inst.aborted() || active.load(Ordering::Acquire) == 0 {
            break;
        }
        let now = now_ns();
        if end.is_some_and(|e| now >= e) {
            break;
        }
        if let Some(c) = next_ckpt.filter(|&c| now >= c) {
            match checkpoint(inst, stop) {
                Some(ns) => done.push(ns),
                None => break,
            }
            let i = cfg.checkpoint_interval_ns.unwrap_or(u64::MAX);
            // A checkpoint longer than the interval starts the next one at once.
            next_ckpt = Some((c + i).max(now_ns()));
            continue;
        }
        let until = [end, next_ckpt, Some(now + SLICE_NS)]
            .into_iter()
            .flatten()
            .min()
            .unwrap_or(now + SLICE_NS);
        std::thread::park_timeout(Duration::from_nanos(until.saturating_sub(now)));
    }
    done
}

/// Requests a checkpoint and waits until every writer has done it; its
/// duration, or None when stopped or aborted first.
fn checkpoint(inst: &Instance, stop: &AtomicBool) -> Option<u64> {
    let seq = inst.ckpt_requested.fetch_add(1, Ordering::AcqRel) + 1;
    let t0 = now_ns();
    inst.wake_writers();
    loop {
        if inst
            .ckpt_done
            .iter()
            .all(|d| d.0.load(Ordering::Acquire) >= seq)
        {
            return Some(now_ns() - t0);
        }
        if inst.aborted() || stop.load(Ordering::Relaxed) {
            return None;
        }
        std::thread::park_timeout(Duration::from_millis(10));
    }
}

fn writer_thread(
    inst: &Instance,
    cfg: &DbwrConfig,
    engines: &EngineFactory<'_>,
    w: u32,
    gate: &StartGate,
    fail: &(dyn Fn(DbwrError) + Sync),
) -> WriterReport {
    let setup = super::placement::apply(&cfg.placement, w)
        .and_then(|cpus| Ok((cpus, engines(Role::Writer(w))?)));
    let started = gate.arrive();
    let (cpus, engine) = match setup {
        Ok(_) if !started => {
            return WriterReport {
                index: w,
                lists: inst.lists_of(w),
                cpus: String::new(),
                stats: WriterCounters::new(inst.cache.list_count(), cfg.batch_max),
                usage: Usage::default(),
            }
        }
        Ok(x) => x,
        Err(e) => {
            fail(e);
            return WriterReport {
                index: w,
                lists: inst.lists_of(w),
                cpus: String::new(),
                stats: WriterCounters::new(inst.cache.list_count(), cfg.batch_max),
                usage: Usage::default(),
            };
        }
    };
    let u0 = thread_usage();
    let mut writer = Writer::new(inst, w, engine, cfg.batch_max, cfg.scan_depth_pct);
    if let Err(e) = writer.run() {
        fail(e);
    }
    let usage = writer
        .usage_at_load_end
        .unwrap_or_else(thread_usage)
        .since(&u0);
    WriterReport {
        index: w,
        lists: writer.lists().to_vec(),
        cpus,
        stats: writer.stats.clone(),
        usage,
    }
}

fn foreground_thread(
    inst: &Instance,
    cfg: &DbwrConfig,
    engines: &EngineFactory<'_>,
    i: u32,
    gate: &StartGate,
    fail: &(dyn Fn(DbwrError) + Sync),
    active: &AtomicU32,
) -> ForegroundReport {
    let engine = engines(Role::Foreground(i));
    let mut report = ForegroundReport {
        stats: ForegroundCounters::default(),
        usage: Usage::default(),
    };
    if !gate.arrive() {
        return report;
    }
    // One start instant for the coordinator and every foreground.
    let t0 = *inst.start.get_or_init(now_ns);
    match engine {
        Err(e) => fail(e.into()),
        Ok(engine) => {
            let ops = cfg.ops_limit.map(|n| {
                let f = u64::from(cfg.foregrounds);
                n / f + u64::from(u64::from(i) < n % f)
            });
            let spec = LoadSpec {
                ops,
                interval_ns: cfg
                    .rate_iops
                    .map(|r| (u64::from(cfg.foregrounds) * 1_000_000_000 / r).max(1)),
                dirty_pct: cfg.dirty_pct,
                start_ns: Some(t0),
                seed: cfg.seed ^ (u64::from(i) + 1).wrapping_mul(0x9e37_79b9_7f4a_7c15),
            };
            let u0 = thread_usage();
            let mut fg = Foreground::new(inst, engine, cfg.scan_depth_pct);
            if let Err(e) = fg.run(&spec) {
                fail(e);
            }
            report.usage = thread_usage().since(&u0);
            report.stats = fg.stats.clone();
        }
    }
    if active.fetch_sub(1, Ordering::AcqRel) == 1 {
        if let Some(c) = inst.coordinator.get() {
            c.unpark();
        }
    }
    report
}
