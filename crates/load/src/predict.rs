//! What `dbio load --predict` needs from the database side: how an
//! engine's commit path maps onto the log-writer model, where its log
//! lives on this machine, and the CPU its backends spent.
//!
//! The mapping is from the engines' documentation, not from fitting:
//! * PostgreSQL: backends flush WAL themselves, the first to get
//!   `WALWriteLock` for the group (the leader protocol); `wal_sync_method`
//!   picks the sync (`fdatasync` after a buffered write, `open_datasync`
//!   = a buffered write with `O_DSYNC`, ...); WAL pages are
//!   `XLOG_BLCKSZ` = 8 KiB; `commit_delay` / `commit_siblings` are the
//!   model's own options of the same name (PostgreSQL manual, "WAL
//!   Configuration").
//! * MariaDB/InnoDB: group commit with a leader as well; the redo log is
//!   opened `O_DIRECT` unless `innodb_log_file_buffering` is on, and
//!   written through (`O_DSYNC`) when `innodb_log_file_write_through` is
//!   on, else followed by `fdatasync`; with `log_bin`, `sync_binlog=1`
//!   and `innodb_flush_log_at_trx_commit=1` every commit passes two group
//!   commits, each with its own leader, InnoDB's prepare and then the
//!   binary log, and the two overlap between groups (the model's
//!   `--pipeline`; MariaDB KB "Group commit for the binary log",
//!   docs/realdb-notes.md §1 and §3).
//! * SQLite: a session holds the write lock from its insert until its
//!   WAL sync is done, so commits never share a sync: the model runs one
//!   session, whatever the real session count.
//!
//! CPU: `/proc/PID/stat` user and system times of each session's
//! backend (a PostgreSQL backend process, or the MariaDB connection's OS
//! thread named by `performance_schema.threads`), read when the measured
//! window opens and when the session ends. Their resolution is one clock
//! tick (10 ms at the usual `CLK_TCK` of 100) per reading and backend:
//! over a 10 s run of 10 sessions at most 0.2 s of CPU, a few percent
//! of what the backends spend. A pid is used only when it belongs to a
//! process on this machine whose name is the server's (`postgres`,
//! `mariadbd`, `mysqld`), so a remote server's pid never reads a local
//! process.

use crate::backend::DbKind;
use dbio_engine::rusage::Usage;
use dbio_model::lgwr::{Method, Protocol};
use std::path::{Path, PathBuf};

/// The residual the model's own uncertainty accounts for, percent: the
/// model's run-to-run range on one machine is about ±4 % at one session
/// and ±8 % at ten (issue 11's measurements of `dbio lgwr`: 6.7–7.2 k and
/// 38.7–45.6 k commits/s), and the database's own about as much again
/// (docs/realdb-notes.md: 5.9–6.1 k and 18.5–21.5 k for PostgreSQL), so a
/// difference beyond 15 % is not noise. It is also the target issue 11
/// sets for the prediction.
pub const ERROR_BOUND_PCT: f64 = 15.0;

/// PostgreSQL's WAL page (`XLOG_BLCKSZ`, 8 KiB unless built otherwise).
pub const PG_WAL_BLOCK: u64 = 8192;

/// How a database's commit path maps onto the log-writer model.
#[derive(Debug, Clone, PartialEq)]
pub struct ModelShape {
    /// Who flushes a group.
    pub protocol: Protocol,
    /// How a log write is made durable.
    pub method: Method,
    /// Durable writes per flush.
    pub syncs_per_flush: u32,
    /// Each durable write a group commit of its own, one after the other
    /// for a commit (MariaDB's prepare and binary log).
    pub pipeline: bool,
    /// The later stages append through the page cache and fdatasync, as
    /// MariaDB's binary log is written.
    pub stage_append: bool,
    /// Redo block, bytes (lgwr's `--bs`).
    pub bs: u64,
    /// Sessions the model runs.
    pub sessions: u32,
    /// `commit_delay`, ns (PostgreSQL).
    pub commit_delay_ns: u64,
    /// `commit_siblings` (PostgreSQL).
    pub commit_siblings: u32,
    /// What the mapping assumed or cannot model, one sentence each.
    pub notes: Vec<String>,
}

fn setting<'a>(settings: &'a [(String, String)], name: &str) -> Option<&'a str> {
    settings
        .iter()
        .find(|(n, _)| n.eq_ignore_ascii_case(name))
        .map(|(_, v)| v.as_str())
}

fn on(v: Option<&str>) -> bool {
    v.is_some_and(|v| matches!(v.to_ascii_lowercase().as_str(), "on" | "1" | "true" | "yes"))
}

/// The model for `kind` with `settings` (as the engine shows them) and
/// `sessions` real sessions.
pub fn shape(kind: DbKind, settings: &[(String, String)], sessions: u32) -> ModelShape {
    let mut s = ModelShape {
        protocol: Protocol::Leader,
        method: Method::BufferedFdatasync,
        syncs_per_flush: 1,
        pipeline: false,
        stage_append: false,
        bs: 512,
        sessions,
        commit_delay_ns: 0,
        commit_siblings: 5,
        notes: Vec::new(),
    };
    match kind {
        DbKind::Postgres => {
            s.bs = PG_WAL_BLOCK;
            let m = setting(settings, "wal_sync_method").unwrap_or("fdatasync");
            s.method = match m {
                "fdatasync" => Method::BufferedFdatasync,
                "fsync" | "fsync_writethrough" => Method::BufferedFsync,
                "open_datasync" => Method::BufferedDsync,
                "open_sync" => {
                    s.notes.push(
                        "wal_sync_method=open_sync (O_SYNC) is modelled as O_DSYNC: on a \
                         preallocated WAL segment the two write the same"
                            .into(),
                    );
                    Method::BufferedDsync
                }
                other => {
                    s.notes.push(format!(
                        "wal_sync_method={other} is unknown to the model: it uses fdatasync"
                    ));
                    Method::BufferedFdatasync
                }
            };
            if let Some(d) = setting(settings, "commit_delay").and_then(|v| v.parse::<u64>().ok()) {
                // commit_delay is in microseconds.
                s.commit_delay_ns = d.min(100_000) * 1000;
            }
            if let Some(n) =
                setting(settings, "commit_siblings").and_then(|v| v.parse::<u32>().ok())
            {
                s.commit_siblings = n;
            }
            match setting(settings, "synchronous_commit") {
                Some("off") => s.notes.push(
                    "synchronous_commit=off: commits do not wait for the WAL flush, the model's \
                     always do, so it predicts fewer commits than the database can make"
                        .into(),
                ),
                Some("remote_write" | "remote_apply" | "on")
                    if setting(settings, "synchronous_standby_names")
                        .is_some_and(|v| !v.is_empty()) =>
                {
                    s.notes.push(
                        "synchronous_standby_names is set: commits also wait for a standby, \
                         which the model does not have"
                            .into(),
                    )
                }
                _ => {}
            }
            if setting(settings, "fsync") == Some("off") {
                s.notes
                    .push("fsync=off: PostgreSQL does not make WAL durable, the model does".into());
            }
        }
        DbKind::Mysql => {
            let direct = !on(setting(settings, "innodb_log_file_buffering"))
                && setting(settings, "innodb_log_file_buffering").is_some();
            let through = on(setting(settings, "innodb_log_file_write_through"))
                || setting(settings, "innodb_flush_method")
                    .is_some_and(|m| m.eq_ignore_ascii_case("O_DSYNC"));
            s.method = match (direct, through) {
                (true, true) => Method::DirectDsync,
                (true, false) => Method::DirectFdatasync,
                (false, true) => Method::BufferedDsync,
                (false, false) => Method::BufferedFdatasync,
            };
            if setting(settings, "innodb_log_file_buffering").is_none() {
                s.notes.push(
                    "the server has no innodb_log_file_buffering (MySQL, or MariaDB before \
                     10.8): the redo log is modelled as buffered"
                        .into(),
                );
            }
            // InnoDB writes redo in its 512-byte log blocks, rounded to
            // the device's 4 KiB when it bypasses the page cache ("File
            // system buffers for log disabled (block size=4096 bytes)").
            s.bs = if direct { 4096 } else { 512 };
            let binlog = on(setting(settings, "log_bin"));
            let synced_binlog = binlog && setting(settings, "sync_binlog") == Some("1");
            let flat = setting(settings, "innodb_flush_log_at_trx_commit");
            match (synced_binlog, flat) {
                (true, Some("1") | None) => {
                    s.syncs_per_flush = 2;
                    s.pipeline = true;
                    // MariaDB appends its binary log through the page cache
                    // and syncs it with fdatasync (`dbio watch --pid` on
                    // mariadbd: `write` + `fdatasync` on binlog.NNNNNN).
                    s.stage_append = true;
                    s.notes.push(
                        "log_bin with sync_binlog=1: two group commits per commit, one after \
                         the other and overlapping between groups (InnoDB's redo at prepare, \
                         then the binary log, appended through the page cache and synced with \
                         fdatasync as MariaDB writes it); the binary log's records have the \
                         redo log's size per commit"
                            .into(),
                    );
                }
                (true, Some(v)) => s.notes.push(format!(
                    "log_bin with sync_binlog=1 and innodb_flush_log_at_trx_commit={v}: only \
                     the binary log is synced at commit, which the model stands for with its \
                     one sync per flush (with the redo log's method)"
                )),
                (false, Some("1") | None) => {}
                (false, Some(v)) => s.notes.push(format!(
                    "innodb_flush_log_at_trx_commit={v}: commits do not wait for a redo sync, \
                     the model's do, so it predicts fewer commits than the database can make"
                )),
            }
        }
        DbKind::Sqlite => {
            s.sessions = 1;
            s.bs = 4096;
            s.method = Method::BufferedFdatasync;
            s.notes.push(
                "SQLite holds its write lock through the WAL sync, so commits never share one: \
                 the model runs one session and predicts the same rate for any session count"
                    .into(),
            );
            if let Some(v) = setting(settings, "synchronous").filter(|v| *v != "full") {
                s.notes.push(format!(
                    "synchronous={v}: SQLite does not sync every commit, the model does"
                ));
            }
        }
    }
    s
}

/// CPU of process (or thread) `pid`, when it runs on this machine in a
/// process named one of `names` (its process's `comm`).
///
/// The total is the scheduler's own account to the nanosecond
/// (`/proc/TGID/task/PID/schedstat`, its first field: time on a CPU,
/// Documentation/scheduler/sched-stats.rst); `stat`'s user and system
/// times count whole clock ticks (10 ms at USER_HZ 100), which for a
/// backend that ran a few hundred commits of tens of µs each is zero or
/// one tick, up to 33 µs per commit off over 300 commits. The split
/// between user and system follows the ticks (all user when there are
/// none yet). Without schedstat (a kernel without CONFIG_SCHED_INFO) the
/// ticks are all there is.
pub fn server_cpu(pid: u32, names: &[&str]) -> Option<Usage> {
    let tgid = std::fs::read_to_string(format!("/proc/{pid}/status"))
        .ok()?
        .lines()
        .find_map(|l| l.strip_prefix("Tgid:"))
        .and_then(|v| v.trim().parse::<u32>().ok())?;
    let comm = std::fs::read_to_string(format!("/proc/{tgid}/comm")).ok()?;
    if !names.contains(&comm.trim()) {
        return None;
    }
    // The task's own times: /proc/TID/stat of a thread that does not
    // lead its group shows the whole process's (MariaDB's connections
    // are threads of one server process).
    let stat = std::fs::read_to_string(format!("/proc/{tgid}/task/{pid}/stat")).ok()?;
    let ticks = parse_stat(&stat)?;
    let on_cpu = std::fs::read_to_string(format!("/proc/{tgid}/task/{pid}/schedstat"))
        .ok()
        .and_then(|s| parse_schedstat(&s));
    Some(match on_cpu {
        Some(ns) => split_like(ns, &ticks),
        None => ticks,
    })
}

/// Time on a CPU, ns, from a `schedstat` line (run time, wait time,
/// timeslices).
pub fn parse_schedstat(line: &str) -> Option<u64> {
    line.split_whitespace().next()?.parse().ok()
}

/// `total_ns` split between user and system time in the proportion of
/// `ticks` (all user when the ticks are zero).
fn split_like(total_ns: u64, ticks: &Usage) -> Usage {
    let t = ticks.user_ns + ticks.system_ns;
    let system_ns = if t == 0 {
        0
    } else {
        (u128::from(total_ns) * u128::from(ticks.system_ns) / u128::from(t)) as u64
    };
    Usage {
        user_ns: total_ns - system_ns,
        system_ns,
        ..Usage::default()
    }
}

/// The process names of the servers dbio loads.
pub const SERVER_NAMES: &[&str] = &["postgres", "mariadbd", "mysqld"];

/// User and system time from a `/proc/PID/stat` line (fields 14 and 15,
/// counted after the parenthesised name, which may hold spaces).
pub fn parse_stat(stat: &str) -> Option<Usage> {
    let rest = &stat[stat.rfind(')')? + 1..];
    let f: Vec<&str> = rest.split_whitespace().collect();
    // After ')': field 3 (state) is f[0], so field n is f[n - 3].
    let utime: u64 = f.get(11)?.parse().ok()?;
    let stime: u64 = f.get(12)?.parse().ok()?;
    let tick = clock_tick_ns();
    Some(Usage {
        user_ns: utime * tick,
        system_ns: stime * tick,
        ..Usage::default()
    })
}

/// One clock tick (`sysconf(_SC_CLK_TCK)`), ns.
fn clock_tick_ns() -> u64 {
    // SAFETY: sysconf reads a constant.
    let hz = unsafe { libc::sysconf(libc::_SC_CLK_TCK) };
    if hz > 0 {
        1_000_000_000 / hz as u64
    } else {
        10_000_000
    }
}

/// Where an engine keeps its log, as the server names it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LogLocation {
    /// The log's directory (PostgreSQL's `pg_wal`, InnoDB's
    /// `innodb_log_group_home_dir`).
    pub dir: PathBuf,
    /// What it is, for the report ("PostgreSQL's WAL directory").
    pub what: String,
    /// The server's data directory: a server process on this machine
    /// runs in it.
    pub data_dir: PathBuf,
    /// A server process or thread to look for on this machine.
    pub pid: Option<u32>,
}

impl LogLocation {
    /// Whether the server runs on this machine: `pid` is a server
    /// process here whose working directory is the data directory.
    pub fn is_local(&self) -> bool {
        let Some(pid) = self.pid else { return false };
        if server_cpu(pid, SERVER_NAMES).is_none() {
            return false;
        }
        let cwd = std::fs::read_link(format!("/proc/{pid}/cwd")).ok();
        let same = |a: &Path, b: &Path| match (a.canonicalize(), b.canonicalize()) {
            (Ok(a), Ok(b)) => a == b,
            _ => false,
        };
        cwd.is_some_and(|c| same(&c, &self.data_dir))
    }
}

/// Whether dbio can create (and remove) a file in `dir`; the error is one
/// sentence. The directory is opened by `dbio_engine::resolve`'s rules
/// (as the log writer's run will open it), and the probe is made and
/// removed under that descriptor, rw------- whatever the umask.
pub fn check_writable(dir: &Path) -> Result<(), String> {
    use dbio_engine::resolve::DirError;
    use rustix::fs::{AtFlags, Mode, OFlags};
    let fd = dbio_engine::resolve::open_dir(dir).map_err(|e| match e {
        DirError::Os(rustix::io::Errno::NOENT | rustix::io::Errno::NOTDIR) => {
            format!("{} is not a directory", dir.display())
        }
        DirError::Os(e) => format!(
            "cannot open the directory {}: {}",
            dir.display(),
            std::io::Error::from(e)
        ),
        DirError::Refused(why) => why,
    })?;
    let probe = format!(".dbio-predict-probe-{}", std::process::id());
    match rustix::fs::openat(
        &fd,
        probe.as_str(),
        OFlags::WRONLY | OFlags::CREATE | OFlags::EXCL | OFlags::NOFOLLOW | OFlags::CLOEXEC,
        Mode::from_raw_mode(0o600),
    ) {
        Ok(f) => {
            drop(f);
            let _ = rustix::fs::unlinkat(&fd, probe.as_str(), AtFlags::empty());
            Ok(())
        }
        Err(e) => Err(format!(
            "cannot create a file in {}: {}",
            dir.display(),
            std::io::Error::from(e)
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn set(v: &[(&str, &str)]) -> Vec<(String, String)> {
        v.iter()
            .map(|(a, b)| (a.to_string(), b.to_string()))
            .collect()
    }

    #[test]
    fn postgresql_maps_wal_sync_method_and_commit_delay() {
        let s = shape(
            DbKind::Postgres,
            &set(&[
                ("wal_sync_method", "open_datasync"),
                ("commit_delay", "1000"),
                ("commit_siblings", "3"),
            ]),
            10,
        );
        assert_eq!(s.protocol, Protocol::Leader);
        assert_eq!(s.method, Method::BufferedDsync);
        assert_eq!((s.commit_delay_ns, s.commit_siblings), (1_000_000, 3));
        assert_eq!((s.bs, s.syncs_per_flush, s.sessions), (8192, 1, 10));
        let s = shape(
            DbKind::Postgres,
            &set(&[("wal_sync_method", "fdatasync")]),
            1,
        );
        assert_eq!(s.method, Method::BufferedFdatasync);
        assert!(s.notes.is_empty(), "{:?}", s.notes);
        let s = shape(DbKind::Postgres, &set(&[("synchronous_commit", "off")]), 1);
        assert!(s.notes[0].contains("synchronous_commit=off"));
    }

    #[test]
    fn mariadb_with_a_synced_binlog_makes_two_syncs_per_group() {
        let s = shape(
            DbKind::Mysql,
            &set(&[
                ("innodb_flush_log_at_trx_commit", "1"),
                ("sync_binlog", "1"),
                ("log_bin", "ON"),
                ("innodb_log_file_buffering", "OFF"),
                ("innodb_log_file_write_through", "OFF"),
            ]),
            10,
        );
        assert_eq!(s.protocol, Protocol::Leader);
        assert_eq!(s.method, Method::DirectFdatasync);
        assert_eq!((s.syncs_per_flush, s.bs), (2, 4096));
        assert!(s.pipeline, "prepare and binary log are two group commits");
        assert!(s.stage_append, "the binary log is appended");
        // A binary log synced without a redo sync at prepare: one sync.
        let s = shape(
            DbKind::Mysql,
            &set(&[
                ("innodb_flush_log_at_trx_commit", "2"),
                ("sync_binlog", "1"),
                ("log_bin", "ON"),
            ]),
            10,
        );
        assert_eq!((s.syncs_per_flush, s.pipeline), (1, false));
        assert!(
            s.notes.iter().any(|n| n.contains("only the binary log")),
            "{:?}",
            s.notes
        );
        let s = shape(
            DbKind::Mysql,
            &set(&[
                ("log_bin", "OFF"),
                ("sync_binlog", "1"),
                ("innodb_log_file_buffering", "ON"),
                ("innodb_log_file_write_through", "ON"),
            ]),
            10,
        );
        assert_eq!((s.method, s.syncs_per_flush), (Method::BufferedDsync, 1));
        assert!(!s.pipeline);
    }

    #[test]
    fn sqlite_commits_one_at_a_time() {
        let s = shape(DbKind::Sqlite, &set(&[("synchronous", "full")]), 10);
        assert_eq!(s.sessions, 1);
        assert_eq!(s.notes.len(), 1);
    }

    #[test]
    fn stat_lines_with_spaces_in_the_name_parse() {
        let line = "1234 (postgres: dbio x) S 1 2 3 4 5 6 7 8 9 10 250 50 0 0 20 0 1 0";
        let u = parse_stat(line).unwrap();
        let tick = clock_tick_ns();
        assert_eq!((u.user_ns, u.system_ns), (250 * tick, 50 * tick));
        assert!(parse_stat("garbage").is_none());
    }

    /// The scheduler's nanoseconds are the total; the ticks only split it.
    #[test]
    fn cpu_is_the_schedulers_nanoseconds_split_as_the_ticks_are() {
        assert_eq!(parse_schedstat("12345678 9 10\n"), Some(12_345_678));
        assert!(parse_schedstat("").is_none());
        let ticks = Usage {
            user_ns: 30,
            system_ns: 10,
            ..Usage::default()
        };
        let u = split_like(4_000_000, &ticks);
        assert_eq!((u.user_ns, u.system_ns), (3_000_000, 1_000_000));
        let u = split_like(4_000_000, &Usage::default());
        assert_eq!((u.user_ns, u.system_ns), (4_000_000, 0));
    }

    #[test]
    fn this_process_is_not_a_server_and_a_file_is_not_a_directory() {
        assert!(server_cpu(std::process::id(), SERVER_NAMES).is_none());
        let d = tempfile::tempdir().unwrap();
        check_writable(d.path()).unwrap();
        assert_eq!(
            std::fs::read_dir(d.path()).unwrap().count(),
            0,
            "probe removed"
        );
        let f = d.path().join("f");
        std::fs::write(&f, b"x").unwrap();
        let e = check_writable(&f).unwrap_err();
        assert!(e.contains("is not a directory"), "{e}");
    }
}
