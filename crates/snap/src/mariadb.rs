//! MariaDB snapshots (10.11 tested): performance_schema's summaries and
//! the global status counters.
//!
//! | source | what dbio reads |
//! |---|---|
//! | `information_schema.GLOBAL_STATUS` | `Com_commit`, `Innodb_data_fsyncs` (10.11 counts redo fsyncs here: `Innodb_os_log_fsyncs` is gone), `Innodb_log_writes`, `Innodb_os_log_written`, `Innodb_lsn_current`, `Innodb_data_reads`, `Binlog_commits`, `Binlog_group_commits`, ... |
//! | `events_statements_summary_global_by_event_name` | DB time: the statements' own timer (`statement/sql/%` and `statement/com/%`, picoseconds), exact for completed statements |
//! | `events_waits_summary_global_by_event_name` and `..._by_account_by_event_name` | waits of every thread, and of client threads (accounts: disconnected ones included); background = all − clients |
//! | `file_summary_by_event_name`, `file_summary_by_instance` | reads, writes, syncs (MISC) and their timers per file kind and per file |
//! | `events_statements_summary_by_digest` | the statements by time |
//!
//! What 10.11 does not time: the redo log's writes and fsyncs (no
//! performance_schema instrument since MDEV-27848), so 'log file
//! parallel write' is the binary log's group sync (`Binlog_group_commits`
//! flushes, the binlog file's write and sync timers) and the redo
//! flushes are counts only. DB CPU is not measured: DB time less the
//! timed waits is CPU and untimed waits together.
//!
//! The least privileged account: `SELECT` on `performance_schema` (the
//! status counters need no privilege). `PROCESS` adds nothing here: the
//! counters are global and performance_schema's summaries cover every
//! account's threads for whoever may read them (the server tests compare
//! an account with and without it). Without the `SELECT`, what is
//! hidden is said with the GRANT that shows it. With performance_schema
//! off, or its file instruments disabled, what is missing is said with
//! the setting that would enable it. Status counters are global: other
//! clients' work is in them (as in any AWR).

use crate::delta::{diff, Interval};
use crate::layers::{self, LogFiles, ServerProcess};
use crate::mapping::pfs_event;
use crate::report::{self, CommitFigures};
use crate::{num, Group, Row, SnapError, SnapOptions, Snapper, Snapshot};
use dbio_load::mysql::Monitor;
use dbio_load::target::ServerSpec;
use dbio_load::LoadError;
use dbio_model::awr::{AwrHeader, AwrReport, ReportKind, WaitEventRow};
use dbio_model::snap::{NotTracked, SampleSource, SnapFamily, SnapInfo};
use std::collections::BTreeMap;
use std::time::Instant;

/// The versions dbio snap is tested with (major × 100 + minor).
pub const TESTED: std::ops::RangeInclusive<u32> = 1011..=1011;

/// The note on a server outside [`TESTED`] (`version_num`: major ×
/// 10000 + minor × 100 + patch; MySQL is never tested): still read,
/// with 10.11's queries, and said so.
pub fn untested(version: &str, version_num: u32, mariadb: bool) -> Option<String> {
    (!mariadb || !TESTED.contains(&(version_num / 100))).then(|| {
        format!(
            "{} {version} is outside the versions dbio snap is tested with (MariaDB 10.11): its \
             figures are read with 10.11's queries, and a counter it lacks is left out",
            if mariadb { "MariaDB" } else { "MySQL" },
        )
    })
}

/// `CURRENT_USER()` (`dbio@127.0.0.1`) as a GRANT names it:
/// `'dbio'@'127.0.0.1'`.
fn account(current_user: &str) -> String {
    match current_user.rsplit_once('@') {
        Some((u, h)) => format!("'{u}'@'{h}'"),
        None => format!("'{current_user}'"),
    }
}

/// The global status counters read (MariaDB's names; absent ones left
/// out).
const STATUS: &[(&str, &str)] = &[
    ("Com_commit", "count"),
    ("Com_rollback", "count"),
    ("Com_insert", "count"),
    ("Com_select", "count"),
    ("Com_update", "count"),
    ("Com_delete", "count"),
    ("Questions", "count"),
    ("Handler_commit", "count"),
    ("Handler_rollback", "count"),
    ("Innodb_data_fsyncs", "count"),
    ("Innodb_os_log_fsyncs", "count"),
    ("Innodb_data_reads", "count"),
    ("Innodb_data_read", "bytes"),
    ("Innodb_data_writes", "count"),
    ("Innodb_data_written", "bytes"),
    ("Innodb_os_log_written", "bytes"),
    ("Innodb_log_writes", "count"),
    ("Innodb_log_waits", "count"),
    ("Innodb_lsn_current", "bytes"),
    ("Innodb_buffer_pool_reads", "count"),
    ("Innodb_buffer_pool_read_requests", "count"),
    ("Innodb_pages_written", "count"),
    ("Binlog_commits", "count"),
    ("Binlog_group_commits", "count"),
    ("Binlog_bytes_written", "bytes"),
];

/// performance_schema file summary columns (timers in picoseconds).
const FILE_COLS: &[(&str, &str)] = &[
    ("COUNT_READ", "count"),
    ("SUM_TIMER_READ", "ps"),
    ("SUM_NUMBER_OF_BYTES_READ", "bytes"),
    ("COUNT_WRITE", "count"),
    ("SUM_TIMER_WRITE", "ps"),
    ("SUM_NUMBER_OF_BYTES_WRITE", "bytes"),
    ("COUNT_MISC", "count"),
    ("SUM_TIMER_MISC", "ps"),
];

/// A MariaDB server snapshots are taken of.
pub struct MariaSnapper {
    mon: Monitor,
    info: SnapInfo,
    /// performance_schema is on and readable.
    pfs: bool,
}

impl MariaSnapper {
    /// Connects, checks the version and the privileges, and finds what
    /// performance_schema offers.
    pub fn open(spec: &ServerSpec, opts: &SnapOptions) -> Result<MariaSnapper, SnapError> {
        let mut mon = Monitor::open(spec)?;
        let mut info = SnapInfo {
            family: SnapFamily::Mariadb,
            server_version: mon.version().to_string(),
            version_num: mon.version_num(),
            target: mon.display_target().to_string(),
            planned_s: opts.interval_s,
            sample_source: SampleSource::StatementTimers,
            ..Default::default()
        };
        info.notes
            .extend(untested(mon.version(), mon.version_num(), mon.is_mariadb()));
        // PROCESS is not needed: the status counters are global and
        // performance_schema's summaries show every account's threads to
        // whoever may SELECT them (tests/servers.rs compares both).
        let user = account(
            &mon.query("SELECT CURRENT_USER()")?
                .first()
                .and_then(|r| r.first().cloned().flatten())
                .unwrap_or_default(),
        );
        let pfs = match mon.query_code("SELECT @@performance_schema")? {
            Ok(rows) => rows.first().and_then(|r| num(r.first()?)) == Some(1.0),
            Err(_) => false,
        };
        let pfs_readable = pfs
            && mon
                .query_code("SELECT 1 FROM performance_schema.setup_instruments LIMIT 1")?
                .is_ok();
        if pfs && !pfs_readable {
            info.hidden.push(format!(
                "account {user} may not read performance_schema: no DB time, waits or \
                 statements (GRANT SELECT ON performance_schema.* TO {user} shows them)"
            ));
        }
        if !pfs {
            info.not_tracked.push(NotTracked {
                setting: "performance_schema".into(),
                missing: "DB time, wait events, file I/O timers and statements: only the status \
                          counters are read"
                    .into(),
                enable: "performance_schema = ON in the server's option file (a restart)".into(),
            });
        }
        if pfs_readable {
            for (instrument, what) in [
                (
                    "wait/io/file/sql/binlog",
                    "the binary log's write and sync times ('log file parallel write')",
                ),
                (
                    "wait/io/file/innodb/innodb_data_file",
                    "data file read times ('db file sequential read')",
                ),
                ("statement/sql/insert", "statement times (DB time)"),
            ] {
                let rows = mon.query(&format!(
                    "SELECT ENABLED, TIMED FROM performance_schema.setup_instruments \
                     WHERE NAME = '{instrument}'"
                ))?;
                let on = rows.first().is_some_and(|r| {
                    r.iter()
                        .all(|c| c.as_deref().is_some_and(|v| v.eq_ignore_ascii_case("YES")))
                });
                if !on {
                    info.not_tracked.push(NotTracked {
                        setting: instrument.into(),
                        missing: what.into(),
                        enable: format!(
                            "performance-schema-instrument='{instrument}=ON' in the option file \
                             (or UPDATE performance_schema.setup_instruments SET ENABLED = 'YES', \
                             TIMED = 'YES' WHERE NAME = '{instrument}', until a restart)"
                        ),
                    });
                }
            }
        }
        info.not_tracked.push(NotTracked {
            setting: "wait/io/file/innodb/innodb_log_file".into(),
            missing: "the redo log's write and fsync times: MariaDB 10.6+ has no such \
                      instrument (MDEV-27848), so redo flushes are counts only"
                .into(),
            enable: "none in MariaDB 10.11: OS tracing (dbio watch) times them".into(),
        });
        Ok(MariaSnapper {
            mon,
            info,
            pfs: pfs_readable,
        })
    }

    fn snapshot_once(&mut self) -> Result<Snapshot, LoadError> {
        let head = self.mon.query(
            "SELECT DATE_FORMAT(NOW(), '%d-%b-%y %H:%i:%s'), \
             UNIX_TIMESTAMP(NOW(6)), @@server_id, @@hostname, @@port",
        )?;
        let at = Instant::now();
        let h = head.into_iter().next().unwrap_or_default();
        let get = |i: usize| h.get(i).cloned().flatten().unwrap_or_default();
        let now: f64 = get(1).parse().unwrap_or(0.0);
        let mut groups = vec![self.status(now)?];
        let started = groups[0].rows[0]
            .values
            .last()
            .copied()
            .flatten()
            .map(|up| format!("{:.0}", now - up));
        groups[0].cols.pop();
        groups[0].rows[0].values.pop();
        if self.pfs {
            let ps = "performance_schema";
            groups.push(self.keyed(
                "waits",
                &["EVENT_NAME"],
                None,
                &[("COUNT_STAR", "count"), ("SUM_TIMER_WAIT", "ps")],
                &format!("{ps}.events_waits_summary_global_by_event_name WHERE COUNT_STAR > 0"),
            )?);
            groups.push(self.keyed(
                "waits_of_clients",
                &["EVENT_NAME"],
                None,
                &[("COUNT_STAR", "count"), ("SUM_TIMER_WAIT", "ps")],
                &format!(
                    "(SELECT EVENT_NAME, SUM(COUNT_STAR) AS COUNT_STAR, SUM(SUM_TIMER_WAIT) AS \
                     SUM_TIMER_WAIT FROM {ps}.events_waits_summary_by_account_by_event_name \
                     GROUP BY EVENT_NAME HAVING SUM(COUNT_STAR) > 0) w"
                ),
            )?);
            groups.push(self.keyed(
                "file_summary_by_event_name",
                &["EVENT_NAME"],
                None,
                FILE_COLS,
                &format!("{ps}.file_summary_by_event_name WHERE COUNT_STAR > 0"),
            )?);
            groups.push(self.keyed(
                "file_summary_by_instance",
                &["FILE_NAME", "EVENT_NAME"],
                None,
                FILE_COLS,
                &format!("{ps}.file_summary_by_instance WHERE COUNT_STAR > 0"),
            )?);
            groups.push(self.keyed(
                "statements",
                &["EVENT_NAME"],
                None,
                &[("COUNT_STAR", "count"), ("SUM_TIMER_WAIT", "ps")],
                &format!(
                    "{ps}.events_statements_summary_global_by_event_name WHERE COUNT_STAR > 0"
                ),
            )?);
            groups.push(self.keyed(
                "events_statements_summary_by_digest",
                &["SCHEMA_NAME", "DIGEST"],
                Some("LEFT(REGEXP_REPLACE(DIGEST_TEXT, '\\\\s+', ' '), 120)"),
                &[
                    ("COUNT_STAR", "count"),
                    ("SUM_TIMER_WAIT", "ps"),
                    ("SUM_ROWS_EXAMINED", "count"),
                    ("SUM_ROWS_SENT", "count"),
                ],
                &format!("{ps}.events_statements_summary_by_digest"),
            )?);
        }
        Ok(Snapshot {
            at,
            wall: get(0),
            identity: Some(format!("server_id {} on {}:{}", get(2), get(3), get(4))),
            started,
            groups,
            own_commits: 0,
        })
    }

    /// The global status counters as a one-row group; its reset time is
    /// the last `FLUSH STATUS` (now − `Uptime_since_flush_status`, in
    /// whole seconds); `Uptime` is kept as the last value, for the start
    /// time.
    fn status(&mut self, now: f64) -> Result<Group, LoadError> {
        let rows = self
            .mon
            .query("SELECT VARIABLE_NAME, VARIABLE_VALUE FROM information_schema.GLOBAL_STATUS")?;
        let value = |name: &str| {
            rows.iter()
                .find(|r| {
                    r.first()
                        .cloned()
                        .flatten()
                        .is_some_and(|n| n.eq_ignore_ascii_case(name))
                })
                .and_then(|r| num(r.get(1)?))
        };
        let present: Vec<(&str, &str)> = STATUS
            .iter()
            .copied()
            .filter(|(n, _)| value(n).is_some())
            .collect();
        let mut values: Vec<Option<f64>> = present.iter().map(|(n, _)| value(n)).collect();
        let mut cols: Vec<(String, &'static str)> =
            present.iter().map(|(n, u)| (n.to_string(), *u)).collect();
        cols.push(("Uptime".into(), "s"));
        values.push(value("Uptime"));
        let reset = value("Uptime_since_flush_status").map(|s| format!("{:.0}", now - s));
        Ok(Group {
            name: "global status".into(),
            keys: Vec::new(),
            cols,
            rows: vec![Row {
                key: Vec::new(),
                label: None,
                values,
                reset,
            }],
        })
    }

    fn keyed(
        &mut self,
        name: &str,
        keys: &[&str],
        label: Option<&str>,
        cols: &[(&str, &'static str)],
        from: &str,
    ) -> Result<Group, LoadError> {
        let mut sel: Vec<String> = keys.iter().map(|k| format!("COALESCE({k}, '')")).collect();
        if let Some(l) = label {
            sel.push(format!("COALESCE({l}, '')"));
        }
        sel.extend(cols.iter().map(|(c, _)| c.to_string()));
        let rows = self
            .mon
            .query(&format!("SELECT {} FROM {from}", sel.join(", ")))?;
        let (nk, nl) = (keys.len(), usize::from(label.is_some()));
        Ok(Group {
            name: name.to_string(),
            keys: keys.iter().map(|k| k.to_string()).collect(),
            cols: cols.iter().map(|(c, u)| (c.to_string(), *u)).collect(),
            rows: rows
                .into_iter()
                .map(|r| Row {
                    key: r[..nk]
                        .iter()
                        .map(|k| k.clone().unwrap_or_default())
                        .collect(),
                    label: (nl == 1).then(|| r[nk].clone().unwrap_or_default()),
                    values: r[nk + nl..].iter().map(num).collect(),
                    reset: None,
                })
                .collect(),
        })
    }

    fn build(&self, i: &Interval, a: &Snapshot, b: &Snapshot, partial: Option<&str>) -> AwrReport {
        let mut info = self.info.clone();
        info.resets = i.resets.clone();
        info.partial = partial.map(str::to_string);
        if i.restarted {
            info.notes.push(
                "the server restarted inside the interval: its status and performance_schema \
                 counters start from zero at a restart, so the interval's figures are those \
                 since the restart"
                    .into(),
            );
        }
        let st = i.group("global status");
        let s = |c: &str| st.and_then(|g| g.scalar(c));
        let ps_s = |v: Option<f64>| v.map(|ps| ps / 1e12);
        // DB time: every statement's own timer.
        let db_time_s = ps_s(i.group("statements").and_then(|g| {
            g.sum_where("SUM_TIMER_WAIT", |k| {
                k.first().is_some_and(|e| {
                    e.starts_with("statement/sql/") || e.starts_with("statement/com/")
                })
            })
        }));
        let (fg, bg) = waits(i, db_time_s);
        let commits = s("Com_commit")
            .zip(s("Binlog_commits"))
            .map(|(c, b)| c.max(b))
            .or(s("Com_commit"));
        let rollbacks = s("Com_rollback");
        let transactions = commits.map(|c| c + rollbacks.unwrap_or(0.0));
        let files = i.group("file_summary_by_event_name");
        let file = |ev: &str, c: &str| {
            files.and_then(|g| g.sum_where(c, |k| k.first().is_some_and(|e| e == ev)))
        };
        let binlog = "wait/io/file/sql/binlog";
        let binlog_time = file(binlog, "SUM_TIMER_WRITE")
            .zip(file(binlog, "SUM_TIMER_MISC"))
            .map(|(w, m)| (w + m) / 1e12);
        let flushes = s("Binlog_group_commits").filter(|n| *n > 0.0);
        let commit_wait_s = fg
            .iter()
            .filter(|e| e.class.as_deref() == Some("Commit"))
            .filter_map(|e| e.time_s)
            .reduce(|x, y| x + y);
        let data = "wait/io/file/innodb/innodb_data_file";
        let mut top: Vec<WaitEventRow> = Vec::new();
        if let Some(n) = flushes {
            top.push(report::event(
                "log file parallel write",
                "System I/O; binlog group syncs (Binlog_group_commits, wait/io/file/sql/binlog \
                 write + sync timers), exact; redo fsyncs untimed",
                Some(n),
                binlog_time,
                None,
            ));
        }
        if let Some(t) = commit_wait_s {
            top.push(report::event(
                "log file sync",
                "Commit; client threads' wait/io/file/sql/binlog (the group commit leader's \
                 write and sync), exact",
                None,
                Some(t),
                db_time_s,
            ));
        }
        if let Some(n) = file(data, "COUNT_READ").filter(|n| *n > 0.0) {
            top.push(report::event(
                "db file sequential read",
                "User I/O; wait/io/file/innodb/innodb_data_file reads (all threads), exact",
                Some(n),
                file(data, "SUM_TIMER_READ").map(|ps| ps / 1e12),
                db_time_s,
            ));
        }
        let top = report::by_time(top);
        let blocks_read = s("Innodb_data_reads");
        let blocks_written = s("Innodb_pages_written");
        let figures = CommitFigures {
            log_bytes: s("Innodb_os_log_written").or(s("Innodb_lsn_current")),
            log_writes: s("Innodb_log_writes"),
            log_flushes: flushes,
            log_flush_time_s: binlog_time,
            commits,
            rollbacks,
            commit_wait_s,
            blocks_read,
            blocks_written,
        };
        let mut statistics = report::statistics(i, transactions);
        statistics.retain(|r| {
            r.name.starts_with("global status.")
                || r.name.starts_with("file_summary_by_event_name.")
        });
        for (name, v) in [
            ("user commits", commits),
            ("user rollbacks", rollbacks),
            ("redo size", figures.log_bytes),
            ("redo writes", figures.log_writes),
            ("physical reads", blocks_read),
            ("physical writes", blocks_written),
        ] {
            if let Some(v) = v {
                statistics.push(report::stat(name, v, i, transactions));
            }
        }
        let load_profile = report::load_profile(
            &[
                ("DB Time(s)", db_time_s),
                ("Redo size (bytes)", figures.log_bytes),
                (
                    "Logical read (blocks)",
                    s("Innodb_buffer_pool_read_requests"),
                ),
                ("Physical read (blocks)", blocks_read),
                ("Physical write (blocks)", blocks_written),
                ("Transactions", transactions),
                ("Rollbacks", rollbacks),
            ],
            i.elapsed_s,
            transactions,
        );
        let mut tables = Vec::new();
        if let Some(g) = i.group("file_summary_by_instance") {
            tables.push(report::table(
                "file_summary_by_instance (most time)",
                g,
                "SUM_TIMER_WRITE",
                10,
            ));
        }
        if let Some(g) = i.group("events_statements_summary_by_digest") {
            tables.push(report::table(
                "events_statements_summary_by_digest by time",
                g,
                "SUM_TIMER_WAIT",
                10,
            ));
        }
        AwrReport {
            schema_version: dbio_model::SCHEMA_VERSION,
            source: self.mon.display_target().to_string(),
            kind: ReportKind::MariadbSnap,
            header: AwrHeader {
                db_name: Some(self.mon.display_target().to_string()),
                instance: b.identity.clone(),
                version: Some(self.mon.version().to_string()),
                instances: 1,
                elapsed_s: Some(i.elapsed_s),
                db_time_s,
                dbid: b.identity.clone(),
                begin_time: Some(a.wall.clone()),
                end_time: Some(b.wall.clone()),
                ..Default::default()
            },
            load_profile,
            top_events: top,
            foreground_events: fg,
            background_events: bg,
            statistics,
            tables,
            derived: report::derived(&figures, i.elapsed_s),
            snap: Some(info),
            ..Default::default()
        }
    }
}

/// Client threads' waits (the account summaries) and background
/// threads' (every thread's less the clients'), classified.
fn waits(i: &Interval, db_time_s: Option<f64>) -> (Vec<WaitEventRow>, Vec<WaitEventRow>) {
    let rows = |name: &str| -> BTreeMap<String, (f64, f64)> {
        i.group(name)
            .map(|g| {
                g.rows
                    .iter()
                    .map(|r| {
                        let v = |k: usize| r.values.get(k).copied().flatten().unwrap_or(0.0);
                        (r.key[0].clone(), (v(0), v(1) / 1e12))
                    })
                    .collect()
            })
            .unwrap_or_default()
    };
    let all = rows("waits");
    let clients = rows("waits_of_clients");
    let mut fg = Vec::new();
    let mut bg = Vec::new();
    for (event, (n, t)) in &all {
        let Some(m) = pfs_event(event) else { continue };
        let (cn, ct) = clients.get(event).copied().unwrap_or((0.0, 0.0));
        if cn > 0.0 {
            fg.push(report::event(
                event,
                m.class.label(),
                Some(cn),
                Some(ct),
                db_time_s,
            ));
        }
        let (bn, bt) = ((n - cn).max(0.0), (t - ct).max(0.0));
        if bn > 0.0 {
            bg.push(report::event(
                event,
                m.class.label(),
                Some(bn),
                Some(bt),
                None,
            ));
        }
    }
    (report::by_time(fg), report::by_time(bg))
}

impl Snapper for MariaSnapper {
    fn snapshot(&mut self) -> Result<Snapshot, SnapError> {
        match self.snapshot_once() {
            Err(LoadError::Lost(_)) => {
                self.mon.reconnect()?;
                Ok(self.snapshot_once()?)
            }
            r => Ok(r?),
        }
    }

    fn start_interval(&mut self) -> Result<(), SnapError> {
        Ok(())
    }

    fn finish_interval(
        &mut self,
        begin: &Snapshot,
        planned_s: f64,
        partial: Option<&str>,
    ) -> Result<(Snapshot, AwrReport), SnapError> {
        let end = self.snapshot()?;
        let i = diff(begin, &end, self.mon.display_target()).map_err(SnapError::Failover)?;
        let mut r = self.build(&i, begin, &end, partial);
        if let Some(s) = r.snap.as_mut() {
            s.planned_s = planned_s;
        }
        Ok((end, r))
    }

    fn server_process(&mut self) -> Result<ServerProcess, SnapError> {
        // The connection's own thread, by its operating-system id: only
        // performance_schema names it.
        let rows = self.mon.query(
            "SELECT (SELECT THREAD_OS_ID FROM performance_schema.threads \
             WHERE PROCESSLIST_ID = CONNECTION_ID()), @@datadir, @@log_bin_basename",
        )?;
        let row = rows.into_iter().next().unwrap_or_default();
        let get = |i: usize| row.get(i).cloned().flatten();
        let dir = get(1).unwrap_or_default();
        let Some(tid) = get(0).and_then(|t| t.parse::<u32>().ok()) else {
            return Err(SnapError::Refused(
                "--watch finds MariaDB's process by its connection thread in \
                 performance_schema.threads, which shows none here (performance_schema is off, \
                 or this account may not read it: GRANT SELECT ON performance_schema.* TO ...)"
                    .to_string(),
            ));
        };
        let pid = layers::tgid_of(tid).filter(|&p| {
            layers::works_in(p, &dir)
                && layers::comm_of(p).is_some_and(|c| c == "mariadbd" || c == "mysqld")
        });
        let Some(pid) = pid else {
            return Err(SnapError::Refused(layers::not_here(
                SnapFamily::Mariadb,
                &format!("no mariadbd thread {tid} works in {dir} here"),
            )));
        };
        // A relative base name is the data directory's.
        let binlog_base = get(2).filter(|b| !b.is_empty()).map(|b| {
            if b.starts_with('/') {
                b
            } else {
                format!("{}/{b}", dir.trim_end_matches('/'))
            }
        });
        Ok(ServerProcess {
            pid,
            role: "mariadbd",
            logs: LogFiles {
                family: SnapFamily::Mariadb,
                binlog_base,
            },
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_mariadb_10_11_is_tested_and_the_rest_is_said() {
        for (version, num, mariadb) in [
            ("10.6.18-MariaDB", 100_618, true),
            ("11.4.2-MariaDB", 110_402, true),
            ("8.0.36", 80_036, false),
        ] {
            let note = untested(version, num, mariadb).expect(version);
            let family = if mariadb { "MariaDB" } else { "MySQL" };
            assert!(
                note.starts_with(&format!(
                    "{family} {version} is outside the versions dbio snap is tested with \
                     (MariaDB 10.11)"
                )),
                "{note}"
            );
        }
        for num in [101_100, 101_119, 101_199] {
            assert_eq!(untested("10.11", num, true), None, "{num}");
        }
        // MySQL numbered like a tested MariaDB is still MySQL.
        assert!(untested("10.11.0", 101_100, false).is_some());
    }

    #[test]
    fn the_account_is_quoted_as_a_grant_names_it() {
        assert_eq!(account("dbio@127.0.0.1"), "'dbio'@'127.0.0.1'");
        assert_eq!(account("a@b@localhost"), "'a@b'@'localhost'");
        assert_eq!(account("x"), "'x'");
    }
}
