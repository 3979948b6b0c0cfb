//! Oracle's wait classes (`V$EVENT_NAME.WAIT_CLASS`) for the events a
//! trace names, so a trace's events are grouped as AWR groups them:
//! 'log file sync' is Commit (not I/O), 'Disk file operations I/O' is
//! User I/O but opens and closes files rather than reading them, 'gc …'
//! is Cluster. Names and classes are those of Oracle Database 19c's
//! Reference ("Classes of Wait Events", Appendix C); an event dbio does
//! not know is Other, as Oracle files the events it does not class.

/// An Oracle wait class.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WaitClass {
    /// Waits for reads and writes a session issues itself.
    UserIo,
    /// Waits of background processes' I/O (the log writer, DBWR, control file).
    SystemIo,
    /// 'log file sync': a commit waiting for the log writer.
    Commit,
    /// Library cache, latches, mutexes, buffer busy.
    Concurrency,
    /// RAC global cache ('gc …').
    Cluster,
    /// Locks the application takes (enqueues, row locks).
    Application,
    /// Undersized or misconfigured structures (log switch, free buffers).
    Configuration,
    /// Network round trips while the database works.
    Network,
    /// Waiting for work: the client, a timer.
    Idle,
    /// Everything else.
    Other,
}

impl WaitClass {
    /// The class as Oracle prints it.
    pub fn name(self) -> &'static str {
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
            WaitClass::Other => "Other",
        }
    }

    /// Whether waits of this class are storage I/O.
    pub fn is_io(self) -> bool {
        matches!(self, WaitClass::UserIo | WaitClass::SystemIo)
    }
}

/// Events whose name starts so, and their class (first match wins).
const BY_PREFIX: &[(&str, WaitClass)] = &[
    ("log file sync", WaitClass::Commit),
    ("log file switch", WaitClass::Configuration),
    ("log buffer space", WaitClass::Configuration),
    ("free buffer waits", WaitClass::Configuration),
    ("write complete waits", WaitClass::Configuration),
    ("log file parallel write", WaitClass::SystemIo),
    ("log file sequential read", WaitClass::SystemIo),
    ("log file single write", WaitClass::SystemIo),
    ("control file ", WaitClass::SystemIo),
    ("db file parallel write", WaitClass::SystemIo),
    ("db file async I/O submit", WaitClass::SystemIo),
    ("Flashback log file", WaitClass::SystemIo),
    ("flashback log file", WaitClass::SystemIo),
    ("RMAN backup", WaitClass::SystemIo),
    ("db file ", WaitClass::UserIo),
    ("direct path ", WaitClass::UserIo),
    ("read by other session", WaitClass::UserIo),
    ("Disk file operations I/O", WaitClass::UserIo),
    ("utl_file I/O", WaitClass::UserIo),
    ("BFILE read", WaitClass::UserIo),
    ("Datapump dump file I/O", WaitClass::UserIo),
    ("cell single block", WaitClass::UserIo),
    ("cell multiblock", WaitClass::UserIo),
    ("cell list of blocks", WaitClass::UserIo),
    ("cell smart", WaitClass::UserIo),
    ("local write wait", WaitClass::UserIo),
    ("gc ", WaitClass::Cluster),
    ("library cache", WaitClass::Concurrency),
    ("cursor: ", WaitClass::Concurrency),
    ("latch", WaitClass::Concurrency),
    ("buffer busy", WaitClass::Concurrency),
    ("row cache", WaitClass::Concurrency),
    ("enq: TX - row lock", WaitClass::Application),
    ("enq: TM", WaitClass::Application),
    ("enq: UL", WaitClass::Application),
    ("SQL*Net break/reset", WaitClass::Application),
    ("SQL*Net message to ", WaitClass::Network),
    ("SQL*Net more data to ", WaitClass::Network),
    ("SQL*Net more data from dblink", WaitClass::Network),
];

/// The class of a report's event row: the class the report prints (AWR
/// truncates it: `System I`), else the class of its name.
pub fn of_row(name: &str, printed: Option<&str>) -> WaitClass {
    const PRINTED: [(&str, WaitClass); 10] = [
        ("User I", WaitClass::UserIo),
        ("System I", WaitClass::SystemIo),
        ("Commit", WaitClass::Commit),
        ("Concurre", WaitClass::Concurrency),
        ("Cluster", WaitClass::Cluster),
        ("Applicat", WaitClass::Application),
        ("Configur", WaitClass::Configuration),
        ("Network", WaitClass::Network),
        ("Idle", WaitClass::Idle),
        ("Other", WaitClass::Other),
    ];
    printed
        .and_then(|p| PRINTED.iter().find(|(pre, _)| p.starts_with(pre)))
        .map_or_else(|| wait_class(name, false), |&(_, c)| c)
}

/// The class of an event; `idle` is the caller's own judgement (a trace's
/// idle event between calls), beside Oracle's idle events.
pub fn wait_class(name: &str, idle: bool) -> WaitClass {
    if idle || dbio_model::trace::IDLE_EVENTS.contains(&name) {
        return WaitClass::Idle;
    }
    BY_PREFIX
        .iter()
        .find(|(p, _)| name.starts_with(p))
        .map_or(WaitClass::Other, |&(_, c)| c)
}

/// What one wait of an event does, in a few words, where its name misleads.
pub fn what_it_waits_for(name: &str) -> Option<&'static str> {
    match name {
        "Disk file operations I/O" => Some("opening, closing and resizing files, not reading them"),
        "PL/SQL lock timer" => {
            Some("the application sleeping (DBMS_LOCK.SLEEP, DBMS_SESSION.SLEEP)")
        }
        "SQL*Net message from client" => Some("the client between calls"),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn events_fall_in_oracles_classes() {
        for (name, class) in [
            ("log file sync", WaitClass::Commit),
            ("log file parallel write", WaitClass::SystemIo),
            ("db file sequential read", WaitClass::UserIo),
            ("db file parallel write", WaitClass::SystemIo),
            ("Disk file operations I/O", WaitClass::UserIo),
            ("utl_file I/O", WaitClass::UserIo),
            ("gc cr grant 2-way", WaitClass::Cluster),
            ("library cache: mutex X", WaitClass::Concurrency),
            ("enq: TX - row lock contention", WaitClass::Application),
            ("SQL*Net message to client", WaitClass::Network),
            (
                "log file switch (checkpoint incomplete)",
                WaitClass::Configuration,
            ),
            ("PGA memory operation", WaitClass::Other),
        ] {
            assert_eq!(wait_class(name, false), class, "{name}");
        }
        assert_eq!(
            wait_class("SQL*Net message from client", true),
            WaitClass::Idle
        );
        assert!(WaitClass::UserIo.is_io() && !WaitClass::Commit.is_io());
    }
}
