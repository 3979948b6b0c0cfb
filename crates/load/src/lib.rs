//! Commit load on real database engines (`dbio load`).
//!
//! `dbio lgwr` models how a log writer groups commits; this crate drives
//! real engines with the same load (N sessions, each committing one-row
//! inserts) and reads the engines' own counters, so a result shows both
//! what the storage allows and what the database makes of it.
//!
//! The crate is split by job: [`backend`] is the one interface every
//! database implements (connections that commit, a table dbio owns, the
//! server's counters); each engine lives in its own module behind it; the
//! load loop and its per-session recorders know nothing of any engine.
#![deny(missing_docs)]

/// The database clients compiled in (`postgres`, `mysql`; each is a
/// default feature of this crate): `dbio --version` names them.
pub fn clients() -> Vec<&'static str> {
    let mut v = Vec::new();
    if cfg!(feature = "postgres") {
        v.push("postgres");
    }
    if cfg!(feature = "mysql") {
        v.push("mysql");
    }
    v
}

pub mod backend;
pub mod check;
pub mod compare;
#[cfg(feature = "mysql")]
pub mod mysql;
#[cfg(feature = "postgres")]
mod pgwire;
#[cfg(feature = "postgres")]
pub mod postgres;
pub mod predict;
pub mod predict_run;
pub mod private_dir;
pub mod run;
pub mod settings;
pub mod sqlite;
pub mod target;
pub mod vfs_shim;

pub use backend::{
    CommitMode, Counter, Database, DbKind, FlushPath, LoadError, ServerInfo, Session, TableSpec,
    WaitSample,
};
