//! Foreground sessions: touch random blocks, change some of them, read a
//! block from the datafile on a miss, and wait when the cache has no
//! reusable buffer.
//!
//! One touch takes exactly one list lock (the block's home list). A hit
//! moves the buffer to the hot end; a change bumps the block's version and
//! stamps it (`block.rs`). A miss looks for a reusable buffer from the cold
//! end, at most `scan depth` buffers deep, skipping dirty ones (Oracle's
//! 'dirty buffers inspected'); it posts the list's writer whenever it had to
//! skip a dirty buffer, and when it finds nothing it sleeps on the list's
//! condition variable until a writer has cleaned buffers ('free buffer
//! waits'). The read itself runs without the lock, with the buffer marked
//! `reading` so that others wanting the block wait ('read by other
//! session'); a change to a buffer a writer has in flight waits for the
//! write ('write complete waits').
//!
//! Each wait sleeps at most [`WAIT_SLICE`] before looking again, as
//! Oracle's waits time out and are counted again, so a wait count is a
//! count of sleeps, and the stop flag is seen within one slice.

use super::block::{self, BLOCK_SIZE};
use super::cache::{ListState, LruList, NIL, NO_BLOCK};
use super::instance::Instance;
use super::instance::{PROBE_FREE_BUFFER_WAITS, PROBE_OPS};
use super::DbwrError;
use dbio_engine::clock::{now_ns, wait_until};
use dbio_engine::engines::{Completion, Dir, Engine, IoRequest, Queued, SyncOp};
use dbio_engine::recorder::new_histogram;
use dbio_engine::series::Probe;
use dbio_model::dbwr::WaitStats;
use dbio_model::LatencySummary;
use hdrhistogram::Histogram;
use std::sync::atomic::Ordering;
use std::sync::MutexGuard;
use std::time::Duration;

/// Longest single sleep of a wait.
pub const WAIT_SLICE: Duration = Duration::from_millis(50);

/// Count, total and distribution of one wait event, per thread.
#[derive(Clone)]
pub struct WaitCounter {
    /// Waits (sleeps).
    pub count: u64,
    /// Time slept, ns.
    pub total_ns: u64,
    /// Distribution of one sleep, ns.
    pub hist: Histogram<u64>,
}

impl Default for WaitCounter {
    fn default() -> Self {
        WaitCounter {
            count: 0,
            total_ns: 0,
            hist: new_histogram(),
        }
    }
}

impl WaitCounter {
    #[inline]
    fn record(&mut self, ns: u64) {
        self.count += 1;
        self.total_ns += ns;
        self.hist.saturating_record(ns.max(1));
    }

    /// Adds another thread's counter.
    pub fn merge(&mut self, o: &WaitCounter) {
        self.count += o.count;
        self.total_ns += o.total_ns;
        self.hist.add(&o.hist).expect("same bounds");
    }

    /// The result form.
    pub fn to_model(&self) -> WaitStats {
        WaitStats {
            count: self.count,
            total_ns: self.total_ns,
            time: LatencySummary::from_histogram(&self.hist),
        }
    }
}

/// What one foreground counted; merged over threads at the end.
#[derive(Clone)]
pub struct ForegroundCounters {
    /// Touches completed.
    pub ops: u64,
    /// Touches that found the block cached.
    pub hits: u64,
    /// Blocks read from the datafile (one per miss).
    pub blocks_read: u64,
    /// Touches that changed the block.
    pub changes: u64,
    /// Time of each read, ns.
    pub read_time: Histogram<u64>,
    /// 'free buffer waits'.
    pub free_buffer_waits: WaitCounter,
    /// 'write complete waits'.
    pub write_complete_waits: WaitCounter,
    /// 'read by other session'.
    pub read_by_other_waits: WaitCounter,
    /// Dirty buffers skipped while looking for a free one.
    pub dirty_inspected: u64,
    /// Buffers looked at while looking for a free one.
    pub free_inspected: u64,
}

impl Default for ForegroundCounters {
    fn default() -> Self {
        ForegroundCounters {
            ops: 0,
            hits: 0,
            blocks_read: 0,
            changes: 0,
            read_time: new_histogram(),
            free_buffer_waits: WaitCounter::default(),
            write_complete_waits: WaitCounter::default(),
            read_by_other_waits: WaitCounter::default(),
            dirty_inspected: 0,
            free_inspected: 0,
        }
    }
}

impl ForegroundCounters {
    /// Adds another thread's counters.
    pub fn merge(&mut self, o: &ForegroundCounters) {
        self.ops += o.ops;
        self.hits += o.hits;
        self.blocks_read += o.blocks_read;
        self.changes += o.changes;
        self.read_time.add(&o.read_time).expect("same bounds");
        self.free_buffer_waits.merge(&o.free_buffer_waits);
        self.write_complete_waits.merge(&o.write_complete_waits);
        self.read_by_other_waits.merge(&o.read_by_other_waits);
        self.dirty_inspected += o.dirty_inspected;
        self.free_inspected += o.free_inspected;
    }
}

/// What a touch did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Touch {
    /// The block was cached.
    Hit,
    /// The block was read from the datafile.
    Miss,
    /// The run ended while the touch waited; nothing was done.
    Stopped,
}

#[derive(Clone, Copy)]
enum WaitKind {
    FreeBuffer,
    WriteComplete,
    ReadByOther,
}

/// The foreground's run parameters.
#[derive(Debug, Clone, Copy)]
pub struct LoadSpec {
    /// Touches this thread makes (None: until the load is over).
    pub ops: Option<u64>,
    /// Nanoseconds between touches (None: full speed).
    pub interval_ns: Option<u64>,
    /// Share of touches that change the block, percent.
    pub dirty_pct: f64,
    /// Start of the rate schedule (monotonic ns; None: now). The load's
    /// common start, so that a thread that runs late after the start
    /// catches up rather than shifting its schedule past the run's end.
    pub start_ns: Option<u64>,
    /// Seed of this thread's block choice.
    pub seed: u64,
}

/// One foreground session.
pub struct Foreground<'a> {
    inst: &'a Instance,
    engine: Box<dyn Engine + 'a>,
    /// Buffers a free-buffer search looks at, per list.
    depth: Vec<u32>,
    /// Completions of an asynchronous engine (capacity 1, reused).
    done: Vec<Completion>,
    /// What it counted.
    pub stats: ForegroundCounters,
    probe: Option<&'a Probe>,
}

impl<'a> Foreground<'a> {
    /// A session on `inst` that reads with `engine` (a synchronous engine:
    /// psync, or null to read nothing) and looks `scan_depth_pct` percent
    /// of a list deep for a free buffer.
    pub fn new(inst: &'a Instance, engine: Box<dyn Engine + 'a>, scan_depth_pct: u32) -> Self {
        let depth = inst
            .cache
            .lists
            .iter()
            .map(|l| (u64::from(l.len) * u64::from(scan_depth_pct) / 100).max(1) as u32)
            .collect();
        Foreground {
            inst,
            engine,
            depth,
            done: Vec::with_capacity(1),
            stats: ForegroundCounters::default(),
            probe: inst.foreground_probe(),
        }
    }

    /// Touches `block`, changing it when `change`.
    pub fn touch(&mut self, block: u64, change: bool) -> Result<Touch, DbwrError> {
        let inst = self.inst;
        let (l, local) = inst.cache.home(block);
        let list = &inst.cache.lists[l as usize];
        let mut st = list.lock();
        loop {
            let i = st.map[local];
            if i != NIL {
                let h = st.hdrs[i as usize];
                if h.reading {
                    match self.wait(list, st, WaitKind::ReadByOther) {
                        Some(g) => st = g,
                        None => return Ok(Touch::Stopped),
                    }
                    continue;
                }
                if change && h.in_write {
                    match self.wait(list, st, WaitKind::WriteComplete) {
                        Some(g) => st = g,
                        None => return Ok(Touch::Stopped),
                    }
                    continue;
                }
                st.make_hot(i);
                if change {
                    self.change(list, &mut st, i, block);
                }
                self.stats.ops += 1;
                self.stats.hits += 1;
                self.count(PROBE_OPS);
                return Ok(Touch::Hit);
            }
            let (free, dirty_seen) = self.find_free(&st, l);
            if dirty_seen {
                inst.post(inst.owner(l));
            }
            let Some(i) = free else {
                match self.wait(list, st, WaitKind::FreeBuffer) {
                    Some(g) => st = g,
                    None => return Ok(Touch::Stopped),
                }
                continue;
            };
            return self.read_into(list, st, i, block, local, change);
        }
    }

    /// Looks for a reusable buffer from the cold end; also says whether it
    /// skipped a dirty one.
    #[inline]
    fn find_free(&mut self, st: &ListState, l: u32) -> (Option<u32>, bool) {
        let depth = self.depth[l as usize];
        let mut i = st.cold;
        let mut seen = 0u32;
        let mut dirty = false;
        while i != NIL && seen < depth {
            let h = &st.hdrs[i as usize];
            seen += 1;
            if h.reusable() {
                self.stats.free_inspected += u64::from(seen);
                return (Some(i), dirty);
            }
            if h.dirty {
                self.stats.dirty_inspected += 1;
                dirty = true;
            }
            i = h.prev;
        }
        self.stats.free_inspected += u64::from(seen);
        (None, dirty)
    }

    /// Takes buffer `i` for `block`, reads the block without the lock, and
    /// finishes the touch.
    fn read_into(
        &mut self,
        list: &LruList,
        mut st: MutexGuard<'_, ListState>,
        i: u32,
        block: u64,
        local: usize,
        change: bool,
    ) -> Result<Touch, DbwrError> {
        let old = st.hdrs[i as usize].block;
        if old != NO_BLOCK {
            let (_, old_local) = self.inst.cache.home(old);
            st.map[old_local] = NIL;
        }
        {
            let h = &mut st.hdrs[i as usize];
            h.block = block;
            h.version = 0;
            h.reading = true;
        }
        st.map[local] = i;
        st.make_hot(i);
        drop(st);

        let t0 = now_ns();
        let read = self.read_block(list.buf_ptr(i), block);
        let version = read.and_then(|()| {
            // SAFETY: this thread set `reading`, so the bytes are its alone.
            let bytes = unsafe { list.buf(i) };
            match block::version(bytes, block) {
                Ok(v) => Ok(v),
                Err(why) if self.inst.verify_reads => Err(DbwrError::Corrupt { block, why }),
                // The null engine reads nothing: the bytes are another block's.
                Err(_) => Ok(0),
            }
        });
        let t1 = now_ns();
        let mut st = list.lock();
        match version {
            Ok(v) => {
                let h = &mut st.hdrs[i as usize];
                h.reading = false;
                h.version = v;
                self.stats.read_time.saturating_record((t1 - t0).max(1));
                self.stats.blocks_read += 1;
                self.stats.ops += 1;
                self.count(PROBE_OPS);
                if change {
                    self.change(list, &mut st, i, block);
                }
            }
            Err(_) => {
                // Give the buffer back empty so nobody sees the failed block.
                st.map[local] = NIL;
                let h = &mut st.hdrs[i as usize];
                h.reading = false;
                h.block = NO_BLOCK;
            }
        }
        if st.waiters > 0 {
            list.cond.notify_all();
        }
        version.map(|_| Touch::Miss)
    }

    fn read_block(&mut self, buf: *mut u8, block: u64) -> Result<(), DbwrError> {
        let req = IoRequest {
            tag: 0,
            dir: Dir::Read,
            offset: block * BLOCK_SIZE as u64,
            len: BLOCK_SIZE as u32,
            buf,
            sync: SyncOp::None,
        };
        // SAFETY: `buf` is a cache buffer (the cache outlives the engine)
        // whose header this thread marked `reading`, so nobody else touches
        // it until this read is over: it completes in `queue`, or is reaped
        // just below before this returns.
        match unsafe { self.engine.queue(&req) }? {
            Queued::Done(_) => Ok(()),
            Queued::InFlight => {
                // An asynchronous engine works too, at queue depth 1.
                self.done.clear();
                self.engine.commit()?;
                self.engine.reap(1, &mut self.done)?;
                Ok(())
            }
        }
    }

    /// Changes buffer `i` (under the lock): next version, stamped.
    #[inline]
    fn change(&mut self, list: &LruList, st: &mut ListState, i: u32, block: u64) {
        let h = &mut st.hdrs[i as usize];
        debug_assert!(!h.in_write && !h.reading);
        h.version += 1;
        // SAFETY: we hold the list lock and the buffer is neither in a
        // write nor being read: nobody else touches its bytes.
        block::stamp(unsafe { list.buf_mut(i) }, block, h.version);
        if !h.dirty {
            h.dirty = true;
            st.dirty += 1;
        }
        self.stats.changes += 1;
    }

    /// Counts one event in the per-second series.
    #[inline]
    fn count(&self, counter: usize) {
        if let Some(p) = self.probe {
            p.add(counter, 1);
        }
    }

    /// Sleeps on the list's condition variable for one slice; None when the
    /// load is over or the run aborted.
    fn wait<'g>(
        &mut self,
        list: &'g LruList,
        mut st: MutexGuard<'g, ListState>,
        kind: WaitKind,
    ) -> Option<MutexGuard<'g, ListState>> {
        if self.inst.load_over.load(Ordering::Relaxed) || self.inst.aborted() {
            return None;
        }
        st.waiters += 1;
        let t0 = now_ns();
        let (mut st, _) = list
            .cond
            .wait_timeout(st, WAIT_SLICE)
            .expect("an LRU list lock was poisoned");
        let ns = now_ns() - t0;
        st.waiters -= 1;
        match kind {
            WaitKind::FreeBuffer => {
                self.stats.free_buffer_waits.record(ns);
                self.count(PROBE_FREE_BUFFER_WAITS);
            }
            WaitKind::WriteComplete => self.stats.write_complete_waits.record(ns),
            WaitKind::ReadByOther => self.stats.read_by_other_waits.record(ns),
        }
        Some(st)
    }

    /// Runs the load until it is over (or `spec.ops` touches are done).
    pub fn run(&mut self, spec: &LoadSpec) -> Result<(), DbwrError> {
        let blocks = self.inst.cache.blocks();
        let mut rng = fastrand::Rng::with_seed(spec.seed);
        // Change when a uniform u32 falls below this (2^32 = always).
        let threshold = (spec.dirty_pct / 100.0 * 4_294_967_296.0).round() as u64;
        let mut next = spec.start_ns.unwrap_or_else(now_ns);
        let mut done = 0u64;
        while spec.ops.is_none_or(|n| done < n) {
            if self.inst.load_over.load(Ordering::Relaxed) || self.inst.aborted() {
                break;
            }
            if let Some(iv) = spec.interval_ns {
                next += iv;
                // Sleep in slices so that the end of the load is seen.
                loop {
                    let now = now_ns();
                    if now >= next || self.inst.load_over.load(Ordering::Relaxed) {
                        break;
                    }
                    wait_until(next.min(now + WAIT_SLICE.as_nanos() as u64));
                }
            }
            let block = rng.u64(..blocks);
            let change = u64::from(rng.u32(..)) < threshold;
            if self.touch(block, change)? == Touch::Stopped {
                break;
            }
            done += 1;
        }
        Ok(())
    }
}
