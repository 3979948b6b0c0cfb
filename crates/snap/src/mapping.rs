//! The Oracle vocabulary mapped onto PostgreSQL's and MariaDB's own
//! events, so that a snapshot's DB time splits by Oracle's wait classes
//! and its top events read as an AWR's do.
//!
//! Each native event gets Oracle's wait class (the DB time split, the
//! verdict and the AWR rules read classes), and where Oracle has an event
//! for the same thing, that event's name (the top events). The table, with
//! where each figure comes from and how far it can be off, is in
//! docs/snap.md; in short:
//!
//! | Oracle | PostgreSQL | MariaDB 10.11 |
//! |---|---|---|
//! | 'log file sync' (Commit) | client backends sampled in `LWLock:WALWrite`, `IO:WALSync`, `IO:WALWrite`, `IPC:SyncRep` | `statement/sql/commit` time (explicit COMMIT), binlog sync by the group-commit leader |
//! | 'log file parallel write' (System I/O) | `pg_stat_wal` `wal_sync` with `wal_write_time` + `wal_sync_time` (PG14–17), `pg_stat_io` object `wal` (PG18) | binlog file sync (`wait/io/file/sql/binlog` MISC ops) |
//! | 'db file sequential read' (User I/O) | `IO:DataFileRead`; count and time from `pg_stat_database.blks_read` / `blk_read_time` (PG≤15) or `pg_stat_io` client backend relation reads (PG16+) | `wait/io/file/innodb/innodb_data_file` reads |
//! | 'log file switch completion' (Configuration) | `IO:WALInitSync`, `IO:WALInitWrite` | – |
//! | 'enq: TX - row lock contention' (Application) | `Lock:transactionid`, `Lock:tuple` | `wait/lock/...` row locks are not instrumented in 10.11 |
//! | 'buffer busy waits' (Concurrency) | `LWLock:BufferContent`, `BufferPin:BufferPin` | – |
//! | 'read by other session' (User I/O) | `IPC:BufferIO`, `LWLock:BufferIO` | – |
//! | 'DB CPU' | client backends `active` with no wait event | statement time not in any timed wait (a bound, not a measure) |
//!
//! Sampled times (PostgreSQL's `pg_stat_activity`) are samples × period:
//! a component seen in n samples is n ± √n periods (binomial counting
//! error), so a component under about ten samples is a hint, not a
//! figure. Counts and times from `pg_stat_wal`, `pg_stat_io`,
//! `pg_stat_database` and performance_schema are exact (their timers'
//! own resolution: PostgreSQL ms with µs digits, performance_schema ps).

use dbio_model::WaitClass;

/// A native event in Oracle's words: its wait class and, where Oracle
/// has one for the same wait, the Oracle event.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Mapped {
    /// Oracle's wait class.
    pub class: WaitClass,
    /// The Oracle event for the same wait, when there is one.
    pub oracle: Option<&'static str>,
}

const fn m(class: WaitClass, oracle: Option<&'static str>) -> Mapped {
    Mapped { class, oracle }
}

/// The samples of an active session with no wait event: on the CPU (or
/// in the run queue: a sample cannot tell them apart, as ASH's `ON CPU`
/// cannot).
pub const CPU: &str = "CPU";

/// PostgreSQL's wait events that Oracle names, `type:event` → Oracle.
const PG_NAMED: &[(&str, WaitClass, &str)] = &[
    // A commit: waiting for another backend's WAL flush, or flushing
    // itself (PostgreSQL has no log writer in the commit path: the first
    // committer to take WALWriteLock flushes for the group), or waiting
    // for a synchronous standby (Oracle's foreground waits 'log file
    // sync' while LGWR waits for the SYNC standby).
    ("LWLock:WALWrite", WaitClass::Commit, "log file sync"),
    ("IO:WALSync", WaitClass::Commit, "log file sync"),
    ("IO:WALWrite", WaitClass::Commit, "log file sync"),
    ("IPC:SyncRep", WaitClass::Commit, "log file sync"),
    (
        "IO:WALInitSync",
        WaitClass::Configuration,
        "log file switch completion",
    ),
    (
        "IO:WALInitWrite",
        WaitClass::Configuration,
        "log file switch completion",
    ),
    (
        "LWLock:WALBufMapping",
        WaitClass::Configuration,
        "log buffer space",
    ),
    (
        "IO:DataFileRead",
        WaitClass::UserIo,
        "db file sequential read",
    ),
    (
        "IO:DataFilePrefetch",
        WaitClass::UserIo,
        "db file parallel read",
    ),
    ("IO:BufFileRead", WaitClass::UserIo, "direct path read temp"),
    (
        "IO:BufFileWrite",
        WaitClass::UserIo,
        "direct path write temp",
    ),
    ("IPC:BufferIO", WaitClass::UserIo, "read by other session"),
    (
        "LWLock:BufferIO",
        WaitClass::UserIo,
        "read by other session",
    ),
    (
        "Lock:transactionid",
        WaitClass::Application,
        "enq: TX - row lock contention",
    ),
    (
        "Lock:tuple",
        WaitClass::Application,
        "enq: TX - row lock contention",
    ),
    (
        "Lock:relation",
        WaitClass::Application,
        "enq: TM - contention",
    ),
    (
        "LWLock:BufferContent",
        WaitClass::Concurrency,
        "buffer busy waits",
    ),
    (
        "BufferPin:BufferPin",
        WaitClass::Concurrency,
        "buffer busy waits",
    ),
    (
        "Client:ClientWrite",
        WaitClass::Network,
        "SQL*Net more data to client",
    ),
    (
        "Client:ClientRead",
        WaitClass::Idle,
        "SQL*Net message from client",
    ),
];

/// A PostgreSQL wait event (`wait_event_type:wait_event`, or [`CPU`]) in
/// Oracle's words. Unnamed events get their type's class: `IO` is User
/// I/O for a client backend and System I/O for a background process;
/// `LWLock` and `BufferPin` Concurrency; `Lock` Application; `Client`
/// Network; `Activity` (a process's idle main loop) Idle; `Timeout` and
/// `IPC` and `Extension` Other. Sources: PostgreSQL documentation,
/// "Wait Event Types" (monitoring chapter), and Oracle's V$EVENT_NAME
/// classes.
pub fn pg_event(event: &str, background: bool) -> Mapped {
    if event == CPU {
        return m(WaitClass::Other, Some("DB CPU"));
    }
    // PostgreSQL 17 renamed the IO events to CamelCase (`IO:WALSync` is
    // `IO:WalSync` from 17 on); the names are otherwise the same.
    if let Some((_, class, oracle)) = PG_NAMED
        .iter()
        .find(|(e, _, _)| e.eq_ignore_ascii_case(event))
    {
        let class = match (class, background) {
            // The same waits in a background process are its own work,
            // not a session's: System I/O (Oracle's background classes).
            (WaitClass::Commit | WaitClass::UserIo, true) => WaitClass::SystemIo,
            (c, _) => *c,
        };
        return m(class, (!background).then_some(*oracle));
    }
    let kind = event.split(':').next().unwrap_or("");
    let class = match kind {
        "IO" if background => WaitClass::SystemIo,
        "IO" => WaitClass::UserIo,
        "LWLock" | "BufferPin" => WaitClass::Concurrency,
        "Lock" => WaitClass::Application,
        "Client" => WaitClass::Network,
        "Activity" => WaitClass::Idle,
        "Timeout" if event == "Timeout:PgSleep" => WaitClass::Idle,
        _ => WaitClass::Other,
    };
    m(class, None)
}

/// A MariaDB performance_schema wait instrument in Oracle's words (the
/// instruments a default 10.11 server times: file I/O, and the
/// synchronisation objects when a DBA enabled them). Table I/O
/// (`wait/io/table/...`) is not a wait of its own: it is the handler
/// call, with the file waits nested inside it, so it is left out of the
/// split (summing it would count those file waits twice).
pub fn pfs_event(event: &str) -> Option<Mapped> {
    if event.starts_with("wait/io/table/") || event.starts_with("idle") {
        return None;
    }
    Some(match event {
        "wait/io/file/sql/binlog" => m(WaitClass::Commit, Some("log file sync")),
        "wait/io/file/innodb/innodb_data_file" => {
            m(WaitClass::UserIo, Some("db file sequential read"))
        }
        "wait/io/file/innodb/innodb_temp_file" => {
            m(WaitClass::UserIo, Some("direct path write temp"))
        }
        e if e.starts_with("wait/io/file/") => m(WaitClass::UserIo, None),
        e if e.starts_with("wait/lock/table/") => {
            m(WaitClass::Application, Some("enq: TM - contention"))
        }
        e if e.starts_with("wait/synch/") => m(WaitClass::Concurrency, None),
        _ => m(WaitClass::Other, None),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn commit_waits_are_log_file_sync_in_a_session_and_system_io_in_the_background() {
        // PostgreSQL 15 and 16 spell them as here, 17 and 18 `IO:WalSync`,
        // `IO:WalWrite` (seen on 18.4).
        for e in [
            "LWLock:WALWrite",
            "IO:WALSync",
            "IO:WALWrite",
            "IO:WalSync",
            "IO:WalWrite",
            "IPC:SyncRep",
        ] {
            assert_eq!(
                pg_event(e, false),
                m(WaitClass::Commit, Some("log file sync")),
                "{e}"
            );
        }
        assert_eq!(pg_event("IO:WALWrite", true), m(WaitClass::SystemIo, None));
        assert_eq!(
            pg_event("IO:DataFileRead", false).oracle,
            Some("db file sequential read")
        );
        assert_eq!(pg_event("IO:DataFileRead", true).class, WaitClass::SystemIo);
    }

    #[test]
    fn unnamed_events_take_their_types_class() {
        assert_eq!(pg_event("IO:SLRURead", false), m(WaitClass::UserIo, None));
        assert_eq!(pg_event("IO:SLRURead", true), m(WaitClass::SystemIo, None));
        assert_eq!(
            pg_event("LWLock:LockManager", false).class,
            WaitClass::Concurrency
        );
        assert_eq!(
            pg_event("Lock:advisory", false).class,
            WaitClass::Application
        );
        assert_eq!(
            pg_event("Activity:WalWriterMain", true).class,
            WaitClass::Idle
        );
        assert_eq!(pg_event("Timeout:PgSleep", false).class, WaitClass::Idle);
        assert_eq!(
            pg_event("Timeout:VacuumDelay", true).class,
            WaitClass::Other
        );
        assert_eq!(
            pg_event("IPC:CheckpointDone", false).class,
            WaitClass::Other
        );
        assert_eq!(pg_event(CPU, false).oracle, Some("DB CPU"));
    }

    #[test]
    fn mariadb_instruments_by_kind_and_table_io_left_out() {
        assert_eq!(
            pfs_event("wait/io/file/sql/binlog"),
            Some(m(WaitClass::Commit, Some("log file sync")))
        );
        assert_eq!(
            pfs_event("wait/io/file/innodb/innodb_data_file")
                .unwrap()
                .oracle,
            Some("db file sequential read")
        );
        assert_eq!(
            pfs_event("wait/io/file/aria/MAD").unwrap().class,
            WaitClass::UserIo
        );
        assert_eq!(pfs_event("wait/io/table/sql/handler"), None);
        assert_eq!(pfs_event("idle"), None);
        assert_eq!(
            pfs_event("wait/synch/mutex/innodb/log_sys_mutex")
                .unwrap()
                .class,
            WaitClass::Concurrency
        );
    }
}
