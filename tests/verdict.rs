//! The verdict on real inputs (issue 23): each shared Oracle fixture
//! (`../shared/fixtures/oracle`), run through the real binary, gets the
//! answer a DBA reading the file by hand gives. Each test states the
//! numbers that decide it. In CI `../shared` is always beside the clone:
//! a missing fixture is a failure there, a skip elsewhere.

use assert_cmd::Command;
use std::path::PathBuf;

/// The shared fixture `name`, or `None` (a skip) outside CI when absent.
fn shared(name: &str) -> Option<PathBuf> {
    let f = PathBuf::from(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../shared/fixtures/oracle"
    ))
    .join(name);
    if f.is_file() {
        return Some(f);
    }
    assert!(
        std::env::var_os("CI").is_none(),
        "{} is absent, and CI runs with ../shared beside the repository",
        f.display()
    );
    eprintln!("SKIP: {} is absent", f.display());
    None
}

/// The JSON result of `dbio <command> FILE`.
fn json(command: &str, f: &PathBuf) -> serde_json::Value {
    let out = Command::cargo_bin("dbio")
        .unwrap()
        .arg(command)
        .arg(f)
        .args(["--json", "-"])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    serde_json::from_slice(&out).unwrap()
}

/// The verdict's class and answer, and the rule and subject of its top
/// finding.
fn verdict(command: &str, name: &str) -> Option<(String, String, String, String)> {
    let f = shared(name)?;
    let v = json(command, &f);
    let verdict = &v["verdict"];
    let first = verdict["top"][0].as_u64().expect("a top finding") as usize;
    let top = &v["findings"][first];
    Some((
        verdict["class"].as_str().unwrap().to_string(),
        verdict["answer"].as_str().unwrap().to_string(),
        top["rule"].as_str().unwrap().to_string(),
        top["subject"].as_str().unwrap_or("").to_string(),
    ))
}

#[test]
fn pylatencymap_single_block_reads_are_storage_bound() {
    // 29,249 'db file sequential read' waits, 175 s of R = 178 s (98.4 %),
    // 5.98 ms each (parsetrc: most between 4 and 16 ms): device latency.
    // CPU 2.5 %. The 3 'utl_file I/O' waits (150 µs) are not the answer.
    let Some((class, answer, rule, subject)) =
        verdict("tracefile", "pylatencymap-12101-seqread.trc")
    else {
        return;
    };
    assert_eq!(class, "storage_bound");
    assert!(
        answer.starts_with(
            "Storage-bound: 'db file sequential read' is 98.4 % of R at 5.98 ms per read, device latency"
        ),
        "{answer}"
    );
    assert_eq!(
        (rule.as_str(), subject.as_str()),
        ("trace.io_wait", "db file sequential read")
    );
}

#[test]
fn jkstill_traces_sleep_and_are_not_the_storage() {
    // rac-9850: 'PL/SQL lock timer' inside calls 10 waits of 501 ms, 5.01 s
    // of R = 5.42 s (92.4 %): DBMS_LOCK.SLEEP. The I/O waits ('db file
    // sequential read' 76.5 ms, 'read by other session' 12.7 ms, 'Disk
    // file operations I/O' 3 µs) are 1.6 % of R.
    // trcsess-main: the same sleep, 20 waits, 10.0 s of R = 10.8 s
    // (92.4 %); I/O waits 1.1 %.
    for (name, io) in [
        ("jkstill-122-rac-9850.trc", "1.6"),
        ("jkstill-122-trcsess-main.trc", "1.1"),
    ] {
        let Some((class, answer, rule, subject)) = verdict("tracefile", name) else {
            return;
        };
        assert_eq!(class, "not_storage", "{name}");
        assert_eq!(
            answer,
            format!("Not the storage: 'PL/SQL lock timer' (a sleep the code asked for) is 92.4 % of R; I/O waits {io} %.")
        );
        assert_eq!(
            (rule.as_str(), subject.as_str()),
            ("trace.wait", "PL/SQL lock timer")
        );
    }
}

#[test]
fn trctools_traces_get_their_verdicts() {
    // lobs: 'SQL*Net message from client' between calls 83.2 ms of R =
    // 84.3 ms (98.7 %); CPU 1.03 ms; no I/O wait: the client's time.
    let Some((class, _, rule, subject)) = verdict("tracefile", "trctools-19c-lobs.trc") else {
        return;
    };
    assert_eq!(class, "not_storage");
    assert_eq!(
        (rule.as_str(), subject.as_str()),
        ("trace.idle", "SQL*Net message from client")
    );
    // two-stmts-one-cursor: the client 61.8 ms of R = 115 ms (53.6 %),
    // CPU 49.8 ms (43.2 %), I/O waits 0.3 %.
    let Some((class, _, rule, subject)) =
        verdict("tracefile", "trctools-19c-two-stmts-one-cursor.trc")
    else {
        return;
    };
    assert_eq!(class, "not_storage");
    assert_eq!(
        (rule.as_str(), subject.as_str()),
        ("trace.idle", "SQL*Net message from client")
    );
    // mixed-execs: 7 'db file sequential read' waits, 7.84 ms of R =
    // 13.3 ms (59.0 %) at 1.12 ms each (3 of 7 over 1 ms): the device
    // tier; CPU 4.17 ms (31.3 %).
    let Some((class, answer, rule, subject)) = verdict("tracefile", "trctools-19c-mixed-execs.trc")
    else {
        return;
    };
    assert_eq!(class, "storage_bound");
    assert!(
        answer.contains("59.0 % of R at 1.12 ms per read"),
        "{answer}"
    );
    assert_eq!(
        (rule.as_str(), subject.as_str()),
        ("trace.io_wait", "db file sequential read")
    );
}

#[test]
fn the_aix_awr_report_is_not_the_storage() {
    // DB time 3,974.4 s; DB CPU 1,234.8 s (31.1 %); foreground User I/O
    // 46 s and System I/O 2 s (1.2 %: 'db file sequential read' 39.5 s,
    // 1.0 %, at 109.72 µs); 'log file sync' 29.1 s (0.7 %). The report's
    // own "Captured Time accounts for 33.6% of Total DB time": 66.4 % is
    // neither CPU nor a wait, and that is the largest component.
    let Some((class, answer, rule, subject)) = verdict("awr", "jasmin-awr-12201-aix.txt") else {
        return;
    };
    assert_eq!(class, "not_storage");
    assert!(
        answer.starts_with("Not the storage: I/O waits are 1.2 % of DB time ('db file sequential read' 1.0 % at 110 µs per wait); DB CPU 31.1 %"),
        "{answer}"
    );
    assert_eq!(rule, "awr.uncaptured", "{subject}");
}

#[test]
fn the_statspack_report_is_cpu() {
    // DB time 920.4 s; 'CPU time' 861 s (93.5 %; the time model's DB CPU,
    // 938.5 s, is even above DB time); foreground 'direct path read' 34 s
    // (3.7 %) and 'log file sync' 25 s (2.7 %); the host 4.2 % busy.
    let Some((class, answer, rule, subject)) = verdict("awr", "jasmin-statspack-12102.txt") else {
        return;
    };
    assert_eq!(class, "cpu");
    assert!(
        answer.starts_with("CPU: DB CPU is 93.5 % of DB time; I/O waits 4.5 %"),
        "{answer}"
    );
    assert_eq!((rule.as_str(), subject.as_str()), ("awr.cpu", "DB CPU"));
}

/// The verdict's class and answer and its top finding's rule and subject
/// for `dbio ARGS --json -`.
fn verdict_of(args: &[String]) -> (String, String, String, String) {
    let out = Command::cargo_bin("dbio")
        .unwrap()
        .args(args)
        .args(["--json", "-"])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let v: serde_json::Value = serde_json::from_slice(&out).unwrap();
    let verdict = &v["verdict"];
    let first = verdict["top"][0].as_u64().expect("a top finding") as usize;
    let top = &v["findings"][first];
    (
        verdict["class"].as_str().unwrap().to_string(),
        verdict["answer"].as_str().unwrap().to_string(),
        top["rule"].as_str().unwrap().to_string(),
        top["subject"].as_str().unwrap_or("").to_string(),
    )
}

fn args(head: &[&str], files: &[PathBuf]) -> Vec<String> {
    head.iter()
        .map(|s| s.to_string())
        .chain(files.iter().map(|f| f.display().to_string()))
        .collect()
}

fn trend_fixture(name: &str) -> PathBuf {
    PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/awr")).join(name)
}

#[test]
fn two_jkstill_traces_differ_by_the_sleep_not_the_storage() {
    // R 5.42 s against 10.8 s; 'PL/SQL lock timer' 5.01 s against
    // 10.00 s: +4.99 s of the +5.40 s, 92 %; I/O waits are 1 % to 2 %
    // of either R.
    let (Some(a), Some(b)) = (
        shared("jkstill-122-rac-9850.trc"),
        shared("jkstill-122-trcsess-main.trc"),
    ) else {
        return;
    };
    let (class, answer, rule, subject) = verdict_of(&args(&["tracefile", "--compare"], &[a, b]));
    assert_eq!(class, "not_storage");
    assert!(
        answer.starts_with("B's R is 2.00x A's (10.8 s against 5.42 s): 'PL/SQL lock timer'"),
        "{answer}"
    );
    assert_eq!(
        (rule.as_str(), subject.as_str()),
        ("trace.compare.part", "PL/SQL lock timer")
    );
}

#[test]
fn a_short_trace_against_the_seqread_trace_is_slower_storage() {
    // A (trctools mixed execs): R 13.3 ms, 7 single-block reads at
    // 1.12 ms. B (pylatencymap): R 178 s, 29.2 k reads at 5.98 ms, 175 s.
    // Of B's +175 s of reads, 29.2 k x 4.86 ms = 142 s is the latency and
    // 29.2 k x 1.12 ms = 33 s the count: the storage got slower.
    let (Some(a), Some(b)) = (
        shared("trctools-19c-mixed-execs.trc"),
        shared("pylatencymap-12101-seqread.trc"),
    ) else {
        return;
    };
    let (class, answer, rule, subject) = verdict_of(&args(&["tracefile", "--compare"], &[a, b]));
    assert_eq!(class, "storage_bound");
    assert!(
        answer.contains("per wait 1.12 ms in A, 5.98 ms in B")
            && answer.ends_with("the storage got slower."),
        "{answer}"
    );
    assert_eq!(
        (rule.as_str(), subject.as_str()),
        ("trace.compare.part", "db file sequential read")
    );
}

#[test]
fn the_statspack_report_against_the_aix_report_is_not_the_storage() {
    // Different databases (CLINPRD, BPSC), same elapsed length: the
    // warning first. DB time 920 s against 3,974 s (+3,054 s): the AIX
    // report's 2,641 s that is neither DB CPU nor a listed wait is 86 % of
    // it, DB CPU (861 s to 1,235 s) 12 %; I/O waits are 4.5 % and 1.2 % of
    // either.
    let (Some(a), Some(b)) = (
        shared("jasmin-statspack-12102.txt"),
        shared("jasmin-awr-12201-aix.txt"),
    ) else {
        return;
    };
    let (class, answer, rule, _) = verdict_of(&args(&["awr", "--compare"], &[a, b]));
    assert_eq!(class, "not_storage");
    assert!(
        answer.starts_with("A and B are reports of different databases (CLINPRD (DB Id 2071347136) and BPSC (DB Id 1135854311))")
            && answer.contains(". B's DB time is 4.32x A's")
            && answer.contains("time neither DB CPU nor a listed wait: 0 s in A, 2641 s in B"),
        "{answer}"
    );
    assert_eq!(rule, "awr.compare.different_databases");
}

#[test]
fn the_trend_fixtures_compared_and_as_a_trend_are_the_commit_path() {
    // 09:00 against 10:00: DB time 30 to 90 min; 'log file sync' 1.00 ms
    // to 4.00 ms per commit (900 s to 10,800 s) while 'log file parallel
    // write' went 200 to 300 µs: the commit path, not the log device.
    let files: Vec<PathBuf> = ["trend-0900.txt", "trend-1000.txt", "trend-1100.txt"]
        .iter()
        .map(|f| trend_fixture(f))
        .collect();
    let (class, answer, rule, subject) = verdict_of(&args(&["awr", "--compare"], &files[..2]));
    assert_eq!(class, "commit_path");
    assert!(
        answer.contains("'log file sync' per commit 1.00 ms in A, 4.00 ms in B, 'log file parallel write' 200 µs in A, 300 µs in B: not the log device"),
        "{answer}"
    );
    assert_eq!(
        (rule.as_str(), subject.as_str()),
        ("awr.compare.part", "Commit")
    );
    // The trend: 10:00 is the busiest (1.50 average active sessions
    // against 0.50 and 0.52), and there the commit path.
    let (class, answer, rule, _) = verdict_of(&args(&["awr"], &files));
    assert_eq!(class, "commit_path");
    assert!(
        answer.starts_with("#2 (02-Mar-25 10:00:00) is the busiest of 3 intervals: 1.50 average active sessions, 3.00x the quietest"),
        "{answer}"
    );
    assert_eq!(rule, "awr.trend.busiest");
    // The terminal opens with the answer.
    let out = Command::cargo_bin("dbio")
        .unwrap()
        .args(args(&["awr"], &files))
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let text = String::from_utf8(out).unwrap();
    assert!(
        text.lines()
            .nth(1)
            .is_some_and(|l| l.starts_with("Which interval is worst, and is it the storage?")),
        "{text}"
    );
}
