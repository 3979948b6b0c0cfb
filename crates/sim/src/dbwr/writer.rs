//! Database writers: each owns a fixed set of LRU lists for the whole run,
//! scans the cold end of each for dirty buffers, writes them as one batch
//! ('db file parallel write') and marks them clean.
//!
//! This is the DBWR of Kevin Closson's "Over-Configuring DBWR Processes"
//! (part II): it "builds write batches by examining the state of buffer headers
//! on the LRU lists ... each DBWR process is assigned a set of LRUs", marks
//! buffers busy while they are in flight, and posts waiting foregrounds.
//! A batch is collected list by list, at most `batch_max` buffers, with each
//! buffer flagged `in_write` under its list lock; the lock is dropped for
//! the I/O (all writes queued, one submit, one reap for io_uring; one
//! pwrite after another for psync); then each list is locked once to mark
//! its buffers clean and wake its waiters. Buffers are written straight
//! from the cache (no copy), which is why a change to an `in_write` buffer
//! must wait ('write complete waits').
//!
//! With nothing to write a writer sleeps until a foreground posts it or
//! [`IDLE_TIMEOUT`] passes (Oracle's DBWR times out every 3 s; 100 ms here
//! so that short runs still see background writes of the cold ends).

use super::block::BLOCK_SIZE;
use super::cache::NIL;
use super::instance::Instance;
use super::instance::PROBE_WRITES;
use super::DbwrError;
use dbio_engine::clock::now_ns;
use dbio_engine::engines::{Completion, Dir, Engine, IoRequest, Queued, SyncOp};
use dbio_engine::recorder::new_histogram;
use dbio_engine::rusage::{thread_usage, Usage};
use dbio_engine::series::Probe;
use dbio_model::Log2Buckets;
use hdrhistogram::Histogram;
use std::sync::atomic::Ordering;
use std::time::Duration;

/// Longest sleep of an idle writer.
pub const IDLE_TIMEOUT: Duration = Duration::from_millis(100);

/// One buffer of a batch.
#[derive(Debug, Clone, Copy)]
struct Entry {
    list: u32,
    buf: u32,
    block: u64,
}

/// What one writer counted.
#[derive(Clone)]
pub struct WriterCounters {
    /// Buffers written while the load ran.
    pub blocks_written: u64,
    /// Batches written while the load ran.
    pub batches: u64,
    /// Largest batch.
    pub batch_max: u64,
    /// Batch sizes on power-of-two buckets.
    pub batch_sizes: Log2Buckets,
    /// Time of each batch, ns ('db file parallel write').
    pub parallel_write: Histogram<u64>,
    /// Buffers written because of a checkpoint (during the load).
    pub checkpoint_writes: u64,
    /// Buffers written by the shutdown checkpoint, after the load.
    pub shutdown_writes: u64,
    /// Buffers written per list (index = list number), whole run: a writer
    /// writes only its own lists, so the others stay 0.
    pub per_list: Vec<u64>,
    /// Buffer headers examined.
    pub scanned: u64,
    /// Sleeps with nothing to do.
    pub idle_sleeps: u64,
}

impl WriterCounters {
    pub(crate) fn new(lists: u32, batch_max: u32) -> Self {
        // Pre-sized so that recording never allocates.
        let batch_sizes = Log2Buckets {
            counts: vec![0; Log2Buckets::index_of_us(u64::from(batch_max)) + 1],
        };
        WriterCounters {
            blocks_written: 0,
            batches: 0,
            batch_max: 0,
            batch_sizes,
            parallel_write: new_histogram(),
            checkpoint_writes: 0,
            shutdown_writes: 0,
            per_list: vec![0; lists as usize],
            scanned: 0,
            idle_sleeps: 0,
        }
    }
}

/// One database writer.
pub struct Writer<'a> {
    inst: &'a Instance,
    index: u32,
    lists: Vec<u32>,
    /// Cold-end scan depth per owned list.
    depth: Vec<u32>,
    engine: Box<dyn Engine + 'a>,
    batch: Vec<Entry>,
    done: Vec<Completion>,
    batch_max: usize,
    /// Set once the load is over: later writes belong to the shutdown.
    after_load: bool,
    /// This thread's usage when it saw the load end.
    pub usage_at_load_end: Option<Usage>,
    /// What it counted.
    pub stats: WriterCounters,
    probe: Option<&'a Probe>,
}

impl<'a> Writer<'a> {
    /// Writer `index` of `inst`, writing with `engine` (for io_uring, a ring
    /// at least `batch_max` deep) in batches of at most `batch_max`, looking
    /// `scan_depth_pct` percent of a list deep from the cold end.
    pub fn new(
        inst: &'a Instance,
        index: u32,
        engine: Box<dyn Engine + 'a>,
        batch_max: u32,
        scan_depth_pct: u32,
    ) -> Self {
        let lists = inst.lists_of(index);
        let depth = lists
            .iter()
            .map(|&l| {
                let len = inst.cache.lists[l as usize].len;
                (u64::from(len) * u64::from(scan_depth_pct) / 100).max(1) as u32
            })
            .collect();
        Writer {
            inst,
            index,
            lists,
            depth,
            engine,
            batch: Vec::with_capacity(batch_max as usize),
            done: Vec::with_capacity(batch_max as usize),
            batch_max: batch_max as usize,
            after_load: false,
            usage_at_load_end: None,
            stats: WriterCounters::new(inst.cache.list_count(), batch_max),
            probe: inst.writer_probe(index),
        }
    }

    /// The lists it owns.
    pub fn lists(&self) -> &[u32] {
        &self.lists
    }

    /// One pass over its lists' cold ends; returns the buffers written.
    pub fn pass(&mut self) -> Result<u64, DbwrError> {
        let mut written = 0;
        for k in 0..self.lists.len() {
            self.collect_cold(k);
            if self.batch.len() == self.batch_max {
                written += self.flush(false)?;
            }
        }
        written += self.flush(false)?;
        Ok(written)
    }

    /// Writes every buffer of its lists that is dirty when the scan reaches
    /// it; returns the buffers written.
    pub fn checkpoint(&mut self) -> Result<u64, DbwrError> {
        let mut written = 0;
        for k in 0..self.lists.len() {
            let l = self.lists[k];
            let list = &self.inst.cache.lists[l as usize];
            let mut i = 0u32;
            while i < list.len {
                if self.inst.aborted() {
                    self.release();
                    return Ok(written);
                }
                {
                    let mut st = list.lock();
                    while i < list.len && self.batch.len() < self.batch_max {
                        let h = &mut st.hdrs[i as usize];
                        if h.dirty && !h.in_write {
                            h.in_write = true;
                            self.batch.push(Entry {
                                list: l,
                                buf: i,
                                block: h.block,
                            });
                        }
                        i += 1;
                    }
                }
                if self.batch.len() == self.batch_max {
                    written += self.flush(true)?;
                }
            }
        }
        written += self.flush(true)?;
        Ok(written)
    }

    /// Adds dirty buffers from the cold end of its `k`-th list to the batch.
    fn collect_cold(&mut self, k: usize) {
        let l = self.lists[k];
        let list = &self.inst.cache.lists[l as usize];
        let mut st = list.lock();
        let mut i = st.cold;
        let mut seen = 0;
        while i != NIL && seen < self.depth[k] && self.batch.len() < self.batch_max {
            seen += 1;
            let h = &mut st.hdrs[i as usize];
            if h.dirty && !h.in_write {
                h.in_write = true;
                self.batch.push(Entry {
                    list: l,
                    buf: i,
                    block: h.block,
                });
            }
            i = h.prev;
        }
        self.stats.scanned += u64::from(seen);
    }

    /// Writes the batch, marks it clean, wakes waiters; returns its size.
    fn flush(&mut self, checkpoint: bool) -> Result<u64, DbwrError> {
        let n = self.batch.len();
        if n == 0 {
            return Ok(0);
        }
        let t0 = now_ns();
        if let Err(e) = self.write_batch() {
            self.release();
            return Err(e);
        }
        let ns = now_ns() - t0;
        let mut k = 0;
        while k < n {
            let l = self.batch[k].list;
            let list = &self.inst.cache.lists[l as usize];
            let mut st = list.lock();
            while k < n && self.batch[k].list == l {
                let e = self.batch[k];
                let h = &mut st.hdrs[e.buf as usize];
                debug_assert!(h.in_write && h.dirty && h.block == e.block);
                h.in_write = false;
                if h.dirty {
                    h.dirty = false;
                    st.dirty -= 1;
                }
                self.stats.per_list[l as usize] += 1;
                k += 1;
            }
            if st.waiters > 0 {
                list.cond.notify_all();
            }
        }
        self.batch.clear();
        let n = n as u64;
        let s = &mut self.stats;
        if self.after_load {
            s.shutdown_writes += n;
        } else {
            s.blocks_written += n;
            if let Some(p) = self.probe {
                p.add(PROBE_WRITES, n);
            }
            s.batches += 1;
            s.batch_max = s.batch_max.max(n);
            s.batch_sizes.record_us(n);
            s.parallel_write.saturating_record(ns.max(1));
            if checkpoint {
                s.checkpoint_writes += n;
            }
        }
        Ok(n)
    }

    /// Issues every write of the batch and waits for all of them.
    fn write_batch(&mut self) -> Result<(), DbwrError> {
        let mut in_flight = 0u32;
        for (tag, e) in self.batch.iter().enumerate() {
            let req = IoRequest {
                tag: tag as u32,
                dir: Dir::Write,
                offset: e.block * BLOCK_SIZE as u64,
                len: BLOCK_SIZE as u32,
                buf: self.inst.cache.lists[e.list as usize].buf_ptr(e.buf),
                sync: SyncOp::None,
            };
            // SAFETY: the buffer is one of the cache's, which outlive every
            // engine, and this is a write, so the kernel only reads it; its
            // header is marked `in_write`, so no foreground changes or reuses
            // it until the batch is reaped below. Tags are the batch's
            // indices, each queued once per batch. After an error `release`
            // clears the marks while writes may still be in flight: a
            // foreground may then change bytes the kernel is still reading,
            // which can tear that block of dbio's own datafile in a run that
            // already failed, but no memory is freed under the kernel.
            if let Queued::InFlight = unsafe { self.engine.queue(&req) }? {
                in_flight += 1;
            }
        }
        if in_flight > 0 {
            self.engine.commit()?;
            let mut got = 0;
            while got < in_flight {
                self.done.clear();
                self.engine.reap(in_flight - got, &mut self.done)?;
                got += self.done.len() as u32;
            }
        }
        Ok(())
    }

    /// Takes the batch back unwritten (after an error or an abort): the
    /// buffers stay dirty.
    fn release(&mut self) {
        for e in &self.batch {
            let list = &self.inst.cache.lists[e.list as usize];
            let mut st = list.lock();
            st.hdrs[e.buf as usize].in_write = false;
            if st.waiters > 0 {
                list.cond.notify_all();
            }
        }
        self.batch.clear();
    }

    /// The writer's life: passes over its lists, checkpoints when asked,
    /// sleeps when idle, until shutdown or abort.
    pub fn run(&mut self) -> Result<(), DbwrError> {
        let inst = self.inst;
        let me = self.index as usize;
        let mut seen = inst.ckpt_done[me].0.load(Ordering::Acquire);
        loop {
            if inst.aborted() {
                return Ok(());
            }
            if !self.after_load && inst.load_over.load(Ordering::Acquire) {
                self.after_load = true;
                self.usage_at_load_end = Some(thread_usage());
            }
            let req = inst.ckpt_requested.load(Ordering::Acquire);
            if req > seen {
                self.checkpoint()?;
                seen = req;
                inst.ckpt_done[me].0.store(req, Ordering::Release);
                if let Some(c) = inst.coordinator.get() {
                    c.unpark();
                }
                continue;
            }
            if inst.shutdown.load(Ordering::Acquire) {
                return Ok(());
            }
            if self.pass()? == 0 && !inst.take_post(self.index) {
                self.stats.idle_sleeps += 1;
                std::thread::park_timeout(IDLE_TIMEOUT);
            }
        }
    }
}
