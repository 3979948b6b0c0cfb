//! Issue 21 item 8: a second stop signal must not lose the result or leave
//! scratch behind, and a run killed by SIGKILL leaves nothing a later run
//! does not remove or name.
//!
//! Two SIGINTs are made two deliveries, not one coalesced pending signal:
//! the second is sent only once /proc/PID/status shows the first is no
//! longer pending (its handler ran). `timeout -s INT` is driven the same
//! way without a clock: it is started with an hour to wait and sent
//! SIGALRM, which is how its own timer ends the wait; it then signals dbio
//! and dbio's process group (two deliveries).

use crate::util::{dbio, dbio_path, json, scratch, skip_this_test, wait_output_within, Tmpfs};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// Every entry of `dir` dbio may have made (`dbio-*` scratch files and
/// `.dbio-*` probes), by name.
fn made_by_dbio(dir: &Path) -> Vec<String> {
    std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with("dbio-") || n.starts_with(".dbio-"))
        .collect()
}

/// Waits (20 s at most: a bound on a broken run, not part of the
/// verdict) until dbio's first scratch file (`dbio-*`, made once the
/// signal handlers are in place; a `.dbio-probe-*` can come before) is in
/// `dir`.
fn wait_for_scratch(dir: &Path) {
    let t0 = Instant::now();
    while !made_by_dbio(dir).iter().any(|n| n.starts_with("dbio-")) {
        assert!(
            t0.elapsed() < Duration::from_secs(20),
            "dbio made no scratch file in {}",
            dir.display()
        );
        std::thread::sleep(Duration::from_millis(5));
    }
}

/// Waits (the same bound) until dbio measures: its worker or session
/// threads run (during preparation it is one thread).
fn wait_for_threads(pid: u32) {
    let t0 = Instant::now();
    while std::fs::read_dir(format!("/proc/{pid}/task")).map_or(0, |d| d.count()) < 2 {
        assert!(
            t0.elapsed() < Duration::from_secs(20),
            "no worker thread started"
        );
        std::thread::sleep(Duration::from_millis(5));
    }
}

/// Whether signal `sig` is pending for process `pid` (thread or process
/// queue, /proc/PID/status SigPnd and ShdPnd).
fn pending(pid: u32, sig: i32) -> bool {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    let bit = 1u64 << (sig - 1);
    status
        .lines()
        .filter_map(|l| {
            l.strip_prefix("SigPnd:")
                .or_else(|| l.strip_prefix("ShdPnd:"))
        })
        .any(|v| u64::from_str_radix(v.trim(), 16).unwrap_or(0) & bit != 0)
}

fn kill(pid: u32, sig: i32) {
    // SAFETY: kill with a pid this test started and a valid signal.
    assert_eq!(unsafe { libc::kill(pid as i32, sig) }, 0);
}

/// Two SIGINTs, each its own delivery.
fn sigint_twice(child: &Child) {
    let pid = child.id();
    kill(pid, libc::SIGINT);
    let t0 = Instant::now();
    while pending(pid, libc::SIGINT) {
        assert!(
            t0.elapsed() < Duration::from_secs(20),
            "SIGINT never delivered"
        );
        std::thread::sleep(Duration::from_millis(1));
    }
    kill(pid, libc::SIGINT);
}

/// `args` run with `--json` into a file of its own, its scratch in `dir`;
/// under `wrapper` (a command line that takes dbio's after it) if any.
fn spawn(wrapper: &[&str], args: &[&str], dir: &Path, json_path: &Path) -> Child {
    let mut cmd = match wrapper.split_first() {
        None => Command::new(dbio_path()),
        Some((prog, rest)) => {
            let mut c = Command::new(prog);
            c.args(rest).arg(dbio_path());
            c
        }
    };
    cmd.args(args)
        .args(["--quiet", "--json"])
        .arg(json_path)
        .arg(dir)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

/// The invariants after the stop: status 1, the result written and
/// marked partial by SIGINT, no scratch left. `lines`: how many times
/// stderr says dbio is saving (None: at most once, when the second
/// signal may have come after dbio had finished its work).
fn stopped_cleanly(
    out: std::process::Output,
    dir: &Path,
    json_path: &PathBuf,
    what: &str,
    lines: Option<usize>,
) {
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{what}: {err}");
    let said = err
        .matches("dbio: stopping: saving the partial result")
        .count();
    match lines {
        Some(n) => assert_eq!(said, n, "{what}: {err}"),
        None => assert!(said <= 1, "{what}: {err}"),
    }
    let v = json(&std::fs::read(json_path).unwrap_or_else(|e| panic!("{what}: no result: {e}")));
    assert_eq!(v["partial"]["kind"], "signal", "{what}: {}", v["partial"]);
    assert_eq!(v["partial"]["signal"], "SIGINT", "{what}");
    assert_eq!(
        made_by_dbio(dir),
        Vec::<String>::new(),
        "{what}: scratch left"
    );
}

/// The three commands with a large scratch file, sized to stay busy.
const RUNS: [(&str, &[&str]); 3] = [
    ("check", &["check", "--size", "64m", "--runtime", "20s"]),
    (
        "lgwr",
        &[
            "lgwr",
            "--method",
            "buffered-fdatasync",
            "--files",
            "4",
            "--file-size",
            "32m",
            "--runtime",
            "60s",
        ],
    ),
    ("read", &["read", "--size", "64m", "--runtime", "60s"]),
];

/// Two SIGINTs while the file is prepared and two while the workers run,
/// for each of check, lgwr and read: status 1 (not 130), the result saved
/// and marked partial, no scratch file left.
#[test]
fn two_sigints_save_the_partial_result_and_remove_scratch() {
    for (what, args) in RUNS {
        for measuring in [false, true] {
            let d = scratch();
            let out_dir = scratch();
            let json_path = out_dir.path().join("r.json");
            let child = spawn(&[], args, d.path(), &json_path);
            wait_for_scratch(d.path());
            if measuring {
                wait_for_threads(child.id());
            }
            sigint_twice(&child);
            let out = wait_output_within(child, Duration::from_secs(60));
            let what = format!("{what} (measuring: {measuring})");
            stopped_cleanly(out, d.path(), &json_path, &what, None);
        }
    }
}

/// Two stop signals delivered together (SIGINT and SIGTERM, queued while
/// dbio is stopped, so neither can be lost to the other): the second
/// prints its one line, and the run still ends as after one.
#[test]
fn a_second_stop_signal_says_dbio_is_saving_and_changes_nothing_else() {
    for (what, args) in RUNS {
        let d = scratch();
        let out_dir = scratch();
        let json_path = out_dir.path().join("r.json");
        let child = spawn(&[], args, d.path(), &json_path);
        wait_for_scratch(d.path());
        wait_for_threads(child.id());
        for sig in [libc::SIGSTOP, libc::SIGINT, libc::SIGTERM, libc::SIGCONT] {
            kill(child.id(), sig);
        }
        let out = wait_output_within(child, Duration::from_secs(60));
        stopped_cleanly(out, d.path(), &json_path, what, Some(1));
    }
}

#[test]
fn timeout_s_int_saves_the_partial_result_and_removes_scratch() {
    if Command::new("timeout").arg("--version").output().is_err() {
        return skip_this_test("no timeout(1)");
    }
    for (what, args) in RUNS {
        let d = scratch();
        let out_dir = scratch();
        let json_path = out_dir.path().join("r.json");
        // --preserve-status: timeout exits with dbio's status.
        let child = spawn(
            &["timeout", "--preserve-status", "-s", "INT", "1h"],
            args,
            d.path(),
            &json_path,
        );
        wait_for_scratch(d.path());
        // timeout's own timer would deliver this.
        kill(child.id(), libc::SIGALRM);
        let out = wait_output_within(child, Duration::from_secs(60));
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{what}: {err}");
        let v = json(&std::fs::read(&json_path).unwrap());
        assert_eq!(v["partial"]["signal"], "SIGINT", "{what}");
        assert_eq!(made_by_dbio(d.path()), Vec::<String>::new(), "{what}");
    }
}

/// The user.dbio mark of `p`, if it has one.
fn mark(p: &Path) -> Option<Vec<u8>> {
    let mut buf = [0u8; 32];
    rustix::fs::getxattr(p, "user.dbio", &mut buf[..])
        .ok()
        .map(|n| buf[..n].to_vec())
}

/// SIGKILL leaves scratch files; the next run in the directory removes
/// every one that carries dbio's temporary mark and names every one it
/// leaves. On ramfs (no extended attributes, so no mark) no file can be
/// proved dbio's: the next run leaves each and names it.
#[test]
fn after_sigkill_the_next_run_removes_or_names_every_leftover() {
    let disk = scratch();
    let ramfs = Tmpfs::ramfs().ok();
    let mut dirs: Vec<&Path> = vec![disk.path()];
    match &ramfs {
        Some(r) => dirs.push(r.path()),
        None => skip_this_test("no ramfs (needs root): only the disk-backed case runs"),
    }
    for dir in dirs {
        for (what, args) in RUNS {
            let out_dir = scratch();
            let json_path = out_dir.path().join("r.json");
            let mut child = spawn(&[], args, dir, &json_path);
            wait_for_scratch(dir);
            child.kill().unwrap();
            child.wait().unwrap();
            let left = made_by_dbio(dir);
            let marked: Vec<&String> = left
                .iter()
                .filter(|n| mark(&dir.join(n)).as_deref() == Some(&b"temporary"[..]))
                .collect();
            assert!(!left.is_empty(), "{what}: SIGKILL left nothing to test");
            let out = dbio()
                .args(["bench", "--size", "1m", "--ops", "10", "--json", "-"])
                .arg(dir)
                .output()
                .unwrap();
            assert_eq!(
                out.status.code(),
                Some(0),
                "{what}: {}",
                String::from_utf8_lossy(&out.stderr)
            );
            let warnings = json(&out.stdout)["findings"].to_string();
            for name in &left {
                assert!(
                    warnings.contains(name.as_str()),
                    "{what} in {}: {name} not named: {warnings}",
                    dir.display()
                );
            }
            let now = made_by_dbio(dir);
            for name in &marked {
                assert!(!now.contains(name), "{what}: marked {name} not removed");
            }
            if !now.is_empty() {
                assert!(
                    warnings.contains("cannot prove it made them"),
                    "{what}: {now:?} left unexplained: {warnings}"
                );
            }
            for name in &now {
                std::fs::remove_file(dir.join(name)).unwrap();
            }
        }
    }
}
