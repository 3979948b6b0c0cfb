//! `null`: completes every I/O at once without a system call, to measure
//! dbio's own cost per I/O (fio's null engine). An optional injected service
//! time turns it into a device with a known, fixed latency for arithmetic
//! checks of the models built on the engine.

use super::{Completion, Engine, IoRequest, Queued, SyncOp};
use crate::{
    clock::{now_ns, wait_until},
    EngineError,
};

/// The no-I/O engine.
pub struct NullEngine {
    delay_ns: u64,
}

impl NullEngine {
    /// A null engine whose every I/O (and every sync) takes `delay_ns`.
    pub fn new(delay_ns: u64) -> Self {
        Self { delay_ns }
    }
}

impl Engine for NullEngine {
    #[inline]
    fn queue(&mut self, req: &IoRequest) -> Result<Queued, EngineError> {
        let mut io_done_ns = now_ns();
        if self.delay_ns > 0 {
            io_done_ns += self.delay_ns;
            wait_until(io_done_ns);
        }
        let mut sync_done_ns = io_done_ns;
        if req.sync != SyncOp::None && self.delay_ns > 0 {
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

    fn reap(&mut self, _min: u32, _out: &mut Vec<Completion>) -> Result<(), EngineError> {
        Ok(())
    }
}
