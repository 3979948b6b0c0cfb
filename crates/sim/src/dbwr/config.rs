//! The model's configuration (`dbio_model::dbwr::DbwrConfig`, the one
//! the result echoes), checked before any I/O, and its error type.

use super::StampError;
use super::BLOCK_SIZE;
use dbio_engine::EngineError;
pub use dbio_model::dbwr::DbwrConfig;
use dbio_model::units::format_bytes;

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

/// Buffers per list, rounded down (the last list takes the remainder).
pub fn buffers_per_list(c: &DbwrConfig) -> u32 {
    c.buffers / c.lists.max(1)
}

/// Blocks in the datafile.
pub fn blocks(c: &DbwrConfig) -> u64 {
    c.datafile_bytes / BLOCK_SIZE as u64
}

/// Checks the configuration; the first problem is returned as one sentence.
pub fn validate(c: &DbwrConfig) -> Result<(), DbwrError> {
    let blocks = blocks(c);
    let bad = |s: String| Err(DbwrError::Invalid(s));
    if blocks == 0 || !c.datafile_bytes.is_multiple_of(BLOCK_SIZE as u64) {
        return bad(format!(
            "--size must be a positive multiple of 8 KiB (the block size), not {} bytes",
            c.datafile_bytes
        ));
    }
    if c.engine == dbio_model::EngineKind::Libaio && !c.direct {
        return bad(
            "the libaio engine needs --direct: the kernel's native AIO is asynchronous only for O_DIRECT, and a buffered io_submit completes the write inside the call"
                .into(),
        );
    }
    if c.writers == 0 {
        return bad("--writers must be at least 1".into());
    }
    if c.lists == 0 {
        return bad("--lists must be at least 1".into());
    }
    if c.writers > c.lists {
        return bad(format!(
                "{} writers cannot share {} LRU lists: each writer owns whole lists, so use --lists {} or more",
                c.writers, c.lists, c.writers
            ));
    }
    if c.foregrounds == 0 {
        return bad("--foregrounds must be at least 1".into());
    }
    if c.writers > MAX_THREADS {
        return bad(format!(
            "--writers {} is more than {MAX_THREADS}",
            c.writers
        ));
    }
    if c.foregrounds > MAX_THREADS {
        return bad(format!(
            "--foregrounds {} is more than {MAX_THREADS}",
            c.foregrounds
        ));
    }
    // The cache's buffers (8 KiB each, plus a header) and its block
    // map (4 B per datafile block) are allocated up front.
    let cache = u64::from(c.buffers) * (BLOCK_SIZE as u64 + 32) + blocks * 4;
    if cache > 64 << 20 {
        dbio_engine::buf::check_memory(
            cache,
            &format!(
                "a buffer cache of {} buffers for a datafile of {} blocks",
                c.buffers, blocks
            ),
        )
        .map_err(DbwrError::Invalid)?;
    }
    if c.batch_max == 0 || c.batch_max > MAX_BATCH {
        return bad(format!(
            "--batch must be between 1 and {MAX_BATCH} buffers, not {}",
            c.batch_max
        ));
    }
    if !(0.0..=100.0).contains(&c.dirty_pct) {
        return bad(format!(
            "--dirty must be a share between 0 and 100 %, not {}",
            c.dirty_pct
        ));
    }
    if c.scan_depth_pct == 0 || c.scan_depth_pct > 100 {
        return bad(format!(
            "--scan-depth must be between 1 and 100 % of a list, not {}",
            c.scan_depth_pct
        ));
    }
    if buffers_per_list(c) < 4 {
        return bad(format!(
                "{} buffers over {} lists leaves fewer than 4 buffers per list; use more --buffers or fewer --lists",
                c.buffers, c.lists
            ));
    }
    if u64::from(c.buffers) > blocks {
        return bad(format!(
                "the buffer cache ({} buffers, {}) is larger than the datafile ({} blocks, {}); use a larger --size or fewer --buffers",
                c.buffers,
                format_bytes(u64::from(c.buffers) * BLOCK_SIZE as u64),
                blocks,
                format_bytes(blocks * BLOCK_SIZE as u64)
            ));
    }
    if blocks > u64::from(u32::MAX - 1) * u64::from(c.lists) {
        return bad("the datafile has too many blocks for this many lists".into());
    }
    if c.runtime_ns.is_none() && c.ops_limit.is_none() {
        return bad("give a run time or an operation count".into());
    }
    if c.ops_limit == Some(0) {
        return bad("--ops must be at least 1".into());
    }
    if c.rate_iops == Some(0) {
        return bad("--rate must be at least 1 operation per second".into());
    }
    if c.checkpoint_interval_ns == Some(0) {
        return bad("--checkpoint-interval must be longer than 0".into());
    }
    super::placement::validate(&c.placement)?;
    Ok(())
}
