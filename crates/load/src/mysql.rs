//! MariaDB and MySQL behind the [`Database`] interface (crate `mysql`,
//! pure-Rust features only).
//!
//! An InnoDB commit with the binary log on is a two-phase commit: the
//! redo log is flushed at prepare, then the binlog group is written and
//! synced (two fsyncs per group with `innodb_flush_log_at_trx_commit=1`
//! and `sync_binlog=1`). What the server counts about it is in
//! `SHOW GLOBAL STATUS` (`Innodb_data_fsyncs` now also counts redo
//! fsyncs, `Binlog_group_commits`, ...) and, for the binlog only, in
//! performance_schema's file timers. MariaDB has no timer for redo-log
//! writes any more (MDEV-27848 removed the instrument), so that part of
//! the commit is known only from the client side or from OS tracing;
//! [`ServerInfo::missing`] says so.
//!
//! Status counters are global: on a busy server the deltas include
//! other clients' work. The private test servers have no other clients,
//! which is how the tests can demand exact counts.

use crate::backend::{
    counter_delta, once_more_if_lost, Counter, Database, DbKind, FlushPath, LoadError, ServerInfo,
    Session, TableSpec, WaitSample,
};
use crate::settings::{SavedSetting, Scope};
use crate::target::{home_dir, ServerSpec};
use mysql::prelude::Queryable;
use mysql::{Conn, Opts, OptsBuilder, SslOpts, Statement};
use std::sync::Mutex;
use std::time::Duration;

/// The status counters read before and after a run (MariaDB's names;
/// the ones a server lacks are left out).
const STATUS: &[(&str, &str)] = &[
    ("Com_commit", "count"),
    ("Com_insert", "count"),
    ("Handler_commit", "count"),
    ("Handler_prepare", "count"),
    ("Innodb_data_fsyncs", "count"),
    ("Innodb_os_log_written", "bytes"),
    ("Innodb_log_writes", "count"),
    ("Innodb_log_waits", "count"),
    ("Innodb_lsn_current", "bytes"),
    ("Innodb_lsn_flushed", "bytes"),
    ("Binlog_commits", "count"),
    ("Binlog_group_commits", "count"),
    ("Binlog_group_commit_trigger_count", "count"),
    ("Binlog_group_commit_trigger_timeout", "count"),
    ("Binlog_group_commit_trigger_lock_wait", "count"),
    ("Binlog_bytes_written", "bytes"),
];

/// The settings that decide how a commit reaches storage.
const SETTINGS: &[&str] = &[
    "innodb_flush_log_at_trx_commit",
    "sync_binlog",
    "log_bin",
    "innodb_flush_method",
    "innodb_log_file_buffering",
    "innodb_log_file_write_through",
    "binlog_commit_wait_count",
    "binlog_commit_wait_usec",
    "innodb_log_file_size",
    "innodb_log_buffer_size",
    "performance_schema",
    "version_comment",
];

/// performance_schema's binlog file instrument: syncs land in its
/// `MISC` columns (picoseconds).
const PFS_BINLOG: &str = "wait/io/file/sql/binlog";

#[derive(Clone)]
struct Target {
    opts: Opts,
    shown: String,
    note: Option<String>,
}

impl Target {
    fn parse(spec: &ServerSpec) -> Result<Target, LoadError> {
        let raw = spec.raw().trim();
        let rest = raw.split_once("://").map(|(_, r)| r).unwrap_or(raw);
        let url = url::Url::parse(&format!("mysql://{rest}"))
            .map_err(|e| LoadError::Refused(format!("cannot read the MySQL target {spec}: {e}")))?;
        let decode = |s: &str| {
            percent_encoding::percent_decode_str(s)
                .decode_utf8_lossy()
                .into_owned()
        };
        let host = url.host_str().unwrap_or("localhost").to_string();
        let host = host
            .trim_start_matches('[')
            .trim_end_matches(']')
            .to_string();
        let port = url.port().unwrap_or(3306);
        let user = match url.username() {
            "" => std::env::var("USER").ok(),
            u => Some(decode(u)),
        };
        let db = Some(decode(url.path().trim_start_matches('/'))).filter(|d| !d.is_empty());
        let mut note = None;
        let pass = match url.password() {
            Some(p) => Some(decode(p)),
            None => match std::env::var("MYSQL_PWD").ok().filter(|p| !p.is_empty()) {
                Some(p) => Some(p),
                None => match my_cnf_password() {
                    Ok(p) => p,
                    Err(why) => {
                        note = Some(why);
                        None
                    }
                },
            },
        };
        let mut b = OptsBuilder::new()
            .ip_or_hostname(Some(host.clone()))
            .tcp_port(port)
            .user(user.clone())
            .pass(pass)
            .db_name(db.clone())
            .prefer_socket(false)
            .tcp_connect_timeout(Some(Duration::from_secs(10)))
            // So that a DBA sees dbio's sessions for what they are
            // (performance_schema.session_connect_attrs).
            .connect_attrs(Some(std::collections::HashMap::from([(
                "program_name",
                "dbio",
            )])));
        let mut tls = false;
        let mut socket = None;
        for (k, v) in url.query_pairs() {
            match k.to_ascii_lowercase().replace('_', "-").as_str() {
                "ssl-mode" | "sslmode" => match v.to_ascii_uppercase().replace('-', "_").as_str() {
                    "DISABLED" | "PREFERRED" => {}
                    "REQUIRED" => tls = true,
                    "VERIFY_CA" | "VERIFY_IDENTITY" => {
                        return Err(LoadError::Refused(format!(
                            "cannot connect to {spec}: dbio does not check server certificates \
                             yet (ssl-mode={v}); use ssl-mode=REQUIRED for an encrypted \
                             connection without the check"
                        )))
                    }
                    _ => {
                        return Err(LoadError::Refused(format!(
                            "cannot read the MySQL target {spec}: ssl-mode must be DISABLED, \
                             PREFERRED or REQUIRED"
                        )))
                    }
                },
                "socket" => socket = Some(v.into_owned()),
                other => {
                    return Err(LoadError::Refused(format!(
                        "cannot read the MySQL target {spec}: unknown parameter '{other}' \
                         (dbio knows ssl-mode and socket)"
                    )))
                }
            }
        }
        if let Some(s) = &socket {
            b = b.socket(Some(s.clone())).prefer_socket(true);
        }
        if tls {
            // MySQL's REQUIRED: encrypted, the certificate not checked.
            b = b.ssl_opts(Some(
                SslOpts::default()
                    .with_danger_accept_invalid_certs(true)
                    .with_danger_skip_domain_validation(true),
            ));
        }
        let at = user.map(|u| format!("{u}@")).unwrap_or_default();
        let mut params = Vec::new();
        if let Some(s) = socket {
            params.push(format!("socket={s}"));
        }
        if tls {
            params.push("ssl-mode=REQUIRED".to_string());
        }
        let query = if params.is_empty() {
            String::new()
        } else {
            format!("?{}", params.join("&"))
        };
        let host = if host.contains(':') {
            format!("[{host}]")
        } else {
            host
        };
        let shown = format!(
            "mysql://{at}{host}:{port}/{}{query}",
            db.unwrap_or_default()
        );
        Ok(Target {
            opts: b.into(),
            shown,
            note,
        })
    }

    fn connect(&self) -> Result<Conn, LoadError> {
        Conn::new(self.opts.clone()).map_err(|e| {
            let mut message = my_message(&e);
            if let Some(note) = &self.note {
                message = format!("{message} ({note})");
            }
            LoadError::Connect {
                target: self.shown.clone(),
                message,
            }
        })
    }
}

/// The password in `~/.my.cnf`'s `[client]` (or `[mysql]`) group, as the
/// mysql client reads it; a world-writable file is ignored, as the
/// client ignores it (MariaDB documentation, "Configuring MariaDB with
/// Option Files").
fn my_cnf_password() -> Result<Option<String>, String> {
    use std::os::unix::fs::PermissionsExt;
    let Some(path) = home_dir().map(|h| h.join(".my.cnf")) else {
        return Ok(None);
    };
    let Ok(meta) = std::fs::metadata(&path) else {
        return Ok(None);
    };
    if !meta.is_file() || meta.permissions().mode() & 0o002 != 0 {
        return Err(format!(
            "{} was ignored: it is world-writable or not a regular file",
            path.display()
        ));
    }
    let text = std::fs::read_to_string(&path).unwrap_or_default();
    Ok(my_cnf_match(&text))
}

fn my_cnf_match(text: &str) -> Option<String> {
    let mut in_client = false;
    let mut found = None;
    for line in text.lines() {
        let line = line.trim();
        if line.starts_with('[') {
            let group = line.trim_matches(['[', ']']).trim();
            in_client = group == "client" || group == "mysql" || group == "client-mariadb";
        } else if in_client {
            if let Some((k, v)) = line.split_once('=') {
                if k.trim().replace('_', "-") == "password" {
                    let v = v.trim();
                    let v = v
                        .strip_prefix('"')
                        .and_then(|v| v.strip_suffix('"'))
                        .or_else(|| v.strip_prefix('\'').and_then(|v| v.strip_suffix('\'')))
                        .unwrap_or(v);
                    // A later line overrides an earlier one.
                    found = Some(v.to_string());
                }
            }
        }
    }
    found
}

/// One sentence for a client error: the server's message, or the I/O or
/// driver error.
fn my_message(e: &mysql::Error) -> String {
    match e {
        mysql::Error::MySqlError(m) => m.message.clone(),
        mysql::Error::IoError(io) => io.to_string(),
        mysql::Error::DriverError(d) => d.to_string(),
        other => crate::target::chain(other),
    }
}

/// A lost connection (I/O, the driver, the server shutting down or
/// killing the connection) or a failed statement.
fn my_err(e: mysql::Error) -> LoadError {
    let lost = match &e {
        mysql::Error::MySqlError(m) => matches!(m.code, 1053 | 1927 | 2006 | 2013 | 1317),
        mysql::Error::IoError(_) | mysql::Error::DriverError(_) | mysql::Error::CodecError(_) => {
            true
        }
        _ => false,
    };
    if lost {
        LoadError::Lost(my_message(&e))
    } else {
        LoadError::Sql(my_message(&e))
    }
}

/// The table name checked (dbio's prefix, `[a-z0-9_]`, at most 64
/// bytes) and quoted.
fn checked_name(table: &TableSpec) -> Result<String, LoadError> {
    let n = &table.name;
    let ok = n.starts_with(TableSpec::PREFIX)
        && n.len() <= 64
        && n.bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_');
    if ok {
        Ok(format!("`{n}`"))
    } else {
        Err(LoadError::Refused(format!(
            "'{n}' is not a table name dbio makes (it starts with {} and has only \
             lower-case letters, digits and '_')",
            TableSpec::PREFIX
        )))
    }
}

/// A SQL string literal (backslashes and quotes escaped, for either
/// setting of NO_BACKSLASH_ESCAPES only the quote doubling matters for
/// dbio's own marks, which hold no backslash).
fn literal(s: &str) -> String {
    format!("'{}'", s.replace('\\', "\\\\").replace('\'', "''"))
}

/// A MariaDB or MySQL server: the monitoring connection and what it
/// learnt when it connected.
pub struct Mysql {
    target: Target,
    /// In a mutex only because [`Database`] is `Sync`; every use has
    /// `&mut self`.
    conn: Mutex<Conn>,
    version: String,
    version_num: u32,
    mariadb: bool,
    /// performance_schema times the binlog file instrument.
    pfs_binlog: bool,
    /// The binary log is on: a commit is a two-phase commit between it
    /// and InnoDB.
    log_bin: bool,
}

impl Mysql {
    /// Parses `spec`, connects the monitoring connection and reads the
    /// server's version and what performance_schema offers.
    pub fn open(spec: &ServerSpec) -> Result<Mysql, LoadError> {
        let target = Target::parse(spec)?;
        let mut conn = target.connect()?;
        let (version, comment): (String, String) = conn
            .query_first("SELECT VERSION(), @@version_comment")
            .map_err(my_err)?
            .unwrap_or_default();
        let pfs_binlog = conn
            .query_first::<(String, String), _>(format!(
                "SELECT ENABLED, TIMED FROM performance_schema.setup_instruments \
                 WHERE NAME = {}",
                literal(PFS_BINLOG)
            ))
            .ok()
            .flatten()
            .is_some_and(|(e, t)| e == "YES" && t == "YES")
            && conn
                .query_first::<i64, _>("SELECT @@performance_schema")
                .ok()
                .flatten()
                == Some(1);
        let mariadb = version.contains("MariaDB") || comment.contains("MariaDB");
        let log_bin = conn
            .query_first::<i64, _>("SELECT @@log_bin")
            .map_err(my_err)?
            == Some(1);
        Ok(Mysql {
            log_bin,
            version_num: version_num(&version),
            version,
            mariadb,
            pfs_binlog,
            target,
            conn: Mutex::new(conn),
        })
    }

    fn conn(&mut self) -> &mut Conn {
        self.conn
            .get_mut()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// The table's comment, `None` when there is no such table in the
    /// current database.
    fn table_comment(&mut self, name: &str) -> Result<Option<String>, LoadError> {
        self.conn()
            .query_first::<String, _>(format!(
                "SELECT TABLE_COMMENT FROM information_schema.TABLES \
                 WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = {}",
                literal(name)
            ))
            .map_err(my_err)
    }
}

/// major × 10000 + minor × 100 + patch from `10.11.19-MariaDB-...`.
fn version_num(v: &str) -> u32 {
    let mut parts = v
        .split(|c: char| !c.is_ascii_digit())
        .take(3)
        .map(|p| p.parse::<u32>().unwrap_or(0));
    let (a, b, c) = (
        parts.next().unwrap_or(0),
        parts.next().unwrap_or(0),
        parts.next().unwrap_or(0),
    );
    a * 10_000 + b * 100 + c
}

impl Database for Mysql {
    fn kind(&self) -> DbKind {
        DbKind::Mysql
    }

    fn display_target(&self) -> String {
        self.target.shown.clone()
    }

    fn describe(&mut self) -> Result<ServerInfo, LoadError> {
        let list = SETTINGS
            .iter()
            .map(|s| literal(s))
            .collect::<Vec<_>>()
            .join(",");
        let mut settings: Vec<(String, String)> = self
            .conn()
            .query(format!(
                "SHOW GLOBAL VARIABLES WHERE Variable_name IN ({list})"
            ))
            .map_err(my_err)?;
        settings.sort_by_key(|(n, _)| SETTINGS.iter().position(|s| s == n));
        let mut missing = Vec::new();
        if self.mariadb {
            missing.push(
                "MariaDB keeps no server-side timer for InnoDB redo-log writes (the \
                 performance_schema instrument was removed, MDEV-27848): redo flush latency \
                 is known only from the client side or from OS tracing"
                    .to_string(),
            );
        }
        let log_bin = settings
            .iter()
            .any(|(n, v)| n == "log_bin" && v.eq_ignore_ascii_case("ON"));
        if log_bin && !self.pfs_binlog {
            missing.push(format!(
                "performance_schema is off or does not time {PFS_BINLOG}: binlog sync times \
                 are not available"
            ));
        }
        Ok(ServerInfo {
            version: self.version.clone(),
            version_num: self.version_num,
            settings,
            missing,
        })
    }

    fn log_location(&mut self) -> Option<crate::predict::LogLocation> {
        let (home, data, pid_file) = self
            .conn()
            .query_first::<(Option<String>, String, Option<String>), _>(
                "SELECT @@innodb_log_group_home_dir, @@datadir, @@pid_file",
            )
            .ok()
            .flatten()?;
        let data_dir = std::path::PathBuf::from(data);
        // A relative home (the default "./") is relative to the datadir.
        let dir = match home.filter(|h| !h.is_empty()) {
            Some(h) => data_dir
                .join(h)
                .components()
                .filter(|c| !matches!(c, std::path::Component::CurDir))
                .collect(),
            None => data_dir.clone(),
        };
        // The pid file is readable here only when the server runs here.
        let pid = pid_file
            .map(|p| data_dir.join(p))
            .and_then(|p| std::fs::read_to_string(p).ok())
            .and_then(|t| t.trim().parse().ok());
        Some(crate::predict::LogLocation {
            dir,
            what: "InnoDB's redo log directory (innodb_log_group_home_dir)".into(),
            data_dir,
            pid,
        })
    }

    fn create_table(&mut self, table: &TableSpec) -> Result<(), LoadError> {
        let q = checked_name(table)?;
        let pad = if table.row_bytes <= 16_000 {
            format!("VARBINARY({})", table.row_bytes.max(1))
        } else {
            "LONGBLOB".to_string()
        };
        // One statement: the table never exists without its mark.
        let sql = format!(
            "CREATE TABLE {q} (id BIGINT NOT NULL PRIMARY KEY, pad {pad} NOT NULL) \
             ENGINE=InnoDB COMMENT={}",
            literal(&table.mark)
        );
        match self.conn().query_drop(sql) {
            Ok(()) => Ok(()),
            Err(mysql::Error::MySqlError(m)) if m.code == 1050 => Err(LoadError::Refused(format!(
                "a table named {} already exists: dbio makes a new table for every run \
                     and leaves existing ones alone",
                table.name
            ))),
            Err(e) => Err(my_err(e)),
        }
    }

    fn drop_table(&mut self, table: &TableSpec) -> Result<(), LoadError> {
        once_more_if_lost(self, Self::reconnect, |db| db.drop_once(table))
    }

    fn connect(&self, table: &TableSpec) -> Result<Box<dyn Session>, LoadError> {
        self.connect_session(table)
    }

    fn save_setting(
        &mut self,
        name: &str,
        scope: Scope,
        _values: &[String],
    ) -> Result<SavedSetting, LoadError> {
        // Every setting dbio compares here is global-only (MariaDB 10.11).
        if scope != Scope::Server {
            return Err(LoadError::Refused(format!(
                "{name} has no session form on MariaDB"
            )));
        }
        let value: Option<String> = self
            .conn()
            .query_first(format!("SELECT @@GLOBAL.{name}"))
            .map_err(my_err)?;
        let value = value.unwrap_or_default();
        // Setting it to itself changes nothing and proves the privilege
        // (SUPER or SYSTEM_VARIABLES_ADMIN) before anything is changed.
        self.conn()
            .query_drop(format!("SET GLOBAL {name} = @@GLOBAL.{name}"))
            .map_err(|e| {
                LoadError::Refused(format!(
                    "{name} can be changed only server-wide (SET GLOBAL) and this user may \
                     not: {}",
                    my_err(e)
                ))
            })?;
        Ok(SavedSetting {
            name: name.to_string(),
            restore: format!("SET GLOBAL {name} = {value}"),
            value,
            scope,
        })
    }

    fn change_setting(&mut self, name: &str, value: &str, _scope: Scope) -> Result<(), LoadError> {
        let sql = format!("SET GLOBAL {name} = {value}");
        once_more_if_lost(self, Self::reconnect, |db| {
            db.conn().query_drop(&sql).map_err(my_err)
        })
    }

    fn restore_setting(&mut self, saved: &SavedSetting) -> Result<(), LoadError> {
        once_more_if_lost(self, Self::reconnect, |db| {
            db.conn().query_drop(&saved.restore).map_err(my_err)
        })
    }

    fn counters(&mut self) -> Result<Vec<Counter>, LoadError> {
        once_more_if_lost(self, Self::reconnect, Self::counters_once)
    }

    fn flush_path(&self, before: &[Counter], after: &[Counter]) -> FlushPath {
        let d = |n: &str| counter_delta(before, after, n);
        let mut extra = Vec::new();
        for (name, unit) in [
            ("Binlog_commits", "count"),
            ("Binlog_group_commits", "count"),
            ("Binlog_group_commit_trigger_count", "count"),
            ("Binlog_group_commit_trigger_timeout", "count"),
            ("Binlog_group_commit_trigger_lock_wait", "count"),
            ("Binlog_bytes_written", "bytes"),
            ("Com_commit", "count"),
            ("Com_insert", "count"),
            ("Handler_commit", "count"),
            ("Handler_prepare", "count"),
            ("Innodb_log_writes", "count"),
            ("Innodb_log_waits", "count"),
            ("Innodb_lsn_current", "bytes"),
            // Binlog syncs are the instrument's MISC operations.
            ("performance_schema.binlog.COUNT_MISC", "count"),
            ("performance_schema.binlog.SUM_TIMER_MISC", "ps"),
            ("performance_schema.binlog.SUM_TIMER_WRITE", "ps"),
        ] {
            if let Some(value) = d(name) {
                extra.push(Counter {
                    name: name.into(),
                    value,
                    unit,
                });
            }
        }
        FlushPath {
            // InnoDB's redo and data fsyncs together: MariaDB 10.11 counts
            // redo fsyncs here (Innodb_os_log_fsyncs is gone). The binlog's
            // sync per group is not InnoDB's: it is in `extra`
            // (performance_schema's COUNT_MISC).
            flushes: d("Innodb_data_fsyncs").map(|x| x as u64),
            // The binlog's sync time: the one commit-path flush the
            // server times (ps → ns).
            flush_time_ns: d("performance_schema.binlog.SUM_TIMER_MISC")
                .map(|ps| (ps / 1000.0).round() as u64),
            bytes: d("Innodb_os_log_written").map(|b| b as u64),
            // With the binlog on, Handler_commit counts each commit once
            // per participant (binlog and InnoDB) and reads of InnoDB
            // tables as well; Binlog_commits counts each transaction once.
            server_commits: if self.log_bin {
                d("Binlog_commits")
            } else {
                d("Handler_commit")
            }
            .map(|c| c as u64),
            extra,
        }
    }

    fn sample_waits(&mut self) -> Result<Vec<WaitSample>, LoadError> {
        // Not sampled: MariaDB's commit-path waits have no instrument that
        // separates the redo flush (see the module doc).
        Ok(Vec::new())
    }
}

impl Mysql {
    /// A new monitoring connection in place of a lost one: the run's
    /// table must still be dropped and its last counters read.
    fn reconnect(&mut self) -> Result<(), LoadError> {
        let conn = self.target.connect()?;
        *self.conn() = conn;
        Ok(())
    }

    fn drop_once(&mut self, table: &TableSpec) -> Result<(), LoadError> {
        let q = checked_name(table)?;
        if self.table_comment(&table.name)?.is_none() {
            return Ok(());
        }
        // Locked, then checked: the mark checked is the mark of the
        // table dropped (DROP TABLE is allowed on a table locked WRITE).
        self.conn()
            .query_drop(format!("LOCK TABLES {q} WRITE"))
            .map_err(my_err)?;
        let result = match self.table_comment(&table.name) {
            Ok(Some(c)) if c == table.mark => self
                .conn()
                .query_drop(format!("DROP TABLE {q}"))
                .map_err(my_err),
            Ok(None) => Ok(()),
            Ok(Some(_)) => Err(LoadError::Refused(format!(
                "table {} does not carry this run's dbio mark: dbio did not create it and \
                 leaves it alone",
                table.name
            ))),
            Err(e) => Err(e),
        };
        let unlock = self.conn().query_drop("UNLOCK TABLES").map_err(my_err);
        result.and(unlock)
    }

    fn connect_session(&self, table: &TableSpec) -> Result<Box<dyn Session>, LoadError> {
        let q = checked_name(table)?;
        let mut conn = self.target.connect()?;
        let comment: Option<String> = conn
            .query_first(format!(
                "SELECT TABLE_COMMENT FROM information_schema.TABLES \
                 WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = {}",
                literal(&table.name)
            ))
            .map_err(my_err)?;
        if comment.as_deref() != Some(table.mark.as_str()) {
            return Err(LoadError::Refused(format!(
                "table {} is missing or does not carry this run's dbio mark: dbio writes only \
                 to the table it created",
                table.name
            )));
        }
        // The connection's OS thread, for CPU accounting (MariaDB runs a
        // connection on a thread of the one server process).
        let pid = if self.pfs_binlog {
            conn.query_first::<Option<u64>, _>(
                "SELECT THREAD_OS_ID FROM performance_schema.threads \
                 WHERE PROCESSLIST_ID = CONNECTION_ID()",
            )
            .ok()
            .flatten()
            .flatten()
            .and_then(|p| u32::try_from(p).ok())
        } else {
            None
        };
        let insert = conn
            .prep(format!("INSERT INTO {q} (id, pad) VALUES (?, ?)"))
            .map_err(my_err)?;
        Ok(Box::new(MySession {
            conn,
            insert,
            pad: vec![b'x'; table.row_bytes as usize],
            pid,
        }))
    }

    fn counters_once(&mut self) -> Result<Vec<Counter>, LoadError> {
        let list = STATUS
            .iter()
            .map(|(n, _)| literal(n))
            .collect::<Vec<_>>()
            .join(",");
        let rows: Vec<(String, String)> = self
            .conn()
            .query(format!(
                "SHOW GLOBAL STATUS WHERE Variable_name IN ({list})"
            ))
            .map_err(my_err)?;
        let mut out = Vec::new();
        for (name, unit) in STATUS {
            if let Some((_, v)) = rows.iter().find(|(n, _)| n.eq_ignore_ascii_case(name)) {
                if let Ok(value) = v.parse() {
                    out.push(Counter {
                        name: (*name).to_string(),
                        value,
                        unit,
                    });
                }
            }
        }
        if self.pfs_binlog {
            let row: Option<(u64, u64, u64, u64, u64)> = self
                .conn()
                .query_first(format!(
                    "SELECT COUNT_MISC, SUM_TIMER_MISC, COUNT_WRITE, SUM_TIMER_WRITE, \
                     SUM_NUMBER_OF_BYTES_WRITE FROM performance_schema.file_summary_by_event_name \
                     WHERE EVENT_NAME = {}",
                    literal(PFS_BINLOG)
                ))
                .map_err(my_err)?;
            if let Some((cm, tm, cw, tw, bw)) = row {
                for (name, value, unit) in [
                    ("performance_schema.binlog.COUNT_MISC", cm, "count"),
                    ("performance_schema.binlog.SUM_TIMER_MISC", tm, "ps"),
                    ("performance_schema.binlog.COUNT_WRITE", cw, "count"),
                    ("performance_schema.binlog.SUM_TIMER_WRITE", tw, "ps"),
                    (
                        "performance_schema.binlog.SUM_NUMBER_OF_BYTES_WRITE",
                        bw,
                        "bytes",
                    ),
                ] {
                    out.push(Counter {
                        name: name.into(),
                        value: value as f64,
                        unit,
                    });
                }
            }
        }
        Ok(out)
    }
}

/// Rows of text as a monitoring query returns them (NULL is `None`).
pub type TextRows = Vec<Vec<Option<String>>>;

/// A read-only monitoring connection to a MariaDB or MySQL server, for
/// callers that read its statistics and change nothing (`dbio snap`):
/// the same target grammar, password sources, TLS and sockets as the
/// load. [`Monitor::query`] sends only `SELECT` and `SHOW` statements
/// (no `SET` either: the session keeps the server's defaults).
pub struct Monitor {
    target: Target,
    conn: Conn,
    version: String,
    version_num: u32,
    mariadb: bool,
}

/// Whether `sql` is one statement dbio's MariaDB monitor may send: it
/// starts with `SELECT` or `SHOW` and holds no `;` outside a string
/// literal.
pub fn is_read_only(sql: &str) -> bool {
    crate::target::one_statement_starting_with(sql, &["SELECT", "SHOW"])
}

/// A value of the text protocol as text (NULL is `None`).
fn text_of(v: mysql::Value) -> Option<String> {
    use mysql::Value;
    match v {
        Value::NULL => None,
        Value::Bytes(b) => Some(String::from_utf8_lossy(&b).into_owned()),
        Value::Int(i) => Some(i.to_string()),
        Value::UInt(u) => Some(u.to_string()),
        Value::Float(f) => Some(f.to_string()),
        Value::Double(d) => Some(d.to_string()),
        other => Some(other.as_sql(true).trim_matches('\'').to_string()),
    }
}

impl Monitor {
    /// Connects to `spec` and reads the server's version. Fails with one
    /// sentence that never holds the password.
    pub fn open(spec: &ServerSpec) -> Result<Monitor, LoadError> {
        Monitor::connect(Target::parse(spec)?)
    }

    fn connect(target: Target) -> Result<Monitor, LoadError> {
        let mut conn = target.connect()?;
        let (version, comment): (String, String) = conn
            .query_first("SELECT VERSION(), @@version_comment")
            .map_err(my_err)?
            .unwrap_or_default();
        Ok(Monitor {
            version_num: version_num(&version),
            mariadb: version.contains("MariaDB") || comment.contains("MariaDB"),
            version,
            target,
            conn,
        })
    }

    /// A second connection to the same server.
    pub fn another(&self) -> Result<Monitor, LoadError> {
        Monitor::connect(self.target.clone())
    }

    /// Connects again in place of a lost connection.
    pub fn reconnect(&mut self) -> Result<(), LoadError> {
        *self = Monitor::connect(self.target.clone())?;
        Ok(())
    }

    /// The target as shown: never with its password.
    pub fn display_target(&self) -> &str {
        &self.target.shown
    }

    /// The server's version as it reports it (`10.11.19-MariaDB-...`).
    pub fn version(&self) -> &str {
        &self.version
    }

    /// major × 10000 + minor × 100 + patch.
    pub fn version_num(&self) -> u32 {
        self.version_num
    }

    /// MariaDB rather than MySQL.
    pub fn is_mariadb(&self) -> bool {
        self.mariadb
    }

    /// Rows of one `SELECT` or `SHOW` as text (NULL is `None`); anything
    /// else is refused before it is sent ([`is_read_only`]).
    pub fn query(&mut self, sql: &str) -> Result<Vec<Vec<Option<String>>>, LoadError> {
        self.query_code(sql)?.map_err(|(_, m)| LoadError::Sql(m))
    }

    /// Like [`Monitor::query`], but a statement the server refused comes
    /// back as its error code and message (1142: a table this user may
    /// not read; 1227: a missing privilege; 1146: no such table), not as
    /// an error; a lost connection is still an error.
    pub fn query_code(&mut self, sql: &str) -> Result<Result<TextRows, (u16, String)>, LoadError> {
        if !is_read_only(sql) {
            return Err(LoadError::Refused(format!(
                "dbio's monitoring connection sends only single SELECT and SHOW statements; \
                 refused: {}",
                sql.split_whitespace().take(4).collect::<Vec<_>>().join(" ")
            )));
        }
        match self.conn.query::<mysql::Row, _>(sql) {
            Ok(rows) => Ok(Ok(rows
                .into_iter()
                .map(|r| r.unwrap().into_iter().map(text_of).collect())
                .collect())),
            Err(mysql::Error::MySqlError(m))
                if !matches!(m.code, 1053 | 1927 | 2006 | 2013 | 1317) =>
            {
                Ok(Err((m.code, m.message)))
            }
            Err(e) => Err(my_err(e)),
        }
    }
}

/// One session: its connection, its prepared insert and its payload.
struct MySession {
    conn: Conn,
    insert: Statement,
    pad: Vec<u8>,
    pid: Option<u32>,
}

impl Session for MySession {
    fn insert_autocommit(&mut self, id: u64) -> Result<(), LoadError> {
        self.insert(id)
    }

    fn begin(&mut self) -> Result<(), LoadError> {
        self.conn.query_drop("BEGIN").map_err(my_err)
    }

    fn insert(&mut self, id: u64) -> Result<(), LoadError> {
        self.conn
            .exec_drop(&self.insert, (id, self.pad.as_slice()))
            .map_err(my_err)
    }

    fn commit(&mut self) -> Result<(), LoadError> {
        self.conn.query_drop("COMMIT").map_err(my_err)
    }

    fn backend_pid(&self) -> Option<u32> {
        self.pid
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn version_numbers_as_the_gates_need_them() {
        assert_eq!(version_num("10.11.19-MariaDB-0+deb12u1-log"), 101_119);
        assert_eq!(version_num("8.0.36"), 80_036);
        assert_eq!(version_num(""), 0);
    }

    #[test]
    fn my_cnf_password_from_the_client_group() {
        let text = "[mysqld]\npassword=server\n[client]\nuser=u\npassword = \"p w\"\n";
        assert_eq!(my_cnf_match(text).as_deref(), Some("p w"));
        assert_eq!(my_cnf_match("[mysqld]\npassword=x\n"), None);
    }

    #[test]
    fn the_display_form_has_no_password() {
        let spec = ServerSpec::parse("mariadb://dbio:s3cret@127.0.0.1:3399/dbio?ssl-mode=REQUIRED")
            .unwrap();
        let t = Target::parse(&spec).unwrap();
        assert_eq!(
            t.shown,
            "mysql://dbio@127.0.0.1:3399/dbio?ssl-mode=REQUIRED"
        );
        let bad = ServerSpec::parse("mysql://u:s3cret@h/db?ssl-mode=VERIFY_CA").unwrap();
        let err = Target::parse(&bad).err().unwrap().to_string();
        assert!(err.contains("does not check server certificates"), "{err}");
        assert!(!err.contains("s3cret"), "{err}");
    }
}
