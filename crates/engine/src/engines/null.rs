//! `null`: completes every I/O at once without a system call, to measure
//! dbio's own cost per I/O (fio's null engine). An optional injected service
//! time turns it into a device with a known, fixed latency for arithmetic
//! checks of the models built on the engine.
//!
//! [`NullEngine::out_of_order`] is the asynchronous variant: I/Os stay in
//! flight after [`Engine::queue`] and [`Engine::reap`] hands them back in a
//! seeded random order, never oldest first when it can help it, the way a
//! real device with several writes queued may finish them. It exists so
//! that a model that must act on completions in submission order (the log
//! writer posts a commit only when its write and every earlier one are
//! durable) is tested against a device that does not do it for free. With
//! a journal it also records when each I/O was handed back, the evidence a
//! test compares the model's posts with.

use super::{Completion, Engine, IoRequest, Queued, SyncOp};
use crate::{
    clock::{now_ns, wait_until},
    EngineError,
};

/// One I/O handed back by an out-of-order null engine.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NullDone {
    /// The request's offset.
    pub offset: u64,
    /// The request's length.
    pub len: u32,
    /// When [`Engine::reap`] handed it back (monotonic ns), read before
    /// the caller can see it.
    pub reaped_ns: u64,
}

#[derive(Clone, Copy)]
struct InFlight {
    tag: u32,
    offset: u64,
    len: u32,
    io_due_ns: u64,
    sync_due_ns: u64,
}

/// The no-I/O engine.
pub struct NullEngine {
    delay_ns: u64,
    /// Out of order: the I/Os in flight and the generator that picks the
    /// next one to finish; None for the synchronous engine.
    queue: Option<(Vec<InFlight>, fastrand::Rng)>,
    journal: Option<Vec<NullDone>>,
}

impl NullEngine {
    /// A null engine whose every I/O (and every sync) takes `delay_ns`.
    pub(crate) fn new(delay_ns: u64) -> Self {
        Self {
            delay_ns,
            queue: None,
            journal: None,
        }
    }

    /// An asynchronous null engine: every I/O (and every sync) takes at
    /// least `delay_ns` from its queueing, and completions come back in an
    /// order drawn from `seed`. `journal` keeps a [`NullDone`] per I/O.
    pub(crate) fn out_of_order(delay_ns: u64, depth: u32, seed: u64, journal: bool) -> Self {
        Self {
            delay_ns,
            queue: Some((
                Vec::with_capacity(depth as usize),
                fastrand::Rng::with_seed(seed),
            )),
            journal: journal.then(Vec::new),
        }
    }

    /// The journal so far (empty without one), emptying it.
    pub fn take_journal(&mut self) -> Vec<NullDone> {
        self.journal
            .as_mut()
            .map(std::mem::take)
            .unwrap_or_default()
    }
}

impl Engine for NullEngine {
    #[inline]
    unsafe fn queue(&mut self, req: &IoRequest) -> Result<Queued, EngineError> {
        let mut io_done_ns = now_ns();
        let sync = req.sync != SyncOp::None && self.delay_ns > 0;
        if let Some((q, _)) = &mut self.queue {
            io_done_ns += self.delay_ns;
            q.push(InFlight {
                tag: req.tag,
                offset: req.offset,
                len: req.len,
                io_due_ns: io_done_ns,
                sync_due_ns: io_done_ns + if sync { self.delay_ns } else { 0 },
            });
            return Ok(Queued::InFlight);
        }
        if self.delay_ns > 0 {
            io_done_ns += self.delay_ns;
            wait_until(io_done_ns);
        }
        let mut sync_done_ns = io_done_ns;
        if sync {
            sync_done_ns += self.delay_ns;
            wait_until(sync_done_ns);
        }
        Ok(Queued::Done(Completion {
            tag: req.tag,
            io_done_ns,
            sync_done_ns,
        }))
    }

    fn commit(&mut self) -> Result<(), EngineError> {
        Ok(())
    }

    /// Out of order: finishes exactly `min` I/Os (fewer when fewer are in
    /// flight), each picked at random among those in flight but the oldest
    /// while more than one is, waiting until each is due.
    fn reap(&mut self, min: u32, out: &mut Vec<Completion>) -> Result<(), EngineError> {
        let Some((q, rng)) = &mut self.queue else {
            return Ok(());
        };
        for _ in 0..min {
            if q.is_empty() {
                break;
            }
            let i = if q.len() > 1 {
                rng.usize(1..q.len())
            } else {
                0
            };
            let f = q.remove(i);
            wait_until(f.sync_due_ns);
            let now = now_ns();
            if let Some(j) = &mut self.journal {
                j.push(NullDone {
                    offset: f.offset,
                    len: f.len,
                    reaped_ns: now,
                });
            }
            out.push(Completion {
                tag: f.tag,
                io_done_ns: f.io_due_ns,
                sync_done_ns: f.sync_due_ns.max(f.io_due_ns),
            });
        }
        Ok(())
    }
}
