//! One run end to end: check, open the log files with the method's flags,
//! start the writer and the sessions behind a start gate, collect, read the
//! disk and process counters around the run, and read every record back
//! when asked.

use super::client::{client_main, Turn};
use super::config::{planned_memory, LgwrRun};
use super::files::{preflight, LogGroup};
use super::session::{session_main, Shared};
use super::stage::Stage;
use super::stats::{Measured, SessionRec, WriterRec};
use super::verify::verify;
use super::writer::{writer_main, FlushLock, Leader};
use dbio_engine::clock::now_ns;
use dbio_engine::runner::{Counted, NoProgress, Progress};
use dbio_engine::series::{self, Tick};
use dbio_engine::threads::{spawn_scoped, SpawnError, StartGate};
use dbio_engine::{sysinfo, EngineError};
use dbio_model::lgwr::Protocol;
use dbio_model::units::format_bytes;
use dbio_model::DiskStatsDelta;
use std::fs::File;
use std::path::PathBuf;
use std::sync::atomic::AtomicBool;
use std::sync::{Arc, Mutex};

/// Why a run could not start.
#[derive(Debug, thiserror::Error)]
pub enum LgwrError {
    /// A configuration that cannot work, found before any I/O.
    #[error("{0}")]
    Invalid(String),
    /// Preparing or opening the log files failed.
    #[error(transparent)]
    Engine(#[from] EngineError),
}

/// What a run measured, and the error that stopped it early, if one did.
pub struct Outcome {
    /// The measurements (partial when `error` is set).
    pub measured: Measured,
    /// The writer's setup or I/O error, as one sentence.
    pub error: Option<String>,
}

/// Checks `cfg` and, for real I/O, the directory and storage. Writes no data.
pub fn check(run: &LgwrRun) -> Result<(), LgwrError> {
    validate(run)?;
    if run.real_io() {
        preflight(run).map_err(LgwrError::Invalid)?;
    }
    Ok(())
}

/// The options, and the memory they plan against MemAvailable.
fn validate(run: &LgwrRun) -> Result<(), LgwrError> {
    let cfg = &run.config;
    super::config::validate(cfg).map_err(LgwrError::Invalid)?;
    dbio_engine::buf::check_memory(
        planned_memory(cfg),
        &format!(
            "--log-buffer {} with {} sessions and --max-write {}",
            format_bytes(cfg.log_buffer_bytes),
            cfg.sessions,
            format_bytes(cfg.max_write_bytes)
        ),
    )
    .map_err(LgwrError::Invalid)
}

/// /proc/self/io `read_bytes` and `write_bytes` (0 when unreadable).
fn proc_io() -> (u64, u64) {
    let text = std::fs::read_to_string("/proc/self/io").unwrap_or_default();
    let field = |name: &str| {
        text.lines()
            .find_map(|l| l.strip_prefix(name))
            .and_then(|v| v.trim().parse().ok())
            .unwrap_or(0)
    };
    (field("read_bytes:"), field("write_bytes:"))
}

/// The log files a run writes, per file and member, their paths, and
/// read-only descriptors for the read-back (empty for the null engine).
type OpenedGroup = (
    Vec<Vec<Arc<File>>>,
    Vec<Vec<PathBuf>>,
    Vec<Vec<Option<File>>>,
    Vec<(Arc<File>, PathBuf)>,
);

/// Opens the prepared group with the method's flags.
fn open_group(run: &LgwrRun, group: Option<&mut LogGroup>) -> Result<OpenedGroup, LgwrError> {
    let cfg = &run.config;
    match (cfg.real_io(), group) {
        (false, _) => Ok((Vec::new(), Vec::new(), Vec::new(), Vec::new())),
        (true, Some(g)) => {
            if !g.fits(run) {
                return Err(LgwrError::Invalid(format!(
                    "the prepared log group does not match {} files of {} with {} members",
                    cfg.files,
                    format_bytes(cfg.file_size),
                    cfg.members
                )));
            }
            g.used = true;
            let readers = if run.verify { g.readers() } else { Vec::new() };
            Ok((g.open(run)?, g.paths(), readers, g.open_stages(run)?))
        }
        (true, None) => Err(LgwrError::Invalid(
            "a run on real storage needs its log files prepared first".into(),
        )),
    }
}

/// The process's and the disk's I/O counters at the start of a run.
struct IoCounters {
    disk: Option<String>,
    disk_before: Option<sysinfo::DiskCounters>,
    proc_before: (u64, u64),
}

impl IoCounters {
    fn start(run: &LgwrRun) -> Self {
        let disk = if run.config.real_io() {
            sysinfo::disk_of(&run.dir)
                .and_then(|(sys, _)| sys.file_name().map(|n| n.to_string_lossy().to_string()))
        } else {
            None
        };
        Self {
            disk_before: disk.as_deref().and_then(sysinfo::disk_counters),
            disk,
            proc_before: proc_io(),
        }
    }

    /// What the process read and wrote since the start, and the disk's
    /// counters' change (None where they cannot be read).
    fn since(&self) -> ((u64, u64), Option<DiskStatsDelta>) {
        let now = proc_io();
        let disk = match (
            self.disk.as_deref().and_then(sysinfo::disk_counters),
            &self.disk_before,
        ) {
            (Some(a), Some(b)) => Some(a.delta(b)),
            _ => None,
        };
        (
            (
                now.0.saturating_sub(self.proc_before.0),
                now.1.saturating_sub(self.proc_before.1),
            ),
            disk,
        )
    }
}

/// The sessions' recordings, the writer thread's (None under the leader
/// protocol), the measured time and the per-second samples.
type Threads = (Vec<SessionRec>, Option<WriterRec>, u64, Vec<Tick>);

/// Starts the writer thread (unless a leader lock is given) and the
/// sessions behind one start gate, and collects them when they are done.
fn run_threads(
    run: &LgwrRun,
    shared: &Shared,
    (files, paths): (&[Vec<Arc<File>>], &[Vec<PathBuf>]),
    (leader, stages): (Option<&FlushLock>, &[Stage]),
    stop: &AtomicBool,
    error: &Mutex<Option<EngineError>>,
    progress: &dyn Progress,
) -> Result<Threads, SpawnError> {
    let cfg = &run.config;
    let gate = StartGate::new();
    let writers = usize::from(leader.is_none());
    let sampling = AtomicBool::new(false);
    let total = cfg.sessions as usize + writers;
    // A client thread per session (`--client-cpu`), parked until its
    // session hands it the first turn.
    let turns: Vec<Turn> = match cfg.client_cpu_ns {
        0 => Vec::new(),
        _ => (0..cfg.sessions).map(|_| Turn::default()).collect(),
    };
    let turns = &turns;
    std::thread::scope(|s| {
        for (i, t) in turns.iter().enumerate() {
            let spawned = spawn_scoped(s, format!("lgwr-client-{}", i + 1), i, turns.len(), || {
                client_main(
                    t,
                    || shared.client_cpu(cfg),
                    cfg.cpu_includes_commit_path.then_some(&shared.client_path),
                )
            });
            if let Err(e) = spawned {
                turns.iter().for_each(Turn::stop);
                return Err(e);
            }
        }
        let writer = match leader {
            Some(_) => None,
            None => match spawn_scoped(s, "lgwr".into(), 0, total, || {
                writer_main(run, shared, files, paths, &gate, error)
            }) {
                Ok(w) => Some(w),
                Err(e) => {
                    turns.iter().for_each(Turn::stop);
                    return Err(e);
                }
            },
        };
        let mut sessions = Vec::with_capacity(cfg.sessions as usize);
        let mut spawn_error = None;
        for i in 0..cfg.sessions {
            let gate = &gate;
            match spawn_scoped(
                s,
                format!("lgwr-session-{}", i + 1),
                i as usize + writers,
                total,
                move || {
                    session_main(
                        i,
                        run,
                        shared,
                        (leader, stages),
                        turns.get(i as usize),
                        gate,
                        stop,
                    )
                },
            ) {
                Ok(h) => sessions.push(h),
                Err(e) => {
                    spawn_error = Some(e);
                    break;
                }
            }
        }
        if spawn_error.is_some() {
            // The threads already started return without committing.
            gate.abort();
        } else {
            gate.open_when_arrived(total);
        }
        let t0 = now_ns();
        // The sampler reads the probes once a second; a sampler that
        // cannot start costs the series, not the measurement.
        let sampler = std::thread::Builder::new()
            .name("lgwr-sampler".into())
            .spawn_scoped(s, {
                let (probes, sampling) = (&shared.probes, &sampling);
                move || series::sample(probes, sampling, t0)
            })
            .ok();
        // The progress display reads the commits counted for the series,
        // ten times a second, on its own thread.
        let plan = series::Plan {
            planned_s: cfg.runtime_ns.map(|r| r as f64 / 1e9),
            ops_planned: cfg
                .commits_per_session
                .map(|n| n.saturating_mul(u64::from(cfg.sessions))),
            counter: super::session::PROBE_COMMITS,
            counted: Counted::Commits,
        };
        let reporter = progress.shown().then(|| {
            std::thread::Builder::new()
                .name("lgwr-progress".into())
                .spawn_scoped(s, {
                    let (probes, sampling) = (&shared.probes, &sampling);
                    move || series::report_progress(probes, sampling, t0, plan, progress)
                })
                .ok()
        });
        let recs: Vec<SessionRec> = sessions
            .into_iter()
            .map(|h| h.join().expect("a session thread panicked"))
            .collect();
        sampling.store(true, std::sync::atomic::Ordering::Relaxed);
        let ticks = sampler
            .map(|h| h.join().expect("the sampler panicked"))
            .unwrap_or_default();
        if let Some(r) = reporter.flatten() {
            r.join().expect("the progress reporter panicked");
        }
        let t_end = recs.iter().map(|r| r.end_ns).max().unwrap_or(t0);
        // Every session stopped its client; these are the clients of
        // sessions that never started.
        turns.iter().for_each(Turn::stop);
        shared.logbuf.close();
        if let Some(w) = shared.writer.get() {
            w.unpark();
        }
        let wrec = writer.map(|w| w.join().expect("the log writer panicked"));
        match spawn_error {
            Some(e) => Err(e),
            None => Ok((recs, wrec, t_end.saturating_sub(t0), ticks)),
        }
    })
}

/// Runs `run` once. `group` holds the log files (None for the null
/// engine); `stop` ends the run early (signals).
pub fn run(
    run: &LgwrRun,
    group: Option<&mut LogGroup>,
    stop: &AtomicBool,
) -> Result<Outcome, LgwrError> {
    run_shown(run, group, stop, &NoProgress)
}

/// [`run()`], its progress shown on `progress`.
pub fn run_shown(
    run: &LgwrRun,
    group: Option<&mut LogGroup>,
    stop: &AtomicBool,
    progress: &dyn Progress,
) -> Result<Outcome, LgwrError> {
    // Only the options: the storage was checked when the group was
    // prepared, and a free-space check now would count the group's own
    // files against it.
    validate(run)?;
    let cfg = &run.config;
    let (files, paths, readers, stage_files) = open_group(run, group)?;
    let counters = IoCounters::start(run);
    let shared = Shared::new(cfg).map_err(LgwrError::Invalid)?;
    let error: Mutex<Option<EngineError>> = Mutex::new(None);
    let leader = match cfg.protocol {
        Protocol::Writer => None,
        Protocol::Leader => Some(FlushLock::new(Leader::new(run, &shared, &files, &paths)?)),
    };
    // The later stages of a pipelined commit: a file each, or none with
    // the null engine.
    let n_stages = if cfg.pipeline {
        cfg.syncs_per_flush.saturating_sub(1) as usize
    } else {
        0
    };
    let mut stage_files = stage_files.into_iter();
    let stages: Vec<Stage> = (0..n_stages)
        .map(|_| Stage::new(cfg, stage_files.next()))
        .collect::<Result<_, _>>()?;
    let (recs, wrec, runtime_ns, ticks) = run_threads(
        run,
        &shared,
        (&files, &paths),
        (leader.as_ref(), &stages),
        stop,
        &error,
        progress,
    )
    .map_err(EngineError::from)?;
    let mut error = error.into_inner().unwrap_or_else(|p| p.into_inner());
    // A run has either a writer thread's recordings or a leader's.
    let wrec = match leader {
        Some(leader) => {
            let (rec, failed) = leader.into_inner().finish();
            error = failed;
            rec
        }
        None => wrec.unwrap_or_else(|| WriterRec::new(cfg.sessions, cfg.files)),
    };
    let mut wrec = wrec;
    if cfg.protocol == Protocol::Leader {
        wrec.flush_cpu_ns = Some(
            shared
                .flush_cpu_ns
                .load(std::sync::atomic::Ordering::Relaxed),
        );
    }
    if cfg.cpu_includes_commit_path {
        wrec.session_path = Some(shared.session_path.totals());
        if cfg.client_cpu_ns > 0 {
            wrec.client_path = Some(shared.client_path.totals());
        }
    }
    let mut stage_recs = Vec::with_capacity(stages.len());
    for st in stages {
        let (rec, failed) = st.finish();
        stage_recs.push(rec);
        if error.is_none() {
            error = failed;
        }
    }
    // A member writer thread that could not start: nothing was measured.
    if let Some(e @ EngineError::Threads(_)) = error {
        return Err(e.into());
    }
    let ((proc_read_bytes, proc_write_bytes), disk) = counters.since();
    let verified = (run.verify && cfg.real_io()).then(|| {
        verify(
            &recs,
            &readers,
            &wrec.uses,
            cfg.seed,
            cfg.redo_size.max(),
            cfg.bs,
        )
    });
    let commits: u64 = recs.iter().map(|r| r.commits).sum();
    let measured = Measured {
        runtime_ns,
        round_tps: vec![commits as f64 / (runtime_ns.max(1) as f64 / 1e9)],
        sessions: recs,
        writer: wrec,
        proc_read_bytes,
        proc_write_bytes,
        disk,
        verify: verified,
        ticks,
        stages: stage_recs,
    };
    Ok(Outcome {
        measured,
        error: error.map(|e| e.to_string()),
    })
}
