//! dbio's result model: the one serde contract that every output renders from.
//!
//! Every command produces an [`Outcome`] (a measurement's [`RunReport`], a
//! trace analysis, ...); the terminal table, `--json`, `--csv` and `dbio
//! report --from` all read this structure and nothing else, so a result can
//! be re-rendered without re-running the command. The schema is versioned
//! by [`SCHEMA_VERSION`], one version for every kind of result, and
//! described by the JSON Schema in `docs/result-schema.json`
//! (generated from these types by [`schema::result_schema`]) and the guide
//! beside it, `docs/result-schema.md`.
//!
//! The crate depends only on serde, schemars and hdrhistogram: it is cheap to use from
//! parsers (Oracle traces) as well as from the engines.
#![deny(missing_docs)]

pub mod awr;
pub mod build;
pub mod calibrate;
pub mod clock;
pub mod compare;
pub mod dbwr;
pub mod environment;
pub mod event_names;
pub mod finding;
pub mod latency;
pub mod lgwr;
pub mod load;
pub mod load_compare;
pub mod load_predict;
pub mod matrix;
pub mod outcome;
pub mod partial;
pub mod read;
pub mod run;
pub mod schema;
pub mod series;
pub mod snap;
pub mod stripe;
pub mod trace;
pub mod units;
pub mod verdict;
pub mod visible;
pub mod wait_class;
pub mod watch;

pub use environment::{BlockDevice, DioAlignment, Environment, PageCacheResidency};
pub use finding::{Evidence, Finding, Impact, Reference, Severity};
pub use latency::{LatencySummary, Log2Buckets, Percentile, REPORTED_PERCENTILES};
pub use outcome::Outcome;
pub use run::{
    CpuUsage, DiskStatsDelta, Durability, EngineKind, JobConfig, JobResult, Layout, OpStats,
    PartialReason, Pattern, Prepare, RunReport, SecondSample,
};
pub use verdict::{Verdict, VerdictClass};
pub use wait_class::WaitClass;

/// Version of the JSON result schema. Bump on any incompatible change.
pub const SCHEMA_VERSION: u32 = 3;

/// The seed of every command's random choices (offsets, sizes, payloads)
/// when `--seed` is not given: one value, so two commands run without
/// `--seed` follow the same sequence, and a result saved before the seed
/// was recorded reads with it.
pub const DEFAULT_SEED: u64 = 0x5eed;
