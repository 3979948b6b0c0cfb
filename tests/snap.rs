//! `dbio snap` against the private PostgreSQL server (`scripts/db-servers`;
//! `DBIO_TEST_PG_URL`, `DBIO_TEST_PG_ADMIN_URL`, `DBIO_DB_DIR`): the real
//! binary, real signals, a real restart, a real failover (PostgreSQL 15
//! to 18 behind a proxy). Without the URLs a test prints why it skips;
//! under CI, which starts the servers, it fails instead. The server-wide
//! counters make these run one at a time with the other server tests
//! (.config/nextest.toml).
//!
//! See: issue 25.

#[path = "../crates/snap/tests/support/proxy.rs"]
mod proxy;

use crate::util::{dbio, dbio_path, json, server_url, wait_output_within};
use std::process::{Command, Stdio};
use std::time::Duration;

/// The password in a URL, for checking it never shows.
fn password_of(url: &str) -> String {
    let auth = url.split("://").nth(1).unwrap().split('@').next().unwrap();
    auth.split_once(':').unwrap().1.to_string()
}

fn psql(url: &str, q: &str) -> String {
    let out = Command::new("psql")
        .args(["-XAtq", url, "-c", q])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

#[test]
fn snap_of_an_unreachable_server_or_a_wrong_password_is_one_sentence_and_status_2() {
    let Some(u) = server_url("DBIO_TEST_PG_URL") else {
        return;
    };
    let pw = password_of(&u);
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let unreachable = format!("postgres://dbio:{pw}@127.0.0.1:{port}/dbio");
    let wrong = u.replacen(&format!(":{pw}@"), ":not-the-password@", 1);
    for (url, want) in [
        (unreachable.as_str(), "cannot connect to"),
        (wrong.as_str(), "password authentication failed"),
    ] {
        let out = dbio()
            .args(["snap", url, "--interval", "1", "--quiet"])
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{err}");
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(err.contains(want), "{err}");
        assert!(
            !err.contains(&pw) && !err.contains("not-the-password"),
            "{err}"
        );
        assert!(out.stdout.is_empty());
    }
}

#[test]
fn snap_writes_an_awr_result_that_report_and_compare_read() {
    let Some(u) = server_url("DBIO_TEST_PG_URL") else {
        return;
    };
    let d = crate::util::scratch();
    let a = d.path().join("a.json");
    let b = d.path().join("b.json");
    for f in [&a, &b] {
        dbio()
            .args([
                "snap",
                &u,
                "--interval",
                "1",
                "--sample-period",
                "200ms",
                "--quiet",
            ])
            .arg("--json")
            .arg(f)
            .assert()
            .success();
    }
    let v = json(&std::fs::read(&a).unwrap());
    assert_eq!(v["command"], "awr");
    assert_eq!(v["kind"], "postgres_snap");
    assert_eq!(v["snap"]["family"], "postgres");
    assert!(v["snap"]["sampler"]["samples"].as_u64().unwrap() > 0);
    assert!(v["verdict"].is_object());
    let shown = dbio().args(["report", "--from"]).arg(&a).output().unwrap();
    let text = String::from_utf8_lossy(&shown.stdout);
    assert!(
        text.contains("a PostgreSQL snapshot interval (dbio snap)"),
        "{text}"
    );
    assert!(text.contains("sampled from pg_stat_activity"), "{text}");
    let html = dbio()
        .args(["report", "--html", "-", "--from"])
        .arg(&a)
        .output()
        .unwrap();
    let page = String::from_utf8_lossy(&html.stdout);
    assert!(page.contains("id=\"h-snap\""));
    assert!(
        page.contains("id=\"summary\">PostgreSQL snapshot; result schema version"),
        "the summary names the server, not the kind's Rust name"
    );
    let cmp = dbio().arg("compare").arg(&a).arg(&b).output().unwrap();
    assert!(
        cmp.status.success(),
        "{}",
        String::from_utf8_lossy(&cmp.stderr)
    );
}

#[test]
fn snap_every_for_is_a_trend_of_contiguous_intervals() {
    let Some(u) = server_url("DBIO_TEST_PG_URL") else {
        return;
    };
    let out = dbio()
        .args([
            "snap",
            &u,
            "--every",
            "1s",
            "--for",
            "3s",
            "--sample-period",
            "250ms",
        ])
        .args(["--quiet", "--json", "-"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v = json(&out.stdout);
    assert_eq!(v["command"], "awr trend");
    let iv = v["intervals"].as_array().unwrap();
    assert_eq!(iv.len(), 3);
    for (k, i) in iv.iter().enumerate() {
        assert_eq!(i["header"]["begin_snap"], k as u64 + 1);
        assert_eq!(i["kind"], "postgres_snap");
    }
}

#[test]
fn sigint_mid_interval_saves_the_partial_interval_marked() {
    let Some(u) = server_url("DBIO_TEST_PG_URL") else {
        return;
    };
    for signals in [1, 2] {
        let child = Command::new(dbio_path())
            .args(["snap", &u, "--interval", "60", "--quiet", "--json", "-"])
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        std::thread::sleep(Duration::from_millis(2500));
        for _ in 0..signals {
            // SAFETY: kill with a valid pid and signal.
            assert_eq!(unsafe { libc::kill(child.id() as i32, libc::SIGINT) }, 0);
            std::thread::sleep(Duration::from_millis(50));
        }
        let out = wait_output_within(child, Duration::from_secs(30));
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{err}");
        let v = json(&out.stdout);
        assert_eq!(v["snap"]["partial"], "SIGINT");
        let elapsed = v["header"]["elapsed_s"].as_f64().unwrap();
        assert!(elapsed > 2.0 && elapsed < 15.0, "{elapsed}");
        assert!(
            v["findings"]
                .as_array()
                .unwrap()
                .iter()
                .any(|f| f["rule"] == "snap.partial"),
            "{v}"
        );
    }
}

#[test]
fn a_server_restart_inside_the_interval_is_detected_and_said() {
    let (Some(u), Some(admin), Some(dir)) = (
        server_url("DBIO_TEST_PG_URL"),
        server_url("DBIO_TEST_PG_ADMIN_URL"),
        server_url("DBIO_DB_DIR"),
    ) else {
        return;
    };
    let bin = psql(
        &admin,
        "SELECT setting FROM pg_config WHERE name = 'BINDIR'",
    );
    let child = Command::new(dbio_path())
        .args(["snap", &u, "--interval", "8", "--sample-period", "200ms"])
        .args(["--quiet", "--json", "-"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_millis(1500));
    let restart = Command::new("runuser")
        .args(["-u", "postgres", "--"])
        .arg(format!("{bin}/pg_ctl"))
        .args([
            "-D",
            &format!("{dir}/pg"),
            "-l",
            &format!("{dir}/pg-run/pg.log"),
        ])
        .args(["-m", "fast", "-w", "-t", "60", "restart"])
        .stdout(Stdio::null())
        .status()
        .unwrap();
    assert!(restart.success());
    let out = wait_output_within(child, Duration::from_secs(60));
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{err}");
    let v = json(&out.stdout);
    let notes = v["snap"]["notes"].to_string();
    assert!(notes.contains("restarted inside the interval"), "{v}");
    for s in v["statistics"].as_array().unwrap() {
        assert!(s["total"].as_f64().unwrap() >= 0.0, "{s}");
    }
}

/// Every number in `v` (an interval as written), with its path, for the
/// never-negative check.
fn numbers(v: &serde_json::Value, path: &str, out: &mut Vec<(String, f64)>) {
    match v {
        serde_json::Value::Number(n) => out.push((path.to_string(), n.as_f64().unwrap())),
        serde_json::Value::Array(a) => {
            for (i, x) in a.iter().enumerate() {
                numbers(x, &format!("{path}[{i}]"), out);
            }
        }
        serde_json::Value::Object(o) => {
            for (k, x) in o {
                numbers(x, &format!("{path}.{k}"), out);
            }
        }
        _ => {}
    }
}

/// A failover in the middle of a series: a proxy forwards to PostgreSQL
/// 15, and 3 s after dbio connected (inside the second 2 s interval)
/// cuts the connections and forwards to PostgreSQL 18. dbio connects
/// again, finds another system_identifier and ends the series: the first
/// interval is written, with no negative figure, the failover is one
/// sentence on stderr, and the status is 1 (partial).
#[test]
fn a_failover_ends_the_series_with_the_intervals_before_it_and_status_1() {
    let (Some(u), Some(u18)) = (
        server_url("DBIO_TEST_PG_URL"),
        server_url("DBIO_TEST_PG18_URL"),
    ) else {
        return;
    };
    let p = proxy::Proxy::start(&proxy::addr(&u));
    let child = Command::new(dbio_path())
        .args(["snap", &p.url(&u), "--every", "2s", "--for", "6s"])
        .args(["--sample-period", "250ms", "--quiet", "--json", "-"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    p.wait_for_a_client(Duration::from_secs(30));
    std::thread::sleep(Duration::from_millis(3000));
    p.switch(&proxy::addr(&u18));
    let out = wait_output_within(child, Duration::from_secs(60));
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.contains("the second snapshot is of another server than the first")
            && err.contains("(the series ends here: the intervals before it are written)"),
        "{err}"
    );
    assert!(!err.contains(&password_of(&u)), "{err}");
    let v = json(&out.stdout);
    assert_eq!(v["command"], "awr trend", "{v}");
    let iv = v["intervals"].as_array().unwrap();
    assert_eq!(iv.len(), 1, "{v}");
    assert_eq!(iv[0]["header"]["begin_snap"], 1);
    assert_eq!(iv[0]["kind"], "postgres_snap");
    assert!(iv[0]["header"]["version"]
        .as_str()
        .unwrap()
        .starts_with("15."));
    let mut all = Vec::new();
    numbers(&iv[0], "interval", &mut all);
    assert!(!all.is_empty());
    for (path, n) in all {
        assert!(n >= 0.0, "{path} = {n}");
    }
}
