//! `dbio snap URL`: an AWR for a live PostgreSQL or MariaDB server.
//!
//! Glue only: the snapshots, the sampler, the deltas and the report are
//! `dbio_snap`'s; the findings and the verdict `dbio_report`'s (the AWR
//! rules and the snapshot rules); this file checks the options and the
//! outputs, opens the server (one sentence and status 2 when it cannot:
//! unreachable, wrong password, a role that may not read the
//! statistics), waits out each interval behind a progress bar while the
//! signals of the run context are watched, and writes one interval as
//! [`Outcome::Awr`] or a series as [`Outcome::AwrTrend`].
//!
//! With `--watch`, the server's processes (the postmaster or mariadbd and
//! every process it has forked or forks) are followed by a `dbio_watch`
//! session for the interval, block layer included, and the interval's
//! result gets the layers of a commit (`dbio_snap::layers::join`).
//!
//! A stop signal mid-interval (SIGINT, SIGTERM, SIGHUP, SIGQUIT; any
//! number of them) ends the wait: the sampler is stopped, the closing
//! snapshot taken, and the partial interval written, marked with the
//! signal; the exit status is 1.

use crate::cli::SnapArgs;
use crate::run_context::RunContext;
use anyhow::bail;
use dbio_model::awr::AwrReport;
use dbio_model::watch::{WatchConfig, WatchResult};
use dbio_model::Outcome;
use dbio_snap::layers::{self, ServerProcess};
use dbio_snap::{SnapOptions, Snapper, Snapshot};
use dbio_watch::{Observer, Session, SessionOptions};
use std::cell::RefCell;
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// Intervals of a series at most.
pub const MAX_INTERVALS: u64 = 1000;

/// The intervals asked for: (length, count).
fn plan(a: &SnapArgs) -> anyhow::Result<(f64, u64)> {
    let (len, n) = match (a.every, a.for_) {
        (Some(every), Some(total)) => {
            if every <= 0.0 {
                bail!("--every must be longer than 0 s");
            }
            if total < every {
                bail!("--for ({total} s) is shorter than one interval of --every ({every} s)");
            }
            let n = (total / every + 1e-9).floor() as u64;
            if n > MAX_INTERVALS {
                bail!(
                    "--for / --every makes {n} intervals; at most {MAX_INTERVALS} (give a longer --every)"
                );
            }
            (every, n)
        }
        _ => (a.interval, 1),
    };
    if len <= 0.0 {
        bail!("--interval must be longer than 0 s");
    }
    if a.sample_period <= 0.0 || a.sample_period > len {
        bail!(
            "--sample-period ({} s) must be above 0 and at most the interval ({len} s)",
            a.sample_period
        );
    }
    Ok((len, n))
}

/// Runs `dbio snap`.
pub fn run(a: SnapArgs) -> anyhow::Result<ExitCode> {
    let (len, n) = plan(&a)?;
    let outputs = crate::output::Outputs::for_run(&a.output)?;
    let opts = SnapOptions {
        interval_s: len,
        sample_period_s: a.sample_period,
    };
    let mut snapper = dbio_snap::open(&a.url, &opts)?;
    let watch = match a.watch {
        true => Some(load_watch(snapper.as_mut())?),
        false => None,
    };
    let ctx = RunContext::new(outputs, a.output.quiet)?;
    let bar = crate::progress::Bar::new("snap", a.output.quiet);
    if let Some((session, server)) = watch {
        return watched(snapper.as_mut(), session, &server, len, &ctx, &bar);
    }
    let stop = ctx.stop_flag().clone();
    let mut reports: Vec<AwrReport> = Vec::new();
    let mut begin = snapper.snapshot()?;
    let mut failed = None;
    for k in 1..=n {
        let label = if n > 1 {
            format!("interval {k}/{n}: ")
        } else {
            String::new()
        };
        let step = interval(snapper.as_mut(), len, &stop, &|e| bar.snap(e, len, &label));
        let step = step.and_then(|()| snapper.finish_interval(&begin, len, ctx.signal()));
        match step {
            Ok((end, mut r)) => {
                if n > 1 {
                    number(&mut r, k);
                }
                dbio_report::verdict::conclude_awr(&mut r);
                reports.push(r);
                begin = end;
            }
            Err(e) => {
                failed = Some(e);
                break;
            }
        }
        if ctx.signal().is_some() {
            break;
        }
    }
    bar.finish();
    // A series cut short by a signal, or by a failover or a lost server
    // after some intervals, is partial: status 1.
    let partial = ctx.signal().is_some() || failed.is_some();
    if let Some(e) = failed {
        if reports.is_empty() {
            return Err(e.into());
        }
        crate::say::line(&format!(
            "dbio: {e} (the series ends here: the intervals before it are written)"
        ));
    }
    let result = match reports.len() {
        1 if n == 1 => Outcome::Awr(reports.remove(0)),
        _ => {
            let mut t = dbio_awr::trend::trend(reports, false).map_err(anyhow::Error::msg)?;
            dbio_report::verdict::conclude_awr_trend(&mut t);
            Outcome::AwrTrend(Box::new(t))
        }
    };
    Ok(ctx.finish_outcome(&result, partial))
}

/// `--watch`: finds the server's processes on this host and loads the
/// tracer for them, before the opening snapshot, so that the interval
/// and the watch begin together.
fn load_watch(snapper: &mut dyn Snapper) -> anyhow::Result<(Session, ServerProcess)> {
    if !dbio_watch::has_privilege() {
        bail!("--watch traces the server's processes in the kernel, which needs root (or CAP_BPF with CAP_PERFMON)");
    }
    let server = snapper.server_process()?;
    let mut pids = vec![server.pid];
    pids.extend(layers::children_of(server.pid));
    // No duration of its own: the watch ends when it closes the interval
    // ([`Closer`]).
    let cfg = WatchConfig {
        pids,
        block: true,
        follow: true,
        ..Default::default()
    };
    let session = Session::load(cfg, SessionOptions::default())?;
    Ok((session, server))
}

/// The watch's side of a `--watch` interval: it tells the person watching
/// nothing but the progress bar, and it closes the interval itself when
/// the interval's time is up (or a signal came): the sampler stopped and
/// the closing snapshot taken from inside the watch's last tick, just
/// before the tracer's counters are read for the last time, so that the
/// server and the kernel count the same interval to within that one
/// snapshot's time.
struct Closer<'a> {
    snapper: RefCell<&'a mut dyn Snapper>,
    begin: &'a Snapshot,
    len: f64,
    t0: Instant,
    ctx: &'a RunContext,
    bar: &'a crate::progress::Bar,
    closed: RefCell<Option<Result<(Snapshot, AwrReport), dbio_snap::SnapError>>>,
}

impl Closer<'_> {
    fn close(&self) {
        let mut closed = self.closed.borrow_mut();
        if closed.is_none() {
            *closed = Some(self.snapper.borrow_mut().finish_interval(
                self.begin,
                self.len,
                self.ctx.signal(),
            ));
        }
    }
}

impl Observer for Closer<'_> {
    fn stop_requested(&self) -> Option<String> {
        let elapsed = self.t0.elapsed().as_secs_f64();
        self.bar.snap(elapsed, self.len, "");
        let signalled = self.ctx.stop_flag().load(Ordering::Relaxed);
        if elapsed < self.len && !signalled {
            return None;
        }
        self.close();
        Some(
            self.ctx
                .signal()
                .unwrap_or("the interval's end")
                .to_string(),
        )
    }
    fn note(&mut self, _: &str) {}
    fn so_far(&mut self, _: &WatchResult) {}
    fn stream(&mut self, _: &[String]) {}
}

/// One interval with the server's processes watched (`--watch`): the
/// sampler first, then the opening snapshot, then the watch, so the watch
/// begins within a few ms of the snapshot; the watch closes the interval
/// ([`Closer`]). The layers of a commit are joined into the result.
fn watched(
    snapper: &mut dyn Snapper,
    session: Session,
    server: &ServerProcess,
    len: f64,
    ctx: &RunContext,
    bar: &crate::progress::Bar,
) -> anyhow::Result<ExitCode> {
    snapper.start_interval()?;
    let begin = snapper.snapshot()?;
    let mut closer = Closer {
        snapper: RefCell::new(snapper),
        begin: &begin,
        len,
        t0: Instant::now(),
        ctx,
        bar,
        closed: RefCell::new(None),
    };
    let (w, _, tracer) = session.run(&mut closer)?;
    // The watch ended without closing the interval: the server's
    // processes are gone (it stopped).
    closer.close();
    bar.finish();
    let (_, mut r) = closer.closed.into_inner().expect("closed above")?;
    let joined = layers::join(&r, &w, server);
    if let Some(s) = r.snap.as_mut() {
        s.commit_layers = Some(joined);
    }
    dbio_report::verdict::conclude_awr(&mut r);
    let status = ctx.finish_outcome(&Outcome::Awr(r), ctx.signal().is_some());
    // Detaching the programs takes the kernel a while: after the result.
    drop(tracer);
    Ok(status)
}

/// Waits out one interval (the sampler running), polling the stop flag
/// every 50 ms so a signal ends the wait at once.
fn interval(
    snapper: &mut dyn Snapper,
    len: f64,
    stop: &AtomicBool,
    tick: &dyn Fn(f64),
) -> Result<(), dbio_snap::SnapError> {
    snapper.start_interval()?;
    let t0 = Instant::now();
    let end = t0 + Duration::from_secs_f64(len);
    while !stop.load(Ordering::Relaxed) {
        let now = Instant::now();
        if now >= end {
            break;
        }
        tick(t0.elapsed().as_secs_f64());
        std::thread::sleep((end - now).min(Duration::from_millis(50)));
    }
    Ok(())
}

/// Numbers interval `k` of a series: its snapshots are k and k + 1.
fn number(r: &mut AwrReport, k: u64) {
    r.header.begin_snap = Some(k);
    r.header.end_snap = Some(k + 1);
    if let Some(s) = r.snap.as_mut() {
        s.series_index = u32::try_from(k).ok();
    }
    r.source = format!("{} #{k}", r.source);
}
