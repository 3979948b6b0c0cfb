//! Safety and bad input, for real: foreign files, full filesystems,
//! signals mid-run, impossible options (block devices: safety_blockdev.rs).

use crate::util::{dbio, dbio_files, dbio_path, json, scratch, wait_output_within, Tmpfs};
use predicates::prelude::*;
use predicates::str::contains;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

#[test]
fn refuses_to_write_a_file_it_did_not_create() {
    let d = scratch();
    let f = d.path().join("precious.dbf");
    std::fs::write(&f, vec![0xAB; 1 << 20]).unwrap();
    dbio()
        .args(["bench", "--rw", "randwrite", "--size", "1m", "--ops", "10"])
        .arg(&f)
        .assert()
        .code(2)
        .stderr(contains("was not created by dbio; pass --overwrite"));
    // Reading it is fine and changes nothing.
    dbio()
        .args([
            "bench", "--rw", "randread", "--size", "1m", "--ops", "50", "--quiet",
        ])
        .arg(&f)
        .assert()
        .success();
    assert_eq!(
        std::fs::read(&f).unwrap(),
        vec![0xAB; 1 << 20],
        "a foreign file changed"
    );
    // With --overwrite the user takes responsibility.
    dbio()
        .args([
            "bench",
            "--rw",
            "randwrite",
            "--size",
            "1m",
            "--ops",
            "10",
            "--overwrite",
            "--quiet",
        ])
        .arg(&f)
        .assert()
        .success();
    assert_ne!(std::fs::read(&f).unwrap(), vec![0xAB; 1 << 20]);
}

#[test]
fn reuses_its_own_named_file() {
    let d = scratch();
    let f = d.path().join("mine.dat");
    for _ in 0..2 {
        dbio()
            .args([
                "bench",
                "--rw",
                "randwrite",
                "--size",
                "1m",
                "--ops",
                "10",
                "--quiet",
            ])
            .arg(&f)
            .assert()
            .success();
    }
    assert!(f.exists(), "a file the user named is kept");
}

#[test]
fn impossible_options_fail_before_any_io() {
    let d = scratch();
    let cases: &[(&[&str], &str)] = &[
        (&["--direct", "--bs", "1000"], "multiple of 512"),
        (&["--iodepth", "32"], "needs --engine io_uring"),
        (&["--size", "4k", "--bs", "8k"], "smaller than --bs"),
        (&["--sync", "fdatasync", "--rw", "randread"], "has none"),
        (&["--bs", "16m"], "512 B .. 8 MiB"),
        (
            &["--prepare", "append", "--rw", "randwrite"],
            "needs --rw write",
        ),
        (&["--threads", "0"], "--threads"),
        (
            &["--engine", "psync", "--null-delay", "1ms"],
            "null engine only",
        ),
        (&["--bs", "8q"], "unknown size suffix"),
        (&["--runtime=-1"], "is negative"),
    ];
    for (args, msg) in cases {
        let out = dbio()
            .arg("bench")
            .arg(d.path())
            .args(*args)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        let first = err.lines().next().unwrap_or_default();
        assert!(first.starts_with("dbio: error: "), "{args:?}: {err}");
        assert_eq!(err.lines().count(), 1, "{args:?}: one sentence: {err}");
        assert!(
            first.contains(msg),
            "{args:?}: the first line must say what is wrong: {err}"
        );
        assert!(!err.contains("panicked"), "{err}");
    }
    assert!(
        std::fs::read_dir(d.path()).unwrap().next().is_none(),
        "a refused job created a file"
    );
}

/// A command line clap refuses (unknown option, missing or bad value,
/// conflicting options, unknown command) fails as every other error does:
/// one line "dbio: error: ...", ending in where to look, status 2, and
/// nothing written; clap's usage block and tips do not follow it.
#[test]
fn usage_errors_are_one_line_with_a_help_hint() {
    let d = scratch();
    let dir = d.path().to_str().unwrap();
    let cases: &[(&[&str], &str, &str)] = &[
        (
            &["bench", dir, "--runtme", "1"],
            "'--runtme'",
            "dbio bench --help",
        ),
        (&["bench", dir, "--bs"], "'--bs <BS>'", "dbio bench --help"),
        (
            &["bench", dir, "--rw", "sideways"],
            "'sideways'",
            "dbio bench --help",
        ),
        (&["report"], "--from", "dbio report --help"),
        (
            &["calibrate", dir, "--save", "x.json", "--no-save"],
            "cannot be used with",
            "dbio calibrate --help",
        ),
        (&["frobnicate"], "'frobnicate'", "dbio --help"),
    ];
    for (args, names, hint) in cases {
        let out = dbio().args(*args).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(err.lines().count(), 1, "{args:?}: one line: {err}");
        assert!(err.starts_with("dbio: error: "), "{args:?}: {err}");
        assert!(err.contains(names), "{args:?}: says what is wrong: {err}");
        assert!(
            err.trim_end().ends_with(&format!("try '{hint}'")),
            "{args:?}: ends in where to look: {err}"
        );
        assert!(out.stdout.is_empty(), "{args:?}");
    }
    assert!(std::fs::read_dir(d.path()).unwrap().next().is_none());
    // Help and version are not errors: they still print in full, status 0.
    let help = dbio().args(["bench", "--help"]).output().unwrap();
    assert_eq!(help.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&help.stdout).contains("Usage: dbio bench"));
}

#[test]
fn o_direct_refusal_names_the_filesystem() {
    let t = or_skip!(Tmpfs::ramfs());
    dbio()
        .args(["bench", "--direct", "--size", "1m", "--ops", "10"])
        .arg(t.path())
        .assert()
        .code(2)
        .stderr(contains("ramfs does not support O_DIRECT"));
    assert!(
        dbio_files(t.path()).is_empty(),
        "file left behind after refusal"
    );
}

#[test]
fn refuses_a_target_larger_than_the_free_space() {
    let t = or_skip!(Tmpfs::mount("8m"));
    dbio()
        .args(["bench", "--size", "64m", "--ops", "10"])
        .arg(t.path())
        .assert()
        .code(2)
        .stderr(contains("is free on the filesystem"));
    assert!(dbio_files(t.path()).is_empty());
}

/// Growing a file that is already there asks the filesystem only for the
/// part it does not hold yet: a 10 MiB file grown to 12 MiB on a 16 MiB
/// tmpfs (6 MiB free) is fine, grown to 24 MiB (14 MiB more) is refused
/// before anything is written.
#[test]
fn growing_an_existing_file_needs_free_space_only_for_the_growth() {
    let t = or_skip!(Tmpfs::mount("16m"));
    let file = t.path().join("datafile");
    std::fs::write(&file, vec![7u8; 10 << 20]).unwrap();
    let grow = |size: &str| {
        dbio()
            .args([
                "bench",
                "--rw",
                "write",
                "--ops",
                "10",
                "--overwrite",
                "--quiet",
            ])
            .args(["--size", size])
            .arg(&file)
            .assert()
    };
    grow("24m")
        .code(2)
        .stderr(contains("needs 14.0 MiB but only").and(contains("is free on the filesystem")));
    assert_eq!(std::fs::metadata(&file).unwrap().len(), 10 << 20);
    grow("12m").success();
    assert_eq!(std::fs::metadata(&file).unwrap().len(), 12 << 20);
}

/// Waits until a dbio temporary file appears in `dir`.
fn wait_for_target(dir: &std::path::Path) -> bool {
    let t0 = Instant::now();
    while t0.elapsed() < Duration::from_secs(20) {
        if !dbio_files(dir).is_empty() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    false
}

#[test]
fn full_filesystem_mid_run_stops_cleanly_with_a_partial_result() {
    let t = or_skip!(Tmpfs::mount("16m"));
    let out_dir = scratch();
    let json_path = out_dir.path().join("partial.json");
    // A sparse 12 MiB file: every random write into a hole allocates memory.
    let child = Command::new(dbio_path())
        .args([
            "bench",
            "--rw",
            "randwrite",
            "--bs",
            "4k",
            "--prepare",
            "sparse",
            "--size",
            "12m",
            "--rate",
            "2000",
            "--runtime",
            "30",
            "--quiet",
            "--json",
        ])
        .arg(&json_path)
        .arg(t.path())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    assert!(wait_for_target(t.path()), "dbio did not create its file");
    std::thread::sleep(Duration::from_millis(300));
    // Fill what is left: dd stops at ENOSPC.
    let _ = Command::new("dd")
        .args(["if=/dev/zero", "bs=64k"])
        .arg(format!("of={}", t.path().join("filler").display()))
        .stderr(Stdio::null())
        .status();
    let out = wait_output_within(child, Duration::from_secs(60));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        out.status.code(),
        Some(1),
        "stdout: {stdout}\nstderr: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(stdout.contains("PARTIAL RESULT"), "{stdout}");
    assert!(stdout.contains("No space left on device"), "{stdout}");
    let v = json(&std::fs::read(&json_path).unwrap());
    assert_eq!(v["partial"]["kind"], "io_error");
    assert!(
        v["jobs"][0]["write"]["ops"].as_u64().unwrap() > 0,
        "what was measured is kept"
    );
    assert!(
        dbio_files(t.path()).is_empty(),
        "temporary file left behind"
    );
}

fn signal_mid_run(sig: i32, name: &str) {
    let d = scratch();
    let json_path = d.path().join("sig.json");
    let child = Command::new(dbio_path())
        .args([
            "bench",
            "--rw",
            "randwrite",
            "--bs",
            "4k",
            "--size",
            "8m",
            "--runtime",
            "60",
            "--quiet",
            "--json",
        ])
        .arg(&json_path)
        .arg(d.path())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    assert!(wait_for_target(d.path()));
    std::thread::sleep(Duration::from_millis(800));
    // SAFETY: kill with a valid pid and signal.
    assert_eq!(unsafe { libc::kill(child.id() as i32, sig) }, 0);
    let t0 = Instant::now();
    let out = wait_output_within(child, Duration::from_secs(60));
    assert!(
        t0.elapsed() < Duration::from_secs(5),
        "dbio took {:?} to stop",
        t0.elapsed()
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    assert!(
        stdout.contains(&format!("PARTIAL RESULT: interrupted by {name}")),
        "{stdout}"
    );
    let v = json(&std::fs::read(&json_path).unwrap());
    assert_eq!(v["partial"]["signal"], name);
    assert!(v["jobs"][0]["write"]["ops"].as_u64().unwrap() > 0);
    assert!(
        dbio_files(d.path()).is_empty(),
        "temporary file left behind"
    );
}

#[test]
fn sigterm_mid_run_stops_cleanly() {
    signal_mid_run(libc::SIGTERM, "SIGTERM");
}

#[test]
fn sigint_mid_run_stops_cleanly() {
    signal_mid_run(libc::SIGINT, "SIGINT");
}
