//! Oracle's wait classes (`V$EVENT_NAME.WAIT_CLASS`), by event name.
//!
//! A trace names its events but not their class; an AWR report prints the
//! class in some tables (cut to eight characters: `System I`, `Concurre`)
//! and not in others. dbio needs the class to say what a response time or
//! a DB time is made of: 'log file sync' is Commit (a session waiting for
//! the log writer, which may or may not be waiting for the disk), not I/O;
//! 'db file sequential read' is User I/O; 'Disk file operations I/O' is
//! User I/O too, but it is opening, closing and resizing files, not
//! reading them; 'SQL*Net message from client' is Idle.
//!
//! The table follows Oracle's own classes (12c–19c `V$EVENT_NAME`); an
//! event dbio does not know is `Other`, as Oracle files its miscellany.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// One of Oracle's wait classes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
pub enum WaitClass {
    /// Foreground I/O: data file reads and writes, direct path, BFILE,
    /// utl_file, file operations.
    UserIo,
    /// Background I/O: the log writer, DBWR, control files, archiving.
    SystemIo,
    /// 'log file sync': a commit waiting for the log writer.
    Commit,
    /// Latches, mutexes, library cache, buffer busy.
    Concurrency,
    /// RAC global cache and enqueue messages (`gc ...`).
    Cluster,
    /// Row locks and other waits the application's code causes.
    Application,
    /// Undersized logs, buffers, sequences.
    Configuration,
    /// SQL*Net round trips other than waiting for the client.
    Network,
    /// Waiting for work: the client's think time, timers, sleeps.
    Idle,
    /// Resource Manager.
    Scheduler,
    /// DBA commands.
    Administrative,
    /// Advanced Queueing.
    Queueing,
    /// Everything else.
    Other,
}

impl WaitClass {
    /// The class as Oracle prints it (`User I/O`).
    pub fn label(self) -> &'static str {
        match self {
            WaitClass::UserIo => "User I/O",
            WaitClass::SystemIo => "System I/O",
            WaitClass::Commit => "Commit",
            WaitClass::Concurrency => "Concurrency",
            WaitClass::Cluster => "Cluster",
            WaitClass::Application => "Application",
            WaitClass::Configuration => "Configuration",
            WaitClass::Network => "Network",
            WaitClass::Idle => "Idle",
            WaitClass::Scheduler => "Scheduler",
            WaitClass::Administrative => "Administrative",
            WaitClass::Queueing => "Queueing",
            WaitClass::Other => "Other",
        }
    }

    /// User I/O or System I/O: a wait on a file.
    pub fn is_io(self) -> bool {
        matches!(self, WaitClass::UserIo | WaitClass::SystemIo)
    }

    /// A class as a report prints it, whole or cut at its column width
    /// (`System I`, `Concurre`, `User I/O`); `None` when it names none.
    pub fn from_label(s: &str) -> Option<WaitClass> {
        let s = s.trim();
        if s.len() < 3 {
            return None;
        }
        ALL.iter()
            .copied()
            .find(|c| c.label().eq_ignore_ascii_case(s))
            .or_else(|| {
                ALL.iter().copied().find(|c| {
                    c.label()
                        .to_ascii_lowercase()
                        .starts_with(&s.to_ascii_lowercase())
                })
            })
    }

    /// The class of an event by its name (a name a report cut at its
    /// column width is matched as a prefix of the full name).
    pub fn of(name: &str) -> WaitClass {
        let n = name.trim();
        if IDLE_EVENTS.contains(&n) {
            return Idle;
        }
        if let Some((_, c)) = EXACT.iter().find(|(e, _)| *e == n) {
            return *c;
        }
        // A name cut by a report's column (`SQL*Net message from clien`).
        if n.len() >= CUT_NAME_MIN {
            if let Some((_, c)) = EXACT.iter().find(|(e, _)| e.starts_with(n)) {
                return *c;
            }
            if IDLE_EVENTS.iter().any(|e| e.starts_with(n)) {
                return Idle;
            }
        }
        PREFIXES
            .iter()
            .find(|(p, _)| n.starts_with(p))
            .map_or(WaitClass::Other, |(_, c)| *c)
    }
}

/// Whether an event is idle: on [`IDLE_EVENTS`] (whole, or cut by a
/// report's column), or of a family Oracle files as idle (`Streams AQ:
/// ...`).
pub fn is_idle_event(name: &str) -> bool {
    WaitClass::of(name) == Idle
}

/// The shortest name taken for one a report cut at its column width
/// (reports cut at 20 to 30 characters; shorter names are whole).
const CUT_NAME_MIN: usize = 20;

/// Oracle's idle events: waiting for work (the client, a timer, a queue,
/// a parallel-query message), never DB time in a report, idle between
/// database calls in a trace. One list for reports and traces (a trace
/// adds two Network events between calls:
/// `crate::trace::IDLE_EVENTS`).
///
/// Sources: Oracle's Idle class (`V$EVENT_NAME.WAIT_CLASS = 'Idle'`,
/// 11.2 to 19c, as AWR reports print it) and Statspack's own list
/// (`STATS$IDLE_EVENT`, filled by `spctab.sql`, 11.2, which Statspack
/// reports print after the other events). Where the two disagree Oracle's
/// class wins: Statspack's 'SQL*Net message to client' and 'SQL*Net more
/// data from client' are Network (their time is DB time), 'null event'
/// and 'PX Deq Credit: send blkd' Other.
pub const IDLE_EVENTS: &[&str] = &IDLE;

/// [`IDLE_EVENTS`] as an array, so that the trace's list can extend it.
pub(crate) const IDLE: [&str; IDLE_COUNT] = [
    // The client and the database links.
    "SQL*Net message from client",
    "SQL*Net vector message from client",
    "SQL*Net vector message from dblink",
    "client message",
    "single-task message",
    "HS message to agent",
    // Sleeps and timers.
    "PL/SQL lock timer",
    "pipe get",
    "pmon timer",
    "pman timer",
    "smon timer",
    "dispatcher timer",
    "lreg timer",
    "fbar timer",
    "cmon timer",
    "pool server timer",
    "ASM background timer",
    "GCR sleep",
    "Sleep for deferred IMCS task",
    "JOX Jit Process Sleep",
    "SGA: MMAN sleep for component shrink",
    "heartbeat monitor sleep",
    "heartbeat redo informer",
    "wakeup time manager",
    "watchdog main loop",
    "VKTM Logical Idle Wait",
    "VKTM Init Wait for GSGA",
    "VKRM Idle",
    "DBRM Logical Idle Wait",
    "IORM Scheduler Slave Idle Wait",
    "auto-sqltune: wait graph update",
    "simulated log write delay",
    "PING",
    // Background processes and slaves waiting for work.
    "rdbms ipc message",
    "jobq slave wait",
    "JS external job",
    "class slave wait",
    "slave wait",
    "i/o slave wait",
    "master wait",
    "KSV master wait",
    "DIAG idle wait",
    "Space Manager: slave idle wait",
    "LGWR worker group idle",
    "AQPC idle",
    "OFS idle",
    "cell worker idle",
    "EMON slave idle wait",
    "EMON idle wait",
    "Backup Appliance waiting for work",
    // Shared servers.
    "shared server idle wait",
    "virtual circuit next request",
    "virtual circuit wait",
    "virtual circuit status",
    // RAC.
    "gcs remote message",
    "ges remote message",
    "gcs for action",
    "lock manager wait for remote message",
    "wait for unread message on broadcast channel",
    "wait for unread message on multiple broadcast channels",
    // Parallel query.
    "PX Idle Wait",
    "PX Deq: Execution Msg",
    "PX Deq: Execute Reply",
    "PX Deq: Table Q Normal",
    "PX Deq: Table Q Sample",
    "PX Deq: Join ACK",
    "PX Deq: Parse Reply",
    "PX Deq: Msg Fragment",
    "PX Deq: Metadata Update",
    "PX Deq: Index Merge Execute",
    "PX Deq: Index Merge Reply",
    "PX Deq: Index Merge Close",
    "PX Deq: Txn Recovery Start",
    "PX Deq: Txn Recovery Reply",
    "PX Deq: Par Recov Execute",
    "PX Deq: kdcph_mai",
    "PX Deq: kdcphc_ack",
    "PX Deque wait",
    // Queues and Streams.
    "queue messages",
    "knlqdeq",
    "Queue Monitor Wait",
    "Queue Monitor Slave Wait",
    "Queue Monitor Shutdown Wait",
    "AQ Proxy Cleanup Wait",
    "Streams AQ: waiting for messages in the queue",
    "Streams AQ: qmn coordinator idle wait",
    "Streams AQ: qmn slave idle wait",
    "Streams AQ: RAC qmn coordinator idle wait",
    "Streams AQ: emn coordinator idle wait",
    "Streams AQ: waiting for time management or cleanup tasks",
    "Streams AQ: deallocate messages from Streams Pool",
    "Streams AQ: delete acknowledged messages",
    "Streams: waiting for messages",
    "Streams fetch slave: waiting for txns",
    "Streams capture: waiting for archive log",
    "STREAMS apply coord waiting for slave message",
    "STREAMS apply slave waiting for coord message",
    "STREAMS apply slave idle wait",
    "STREAMS capture process filter callback wait for ruleset",
    "STREAMS fetch slave waiting for txns",
    "STREAMS waiting for subscribers to catch up",
    "REPL Capture/Apply: RAC AQ qmn coordinator",
    // Data Guard, LogMiner, recovery and replay.
    "Data Guard: Gap Manager",
    "Data Guard: Timer",
    "LNS ASYNC end of log",
    "LNS ASYNC archive log",
    "LNS ASYNC dest activation",
    "LGWR real time apply sync",
    "MRP redo arrival",
    "Logical Standby Apply Delay",
    "LogMiner: client waiting for transaction",
    "LogMiner: slave waiting for activate message",
    "LogMiner: wakeup event for builder",
    "LogMiner: wakeup event for preparer",
    "LogMiner: wakeup event for reader",
    "LogMiner: generic process sleep",
    "LogMiner: reader waiting for more redo",
    "LogMiner builder: idle",
    "LogMiner preparer: idle",
    "LogMiner reader: log (idle)",
    "LogMiner reader: redo (idle)",
    "wait for activate message",
    "wakeup event for builder",
    "wakeup event for preparer",
    "wakeup event for reader",
    "parallel recovery coordinator waits for slave cleanup",
    "parallel recovery slave idle wait",
    "parallel recovery slave next change",
    "parallel recovery slave wait for change",
    "WCR: replay client notify",
    "WCR: replay clock",
    "WCR: replay paused",
];

/// How many events [`IDLE_EVENTS`] names.
pub(crate) const IDLE_COUNT: usize = 132;

const ALL: [WaitClass; 13] = [
    WaitClass::UserIo,
    WaitClass::SystemIo,
    WaitClass::Commit,
    WaitClass::Concurrency,
    WaitClass::Cluster,
    WaitClass::Application,
    WaitClass::Configuration,
    WaitClass::Network,
    WaitClass::Idle,
    WaitClass::Scheduler,
    WaitClass::Administrative,
    WaitClass::Queueing,
    WaitClass::Other,
];

use WaitClass::*;

/// Events by exact name (checked before the prefixes).
const EXACT: &[(&str, WaitClass)] = &[
    // Commit: the one event of its class.
    ("log file sync", Commit),
    // User I/O.
    ("db file sequential read", UserIo),
    ("db file scattered read", UserIo),
    ("db file parallel read", UserIo),
    ("db file single write", UserIo),
    ("read by other session", UserIo),
    ("Disk file operations I/O", UserIo),
    ("Disk file I/O Calibration", UserIo),
    ("utl_file I/O", UserIo),
    ("BFILE read", UserIo),
    ("BFILE open", UserIo),
    ("BFILE close", UserIo),
    ("BFILE get length", UserIo),
    ("BFILE internal seek", UserIo),
    ("Datapump dump file I/O", UserIo),
    ("dbms_file_transfer I/O", UserIo),
    ("DG Broker configuration file I/O", UserIo),
    ("local write wait", UserIo),
    ("buffer read retry", UserIo),
    ("flashback log file sync", UserIo),
    ("securefile direct-read completion", UserIo),
    ("securefile direct-write completion", UserIo),
    // System I/O.
    ("db file parallel write", SystemIo),
    ("db file async I/O submit", SystemIo),
    ("log file parallel write", SystemIo),
    ("log file sequential read", SystemIo),
    ("log file single write", SystemIo),
    ("Log archive I/O", SystemIo),
    ("ARCH random i/o", SystemIo),
    ("ARCH sequential i/o", SystemIo),
    ("RMAN backup & recovery I/O", SystemIo),
    ("Archive Manager file transfer I/O", SystemIo),
    ("Network file transfer", SystemIo),
    ("Standby redo I/O", SystemIo),
    ("io done", SystemIo),
    ("kst: async disk IO", SystemIo),
    ("LNS ASYNC control file txn", SystemIo),
    ("cell manager writing to", SystemIo),
    ("ksfd: async disk IO", SystemIo),
    ("recovery read", SystemIo),
    // Configuration.
    ("log file switch completion", Configuration),
    ("log buffer space", Configuration),
    ("free buffer waits", Configuration),
    ("write complete waits", Configuration),
    ("undo segment extension", Configuration),
    ("enq: HW - contention", Configuration),
    ("enq: SQ - contention", Configuration),
    ("enq: ST - contention", Configuration),
    ("enq: TX - allocate ITL entry", Configuration),
    (
        "statement suspended, wait error to be cleared",
        Configuration,
    ),
    // Application.
    ("enq: TX - row lock contention", Application),
    ("enq: TM - contention", Application),
    ("enq: UL - contention", Application),
    ("enq: RO - fast object reuse", Application),
    ("enq: KO - fast object checkpoint", Application),
    ("SQL*Net break/reset to client", Application),
    ("SQL*Net break/reset to dblink", Application),
    ("Wait for Table Lock", Application),
    // Concurrency.
    ("buffer busy waits", Concurrency),
    ("enq: TX - index contention", Concurrency),
    ("row cache lock", Concurrency),
    ("row cache mutex", Concurrency),
    ("library cache lock", Concurrency),
    ("library cache pin", Concurrency),
    ("library cache load lock", Concurrency),
    ("os thread startup", Concurrency),
    ("resmgr:internal state change", Concurrency),
    ("logout restrictor", Concurrency),
    // Network.
    ("SQL*Net message to client", Network),
    ("SQL*Net more data to client", Network),
    ("SQL*Net more data from client", Network),
    ("SQL*Net vector data to client", Network),
    ("SQL*Net vector data from client", Network),
    ("SQL*Net message to dblink", Network),
    ("SQL*Net more data to dblink", Network),
    ("SQL*Net more data from dblink", Network),
    ("SQL*Net message from dblink", Network),
    ("TCP Socket (KGAS)", Network),
    // Other, though Statspack lists it as idle.
    ("PX Deq Credit: send blkd", Other),
    // Scheduler.
    ("resmgr:cpu quantum", Scheduler),
    ("resmgr:become active", Scheduler),
    ("resmgr:pq queued", Scheduler),
    // Administrative.
    ("switch logfile command", Administrative),
    ("index (re)build online start", Administrative),
    ("index (re)build online cleanup", Administrative),
    ("alter system set dispatcher", Administrative),
    ("JS coord start wait", Administrative),
    ("backup: MML write backup piece", Administrative),
    // Queueing.
    ("Streams AQ: enqueue blocked on low memory", Queueing),
    ("Streams: flow control", Queueing),
];

/// Events by name prefix.
const PREFIXES: &[(&str, WaitClass)] = &[
    ("db file ", UserIo),
    ("direct path ", UserIo),
    ("cell single block", UserIo),
    ("cell multiblock", UserIo),
    ("cell list of blocks", UserIo),
    ("cell smart", UserIo),
    ("cell physical read", UserIo),
    ("control file ", SystemIo),
    ("flashback log file", SystemIo),
    ("log file switch", Configuration),
    ("gc ", Cluster),
    ("ges ", Other),
    ("latch: ", Concurrency),
    ("cursor: ", Concurrency),
    ("library cache: ", Concurrency),
    ("resmgr:", Scheduler),
    ("enq: ", Other),
    ("SQL*Net ", Network),
    ("Streams AQ: ", Idle),
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn events_take_oracles_classes() {
        assert_eq!(WaitClass::of("log file sync"), Commit);
        assert!(!WaitClass::of("log file sync").is_io());
        assert_eq!(WaitClass::of("log file parallel write"), SystemIo);
        assert_eq!(WaitClass::of("log file switch completion"), Configuration);
        assert_eq!(
            WaitClass::of("log file switch (checkpoint incomplete)"),
            Configuration
        );
        assert_eq!(WaitClass::of("db file sequential read"), UserIo);
        assert_eq!(WaitClass::of("db file parallel write"), SystemIo);
        assert_eq!(WaitClass::of("direct path read temp"), UserIo);
        assert_eq!(WaitClass::of("Disk file operations I/O"), UserIo);
        assert_eq!(WaitClass::of("utl_file I/O"), UserIo);
        assert_eq!(WaitClass::of("SQL*Net message from client"), Idle);
        assert_eq!(WaitClass::of("SQL*Net message to client"), Network);
        assert_eq!(WaitClass::of("PL/SQL lock timer"), Idle);
        assert_eq!(WaitClass::of("gc cr grant 2-way"), Cluster);
        assert_eq!(WaitClass::of("enq: TX - row lock contention"), Application);
        assert_eq!(WaitClass::of("cursor: pin S wait on X"), Concurrency);
        assert_eq!(WaitClass::of("PGA memory operation"), Other);
        // Cut by a report's column.
        assert_eq!(WaitClass::of("control file sequential re"), SystemIo);
        assert_eq!(WaitClass::of("SQL*Net message from clien"), Idle);
        assert_eq!(WaitClass::of("SQL*Net more data to clien"), Network);
    }

    #[test]
    fn one_idle_list_covers_statspack_and_oracles_idle_class() {
        for e in [
            "LGWR worker group idle",
            "SQL*Net message from client",
            "rdbms ipc message",
            "Space Manager: slave idle wait",
            "class slave wait",
            "jobq slave wait",
            "Streams AQ: qmn slave idle wait",
            "Streams AQ: a family member the list does not name",
            "watchdog main loop",
            "pmon timer",
            "smon timer",
            "DIAG idle wait",
            "shared server idle wait",
            "PX Idle Wait",
            "PX Deq: Execution Msg",
            // Cut at 26 and 30 characters by a report's column.
            "Space Manager: slave idle ",
            "wait for unread message on bro",
        ] {
            assert!(is_idle_event(e), "{e}");
        }
        assert!(IDLE_EVENTS.iter().all(|e| WaitClass::of(e) == Idle));
        // Statspack's list has these, Oracle's class does not: their time
        // is DB time.
        for e in [
            "SQL*Net message to client",
            "SQL*Net more data from client",
            "PX Deq Credit: send blkd",
        ] {
            assert!(!is_idle_event(e), "{e}");
        }
        // The trace's between-call list is the same list and two Network
        // events.
        let trace = crate::trace::IDLE_EVENTS;
        assert_eq!(trace.len(), IDLE_EVENTS.len() + 2);
        assert!(IDLE_EVENTS.iter().all(|e| trace.contains(e)));
        assert!(trace.contains(&"SQL*Net more data from client"));
        // A short name is whole: `pipe` is not `pipe get`.
        assert!(!is_idle_event("pipe"));
    }

    #[test]
    fn printed_labels_read_back_whole_or_cut() {
        assert_eq!(WaitClass::from_label("User I/O"), Some(UserIo));
        assert_eq!(WaitClass::from_label("System I"), Some(SystemIo));
        assert_eq!(WaitClass::from_label("Concurre"), Some(Concurrency));
        assert_eq!(WaitClass::from_label("Commit"), Some(Commit));
        assert_eq!(WaitClass::from_label(""), None);
        assert_eq!(WaitClass::from_label("nonsense"), None);
    }
}
