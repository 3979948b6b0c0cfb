//! `dbio load`: commit load on embedded SQLite, with real files, real
//! syncs and the real binary. See: issue 11.

use crate::util::{dbio, dbio_path, json, scratch, wait_output_within};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// dbio's SQLite entries in `dir`: its private directories and the files
/// in them (the database and its -wal/-shm).
fn load_files(dir: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    for p in std::fs::read_dir(dir).unwrap().flatten().map(|e| e.path()) {
        if !p
            .file_name()
            .is_some_and(|n| n.to_string_lossy().starts_with("dbio-load-"))
        {
            continue;
        }
        if p.is_dir() {
            found.extend(
                std::fs::read_dir(&p)
                    .into_iter()
                    .flatten()
                    .flatten()
                    .map(|e| e.path()),
            );
        }
        found.push(p);
    }
    found
}

#[test]
fn every_commit_is_a_row_in_the_kept_table_and_in_the_result() {
    let d = scratch();
    let file = d.path().join("load.json");
    let out = dbio()
        .args([
            "load",
            "--sessions",
            "4",
            "--commits",
            "60",
            "--keep",
            "--quiet",
        ])
        .arg("--dir")
        .arg(d.path())
        .arg("--json")
        .arg(&file)
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v = json(&std::fs::read(&file).unwrap());
    assert_eq!(v["command"], "load");
    let r = &v["load"][0];
    assert_eq!(r["commits"], 240);
    assert_eq!(r["rows"], 240);
    assert_eq!(r["commit"]["count"], 240);
    let per: Vec<u64> = r["sessions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["commits"].as_u64().unwrap())
        .collect();
    assert_eq!(per, [60; 4]);
    assert_eq!(r["config"]["commits_per_session"], 60);
    assert!(r["config"]["runtime_ns"].is_null());
    // SQLite syncs the WAL once per commit (and once more per checkpoint).
    let flushes = r["flush"]["flushes"].as_u64().unwrap();
    assert!((240..=260).contains(&flushes), "{flushes} WAL syncs");
    // The table is kept, with exactly one row per commit.
    let target = r["config"]["target"].as_str().unwrap();
    let db = target.strip_prefix("sqlite:").unwrap();
    let table = r["table"].as_str().unwrap();
    assert!(table.starts_with("dbio_load_"), "{table}");
    let rows: i64 = rusqlite::Connection::open(db)
        .unwrap()
        .query_row(&format!("SELECT count(*) FROM {table}"), [], |row| {
            row.get(0)
        })
        .unwrap();
    assert_eq!(rows, 240);
}

#[test]
fn the_scratch_database_and_its_wal_are_removed_after_the_run() {
    let d = scratch();
    let out = dbio()
        .args([
            "load",
            "--sessions",
            "2",
            "--commits",
            "30",
            "--mode",
            "explicit",
            "--rows-per-commit",
            "3",
        ])
        .arg("--dir")
        .arg(d.path())
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let table = String::from_utf8_lossy(&out.stdout);
    assert!(table.contains("60 commits (180 rows)"), "{table}");
    assert!(table.contains("transaction (BEGIN .. COMMIT)"), "{table}");
    assert!(
        load_files(d.path()).is_empty(),
        "{:?}",
        load_files(d.path())
    );
}

#[test]
fn sigint_mid_run_gives_a_partial_result_and_leaves_nothing() {
    let d = scratch();
    let file = d.path().join("sig.json");
    let child = Command::new(dbio_path())
        .args(["load", "--sessions", "3", "--runtime", "600", "--quiet"])
        .arg("--dir")
        .arg(d.path())
        .arg("--json")
        .arg(&file)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Commits are reaching storage once the WAL holds a few frames.
    let t0 = Instant::now();
    let committing = loop {
        let wal = load_files(d.path())
            .into_iter()
            .find(|p| p.to_string_lossy().ends_with("-wal"));
        if wal.is_some_and(|p| std::fs::metadata(p).is_ok_and(|m| m.len() > 64 * 1024)) {
            break true;
        }
        // A guard against a run that never commits, not a bound on speed
        // (the run itself would last 600 s; a loaded machine once needed more
        // than 30 s to fill 64 KiB of WAL).
        if t0.elapsed() > Duration::from_secs(55) {
            break false;
        }
        std::thread::sleep(Duration::from_millis(5));
    };
    // SAFETY: kill with a valid pid and signal.
    assert_eq!(unsafe { libc::kill(child.id() as i32, libc::SIGINT) }, 0);
    // dbio stops at the signal, not at the end of its 60 s: the guard
    // only keeps a hang from stalling the suite, the status and the
    // partial result below tell a stop from a finished run.
    let out = wait_output_within(child, Duration::from_secs(60));
    assert!(committing, "no commits reached the WAL");
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v = json(&std::fs::read(&file).unwrap());
    assert_eq!(v["partial"]["signal"], "SIGINT");
    assert!(v["load"][0]["commits"].as_u64().unwrap() > 0);
    assert!(
        load_files(d.path()).is_empty(),
        "{:?}",
        load_files(d.path())
    );
}

#[test]
fn impossible_options_are_refused_in_one_sentence_before_anything_is_made() {
    let d = scratch();
    let cases: [(&[&str], &str); 6] = [
        (
            &["--sessions", "0"],
            "--sessions must be between 1 and 4096",
        ),
        (
            &["--sessions", "5000"],
            "--sessions must be between 1 and 4096",
        ),
        (&["--commits", "5", "--runtime", "1"], "cannot be used with"),
        (&["--commits", "0"], "--commits must be at least 1"),
        (&["--rows-per-commit", "2"], "needs --mode explicit"),
        (&["--row-size", "2m"], "--row-size must be at most"),
    ];
    for (args, want) in cases {
        let out = dbio()
            .arg("load")
            .args(args)
            .arg("--dir")
            .arg(d.path())
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains(want), "{args:?}: {err}");
        assert_eq!(err.trim_end().lines().count(), 1, "{args:?}: {err}");
    }
    // A server that is not there: one sentence, and the password never
    // shown.
    let out = dbio()
        .args(["load", "postgres://bench:s3cret@127.0.0.1:1/x"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("cannot connect to"), "{err}");
    assert_eq!(err.trim_end().lines().count(), 1, "{err}");
    assert!(!err.contains("s3cret"), "{err}");
    // An output that cannot be written fails before the database is made.
    let out = dbio()
        .args([
            "load",
            "--commits",
            "1",
            "--json",
            "/nonexistent/dbio/x.json",
        ])
        .arg("--dir")
        .arg(d.path())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(load_files(d.path()).is_empty());
    assert!(std::fs::read_dir(d.path()).unwrap().next().is_none());
}

/// On a terminal, a progress line speaks of commits per second (not
/// IOPS); with stderr a pipe there is none. `script` gives dbio a pty.
#[test]
fn progress_line_counts_commits_per_second_on_a_terminal() {
    let d = crate::util::scratch();
    let cmd = format!(
        "{} load --dir {} --sessions 1 --runtime 1 --no-baseline --json {}/r.json",
        crate::util::dbio_path().display(),
        d.path().display(),
        d.path().display()
    );
    if !Path::new("/usr/bin/script").exists() {
        crate::util::skip_this_test("util-linux's script is not installed");
        return;
    }
    let out = crate::util::tool(Command::new("script").args(["-qefc", &cmd, "/dev/null"])).unwrap();
    let tty = String::from_utf8_lossy(&out.stdout);
    assert!(tty.contains(" commits/s, "), "{tty}");
    assert!(!tty.contains("IOPS"), "{tty}");
    let piped = crate::util::dbio()
        .args(["load", "--dir", d.path().to_str().unwrap()])
        .args(["--sessions", "1", "--runtime", "1", "--no-baseline"])
        .output()
        .unwrap();
    assert!(piped.status.success());
    assert!(!String::from_utf8_lossy(&piped.stderr).contains("commits/s"));
}

/// `--predict` on embedded SQLite: the log-writer model runs in the
/// database's directory with one session (SQLite's write lock makes
/// commits one at a time) and the CPU per commit measured during the
/// run, and its figures stand beside the measured ones in JSON, CSV and
/// the table. See: issue 11.
#[test]
fn predict_puts_the_model_beside_the_measurement_on_sqlite() {
    let d = scratch();
    let (file, csv) = (d.path().join("r.json"), d.path().join("r.csv"));
    let out = dbio()
        .args(["load", "--sessions", "3", "--commits", "40", "--predict"])
        .arg("--dir")
        .arg(d.path())
        .arg("--json")
        .arg(&file)
        .arg("--csv")
        .arg(&csv)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v = json(&std::fs::read(&file).unwrap());
    let r = &v["load"][0];
    let p = &r["predict"];
    assert_eq!(p["protocol"], "leader", "{p}");
    assert_eq!(p["model_sessions"], 1);
    assert_eq!(p["syncs_per_flush"], 1);
    assert_eq!(p["dir"], d.path().display().to_string());
    assert!(p["dir_reason"].as_str().unwrap().contains("SQLite"), "{p}");
    // One session of 40 commits, each its own flush.
    assert_eq!(p["model_commits"], 40);
    assert_eq!(p["predicted_commits_per_flush"], 1.0);
    let pred = p["predicted_tps"].as_f64().unwrap();
    let meas = p["measured_tps"].as_f64().unwrap();
    assert!(pred > 0.0 && pred.is_finite(), "{p}");
    assert_eq!(meas, r["tps"].as_f64().unwrap());
    let resid = p["tps_residual_pct"].as_f64().unwrap();
    assert!((resid - 100.0 * (pred - meas) / meas).abs() < 1e-6, "{p}");
    // The CPU fed to the model is the CPU measured per commit (SQLite
    // runs in the sessions' threads: no server side).
    let cpu = r["cpu"]["per_io_ns"].as_f64().unwrap();
    assert!(cpu > 0.0);
    assert_eq!(p["txn_cpu_ns"].as_u64().unwrap(), cpu.round() as u64);
    assert!(p.get("server_cpu_ns").is_none(), "{p}");
    assert_eq!(p["model_client_cpu_ns"], 0, "no client thread: {p}");
    // The log bytes per commit are the engine's own count.
    let bytes = r["flush"]["bytes"].as_u64().unwrap();
    assert_eq!(p["redo_bytes"].as_u64().unwrap(), bytes / 120);
    // A finding weighs the residual against the model's bound.
    let rules: Vec<&str> = v["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["rule"].as_str().unwrap())
        .collect();
    assert!(
        rules.contains(&"load.predict_agrees") || rules.contains(&"load.predict_residual"),
        "{rules:?}"
    );
    let c = std::fs::read_to_string(&csv).unwrap();
    assert!(c.contains("predict.predicted_tps"), "{c}");
    assert!(stdout.contains("model against reality"), "{stdout}");
    assert!(stdout.contains("dbio lgwr --protocol leader"), "{stdout}");
    // The model's log files and the scratch database are gone.
    let mut left: Vec<String> = std::fs::read_dir(d.path())
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    left.sort();
    assert_eq!(left, ["r.csv", "r.json"]);

    // Without --predict there is no prediction (and no model run).
    let out = dbio()
        .args(["load", "--commits", "5", "--quiet", "--json", "-"])
        .arg("--dir")
        .arg(d.path())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert!(json(&out.stdout)["load"][0].get("predict").is_none());
}

/// A `--predict-dir` that cannot be used, or given without `--predict`:
/// one sentence and exit status 2 before anything is made.
#[test]
fn a_predict_dir_that_cannot_be_written_is_refused_before_the_run() {
    let d = scratch();
    let file = d.path().join("a-file");
    std::fs::write(&file, b"x").unwrap();
    let cases: [(Vec<String>, &str); 4] = [
        (
            vec![
                "--predict".into(),
                "--predict-dir".into(),
                "/nonexistent/dbio".into(),
            ],
            "--predict-dir: /nonexistent/dbio is not a directory",
        ),
        (
            vec![
                "--predict".into(),
                "--predict-dir".into(),
                file.display().to_string(),
            ],
            "is not a directory",
        ),
        // Not writable, even for root.
        (
            vec!["--predict".into(), "--predict-dir".into(), "/sys".into()],
            "--predict-dir: cannot create a file in /sys",
        ),
        (
            vec!["--predict-dir".into(), d.path().display().to_string()],
            "--predict",
        ),
    ];
    for (args, want) in cases {
        let out = dbio()
            .args(["load", "--commits", "5"])
            .args(&args)
            .arg("--dir")
            .arg(d.path())
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains(want), "{args:?}: {err}");
        if args[0] == "--predict" {
            assert_eq!(err.trim_end().lines().count(), 1, "{args:?}: {err}");
        }
        assert!(load_files(d.path()).is_empty(), "{args:?}: nothing made");
    }
}

// See: issue 23.
#[test]
fn commits_that_wait_for_no_flush_are_named_not_durable_on_sqlite() {
    let d = scratch();
    let out = dbio()
        .args([
            "load",
            "--quiet",
            "--dir",
            d.path().to_str().unwrap(),
            "--sessions",
            "2",
            "--commits",
            "100",
            "--warmup",
            "0",
            "--rounds",
            "1",
            "--no-baseline",
            "--compare",
            "synchronous=off,full",
            "--json",
            "-",
        ])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let r = json(&out.stdout);
    let fs = r["findings"].as_array().unwrap();
    let not_durable: Vec<_> = fs
        .iter()
        .filter(|f| f["rule"] == "load.not_durable")
        .collect();
    assert_eq!(not_durable.len(), 1, "{fs:?}");
    assert!(
        not_durable[0]["text"]
            .as_str()
            .unwrap()
            .starts_with("synchronous=off"),
        "{}",
        not_durable[0]
    );
    for f in fs {
        let t = f["text"].as_str().unwrap();
        assert!(!t.contains("Group commit put"), "{t}");
        assert!(!t.contains("costs about one flush"), "{t}");
    }
    let v = &r["verdict"];
    let a = v["answer"].as_str().unwrap();
    assert!(
        a.contains("synchronous=off: commits waited for no log flush"),
        "{a}"
    );
    // synchronous=FULL waits for its WAL sync: its class is the answer's.
    assert!(a.contains("synchronous=full: log flushes are"), "{a}");
    assert_ne!(v["class"], "non_durable", "{v}");
    assert!(
        v["question"]
            .as_str()
            .unwrap()
            .starts_with("Is a commit the storage?"),
        "{v}"
    );
}
