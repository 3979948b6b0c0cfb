//! The layers of a commit in one interval (`dbio snap --watch`): the
//! server's own view (its commit wait and its log flush timer, from the
//! snapshot interval), joined with the kernel's view of the same interval
//! (`dbio watch` following the server's processes: the system calls on
//! the log files, and the queue and device time of the block requests
//! that carried their extents), per log file.
//!
//! Why the join is by file: the server names its logs by role (WAL,
//! redo, binary log), the kernel by path; a log's files are told by
//! their names (a WAL segment's 24 hex digits, `ib_logfile0`, the binary
//! log's base name and a sequence number), so the same role is read at
//! every layer.
//!
//! The server's processes are found from the monitoring connection, and
//! checked on this host before anything is watched: PostgreSQL's backend
//! (`pg_backend_pid()`) must be a process whose title names this
//! connection's client port (`postgres: ... 127.0.0.1(PORT)`; no
//! privilege needed), and its parent a `postgres` process, the
//! postmaster; MariaDB's connection thread
//! (`performance_schema.threads.THREAD_OS_ID`) must belong to a
//! `mariadbd` or `mysqld` process whose working directory is `@@datadir`.
//! So a remote server is never confused with a local process that happens
//! to have the same id.

use dbio_model::awr::AwrReport;
use dbio_model::snap::{CommitLayers, LayerTime, LogLayers, SnapFamily};
use dbio_model::watch::{BlockOp, WatchResult};
use std::collections::BTreeMap;
use std::path::Path;

/// Files shown per log.
const FILES_SHOWN: usize = 4;

/// The server's processes on this host, and how its log files are named.
#[derive(Debug, Clone, PartialEq)]
pub struct ServerProcess {
    /// The postmaster, or the mariadbd process.
    pub pid: u32,
    /// Its name in words (`postmaster`, `mariadbd`).
    pub role: &'static str,
    /// How its log files are told apart.
    pub logs: LogFiles,
}

/// How a server's log files are named.
#[derive(Debug, Clone, PartialEq)]
pub struct LogFiles {
    /// The server.
    pub family: SnapFamily,
    /// MariaDB's `@@log_bin_basename` (absolute), when the binary log is
    /// on.
    pub binlog_base: Option<String>,
}

/// The WAL, in words.
pub const WAL: &str = "WAL";
/// InnoDB's redo log.
pub const REDO: &str = "redo log";
/// MariaDB's binary log.
pub const BINLOG: &str = "binary log";

impl LogFiles {
    /// The log `path` belongs to, if any.
    pub fn classify(&self, path: &str) -> Option<&'static str> {
        let name = Path::new(path).file_name()?.to_str()?;
        match self.family {
            // A WAL segment: timeline, log and segment as 24 hex digits
            // (pg_wal/000000010000000000000042).
            SnapFamily::Postgres => (name.len() == 24
                && name
                    .bytes()
                    .all(|b| b.is_ascii_digit() || (b'A'..=b'F').contains(&b)))
            .then_some(WAL),
            SnapFamily::Mariadb => {
                if name.starts_with("ib_logfile")
                    && name["ib_logfile".len()..]
                        .bytes()
                        .all(|b| b.is_ascii_digit())
                {
                    return Some(REDO);
                }
                let base = self.binlog_base.as_deref()?;
                let seq = path.strip_prefix(base)?.strip_prefix('.')?;
                (!seq.is_empty() && seq.bytes().all(|b| b.is_ascii_digit())).then_some(BINLOG)
            }
        }
    }

    /// The logs a commit waits for, in the order it waits for them.
    fn logs(&self) -> Vec<&'static str> {
        match self.family {
            SnapFamily::Postgres => vec![WAL],
            SnapFamily::Mariadb if self.binlog_base.is_some() => vec![BINLOG, REDO],
            SnapFamily::Mariadb => vec![REDO],
        }
    }
}

fn add(t: &mut LayerTime, count: u64, ns: u64) {
    t.count += count as f64;
    t.time_s += ns as f64 / 1e9;
}

/// The layers of the interval `r` (a snapshot of the server the watch
/// `w` followed).
pub fn join(r: &AwrReport, w: &WatchResult, p: &ServerProcess) -> CommitLayers {
    let mut logs: BTreeMap<&'static str, LogLayers> = p
        .logs
        .logs()
        .into_iter()
        .map(|l| {
            (
                l,
                LogLayers {
                    log: l.to_string(),
                    ..Default::default()
                },
            )
        })
        .collect();
    let mut devices: Vec<&str> = Vec::new();
    for op in &w.ops {
        let Some(path) = op.path.as_deref() else {
            continue;
        };
        let sync = op.op.is_sync();
        if !sync && !op.op.is_write() {
            continue;
        }
        let Some(l) = p.logs.classify(path).and_then(|l| logs.get_mut(l)) else {
            continue;
        };
        add(
            if sync { &mut l.syncs } else { &mut l.writes },
            op.count,
            op.total_ns,
        );
        if !l.files.iter().any(|f| f == path) && l.files.len() < FILES_SHOWN {
            l.files.push(path.to_string());
        }
    }
    for b in &w.file_block {
        let Some(l) = p.logs.classify(&b.path).and_then(|l| logs.get_mut(l)) else {
            continue;
        };
        add(&mut l.queue, b.queued, b.queue_ns);
        add(&mut l.device, b.count, b.total_ns);
        if !devices.contains(&b.device.as_str()) {
            devices.push(&b.device);
        }
    }
    let mut device_flushes = LayerTime::default();
    for d in &w.block {
        if d.op == BlockOp::Flush && d.pid.is_some() && devices.contains(&d.device.as_str()) {
            add(&mut device_flushes, d.count, d.total_ns);
        }
    }
    let commits = r.derived.transactions.unwrap_or(0.0);
    let flush_event = r
        .event("log file parallel write")
        .and_then(|e| Some((e.waits?, e.time_s?)));
    let (timed_log, untimed_why) = match p.logs.family {
        SnapFamily::Postgres => (WAL, "track_wal_io_timing is off"),
        SnapFamily::Mariadb => (BINLOG, "performance_schema's binary log file waits are off"),
    };
    for l in logs.values_mut() {
        l.database_source = if l.log == timed_log {
            match flush_event {
                Some((n, t)) => {
                    l.database = Some(LayerTime {
                        count: n,
                        time_s: t,
                    });
                    match p.logs.family {
                        SnapFamily::Postgres => {
                            "pg_stat_wal (PostgreSQL 18: pg_stat_io, object wal): writes and syncs"
                        }
                        SnapFamily::Mariadb => {
                            "performance_schema wait/io/file/sql/binlog, per binary log group commit"
                        }
                    }
                    .to_string()
                }
                None => format!("not timed: {untimed_why}"),
            }
        } else {
            "not timed: MariaDB has no instrument for the redo log's write and fsync (MDEV-27848)"
                .to_string()
        };
    }
    let (commit, commit_source) = match p.logs.family {
        SnapFamily::Postgres => (
            r.event("log file sync").and_then(|e| e.time_s),
            "'log file sync': the sessions sampled waiting for their commit's WAL flush",
        ),
        SnapFamily::Mariadb => (
            r.header.db_time_s,
            "the statements' time per transaction (performance_schema), the commit included",
        ),
    };
    let commit = commit.filter(|_| commits > 0.0).map(|time_s| LayerTime {
        count: commits,
        time_s,
    });
    let mut notes = Vec::new();
    let lost = w.losses.unmatched
        + w.losses.start_table_full
        + w.losses.histogram_table_full
        + w.losses.ring_drops
        + w.losses.block_table_full
        + w.losses.block_histogram_full
        + w.losses.block_ring_drops;
    if lost > 0 {
        notes.push(format!(
            "the tracer lost {lost} events (tables full or unmatched): the kernel's counts are lower bounds"
        ));
    }
    for l in logs.values() {
        if l.flushes() == 0.0 {
            notes.push(format!(
                "no write or sync on the {} was seen: the watched processes did not write it in the interval",
                l.log
            ));
        }
    }
    CommitLayers {
        watched: format!("{} pid {} and the processes it forked", p.role, p.pid),
        processes: w.processes.len() as u64,
        watched_s: w.duration_ns as f64 / 1e9,
        commits,
        commit,
        commit_source: commit_source.to_string(),
        logs: p
            .logs
            .logs()
            .into_iter()
            .filter_map(|l| logs.remove(l))
            .collect(),
        device_flushes,
        notes,
    }
}

/// The id of the process thread `tid` belongs to (`Tgid` in its status).
pub fn tgid_of(tid: u32) -> Option<u32> {
    std::fs::read_to_string(format!("/proc/{tid}/status"))
        .ok()?
        .lines()
        .find_map(|l| l.strip_prefix("Tgid:"))?
        .trim()
        .parse()
        .ok()
}

/// The parent of `pid` (field 4 of its `stat`, after the command name,
/// which may hold spaces and parentheses).
pub fn parent_of(pid: u32) -> Option<u32> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let (_, rest) = stat.rsplit_once(')')?;
    rest.split_whitespace().nth(1)?.parse().ok()
}

/// Whether `pid`'s working directory is `dir` (both resolved).
pub fn works_in(pid: u32, dir: &str) -> bool {
    let Ok(cwd) = std::fs::read_link(format!("/proc/{pid}/cwd")) else {
        return false;
    };
    let want = std::fs::canonicalize(dir).unwrap_or_else(|_| dir.into());
    cwd == want
}

/// `pid`'s command name (`comm`), trimmed.
pub fn comm_of(pid: u32) -> Option<String> {
    Some(
        std::fs::read_to_string(format!("/proc/{pid}/comm"))
            .ok()?
            .trim_end()
            .to_string(),
    )
}

/// One sentence: the server named by the monitoring connection is not a
/// process on this host (`what` says what was found instead).
pub fn not_here(family: SnapFamily, what: &str) -> String {
    format!(
        "--watch follows the server's processes on this host, and this {} is not one of them ({what}): run dbio snap --watch on the database host",
        family.name()
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pg() -> LogFiles {
        LogFiles {
            family: SnapFamily::Postgres,
            binlog_base: None,
        }
    }

    fn maria() -> LogFiles {
        LogFiles {
            family: SnapFamily::Mariadb,
            binlog_base: Some("/var/lib/mysql/mysql-bin".into()),
        }
    }

    #[test]
    fn log_files_are_told_by_their_names() {
        assert_eq!(
            pg().classify("/d/pg_wal/000000010000000000000042"),
            Some(WAL)
        );
        assert_eq!(pg().classify("/d/pg_wal/00000001000000000000004"), None);
        assert_eq!(pg().classify("/d/pg_wal/00000001000000000000004g"), None);
        assert_eq!(pg().classify("/d/base/5/16384"), None);
        assert_eq!(maria().classify("/var/lib/mysql/ib_logfile0"), Some(REDO));
        assert_eq!(maria().classify("/var/lib/mysql/ib_logfile0x"), None);
        assert_eq!(
            maria().classify("/var/lib/mysql/mysql-bin.000012"),
            Some(BINLOG)
        );
        assert_eq!(maria().classify("/var/lib/mysql/mysql-bin.index"), None);
        assert_eq!(maria().classify("/var/lib/mysql/other-bin.000012"), None);
        assert_eq!(maria().classify("/var/lib/mysql/ibdata1"), None);
        let off = LogFiles {
            binlog_base: None,
            ..maria()
        };
        assert_eq!(off.classify("/var/lib/mysql/mysql-bin.000012"), None);
        assert_eq!(off.logs(), vec![REDO]);
        assert_eq!(maria().logs(), vec![BINLOG, REDO]);
    }

    #[test]
    fn this_process_is_found_in_proc() {
        let me = std::process::id();
        assert_eq!(tgid_of(me), Some(me));
        assert_eq!(parent_of(me), Some(std::os::unix::process::parent_id()));
        let cwd = std::env::current_dir().unwrap();
        assert!(works_in(me, cwd.to_str().unwrap()));
        assert!(!works_in(me, "/nonexistent-dir"));
        assert_eq!(parent_of(u32::MAX), None);
    }
}
