//! `dbio snap --watch` against the private servers (`scripts/db-servers`:
//! PostgreSQL 15 and 18, MariaDB 10.11) under a commit load that runs
//! inside the interval: the layers of a commit, checked against the
//! servers' own counts. The load starts after the opening snapshot and
//! ends (its connections closed, so every backend's statistics are out)
//! before the closing one, so the server's counters and the kernel's
//! count the same work:
//!
//! * the sync calls dbio saw on the WAL files equal the server's WAL
//!   syncs within 1 % (PostgreSQL); the binary log's equal its group
//!   commits and the redo log's writes `Innodb_log_writes` within 1 %
//!   (MariaDB);
//! * each layer's time fits in the layer above it: the server's flush
//!   timer holds the kernel's calls on the log, the calls hold their
//!   block requests' queue and device time, and (PostgreSQL) the
//!   commit's sampled wait holds its flush, within the sampling's error.
//!
//! Needs root (BPF) and the servers' URLs, which scripts/test exports;
//! without them each test prints why it skips. See: issue 25.

use crate::util::{dbio, dbio_path, is_root, json, scratch, skip_this_test};
use serde_json::Value;
use std::process::{Command, Stdio};
use std::time::Duration;

/// The server's URL, or why the test skips.
fn target(var: &str) -> Option<String> {
    if !is_root() {
        skip_this_test("dbio snap --watch needs root to load BPF programs");
        return None;
    }
    crate::util::server_url(var)
}

/// `dbio snap URL --watch` over 10 s, with a 4-session commit load from
/// 3 s to about 7 s after dbio started (its tracer loads and the opening
/// snapshot is taken within the first 3 s); the result.
fn snap_watched(url: &str) -> Value {
    let d = scratch();
    let out = d.path().join("snap.json");
    let load = {
        let url = url.to_string();
        std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(3000));
            Command::new(dbio_path())
                .args(["load", &url, "--sessions", "4", "--runtime", "4", "--quiet"])
                .stdout(Stdio::null())
                .stderr(Stdio::piped())
                .output()
                .unwrap()
        })
    };
    let snap = dbio()
        .args([
            "snap",
            url,
            "--interval",
            "10s",
            "--sample-period",
            "20ms",
            "--watch",
            "--quiet",
        ])
        .arg("--json")
        .arg(&out)
        .output()
        .unwrap();
    let load = load.join().unwrap();
    assert!(
        load.status.success(),
        "load: {}",
        String::from_utf8_lossy(&load.stderr)
    );
    assert!(
        snap.status.success(),
        "snap: {}",
        String::from_utf8_lossy(&snap.stderr)
    );
    json(&std::fs::read(&out).unwrap())
}

fn num(v: &Value) -> f64 {
    v.as_f64().unwrap_or_else(|| panic!("not a number: {v}"))
}

/// A log's row of the layers.
fn log<'a>(v: &'a Value, name: &str) -> &'a Value {
    v["snap"]["commit_layers"]["logs"]
        .as_array()
        .unwrap()
        .iter()
        .find(|l| l["log"] == name)
        .unwrap_or_else(|| panic!("no {name} in {}", v["snap"]["commit_layers"]))
}

/// A counter of the interval's statistics (`global status.Binlog_commits`).
fn stat(v: &Value, name: &str) -> f64 {
    let s = v["statistics"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["name"] == name)
        .unwrap_or_else(|| panic!("no statistic {name}"));
    num(&s["total"])
}

/// `a` equals `b` within 1 %.
fn within_1pct(what: &str, a: f64, b: f64) {
    assert!(b > 100.0, "{what}: too few to compare ({b})");
    assert!(
        (a - b).abs() <= 0.01 * b,
        "{what}: dbio saw {a}, the server counted {b}"
    );
}

/// The kernel's time on a log fits in the server's timer of it, and its
/// block requests' time in the calls' (per flush, the cache flushes the
/// server issued on the device included).
fn layers_fit(v: &Value, l: &Value) {
    let calls = num(&l["writes"]["time_s"]) + num(&l["syncs"]["time_s"]);
    let db = num(&l["database"]["time_s"]);
    assert!(
        calls <= db,
        "the kernel's calls {calls} s > the server's timer {db} s"
    );
    let below = num(&l["queue"]["time_s"]) + num(&l["device"]["time_s"]);
    assert!(below > 0.0, "no block request carried the log: {l}");
    assert!(below <= calls, "requests {below} s > calls {calls} s");
    let d = scratch();
    let saved = d.path().join("snap.json");
    std::fs::write(&saved, v.to_string()).unwrap();
    let text = dbio()
        .args(["report", "--from"])
        .arg(&saved)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&text.stdout);
    assert!(text.contains("Where a commit's time goes"), "{text}");
    assert!(
        !text.contains("requests overlapped"),
        "a layer exceeds the one above: {text}"
    );
    let answer = v["verdict"]["answer"].as_str().unwrap();
    assert!(
        answer.to_lowercase().contains("watched in the kernel")
            && answer.contains("the device and its queue"),
        "{answer}"
    );
    // The verdict's first finding is the layers'.
    let first = v["verdict"]["top"][0].as_u64().unwrap() as usize;
    assert_eq!(v["findings"][first]["rule"], "snap.commit_layers");
}

fn postgresql(url_var: &str) {
    let Some(url) = target(url_var) else {
        return;
    };
    let v = snap_watched(&url);
    let wal = log(&v, "WAL");
    // The server's count of WAL syncs is the exact 'log file parallel
    // write' count (pg_stat_wal.wal_sync; 18: pg_stat_io's WAL fsyncs).
    within_1pct(
        "WAL sync calls",
        num(&wal["syncs"]["count"]),
        num(&wal["database"]["count"]),
    );
    assert!(wal["files"][0].as_str().unwrap().contains("/pg_wal/"));
    layers_fit(&v, wal);
    // The commits' sampled wait holds the flush it waited for, within the
    // sampling's error: n samples in the commit wait are n ± √n periods
    // (dbio's sampler every 20 ms, or pg_wait_sampling's 10 ms profile,
    // which only narrows it), so the mean is allowed 3/√n below.
    let c = &v["snap"]["commit_layers"];
    let commit_s = num(&c["commit"]["time_s"]);
    let commit_us = commit_s / num(&c["commit"]["count"]) * 1e6;
    let flush_us = num(&wal["database"]["time_s"]) / num(&wal["database"]["count"]) * 1e6;
    let samples = commit_s / 0.020;
    assert!(samples >= 25.0, "{samples} samples of the commit wait");
    assert!(
        commit_us >= flush_us * (1.0 - 3.0 / samples.sqrt()),
        "a commit waited {commit_us} µs ({samples} samples), less than its flush {flush_us} µs"
    );
    assert!(num(&c["processes"]) >= 5.0, "{c}");
}

#[test]
fn postgresql_15_wal_syncs_are_the_servers_and_each_layer_fits_the_one_above() {
    postgresql("DBIO_TEST_PG_URL");
}

#[test]
fn postgresql_18_wal_syncs_are_the_servers_and_each_layer_fits_the_one_above() {
    postgresql("DBIO_TEST_PG18_URL");
}

#[test]
fn mariadb_log_writes_are_the_servers_and_each_layer_fits_the_one_above() {
    let Some(url) = target("DBIO_TEST_MYSQL_URL") else {
        return;
    };
    let v = snap_watched(&url);
    let binlog = log(&v, "binary log");
    within_1pct(
        "binary log syncs",
        num(&binlog["syncs"]["count"]),
        stat(&v, "global status.Binlog_group_commits"),
    );
    let redo = log(&v, "redo log");
    within_1pct(
        "redo log writes",
        num(&redo["writes"]["count"]),
        stat(&v, "global status.Innodb_log_writes"),
    );
    assert!(redo["files"][0].as_str().unwrap().ends_with("/ib_logfile0"));
    assert!(redo.get("database").is_none(), "{redo}");
    layers_fit(&v, binlog);
}

#[test]
fn watch_is_one_interval_and_refused_with_every() {
    let out = dbio()
        .args([
            "snap",
            "postgres://nobody@127.0.0.1:1/x",
            "--watch",
            "--every",
            "1s",
            "--for",
            "2s",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("'--watch' cannot be used with '--every"),
        "{err}"
    );
}
