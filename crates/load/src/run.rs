//! The load loop: N sessions committing small inserts, timed by the
//! client, with the engine's counters read around the measured interval.
//!
//! The shape is pgbench's: one
//! connection and one thread per session, statements prepared before the
//! start, a gate that opens every session at once, autocommit timing the
//! insert with its commit or explicit transactions timing `COMMIT` alone.
//! Each session records into its own HDR histogram (2 significant
//! digits: at most 1 % relative error over 1 ns .. 100 s) and bumps its
//! own cache-line-padded counter for the per-second series; nothing in
//! the loop prints or allocates (beyond what the client library does).
//! The histograms are merged after the run.
//!
//! A run stops early when the stop flag rises (SIGINT and friends) or a
//! session fails (a lost connection, a failed statement): the others
//! stop at their next commit, what was measured is kept, and the table
//! is dropped all the same.

use crate::backend::{CommitMode, Counter, Database, LoadError, Session, TableSpec};
use dbio_engine::live::LIVE_BUCKETS;
use dbio_engine::series::{self, Probes};
use dbio_model::load::{
    LoadConfig, LoadCounter, LoadDerived, LoadFlush, LoadMode, LoadResult, LoadSecond, LoadSession,
    ServerEcho, Setting, WaitShare,
};
use dbio_model::series::{Series, SeriesUnit};
use dbio_model::{Finding, LatencySummary, Severity};
use hdrhistogram::Histogram;
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Condvar, Mutex};
use std::time::{Duration, Instant};

/// The most sessions a run may have.
pub const MAX_SESSIONS: u32 = 4096;
/// The largest row payload, bytes.
pub const MAX_ROW_BYTES: u32 = 1 << 20;
/// The most rows in one transaction.
pub const MAX_ROWS_PER_COMMIT: u32 = 100_000;
/// How often the wait sampler looks. Each look is one query on a
/// connection of its own (PostgreSQL's `pg_stat_activity`), so 40 a
/// second keeps its cost far below the load's, while a 10 s run still
/// looks about 400 times at each backend: a wait state's share then has a
/// standard error of at most 2.5 points (√(p(1−p)/n), p = 0.5), if the
/// looks are independent of the commit cycle.
pub const SAMPLE_EVERY: Duration = Duration::from_millis(25);

/// What a run produced.
#[derive(Debug)]
pub struct Outcome {
    /// The result (partial when `error` is set or the stop flag rose).
    pub result: LoadResult,
    /// Why the run stopped before it was done, when a session failed.
    pub error: Option<String>,
    /// What the reader should know, as notes (a table that could not be
    /// dropped, counters that could not be read).
    pub findings: Vec<Finding>,
}

/// Checks a configuration before anything is created; the error is one
/// sentence naming the option.
pub fn validate(c: &LoadConfig) -> Result<(), String> {
    if c.sessions == 0 || c.sessions > MAX_SESSIONS {
        return Err(format!("--sessions must be between 1 and {MAX_SESSIONS}"));
    }
    if c.commits_per_session.is_some() && c.runtime_ns.is_some() {
        return Err("--commits and --runtime cannot be used together: give one".into());
    }
    if c.commits_per_session.is_none() && c.runtime_ns.is_none() {
        return Err("give --commits or --runtime".into());
    }
    if c.commits_per_session == Some(0) {
        return Err("--commits must be at least 1".into());
    }
    if c.runtime_ns == Some(0) {
        return Err("--runtime must be longer than 0".into());
    }
    if c.rows_per_commit == 0 || c.rows_per_commit > MAX_ROWS_PER_COMMIT {
        return Err(format!(
            "--rows-per-commit must be between 1 and {MAX_ROWS_PER_COMMIT}"
        ));
    }
    if c.rows_per_commit > 1 && c.mode == LoadMode::Autocommit {
        return Err(
            "--rows-per-commit above 1 needs --mode explicit (in autocommit every row is its own commit)"
                .into(),
        );
    }
    if c.row_bytes > MAX_ROW_BYTES {
        return Err(format!("--row-size must be at most {MAX_ROW_BYTES} bytes"));
    }
    Ok(())
}

/// A unique table for this run: [`TableSpec::PREFIX`], the process id and
/// a clock reading; the mark says which run made it.
pub fn table_for_run(row_bytes: u32) -> TableSpec {
    static N: AtomicU64 = AtomicU64::new(0);
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap_or_default();
    let n = N.fetch_add(1, Ordering::Relaxed);
    TableSpec {
        name: format!(
            "{}{}_{}_{n}",
            TableSpec::PREFIX,
            std::process::id(),
            now.as_millis() % 1_000_000_000
        ),
        row_bytes,
        mark: format!(
            "dbio load run: pid {} at {}.{:09} {n}",
            std::process::id(),
            now.as_secs(),
            now.subsec_nanos()
        ),
    }
}

/// Runs the load on `db`: describes the engine, creates the table,
/// connects the sessions, runs, and drops the table (unless
/// `cfg.keep`), also when the run stopped early. An error before
/// anything was measured is `Err` (the table, if made, is dropped).
pub fn execute(
    db: &mut dyn Database,
    cfg: &LoadConfig,
    name: &str,
    stop: &AtomicBool,
) -> Result<Outcome, LoadError> {
    execute_with(db, cfg, name, stop, &|_| {})
}

/// Where a run is, for a progress line: told by the main thread about
/// five times a second (never from a session's loop).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Tick {
    /// Seconds since the sessions started (warm-up included).
    pub elapsed_s: f64,
    /// Warm-up and run time, for a timed run.
    pub planned_s: Option<f64>,
    /// Measured commits so far.
    pub commits: u64,
    /// Commits planned, for a count-based run.
    pub commits_planned: Option<u64>,
    /// Commits per second since the previous tick.
    pub tps: f64,
    /// Still in the warm-up.
    pub warming_up: bool,
}

/// [`execute`], telling `tick` where the run is.
pub fn execute_with(
    db: &mut dyn Database,
    cfg: &LoadConfig,
    name: &str,
    stop: &AtomicBool,
    tick: &dyn Fn(&Tick),
) -> Result<Outcome, LoadError> {
    validate(cfg).map_err(LoadError::Refused)?;
    let info = db.describe()?;
    let table = table_for_run(cfg.row_bytes);
    db.create_table(&table)?;
    let mut findings = Vec::new();
    let run = measure(db, cfg, &table, stop, tick);
    if !cfg.keep {
        if let Err(e) = db.drop_table(&table) {
            findings.push(Finding::note(
                "load.table_not_dropped",
                Severity::Warning,
                format!("the table {} could not be dropped: {e}", table.name),
            ));
        }
    }
    let mut out = run?;
    out.findings.append(&mut findings);
    let r = &mut out.result;
    r.name = name.to_string();
    r.config = LoadConfig {
        target: db.display_target(),
        engine: db.kind().to_string(),
        ..cfg.clone()
    };
    r.server = ServerEcho {
        version: info.version,
        settings: info
            .settings
            .into_iter()
            .map(|(name, value)| Setting { name, value })
            .collect(),
        missing: info.missing,
    };
    r.table = table.name;
    r.derived = derive(r);
    Ok(out)
}

/// Opens every waiting session at once, or tells them to give up.
#[derive(Default)]
struct Gate {
    state: Mutex<Option<bool>>,
    cv: Condvar,
}

impl Gate {
    fn wait(&self) -> bool {
        let mut s = self.state.lock().unwrap_or_else(|e| e.into_inner());
        loop {
            if let Some(go) = *s {
                return go;
            }
            s = self.cv.wait(s).unwrap_or_else(|e| e.into_inner());
        }
    }
    fn open(&self, go: bool) {
        *self.state.lock().unwrap_or_else(|e| e.into_inner()) = Some(go);
        self.cv.notify_all();
    }
}

/// A per-session counter on a cache line of its own.
#[repr(align(64))]
#[derive(Default)]
struct Slot(AtomicU64);

/// The measured interval: when it started and, for a timed run, when it
/// ends.
#[derive(Debug, Clone, Copy)]
struct Window {
    start: Instant,
    deadline: Option<Instant>,
}

/// The loop's shared state.
struct Shared<'a> {
    window: std::sync::OnceLock<Window>,
    stop: &'a AtomicBool,
    halt: AtomicBool,
    done: AtomicUsize,
    slots: Vec<Slot>,
    /// Commit latencies for the per-second percentiles, one probe per
    /// session.
    probes: Probes,
    gate: Gate,
    cfg: &'a LoadConfig,
}

impl Shared<'_> {
    fn stopping(&self) -> bool {
        self.stop.load(Ordering::Relaxed) || self.halt.load(Ordering::Relaxed)
    }
}

/// One session's measurements.
struct SessionOut {
    /// CPU of the thread over its measured commits.
    cpu: dbio_engine::rusage::Usage,
    /// CPU of the session's server backend over the same span, where it
    /// runs on this machine (see [`crate::predict::server_cpu`]).
    server_cpu: Option<dbio_engine::rusage::Usage>,
    commits: u64,
    warm: u64,
    commit: Histogram<u64>,
    txn: Histogram<u64>,
    measure_start: Instant,
    end: Instant,
    error: Option<LoadError>,
}

fn histogram() -> Histogram<u64> {
    Histogram::new_with_bounds(1, 100_000_000_000, 2).expect("valid HDR bounds")
}

fn ns(d: Duration) -> u64 {
    u64::try_from(d.as_nanos()).unwrap_or(u64::MAX).max(1)
}

/// The measurement loop of one session. No printing, no allocation.
fn session_loop(sess: &mut dyn Session, index: u32, sh: &Shared) -> SessionOut {
    let cfg = sh.cfg;
    let mut out = SessionOut {
        cpu: Default::default(),
        server_cpu: None,
        commits: 0,
        warm: 0,
        commit: histogram(),
        txn: histogram(),
        measure_start: Instant::now(),
        end: Instant::now(),
        error: None,
    };
    if !sh.gate.wait() {
        return out;
    }
    let start = Instant::now();
    // The measured window, once the main thread has opened it (after the
    // warm-up and the engine's counters): a commit is measured when it
    // started inside the window.
    let mut window: Option<Window> = None;
    let limit = cfg.commits_per_session.unwrap_or(u64::MAX);
    let mode = match cfg.mode {
        LoadMode::Autocommit => CommitMode::Autocommit,
        LoadMode::Explicit => CommitMode::Explicit,
    };
    let rows = u64::from(cfg.rows_per_commit);
    let sessions = u64::from(cfg.sessions);
    let think = Duration::from_nanos(cfg.think_time_ns);
    let mut k: u64 = 0;
    let backend = sess.backend_pid();
    let backend_cpu =
        || backend.and_then(|p| crate::predict::server_cpu(p, crate::predict::SERVER_NAMES));
    out.measure_start = start;
    out.end = start;
    while out.commits < limit && !sh.stopping() {
        let mut t0 = Instant::now();
        if window.is_none() {
            window = sh.window.get().copied();
            if let Some(w) = window {
                out.measure_start = w.start;
                out.cpu = dbio_engine::rusage::thread_usage();
                out.server_cpu = backend_cpu();
                // The readings (a few /proc files) are not the commit's.
                t0 = Instant::now();
            }
        }
        if window.is_some_and(|w| w.deadline.is_some_and(|d| t0 >= d)) {
            break;
        }
        let id = |j: u64| (k * rows + j) * sessions + u64::from(index);
        let res = match mode {
            CommitMode::Autocommit => sess.insert_autocommit(id(0)).map(|()| t0),
            CommitMode::Explicit => explicit(sess, rows, id),
        };
        let t_end = Instant::now();
        let tc = match res {
            Ok(tc) => tc,
            Err(e) => {
                out.error = Some(e);
                sh.halt.store(true, Ordering::Relaxed);
                break;
            }
        };
        k += 1;
        out.end = t_end;
        if window.is_some() {
            let commit_ns = ns(t_end - tc);
            out.commit.saturating_record(commit_ns);
            if let Some(p) = sh.probes.get(index as usize) {
                p.latency(commit_ns);
            }
            if mode == CommitMode::Explicit {
                out.txn.saturating_record(ns(t_end - t0));
            }
            out.commits += 1;
            sh.slots[index as usize].0.fetch_add(1, Ordering::Relaxed);
        } else {
            out.warm += 1;
        }
        if !think.is_zero() {
            std::thread::sleep(think);
        }
    }
    out.cpu = match window {
        Some(_) => dbio_engine::rusage::thread_usage().since(&out.cpu),
        None => Default::default(),
    };
    out.server_cpu = match (window, out.server_cpu) {
        (Some(_), Some(before)) => backend_cpu().map(|now| now.since(&before)),
        _ => None,
    };
    out
}

/// One explicit transaction: `BEGIN`, `rows` inserts, `COMMIT`; when
/// `COMMIT` was sent.
fn explicit(
    sess: &mut dyn Session,
    rows: u64,
    id: impl Fn(u64) -> u64,
) -> Result<Instant, LoadError> {
    sess.begin()?;
    for j in 0..rows {
        sess.insert(id(j))?;
    }
    let tc = Instant::now();
    sess.commit()?;
    Ok(tc)
}

/// Tallies wait samples by backend type and state.
#[derive(Default)]
struct Tally(BTreeMap<(String, String), u64>);

impl Tally {
    fn shares(&self) -> Vec<WaitShare> {
        let mut per_backend: BTreeMap<&str, u64> = BTreeMap::new();
        for ((b, _), n) in &self.0 {
            *per_backend.entry(b.as_str()).or_default() += n;
        }
        let mut v: Vec<WaitShare> = self
            .0
            .iter()
            .map(|((backend, state), &samples)| WaitShare {
                state: state.clone(),
                backend: backend.clone(),
                samples,
                share_pct: 100.0 * samples as f64 / per_backend[backend.as_str()].max(1) as f64,
            })
            .collect();
        v.sort_by(|a, b| a.backend.cmp(&b.backend).then(b.samples.cmp(&a.samples)));
        v
    }
}

/// The main thread's view of a run while the sessions commit: progress
/// ticks for the bar and, once the measured window is open, one entry of
/// the per-second series (commits, p50, p99) a second.
struct Monitor {
    series: Vec<LoadSecond>,
    /// Each second's commit p50 and p99, beside `series`.
    lat: Vec<(Option<u64>, Option<u64>)>,
    /// The sessions' latency buckets at the last second and now.
    b_last: Vec<u64>,
    b_now: Vec<u64>,
    /// Commits at the last second and when it was.
    last_total: u64,
    last_t: Instant,
    next_tick: Instant,
    started: Instant,
    planned_s: Option<f64>,
    commits_planned: Option<u64>,
    next_progress: Instant,
    progress_commits: u64,
    progress_t: Instant,
}

impl Monitor {
    fn new(cfg: &LoadConfig) -> Self {
        let now = Instant::now();
        Self {
            series: Vec::new(),
            lat: Vec::new(),
            b_last: vec![0; LIVE_BUCKETS],
            b_now: vec![0; LIVE_BUCKETS],
            last_total: 0,
            last_t: now,
            next_tick: now,
            started: now,
            planned_s: cfg.runtime_ns.map(|r| (r + cfg.warmup_ns) as f64 / 1e9),
            commits_planned: cfg
                .commits_per_session
                .map(|c| c.saturating_mul(u64::from(cfg.sessions))),
            next_progress: now,
            progress_commits: 0,
            progress_t: now,
        }
    }

    /// Commits of every session so far.
    fn total(sh: &Shared) -> u64 {
        sh.slots.iter().map(|x| x.0.load(Ordering::Relaxed)).sum()
    }

    /// The measured window opened: the series starts there (the sessions
    /// count only the window's commits), and the warm-up's latencies are
    /// left out of its first second.
    fn window_opened(&mut self, sh: &Shared, w: Window) {
        sh.probes.buckets_into(&mut self.b_last);
        self.next_tick = w.start + Duration::from_secs(1);
        self.last_t = w.start;
    }

    /// The progress bar's tick now.
    fn progress(&mut self, sh: &Shared, now: Instant, warming_up: bool) -> Tick {
        let t = Self::total(sh);
        let span = (now - self.progress_t).as_secs_f64();
        let tick = Tick {
            elapsed_s: (now - self.started).as_secs_f64(),
            planned_s: self.planned_s,
            commits: t,
            commits_planned: self.commits_planned,
            tps: if span > 0.0 {
                (t - self.progress_commits) as f64 / span
            } else {
                0.0
            },
            warming_up,
        };
        (self.progress_commits, self.progress_t) = (t, now);
        self.next_progress = now + Duration::from_millis(200);
        tick
    }

    /// One second of the series, ending `now`.
    fn second(&mut self, sh: &Shared, w: Window, now: Instant) {
        let t = Self::total(sh);
        self.series
            .push(second(w.start, self.last_t, now, t - self.last_total));
        self.lat.push(interval_quantiles(
            &sh.probes,
            &mut self.b_last,
            &mut self.b_now,
        ));
        self.last_total = t;
        self.last_t = now;
        self.next_tick += Duration::from_secs(1);
    }

    /// The last, partial second, when it has commits.
    fn last_second(&mut self, sh: &Shared, w: Window, now: Instant) {
        if Self::total(sh) > self.last_total && now > self.last_t {
            self.second(sh, w, now);
        }
    }
}

fn measure(
    db: &mut dyn Database,
    cfg: &LoadConfig,
    table: &TableSpec,
    stop: &AtomicBool,
    tick: &dyn Fn(&Tick),
) -> Result<Outcome, LoadError> {
    let mut sessions = connect_sessions(db, cfg, table, stop)?;
    let sampler = db.waits_sampler()?;
    let sh = Shared {
        stop,
        halt: AtomicBool::new(false),
        done: AtomicUsize::new(0),
        slots: (0..cfg.sessions).map(|_| Slot::default()).collect(),
        probes: Probes::new(cfg.sessions as usize),
        gate: Gate::default(),
        cfg,
        window: std::sync::OnceLock::new(),
    };
    let sampling = AtomicBool::new(false);
    let sampler_done = AtomicBool::new(false);
    let mut findings = Vec::new();
    let mut before: Option<Vec<Counter>> = None;
    let warmup = Duration::from_nanos(cfg.warmup_ns);
    let mut mon = Monitor::new(cfg);
    let (outs, tally) = std::thread::scope(|s| {
        let mut handles = Vec::with_capacity(sessions.len());
        let mut spawn_error = None;
        for (i, mut sess) in sessions.drain(..).enumerate() {
            let sh = &sh;
            let main = std::thread::current();
            let h = std::thread::Builder::new()
                .name(format!("dbio-session-{}", i + 1))
                .spawn_scoped(s, move || {
                    let out = session_loop(sess.as_mut(), i as u32, sh);
                    sh.done.fetch_add(1, Ordering::Release);
                    // The main thread sleeps until its next tick or this.
                    main.unpark();
                    drop(sess);
                    out
                });
            match h {
                Ok(h) => handles.push(h),
                Err(e) => {
                    spawn_error = Some(LoadError::Io(format!(
                        "cannot start session thread {}: {e}",
                        i + 1
                    )));
                    break;
                }
            }
        }
        let sampler_handle = sampler.map(|mut sdb| {
            let (sampling, sampler_done) = (&sampling, &sampler_done);
            s.spawn(move || sample_waits(sdb.as_mut(), sampling, sampler_done))
        });
        if let Some(e) = spawn_error {
            sh.gate.open(false);
            sampler_done.store(true, Ordering::Relaxed);
            return Err(e);
        }
        // The measured window opens after the engine's counters are read:
        // at once, or at the end of the warm-up (the sessions commit
        // unmeasured until then).
        let runtime = cfg.runtime_ns.map(Duration::from_nanos);
        let open_window = |sh: &Shared| {
            let start = Instant::now();
            let w = Window {
                start,
                deadline: runtime.map(|r| start + r),
            };
            let _ = sh.window.set(w);
            sampling.store(true, Ordering::Relaxed);
            w
        };
        let mut window = None;
        if warmup.is_zero() {
            match db.counters() {
                Ok(c) => before = Some(c),
                Err(e) => {
                    sh.gate.open(false);
                    sampler_done.store(true, Ordering::Relaxed);
                    return Err(e);
                }
            }
            window = Some(open_window(&sh));
        }
        sh.gate.open(true);
        let warm_end = Instant::now() + warmup;
        if let Some(w) = window {
            mon.window_opened(&sh, w);
        }
        while sh.done.load(Ordering::Acquire) < handles.len() {
            // Asleep until the next thing to do (the warm-up's end, the
            // next second of the series, the next progress tick) or a
            // session's end (it unparks this thread): about 6 wake-ups a
            // second, not the 100 of a 10 ms poll, which cost about 3.5 ms
            // of CPU a second, 17 µs per commit at 200 commits/s.
            let until = match window {
                None => warm_end.min(mon.next_progress),
                Some(_) => mon.next_tick.min(mon.next_progress),
            };
            std::thread::park_timeout(until.saturating_duration_since(Instant::now()));
            let now = Instant::now();
            if window.is_none() && now >= warm_end {
                match db.counters() {
                    Ok(c) => before = Some(c),
                    Err(e) => findings.push(Finding::note(
                        "load.counters_unreadable",
                        Severity::Notice,
                        format!("the engine's counters could not be read: {e}"),
                    )),
                }
                let w = open_window(&sh);
                mon.window_opened(&sh, w);
                window = Some(w);
            }
            if now >= mon.next_progress {
                tick(&mon.progress(&sh, now, window.is_none()));
            }
            if let Some(w) = window {
                if now >= mon.next_tick {
                    mon.second(&sh, w, now);
                }
            }
        }
        sampling.store(false, Ordering::Relaxed);
        sampler_done.store(true, Ordering::Relaxed);
        if let Some(w) = window {
            mon.last_second(&sh, w, Instant::now());
        }
        let outs: Vec<SessionOut> = handles
            .into_iter()
            .map(|h| h.join().expect("a session thread does not panic"))
            .collect();
        let tally = sampler_handle
            .map(|h| h.join().expect("the sampler thread does not panic"))
            .unwrap_or_default();
        Ok((outs, tally))
    })?;
    let flush = flush_over_run(db, before, &mut findings);
    let mut result = summarize(cfg, sh.window.get().map(|w| w.start), &outs);
    result.per_second = per_second(&mon.series, &mon.lat);
    result.series = mon.series;
    result.flush = flush;
    result.waits = tally.shares();
    let error = outs
        .iter()
        .enumerate()
        .find_map(|(i, o)| o.error.as_ref().map(|e| format!("session {}: {e}", i + 1)));
    Ok(Outcome {
        result,
        error,
        findings,
    })
}

/// One connection per session, each with its statements prepared; a
/// stop before they are all made ends the run.
fn connect_sessions(
    db: &mut dyn Database,
    cfg: &LoadConfig,
    table: &TableSpec,
    stop: &AtomicBool,
) -> Result<Vec<Box<dyn Session>>, LoadError> {
    let mut sessions: Vec<Box<dyn Session>> = Vec::with_capacity(cfg.sessions as usize);
    for _ in 0..cfg.sessions {
        if stop.load(Ordering::Relaxed) {
            return Err(LoadError::Refused(
                "interrupted before the sessions were connected".into(),
            ));
        }
        sessions.push(db.connect(table)?);
    }
    Ok(sessions)
}

/// The wait sampler's thread: every [`SAMPLE_EVERY`] while `sampling`
/// (the measured window), until `done`; a failed sample ends it.
fn sample_waits(sdb: &mut dyn Database, sampling: &AtomicBool, done: &AtomicBool) -> Tally {
    let mut tally = Tally::default();
    while !done.load(Ordering::Relaxed) {
        std::thread::sleep(SAMPLE_EVERY);
        if !sampling.load(Ordering::Relaxed) {
            continue;
        }
        match sdb.sample_waits() {
            Ok(v) => {
                for w in v {
                    *tally.0.entry((w.backend, w.state)).or_default() += 1;
                }
            }
            Err(_) => break,
        }
    }
    tally
}

/// The engine's flush path over the measured window, from the counters
/// read when it opened (`before`) and now; empty, with a warning, when
/// they cannot be read.
fn flush_over_run(
    db: &mut dyn Database,
    before: Option<Vec<Counter>>,
    findings: &mut Vec<Finding>,
) -> LoadFlush {
    match (before, db.counters()) {
        (Some(b), Ok(a)) => {
            let f = db.flush_path(&b, &a);
            LoadFlush {
                flushes: f.flushes,
                flush_time_ns: f.flush_time_ns,
                bytes: f.bytes,
                server_commits: f.server_commits,
                extra: f
                    .extra
                    .into_iter()
                    .map(|c| LoadCounter {
                        name: c.name,
                        value: c.value,
                        unit: c.unit.to_string(),
                    })
                    .collect(),
            }
        }
        (_, Err(e)) => {
            findings.push(Finding::note(
                "load.counters_unreadable",
                Severity::Notice,
                format!("the engine's counters could not be read after the run: {e}"),
            ));
            LoadFlush::default()
        }
        (None, _) => LoadFlush::default(),
    }
}

fn second(t0: Instant, from: Instant, to: Instant, commits: u64) -> LoadSecond {
    let span = (to - from).as_secs_f64();
    LoadSecond {
        t_s: (to - t0).as_secs_f64(),
        commits,
        tps: if span > 0.0 {
            commits as f64 / span
        } else {
            0.0
        },
    }
}

/// The commit latency's p50 and p99 since `last` (the probes' buckets
/// then), which becomes now. The buckets are summed after the commit
/// counters, so a commit that completes in between has its latency in
/// this second and its count in the next (one per session at most).
fn interval_quantiles(
    probes: &Probes,
    last: &mut Vec<u64>,
    now: &mut Vec<u64>,
) -> (Option<u64>, Option<u64>) {
    probes.buckets_into(now);
    let d = series::sparse_diff(now, last);
    std::mem::swap(last, now);
    (
        series::quantile(&d, 0.5, |_| true),
        series::quantile(&d, 0.99, |_| true),
    )
}

/// Commits per second and the commit latency's p50 and p99 per second
/// (log-linear buckets: within 12.5 %).
fn per_second(series: &[LoadSecond], lat: &[(Option<u64>, Option<u64>)]) -> Vec<Series> {
    if series.is_empty() {
        return Vec::new();
    }
    let mut tps = Series::new("tps", SeriesUnit::PerSecond);
    let mut p50 = Series::new("commit_p50", SeriesUnit::Ns);
    let mut p99 = Series::new("commit_p99", SeriesUnit::Ns);
    for (s, (a, b)) in series.iter().zip(lat) {
        tps.push(s.t_s, Some(s.tps));
        p50.push(s.t_s, a.map(|v| v as f64));
        p99.push(s.t_s, b.map(|v| v as f64));
    }
    vec![tps, p50, p99]
}

/// Merges the sessions' measurements into a result (without the
/// engine's side).
fn summarize(cfg: &LoadConfig, start: Option<Instant>, outs: &[SessionOut]) -> LoadResult {
    let mut commit = histogram();
    let mut txn = histogram();
    let mut lines = Vec::with_capacity(outs.len());
    let end = outs.iter().map(|o| o.end).max();
    for (i, o) in outs.iter().enumerate() {
        commit.add(&o.commit).expect("same bounds");
        txn.add(&o.txn).expect("same bounds");
        let span = if o.commits > 0 {
            o.end
                .saturating_duration_since(o.measure_start)
                .as_secs_f64()
        } else {
            0.0
        };
        let s = LatencySummary::from_histogram(&o.commit);
        lines.push(LoadSession {
            id: i as u32 + 1,
            commits: o.commits,
            tps: if span > 0.0 {
                o.commits as f64 / span
            } else {
                0.0
            },
            min_ns: s.min_ns,
            p50_ns: s.p50_ns(),
            p99_ns: s.p99_ns(),
            max_ns: s.max_ns,
            mean_ns: s.mean_ns,
        });
    }
    let runtime_ns = match (start, end) {
        (Some(s), Some(e)) => {
            u64::try_from(e.saturating_duration_since(s).as_nanos()).unwrap_or(u64::MAX)
        }
        _ => 0,
    };
    let commits: u64 = outs.iter().map(|o| o.commits).sum();
    let cpu = outs
        .iter()
        .fold(dbio_engine::rusage::Usage::default(), |a, o| a.plus(&o.cpu));
    // The server's side only when every session's backend was read.
    let server_cpu = outs
        .iter()
        .try_fold(dbio_engine::rusage::Usage::default(), |a, o| {
            o.server_cpu.map(|u| a.plus(&u))
        })
        .filter(|_| !outs.is_empty())
        .map(|u| dbio_engine::runner::cpu_usage(&u, commits, runtime_ns));
    LoadResult {
        cpu: dbio_engine::runner::cpu_usage(&cpu, commits, runtime_ns),
        server_cpu,
        runtime_ns,
        commits,
        rows: commits * u64::from(cfg.rows_per_commit),
        warmup_commits: outs.iter().map(|o| o.warm).sum(),
        tps: if runtime_ns > 0 {
            commits as f64 * 1e9 / runtime_ns as f64
        } else {
            0.0
        },
        commit: LatencySummary::from_histogram(&commit),
        transaction: (cfg.mode == LoadMode::Explicit).then(|| LatencySummary::from_histogram(&txn)),
        sessions: lines,
        ..Default::default()
    }
}

/// The figures derived from both sides (pure: a function of the result).
pub fn derive(r: &LoadResult) -> LoadDerived {
    let f = &r.flush;
    let flushes = f.flushes.filter(|&n| n > 0).map(|n| n as f64);
    let runtime_s = r.runtime_ns as f64 / 1e9;
    let flush_latency_ns = flushes.zip(f.flush_time_ns).map(|(n, t)| t as f64 / n);
    let cycle_ns = r
        .transaction
        .as_ref()
        .map_or(r.commit.mean_ns, |t| t.mean_ns)
        + r.config.think_time_ns as f64;
    let commits = f.server_commits.unwrap_or(r.commits) as f64;
    LoadDerived {
        commits_per_flush: flushes.map(|n| r.commits as f64 / n),
        flush_latency_ns,
        flush_utilisation: f
            .flush_time_ns
            .filter(|_| r.runtime_ns > 0)
            .map(|t| t as f64 / r.runtime_ns as f64),
        sync_to_flush_ratio: flush_latency_ns
            .filter(|&l| l > 0.0 && r.commit.count > 0)
            .map(|l| r.commit.mean_ns / l),
        tps_from_latency: if cycle_ns > 0.0 && r.commit.count > 0 {
            f64::from(r.config.sessions) * 1e9 / cycle_ns
        } else {
            0.0
        },
        tps_from_flushes: flushes
            .filter(|_| runtime_s > 0.0)
            .map(|n| commits / n * (n / runtime_s)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sqlite::SqliteDb;

    fn cfg(sessions: u32, commits: u64) -> LoadConfig {
        LoadConfig {
            sessions,
            commits_per_session: Some(commits),
            runtime_ns: None,
            row_bytes: 32,
            ..LoadConfig::default()
        }
    }

    #[test]
    fn impossible_configurations_are_refused_in_one_sentence() {
        let bad = [
            (
                LoadConfig {
                    sessions: 0,
                    ..cfg(1, 1)
                },
                "--sessions",
            ),
            (
                LoadConfig {
                    runtime_ns: Some(1),
                    ..cfg(1, 1)
                },
                "cannot be used together",
            ),
            (cfg(1, 0), "--commits must be at least 1"),
            (
                LoadConfig {
                    rows_per_commit: 2,
                    ..cfg(1, 1)
                },
                "--mode explicit",
            ),
            (
                LoadConfig {
                    row_bytes: MAX_ROW_BYTES + 1,
                    ..cfg(1, 1)
                },
                "--row-size",
            ),
        ];
        for (c, want) in bad {
            let e = validate(&c).unwrap_err();
            assert!(e.contains(want), "{e}");
            assert!(!e.contains('\n'));
        }
        validate(&cfg(10, 1)).unwrap();
    }

    #[test]
    fn every_commit_is_a_row_and_the_table_is_dropped() {
        let d = tempfile::tempdir().unwrap();
        let mut db = SqliteDb::create(d.path(), false).unwrap();
        let c = LoadConfig {
            mode: LoadMode::Explicit,
            rows_per_commit: 3,
            ..cfg(4, 25)
        };
        let stop = AtomicBool::new(false);
        let out = execute(&mut db, &c, "t", &stop).unwrap();
        let r = &out.result;
        assert!(out.error.is_none(), "{:?}", out.error);
        assert_eq!(r.commits, 100);
        assert_eq!(r.rows, 300);
        assert_eq!(r.commit.count, 100);
        let tx = r.transaction.as_ref().unwrap();
        assert_eq!(tx.count, 100);
        // The sessions' CPU, per commit.
        assert!(r.cpu.user_ns + r.cpu.system_ns > 0);
        assert!(r.cpu.per_io_ns > 0.0);
        // COMMIT alone is part of the transaction's span.
        assert!(tx.min_ns >= r.commit.min_ns && tx.mean_ns >= r.commit.mean_ns);
        assert_eq!(
            r.sessions.iter().map(|s| s.commits).collect::<Vec<_>>(),
            [25; 4]
        );
        assert_eq!(r.series.iter().map(|s| s.commits).sum::<u64>(), 100);
        // One WAL sync per commit, or more when a checkpoint ran.
        assert!(r.flush.flushes.unwrap() >= 100, "{:?}", r.flush);
        assert!(r.derived.commits_per_flush.unwrap() <= 1.0);
        assert!(r.table.starts_with(TableSpec::PREFIX));
        assert_eq!(r.config.engine, "sqlite");
        assert!(r.config.target.starts_with("sqlite:"));
        let left: i64 = rusqlite::Connection::open(db.path())
            .unwrap()
            .query_row(
                "SELECT count(*) FROM sqlite_master WHERE name = ?1",
                [&r.table],
                |row| row.get(0),
            )
            .unwrap();
        assert_eq!(left, 0, "the table is dropped");
    }

    #[test]
    fn think_time_spaces_a_sessions_commits() {
        let mut db = Flaky {
            dropped: false,
            sampler: false,
        };
        let c = LoadConfig {
            think_time_ns: 10_000_000,
            ..cfg(1, 5)
        };
        let out = execute(&mut db, &c, "t", &AtomicBool::new(false)).unwrap();
        let r = &out.result;
        assert_eq!(r.commits, 5);
        // Four sleeps lie between the first and the last commit.
        assert!(r.runtime_ns >= 40_000_000, "{} ns", r.runtime_ns);
        assert!(r.derived.tps_from_latency <= 100.0 + 1e-9);
    }

    #[test]
    fn warm_up_commits_are_in_the_table_but_not_in_the_statistics() {
        let d = tempfile::tempdir().unwrap();
        let mut db = SqliteDb::create(d.path(), false).unwrap();
        let c = LoadConfig {
            warmup_ns: 100_000_000,
            keep: true,
            ..cfg(2, 10)
        };
        let out = execute(&mut db, &c, "t", &AtomicBool::new(false)).unwrap();
        let r = &out.result;
        assert_eq!(r.commits, 20);
        assert_eq!(r.commit.count, 20);
        assert!(r.warmup_commits > 0, "a 100 ms warm-up commits something");
        // Counters start after the warm-up: its syncs are not the run's.
        // Up to two commits in flight at the boundary (one per session)
        // sync inside the run, and a WAL restarted inside it adds the sync
        // of its new header (at most one: a restart follows a checkpoint
        // of 1,000 pages, and 20 commits write a few dozen).
        let flushes = r.flush.flushes.unwrap();
        assert!(
            (20..=23).contains(&flushes),
            "{flushes} WAL syncs for 20 commits"
        );
        let rows: i64 = rusqlite::Connection::open(db.path())
            .unwrap()
            .query_row(&format!("SELECT count(*) FROM {}", r.table), [], |row| {
                row.get(0)
            })
            .unwrap();
        assert_eq!(rows as u64, r.commits + r.warmup_commits);
    }

    #[test]
    fn a_raised_stop_flag_stops_every_session_and_the_table_is_dropped() {
        let d = tempfile::tempdir().unwrap();
        let mut db = SqliteDb::create(d.path(), false).unwrap();
        let c = LoadConfig {
            runtime_ns: Some(60_000_000_000),
            commits_per_session: None,
            ..cfg(3, 0)
        };
        let stop = AtomicBool::new(false);
        let counters = db.shim_counters();
        let out = std::thread::scope(|s| {
            s.spawn(|| {
                // Raised once commits are reaching the WAL.
                while counters.wal_syncs.load(Ordering::Relaxed) < 20 {
                    std::thread::sleep(Duration::from_millis(1));
                }
                stop.store(true, Ordering::Relaxed);
            });
            execute(&mut db, &c, "t", &stop).unwrap()
        });
        assert!(out.result.commits > 0);
        assert!(out.result.runtime_ns < 30_000_000_000);
        let left: i64 = rusqlite::Connection::open(db.path())
            .unwrap()
            .query_row(
                "SELECT count(*) FROM sqlite_master WHERE name = ?1",
                [&out.result.table],
                |row| row.get(0),
            )
            .unwrap();
        assert_eq!(left, 0, "the table is dropped after a stop");
    }

    /// A session whose statements fail (as a lost connection does) stops
    /// the run with what was measured.
    struct Failing {
        left: u32,
    }
    impl Session for Failing {
        fn insert_autocommit(&mut self, _: u64) -> Result<(), LoadError> {
            if self.left == 0 {
                return Err(LoadError::Lost("server closed the connection".into()));
            }
            self.left -= 1;
            Ok(())
        }
        fn begin(&mut self) -> Result<(), LoadError> {
            Ok(())
        }
        fn insert(&mut self, _: u64) -> Result<(), LoadError> {
            Ok(())
        }
        fn commit(&mut self) -> Result<(), LoadError> {
            Ok(())
        }
        fn backend_pid(&self) -> Option<u32> {
            None
        }
    }
    struct Flaky {
        dropped: bool,
        sampler: bool,
    }
    impl Database for Flaky {
        fn kind(&self) -> crate::DbKind {
            crate::DbKind::Postgres
        }
        fn display_target(&self) -> String {
            "postgres://localhost/x".into()
        }
        fn describe(&mut self) -> Result<crate::ServerInfo, LoadError> {
            Ok(Default::default())
        }
        fn create_table(&mut self, _: &TableSpec) -> Result<(), LoadError> {
            Ok(())
        }
        fn drop_table(&mut self, _: &TableSpec) -> Result<(), LoadError> {
            self.dropped = true;
            Ok(())
        }
        fn connect(&self, _: &TableSpec) -> Result<Box<dyn Session>, LoadError> {
            Ok(Box::new(Failing { left: 5 }))
        }
        fn counters(&mut self) -> Result<Vec<Counter>, LoadError> {
            Ok(Vec::new())
        }
        fn flush_path(&self, _: &[Counter], _: &[Counter]) -> crate::FlushPath {
            crate::FlushPath::default()
        }
        fn sample_waits(&mut self) -> Result<Vec<crate::WaitSample>, LoadError> {
            Ok(vec![
                crate::WaitSample {
                    state: "IO:WALSync".into(),
                    backend: "client backend".into(),
                },
                crate::WaitSample {
                    state: "LWLock:WALWrite".into(),
                    backend: "client backend".into(),
                },
                crate::WaitSample {
                    state: "LWLock:WALWrite".into(),
                    backend: "client backend".into(),
                },
                crate::WaitSample {
                    state: "Activity:WalWriterMain".into(),
                    backend: "walwriter".into(),
                },
            ])
        }
        fn waits_sampler(&self) -> Result<Option<Box<dyn Database>>, LoadError> {
            Ok(self.sampler.then(|| {
                Box::new(Flaky {
                    dropped: false,
                    sampler: false,
                }) as Box<dyn Database>
            }))
        }
    }

    #[test]
    fn the_wait_sampler_tallies_shares_per_backend_type() {
        let mut db = Flaky {
            dropped: false,
            sampler: true,
        };
        // 2 sessions x 5 commits 20 ms apart: about 100 ms of run.
        let c = LoadConfig {
            think_time_ns: 20_000_000,
            ..cfg(2, 5)
        };
        let out = execute(&mut db, &c, "t", &AtomicBool::new(false)).unwrap();
        assert!(out.error.is_none());
        let w = &out.result.waits;
        let share = |b: &str, s: &str| {
            w.iter()
                .find(|x| x.backend == b && x.state == s)
                .map(|x| x.share_pct)
        };
        assert!(!w.is_empty(), "the sampler ran");
        assert!((share("client backend", "LWLock:WALWrite").unwrap() - 200.0 / 3.0).abs() < 1e-9);
        assert!((share("client backend", "IO:WALSync").unwrap() - 100.0 / 3.0).abs() < 1e-9);
        assert_eq!(share("walwriter", "Activity:WalWriterMain"), Some(100.0));
        // Sorted by backend, then by samples.
        assert_eq!(w[0].state, "LWLock:WALWrite");
    }

    #[test]
    fn a_lost_connection_stops_the_run_with_a_partial_result_and_drops_the_table() {
        let mut db = Flaky {
            dropped: false,
            sampler: false,
        };
        let c = LoadConfig {
            runtime_ns: Some(60_000_000_000),
            commits_per_session: None,
            ..cfg(2, 0)
        };
        let out = execute(&mut db, &c, "t", &AtomicBool::new(false)).unwrap();
        let e = out.error.unwrap();
        assert!(e.contains("lost the connection"), "{e}");
        // The failing session's five, and what the other did before it saw the halt.
        assert!(
            (5..=10).contains(&out.result.commits),
            "{}",
            out.result.commits
        );
        assert!(db.dropped);
    }

    #[test]
    fn derived_figures_follow_from_the_result() {
        let mut r = LoadResult {
            runtime_ns: 2_000_000_000,
            commits: 8_000,
            ..Default::default()
        };
        r.config.sessions = 4;
        r.commit.count = 8_000;
        r.commit.mean_ns = 1_000_000.0;
        r.flush.flushes = Some(2_000);
        r.flush.flush_time_ns = Some(1_000_000_000);
        let d = derive(&r);
        assert_eq!(d.commits_per_flush, Some(4.0));
        assert_eq!(d.flush_latency_ns, Some(500_000.0));
        assert_eq!(d.flush_utilisation, Some(0.5));
        assert_eq!(d.sync_to_flush_ratio, Some(2.0));
        assert_eq!(d.tps_from_latency, 4_000.0);
        assert_eq!(d.tps_from_flushes, Some(4_000.0));
        r.flush.flushes = Some(0);
        assert_eq!(derive(&r).commits_per_flush, None);
    }
}
