//! What foregrounds, writers and the coordinator share: the buffer cache,
//! how to post a writer, and the run's phase flags (the model's SGA).

use super::cache::BufferCache;
use dbio_engine::series::{Probe, Probes};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::OnceLock;
use std::thread::Thread;

/// A flag on its own cache line, so that posting one writer does not slow
/// the lines other threads read.
#[repr(align(128))]
#[derive(Default)]
pub(crate) struct Padded<T>(pub T);

/// The shared state of one run.
pub struct Instance {
    /// The buffer cache.
    pub cache: BufferCache,
    writers: u32,
    /// Block size multiple check: whether reads verify stamps (real engines).
    pub(crate) verify_reads: bool,
    /// Per writer: a foreground asked it for free buffers since it last looked.
    posted: Vec<Padded<AtomicBool>>,
    /// The writer threads, once spawned (posting unparks them).
    pub(crate) writer_threads: OnceLock<Vec<Thread>>,
    /// The coordinator thread (writers unpark it when a checkpoint is done).
    pub(crate) coordinator: OnceLock<Thread>,
    /// Foregrounds stop (the measured interval is over).
    pub(crate) load_over: AtomicBool,
    /// Writers exit (after the shutdown checkpoint).
    pub(crate) shutdown: AtomicBool,
    /// An error somewhere: every thread stops.
    pub(crate) abort: AtomicBool,
    /// When the load started (monotonic ns): set once by the first thread
    /// past the start barrier, so that the coordinator's clock (run time,
    /// checkpoint schedule) and the foregrounds' rate schedule share it.
    pub(crate) start: OnceLock<u64>,
    /// The latest checkpoint requested (a sequence number, 0 = none).
    pub(crate) ckpt_requested: AtomicU64,
    /// Per writer: the latest checkpoint it has completed.
    pub(crate) ckpt_done: Vec<Padded<AtomicU64>>,
    /// Per-second series: one probe per foreground, then one per writer
    /// (set by the run before its threads start; counters are
    /// [`PROBE_OPS`], [`PROBE_WRITES`], [`PROBE_FREE_BUFFER_WAITS`]).
    pub(crate) probes: OnceLock<Probes>,
}

/// Probe counter: foreground touches.
pub const PROBE_OPS: usize = 0;
/// Probe counter: blocks a writer wrote during the load.
pub const PROBE_WRITES: usize = 1;
/// Probe counter: 'free buffer waits' (one per wait slice, as the result
/// counts them).
pub const PROBE_FREE_BUFFER_WAITS: usize = 2;

impl Instance {
    /// An instance with a cache of `buffers` buffers over `lists` lists,
    /// for a datafile of `blocks` blocks, served by `writers` writers.
    /// `verify_reads` makes every block read from the datafile check its
    /// stamp (off for the null engine, which reads nothing).
    pub fn new(buffers: u32, lists: u32, blocks: u64, writers: u32, verify_reads: bool) -> Self {
        Self::try_new(buffers, lists, blocks, writers, verify_reads).expect("a small instance")
    }

    /// [`Instance::new`], or the sentence saying that the cache's memory
    /// could not be allocated.
    pub fn try_new(
        buffers: u32,
        lists: u32,
        blocks: u64,
        writers: u32,
        verify_reads: bool,
    ) -> Result<Self, String> {
        Ok(Instance {
            cache: BufferCache::try_new(buffers, lists, blocks)?,
            writers,
            verify_reads,
            posted: (0..writers).map(|_| Padded::default()).collect(),
            writer_threads: OnceLock::new(),
            coordinator: OnceLock::new(),
            load_over: AtomicBool::new(false),
            shutdown: AtomicBool::new(false),
            abort: AtomicBool::new(false),
            start: OnceLock::new(),
            ckpt_requested: AtomicU64::new(0),
            ckpt_done: (0..writers).map(|_| Padded::default()).collect(),
            probes: OnceLock::new(),
        })
    }

    /// Number of writers.
    pub fn writers(&self) -> u32 {
        self.writers
    }

    /// The writer that owns list `list` (lists are dealt round-robin, so
    /// writer `w` owns `w, w + K, w + 2K, ...` for the whole run).
    #[inline]
    pub fn owner(&self, list: u32) -> u32 {
        list % self.writers
    }

    /// The lists writer `w` owns.
    pub fn lists_of(&self, w: u32) -> Vec<u32> {
        (w..self.cache.list_count())
            .step_by(self.writers as usize)
            .collect()
    }

    /// Posts writer `w` (Oracle: a foreground posts DBWR for free buffers).
    /// Cheap when the writer was already posted: one relaxed load.
    #[inline]
    pub(crate) fn post(&self, w: u32) {
        let flag = &self.posted[w as usize].0;
        if !flag.load(Ordering::Relaxed) && !flag.swap(true, Ordering::AcqRel) {
            if let Some(t) = self.writer_threads.get() {
                t[w as usize].unpark();
            }
        }
    }

    /// Whether writer `w` was posted since it last asked; clears the post.
    #[inline]
    pub(crate) fn take_post(&self, w: u32) -> bool {
        self.posted[w as usize].0.swap(false, Ordering::AcqRel)
    }

    /// Whether every thread must stop.
    #[inline]
    pub(crate) fn aborted(&self) -> bool {
        self.abort.load(Ordering::Relaxed)
    }

    /// A foreground's probe (None when the run keeps no series or every
    /// foreground probe is taken).
    pub(crate) fn foreground_probe(&self) -> Option<&Probe> {
        let p = self.probes.get()?;
        p.claim(p.len().saturating_sub(self.writers as usize))
    }

    /// Writer `w`'s probe.
    pub(crate) fn writer_probe(&self, w: u32) -> Option<&Probe> {
        let p = self.probes.get()?;
        p.get((p.len() + w as usize).checked_sub(self.writers as usize)?)
    }

    /// Wakes every writer (checkpoint requests, shutdown, abort).
    pub(crate) fn wake_writers(&self) {
        if let Some(ts) = self.writer_threads.get() {
            for t in ts {
                t.unpark();
            }
        }
    }
}
