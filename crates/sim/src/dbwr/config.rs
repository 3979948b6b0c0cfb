//! The model's configuration, checked before any I/O, and its error type.

use super::placement::Placement;
use super::StampError;
use super::BLOCK_SIZE;
use dbio_engine::EngineError;
use dbio_model::units::format_bytes;
use dbio_model::EngineKind;

/// Everything one run of the model needs to know.
#[derive(Debug, Clone)]
pub struct DbwrConfig {
    /// Buffers in the cache (8 KiB each).
    pub buffers: u32,
    /// LRU lists; block `b` lives on list `b % lists`.
    pub lists: u32,
    /// Writer threads; writer `w` owns lists `w, w + K, w + 2K, ...`.
    pub writers: u32,
    /// Foreground threads.
    pub foregrounds: u32,
    /// Share of touches that change the block, percent (0..=100).
    pub dirty_pct: f64,
    /// Largest write batch, buffers.
    pub batch_max: u32,
    /// How deep (percent of a list) foregrounds look for a free buffer and
    /// writers look for dirty ones, from the cold end.
    pub scan_depth_pct: u32,
    /// Blocks in the datafile.
    pub blocks: u64,
    /// Writers' I/O engine.
    pub engine: EngineKind,
    /// Injected service time of the null engine, ns.
    pub null_delay_ns: u64,
    /// Measured run time, ns (None: until `ops` touches are done).
    pub runtime_ns: Option<u64>,
    /// Touches in total, split across foregrounds (None: until `runtime_ns`).
    pub ops: Option<u64>,
    /// Foreground rate over all threads, touches per second (None: full speed).
    pub rate: Option<u64>,
    /// Checkpoint interval, ns.
    pub checkpoint_interval_ns: Option<u64>,
    /// Writer CPU placement.
    pub placement: Placement,
    /// Seed of the foregrounds' block choice.
    pub seed: u64,
}

/// Largest batch accepted: io_uring's submission queue is sized from it.
pub const MAX_BATCH: u32 = 4096;

/// Errors of the model; each message is one sentence a user can act on.
#[derive(Debug, thiserror::Error)]
pub enum DbwrError {
    /// A bad option, found before any I/O.
    #[error("{0}")]
    Invalid(String),
    /// An engine error (I/O, io_uring set-up).
    #[error(transparent)]
    Engine(#[from] EngineError),
    /// A block read back from the datafile is not what the model wrote.
    #[error("block {block} of the datafile is corrupt: {why}")]
    Corrupt {
        /// The block number.
        block: u64,
        /// What is wrong with it.
        why: StampError,
    },
    /// sched_setaffinity refused a writer's CPU placement.
    #[error("pinning writer {writer} to CPUs {cpus} failed: {os}")]
    Affinity {
        /// The writer.
        writer: u32,
        /// The CPU list.
        cpus: String,
        /// The OS error: in the message only, not a `#[source]`, so that
        /// `{:#}` prints it once.
        os: std::io::Error,
    },
}

/// The most writer or foreground threads.
pub const MAX_THREADS: u32 = 4096;

impl DbwrConfig {
    /// Buffers per list, rounded down (the last list takes the remainder).
    pub fn buffers_per_list(&self) -> u32 {
        self.buffers / self.lists.max(1)
    }

    /// Checks the configuration; the first problem is returned as one sentence.
    pub fn validate(&self) -> Result<(), DbwrError> {
        let bad = |s: String| Err(DbwrError::Invalid(s));
        if self.writers == 0 {
            return bad("--writers must be at least 1".into());
        }
        if self.lists == 0 {
            return bad("--lists must be at least 1".into());
        }
        if self.writers > self.lists {
            return bad(format!(
                "{} writers cannot share {} LRU lists: each writer owns whole lists, so use --lists {} or more",
                self.writers, self.lists, self.writers
            ));
        }
        if self.foregrounds == 0 {
            return bad("--foregrounds must be at least 1".into());
        }
        if self.writers > MAX_THREADS {
            return bad(format!(
                "--writers {} is more than {MAX_THREADS}",
                self.writers
            ));
        }
        if self.foregrounds > MAX_THREADS {
            return bad(format!(
                "--foregrounds {} is more than {MAX_THREADS}",
                self.foregrounds
            ));
        }
        // The cache's buffers (8 KiB each, plus a header) and its block
        // map (4 B per datafile block) are allocated up front.
        let cache = u64::from(self.buffers) * (BLOCK_SIZE as u64 + 32) + self.blocks * 4;
        if cache > 64 << 20 {
            dbio_engine::buf::check_memory(
                cache,
                &format!(
                    "a buffer cache of {} buffers for a datafile of {} blocks",
                    self.buffers, self.blocks
                ),
            )
            .map_err(DbwrError::Invalid)?;
        }
        if self.batch_max == 0 || self.batch_max > MAX_BATCH {
            return bad(format!(
                "--batch must be between 1 and {MAX_BATCH} buffers, not {}",
                self.batch_max
            ));
        }
        if !(0.0..=100.0).contains(&self.dirty_pct) {
            return bad(format!(
                "--dirty must be a share between 0 and 100 %, not {}",
                self.dirty_pct
            ));
        }
        if self.scan_depth_pct == 0 || self.scan_depth_pct > 100 {
            return bad(format!(
                "--scan-depth must be between 1 and 100 % of a list, not {}",
                self.scan_depth_pct
            ));
        }
        if self.buffers_per_list() < 4 {
            return bad(format!(
                "{} buffers over {} lists leaves fewer than 4 buffers per list; use more --buffers or fewer --lists",
                self.buffers, self.lists
            ));
        }
        if u64::from(self.buffers) > self.blocks {
            return bad(format!(
                "the buffer cache ({} buffers, {}) is larger than the datafile ({} blocks, {}); use a larger --size or fewer --buffers",
                self.buffers,
                format_bytes(u64::from(self.buffers) * BLOCK_SIZE as u64),
                self.blocks,
                format_bytes(self.blocks * BLOCK_SIZE as u64)
            ));
        }
        if self.blocks > u64::from(u32::MAX - 1) * u64::from(self.lists) {
            return bad("the datafile has too many blocks for this many lists".into());
        }
        if self.runtime_ns.is_none() && self.ops.is_none() {
            return bad("give a run time or an operation count".into());
        }
        if self.ops == Some(0) {
            return bad("--ops must be at least 1".into());
        }
        if self.rate == Some(0) {
            return bad("--rate must be at least 1 operation per second".into());
        }
        if self.checkpoint_interval_ns == Some(0) {
            return bad("--checkpoint-interval must be longer than 0".into());
        }
        self.placement.validate(self.writers)?;
        Ok(())
    }
}
