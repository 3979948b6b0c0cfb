//! PostgreSQL behind the [`Database`] interface (crate `postgres`, the
//! synchronous client).
//!
//! A PostgreSQL commit is flushed by the committing backend itself: the
//! first backend to take `WALWriteLock` flushes for everyone queued
//! behind it, and the counters that show it are `pg_stat_wal` (PG14–17;
//! `pg_stat_io`'s WAL rows from PG18) and the wait events of the client
//! backends in `pg_stat_activity`. This module reads them with version
//! gates chosen by `server_version_num`, never by guessing from errors.
//!
//! Exact commit counts. `pg_stat_database.xact_commit` counts every
//! transaction in the database, including dbio's own: each connection's
//! start-up, each monitoring statement, each session's setup. To compare
//! the server's count with the load loop's, every statement dbio runs
//! outside the timed inserts is counted in `dbio.own_xact_commit`, and
//! (PG15+) each connection forces its pending statistics out with
//! `pg_stat_force_next_flush()` before the numbers are read, so
//! `Δxact_commit − Δdbio.own_xact_commit` is the load's commits plus
//! whatever else ran in the database (a sampler connection of its own
//! included). Before PG15 the statistics collector reports
//! asynchronously and the difference is only close.
//!
//! Monitoring statements use the simple query protocol, one transaction
//! per call, so the count is exact; the sessions' inserts, `BEGIN` and
//! `COMMIT` are prepared once per session (as `pgbench -M prepared`) on a
//! connection of dbio's own (`pgwire.rs`: the `postgres` crate's
//! runtime cost more client CPU per commit than pgbench spends).

use crate::backend::{
    counter_delta, once_more_if_lost, Counter, Database, DbKind, FlushPath, LoadError, ServerInfo,
    Session, TableSpec, WaitSample,
};
use crate::pgwire::{Prepared, Wire, INT8, TEXT};
use crate::settings::{SavedSetting, Scope};
use crate::target::{chain, home_dir, password_file_unsafe, ServerSpec};
use postgres::config::Host;
use postgres::{Client, Config, NoTls, SimpleQueryMessage, Statement};
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

/// `application_name` of the sessions under load: the wait sampler
/// picks client backends by it.
const SESSION_APP: &str = "dbio load";
/// `application_name` of the monitoring connection.
const MONITOR_APP: &str = "dbio load monitor";

/// The settings that decide how a commit reaches storage (the list in
/// the PostgreSQL WAL configuration chapter that bears on commits), in
/// the order they are shown.
const SETTINGS: &[&str] = &[
    "wal_sync_method",
    "synchronous_commit",
    "synchronous_standby_names",
    "commit_delay",
    "commit_siblings",
    "fsync",
    "full_page_writes",
    "wal_level",
    "wal_compression",
    "wal_buffers",
    "wal_writer_delay",
    "wal_writer_flush_after",
    "track_wal_io_timing",
    "server_version_num",
];

/// How to reach the server: the parsed target, its TLS and its display.
#[derive(Clone)]
struct Target {
    config: Config,
    tls: Option<tokio_postgres_rustls::MakeRustlsConnect>,
    /// The same TLS configuration, for the sessions' connections.
    tls_config: Option<Arc<rustls::ClientConfig>>,
    shown: String,
    /// A sentence added to connection errors (a password file ignored).
    note: Option<String>,
}

impl Target {
    fn parse(spec: &ServerSpec) -> Result<Target, LoadError> {
        let raw = spec.raw();
        let lower = raw.to_ascii_lowercase();
        if lower.contains("sslmode=verify-") || lower.contains("sslmode = verify-") {
            return Err(LoadError::Refused(format!(
                "cannot connect to {spec}: dbio does not check server certificates yet \
                 (sslmode=verify-ca or verify-full); use sslmode=require for an encrypted \
                 connection without the check"
            )));
        }
        let mut config: Config = raw.parse().map_err(|e: postgres::Error| {
            LoadError::Refused(format!(
                "cannot read the PostgreSQL target {spec}: {}",
                chain(&e)
            ))
        })?;
        // libpq's environment defaults, which the crate does not read.
        let env = |k: &str| std::env::var(k).ok().filter(|v| !v.is_empty());
        if config.get_hosts().is_empty() {
            match env("PGHOST") {
                Some(h) if h.starts_with('/') => config.host_path(h),
                Some(h) => config.host(&h),
                None if Path::new("/var/run/postgresql").is_dir() => {
                    config.host_path("/var/run/postgresql")
                }
                None => config.host("localhost"),
            };
        }
        if config.get_ports().is_empty() {
            if let Some(p) = env("PGPORT").and_then(|p| p.parse().ok()) {
                config.port(p);
            }
        }
        if config.get_user().is_none() {
            if let Some(u) = env("PGUSER")
                .or_else(|| env("USER"))
                .or_else(|| env("LOGNAME"))
            {
                config.user(&u);
            }
        }
        if config.get_dbname().is_none() {
            if let Some(d) = env("PGDATABASE") {
                config.dbname(&d);
            }
        }
        if config.get_connect_timeout().is_none() {
            config.connect_timeout(Duration::from_secs(10));
        }
        let mut note = None;
        if config.get_password().is_none() {
            if let Some(pw) = std::env::var_os("PGPASSWORD").filter(|p| !p.is_empty()) {
                config.password(std::os::unix::ffi::OsStrExt::as_bytes(pw.as_os_str()));
            } else {
                match pgpass_password(&config) {
                    Ok(Some(pw)) => {
                        config.password(pw);
                    }
                    Ok(None) => {}
                    Err(why) => note = Some(why),
                }
            }
        }
        let tls_config = match config.get_ssl_mode() {
            postgres::config::SslMode::Disable => None,
            _ => Some(Arc::new(unverified_client_config()?)),
        };
        let tls = tls_config
            .as_ref()
            .map(|c| tokio_postgres_rustls::MakeRustlsConnect::new((**c).clone()));
        let shown = display(&config);
        Ok(Target {
            config,
            tls,
            tls_config,
            shown,
            note,
        })
    }

    fn connect(&self, app: &str) -> Result<Client, LoadError> {
        self.connect_with(app, &[])
    }

    /// A connection with `settings` given as start-up options (`-c
    /// name=value`): they hold for this session alone. Names and values
    /// are checked by [`crate::settings`] (words, digits and units only).
    fn connect_with(&self, app: &str, settings: &[(String, String)]) -> Result<Client, LoadError> {
        let mut config = self.config.clone();
        config.application_name(app);
        if let Some(options) = self.options(settings) {
            config.options(&options);
        }
        let r = match &self.tls {
            None => config.connect(NoTls),
            Some(tls) => config.connect(tls.clone()),
        };
        r.map_err(|e| self.connect_error(pg_message(&e)))
    }

    /// The target's start-up `options` with `settings` added as `-c
    /// name=value`.
    fn options(&self, settings: &[(String, String)]) -> Option<String> {
        if settings.is_empty() {
            return None;
        }
        let mut options = self.config.get_options().unwrap_or("").to_string();
        for (n, v) in settings {
            options.push_str(&format!(" -c {n}={v}"));
        }
        Some(options.trim_start().to_string())
    }

    fn connect_error(&self, mut message: String) -> LoadError {
        if let Some(note) = &self.note {
            message = format!("{message} ({note})");
        }
        LoadError::Connect {
            target: self.shown.clone(),
            message,
        }
    }

    /// A load session's connection (`pgwire.rs`), with `settings`
    /// as with [`Target::connect_with`].
    fn connect_wire(&self, app: &str, settings: &[(String, String)]) -> Result<Wire, LoadError> {
        let options = self.options(settings);
        Wire::connect(
            &self.config,
            self.tls_config.as_ref(),
            app,
            options.as_deref().or(self.config.get_options()),
        )
        .map_err(|e| self.connect_error(e.0))
    }
}

/// The target as shown: user, host, port, database and TLS mode, never
/// the password.
fn display(config: &Config) -> String {
    let user = config.get_user().unwrap_or("");
    let port = config.get_ports().first().copied().unwrap_or(5432);
    let db = config.get_dbname().unwrap_or(user);
    let mut params = Vec::new();
    let host = match config.get_hosts().first() {
        Some(Host::Tcp(h)) if h.contains(':') => format!("[{h}]"),
        Some(Host::Tcp(h)) => h.clone(),
        Some(Host::Unix(p)) => {
            params.push(format!("host={}", p.display()));
            String::new()
        }
        None => String::new(),
    };
    if config.get_ssl_mode() == postgres::config::SslMode::Require {
        params.push("sslmode=require".into());
    }
    let at = if user.is_empty() {
        String::new()
    } else {
        format!("{user}@")
    };
    let query = if params.is_empty() {
        String::new()
    } else {
        format!("?{}", params.join("&"))
    };
    format!("postgres://{at}{host}:{port}/{db}{query}")
}

/// The password for `config` from the password file, by libpq's rules:
/// `$PGPASSFILE` or `~/.pgpass`, lines `host:port:database:user:password`
/// with `*` matching anything and `\` escaping `:` and `\`, the first
/// matching line wins; a Unix-socket connection to the default socket
/// directory matches `localhost`; a file with group or world access is
/// ignored (the reason comes back as the error, to be shown only if the
/// connection then fails). Source: PostgreSQL documentation, "The
/// Password File" (libpq chapter).
fn pgpass_password(config: &Config) -> Result<Option<String>, String> {
    let path = match std::env::var_os("PGPASSFILE").filter(|p| !p.is_empty()) {
        Some(p) => p.into(),
        None => match home_dir() {
            Some(h) => h.join(".pgpass"),
            None => return Ok(None),
        },
    };
    if let Some(why) = password_file_unsafe(&path) {
        return Err(why);
    }
    let Ok(text) = std::fs::read_to_string(&path) else {
        return Ok(None);
    };
    let host = match config.get_hosts().first() {
        Some(Host::Tcp(h)) => h.clone(),
        Some(Host::Unix(p)) if p == Path::new("/var/run/postgresql") || p == Path::new("/tmp") => {
            "localhost".into()
        }
        Some(Host::Unix(p)) => p.display().to_string(),
        None => "localhost".into(),
    };
    let port = config
        .get_ports()
        .first()
        .copied()
        .unwrap_or(5432)
        .to_string();
    let user = config.get_user().unwrap_or("");
    let db = config.get_dbname().unwrap_or(user);
    Ok(pgpass_match(&text, [&host, &port, db, user]))
}

/// The first line of a `.pgpass` text matching `want` (host, port,
/// database, user).
fn pgpass_match(text: &str, want: [&str; 4]) -> Option<String> {
    for line in text.lines() {
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let mut fields: Vec<String> = vec![String::new()];
        let mut chars = line.chars();
        while let Some(c) = chars.next() {
            match c {
                '\\' => {
                    if let Some(n) = chars.next() {
                        fields.last_mut()?.push(n);
                    }
                }
                ':' if fields.len() < 5 => fields.push(String::new()),
                c => fields.last_mut()?.push(c),
            }
        }
        if fields.len() < 5 {
            continue;
        }
        if fields[..4]
            .iter()
            .zip(want)
            .all(|(f, w)| f == "*" || f == w)
        {
            return fields.pop();
        }
    }
    None
}

/// One sentence for a client error: the server's own message where
/// there is one, otherwise the error and its causes.
fn pg_message(e: &postgres::Error) -> String {
    match e.as_db_error() {
        Some(db) => db.message().to_string(),
        None => chain(e),
    }
}

/// A rustls client configuration that encrypts without checking the
/// server's certificate: libpq's `sslmode=require` (and `prefer`) when
/// no root certificate is given. The handshake's signatures are still
/// verified with the ring provider's algorithms, so the session key is
/// bound to the certificate presented.
fn unverified_client_config() -> Result<rustls::ClientConfig, LoadError> {
    use rustls::client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier};
    use rustls::crypto::CryptoProvider;
    use rustls::pki_types::{CertificateDer, ServerName, UnixTime};
    use rustls::{DigitallySignedStruct, SignatureScheme};

    #[derive(Debug)]
    struct AnyCertificate(Arc<CryptoProvider>);

    impl ServerCertVerifier for AnyCertificate {
        fn verify_server_cert(
            &self,
            _end_entity: &CertificateDer<'_>,
            _intermediates: &[CertificateDer<'_>],
            _server_name: &ServerName<'_>,
            _ocsp_response: &[u8],
            _now: UnixTime,
        ) -> Result<ServerCertVerified, rustls::Error> {
            Ok(ServerCertVerified::assertion())
        }

        fn verify_tls12_signature(
            &self,
            message: &[u8],
            cert: &CertificateDer<'_>,
            dss: &DigitallySignedStruct,
        ) -> Result<HandshakeSignatureValid, rustls::Error> {
            rustls::crypto::verify_tls12_signature(
                message,
                cert,
                dss,
                &self.0.signature_verification_algorithms,
            )
        }

        fn verify_tls13_signature(
            &self,
            message: &[u8],
            cert: &CertificateDer<'_>,
            dss: &DigitallySignedStruct,
        ) -> Result<HandshakeSignatureValid, rustls::Error> {
            rustls::crypto::verify_tls13_signature(
                message,
                cert,
                dss,
                &self.0.signature_verification_algorithms,
            )
        }

        fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
            self.0.signature_verification_algorithms.supported_schemes()
        }
    }

    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let config = rustls::ClientConfig::builder_with_provider(Arc::clone(&provider))
        .with_safe_default_protocol_versions()
        .map_err(|e| LoadError::Io(format!("cannot set up TLS: {e}")))?
        .dangerous()
        .with_custom_certificate_verifier(Arc::new(AnyCertificate(provider)))
        .with_no_client_auth();
    Ok(config)
}

/// A statement error: the connection lost (closed, I/O, the server
/// shutting down or terminating the backend: SQLSTATE class 57, or a
/// FATAL message), or a failed statement.
fn pg_err(e: postgres::Error) -> LoadError {
    let lost = e.is_closed()
        || match e.as_db_error() {
            None => true,
            Some(db) => {
                db.code().code().starts_with("57") || matches!(db.severity(), "FATAL" | "PANIC")
            }
        };
    if lost {
        LoadError::Lost(pg_message(&e))
    } else {
        LoadError::Sql(pg_message(&e))
    }
}

/// Rows of a simple query as text.
fn simple_rows(
    client: &mut Client,
    sql: &str,
) -> Result<Vec<Vec<Option<String>>>, postgres::Error> {
    Ok(client
        .simple_query(sql)?
        .into_iter()
        .filter_map(|m| match m {
            SimpleQueryMessage::Row(r) => {
                Some((0..r.len()).map(|i| r.get(i).map(str::to_string)).collect())
            }
            _ => None,
        })
        .collect())
}

/// The table's name checked (dbio's prefix, lower-case letters, digits
/// and `_`, at most 63 bytes) and quoted; only such names are ever put
/// into SQL text.
pub(crate) fn checked_name(table: &TableSpec) -> Result<String, LoadError> {
    let n = &table.name;
    let ok = n.starts_with(TableSpec::PREFIX)
        && n.len() <= 63
        && n.bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_');
    if ok {
        Ok(format!("\"{n}\""))
    } else {
        Err(LoadError::Refused(format!(
            "'{n}' is not a table name dbio makes (it starts with {} and has only \
             lower-case letters, digits and '_')",
            TableSpec::PREFIX
        )))
    }
}

/// A SQL string literal.
pub(crate) fn literal(s: &str) -> String {
    format!("'{}'", s.replace('\'', "''"))
}

/// A PostgreSQL server: the monitoring connection and what it learnt
/// about the server when it connected.
pub struct Postgres {
    target: Target,
    /// The monitoring connection (in a mutex only because [`Database`]
    /// is `Sync`; every use has `&mut self`, so it is never contended).
    client: std::sync::Mutex<Client>,
    version_num: u32,
    version: String,
    /// `wal_sync_method` is `open_sync` or `open_datasync`: the flush is
    /// inside the write, `wal_sync` stays 0.
    flush_in_write: bool,
    /// `track_wal_io_timing` is on: WAL write and sync times are kept.
    timing: bool,
    /// Transactions dbio committed outside the load (see the module doc).
    own: Arc<AtomicU64>,
    /// The prepared wait-sampling query, made on first use.
    sample: Option<Statement>,
    /// Session settings of the comparison's current configuration.
    session_settings: Vec<(String, String)>,
    /// This value is the wait sampler's own connection: its statistics
    /// are pushed out when it is dropped, before the counters are read.
    sampler: bool,
}

impl Postgres {
    /// Parses `spec`, connects the monitoring connection and reads the
    /// server's version and WAL settings.
    pub fn open(spec: &ServerSpec) -> Result<Postgres, LoadError> {
        let target = Target::parse(spec)?;
        let mut client = target.connect(MONITOR_APP)?;
        // Each connection's start-up is a transaction of its own.
        let own = Arc::new(AtomicU64::new(1));
        let rows = simple_rows(
            &mut client,
            "SELECT current_setting('server_version'), current_setting('server_version_num'), \
             current_setting('wal_sync_method'), current_setting('track_wal_io_timing', true)",
        )
        .map_err(|e| LoadError::Connect {
            target: target.shown.clone(),
            message: pg_message(&e),
        })?;
        own.fetch_add(1, Ordering::Relaxed);
        let row = rows.into_iter().next().unwrap_or_default();
        let get = |i: usize| row.get(i).cloned().flatten().unwrap_or_default();
        Ok(Postgres {
            version: get(0),
            version_num: get(1).parse().unwrap_or(0),
            flush_in_write: get(2).starts_with("open_"),
            timing: get(3) == "on",
            target,
            client: std::sync::Mutex::new(client),
            own,
            sample: None,
            session_settings: Vec::new(),
            sampler: false,
        })
    }

    fn client(&mut self) -> &mut Client {
        self.client
            .get_mut()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// A new monitoring connection in place of a lost one (the server
    /// terminated it, or restarted): the run's table must still be
    /// dropped and its last counters read.
    fn reconnect(&mut self) -> Result<(), LoadError> {
        let client = self.target.connect(MONITOR_APP)?;
        *self.client() = client;
        self.own.fetch_add(1, Ordering::Relaxed);
        self.sample = None;
        Ok(())
    }

    /// Runs monitoring SQL as one transaction and counts it as dbio's own.
    fn monitor(&mut self, sql: &str) -> Result<Vec<Vec<Option<String>>>, LoadError> {
        let rows = simple_rows(self.client(), sql).map_err(pg_err)?;
        self.own.fetch_add(1, Ordering::Relaxed);
        Ok(rows)
    }

    /// Statements in an explicit transaction block: not counted (the
    /// block's `COMMIT` is).
    fn in_block(&mut self, sql: &str) -> Result<Vec<Vec<Option<String>>>, LoadError> {
        simple_rows(self.client(), sql).map_err(pg_err)
    }

    fn rollback(&mut self) {
        // Best effort: the statement that failed is the one to report.
        let _ = self.client().simple_query("ROLLBACK");
    }

    fn current_db(&mut self) -> String {
        self.target
            .config
            .get_dbname()
            .or(self.target.config.get_user())
            .unwrap_or("?")
            .to_string()
    }

    /// The table's comment, `None` when there is no such table.
    fn table_comment(&mut self, name: &str, in_block: bool) -> Result<Option<String>, LoadError> {
        let sql = format!(
            "SELECT to_regclass({q}) IS NOT NULL, obj_description(to_regclass({q}), 'pg_class')",
            q = literal(name)
        );
        let rows = if in_block {
            self.in_block(&sql)?
        } else {
            self.monitor(&sql)?
        };
        let row = rows.into_iter().next().unwrap_or_default();
        if row.first().cloned().flatten().as_deref() != Some("t") {
            return Ok(None);
        }
        Ok(Some(row.get(1).cloned().flatten().unwrap_or_default()))
    }

    /// The sessions' setup and the monitor's statements count; pending
    /// statistics are pushed out first so the count matches what the
    /// server shows (PG15+).
    fn force_flush(&mut self) -> Result<(), LoadError> {
        if self.version_num >= 150_000 {
            self.monitor("SELECT pg_stat_force_next_flush()")?;
        }
        Ok(())
    }
}

fn counter(name: &str, value: Option<String>, unit: &'static str) -> Option<Counter> {
    Some(Counter {
        name: name.to_string(),
        value: value?.parse().ok()?,
        unit,
    })
}

impl Database for Postgres {
    fn kind(&self) -> DbKind {
        DbKind::Postgres
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
        let rows = self.monitor(&format!(
            "SELECT name, current_setting(name) FROM pg_settings WHERE name IN ({list}); \
             SELECT r.rolsuper OR pg_has_role(current_user, 'pg_read_all_stats', 'MEMBER') \
             FROM pg_roles r WHERE r.rolname = current_user"
        ))?;
        let mut settings: Vec<(String, String)> = Vec::new();
        let mut all_stats = false;
        for row in rows {
            match row.as_slice() {
                [Some(n), Some(v)] => settings.push((n.clone(), v.clone())),
                [Some(b)] => all_stats = b == "t",
                _ => {}
            }
        }
        settings.sort_by_key(|(n, _)| SETTINGS.iter().position(|s| s == n));
        let setting = |name: &str| {
            settings
                .iter()
                .find(|(n, _)| n == name)
                .map(|(_, v)| v.as_str())
        };
        let v = self.version_num;
        let mut missing = Vec::new();
        if v < 140_000 {
            missing.push(format!(
                "PostgreSQL {} has no pg_stat_wal (added in 14): WAL flush counts and times \
                 are not available, only wait-event samples",
                self.version
            ));
        } else if setting("track_wal_io_timing") != Some("on") {
            missing.push(
                "track_wal_io_timing is off: WAL write and sync times are not available \
                 (a superuser can turn it on with ALTER SYSTEM SET track_wal_io_timing = on \
                 and SELECT pg_reload_conf())"
                    .to_string(),
            );
        }
        if v < 150_000 {
            missing.push(format!(
                "PostgreSQL {} reports statistics asynchronously (before 15): the server's \
                 commit count is approximate",
                self.version
            ));
        }
        if !all_stats {
            missing.push(
                "this user is neither a superuser nor a member of pg_read_all_stats: the \
                 walwriter's wait events are hidden from the sampler"
                    .to_string(),
            );
        }
        Ok(ServerInfo {
            version: self.version.clone(),
            version_num: v,
            settings,
            missing,
        })
    }

    fn log_location(&mut self) -> Option<crate::predict::LogLocation> {
        // data_directory is readable by superusers and pg_read_all_settings.
        let rows = self
            .monitor("SELECT current_setting('data_directory'), pg_backend_pid()::text")
            .ok()?;
        let [Some(data), Some(pid)] = rows.first()?.as_slice() else {
            return None;
        };
        let data_dir = std::path::PathBuf::from(data);
        Some(crate::predict::LogLocation {
            dir: data_dir.join("pg_wal"),
            what: "PostgreSQL's WAL directory (pg_wal)".into(),
            data_dir,
            pid: pid.parse().ok(),
        })
    }

    fn create_table(&mut self, table: &TableSpec) -> Result<(), LoadError> {
        let q = checked_name(table)?;
        // Both statements in one simple query run as one transaction: the
        // table never exists without its mark.
        let sql = format!(
            "CREATE TABLE {q} (id bigint PRIMARY KEY, pad text NOT NULL); \
             COMMENT ON TABLE {q} IS {}",
            literal(&table.mark)
        );
        match simple_rows(self.client(), &sql) {
            Ok(_) => {
                self.own.fetch_add(1, Ordering::Relaxed);
                Ok(())
            }
            Err(e) if e.code() == Some(&postgres::error::SqlState::DUPLICATE_TABLE) => {
                let db = self.current_db();
                Err(LoadError::Refused(format!(
                    "a table named {} already exists in database {db}: dbio makes a new table \
                     for every run and leaves existing ones alone",
                    table.name
                )))
            }
            Err(e) => Err(pg_err(e)),
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
        values: &[String],
    ) -> Result<SavedSetting, LoadError> {
        self.save_setting_once(name, scope, values)
    }

    fn change_setting(&mut self, name: &str, value: &str, scope: Scope) -> Result<(), LoadError> {
        match scope {
            Scope::Session => {
                self.session_settings.retain(|(n, _)| n != name);
                self.session_settings
                    .push((name.to_string(), value.to_string()));
                Ok(())
            }
            Scope::Server => once_more_if_lost(self, Self::reconnect, |db| {
                db.alter_system(&format!("ALTER SYSTEM SET {name} = {}", literal(value)))
            }),
        }
    }

    fn restore_setting(&mut self, saved: &SavedSetting) -> Result<(), LoadError> {
        match saved.scope {
            Scope::Session => {
                self.session_settings.retain(|(n, _)| *n != saved.name);
                Ok(())
            }
            Scope::Server => {
                // The saved statement is `ALTER SYSTEM ...; SELECT pg_reload_conf()`.
                let alter = saved.restore.strip_suffix(RELOAD).unwrap_or(&saved.restore);
                once_more_if_lost(self, Self::reconnect, |db| db.alter_system(alter))
            }
        }
    }

    fn counters(&mut self) -> Result<Vec<Counter>, LoadError> {
        once_more_if_lost(self, Self::reconnect, Self::counters_once)
    }

    fn flush_path(&self, before: &[Counter], after: &[Counter]) -> FlushPath {
        let d = |n: &str| counter_delta(before, after, n);
        let v = self.version_num;
        let (count, time) = match (v >= 180_000, self.flush_in_write) {
            (false, false) => ("pg_stat_wal.wal_sync", "pg_stat_wal.wal_sync_time"),
            (false, true) => ("pg_stat_wal.wal_write", "pg_stat_wal.wal_write_time"),
            (true, false) => ("pg_stat_io.wal.fsyncs", "pg_stat_io.wal.fsync_time"),
            (true, true) => ("pg_stat_io.wal.writes", "pg_stat_io.wal.write_time"),
        };
        let flushes = d(count).map(|x| x as u64);
        // Times are zero, not absent, with the timing off: say unknown.
        let flush_time_ns = if self.timing {
            d(time).map(|ms| (ms * 1e6).round() as u64)
        } else {
            None
        };
        let server_commits = match (d("pg_stat_database.xact_commit"), d("dbio.own_xact_commit")) {
            (Some(all), Some(own)) => Some((all - own).max(0.0) as u64),
            _ => None,
        };
        let bytes = d("pg_stat_wal.wal_bytes").map(|b| b as u64);
        let mut extra = Vec::new();
        for (name, unit) in [
            ("pg_stat_wal.wal_records", "count"),
            ("pg_stat_wal.wal_fpi", "count"),
            ("pg_stat_wal.wal_buffers_full", "count"),
            ("pg_stat_wal.wal_write", "count"),
            ("pg_stat_wal.wal_write_time", "ms"),
            ("pg_stat_io.wal.writes", "count"),
            ("pg_stat_io.wal.write_time", "ms"),
            ("pg_stat_database.xact_rollback", "count"),
        ] {
            if name == count || name == time {
                continue;
            }
            if let Some(value) = d(name) {
                extra.push(Counter {
                    name: name.into(),
                    value,
                    unit,
                });
            }
        }
        FlushPath {
            flushes,
            flush_time_ns,
            bytes,
            server_commits,
            extra,
        }
    }

    fn waits_sampler(&self) -> Result<Option<Box<dyn Database>>, LoadError> {
        let client = self.target.connect(MONITOR_APP)?;
        // Its start-up is a transaction, counted as dbio's own.
        self.own.fetch_add(1, Ordering::Relaxed);
        Ok(Some(Box::new(Postgres {
            target: self.target.clone(),
            client: std::sync::Mutex::new(client),
            version_num: self.version_num,
            version: self.version.clone(),
            flush_in_write: self.flush_in_write,
            timing: self.timing,
            own: Arc::clone(&self.own),
            sample: None,
            session_settings: Vec::new(),
            sampler: true,
        })))
    }

    fn sample_waits(&mut self) -> Result<Vec<WaitSample>, LoadError> {
        if self.sample.is_none() {
            // Each execution is a transaction of its own, and a
            // transaction's end discards the statistics snapshot (what
            // pg_stat_clear_snapshot() does inside one), so every sample
            // is fresh.
            let st = self
                .client()
                .prepare(&format!(
                    "SELECT backend_type, state, wait_event_type, wait_event \
                     FROM pg_stat_activity WHERE pid <> pg_backend_pid() AND \
                     ((backend_type = 'client backend' AND application_name = {} \
                       AND datname = current_database()) OR backend_type = 'walwriter')",
                    literal(SESSION_APP)
                ))
                .map_err(pg_err)?;
            self.own.fetch_add(1, Ordering::Relaxed);
            self.sample = Some(st);
        }
        let st = self.sample.clone().expect("prepared above");
        let rows = self.client().query(&st, &[]).map_err(pg_err)?;
        self.own.fetch_add(1, Ordering::Relaxed);
        let mut out = Vec::with_capacity(rows.len());
        for row in rows {
            let backend: Option<String> = row.get(0);
            let state: Option<String> = row.get(1);
            let wtype: Option<String> = row.get(2);
            let event: Option<String> = row.get(3);
            let state = match (wtype, event) {
                (Some(t), Some(e)) => format!("{t}:{e}"),
                _ => match state.as_deref() {
                    Some("active") | None => "CPU".to_string(),
                    Some(s) => s.to_string(),
                },
            };
            out.push(WaitSample {
                state,
                backend: backend.unwrap_or_default(),
            });
        }
        Ok(out)
    }
}

/// Rows of text as a monitoring query returns them (NULL is `None`).
pub type TextRows = Vec<Vec<Option<String>>>;

/// A read-only monitoring connection to a PostgreSQL server, for callers
/// that read its statistics and change nothing (`dbio snap`): the same
/// target grammar, password sources, TLS and Unix sockets as the load,
/// and a session that cannot write.
///
/// Read-only twice over: [`Monitor::query`] refuses any statement that
/// is not a `SELECT`, `SHOW`, `WITH` or `VALUES`, and the session starts
/// with `default_transaction_read_only = on` (a start-up option of this
/// session alone, not a server setting), so even a function with side
/// effects called from a `SELECT` cannot write. `statement_timeout`
/// (10 s) keeps a stuck statistics query from holding the server.
pub struct Monitor {
    target: Target,
    client: Client,
    app: String,
    version: String,
    version_num: u32,
    /// Transactions this connection committed (see [`Monitor::committed`]).
    committed: u64,
}

/// The start-up settings of every monitoring session.
fn monitor_settings() -> Vec<(String, String)> {
    vec![
        ("default_transaction_read_only".into(), "on".into()),
        ("statement_timeout".into(), "10s".into()),
    ]
}

/// Whether `sql` is one read-only statement dbio may send: it starts
/// with `SELECT`, `SHOW`, `WITH` or `VALUES` and holds no `;` outside a
/// string literal (one statement per call).
pub fn is_read_only(sql: &str) -> bool {
    crate::target::one_statement_starting_with(sql, &["SELECT", "SHOW", "WITH", "VALUES"])
}

impl Monitor {
    /// Connects to `spec` with `application_name` `app` and reads the
    /// server's version. Fails with one sentence that never holds the
    /// password (an unreachable server, a wrong password, a refused
    /// role).
    pub fn open(spec: &ServerSpec, app: &str) -> Result<Monitor, LoadError> {
        let target = Target::parse(spec)?;
        Monitor::connect(target, app)
    }

    fn connect(target: Target, app: &str) -> Result<Monitor, LoadError> {
        let mut client = target.connect_with(app, &monitor_settings())?;
        let rows = simple_rows(
            &mut client,
            "SELECT current_setting('server_version'), current_setting('server_version_num')",
        )
        .map_err(|e| target.connect_error(pg_message(&e)))?;
        let row = rows.into_iter().next().unwrap_or_default();
        let get = |i: usize| row.get(i).cloned().flatten().unwrap_or_default();
        Ok(Monitor {
            version: get(0),
            version_num: get(1).parse().unwrap_or(0),
            target,
            client,
            app: app.to_string(),
            // The start-up and the version query.
            committed: 2,
        })
    }

    /// A second connection to the same server (a sampler's own), named
    /// `app`.
    pub fn another(&self, app: &str) -> Result<Monitor, LoadError> {
        Monitor::connect(self.target.clone(), app)
    }

    /// Connects again in place of a lost connection (the server
    /// restarted, or terminated this backend).
    pub fn reconnect(&mut self) -> Result<(), LoadError> {
        let app = self.app.clone();
        *self = Monitor::connect(self.target.clone(), &app)?;
        Ok(())
    }

    /// The target as shown: never with its password.
    pub fn display_target(&self) -> &str {
        &self.target.shown
    }

    /// The database connected to.
    pub fn database(&self) -> String {
        let c = &self.target.config;
        c.get_dbname().or(c.get_user()).unwrap_or("").to_string()
    }

    /// The host connected to, as given (a TCP host name or address, or
    /// the socket directory).
    pub fn host(&self) -> Option<String> {
        match self.target.config.get_hosts().first()? {
            Host::Tcp(h) => Some(h.clone()),
            Host::Unix(p) => Some(p.display().to_string()),
        }
    }

    /// The server's version as it reports it (`15.18 (Debian ...)`).
    pub fn version(&self) -> &str {
        &self.version
    }

    /// `server_version_num` (150018).
    pub fn version_num(&self) -> u32 {
        self.version_num
    }

    /// `application_name` of this connection.
    pub fn app(&self) -> &str {
        &self.app
    }

    /// Rows of one read-only statement as text (NULL is `None`); a
    /// statement that is not read-only is refused before it is sent
    /// ([`is_read_only`]).
    pub fn query(&mut self, sql: &str) -> Result<Vec<Vec<Option<String>>>, LoadError> {
        if !is_read_only(sql) {
            return Err(LoadError::Refused(format!(
                "dbio's monitoring connection sends only single SELECT, SHOW, WITH or VALUES \
                 statements; refused: {}",
                sql.split_whitespace().take(4).collect::<Vec<_>>().join(" ")
            )));
        }
        let rows = simple_rows(&mut self.client, sql).map_err(pg_err)?;
        self.committed += 1;
        Ok(rows)
    }

    /// Transactions this connection has committed so far: its start-up
    /// and every statement that succeeded (each runs as a transaction of
    /// its own), which is what `pg_stat_database.xact_commit` counts for
    /// it once its statistics are flushed (`dbio load` counts its own the
    /// same way).
    pub fn committed(&self) -> u64 {
        self.committed
    }

    /// The SQLSTATE of a failed statement's error, for callers that
    /// tell a missing privilege (42501) or a missing relation (42P01)
    /// from other failures: the statement is run and its code returned
    /// instead of its rows.
    pub fn query_code(
        &mut self,
        sql: &str,
    ) -> Result<Result<TextRows, (String, String)>, LoadError> {
        if !is_read_only(sql) {
            return self.query(sql).map(Ok);
        }
        match simple_rows(&mut self.client, sql) {
            Ok(rows) => {
                self.committed += 1;
                Ok(Ok(rows))
            }
            Err(e) => match e.as_db_error() {
                Some(db) if !matches!(db.severity(), "FATAL" | "PANIC") => Ok(Err((
                    db.code().code().to_string(),
                    db.message().to_string(),
                ))),
                _ => Err(pg_err(e)),
            },
        }
    }
}

impl Drop for Postgres {
    /// The sampler's transactions are counted as dbio's own; its pending
    /// statistics are pushed out before its thread ends (the load loop
    /// joins it before reading the counters), so the count is exact.
    fn drop(&mut self) {
        if self.sampler {
            let _ = self.force_flush();
        }
    }
}

impl Postgres {
    fn drop_once(&mut self, table: &TableSpec) -> Result<(), LoadError> {
        let q = checked_name(table)?;
        self.in_block("BEGIN")?;
        let result = (|| {
            // Locked first, so that the mark checked is the mark of the
            // table dropped.
            if self.table_comment(&table.name, true)?.is_none() {
                return Ok(false);
            }
            self.in_block(&format!("LOCK TABLE {q} IN ACCESS EXCLUSIVE MODE"))?;
            let comment = self.table_comment(&table.name, true)?.unwrap_or_default();
            if comment != table.mark {
                let db = self.current_db();
                return Err(LoadError::Refused(format!(
                    "table {} in database {db} does not carry this run's dbio mark: dbio did \
                     not create it and leaves it alone",
                    table.name
                )));
            }
            self.in_block(&format!("DROP TABLE {q}"))?;
            Ok(true)
        })();
        match result {
            Ok(true) => {
                self.in_block("COMMIT")?;
                self.own.fetch_add(1, Ordering::Relaxed);
                Ok(())
            }
            Ok(false) => {
                self.rollback();
                Ok(())
            }
            Err(e) => {
                self.rollback();
                Err(e)
            }
        }
    }

    fn connect_session(&self, table: &TableSpec) -> Result<Box<dyn Session>, LoadError> {
        let q = checked_name(table)?;
        let mut wire = self
            .target
            .connect_wire(SESSION_APP, &self.session_settings)?;
        let own = Arc::clone(&self.own);
        own.fetch_add(1, Ordering::Relaxed);
        let rows = wire.simple_query(&format!(
            "SELECT obj_description(to_regclass({}), 'pg_class'), pg_backend_pid()",
            literal(&table.name)
        ))?;
        own.fetch_add(1, Ordering::Relaxed);
        let row = rows.into_iter().next().unwrap_or_default();
        if row.first().cloned().flatten().as_deref() != Some(table.mark.as_str()) {
            return Err(LoadError::Refused(format!(
                "table {} is missing or does not carry this run's dbio mark: dbio writes only \
                 to the table it created",
                table.name
            )));
        }
        let pid = row
            .get(1)
            .cloned()
            .flatten()
            .and_then(|p| p.parse().ok())
            .or(wire.pid());
        let pad = "x".repeat(table.row_bytes as usize);
        // Preparing is a transaction of its own (Parse ... Sync).
        let insert = wire.prepare(
            "dbio_insert",
            &format!("INSERT INTO {q} (id, pad) VALUES ($1, $2)"),
            &[INT8, TEXT],
            &[&0i64.to_be_bytes(), pad.as_bytes()],
            b"INSERT 0 1",
        )?;
        own.fetch_add(1, Ordering::Relaxed);
        let begin = wire.prepare("dbio_begin", "BEGIN", &[], &[], b"BEGIN")?;
        own.fetch_add(1, Ordering::Relaxed);
        let commit = wire.prepare("dbio_commit", "COMMIT", &[], &[], b"COMMIT")?;
        own.fetch_add(1, Ordering::Relaxed);
        let flush = self.version_num >= 150_000;
        if flush {
            wire.simple_query("SELECT pg_stat_force_next_flush()")?;
            own.fetch_add(1, Ordering::Relaxed);
        }
        Ok(Box::new(PgSession {
            wire,
            insert,
            begin,
            commit,
            pid,
            own,
            flush,
        }))
    }

    fn counters_once(&mut self) -> Result<Vec<Counter>, LoadError> {
        self.force_flush()?;
        // What dbio committed itself, all of it flushed by now; the read
        // below is counted after it.
        let own_before_read = self.own.load(Ordering::Relaxed);
        let v = self.version_num;
        let mut sql = String::from(
            "SELECT xact_commit, xact_rollback FROM pg_stat_database \
             WHERE datname = current_database()",
        );
        if (140_000..180_000).contains(&v) {
            sql.push_str(
                "; SELECT wal_records, wal_fpi, wal_bytes, wal_buffers_full, wal_write, \
                 wal_sync, wal_write_time, wal_sync_time FROM pg_stat_wal",
            );
        } else if v >= 180_000 {
            sql.push_str(
                "; SELECT wal_records, wal_fpi, wal_bytes, wal_buffers_full FROM pg_stat_wal; \
                 SELECT coalesce(sum(writes), 0), coalesce(sum(write_time), 0), \
                 coalesce(sum(fsyncs), 0), coalesce(sum(fsync_time), 0), \
                 coalesce(sum(write_bytes), 0) FROM pg_stat_io WHERE object = 'wal'",
            );
        }
        let rows = self.monitor(&sql)?;
        let mut out = vec![Counter {
            name: "dbio.own_xact_commit".into(),
            value: own_before_read as f64,
            unit: "count",
        }];
        let mut rows = rows.into_iter();
        let mut take = |names: &[(&str, &'static str)]| {
            let row = rows.next().unwrap_or_default();
            for (i, (name, unit)) in names.iter().enumerate() {
                out.extend(counter(name, row.get(i).cloned().flatten(), unit));
            }
        };
        take(&[
            ("pg_stat_database.xact_commit", "count"),
            ("pg_stat_database.xact_rollback", "count"),
        ]);
        if (140_000..180_000).contains(&v) {
            take(&[
                ("pg_stat_wal.wal_records", "count"),
                ("pg_stat_wal.wal_fpi", "count"),
                ("pg_stat_wal.wal_bytes", "bytes"),
                ("pg_stat_wal.wal_buffers_full", "count"),
                ("pg_stat_wal.wal_write", "count"),
                ("pg_stat_wal.wal_sync", "count"),
                ("pg_stat_wal.wal_write_time", "ms"),
                ("pg_stat_wal.wal_sync_time", "ms"),
            ]);
        } else if v >= 180_000 {
            take(&[
                ("pg_stat_wal.wal_records", "count"),
                ("pg_stat_wal.wal_fpi", "count"),
                ("pg_stat_wal.wal_bytes", "bytes"),
                ("pg_stat_wal.wal_buffers_full", "count"),
            ]);
            take(&[
                ("pg_stat_io.wal.writes", "count"),
                ("pg_stat_io.wal.write_time", "ms"),
                ("pg_stat_io.wal.fsyncs", "count"),
                ("pg_stat_io.wal.fsync_time", "ms"),
                ("pg_stat_io.wal.write_bytes", "bytes"),
            ]);
        }
        Ok(out)
    }
}

/// One session: its connection and its prepared statements (the row
/// payload is in the insert's message, made once).
struct PgSession {
    wire: Wire,
    insert: Prepared,
    begin: Prepared,
    commit: Prepared,
    pid: Option<u32>,
    own: Arc<AtomicU64>,
    /// PG15+: push this session's statistics out when it ends.
    flush: bool,
}

impl Session for PgSession {
    fn insert_autocommit(&mut self, id: u64) -> Result<(), LoadError> {
        self.insert(id)
    }

    fn begin(&mut self) -> Result<(), LoadError> {
        self.wire.execute(&mut self.begin, 0)
    }

    fn insert(&mut self, id: u64) -> Result<(), LoadError> {
        self.wire.execute(&mut self.insert, id as i64)
    }

    fn commit(&mut self) -> Result<(), LoadError> {
        self.wire.execute(&mut self.commit, 0)
    }

    fn backend_pid(&self) -> Option<u32> {
        self.pid
    }
}

impl Drop for PgSession {
    fn drop(&mut self) {
        // The backend reports its counts when idle at most once a second;
        // forcing it here makes them visible before the run's last
        // counters are read (the forcing statement is dbio's own).
        if self.flush
            && !self.wire.is_broken()
            && self
                .wire
                .simple_query("SELECT pg_stat_force_next_flush()")
                .is_ok()
        {
            self.own.fetch_add(1, Ordering::Relaxed);
        }
        self.wire.terminate();
    }
}

/// The end of a saved server setting's restoring statement.
const RELOAD: &str = "; SELECT pg_reload_conf()";

/// `--compare`'s settings ([`crate::settings`]).
impl Postgres {
    fn save_setting_once(
        &mut self,
        name: &str,
        scope: Scope,
        values: &[String],
    ) -> Result<SavedSetting, LoadError> {
        let rows = self.monitor(&format!(
            "SELECT current_setting({n}), source, current_setting('is_superuser') \
             FROM pg_settings WHERE name = {n}",
            n = literal(name)
        ))?;
        let row = rows.into_iter().next().unwrap_or_default();
        let get = |i: usize| row.get(i).cloned().flatten().unwrap_or_default();
        let (value, source, superuser) = (get(0), get(1), get(2) == "on");
        match scope {
            Scope::Session => {
                // Each value once, in a transaction rolled back: the
                // server's own check of value and privilege (commit_delay
                // needs a superuser), before anything is measured.
                let sets: String = values
                    .iter()
                    .map(|v| format!("SET LOCAL {name} = {}; ", literal(v)))
                    .collect();
                let r = self.in_block(&format!("BEGIN; {sets}"));
                self.rollback();
                r.map_err(|e| {
                    LoadError::Refused(format!("PostgreSQL does not let dbio set {name}: {e}"))
                })?;
                Ok(SavedSetting {
                    name: name.to_string(),
                    value,
                    scope,
                    restore: String::new(),
                })
            }
            Scope::Server => {
                if !superuser {
                    return Err(LoadError::Refused(format!(
                        "{name} can be changed only server-wide (ALTER SYSTEM), which needs a \
                         superuser: connect as one to compare it"
                    )));
                }
                if matches!(
                    source.as_str(),
                    "command line" | "environment variable" | "override"
                ) {
                    return Err(LoadError::Refused(format!(
                        "{name} is set on the server's {source}, which ALTER SYSTEM cannot \
                         override: dbio does not compare it"
                    )));
                }
                // What postgresql.auto.conf holds now decides the restore:
                // the same ALTER SYSTEM SET, or RESET when it held nothing.
                let rows = self.monitor(&format!(
                    "SELECT setting FROM pg_file_settings WHERE name = {} \
                     AND sourcefile LIKE '%/postgresql.auto.conf' ORDER BY seqno DESC LIMIT 1",
                    literal(name)
                ))?;
                let auto = rows.into_iter().next().and_then(|r| r.into_iter().next()?);
                let alter = match auto {
                    Some(v) => format!("ALTER SYSTEM SET {name} = {}", literal(&v)),
                    None => format!("ALTER SYSTEM RESET {name}"),
                };
                Ok(SavedSetting {
                    name: name.to_string(),
                    value,
                    scope,
                    restore: format!("{alter}{RELOAD}"),
                })
            }
        }
    }

    /// `ALTER SYSTEM ...` (never inside a transaction block), then
    /// `pg_reload_conf()`, then waits (at most 5 s) until this backend has
    /// re-read the configuration: the postmaster has then re-read it too,
    /// so the sessions connected next start with the new value.
    fn alter_system(&mut self, alter: &str) -> Result<(), LoadError> {
        let before = self.monitor("SELECT pg_conf_load_time()")?;
        self.monitor(alter)?;
        self.monitor("SELECT pg_reload_conf()")?;
        let deadline = std::time::Instant::now() + Duration::from_secs(5);
        while std::time::Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(10));
            if self.monitor("SELECT pg_conf_load_time()")? != before {
                return Ok(());
            }
        }
        Err(LoadError::Sql(format!(
            "the server did not reload its configuration within 5 s after {alter}"
        )))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pgpass_lines_match_by_libpq_rules() {
        let text = "# comment\n\
                    otherhost:5432:*:*:no\n\
                    127.0.0.1:5499:dbio:dbio:pa\\:ss\\\\word\n\
                    *:*:*:*:fallback\n";
        assert_eq!(
            pgpass_match(text, ["127.0.0.1", "5499", "dbio", "dbio"]).as_deref(),
            Some("pa:ss\\word")
        );
        assert_eq!(
            pgpass_match(text, ["127.0.0.1", "5432", "dbio", "dbio"]).as_deref(),
            Some("fallback")
        );
        assert_eq!(
            pgpass_match("h:1:d:u:p:with:colons\n", ["h", "1", "d", "u"]).as_deref(),
            Some("p:with:colons")
        );
        assert_eq!(pgpass_match("h:1:d\n", ["h", "1", "d", "u"]), None);
    }

    #[test]
    fn only_dbio_table_names_reach_sql() {
        let t = |n: &str| TableSpec {
            name: n.into(),
            row_bytes: 1,
            mark: "m".into(),
        };
        assert_eq!(checked_name(&t("dbio_load_1")).unwrap(), "\"dbio_load_1\"");
        for bad in [
            "orders",
            "dbio_load_x\"; drop",
            "dbio_load_A",
            "DBIO_LOAD_1",
        ] {
            assert!(checked_name(&t(bad)).is_err(), "{bad}");
        }
        assert_eq!(literal("it's"), "'it''s'");
    }

    #[test]
    fn the_display_form_has_no_password() {
        let mut c: Config = "postgres://dbio:s3cret@127.0.0.1:5499/dbio?sslmode=require"
            .parse()
            .unwrap();
        assert_eq!(
            display(&c),
            "postgres://dbio@127.0.0.1:5499/dbio?sslmode=require"
        );
        c = "host=/run/pg port=5499 user=u password=s3cret dbname=d"
            .parse()
            .unwrap();
        assert_eq!(display(&c), "postgres://u@:5499/d?host=/run/pg");
    }
}
