//! The server backends against real, private servers: PostgreSQL at
//! `DBIO_TEST_PG_URL`, MariaDB at `DBIO_TEST_MYSQL_URL` (`scripts/test`
//! starts both with `scripts/db-servers` and exports the URLs). Without a
//! URL a test prints why it skips. The servers are private: the tests
//! demand exact counts from server-wide counters.
//!
//! See: issue 11.
#![cfg(any(feature = "postgres", feature = "mysql"))]

use dbio_load::target::open_server;
use dbio_load::{Counter, Database, LoadError, Session, TableSpec};
use std::sync::atomic::{AtomicU32, Ordering};

/// One server test at a time within this process: the counters are
/// server-wide (nextest runs each test in its own process and the
/// `db-servers` test group in .config/nextest.toml keeps them apart).
static SERIAL: std::sync::Mutex<()> = std::sync::Mutex::new(());

fn url(var: &str) -> Option<(String, std::sync::MutexGuard<'static, ()>)> {
    match std::env::var(var) {
        Ok(u) if !u.is_empty() => Some((u, SERIAL.lock().unwrap_or_else(|p| p.into_inner()))),
        _ => {
            eprintln!("skipped: {var} is not set (scripts/test starts private servers as root)");
            None
        }
    }
}

/// A table spec unique to this process and call.
fn table() -> TableSpec {
    static N: AtomicU32 = AtomicU32::new(0);
    let n = N.fetch_add(1, Ordering::Relaxed);
    let pid = std::process::id();
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .subsec_nanos();
    TableSpec {
        name: format!("{}t{pid}_{n}_{nanos}", TableSpec::PREFIX),
        row_bytes: 64,
        mark: format!("dbio load test run {pid}-{n}-{nanos}"),
    }
}

type Guard = std::sync::MutexGuard<'static, ()>;

fn delta(before: &[Counter], after: &[Counter], name: &str) -> f64 {
    let v = |cs: &[Counter]| {
        cs.iter()
            .find(|c| c.name == name)
            .unwrap_or_else(|| panic!("no counter {name} in {cs:?}"))
            .value
    };
    v(after) - v(before)
}

/// The password in a URL, for checking it never shows.
fn password_of(url: &str) -> String {
    let auth = url.split("://").nth(1).unwrap().split('@').next().unwrap();
    auth.split_once(':').unwrap().1.to_string()
}

/// `url` with its password replaced.
fn with_password(url: &str, pw: &str) -> String {
    url.replacen(&format!(":{}@", password_of(url)), &format!(":{pw}@"), 1)
}

/// A loopback port nobody listens on.
fn closed_port() -> u16 {
    let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    l.local_addr().unwrap().port()
}

/// Runs `sessions` sessions in threads, each committing `commits`
/// transactions of `rows` rows (autocommit when `rows` is 0), ids
/// unique over the run; returns the commits made.
fn load(db: &dyn Database, t: &TableSpec, sessions: u64, commits: u64, rows: u64) -> u64 {
    static RUN: AtomicU32 = AtomicU32::new(0);
    let first = u64::from(RUN.fetch_add(1, Ordering::Relaxed)) << 40;
    let mut ss: Vec<Box<dyn Session>> = (0..sessions).map(|_| db.connect(t).unwrap()).collect();
    std::thread::scope(|s| {
        for (i, sess) in ss.iter_mut().enumerate() {
            s.spawn(move || {
                let base = first + i as u64 * 1_000_000_000;
                for c in 0..commits {
                    if rows == 0 {
                        sess.insert_autocommit(base + c).unwrap();
                    } else {
                        sess.begin().unwrap();
                        for r in 0..rows {
                            sess.insert(base + c * rows + r).unwrap();
                        }
                        sess.commit().unwrap();
                    }
                }
            });
        }
    });
    drop(ss);
    sessions * commits
}

fn assert_no_secret(err: &LoadError, secret: &str) {
    for shown in [err.to_string(), format!("{err:?}")] {
        assert!(!shown.contains(secret), "password shown: {shown}");
    }
}

#[cfg(feature = "postgres")]
mod postgres_server {
    use super::*;

    fn pg() -> Option<(String, Box<dyn Database>, Guard)> {
        let (u, g) = url("DBIO_TEST_PG_URL")?;
        let db = open_server(&u).unwrap();
        Some((u, db, g))
    }

    fn client(u: &str) -> postgres::Client {
        postgres::Client::connect(u, postgres::NoTls).unwrap()
    }

    fn exists(u: &str, name: &str) -> bool {
        let r = client(u)
            .query_one("SELECT to_regclass($1) IS NOT NULL", &[&name])
            .unwrap();
        r.get(0)
    }

    #[test]
    fn autocommit_and_explicit_commits_match_xact_commit_exactly() {
        let Some((u, mut db, _g)) = pg() else { return };
        let t = table();
        db.create_table(&t).unwrap();
        let before = db.counters().unwrap();
        let n = load(&*db, &t, 3, 150, 0);
        let mid = db.counters().unwrap();
        let m = load(&*db, &t, 2, 100, 2);
        let after = db.counters().unwrap();
        // Checked only now: the check's own connection is counted too.
        assert!(exists(&u, &t.name));
        db.drop_table(&t).unwrap();
        assert!(!exists(&u, &t.name), "the table is dropped");

        // No sampler ran: the server's count less dbio's own is the load.
        let auto = db.flush_path(&before, &mid);
        assert_eq!(auto.server_commits, Some(n), "{before:?}\n{mid:?}");
        let explicit = db.flush_path(&mid, &after);
        assert_eq!(explicit.server_commits, Some(m), "{mid:?}\n{after:?}");
        // Every row is in: 3 × 150 + 2 × 100 × 2.
        let wal_records = delta(&before, &after, "pg_stat_wal.wal_records");
        assert!(wal_records >= (n + 2 * m) as f64, "{wal_records}");
    }

    #[test]
    fn one_session_flushes_about_once_per_commit() {
        let Some((_, mut db, _g)) = pg() else { return };
        let info = db.describe().unwrap();
        assert!(info.version_num >= 140_000, "{info:?}");
        let method = info
            .settings
            .iter()
            .find(|(n, _)| n == "wal_sync_method")
            .map(|(_, v)| v.clone())
            .unwrap();
        let t = table();
        db.create_table(&t).unwrap();
        let before = db.counters().unwrap();
        let n = load(&*db, &t, 1, 300, 0);
        let after = db.counters().unwrap();
        db.drop_table(&t).unwrap();
        let fp = db.flush_path(&before, &after);
        let flushes = fp.flushes.unwrap();
        // One session: every commit waits for its own flush; background
        // processes (walwriter, checkpointer) may add a few.
        assert!(
            flushes as f64 >= 0.9 * n as f64 && flushes <= n + 20,
            "{flushes} flushes for {n} commits under {method}"
        );
        // The private server runs with track_wal_io_timing = on.
        let ns = fp.flush_time_ns.unwrap();
        assert!(ns > 0 && ns / flushes < 1_000_000_000, "{ns} ns");
        let per_commit = fp.bytes.unwrap() as f64 / n as f64;
        assert!(
            (50.0..2_000.0).contains(&per_commit),
            "{per_commit} WAL bytes per commit"
        );
        assert!(!info
            .missing
            .iter()
            .any(|m| m.contains("track_wal_io_timing")));
    }

    #[test]
    fn a_foreign_table_is_refused_and_left_intact() {
        let Some((u, mut db, _g)) = pg() else { return };
        let t = table();
        let mut c = client(&u);
        c.batch_execute(&format!(
            "CREATE TABLE {} (id bigint, pad text); INSERT INTO {} VALUES (7, 'theirs')",
            t.name, t.name
        ))
        .unwrap();
        let err = db.create_table(&t).unwrap_err();
        assert!(
            matches!(err, LoadError::Refused(_)) && err.to_string().contains("already exists"),
            "{err}"
        );
        let err = db.connect(&t).err().unwrap();
        assert!(matches!(err, LoadError::Refused(_)), "{err}");
        let err = db.drop_table(&t).unwrap_err();
        assert!(err.to_string().contains("does not carry"), "{err}");
        // Another run's mark is not this run's either.
        c.batch_execute(&format!(
            "COMMENT ON TABLE {} IS 'dbio load other run'",
            t.name
        ))
        .unwrap();
        assert!(db.drop_table(&t).is_err());
        let n: i64 = c
            .query_one(
                &format!("SELECT count(*) FROM {} WHERE id = 7", t.name),
                &[],
            )
            .unwrap()
            .get(0);
        assert_eq!(n, 1, "the foreign table and its row are untouched");
        c.batch_execute(&format!("DROP TABLE {}", t.name)).unwrap();
    }

    #[test]
    fn a_server_that_is_not_running_is_one_sentence() {
        let Some((u, _, _g)) = pg() else { return };
        let dead = format!(
            "postgres://dbio:s3cret-dead@127.0.0.1:{}/dbio",
            closed_port()
        );
        let err = open_server(&dead).err().unwrap();
        let msg = err.to_string();
        assert!(matches!(err, LoadError::Connect { .. }), "{msg}");
        assert!(msg.contains("refused"), "{msg}");
        assert!(!msg.contains('\n'), "{msg}");
        assert_no_secret(&err, "s3cret-dead");
        drop(u);
    }

    #[test]
    fn a_wrong_password_is_refused_without_showing_it() {
        let Some((u, _, _g)) = pg() else { return };
        let bad = with_password(&u, "Wr0ng-s3cret");
        let err = open_server(&bad).err().unwrap();
        let msg = err.to_string();
        assert!(msg.contains("password authentication failed"), "{msg}");
        assert!(msg.contains("postgres://dbio@127.0.0.1:"), "{msg}");
        assert_no_secret(&err, "Wr0ng-s3cret");
        assert_no_secret(&err, &password_of(&u));
        let db = open_server(&u).unwrap();
        assert!(!db.display_target().contains(&password_of(&u)));
    }

    #[test]
    fn pgpass_supplies_the_password_only_when_private() {
        use std::os::unix::fs::PermissionsExt;
        let Some((u, _, _g)) = pg() else { return };
        let pw = password_of(&u);
        let bare = u.replacen(&format!(":{pw}@"), "@", 1);
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("pgpass");
        let port = bare.rsplit(':').next().unwrap().split('/').next().unwrap();
        std::fs::write(&file, format!("# test\n127.0.0.1:{port}:dbio:dbio:{pw}\n")).unwrap();
        std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o600)).unwrap();
        // Each nextest test is its own process: the environment is ours.
        std::env::remove_var("PGPASSWORD");
        std::env::set_var("PGPASSFILE", &file);
        open_server(&bare).unwrap();
        std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o644)).unwrap();
        let err = open_server(&bare).err().unwrap().to_string();
        assert!(err.contains("group or world access"), "{err}");
        assert!(!err.contains(&pw), "{err}");
        std::env::remove_var("PGPASSFILE");
    }

    #[test]
    fn the_sampler_sees_committing_backends_and_the_walwriter() {
        let Some((u, mut db, _g)) = pg() else { return };
        let mut sampler = open_server(&u).unwrap();
        let t = table();
        db.create_table(&t).unwrap();
        let done = std::sync::atomic::AtomicBool::new(false);
        let mut samples = Vec::new();
        std::thread::scope(|s| {
            let loader = s.spawn(|| {
                load(&*db, &t, 2, 400, 0);
                done.store(true, Ordering::Release);
            });
            while !done.load(Ordering::Acquire) {
                samples.extend(sampler.sample_waits().unwrap());
            }
            loader.join().unwrap();
        });
        db.drop_table(&t).unwrap();
        assert!(
            samples.iter().any(|w| w.backend == "walwriter"),
            "{samples:?}"
        );
        let client: Vec<_> = samples
            .iter()
            .filter(|w| w.backend == "client backend")
            .collect();
        assert!(!client.is_empty(), "{samples:?}");
        // Type and name together, or CPU.
        assert!(
            client
                .iter()
                .all(|w| w.state.contains(':') || w.state == "CPU" || w.state == "idle"),
            "{client:?}"
        );
    }

    #[test]
    fn a_terminated_backend_is_a_lost_connection() {
        let Some((u, mut db, _g)) = pg() else { return };
        let t = table();
        db.create_table(&t).unwrap();
        let mut s = db.connect(&t).unwrap();
        s.insert_autocommit(1).unwrap();
        let pid = s.backend_pid().unwrap() as i32;
        // With a timeout, pg_terminate_backend returns once the backend is gone.
        let gone: bool = client(&u)
            .query_one("SELECT pg_terminate_backend($1, 10000)", &[&pid])
            .unwrap()
            .get(0);
        assert!(gone);
        let err = s.insert_autocommit(2).unwrap_err();
        assert!(matches!(err, LoadError::Lost(_)), "{err:?}");
        assert!(!err.to_string().contains('\n'), "{err}");
        drop(s);
        db.drop_table(&t).unwrap();
    }

    /// Server settings changed for one test (as the superuser), reset
    /// when it ends, also on a failed assertion.
    struct Settings {
        admin: String,
        names: Vec<&'static str>,
    }

    impl Settings {
        fn set(admin: &str, pairs: &[(&'static str, &str)]) -> Settings {
            let mut c = client(admin);
            for (n, v) in pairs {
                c.batch_execute(&format!("ALTER SYSTEM SET {n} = '{v}'"))
                    .unwrap();
            }
            c.batch_execute("SELECT pg_reload_conf()").unwrap();
            // A reload is asynchronous: wait until a new session sees it.
            let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
            for (n, v) in pairs {
                loop {
                    let now: String = client(admin)
                        .query_one("SELECT current_setting($1)", &[n])
                        .unwrap()
                        .get(0);
                    if now == *v {
                        break;
                    }
                    assert!(std::time::Instant::now() < deadline, "{n} stays {now}");
                    std::thread::yield_now();
                }
            }
            Settings {
                admin: admin.to_string(),
                names: pairs.iter().map(|(n, _)| *n).collect(),
            }
        }
    }

    impl Drop for Settings {
        fn drop(&mut self) {
            let mut c = client(&self.admin);
            for n in &self.names {
                let _ = c.batch_execute(&format!("ALTER SYSTEM RESET {n}"));
            }
            let _ = c.batch_execute("SELECT pg_reload_conf()");
        }
    }

    #[test]
    fn under_open_datasync_the_flushes_are_the_writes_and_without_timing_no_times() {
        let Some((_, _, _g)) = pg() else { return };
        let Ok(admin) = std::env::var("DBIO_TEST_PG_ADMIN_URL") else {
            eprintln!(
                "skipped: DBIO_TEST_PG_ADMIN_URL is not set (scripts/db-servers env gives it)"
            );
            return;
        };
        let _s = Settings::set(
            &admin,
            &[
                ("wal_sync_method", "open_datasync"),
                ("track_wal_io_timing", "off"),
            ],
        );
        // Settings are read when the target is opened.
        let mut db = open_server(&std::env::var("DBIO_TEST_PG_URL").unwrap()).unwrap();
        let info = db.describe().unwrap();
        assert!(
            info.missing
                .iter()
                .any(|m| m.contains("track_wal_io_timing is off")),
            "{info:?}"
        );
        let t = table();
        db.create_table(&t).unwrap();
        let before = db.counters().unwrap();
        let n = load(&*db, &t, 1, 200, 0);
        let after = db.counters().unwrap();
        db.drop_table(&t).unwrap();
        let fp = db.flush_path(&before, &after);
        // The sync is inside the write: wal_sync stays 0, each commit's
        // write is its flush.
        assert_eq!(delta(&before, &after, "pg_stat_wal.wal_sync"), 0.0);
        let flushes = fp.flushes.unwrap();
        assert!(
            flushes as f64 >= 0.9 * n as f64 && flushes <= n + 20,
            "{flushes} writes for {n} commits"
        );
        assert_eq!(fp.flush_time_ns, None, "no timing, no time");
    }

    #[test]
    fn the_table_is_dropped_after_the_monitor_connection_is_lost() {
        let Some((u, mut db, _g)) = pg() else { return };
        let t = table();
        db.create_table(&t).unwrap();
        db.counters().unwrap();
        let gone: bool = client(&u)
            .query_one(
                "SELECT bool_and(pg_terminate_backend(pid, 10000)) FROM pg_stat_activity \
                 WHERE application_name = 'dbio load monitor' AND datname = current_database()",
                &[],
            )
            .unwrap()
            .get(0);
        assert!(gone);
        db.counters().unwrap();
        db.drop_table(&t).unwrap();
        assert!(!exists(&u, &t.name));
    }

    /// `--compare`'s promise: a server-wide setting is put back even when
    /// the monitoring connection was lost in between (dbio connects again).
    #[test]
    fn a_server_setting_is_restored_after_the_monitor_connection_is_lost() {
        let Some((_, _, _g)) = pg() else { return };
        let Ok(admin) = std::env::var("DBIO_TEST_PG_ADMIN_URL") else {
            eprintln!(
                "skipped: DBIO_TEST_PG_ADMIN_URL is not set (scripts/db-servers env gives it)"
            );
            return;
        };
        use dbio_load::settings::Scope;
        let show = || -> String {
            client(&admin)
                .query_one("SHOW wal_writer_delay", &[])
                .unwrap()
                .get(0)
        };
        let before = show();
        let mut db = open_server(&admin).unwrap();
        let saved = db
            .save_setting("wal_writer_delay", Scope::Server, &["10ms".into()])
            .unwrap();
        assert_eq!(saved.value, before);
        assert!(saved.restore.starts_with("ALTER SYSTEM"), "{saved:?}");
        db.change_setting("wal_writer_delay", "10ms", Scope::Server)
            .unwrap();
        assert_eq!(show(), "10ms");
        let gone: bool = client(&admin)
            .query_one(
                "SELECT bool_and(pg_terminate_backend(pid, 10000)) FROM pg_stat_activity \
                 WHERE application_name = 'dbio load monitor' AND datname = current_database()",
                &[],
            )
            .unwrap()
            .get(0);
        assert!(gone);
        db.restore_setting(&saved).unwrap();
        assert_eq!(show(), before);
    }

    /// A value ALTER SYSTEM had already put in postgresql.auto.conf is put
    /// back as it was (not reset to the file's or the default value).
    #[test]
    fn an_alter_system_value_is_restored_to_itself() {
        let Some((_, _, _g)) = pg() else { return };
        let Ok(admin) = std::env::var("DBIO_TEST_PG_ADMIN_URL") else {
            eprintln!(
                "skipped: DBIO_TEST_PG_ADMIN_URL is not set (scripts/db-servers env gives it)"
            );
            return;
        };
        use dbio_load::settings::Scope;
        let _s = Settings::set(&admin, &[("wal_writer_delay", "150ms")]);
        let mut db = open_server(&admin).unwrap();
        let saved = db
            .save_setting("wal_writer_delay", Scope::Server, &["10ms".into()])
            .unwrap();
        assert_eq!(
            saved.restore,
            "ALTER SYSTEM SET wal_writer_delay = '150ms'; SELECT pg_reload_conf()"
        );
        db.change_setting("wal_writer_delay", "10ms", Scope::Server)
            .unwrap();
        db.restore_setting(&saved).unwrap();
        let now: String = client(&admin)
            .query_one("SHOW wal_writer_delay", &[])
            .unwrap()
            .get(0);
        assert_eq!(now, "150ms");
    }

    /// A session setting is given to dbio's sessions alone (that they
    /// have it is shown by `load_servers::postgres_compare_*`).
    #[test]
    fn a_session_setting_leaves_other_connections_alone() {
        let Some((u, mut db, _g)) = pg() else { return };
        use dbio_load::settings::Scope;
        let saved = db
            .save_setting("synchronous_commit", Scope::Session, &["off".into()])
            .unwrap();
        assert!(saved.restore.is_empty());
        db.change_setting("synchronous_commit", "off", Scope::Session)
            .unwrap();
        let t = table();
        db.create_table(&t).unwrap();
        let s = db.connect(&t).unwrap();
        let pid = s.backend_pid().unwrap() as i32;
        // pg_settings is per backend; the session's own start-up options show it.
        let row = client(&u)
            .query_one(
                "SELECT current_setting('synchronous_commit'), \
                 (SELECT count(*) FROM pg_stat_activity WHERE pid = $1)",
                &[&pid],
            )
            .unwrap();
        assert_eq!(
            row.get::<_, String>(0),
            saved.value,
            "other connections keep it"
        );
        assert_eq!(row.get::<_, i64>(1), 1);
        drop(s);
        db.drop_table(&t).unwrap();
    }

    #[test]
    fn a_session_pid_is_its_backend() {
        let Some((u, mut db, _g)) = pg() else { return };
        let t = table();
        db.create_table(&t).unwrap();
        let s = db.connect(&t).unwrap();
        let pid = s.backend_pid().unwrap() as i32;
        let row = client(&u)
            .query_one(
                "SELECT application_name FROM pg_stat_activity WHERE pid = $1",
                &[&pid],
            )
            .unwrap();
        assert_eq!(row.get::<_, String>(0), "dbio load");
        drop(s);
        db.drop_table(&t).unwrap();
    }

    #[test]
    fn sslmode_require_encrypts_the_sessions() {
        let Some((u, _, _g)) = pg() else { return };
        let ssl_on = client(&u)
            .query_one("SELECT current_setting('ssl')", &[])
            .unwrap()
            .get::<_, String>(0)
            == "on";
        let req = format!("{u}?sslmode=require");
        match open_server(&req) {
            Ok(mut db) if ssl_on => {
                // Encrypted: the server says so for the sessions too.
                let t = table();
                db.create_table(&t).unwrap();
                let s = db.connect(&t).unwrap();
                let pid = s.backend_pid().unwrap() as i32;
                let ssl: bool = client(&u)
                    .query_one("SELECT ssl FROM pg_stat_ssl WHERE pid = $1", &[&pid])
                    .unwrap()
                    .get(0);
                assert!(ssl);
                drop(s);
                db.drop_table(&t).unwrap();
            }
            Ok(_) => panic!("sslmode=require connected to a server without TLS"),
            Err(e) => {
                assert!(!ssl_on, "{e}");
                assert!(
                    e.to_string().contains("TLS") || e.to_string().contains("tls"),
                    "{e}"
                );
            }
        }
    }
}

#[cfg(feature = "mysql")]
mod mariadb_server {
    use super::*;

    fn my() -> Option<(String, Box<dyn Database>, Guard)> {
        let (u, g) = url("DBIO_TEST_MYSQL_URL")?;
        let db = open_server(&u).unwrap();
        Some((u, db, g))
    }

    /// A plain connection as the same account as dbio's (over TCP: the
    /// crate would otherwise switch to the socket, where the account is
    /// dbio@localhost).
    fn conn(u: &str) -> mysql::Conn {
        let opts = mysql::Opts::from_url(u).unwrap();
        mysql::Conn::new(mysql::OptsBuilder::from_opts(opts).prefer_socket(false)).unwrap()
    }

    fn exists(u: &str, name: &str) -> bool {
        use mysql::prelude::Queryable;
        let n: Option<i64> = conn(u)
            .exec_first(
                "SELECT count(*) FROM information_schema.TABLES \
                 WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = ?",
                (name,),
            )
            .unwrap();
        n == Some(1)
    }

    #[test]
    fn commits_match_com_commit_and_binlog_commits_exactly() {
        let Some((u, mut db, _g)) = my() else { return };
        let t = table();
        db.create_table(&t).unwrap();
        assert!(exists(&u, &t.name));
        let before = db.counters().unwrap();
        let n = load(&*db, &t, 3, 100, 0);
        let mid = db.counters().unwrap();
        let m = load(&*db, &t, 2, 50, 2);
        let after = db.counters().unwrap();
        db.drop_table(&t).unwrap();
        assert!(!exists(&u, &t.name), "the table is dropped");

        assert_eq!(delta(&before, &mid, "Com_insert"), n as f64);
        assert_eq!(delta(&mid, &after, "Com_insert"), (2 * m) as f64);
        assert_eq!(delta(&mid, &after, "Com_commit"), m as f64);
        assert_eq!(delta(&before, &mid, "Com_commit"), 0.0);
        // Binlog and InnoDB each count a commit in Handler_commit.
        assert!(delta(&before, &mid, "Handler_commit") >= 2.0 * n as f64);
        let auto = db.flush_path(&before, &mid);
        assert_eq!(auto.server_commits, Some(n), "{before:?}\n{mid:?}");
        let explicit = db.flush_path(&mid, &after);
        assert_eq!(explicit.server_commits, Some(m), "{mid:?}\n{after:?}");
    }

    #[test]
    fn flush_path_counts_groups_and_times_the_binlog() {
        let Some((_, mut db, _g)) = my() else { return };
        let info = db.describe().unwrap();
        assert!(info.version_num >= 100_000, "{info:?}");
        assert!(
            info.missing.iter().any(|m| m.contains("MDEV-27848")),
            "{info:?}"
        );
        let get = |n: &str| {
            info.settings
                .iter()
                .find(|(k, _)| k == n)
                .map(|(_, v)| v.clone())
        };
        assert_eq!(get("sync_binlog").as_deref(), Some("1"));
        let t = table();
        db.create_table(&t).unwrap();
        let before = db.counters().unwrap();
        let n = load(&*db, &t, 1, 200, 0);
        let after = db.counters().unwrap();
        db.drop_table(&t).unwrap();
        let fp = db.flush_path(&before, &after);
        let flushes = fp.flushes.unwrap();
        // One session: InnoDB's redo fsync at prepare, one per commit
        // (the binlog's own fsync is not InnoDB's and is not counted here;
        // a few background data-file syncs may add to it).
        assert!(
            flushes >= n && flushes <= n + n / 10 + 20,
            "{flushes} for {n}"
        );
        let binlog_syncs = delta(&before, &after, "performance_schema.binlog.COUNT_MISC");
        assert!(
            binlog_syncs >= n as f64,
            "{binlog_syncs} binlog syncs for {n}"
        );
        let groups = delta(&before, &after, "Binlog_group_commits");
        assert!(
            groups >= 0.9 * n as f64 && groups <= n as f64,
            "{groups} groups"
        );
        assert!(fp.flush_time_ns.unwrap() > 0);
        assert!(fp.bytes.unwrap() > 0);
    }

    #[test]
    fn a_foreign_table_is_refused_and_left_intact() {
        use mysql::prelude::Queryable;
        let Some((u, mut db, _g)) = my() else { return };
        let t = table();
        let mut c = conn(&u);
        c.query_drop(format!("CREATE TABLE {} (id BIGINT, pad TEXT)", t.name))
            .unwrap();
        c.query_drop(format!("INSERT INTO {} VALUES (7, 'theirs')", t.name))
            .unwrap();
        let err = db.create_table(&t).unwrap_err();
        assert!(err.to_string().contains("already exists"), "{err}");
        assert!(matches!(
            db.connect(&t).err().unwrap(),
            LoadError::Refused(_)
        ));
        let err = db.drop_table(&t).unwrap_err();
        assert!(err.to_string().contains("does not carry"), "{err}");
        let n: Option<i64> = c
            .query_first(format!("SELECT count(*) FROM {} WHERE id = 7", t.name))
            .unwrap();
        assert_eq!(n, Some(1), "the foreign table and its row are untouched");
        c.query_drop(format!("DROP TABLE {}", t.name)).unwrap();
    }

    #[test]
    fn a_server_that_is_not_running_is_one_sentence() {
        let Some((_, _, _g)) = my() else { return };
        let dead = format!("mysql://dbio:s3cret-dead@127.0.0.1:{}/dbio", closed_port());
        let err = open_server(&dead).err().unwrap();
        let msg = err.to_string();
        assert!(matches!(err, LoadError::Connect { .. }), "{msg}");
        assert!(msg.contains("refused"), "{msg}");
        assert_no_secret(&err, "s3cret-dead");
    }

    #[test]
    fn a_wrong_password_is_refused_without_showing_it() {
        let Some((u, _, _g)) = my() else { return };
        let bad = with_password(&u, "Wr0ng-s3cret").replacen("mysql://", "mariadb://", 1);
        let err = open_server(&bad).err().unwrap();
        let msg = err.to_string();
        assert!(msg.contains("Access denied"), "{msg}");
        assert_no_secret(&err, "Wr0ng-s3cret");
        assert_no_secret(&err, &password_of(&u));
    }

    #[test]
    fn a_killed_connection_is_a_lost_connection() {
        use mysql::prelude::Queryable;
        let Some((u, mut db, _g)) = my() else { return };
        let t = table();
        db.create_table(&t).unwrap();
        let mut s = db.connect(&t).unwrap();
        s.insert_autocommit(1).unwrap();
        let tid = s
            .backend_pid()
            .expect("performance_schema gives the thread");
        let mut c = conn(&u);
        let id: Option<u64> = c
            .exec_first(
                "SELECT PROCESSLIST_ID FROM performance_schema.threads WHERE THREAD_OS_ID = ?",
                (tid,),
            )
            .unwrap();
        c.query_drop(format!("KILL CONNECTION {}", id.unwrap()))
            .unwrap();
        let err = s.insert_autocommit(2).unwrap_err();
        assert!(matches!(err, LoadError::Lost(_)), "{err:?}");
        drop(s);
        db.drop_table(&t).unwrap();
    }

    #[test]
    fn the_table_is_dropped_after_the_monitor_connection_is_lost() {
        use mysql::prelude::Queryable;
        let Some((u, mut db, _g)) = my() else { return };
        let t = table();
        db.create_table(&t).unwrap();
        let mut c = conn(&u);
        // Every other connection of this account: the monitor is the only one.
        let ids: Vec<u64> = c
            .query(
                "SELECT ID FROM information_schema.PROCESSLIST \
                 WHERE USER = 'dbio' AND ID <> CONNECTION_ID()",
            )
            .unwrap();
        assert!(!ids.is_empty());
        for id in ids {
            c.query_drop(format!("KILL CONNECTION {id}")).unwrap();
        }
        db.drop_table(&t).unwrap();
        assert!(!exists(&u, &t.name));
    }

    #[test]
    fn ssl_mode_required_encrypts_the_sessions() {
        use mysql::prelude::Queryable;
        let Some((u, _, _g)) = my() else { return };
        let mut c = conn(&u);
        let have_ssl: Option<String> = c.query_first("SELECT @@have_ssl").unwrap();
        let req = format!("{u}?ssl-mode=REQUIRED");
        match open_server(&req) {
            Ok(mut db) if have_ssl.as_deref() == Some("YES") => {
                assert!(db.display_target().ends_with("?ssl-mode=REQUIRED"));
                let t = table();
                db.create_table(&t).unwrap();
                let s = db.connect(&t).unwrap();
                let tid = s
                    .backend_pid()
                    .expect("performance_schema gives the thread");
                let version: Option<String> = c
                    .exec_first(
                        "SELECT s.VARIABLE_VALUE FROM performance_schema.status_by_thread s \
                         JOIN performance_schema.threads t USING (THREAD_ID) \
                         WHERE t.THREAD_OS_ID = ? AND s.VARIABLE_NAME = 'Ssl_version'",
                        (tid,),
                    )
                    .unwrap();
                assert!(version.unwrap_or_default().starts_with("TLS"));
                drop(s);
                db.drop_table(&t).unwrap();
            }
            Ok(_) => panic!("ssl-mode=REQUIRED connected to a server without TLS"),
            Err(e) => assert_ne!(have_ssl.as_deref(), Some("YES"), "{e}"),
        }
    }
}
