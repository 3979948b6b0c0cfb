//! dbio's measurement engine: targets, I/O engines, workers and the recorder.
//!
//! The shape follows fio's engine interface (queue → commit → reap) so that
//! one worker loop drives synchronous engines (`psync`, `null`) and the
//! asynchronous `io_uring` engine alike. The loop never prints and never
//! allocates per I/O: latencies go into per-thread HDR histograms that are
//! merged when the run ends, and a reporter thread samples single-writer
//! atomic counters for progress and the per-second series.
//!
//! Data flow: a [`dbio_model::JobConfig`] and its [`JobTarget`] →
//! [`Job::resolve`] (checked before any I/O) → [`target::Target::prepare`] → [`bench::run_job`] → a
//! [`dbio_model::JobResult`].
#![deny(missing_docs)]

pub mod bench;
pub mod blockdev;
pub mod buf;
pub mod clock;
pub mod commit_probe;
pub mod engines;
pub mod error;
pub mod job;
pub mod lifecycle;
pub mod live;
pub mod recorder;
pub mod resolve;
pub mod runner;
pub mod rusage;
pub mod scratch;
pub mod sequence;
pub mod series;
pub mod stripe;
pub mod sysinfo;
pub mod target;
pub mod threads;
pub mod wallclock;
pub mod workload;

pub use bench::run_job;
pub use error::EngineError;
pub use job::{Job, JobTarget};
pub use runner::{Control, Progress};
