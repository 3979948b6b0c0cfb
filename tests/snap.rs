//! `dbio snap` against the private PostgreSQL server (`scripts/db-servers`;
//! `DBIO_TEST_PG_URL`, `DBIO_TEST_PG_ADMIN_URL`, `DBIO_DB_DIR`): the real
//! binary, real signals, a real restart. Without the URLs a test prints
//! why it skips. The server-wide counters make these run one at a time
//! with the other server tests (.config/nextest.toml).
//!
//! See: issue 25.

use crate::util::{dbio, dbio_path, json, skip_this_test, wait_output_within};
use std::process::{Command, Stdio};
use std::time::Duration;

fn env(var: &str) -> Option<String> {
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
    let Some(u) = env("DBIO_TEST_PG_URL") else {
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
    let Some(u) = env("DBIO_TEST_PG_URL") else {
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
    assert!(String::from_utf8_lossy(&html.stdout).contains("id=\"h-snap\""));
    let cmp = dbio().arg("compare").arg(&a).arg(&b).output().unwrap();
    assert!(
        cmp.status.success(),
        "{}",
        String::from_utf8_lossy(&cmp.stderr)
    );
}

#[test]
fn snap_every_for_is_a_trend_of_contiguous_intervals() {
    let Some(u) = env("DBIO_TEST_PG_URL") else {
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
    let Some(u) = env("DBIO_TEST_PG_URL") else {
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
        env("DBIO_TEST_PG_URL"),
        env("DBIO_TEST_PG_ADMIN_URL"),
        env("DBIO_DB_DIR"),
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
