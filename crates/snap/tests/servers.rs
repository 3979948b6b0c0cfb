//! `dbio snap`'s library against the private PostgreSQL server
//! (`DBIO_TEST_PG_URL` and `DBIO_TEST_PG_ADMIN_URL`, exported by
//! `scripts/db-servers env`; `scripts/test` starts the servers). Without
//! the URLs a test prints why it skips; under CI (which starts the
//! servers) it fails instead. The server is private and autovacuum is
//! off: the tests demand exact counts from server-wide counters, read
//! independently with the server's own client (psql).
//!
//! See: issue 25.

#[path = "support/proxy.rs"]
mod proxy;

use dbio_load::target::open_server;
use dbio_load::{Database, Session, TableSpec};
use dbio_model::awr::AwrReport;
use dbio_model::snap::SampleSource;
use dbio_snap::{SnapError, SnapOptions};
use std::process::Command;
use std::time::Duration;

/// One server test at a time within this process: the counters are
/// server-wide (nextest's db-servers group keeps processes apart).
static SERIAL: std::sync::Mutex<()> = std::sync::Mutex::new(());

type Guard = std::sync::MutexGuard<'static, ()>;

fn urls() -> Option<(String, String, Guard)> {
    urls_of("DBIO_TEST_PG_URL", "DBIO_TEST_PG_ADMIN_URL")
}

/// The server of `url_var` and its superuser's `admin_var`.
fn urls_of(url_var: &str, admin_var: &str) -> Option<(String, String, Guard)> {
    let (u, a) = pair(url_var, admin_var)?;
    Some((u, a, SERIAL.lock().unwrap_or_else(|p| p.into_inner())))
}

/// `url_var` and `admin_var`, without taking the lock (for a second
/// server in a test that holds it).
fn pair(url_var: &str, admin_var: &str) -> Option<(String, String)> {
    let get = |v: &str| std::env::var(v).ok().filter(|u| !u.is_empty());
    match (get(url_var), get(admin_var)) {
        (Some(u), Some(a)) => Some((u, a)),
        _ => skip(&format!(
            "{url_var} or {admin_var} is not set \
             (scripts/db-servers start, then eval \"$(scripts/db-servers env)\")"
        )),
    }
}

/// Prints why a test skips; under CI, where the servers are started,
/// fails it instead.
fn skip<T>(why: &str) -> Option<T> {
    assert!(
        std::env::var_os("CI").is_none(),
        "{why}: CI starts every server (scripts/test)"
    );
    eprintln!("skipped: {why}");
    None
}

/// One statement with psql; its unaligned output.
fn psql(url: &str, q: &str) -> String {
    let out = Command::new("psql")
        .args(["-XAtq", url, "-c", q])
        .output()
        .expect("psql runs");
    assert!(
        out.status.success(),
        "psql {q}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

/// The server's WAL sync count, read by psql after its statistics are
/// flushed.
fn wal_syncs(admin: &str) -> f64 {
    psql(
        admin,
        "SELECT pg_stat_force_next_flush(); SELECT wal_sync FROM pg_stat_wal",
    )
    .lines()
    .last()
    .unwrap()
    .parse()
    .unwrap()
}

/// PostgreSQL 18's WAL flush count: `pg_stat_io`'s WAL rows (18 moved
/// `pg_stat_wal`'s sync counts there), read by psql after a flush of the
/// statistics.
fn wal_fsyncs_18(admin: &str) -> f64 {
    psql(
        admin,
        "SELECT pg_stat_force_next_flush(); \
         SELECT sum(fsyncs) FROM pg_stat_io WHERE object = 'wal'",
    )
    .lines()
    .last()
    .unwrap()
    .parse()
    .unwrap()
}

fn table() -> TableSpec {
    let pid = std::process::id();
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .subsec_nanos();
    TableSpec {
        name: format!("{}snap{pid}_{nanos}", TableSpec::PREFIX),
        row_bytes: 64,
        mark: format!("dbio snap test {pid}-{nanos}"),
    }
}

/// `n` autocommit inserts on each of `sessions`, in threads, with ids
/// from `first` (unique per session).
fn commit(sessions: &mut [Box<dyn Session>], first: u64, n: u64) {
    std::thread::scope(|s| {
        for (i, sess) in sessions.iter_mut().enumerate() {
            s.spawn(move || {
                for c in first..first + n {
                    sess.insert_autocommit(((i as u64) << 32) + c).unwrap();
                }
            });
        }
    });
}

fn stat(r: &AwrReport, name: &str) -> f64 {
    r.stat(name)
        .unwrap_or_else(|| panic!("no statistic {name} in {:?}", r.statistics))
}

/// One interval over `load`, with the sessions connected before it and
/// closed inside it: a PostgreSQL 15+ backend that went idle less than a
/// second after its last report holds its counts up to 10 s
/// (PGSTAT_IDLE_INTERVAL) and reports them at exit at the latest, and
/// each session, when closed, first forces its statistics out with one
/// transaction of its own (`dbio load`'s), so the interval holds the
/// load's commits plus one per session.
/// Also returns the WAL sync count psql read just before the interval's
/// first snapshot and just after its last.
fn interval_over(
    url: &str,
    admin: &str,
    period_s: f64,
    sessions: usize,
    load: impl FnOnce(&mut [Box<dyn Session>]),
) -> (AwrReport, f64, f64) {
    interval_counting(url, admin, period_s, sessions, wal_syncs, load)
}

/// [`interval_over`], reading the WAL flushes with `flushes`.
fn interval_counting(
    url: &str,
    admin: &str,
    period_s: f64,
    sessions: usize,
    flushes: fn(&str) -> f64,
    load: impl FnOnce(&mut [Box<dyn Session>]),
) -> (AwrReport, f64, f64) {
    let mut db: Box<dyn Database> = open_server(url).unwrap();
    let t = table();
    db.create_table(&t).unwrap();
    let mut ss: Vec<Box<dyn Session>> = (0..sessions).map(|_| db.connect(&t).unwrap()).collect();
    let opts = SnapOptions {
        interval_s: 1.0,
        sample_period_s: period_s,
    };
    let mut snap = dbio_snap::open(url, &opts).unwrap();
    // The sessions' set-up statistics out before the first snapshot.
    std::thread::sleep(Duration::from_millis(1200));
    let before = flushes(admin);
    let a = snap.snapshot().unwrap();
    snap.start_interval().unwrap();
    load(&mut ss);
    drop(ss);
    // The backends' exit (and its report) is asynchronous to the client.
    std::thread::sleep(Duration::from_millis(700));
    let (_, mut r) = snap.finish_interval(&a, 1.0, None).unwrap();
    let after = flushes(admin);
    db.drop_table(&t).unwrap();
    dbio_report::verdict::conclude_awr(&mut r);
    (r, before, after)
}

#[test]
fn commits_are_the_loads_exactly_and_wal_syncs_match_pg_stat_wal() {
    let Some((u, admin, _g)) = urls() else { return };
    // Sampled every 20 ms: the load lasts a few tenths of a second, which
    // a 100 ms sampler could miss entirely (DB time 0, seen once in CI).
    let (r, before, after) = interval_over(&u, &admin, 0.02, 3, |ss| commit(ss, 0, 200));
    // Exact: the server's commits less dbio snap's own are the load's
    // 600 and the 3 sessions' closing statistics flush.
    assert_eq!(stat(&r, "user commits"), 603.0, "{:?}", r.statistics);
    assert_eq!(
        stat(&r, "pg_stat_database.xact_commit") - stat(&r, "dbio.own_xact_commit"),
        603.0
    );
    // WAL syncs: snap's interval lies inside the independent reading and
    // nothing else wrote WAL on the private server.
    let syncs = stat(&r, "pg_stat_wal.wal_sync");
    assert_eq!(syncs, after - before, "psql saw {before} then {after}");
    assert!(syncs > 0.0);
    // The mapped rows: the flush itself, exact, and the sessions' wait.
    let lfpw = r
        .top_events
        .iter()
        .find(|e| e.name == "log file parallel write")
        .expect("log file parallel write");
    assert_eq!(lfpw.waits, Some(syncs));
    assert!(lfpw.time_s.unwrap() > 0.0, "track_wal_io_timing is on");
    // 'log file sync' is sampled: whether a sample caught a session in a
    // commit wait depends on the machine's load, so it is not demanded.
    assert!(r.header.db_time_s.unwrap() > 0.0);
    assert_eq!(r.derived.commits_per_redo_write, Some(603.0 / syncs));
    let v = r.verdict.as_ref().expect("a verdict");
    assert!(!v.answer.is_empty(), "{v:?}");
    let s = r.snap.as_ref().unwrap();
    // The sampler ran in the interval (how many samples it took depends on
    // how busy the machine was, so no count is demanded).
    assert!(s.sampler.as_ref().unwrap().samples > 0, "{s:?}");
    assert!(s.resets.is_empty() && s.hidden.is_empty(), "{s:?}");
    assert!(r.header.dbid.is_some(), "system_identifier read");
}

/// PostgreSQL 18 (the registry package `scripts/db-servers` installs):
/// the same exact commits, and the WAL flushes from `pg_stat_io`'s WAL
/// rows, where 18 keeps them, equal to psql's own reading; the sessions'
/// waits (`IO:WalSync`, 17's spelling) are 'log file sync'.
#[test]
fn postgresql_18_commits_and_wal_flushes_are_the_servers_exactly() {
    let Some((u, admin, _g)) = urls_of("DBIO_TEST_PG18_URL", "DBIO_TEST_PG18_ADMIN_URL") else {
        return;
    };
    let (r, before, after) =
        interval_counting(&u, &admin, 0.1, 3, wal_fsyncs_18, |ss| commit(ss, 0, 200));
    assert!(
        r.header.version.as_deref().unwrap().starts_with("18."),
        "{:?}",
        r.header
    );
    assert_eq!(stat(&r, "user commits"), 603.0, "{:?}", r.statistics);
    let lfpw = r
        .top_events
        .iter()
        .find(|e| e.name == "log file parallel write")
        .expect("log file parallel write");
    assert_eq!(
        lfpw.waits,
        Some(after - before),
        "psql saw {before} then {after}"
    );
    assert!(after > before);
    assert!(lfpw.time_s.unwrap() > 0.0, "track_wal_io_timing is on");
    // The sessions' sampled waits ('IO:WalSync', 17's spelling, is 'log
    // file sync': mapping's unit tests) depend on what the sampler caught
    // on a busy machine, so only the exact figures are demanded here.
    assert!(r.verdict.is_some());
}

#[test]
fn a_wal_statistics_reset_inside_the_interval_is_said_and_never_negative() {
    let Some((u, admin, _g)) = urls() else { return };
    let (r, _, _) = interval_over(&u, &admin, 0.2, 2, |ss| {
        commit(ss, 0, 100);
        psql(&admin, "SELECT pg_stat_reset_shared('wal')");
        commit(ss, 100, 20);
    });
    let s = r.snap.as_ref().unwrap();
    let reset: Vec<&str> = s.resets.iter().map(|x| x.group.as_str()).collect();
    assert_eq!(reset, ["pg_stat_wal"], "{s:?}");
    assert!(s.resets[0].text.contains("reset inside the interval"));
    // Counted from the reset: the 40 commits after it (and what the
    // sessions had not yet reported before it), not all 240.
    let syncs = stat(&r, "pg_stat_wal.wal_sync");
    assert!(syncs > 0.0 && syncs < 240.0, "{syncs}");
    // The commit count was not reset: still exact (the load's 240, the
    // sessions' 2 closing flushes, and psql's start-up and statement:
    // another client's commits are the server's too).
    assert_eq!(stat(&r, "user commits"), 244.0);
    for st in &r.statistics {
        assert!(st.total >= 0.0, "{st:?}");
    }
    assert!(r.findings.iter().any(|f| f.rule == "snap.reset"));
}

#[test]
fn a_role_without_pg_monitor_is_told_what_is_hidden_and_one_with_it_is_not() {
    let Some((u, admin, _g)) = urls() else { return };
    let pw = "snap-test-pw";
    for (role, grant) in [("dbio_snap_plain", ""), ("dbio_snap_monitor", "pg_monitor")] {
        psql(
            &admin,
            &format!(
                "DO $$ BEGIN IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = '{role}') \
                 THEN CREATE ROLE {role} LOGIN PASSWORD '{pw}'; END IF; END $$"
            ),
        );
        if !grant.is_empty() {
            psql(&admin, &format!("GRANT {grant} TO {role}"));
        }
    }
    let as_role = |role: &str| {
        let rest = u.split_once('@').unwrap().1;
        format!("postgres://{role}:{pw}@{rest}")
    };
    let opts = SnapOptions {
        interval_s: 0.5,
        sample_period_s: 0.1,
    };
    let take = |url: &str| {
        let mut s = dbio_snap::open(url, &opts).unwrap();
        let a = s.snapshot().unwrap();
        s.start_interval().unwrap();
        std::thread::sleep(Duration::from_millis(500));
        s.finish_interval(&a, 0.5, None).unwrap().1
    };
    let plain = take(&as_role("dbio_snap_plain"));
    let hidden = &plain.snap.as_ref().unwrap().hidden;
    assert_eq!(hidden.len(), 1, "{hidden:?}");
    assert!(
        hidden[0].contains("GRANT pg_monitor TO dbio_snap_plain"),
        "{}",
        hidden[0]
    );
    let monitor = take(&as_role("dbio_snap_monitor"));
    assert!(monitor.snap.as_ref().unwrap().hidden.is_empty());
    assert!(
        monitor.header.dbid.is_some(),
        "pg_monitor reads pg_control_system"
    );
}

#[test]
fn the_monitor_refuses_anything_but_reading() {
    let Some((u, _, _g)) = urls() else { return };
    let spec = dbio_load::target::ServerSpec::parse(&u).unwrap();
    let mut m = dbio_load::postgres::Monitor::open(&spec, "dbio snap test").unwrap();
    for sql in [
        "CREATE TABLE dbio_x (a int)",
        "SELECT 1; DROP TABLE x",
        "SET track_io_timing = on",
        "ALTER SYSTEM SET fsync = off",
    ] {
        let e = m.query(sql).unwrap_err().to_string();
        assert!(e.contains("sends only"), "{sql}: {e}");
    }
    // A write hidden in a SELECT is refused by the read-only session.
    let e = m
        .query("SELECT pg_catalog.set_config('default_transaction_read_only', 'off', false)")
        .map(|_| ())
        .and_then(|_| {
            m.query("WITH x AS (SELECT 1) SELECT nextval('pg_catalog.pg_class_oid_seq')")
                .map(|_| ())
        });
    assert!(e.is_err(), "a write through SELECT went through");
    assert_eq!(m.query("SELECT 1").unwrap(), [[Some("1".to_string())]]);
}

/// MariaDB: `DBIO_TEST_MYSQL_URL` and `DBIO_TEST_MYSQL_ADMIN_URL`.
fn my_urls() -> Option<(String, String, Guard)> {
    let get = |v: &str| std::env::var(v).ok().filter(|u| !u.is_empty());
    match (get("DBIO_TEST_MYSQL_URL"), get("DBIO_TEST_MYSQL_ADMIN_URL")) {
        (Some(u), Some(a)) => Some((u, a, SERIAL.lock().unwrap_or_else(|p| p.into_inner()))),
        _ => skip("DBIO_TEST_MYSQL_URL or DBIO_TEST_MYSQL_ADMIN_URL is not set"),
    }
}

/// One statement with the mariadb client (batch, no column names).
fn mariadb(url: &str, q: &str) -> String {
    let rest = url.split("://").nth(1).unwrap();
    let (auth, hostpath) = rest.split_once('@').unwrap();
    let (user, pw) = auth.split_once(':').unwrap();
    let (hostport, db) = hostpath.split_once('/').unwrap();
    let (host, port) = hostport.split_once(':').unwrap();
    let out = Command::new("mariadb")
        .args(["-N", "-B", "-h", host, "-P", port, "-u", user])
        .arg(format!("-p{pw}"))
        .args([db, "-e", q])
        .output()
        .expect("mariadb runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

fn my_status(url: &str, name: &str) -> f64 {
    mariadb(
        url,
        &format!("SELECT VARIABLE_VALUE FROM information_schema.GLOBAL_STATUS WHERE VARIABLE_NAME = '{name}'"),
    )
    .parse()
    .unwrap()
}

#[test]
fn mariadb_commits_are_exact_and_data_syncs_within_the_servers_readings() {
    let Some((u, admin, _g)) = my_urls() else {
        return;
    };
    let mut db: Box<dyn Database> = open_server(&u).unwrap();
    let t = table();
    db.create_table(&t).unwrap();
    let mut ss: Vec<Box<dyn Session>> = (0..2).map(|_| db.connect(&t).unwrap()).collect();
    let opts = SnapOptions {
        interval_s: 1.0,
        sample_period_s: 1.0,
    };
    let mut snap = dbio_snap::open(&u, &opts).unwrap();
    // InnoDB also syncs its data files in the background (page cleaner,
    // checkpoints), so one may fall between any two readings: the
    // interval's count is bracketed by readings just inside and just
    // outside its two snapshots (the counter only grows).
    let outer_before = my_status(&admin, "Innodb_data_fsyncs");
    let a = snap.snapshot().unwrap();
    let inner_before = my_status(&admin, "Innodb_data_fsyncs");
    commit(&mut ss, 0, 150);
    let inner_after = my_status(&admin, "Innodb_data_fsyncs");
    let (_, mut r) = snap.finish_interval(&a, 1.0, None).unwrap();
    let outer_after = my_status(&admin, "Innodb_data_fsyncs");
    drop(ss);
    db.drop_table(&t).unwrap();
    dbio_report::verdict::conclude_awr(&mut r);
    // With the binary log on, each commit is one binlog commit.
    assert_eq!(stat(&r, "global status.Binlog_commits"), 300.0);
    assert_eq!(stat(&r, "user commits"), 300.0);
    let fsyncs = stat(&r, "global status.Innodb_data_fsyncs");
    assert!(
        (inner_after - inner_before..=outer_after - outer_before).contains(&fsyncs),
        "{fsyncs} data file syncs, outside [{}, {}]",
        inner_after - inner_before,
        outer_after - outer_before
    );
    let lfpw = r
        .top_events
        .iter()
        .find(|e| e.name == "log file parallel write")
        .expect("log file parallel write");
    assert_eq!(
        lfpw.waits,
        Some(stat(&r, "global status.Binlog_group_commits"))
    );
    assert!(r.header.db_time_s.unwrap() > 0.0);
    assert!(r.verdict.is_some());
    let s = r.snap.as_ref().unwrap();
    assert!(s.hidden.is_empty(), "{s:?}");
    assert!(s
        .not_tracked
        .iter()
        .any(|n| n.setting.contains("innodb_log_file")));
}

#[test]
fn mariadb_flush_status_inside_the_interval_is_a_reset() {
    let Some((u, admin, _g)) = my_urls() else {
        return;
    };
    let opts = SnapOptions {
        interval_s: 1.0,
        sample_period_s: 1.0,
    };
    let mut snap = dbio_snap::open(&u, &opts).unwrap();
    let a = snap.snapshot().unwrap();
    // Uptime_since_flush_status moves in whole seconds.
    std::thread::sleep(Duration::from_millis(3100));
    mariadb(&admin, "FLUSH STATUS");
    let (_, r) = snap.finish_interval(&a, 1.0, None).unwrap();
    let s = r.snap.as_ref().unwrap();
    assert!(
        s.resets.iter().any(|x| x.group == "global status"),
        "{:?}",
        s.resets
    );
    for st in &r.statistics {
        assert!(st.total >= 0.0, "{st:?}");
    }
}

/// A unique name for what a test creates on a shared server.
fn unique(prefix: &str) -> String {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .subsec_nanos();
    format!("{prefix}_{}_{nanos}", std::process::id())
}

/// `url` with its user and password replaced.
fn as_account(url: &str, user: &str, pw: &str) -> String {
    let (scheme, rest) = url.split_once("://").unwrap();
    format!("{scheme}://{user}:{pw}@{}", rest.split_once('@').unwrap().1)
}

/// `url` on database `db`.
fn on_database(url: &str, db: &str) -> String {
    format!("{}/{db}", url.rsplit_once('/').unwrap().0)
}

/// Runs `undo` on drop: what a test created goes even when it fails.
struct Undo<F: FnMut()>(F);

impl<F: FnMut()> Drop for Undo<F> {
    fn drop(&mut self) {
        (self.0)()
    }
}

/// The least privileged MariaDB account (SELECT on performance_schema;
/// PROCESS changes nothing dbio snap reads) counts the commits as the
/// administrator does; without the SELECT, the hidden part is one
/// sentence naming the GRANT, and the status counters are still read.
#[test]
fn mariadb_least_privilege_counts_as_the_admin_and_without_performance_schema_names_the_grant() {
    let Some((u, admin, _g)) = my_urls() else {
        return;
    };
    let pw = "snap-least-pw";
    let base = unique("dbio_snap");
    let accounts = [
        ("least", "PROCESS ON *.*, SELECT ON performance_schema.*"),
        ("noprocess", "SELECT ON performance_schema.*"),
        ("nopfs", "PROCESS ON *.*"),
    ];
    let name = |tag: &str| format!("{base}_{tag}");
    let _drop = Undo(|| {
        for (tag, _) in accounts {
            mariadb(
                &admin,
                &format!("DROP USER IF EXISTS '{}'@'127.0.0.1'", name(tag)),
            );
        }
    });
    for (tag, grant) in accounts {
        let user = name(tag);
        mariadb(
            &admin,
            &format!("CREATE USER '{user}'@'127.0.0.1' IDENTIFIED BY '{pw}'"),
        );
        // GRANT takes one object per statement.
        for g in grant.split(", ") {
            let (privilege, on) = g.split_once(" ON ").unwrap();
            mariadb(
                &admin,
                &format!("GRANT {privilege} ON {on} TO '{user}'@'127.0.0.1'"),
            );
        }
    }
    let opts = SnapOptions {
        interval_s: 1.0,
        sample_period_s: 1.0,
    };
    // No database in the accounts' URLs: they may use none.
    let no_db = |user: &str| on_database(&as_account(&u, user, pw), "");
    let urls: Vec<String> = std::iter::once(admin.clone())
        .chain(accounts.iter().map(|(tag, _)| no_db(&name(tag))))
        .collect();
    let mut db: Box<dyn Database> = open_server(&u).unwrap();
    let t = table();
    db.create_table(&t).unwrap();
    let mut ss: Vec<Box<dyn Session>> = (0..2).map(|_| db.connect(&t).unwrap()).collect();
    let mut snaps: Vec<_> = urls
        .iter()
        .map(|url| dbio_snap::open(url, &opts).unwrap())
        .collect();
    let begins: Vec<_> = snaps.iter_mut().map(|s| s.snapshot().unwrap()).collect();
    commit(&mut ss, 0, 100);
    let reports: Vec<AwrReport> = snaps
        .iter_mut()
        .zip(&begins)
        .map(|(s, a)| s.finish_interval(a, 1.0, None).unwrap().1)
        .collect();
    drop(ss);
    db.drop_table(&t).unwrap();
    let [admin_r, least, noprocess, nopfs] = &reports[..] else {
        unreachable!()
    };
    assert_eq!(stat(admin_r, "user commits"), 200.0);
    for (r, what) in [(least, "least"), (noprocess, "noprocess"), (nopfs, "nopfs")] {
        assert_eq!(stat(r, "user commits"), 200.0, "{what}");
        assert_eq!(
            stat(r, "global status.Binlog_commits"),
            stat(admin_r, "global status.Binlog_commits"),
            "{what}"
        );
    }
    for r in [admin_r, least, noprocess] {
        let s = r.snap.as_ref().unwrap();
        assert!(s.hidden.is_empty(), "{s:?}");
        assert!(r.header.db_time_s.unwrap() > 0.0, "{:?}", r.header);
        assert!(
            r.foreground_events.iter().any(|e| e.waits > Some(0.0)),
            "every account's client waits: {:?}",
            r.foreground_events
        );
    }
    let hidden = &nopfs.snap.as_ref().unwrap().hidden;
    assert_eq!(hidden.len(), 1, "{hidden:?}");
    assert!(
        hidden[0].contains(&format!(
            "GRANT SELECT ON performance_schema.* TO '{}'@'127.0.0.1'",
            name("nopfs")
        )),
        "{}",
        hidden[0]
    );
    assert_eq!(nopfs.header.db_time_s, None);
}

/// pg_wait_sampling (preloaded by scripts/db-servers in the PostgreSQL
/// 15 cluster; the extension created here in a database of this test's
/// own, so the other tests keep dbio's sampler): DB time and its split
/// come from its profile, dbio samples nothing, the commits stay exact,
/// and under a commit load the profile's DB time is the sessions' time,
/// split so that the events add up to it and the commits' WAL waits are
/// 'log file sync'.
#[test]
fn pg_wait_sampling_is_the_db_time_source_where_installed() {
    let Some((u, admin, _g)) = urls() else { return };
    let preload = psql(&admin, "SELECT current_setting('shared_preload_libraries')");
    if !preload.split(',').any(|l| l.trim() == "pg_wait_sampling") {
        skip::<()>(&format!(
            "the server preloads '{preload}', not pg_wait_sampling (scripts/db-servers \
             start, as root, installs and preloads it)"
        ));
        return;
    }
    let name = unique("dbio_snap_ws");
    psql(&admin, &format!("CREATE DATABASE {name} OWNER dbio"));
    let _drop = Undo(|| {
        psql(
            &admin,
            &format!("DROP DATABASE IF EXISTS {name} WITH (FORCE)"),
        );
    });
    let admin_db = on_database(&admin, &name);
    psql(&admin_db, "CREATE EXTENSION pg_wait_sampling");
    let url = on_database(&u, &name);
    let (r, _, _) = interval_over(&url, &admin_db, 0.1, 3, |ss| commit(ss, 0, 200));
    let s = r.snap.as_ref().unwrap();
    assert_eq!(s.sample_source, SampleSource::PgWaitSampling, "{s:?}");
    assert!(s.sampler.is_none(), "dbio sampled nothing: {s:?}");
    assert!(
        s.notes
            .iter()
            .any(|n| n.starts_with("pg_wait_sampling is installed")),
        "{:?}",
        s.notes
    );
    // The collector commits nothing: the count is still exact.
    assert_eq!(stat(&r, "user commits"), 603.0, "{:?}", r.statistics);
    let db_time = r.header.db_time_s.unwrap();
    let elapsed = r.header.elapsed_s.unwrap();
    // Three sessions, dbio's monitor and psql at most were active.
    assert!(
        db_time > 0.0 && db_time <= 5.0 * elapsed,
        "DB time {db_time} s in {elapsed} s"
    );
    // The sessions' events (idle ones aside) add up to DB time.
    let split: f64 = r
        .foreground_events
        .iter()
        .filter(|e| e.class.as_deref() != Some("Idle"))
        .filter_map(|e| e.time_s)
        .sum();
    assert!(
        (split - db_time).abs() < 1e-6 * db_time.max(1.0),
        "{split} against {db_time}: {:?}",
        r.foreground_events
    );
    let lfs = r
        .top_events
        .iter()
        .find(|e| e.name == "log file sync")
        .unwrap_or_else(|| panic!("no 'log file sync' in {:?}", r.top_events));
    assert!(
        lfs.time_s.unwrap() > 0.0 && lfs.time_s.unwrap() <= db_time,
        "{lfs:?}"
    );
    for e in &r.top_events {
        assert!(e.time_s.unwrap_or(0.0) >= 0.0, "{e:?}");
        assert!(e.pct_db_time.unwrap_or(0.0) <= 100.0 + 1e-9, "{e:?}");
    }
    assert!(r.verdict.is_some());
}

/// A failover between the snapshots: the proxy forwards to PostgreSQL
/// 15, then to 18 (another system_identifier) with the connections cut,
/// so dbio connects again and reaches another server. The interval is
/// refused in one sentence naming both identities (before the new
/// server's views are read with the old one's queries), and a snapper
/// opened afterwards measures the new server alone, never negative.
#[test]
fn a_failover_between_the_snapshots_is_refused_in_one_sentence() {
    let Some((u, admin, _g)) = urls() else { return };
    let Some((u18, admin18)) = pair("DBIO_TEST_PG18_URL", "DBIO_TEST_PG18_ADMIN_URL") else {
        return;
    };
    let id = |a: &str| psql(a, "SELECT system_identifier FROM pg_control_system()");
    let (id15, id18) = (id(&admin), id(&admin18));
    assert_ne!(id15, id18);
    let p = proxy::Proxy::start(&proxy::addr(&u));
    let url = p.url(&u);
    let opts = SnapOptions {
        interval_s: 1.0,
        sample_period_s: 0.1,
    };
    let mut snap = dbio_snap::open(&url, &opts).unwrap();
    p.wait_for_a_client(Duration::from_secs(5));
    let a = snap.snapshot().unwrap();
    assert_eq!(a.identity.as_deref(), Some(id15.as_str()));
    snap.start_interval().unwrap();
    std::thread::sleep(Duration::from_millis(300));
    p.switch(&proxy::addr(&u18));
    std::thread::sleep(Duration::from_millis(300));
    let e = snap.finish_interval(&a, 1.0, None).map(|_| ()).unwrap_err();
    let text = e.to_string();
    assert!(matches!(e, SnapError::Failover(_)), "{e:?}");
    assert!(
        text.contains("the second snapshot is of another server than the first")
            && text.contains(&format!("identity {id15} before, {id18} after")),
        "{text}"
    );
    assert_eq!(text.lines().count(), 1);
    let pw = u.split_once("://").unwrap().1.split('@').next().unwrap();
    assert!(!text.contains(pw.split_once(':').unwrap().1), "{text}");
    // Opened again: the new server, on its own.
    let mut snap = dbio_snap::open(&url, &opts).unwrap();
    let a = snap.snapshot().unwrap();
    assert_eq!(a.identity.as_deref(), Some(id18.as_str()));
    snap.start_interval().unwrap();
    std::thread::sleep(Duration::from_millis(300));
    let (_, r) = snap.finish_interval(&a, 0.3, None).unwrap();
    assert!(r.header.version.as_deref().unwrap().starts_with("18."));
    for st in &r.statistics {
        assert!(st.total >= 0.0, "{st:?}");
    }
    for e in r.top_events.iter().chain(&r.foreground_events) {
        assert!(
            e.time_s.unwrap_or(0.0) >= 0.0 && e.waits.unwrap_or(0.0) >= 0.0,
            "{e:?}"
        );
    }
}
