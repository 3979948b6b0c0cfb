//! What dbio knows about wait events: idle or not, I/O or not, where the I/O
//! size and block address are.
//!
//! parsetrc treats only `SQL*Net message from client` as idle; Statspack's
//! own list goes stale between releases. dbio's list is documented in
//! `docs/tracefile.md` and applies to waits *between* database calls only: a
//! wait inside a call is response time whatever its name (`PL/SQL lock
//! timer` inside a PL/SQL block's EXEC).

/// Events that are idle when they occur between database calls (the
/// list lives in the model, where reports and traces both read it).
pub use dbio_model::trace::IDLE_EVENTS;

/// Events whose waits are client round trips or commit waits: when a trace
/// has no `tim` on WAIT lines (9i), they are taken as between-call waits.
const BETWEEN_CALL_EVENTS: &[&str] = &[
    "SQL*Net message to client",
    "SQL*Net more data to client",
    "log file sync",
];

/// Name prefixes of I/O events (latency histogram, tier split).
const IO_PREFIXES: &[&str] = &[
    "db file ",
    "direct path ",
    "control file ",
    "log file ",
    "cell single block",
    "cell multiblock",
    "cell list of blocks",
    "cell smart",
    "local write wait",
    "read by other session",
    "Disk file operations I/O",
    "Datapump dump file I/O",
    "BFILE read",
    "utl_file I/O",
    "flashback log file",
];

/// Multiblock events that get a histogram per I/O size.
const MULTIBLOCK: &[&str] = &[
    "db file scattered read",
    "db file parallel read",
    "direct path read",
    "direct path read temp",
    "direct path write",
    "direct path write temp",
    "cell multiblock physical read",
    "cell list of blocks physical read",
];

/// The multiblock events parsetrc.pl reports by size.
pub const PARSETRC_MULTIBLOCK: &[&str] = &[
    "db file scattered read",
    "direct path read",
    "direct path read temp",
];

/// Events whose p1 and p2 are a file number and a block number.
const BLOCK_PREFIXES: &[&str] = &[
    "db file sequential read",
    "db file scattered read",
    "db file single write",
    "direct path read",
    "direct path write",
    "read by other session",
    "buffer busy waits",
    "gc cr block",
    "gc current block",
    "gc cr grant",
    "gc current grant",
    "gc buffer busy",
];

/// Static facts about one event, computed once per distinct name.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct EventClass {
    /// On [`IDLE_EVENTS`].
    pub idle: bool,
    /// An I/O event.
    pub io: bool,
    /// Gets a size histogram.
    pub multiblock: bool,
    /// p1/p2 are file#/block#.
    pub block_addressed: bool,
    /// Taken as between-call when the wait has no `tim`.
    pub between_call: bool,
    /// Position of the block count when not named (`blocks=`/`block cnt=`):
    /// p2 for `db file parallel read`, else p3.
    pub size_param: usize,
}

/// Classifies an event by name.
pub fn classify_event(name: &str) -> EventClass {
    EventClass {
        idle: IDLE_EVENTS.contains(&name),
        io: IO_PREFIXES.iter().any(|p| name.starts_with(p)),
        multiblock: MULTIBLOCK.contains(&name),
        block_addressed: BLOCK_PREFIXES.iter().any(|p| name.starts_with(p)),
        between_call: BETWEEN_CALL_EVENTS.contains(&name) || IDLE_EVENTS.contains(&name),
        size_param: if name == "db file parallel read" {
            1
        } else {
            2
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classes() {
        let s = classify_event("db file sequential read");
        assert!(s.io && s.block_addressed && !s.multiblock && !s.idle);
        let m = classify_event("direct path read temp");
        assert!(m.io && m.multiblock && m.block_addressed);
        assert!(classify_event("PL/SQL lock timer").idle);
        assert!(!classify_event("enq: TX - row lock contention").io);
        assert_eq!(classify_event("db file parallel read").size_param, 1);
    }
}
