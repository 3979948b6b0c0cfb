//! The verdict: the answer a result gives to "is it the storage?", first.
//!
//! Every article dbio grew from ends in one plain conclusion ("redo belongs
//! on direct I/O", "those reads came from the file cache", "log file sync
//! here is CPU scheduling, not the disk"). A [`Verdict`] is that conclusion
//! as data: the question the command answered (for this storage, this
//! trace, this report, this process), the class of the answer, one
//! sentence, and which of the result's findings carry it. It is drawn by
//! `dbio_report::verdict` from the ranked findings, saved with the result
//! and printed before everything else, so `dbio report --from`, the HTML
//! page and the JSON all open with the same answer.
//!
//! The ranking it rests on is Oracle ADDM's (findings ordered by their
//! share of DB time) and Method R's (by share of response time): each
//! finding that explains part of a total carries an [`crate::Impact`].

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// The class of an answer: what the time (or the storage) turned out to be.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum VerdictClass {
    /// The storage explains most of the time (device latency, a device
    /// at its limit).
    StorageBound,
    /// The storage is not where the time goes: I/O waits are a small share.
    NotStorage,
    /// The time is in the commit path but not on the log device (log
    /// writer scheduling, 'log file sync' far above 'log file parallel
    /// write', a session stuck behind others' commits).
    CommitPath,
    /// The time is on the CPU (DB CPU, a writer that is CPU-bound).
    Cpu,
    /// Reads were served from memory (the page cache), not the storage.
    PageCache,
    /// The storage does not keep what it acknowledges (tmpfs, ramfs, a
    /// write cache that drops flushes): its commit figures are memory's.
    NonDurable,
    /// Storage and something else share the time, neither dominating.
    Mixed,
    /// A measurement of the storage itself (`check`, `bench`): what it
    /// gives a database, not where a database's time went.
    Capability,
    /// Too little was measured or read to answer.
    Inconclusive,
    /// Results side by side (`dbio compare`): how each differs from the
    /// first, beyond the run-to-run noise or within it.
    Comparison,
}

impl VerdictClass {
    /// The class in a few words, as the answer block prints it.
    pub fn label(self) -> &'static str {
        match self {
            VerdictClass::StorageBound => "storage-bound",
            VerdictClass::NotStorage => "not the storage",
            VerdictClass::CommitPath => "commit path, not the device",
            VerdictClass::Cpu => "CPU",
            VerdictClass::PageCache => "served from memory",
            VerdictClass::NonDurable => "not durable storage",
            VerdictClass::Mixed => "mixed",
            VerdictClass::Capability => "what this storage gives a database",
            VerdictClass::Inconclusive => "inconclusive",
            VerdictClass::Comparison => "how the inputs differ",
        }
    }
}

/// The answer a result gives, first.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Verdict {
    /// The question answered, naming what was examined (`Is it the
    /// storage? (trace prod_ora_123.trc, R = 12.3 s)`).
    pub question: String,
    /// The class of the answer.
    pub class: VerdictClass,
    /// The answer in one sentence, its figures rounded as the tables
    /// round them.
    pub answer: String,
    /// The findings that carry the answer, as positions in the result's
    /// `findings` (ranked: the first is the most important); at most
    /// three unless the command was asked for more.
    pub top: Vec<usize>,
}
