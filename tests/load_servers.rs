//! `dbio load` against the private PostgreSQL and MariaDB servers
//! (`scripts/db-servers`, started by `scripts/test` as root): the real
//! binary, real servers, real signals. Without `DBIO_TEST_PG_URL` /
//! `DBIO_TEST_MYSQL_URL` a test prints why it skips. The counters are
//! server-wide, so .config/nextest.toml runs these one at a time with the
//! other server tests.
//!
//! See: issue 11.

use crate::util::{dbio, dbio_path, json, skip_this_test, tool, wait_output_within};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

#[derive(Clone, Copy, PartialEq)]
enum Kind {
    Pg,
    My,
}

fn url(kind: Kind) -> Option<String> {
    let var = match kind {
        Kind::Pg => "DBIO_TEST_PG_URL",
        Kind::My => "DBIO_TEST_MYSQL_URL",
    };
    crate::util::server_url(var)
}

/// user, password, host, port, database of a `scheme://u:p@h:port/db` URL.
fn parts(url: &str) -> [String; 5] {
    let rest = url.split("://").nth(1).unwrap();
    let (auth, hostpath) = rest.split_once('@').unwrap();
    let (user, pw) = auth.split_once(':').unwrap();
    let (hostport, db) = hostpath.split_once('/').unwrap();
    let (host, port) = hostport.split_once(':').unwrap();
    [user, pw, host, port, db.split('?').next().unwrap()].map(String::from)
}

/// The `mariadb` client's arguments for `url` (batch, no column names).
fn my_args(url: &str) -> Vec<String> {
    let [user, pw, host, port, db] = parts(url);
    [
        "-N",
        "-B",
        "-h",
        &host,
        "-P",
        &port,
        "-u",
        &user,
        &format!("-p{pw}"),
        &db,
    ]
    .map(String::from)
    .to_vec()
}

/// Runs one SQL statement with the server's own command-line client and
/// returns its unaligned, header-less output.
fn sql(kind: Kind, url: &str, q: &str) -> String {
    let out = match kind {
        Kind::Pg => tool(Command::new("psql").args(["-XAtq", url, "-c", q])),
        Kind::My => tool(Command::new("mariadb").args(my_args(url)).args(["-e", q])),
    }
    .unwrap();
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

/// The dbio tables on the server (none should outlive a run).
fn dbio_tables(kind: Kind, url: &str) -> String {
    let q = match kind {
        Kind::Pg => "SELECT string_agg(tablename, ',') FROM pg_tables WHERE tablename LIKE 'dbio\\_load\\_%'",
        Kind::My => "SELECT group_concat(table_name) FROM information_schema.tables WHERE table_schema = database() AND table_name LIKE 'dbio\\_load\\_%'",
    };
    let s = sql(kind, url, q);
    if s == "NULL" {
        String::new()
    } else {
        s
    }
}

/// Whether dbio's sessions have committed inserts (PostgreSQL: the
/// statistics their backends report, at least once a second while they
/// commit), so that a signal sent now finds measured commits: connected
/// sessions alone may still be preparing their statements.
fn inserted(kind: Kind, url: &str) -> bool {
    match kind {
        Kind::Pg => {
            sql(
                kind,
                url,
                "SELECT coalesce(sum(n_tup_ins), 0) > 0 FROM pg_stat_user_tables \
                 WHERE relname LIKE 'dbio\\_load\\_%'",
            ) == "t"
        }
        Kind::My => true,
    }
}

/// The ids of the server connections inserting into a dbio table.
fn loading_sessions(kind: Kind, url: &str) -> Vec<String> {
    let q = match kind {
        Kind::Pg => "SELECT pid FROM pg_stat_activity WHERE application_name = 'dbio load'",
        // dbio's connections other than this one, newest first: the
        // monitoring connection is made before the sessions.
        Kind::My => "SELECT id FROM information_schema.processlist WHERE user = substring_index(current_user(), '@', 1) AND id <> connection_id() ORDER BY id DESC",
    };
    sql(kind, url, q)
        .lines()
        .filter(|l| !l.is_empty())
        .map(String::from)
        .collect()
}

fn exact_counts(kind: Kind) {
    let Some(u) = url(kind) else { return };
    let out = dbio()
        .args([
            "load",
            &u,
            "--sessions",
            "4",
            "--commits",
            "150",
            "--quiet",
            "--json",
            "-",
        ])
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v = json(&out.stdout);
    let r = &v["load"][0];
    assert_eq!(r["commits"], 600);
    assert_eq!(r["commit"]["count"], 600);
    // The server's own counter (xact_commit, Com_commit/Handler_commit),
    // less dbio's monitoring, is exactly the load.
    assert_eq!(r["flush"]["server_commits"], 600, "{}", r["flush"]);
    let table = r["table"].as_str().unwrap();
    assert!(table.starts_with("dbio_load_"), "{table}");
    assert_eq!(dbio_tables(kind, &u), "", "the table outlived the run");
    assert!(!String::from_utf8_lossy(&out.stdout).contains(&parts(&u)[1]));
}

#[test]
fn postgres_commits_equal_xact_commit_and_the_table_is_dropped() {
    exact_counts(Kind::Pg);
}

/// The wait sampler runs during a PostgreSQL load on a connection of its
/// own: the sessions' backends are seen, each backend type's shares add
/// up to 100 %, and its queries do not spoil the exact commit count.
#[test]
fn postgres_waits_are_sampled_and_the_count_stays_exact() {
    let Some(u) = url(Kind::Pg) else { return };
    let out = dbio()
        .args([
            "load",
            &u,
            "--sessions",
            "4",
            "--runtime",
            "2s",
            "--quiet",
            "--no-baseline",
            "--json",
            "-",
        ])
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v = json(&out.stdout);
    let r = &v["load"][0];
    assert_eq!(r["flush"]["server_commits"], r["commits"], "{}", r["flush"]);
    let waits = r["waits"].as_array().expect("waits");
    let client: Vec<_> = waits
        .iter()
        .filter(|w| w["backend"] == "client backend")
        .collect();
    let samples: u64 = client.iter().map(|w| w["samples"].as_u64().unwrap()).sum();
    // About 80 looks at 4 backends in 2 s; a loaded machine looks less often.
    assert!(samples >= 40, "{waits:?}");
    let total: f64 = client
        .iter()
        .map(|w| w["share_pct"].as_f64().unwrap())
        .sum();
    assert!((total - 100.0).abs() < 0.01, "{waits:?}");
}

#[test]
fn mariadb_commits_equal_the_server_counter_and_the_table_is_dropped() {
    exact_counts(Kind::My);
}

fn wrong_password(kind: Kind) {
    let Some(u) = url(kind) else { return };
    let pw = parts(&u)[1].clone();
    let bad = u.replacen(&format!(":{pw}@"), ":n0t-th3-pw@", 1);
    let out = dbio()
        .args(["load", &bad, "--commits", "5"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert_eq!(err.trim_end().lines().count(), 1, "{err}");
    assert!(!err.contains("n0t-th3-pw") && !err.contains(&pw), "{err}");
    assert!(!err.contains("panicked"), "{err}");
}

#[test]
fn postgres_wrong_password_is_one_sentence_without_it() {
    wrong_password(Kind::Pg);
}

#[test]
fn mariadb_wrong_password_is_one_sentence_without_it() {
    wrong_password(Kind::My);
}

/// Starts a long run, waits until its sessions are on the server and have
/// committed inserts, calls `interrupt` with the dbio process id and the
/// sessions' server ids, and returns what dbio gave within 30 s.
fn interrupted_run(kind: Kind, u: &str, interrupt: impl FnOnce(u32, &[String])) -> Output {
    let child = Command::new(dbio_path())
        .args([
            "load",
            u,
            "--sessions",
            "4",
            "--runtime",
            "60",
            "--quiet",
            "--json",
            "-",
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let t0 = Instant::now();
    // MariaDB lists the monitoring connection too.
    let want = if kind == Kind::My { 5 } else { 4 };
    let sessions = loop {
        let mut s = loading_sessions(kind, u);
        // Connected sessions may still be preparing, or dbio may still be
        // measuring the device baseline: wait for committed inserts, so
        // that the interruption finds measured commits.
        if s.len() >= want && inserted(kind, u) {
            s.truncate(4);
            break Some(s);
        }
        if t0.elapsed() > Duration::from_secs(30) {
            break None;
        }
    };
    if let Some(s) = &sessions {
        interrupt(child.id(), s);
    }
    let out = wait_output_within(
        child,
        Duration::from_secs(if sessions.is_some() { 30 } else { 0 }),
    );
    assert!(
        sessions.is_some(),
        "no sessions within 30 s: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

fn sigint(kind: Kind) {
    let Some(u) = url(kind) else { return };
    let out = interrupted_run(kind, &u, |pid, _| {
        if kind == Kind::My {
            // A DBA recognises dbio's connections by their program name.
            let n = sql(
                kind,
                &u,
                "SELECT count(*) FROM performance_schema.session_connect_attrs \
                 WHERE ATTR_NAME = 'program_name' AND ATTR_VALUE = 'dbio'",
            );
            assert!(n.parse::<u32>().unwrap() >= 5, "{n} dbio connections");
        }
        // SAFETY: kill with a valid pid and signal.
        assert_eq!(unsafe { libc::kill(pid as i32, libc::SIGINT) }, 0);
    });
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    let v = json(&out.stdout);
    assert_eq!(v["partial"]["signal"], "SIGINT");
    assert!(v["load"][0]["commits"].as_u64().unwrap() > 0);
    assert_eq!(dbio_tables(kind, &u), "", "the table outlived SIGINT");
}

#[test]
fn postgres_sigint_mid_run_is_partial_and_drops_the_table() {
    sigint(Kind::Pg);
}

#[test]
fn mariadb_sigint_mid_run_is_partial_and_drops_the_table() {
    sigint(Kind::My);
}

fn killed_sessions(kind: Kind) {
    let Some(u) = url(kind) else { return };
    let out = interrupted_run(kind, &u, |_, ids| {
        // The sessions are killed from another connection, as a DBA would.
        let admin = std::env::var("DBIO_TEST_PG_ADMIN_URL").ok();
        match kind {
            Kind::Pg => {
                let ids = ids.join(",");
                let q = format!("SELECT count(*) FROM (SELECT pg_terminate_backend(pid) FROM unnest(ARRAY[{ids}]) AS pid) AS t");
                sql(kind, admin.as_deref().unwrap_or(&u), &q);
            }
            // The first kill stops the run, which closes the other sessions:
            // only the first must find its connection.
            Kind::My => {
                sql(kind, &u, &format!("KILL CONNECTION {}", ids[0]));
                for id in &ids[1..] {
                    let _ = tool(
                        Command::new("mariadb")
                            .args(my_args(&u))
                            .args(["-e", &format!("KILL CONNECTION {id}")]),
                    );
                }
            }
        }
    });
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(!err.contains("panicked"), "{err}");
    assert!(!err.contains(&parts(&u)[1]), "{err}");
    // One stderr line names the session and the error, at once.
    let line = err
        .lines()
        .find(|l| l.contains("lost the connection to the server"))
        .unwrap_or_else(|| panic!("no stderr line about the lost session: {err}"));
    assert!(line.starts_with("dbio: session "), "{line}");
    assert!(line.contains("partial"), "{line}");
    let v = json(&out.stdout);
    // One sentence saying the server ended the session, recorded where
    // every partial result says why (the table's header and the JSON).
    assert_eq!(v["partial"]["kind"], "io_error", "{}", v["partial"]);
    let why = v["partial"]["message"].as_str().unwrap();
    assert!(why.contains("lost the connection to the server"), "{why}");
    assert!(!why.contains('\n') && !why.contains(&parts(&u)[1]), "{why}");
    assert!(v["load"][0]["commits"].as_u64().unwrap() > 0);
    // The monitoring connection was not killed: the table is dropped.
    assert_eq!(dbio_tables(kind, &u), "", "the table outlived the run");
}

#[test]
fn postgres_sessions_terminated_mid_run_give_a_partial_result() {
    killed_sessions(Kind::Pg);
}

#[test]
fn mariadb_sessions_killed_mid_run_give_a_partial_result() {
    killed_sessions(Kind::My);
}

/// The admin URL of a server (settings that need a superuser), or a skip.
fn admin_url(kind: Kind) -> Option<String> {
    let var = match kind {
        Kind::Pg => "DBIO_TEST_PG_ADMIN_URL",
        Kind::My => "DBIO_TEST_MYSQL_ADMIN_URL",
    };
    match std::env::var(var) {
        Ok(u) if !u.is_empty() => Some(u),
        _ => {
            skip_this_test(&format!(
                "{var} is not set (scripts/db-servers env gives it)"
            ));
            None
        }
    }
}

/// A setting as the server shows it now.
fn show(kind: Kind, url: &str, name: &str) -> String {
    match kind {
        Kind::Pg => sql(kind, url, &format!("SHOW {name}")),
        Kind::My => sql(kind, url, &format!("SELECT @@GLOBAL.{name}")),
    }
}

#[test]
fn postgres_compare_interleaves_rounds_for_dbio_sessions_only() {
    let Some(u) = url(Kind::Pg) else { return };
    let before = show(Kind::Pg, &u, "synchronous_commit");
    let out = dbio()
        .args([
            "load",
            &u,
            "--sessions",
            "2",
            "--commits",
            "100",
            "--compare",
            "synchronous_commit=on,off",
            "--rounds",
            "2",
            "--no-baseline",
            "--json",
            "-",
        ])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{err}");
    let v = json(&out.stdout);
    let rounds: Vec<String> = v["load"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["name"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(
        rounds,
        [
            "synchronous_commit=on #1",
            "synchronous_commit=off #1",
            "synchronous_commit=on #2",
            "synchronous_commit=off #2"
        ]
    );
    let c = &v["load_compare"];
    assert_eq!(c["settings"][0]["scope"], "session");
    assert_eq!(c["settings"][0]["original"], before.as_str());
    assert_eq!(c["settings"][0]["restored"], true);
    // The setting reached the sessions: without waiting for the WAL
    // flush, many commits share one (hundreds here, about 2 with on), or
    // the WAL writer flushed nothing at all during a round that short
    // (then there is no ratio to give: null).
    let cpf = |i: usize| c["configs"][i]["commits_per_flush"]["median"].as_f64();
    let on = cpf(0).expect("every commit with synchronous_commit=on waits for a flush");
    assert!(
        cpf(1).is_none_or(|off| off > 3.0 * on),
        "on {on} off {:?}",
        cpf(1)
    );
    assert_eq!(c["configs"][1]["rounds"], 2);
    // Each round's settings echo is what its sessions ran with.
    for (i, want) in [(0, "on"), (1, "off"), (2, "on"), (3, "off")] {
        let set = v["load"][i]["server"]["settings"].as_array().unwrap();
        let got = set
            .iter()
            .find(|s| s["name"] == "synchronous_commit")
            .unwrap();
        assert_eq!(got["value"], want, "round {i}");
    }
    assert!(v.get("baseline").is_none() && v["load"][0].get("baseline").is_none());
    // Nothing server-wide was touched.
    assert_eq!(show(Kind::Pg, &u, "synchronous_commit"), before);
    assert_eq!(dbio_tables(Kind::Pg, &u), "");
}

/// Starts a comparison of `name` on the admin URL, interrupts it with
/// two SIGINTs in a row once `name` shows `changed` and the sessions
/// commit, and checks that dbio still put it back (a second SIGINT
/// exits at once in other commands).
fn restored_after_sigint(kind: Kind, name: &str, values: &str, changed: &str) -> serde_json::Value {
    let u = admin_url(kind).unwrap();
    let before = show(kind, &u, name);
    let child = Command::new(dbio_path())
        .args([
            "load",
            &u,
            "--sessions",
            "2",
            "--runtime",
            "60",
            "--compare",
        ])
        .arg(format!("{name}={values}"))
        .args(["--no-baseline", "--quiet", "--json", "-"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // MariaDB lists the monitoring connection too.
    let want = if kind == Kind::My { 3 } else { 2 };
    let t0 = Instant::now();
    let mut seen = false;
    while t0.elapsed() < Duration::from_secs(30) {
        if show(kind, &u, name) == changed
            && loading_sessions(kind, &u).len() >= want
            && inserted(kind, &u)
        {
            seen = true;
            break;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    for _ in 0..2 {
        // SAFETY: kill with a valid pid and signal.
        assert_eq!(unsafe { libc::kill(child.id() as i32, libc::SIGINT) }, 0);
        std::thread::sleep(Duration::from_millis(5));
    }
    let out = wait_output_within(child, Duration::from_secs(30));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(seen, "the setting was never changed: {err}");
    assert_eq!(out.status.code(), Some(1), "{err}");
    let v = json(&out.stdout);
    assert_eq!(v["partial"]["signal"], "SIGINT");
    assert_eq!(v["load_compare"]["settings"][0]["scope"], "server");
    assert_eq!(v["load_compare"]["settings"][0]["restored"], true);
    assert!(v["load"][0]["commits"].as_u64().unwrap() > 0);
    assert_eq!(show(kind, &u, name), before);
    let warned = v["findings"].as_array().unwrap().iter().any(|w| {
        w["text"]
            .as_str()
            .is_some_and(|w| w.contains("server-wide") && w.contains(name))
    });
    assert!(warned, "{}", v["findings"]);
    assert_eq!(dbio_tables(kind, &u), "");
    v
}

#[test]
fn postgres_compare_restores_an_alter_system_setting_after_sigint() {
    let Some(u) = admin_url(Kind::Pg) else { return };
    let auto = "SELECT count(*) FROM pg_file_settings WHERE name = 'wal_writer_delay' \
                AND sourcefile LIKE '%postgresql.auto.conf'";
    let auto_before = sql(Kind::Pg, &u, auto);
    restored_after_sigint(Kind::Pg, "wal_writer_delay", "10ms,20ms", "10ms");
    // postgresql.auto.conf is as it was too.
    assert_eq!(sql(Kind::Pg, &u, auto), auto_before);
}

#[test]
fn mariadb_compare_restores_a_global_variable_after_sigint() {
    if admin_url(Kind::My).is_none() {
        return;
    }
    restored_after_sigint(Kind::My, "binlog_commit_wait_usec", "1000,2000", "1000");
}

#[test]
fn mariadb_compare_sets_global_variables_and_restores_them() {
    let Some(u) = admin_url(Kind::My) else { return };
    let before = show(Kind::My, &u, "innodb_flush_log_at_trx_commit");
    let out = dbio()
        .args([
            "load",
            &u,
            "--sessions",
            "2",
            "--commits",
            "50",
            "--compare",
            "innodb_flush_log_at_trx_commit=1,2",
            "--rounds",
            "1",
            "--no-baseline",
            "--json",
            "-",
        ])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{err}");
    let v = json(&out.stdout);
    let c = &v["load_compare"];
    assert_eq!(c["settings"][0]["original"], before.as_str());
    assert_eq!(c["settings"][0]["restored"], true);
    assert_eq!(c["configs"].as_array().unwrap().len(), 2);
    // Each round ran with its value (the settings echo is read per round).
    for (i, want) in [(0, "1"), (1, "2")] {
        let set = v["load"][i]["server"]["settings"].as_array().unwrap();
        let got = set
            .iter()
            .find(|s| s["name"] == "innodb_flush_log_at_trx_commit")
            .unwrap();
        assert_eq!(got["value"], want, "round {i}");
    }
    assert_eq!(show(Kind::My, &u, "innodb_flush_log_at_trx_commit"), before);
    assert_eq!(dbio_tables(Kind::My, &u), "");
}

fn refused(kind: Kind, u: &str, compare: &str, name: &str, want: &str) {
    let before = show(kind, u, name);
    let out = dbio()
        .args(["load", u, "--commits", "10", "--compare", compare])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert_eq!(err.trim().lines().count(), 1, "{err}");
    assert!(err.contains(want), "{err}");
    assert!(!err.contains(&parts(u)[1]), "{err}");
    assert!(out.stdout.is_empty());
    assert_eq!(show(kind, u, name), before);
    assert_eq!(dbio_tables(kind, u), "");
}

#[test]
fn postgres_compare_refuses_unknown_and_unrestorable_settings_before_changing_anything() {
    let Some(u) = url(Kind::Pg) else { return };
    refused(
        Kind::Pg,
        &u,
        "fsync=on,off",
        "fsync",
        "cannot compare fsync",
    );
    // ALTER SYSTEM needs a superuser: without one dbio could not restore.
    refused(
        Kind::Pg,
        &u,
        "wal_sync_method=fdatasync,open_datasync",
        "wal_sync_method",
        "needs a superuser",
    );
    // commit_delay is a superuser's session setting: the server says no.
    refused(
        Kind::Pg,
        &u,
        "commit_delay=0,100",
        "commit_delay",
        "does not let dbio set",
    );
}

#[test]
fn mariadb_compare_refuses_a_global_setting_this_user_cannot_restore() {
    let Some(u) = url(Kind::My) else { return };
    refused(Kind::My, &u, "sync_binlog=1,0", "sync_binlog", "SET GLOBAL");
    refused(
        Kind::My,
        &u,
        "synchronous_commit=on,off",
        "sync_binlog",
        "cannot compare synchronous_commit on mariadb",
    );
}

#[test]
fn postgres_baseline_is_measured_in_pg_wal_when_it_can_be_found() {
    let Some(u) = admin_url(Kind::Pg) else { return };
    let d = crate::util::scratch();
    let run = |url: &str| {
        let out = dbio()
            .current_dir(d.path())
            .args([
                "load",
                url,
                "--sessions",
                "1",
                "--commits",
                "20",
                "--json",
                "-",
            ])
            .output()
            .unwrap();
        assert_eq!(
            out.status.code(),
            Some(0),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        json(&out.stdout)["load"][0]["baseline"].clone()
    };
    // A superuser may read data_directory: the probe runs in pg_wal.
    let b = run(&u);
    assert!(b["dir"].as_str().unwrap().ends_with("pg_wal"), "{b}");
    assert_eq!(b["place"], "the database's log directory");
    for when in ["before", "after"] {
        assert!(b[when]["writes"].as_u64().unwrap() >= 1, "{b}");
        assert_eq!(b[when]["block_bytes"], 4096);
        assert_eq!(b[when]["latency"]["count"], b[when]["writes"], "{b}");
    }
    // The load user may not: the probe runs in the current directory and says so.
    let Some(plain) = url(Kind::Pg) else { return };
    let b = run(&plain);
    assert_eq!(b["dir"], ".");
    assert!(
        b["place"].as_str().unwrap().contains("not on this machine"),
        "{b}"
    );
    // Nothing is left where a probe ran.
    assert!(std::fs::read_dir(d.path()).unwrap().next().is_none());
}

#[test]
fn mariadb_baseline_is_measured_in_the_redo_log_directory() {
    let Some(u) = url(Kind::My) else { return };
    let out = dbio()
        .args([
            "load",
            &u,
            "--sessions",
            "1",
            "--commits",
            "20",
            "--json",
            "-",
        ])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{err}");
    let b = json(&out.stdout)["load"][0]["baseline"].clone();
    // innodb_log_group_home_dir is ./ here: the data directory itself.
    let datadir = sql(Kind::My, &u, "SELECT @@datadir");
    assert_eq!(
        b["dir"].as_str().unwrap(),
        datadir.trim_end_matches('/'),
        "{b}"
    );
    assert_eq!(b["place"], "the database's log directory");
    assert!(b["before"]["writes"].as_u64().unwrap() >= 1, "{b}");
    assert!(b["after"]["writes"].as_u64().unwrap() >= 1, "{b}");
}

/// `--predict` against a server: the model runs with the database's
/// protocol and sync method, the CPU its backends and the client spent
/// per commit, and leaves nothing behind where it ran. See: issue 11.
fn predict(kind: Kind, u: &str, admin: bool) {
    let d = crate::util::scratch();
    let out = dbio()
        .current_dir(d.path())
        .args([
            "load",
            u,
            "--sessions",
            "3",
            "--commits",
            "100",
            "--predict",
            "--quiet",
            "--json",
            "-",
        ])
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v = json(&out.stdout);
    let r = &v["load"][0];
    let p = &r["predict"];
    let setting = |n: &str| {
        r["server"]["settings"]
            .as_array()
            .unwrap()
            .iter()
            .find(|s| s["name"] == n)
            .map(|s| s["value"].as_str().unwrap().to_string())
    };
    assert_eq!(p["protocol"], "leader", "{p}");
    assert_eq!(p["model_sessions"], 3);
    assert_eq!(p["model_commits"], 300);
    match kind {
        Kind::Pg => {
            let want = match setting("wal_sync_method").as_deref() {
                Some("open_datasync" | "open_sync") => "buffered-dsync",
                Some("fsync" | "fsync_writethrough") => "buffered-fsync",
                _ => "buffered-fdatasync",
            };
            assert_eq!(p["method"], want, "{p}");
            assert_eq!(p["block_size"], 8192);
            assert_eq!(p["syncs_per_flush"], 1);
        }
        Kind::My => {
            // Prepare and binary log are two group commits, pipelined,
            // when both are synced at commit.
            let both = setting("log_bin").as_deref() == Some("ON")
                && setting("sync_binlog").as_deref() == Some("1")
                && setting("innodb_flush_log_at_trx_commit").as_deref() != Some("2")
                && setting("innodb_flush_log_at_trx_commit").as_deref() != Some("0");
            assert_eq!(p["syncs_per_flush"], if both { 2 } else { 1 }, "{p}");
            assert_eq!(p["pipeline"].as_bool().unwrap_or(false), both, "{p}");
            // The binary log stage is appended through the page cache.
            assert_eq!(p["stage_append"].as_bool().unwrap_or(false), both, "{p}");
        }
    }
    let pred = p["predicted_tps"].as_f64().unwrap();
    assert!(pred > 0.0 && pred.is_finite(), "{p}");
    assert_eq!(p["measured_tps"], r["tps"]);
    // The model's sessions burn the server's CPU, their client threads
    // the client's.
    let client = r["cpu"]["per_io_ns"].as_f64().unwrap();
    let server = r["server_cpu"]["per_io_ns"].as_f64();
    let fed = p["txn_cpu_ns"].as_u64().unwrap() as f64;
    assert!((fed - server.unwrap_or(0.0)).abs() <= 1.0, "{p}");
    // The model's own commit-path CPU per commit (its flushes in it) was
    // measured and taken off the server's, which holds the server's own;
    // likewise its client threads' per round trip off the client's.
    let flush_cpu = p["model_flush_cpu_ns"].as_f64().unwrap();
    assert!(flush_cpu > 0.0, "{p}");
    let path_cpu = p["model_session_path_cpu_ns"].as_f64().unwrap();
    assert!(path_cpu >= flush_cpu, "{p}");
    assert!(p["model_client_path_cpu_ns"].as_f64().unwrap() > 0.0, "{p}");
    let fed_client = p["model_client_cpu_ns"].as_u64().unwrap() as f64;
    assert!((fed_client - client.max(1.0)).abs() <= 1.0, "{p}");
    // The log bytes per commit are the server's own count.
    let bytes = r["flush"]["bytes"].as_u64().unwrap();
    assert_eq!(p["redo_bytes"].as_u64().unwrap(), bytes / 300, "{p}");
    let dir = std::path::PathBuf::from(p["dir"].as_str().unwrap());
    if admin {
        // The server runs here: the model ran beside its log, and the
        // backends' CPU was read (a PostgreSQL backend is a process).
        assert!(dir.ends_with("pg_wal"), "{p}");
        assert!(server.is_some_and(|s| s > 0.0), "{r}");
        let ncpu = std::thread::available_parallelism().unwrap().get() as f64;
        assert!(r["server_cpu"]["utilisation"].as_f64().unwrap() <= ncpu + 0.5);
    } else {
        assert!(!p["dir_reason"].as_str().unwrap().is_empty(), "{p}");
    }
    if let Some(s) = server {
        // One connection's CPU, not its whole server process's (MariaDB's
        // connections are threads of one process).
        let ncpu = std::thread::available_parallelism().unwrap().get() as f64;
        let util = r["server_cpu"]["utilisation"].as_f64().unwrap();
        assert!(
            util <= ncpu + 0.5,
            "{util} CPUs for the backends, {s} ns per commit"
        );
    }
    // Nothing of the model's is left where it ran.
    let left: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with("dbio-") || n.starts_with(".dbio"))
        .collect();
    assert!(left.is_empty(), "{left:?} in {}", dir.display());
    assert_eq!(dbio_tables(kind, u), "", "the table outlived the run");
}

#[test]
fn postgres_predict_runs_the_model_with_the_servers_protocol_and_cpu() {
    let Some(u) = url(Kind::Pg) else { return };
    predict(Kind::Pg, &u, false);
    match std::env::var("DBIO_TEST_PG_ADMIN_URL") {
        Ok(a) if !a.is_empty() => predict(Kind::Pg, &a, true),
        _ => skip_this_test("DBIO_TEST_PG_ADMIN_URL is not set: the WAL directory is not checked"),
    }
}

#[test]
fn mariadb_predict_runs_the_model_with_the_servers_protocol_and_cpu() {
    let Some(u) = url(Kind::My) else { return };
    predict(Kind::My, &u, false);
}
