//! Event names as reports cut them, joined back to Oracle's full names.
//!
//! AWR and Statspack print event names in fixed-width columns and cut
//! what does not fit: 25 characters in 12c's histograms, 26 in the wait
//! event tables, 30 in the Top 10 ('log file switch (private s' and 'log
//! file switch (private stran' are both 'log file switch (private strand
//! flush incomplete)'). Read as printed, one event becomes two rows, in
//! one report and across reports in `--compare` and a trend. So a cut name
//! is joined to the one full Oracle event name it begins ([`canonical`]),
//! from a list of the events reports print (Oracle's `V$EVENT_NAME`,
//! 10g to 23ai; the long names, the only ones a column cuts), and, within
//! one report, to the one longer name the report prints elsewhere
//! ([`join_within`]). A cut name that begins two names
//! ('cell single block physical' begins 'cell single block physical
//! read' and '... read: flash cache') is left as printed: joining it
//! would guess.
//!
//! Idle events ([`is_idle`]) are dbio's one list,
//! [`crate::wait_class::IDLE_EVENTS`], matched on the joined name.
//!
//! It lives in the model because the parser (`dbio-awr`), the rules and
//! the comparisons (`dbio-report`) all join names, the same way.

use crate::awr::WaitEventRow;
use crate::wait_class::IDLE_EVENTS;
use std::borrow::Cow;

/// The shortest cut name joined: report columns are 20 characters wide at
/// least, and a shorter name is more often a whole name ('log file sync'
/// begins 'log file sync: SCN ordering').
pub const MIN_CUT: usize = 20;

/// Oracle wait event names of 20 characters or more that AWR and
/// Statspack print (`V$EVENT_NAME`, 10g to 23ai), besides
/// [`IDLE_EVENTS`].
pub const KNOWN_EVENTS: &[&str] = &[
    // Redo and commit.
    "log file parallel write",
    "log file sequential read",
    "log file single write",
    "log file switch completion",
    "log file switch (checkpoint incomplete)",
    "log file switch (archiving needed)",
    "log file switch (private strand flush incomplete)",
    "log file switch (clearing log file)",
    "log file sync: SCN ordering",
    "LGWR worker group ordering",
    "LGWR all worker groups",
    "LGWR any worker group",
    "LGWR wait for redo copy",
    "LGWR wait on LNS",
    "LGWR-LNS wait on channel",
    "target log write size",
    "switch logfile command",
    // Data Guard redo transport.
    "SYNC Remote Write",
    "ASYNC Remote Write",
    "Redo Transport MISC",
    "Redo Transport Open",
    "Redo Transport Close",
    "Redo Transport Attach",
    "Redo Transport Detach",
    "Redo Transport Ping",
    "Redo Transport Slave Startup",
    "Redo Transport Slave Shutdown",
    "Redo Writer Remote Sync Complete",
    "Redo Writer Remote Sync Notify",
    "LNS wait on SENDREQ",
    "LNS ASYNC end of log",
    "LNS wait on ATTACH",
    "LNS wait on DETACH",
    "Data Guard: Gap Manager",
    "Data Guard: Timer",
    "Data Guard: process clean up",
    "Data Guard: process exit",
    "Data Guard network buffer flush",
    // Data files, control file, archiving.
    "db file sequential read",
    "db file scattered read",
    "db file parallel read",
    "db file parallel write",
    "db file async I/O submit",
    "db file single write",
    "direct path read temp",
    "direct path write temp",
    "Disk file operations I/O",
    "control file sequential read",
    "control file parallel write",
    "control file single write",
    "control file heartbeat",
    "RMAN backup & recovery I/O",
    "Log archive I/O",
    "Parameter File I/O",
    "Datapump dump file I/O",
    "ASM file metadata operation",
    "ASM background timer",
    "local write wait",
    "free buffer waits",
    "write complete waits",
    "read by other session",
    "buffer busy waits",
    "checkpoint completed",
    "undo segment extension",
    "recovery area: computing obsolete files",
    "recovery area: computing backed up files",
    "recovery area: computing dropped files",
    "recovery area: computing applied logs",
    "oracle thread bootstrap",
    "os thread creation",
    "os thread startup",
    "asynch descriptor resize",
    "PGA memory operation",
    "ADR block file read",
    "ADR block file write",
    // Exadata.
    "cell single block physical read",
    "cell single block physical read: flash cache",
    "cell single block physical read: RDMA",
    "cell single block physical read: xrmem cache",
    "cell single block physical read: pmem cache",
    "cell multiblock physical read",
    "cell list of blocks physical read",
    "cell list of blocks read request",
    "cell single block read request",
    "cell multiblock read request",
    "cell smart table scan",
    "cell smart index scan",
    "cell smart file creation",
    "cell smart incremental backup",
    "cell smart restore from backup",
    "cell statistics gather",
    "cell physical read no I/O",
    "cell worker idle",
    "cell worker online completion",
    // Network.
    "SQL*Net message to client",
    "SQL*Net more data to client",
    "SQL*Net vector data to client",
    "SQL*Net break/reset to client",
    "SQL*Net message from dblink",
    "SQL*Net message to dblink",
    "SQL*Net more data from dblink",
    "SQL*Net more data to dblink",
    "SQL*Net break/reset to dblink",
    "HS message to agent",
    // Concurrency.
    "enq: TX - row lock contention",
    "enq: TX - index contention",
    "enq: TX - allocate ITL entry",
    "enq: TX - contention",
    "enq: TM - contention",
    "enq: CF - contention",
    "enq: CR - block range reuse ckpt",
    "enq: KO - fast object checkpoint",
    "enq: RO - fast object reuse",
    "enq: HW - contention",
    "enq: SQ - contention",
    "enq: US - contention",
    "enq: JS - queue lock",
    "enq: TQ - DDL contention",
    "enq: FB - contention",
    "enq: PS - contention",
    "enq: ST - contention",
    "enq: UL - contention",
    "latch: cache buffers chains",
    "latch: cache buffers lru chain",
    "latch: shared pool",
    "latch: redo allocation",
    "latch: redo writing",
    "latch: redo copy",
    "latch: row cache objects",
    "latch: enqueue hash chains",
    "latch: object queue header operation",
    "latch: In memory undo latch",
    "latch: session allocation",
    "latch: undo global data",
    "latch: call allocation",
    "latch: messages",
    "latch: checkpoint queue latch",
    "latch: library cache",
    "library cache: mutex X",
    "library cache: mutex S",
    "library cache: bucket mutex X",
    "library cache lock",
    "library cache pin",
    "library cache load lock",
    "cursor: pin S wait on X",
    "cursor: pin S",
    "cursor: pin X",
    "cursor: mutex S",
    "cursor: mutex X",
    "row cache lock",
    "row cache mutex",
    "row cache read",
    "kksfbc child completion",
    "resmgr:cpu quantum",
    "resmgr:become active",
    "reliable message",
    "rdbms ipc reply",
    "DFS lock handle",
    "IPC send completion sync",
    "CSS initialization",
    "CSS operation: action",
    "CSS operation: query",
    "CGS wait for IPC msg",
    // RAC.
    "gc cr multi block request",
    "gc current multi block request",
    "gc current block 2-way",
    "gc current block 3-way",
    "gc cr block 2-way",
    "gc cr block 3-way",
    "gc current block busy",
    "gc cr block busy",
    "gc current block congested",
    "gc cr block congested",
    "gc buffer busy acquire",
    "gc buffer busy release",
    "gc current grant 2-way",
    "gc current grant busy",
    "gc current grant congested",
    "gc cr grant 2-way",
    "gc cr grant congested",
    "gc cr block lost",
    "gc current block lost",
    "gc cr disk read",
    "gc current retry",
    "gcs log flush sync",
    "gcs drm freeze in enter server mode",
    "ges message buffer allocation",
    "KJC: Wait for msg sends to complete",
    // Parallel query.
    "PX Deq: Slave Session Stats",
    "PX Deq: Execute Reply",
    "PX Deq: Execution Msg",
    "PX Deq Credit: send blkd",
    "PX Deq: Table Q Normal",
    "PX Deq: Signal ACK RSG",
    "PX Deq: Signal ACK EXT",
    "PX Deq: Join ACK",
    "PX Deq: Parse Reply",
    "PX qref latch",
    // Other long names (the idle ones are also on the idle list).
    "shared server idle wait",
    "Streams AQ: emn coordinator idle wait",
    "Streams AQ: waiting for time management or cleanup tasks",
    "pman timer",
    "OFS idle",
    "Backup: MML write backup piece",
    "Backup: MML create a backup piece",
    "Backup: MML commit backup piece",
];

/// Every known name: [`KNOWN_EVENTS`] and [`IDLE_EVENTS`].
fn known() -> impl Iterator<Item = &'static str> {
    KNOWN_EVENTS.iter().chain(IDLE_EVENTS).copied()
}

/// The full Oracle event name of a name a report may have cut: the one
/// known name it begins, when it is [`MIN_CUT`] characters or more, not a
/// known name itself, and begins exactly one; else the name as given.
/// (For names of other reports, e.g. a trend's or a comparison's rows:
/// the parser already joins the names it reads.)
pub fn canonical(name: &str) -> Cow<'_, str> {
    if name.len() < MIN_CUT || known().any(|k| k == name) {
        return Cow::Borrowed(name);
    }
    let mut longer = known().filter(|k| k.len() > name.len() && k.starts_with(name));
    match (longer.next(), longer.next()) {
        (Some(full), None) => Cow::Borrowed(full),
        _ => Cow::Borrowed(name),
    }
}

/// Within one report: the longest of the names that begin with `name`
/// when they are one chain of cuts of the same name ('log file switch
/// (private s' within 'log file switch (private stran'), else `None`.
/// `name` must be [`MIN_CUT`] characters or more and not a known name.
pub fn join_within<'a>(name: &str, names: &[&'a str]) -> Option<&'a str> {
    if name.len() < MIN_CUT || known().any(|k| k == name) {
        return None;
    }
    let mut longer: Vec<&str> = names
        .iter()
        .copied()
        .filter(|n| n.len() > name.len() && n.starts_with(name))
        .collect();
    longer.sort_by_key(|n| n.len());
    longer.dedup();
    let last = *longer.last()?;
    longer.iter().all(|n| last.starts_with(n)).then_some(last)
}

/// The names several reports printed for their events (a comparison's
/// two, a trend's many): [`PrintedNames::whole`] gives one name per
/// event however each report cut it, so an event is one row.
#[derive(Debug, Clone, Default)]
pub struct PrintedNames(Vec<String>);

impl PrintedNames {
    /// The set of `names`, each once.
    pub fn of<'a>(names: impl IntoIterator<Item = &'a str>) -> PrintedNames {
        let mut v: Vec<String> = Vec::new();
        for n in names {
            if !v.iter().any(|x| x == n) {
                v.push(n.to_string());
            }
        }
        PrintedNames(v)
    }

    /// The event `n` names: the longest print of the set it begins
    /// ([`join_within`]), joined to its full Oracle name ([`canonical`]);
    /// `n` as printed when it begins two different names of the set (a
    /// guess either way).
    pub fn whole(&self, n: &str) -> String {
        let refs: Vec<&str> = self.0.iter().map(String::as_str).collect();
        match join_within(n, &refs) {
            Some(longest) => canonical(longest).into_owned(),
            None if refs.iter().any(|m| m.len() > n.len() && m.starts_with(n)) => n.to_string(),
            None => canonical(n).into_owned(),
        }
    }
}

/// Whether an event row is idle time: of the wait class `Idle`, or on
/// dbio's idle list (its name joined to its full name first).
pub fn is_idle(e: &WaitEventRow) -> bool {
    e.idle
        || e.class
            .as_deref()
            .is_some_and(|c| c.eq_ignore_ascii_case("idle"))
        || is_idle_name(&e.name)
}

/// Whether an event name (full, or cut by a report) is on dbio's idle
/// list.
pub fn is_idle_name(name: &str) -> bool {
    let full = canonical(name);
    IDLE_EVENTS.contains(&full.as_ref())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cut_name_joins_the_one_full_name_it_begins() {
        // Cut at 26 (wait event tables) and 30 (Top 10).
        let full = "log file switch (private strand flush incomplete)";
        assert_eq!(canonical("log file switch (private s"), full);
        assert_eq!(canonical("log file switch (private stran"), full);
        assert_eq!(
            canonical("control file sequential re"),
            "control file sequential read"
        );
        assert_eq!(
            canonical("SQL*Net message from clien"),
            "SQL*Net message from client"
        );
        // Whole names, short names, and names that begin two are kept.
        assert_eq!(canonical("log file sync"), "log file sync");
        assert_eq!(
            canonical("cell single block physical read"),
            "cell single block physical read"
        );
        assert_eq!(
            canonical("cell single block physical"),
            "cell single block physical"
        );
        assert_eq!(canonical("log file switch"), "log file switch");
        // 19 characters: below the narrowest column, not joined.
        assert_eq!(canonical("log file switch (ch"), "log file switch (ch");
        assert_eq!(canonical("an event nobody knows"), "an event nobody knows");
    }

    #[test]
    fn within_a_report_a_cut_name_joins_its_longer_print() {
        let names = [
            "my own private event with a long name",
            "my own private event",
            "some other event name",
        ];
        assert_eq!(
            join_within("my own private event wi", &names),
            Some("my own private event with a long name")
        );
        // Two different longer names: no join.
        let two = ["abcdefghijklmnopqrstu one", "abcdefghijklmnopqrstu two"];
        assert_eq!(join_within("abcdefghijklmnopqrstu", &two), None);
        assert_eq!(join_within("short", &names), None);
    }

    #[test]
    fn idle_events_are_known_by_class_list_or_cut_name() {
        let row = |name: &str, class: Option<&str>| WaitEventRow {
            name: name.into(),
            class: class.map(String::from),
            ..Default::default()
        };
        assert!(is_idle(&row("LGWR worker group idle", None)));
        assert!(is_idle(&row("SQL*Net message from clien", None)));
        assert!(is_idle(&row("anything", Some("Idle"))));
        assert!(!is_idle(&row("log file sync", Some("Commit"))));
        assert!(!is_idle(&row("SQL*Net message to client", None)));
    }
}
