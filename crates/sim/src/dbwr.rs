//! The database-writer model (`dbio dbwr`, issue 4): a buffer cache of 8 KiB
//! buffers over LRU lists, foreground threads that touch and change random
//! blocks of a real datafile, and K writer threads that each own L/K lists
//! and flush their cold ends in batches.
//!
//! Why: Kevin Closson ("Over-Configuring DBWR Processes – Part III")
//! measured that one DBWR outperforms eight unless it is CPU-bound (62.6 vs
//! 57.9 TPM) because every writer is
//! equally loaded, so more writers only add scheduling and cache misses.
//! This model lets a user measure that trade-off on their own machine:
//! throughput, 'free buffer waits', write IOPS and batch sizes, and each
//! writer's CPU from getrusage(RUSAGE_THREAD), for 1, 2, 4, 8 writers.
//!
//! Layout: [`block`] (verifiable block stamps), [`cache`] (lists, headers,
//! locking rules), [`instance`] (what threads share), [`foreground`],
//! [`writer`], [`placement`] (CPU affinity), [`config`], [`run`](mod@run)
//! (threads, checkpoints) and [`report`] (counters into a result).
//! Hot paths neither allocate nor print; every thread counts into its own
//! structures, merged when the run ends.

pub mod block;
pub mod cache;
pub mod config;
pub mod datafile;
pub mod foreground;
pub mod instance;
pub mod placement;
pub mod report;
pub mod run;
pub mod sweep;
pub mod writer;

pub use block::{StampError, BLOCK_SIZE};
pub use cache::{BufferCache, CachedBlock};
pub use config::{DbwrConfig, DbwrError, MAX_BATCH};
pub use foreground::{Foreground, LoadSpec, Touch};
pub use instance::Instance;
pub use placement::Placement;
pub use run::{
    run, run_on, run_on_shown, run_shown, standard_engines, striped_engines, Datafile,
    EngineFactory, Outcome, Role, RunData,
};
pub use writer::Writer;
