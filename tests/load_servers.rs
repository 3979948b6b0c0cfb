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
    match std::env::var(var) {
        Ok(u) if !u.is_empty() => Some(u),
        _ => {
            skip_this_test(&format!(
                "{var} is not set (scripts/test starts private servers as root)"
            ));
            None
        }
    }
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

/// Starts a long run, waits until its sessions are on the server, calls
/// `interrupt` with the dbio process id and the sessions' server ids, and
/// returns what dbio gave within 30 s.
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
        if s.len() >= want {
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
            let binlog = setting("log_bin").as_deref() == Some("ON")
                && setting("sync_binlog").as_deref() == Some("1");
            assert_eq!(p["syncs_per_flush"], if binlog { 2 } else { 1 }, "{p}");
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
