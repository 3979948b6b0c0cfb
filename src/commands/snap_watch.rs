//! `dbio snap URL --watch`: one snapshot interval with the server's
//! processes (the postmaster or mariadbd, and every process it has forked
//! or forks) followed by a `dbio_watch` session, block layer included;
//! the interval's result gets the layers of a commit
//! (`dbio_snap::layers::join`). Built with the `watch` feature; without
//! it, `--watch` is refused in one sentence.

use crate::run_context::RunContext;
use anyhow::bail;
use dbio_model::awr::AwrReport;
use dbio_model::watch::{WatchConfig, WatchResult};
use dbio_model::Outcome;
use dbio_snap::layers::{self, ServerProcess};
use dbio_snap::{Snapper, Snapshot};
use dbio_watch::{Observer, Session, SessionOptions};
use std::cell::RefCell;
use std::process::ExitCode;
use std::sync::atomic::Ordering;
use std::time::Instant;

/// The tracer loaded for the server's processes, not yet watching.
pub struct Loaded {
    session: Session,
    server: ServerProcess,
}

/// `--watch`: finds the server's processes on this host and loads the
/// tracer for them, before the opening snapshot, so that the interval
/// and the watch begin together.
pub fn load(snapper: &mut dyn Snapper) -> anyhow::Result<Loaded> {
    if !dbio_watch::has_privilege() {
        bail!("--watch traces the server's processes in the kernel, which needs root (or CAP_BPF with CAP_PERFMON)");
    }
    let server = snapper.server_process()?;
    // The server's processes now and later: `follow` adds the ones
    // already running when the watch starts, and each one forked after.
    let pids = vec![server.pid];
    // No duration of its own: the watch ends when it closes the interval
    // ([`Closer`]).
    let cfg = WatchConfig {
        pids,
        block: true,
        follow: true,
        ..Default::default()
    };
    let session = Session::load(cfg, SessionOptions::default())?;
    Ok(Loaded { session, server })
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
pub fn interval(
    snapper: &mut dyn Snapper,
    Loaded { session, server }: Loaded,
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
    let joined = layers::join(&r, &w, &server);
    if let Some(s) = r.snap.as_mut() {
        s.commit_layers = Some(joined);
    }
    dbio_report::verdict::conclude_awr(&mut r);
    let status = ctx.finish_outcome(&Outcome::Awr(r), ctx.signal().is_some());
    // Detaching the programs takes the kernel a while: after the result.
    drop(tracer);
    Ok(status)
}
