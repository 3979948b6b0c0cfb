//! `dbio watch`: the live tracer against real processes on the real
//! kernel. Tests that load BPF programs need root (CAP_BPF and
//! CAP_PERFMON) and print a skip reason without it.

use crate::util::{dbio, dbio_path, is_root, json, scratch, wait_output_within, CHILD_DEADLINE};
use serde_json::Value;

/// Runs `dbio watch ARGS` to completion; its JSON result, or why the
/// test must be skipped (no privilege, BPF refused by this kernel).
fn watch(args: &[&str]) -> Result<Value, String> {
    if !is_root() {
        return Err("dbio watch needs root to load BPF programs".into());
    }
    let out = dbio().arg("watch").args(args).output().expect("dbio watch");
    let err = String::from_utf8_lossy(&out.stderr);
    if err.contains("the kernel refused") || err.contains("no syscall tracepoint") {
        return Err(format!("BPF on tracepoints is unavailable here: {err}"));
    }
    assert!(out.status.success(), "dbio watch failed: {err}");
    Ok(json(&out.stdout))
}

/// The `op` rows of the watch on the file `path`.
fn rows<'a>(w: &'a Value, path: &str, op: &str) -> Vec<&'a Value> {
    w["ops"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|o| o["path"] == path && o["op"] == op)
        .collect()
}

/// The bucket that holds the `q` quantile of a Log2Buckets count list.
fn quantile_bucket(counts: &[Value], q: f64) -> usize {
    let c: Vec<u64> = counts.iter().map(|v| v.as_u64().unwrap()).collect();
    let total: u64 = c.iter().sum();
    let mut cum = 0;
    for (i, n) in c.iter().enumerate() {
        cum += n;
        if cum as f64 >= q * total as f64 {
            return i;
        }
    }
    c.len()
}

// See: issue 12.
#[test]
fn watch_counts_every_call_of_a_bench_exactly() {
    let d = scratch();
    let f = d.path().join("data");
    let bench_json = d.path().join("bench.json");
    let bin = dbio_path();
    let w = or_skip!(watch(&[
        "--json",
        "-",
        "--",
        bin.to_str().unwrap(),
        "bench",
        "--ops",
        "2000",
        "--rw",
        "randwrite",
        "--bs",
        "4k",
        "--size",
        "8M",
        "--sync",
        "fdatasync",
        "--engine",
        "psync",
        "--prepare",
        "sparse",
        "--quiet",
        "--json",
        bench_json.to_str().unwrap(),
        f.to_str().unwrap(),
    ]));
    let w = &w["watch"][0];
    assert_eq!(w["ended"]["kind"], "exited", "{w}");
    assert_eq!(w["command_status"], 0, "{w}");
    let path = f.to_str().unwrap();
    let writes = rows(w, path, "pwrite64");
    let syncs = rows(w, path, "fdatasync");
    assert_eq!(writes.len(), 1, "one descriptor writes the file: {w}");
    assert_eq!(writes[0]["count"], 2000, "{w}");
    assert_eq!(writes[0]["bytes"], 2000 * 4096, "{w}");
    assert_eq!(writes[0]["errors"], 0, "{w}");
    assert_eq!(syncs.len(), 1, "{w}");
    assert_eq!(syncs[0]["count"], 2000, "{w}");
    // Every 4 KiB write at a 4 KiB offset is aligned.
    assert_eq!(writes[0]["unaligned_4k"], 0, "{w}");
    assert_eq!(writes[0]["unaligned_512"], 0, "{w}");
    // Nothing lost but the gating read the command was blocked in when
    // it was added to the watch.
    assert!(w["losses"]["unmatched"].as_u64().unwrap() <= 1, "{w}");
    assert_eq!(w["losses"]["start_table_full"], 0, "{w}");
    assert_eq!(w["losses"]["histogram_table_full"], 0, "{w}");

    // The histograms agree with bench's own within one bucket (bench
    // times from user space, so each call looks a little slower there).
    let b: Value = serde_json::from_slice(&std::fs::read(&bench_json).unwrap()).unwrap();
    let job = &b["jobs"][0];
    assert_eq!(job["write"]["ops"], 2000);
    for (traced, own) in [
        (
            &writes[0]["latency"]["counts"],
            &job["write"]["clat"]["log2_us"]["counts"],
        ),
        (
            &syncs[0]["latency"]["counts"],
            &job["sync"]["log2_us"]["counts"],
        ),
    ] {
        let (t, o) = (traced.as_array().unwrap(), own.as_array().unwrap());
        let total: u64 = t.iter().map(|v| v.as_u64().unwrap()).sum();
        assert_eq!(total, 2000, "{traced}");
        for q in [0.1, 0.5, 0.9] {
            let (bt, bo) = (quantile_bucket(t, q), quantile_bucket(o, q));
            assert!(
                bt.abs_diff(bo) <= 1,
                "quantile {q}: traced bucket {bt}, bench's {bo}: {traced} vs {own}"
            );
        }
    }
}

// See: issue 12.
#[test]
fn watch_ends_cleanly_when_the_process_exits() {
    if !is_root() {
        return crate::util::skip_this_test("dbio watch needs root to load BPF programs");
    }
    let mut target = std::process::Command::new("sleep")
        .arg("2")
        .spawn()
        .expect("sleep");
    let pid = target.id().to_string();
    let child = std::process::Command::new(dbio_path())
        .args(["watch", "--json", "-", "--pid", &pid])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("dbio watch");
    let out = wait_output_within(child, CHILD_DEADLINE);
    let _ = target.wait();
    let err = String::from_utf8_lossy(&out.stderr);
    if err.contains("the kernel refused") {
        return crate::util::skip_this_test(&format!("BPF unavailable: {err}"));
    }
    assert!(out.status.success(), "{err}");
    let v = json(&out.stdout);
    assert_eq!(v["watch"][0]["ended"]["kind"], "exited", "{v}");
    assert!(v["partial"].is_null(), "{v}");
}

// See: issue 12.
#[test]
fn watch_refuses_a_missing_pid_in_one_sentence() {
    // pid_max is at most 2^22, so this id never names a process.
    let out = dbio()
        .args(["watch", "--pid", "99999999"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(err.trim().lines().count(), 1, "{err}");
    assert!(err.contains("no process with id 99999999"), "{err}");
}

// See: issue 12.
#[test]
fn watch_refuses_without_privilege_in_one_sentence() {
    let me = std::process::id().to_string();
    let mut cmd = std::process::Command::new(if is_root() { "setpriv" } else { "env" });
    if is_root() {
        // An unprivileged user with no capabilities at all.
        cmd.args([
            "--reuid=65534",
            "--regid=65534",
            "--clear-groups",
            "--inh-caps=-all",
            "--bounding-set=-all",
        ]);
    }
    cmd.arg(dbio_path()).args(["watch", "--pid", &me]);
    let child = or_skip!(cmd
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .map_err(|e| format!("setpriv cannot run: {e}")));
    let out = wait_output_within(child, CHILD_DEADLINE);
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(err.trim().lines().count(), 1, "{err}");
    assert!(
        err.contains("needs root, or the CAP_BPF and CAP_PERFMON capabilities"),
        "{err}"
    );
}

// See: issue 12.
#[test]
fn watch_shows_a_buffered_log_writer_rewriting_the_same_block() {
    let d = scratch();
    let bin = dbio_path();
    let r = or_skip!(watch(&[
        "--json",
        "-",
        "--",
        bin.to_str().unwrap(),
        "lgwr",
        "--method",
        "buffered-dsync",
        "--redo-size",
        "512",
        "--sessions",
        "1",
        "--commits",
        "200",
        "--file-size",
        "4M",
        "--quiet",
        d.path().to_str().unwrap(),
    ]));
    let w = &r["watch"][0];
    // The log file: 512 B writes, one per commit, mostly into the block
    // the previous one ended in.
    let log = w["ops"]
        .as_array()
        .unwrap()
        .iter()
        .find(|o| o["op"] == "pwrite64" && o["count"].as_u64().unwrap() >= 200)
        .unwrap_or_else(|| panic!("no log-file writes: {w}"));
    assert_eq!(log["bytes"], log["count"].as_u64().unwrap() * 512, "{log}");
    let same = log["same_block"].as_u64().unwrap();
    // 8 writes of 512 B fill a 4 KiB block: 7 of every 8 start in the
    // block the previous one ended in.
    assert!(same * 8 >= log["count"].as_u64().unwrap() * 6, "{log}");
    let path = log["path"].as_str().unwrap();
    let f = r["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["rule"] == "watch.same_block")
        .unwrap_or_else(|| panic!("no same-block finding: {}", r["findings"]));
    assert_eq!(f["subject"], path, "{f}");
}

/// A 200-write bench watched with `--stream` and `extra` options: the
/// stream's lines on the bench's file, and the watch's result.
fn streamed_bench(extra: &[&str]) -> Result<(Vec<String>, Value), String> {
    if !is_root() {
        return Err("dbio watch needs root to load BPF programs".into());
    }
    let d = scratch();
    let f = d.path().join("data");
    let result = d.path().join("watch.json");
    let bin = dbio_path();
    let out = dbio()
        .args(["watch", "--stream", "--json", result.to_str().unwrap()])
        .args(extra)
        .args([
            "--",
            bin.to_str().unwrap(),
            "bench",
            "--ops",
            "200",
            "--rw",
            "write",
        ])
        .args([
            "--bs",
            "4k",
            "--size",
            "1M",
            "--sync",
            "fdatasync",
            "--quiet",
        ])
        .args(["--csv", "/dev/null", f.to_str().unwrap()])
        .output()
        .expect("dbio watch");
    let err = String::from_utf8_lossy(&out.stderr);
    if err.contains("the kernel refused") {
        return Err(format!("BPF unavailable: {err}"));
    }
    assert!(out.status.success(), "{err}");
    // The worker thread's calls (not the file's preparation), from the
    // stream lines: time pid tid comm call fd path offset size latency result.
    let path = f.to_str().unwrap().to_string();
    let lines = String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter(|l| {
            let c: Vec<&str> = l.split_whitespace().collect();
            c.len() == 11 && c[3] == "dbio-worker-0" && c[6] == path
        })
        .map(str::to_string)
        .collect();
    let v: Value = serde_json::from_slice(&std::fs::read(&result).unwrap()).unwrap();
    Ok((lines, v))
}

// See: issue 12.
#[test]
fn watch_streams_every_call_and_filters_by_latency_in_the_kernel() {
    let (lines, v) = or_skip!(streamed_bench(&[]));
    let w = &v["watch"][0];
    let writes = lines.iter().filter(|l| l.contains(" pwrite64 ")).count();
    let syncs = lines.iter().filter(|l| l.contains(" fdatasync ")).count();
    assert_eq!(
        (writes, syncs),
        (200, 200),
        "{:?}",
        &lines[..4.min(lines.len())]
    );
    // A write line: offset, size 4096, result 4096.
    let first = lines.iter().find(|l| l.contains(" pwrite64 ")).unwrap();
    let cols: Vec<&str> = first.split_whitespace().collect();
    assert_eq!(cols[7], "0", "{first}");
    assert_eq!(cols[8], "4096", "{first}");
    assert_eq!(cols[10], "4096", "{first}");
    assert!(w["streamed"].as_u64().unwrap() >= 400, "{w}");
    assert_eq!(w["losses"]["ring_drops"], 0, "{w}");

    // Nothing takes an hour: the kernel streams nothing, the histograms
    // still count every call.
    let (lines, v) = or_skip!(streamed_bench(&["--min-latency", "3600s"]));
    assert!(lines.is_empty(), "{lines:?}");
    let w = &v["watch"][0];
    assert_eq!(w["streamed"], 0, "{w}");
    let writes: u64 = w["ops"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|o| o["op"] == "pwrite64")
        .map(|o| o["count"].as_u64().unwrap())
        .sum();
    assert!(writes >= 200, "{w}");
}

// See: issue 12.
#[test]
fn watch_picks_up_a_later_process_by_name_and_stops_at_ctrl_c() {
    use std::io::{BufRead, BufReader};
    if !is_root() {
        return crate::util::skip_this_test("dbio watch needs root to load BPF programs");
    }
    let d = scratch();
    // A shell under a name of its own: its command name is the link's.
    let sh = d.path().join("dbiowatchsh");
    std::os::unix::fs::symlink("/bin/sh", &sh).unwrap();
    let out_file = d.path().join("out");
    let mut watch = std::process::Command::new(dbio_path())
        .args(["watch", "--comm", "dbiowatch*", "--json", "-"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("dbio watch");
    // Wait for the line that says the programs are attached.
    let mut err = BufReader::new(watch.stderr.take().unwrap());
    let mut line = String::new();
    err.read_line(&mut line).unwrap();
    if !line.contains("watching comm dbiowatch*") {
        let _ = watch.kill();
        let out = wait_output_within(watch, CHILD_DEADLINE);
        assert!(!out.status.success());
        return crate::util::skip_this_test(&format!("dbio watch could not start: {line}"));
    }
    // Five write(2) calls to the file, by a process started after the
    // watch, held until the watch says it has picked it up (the shell
    // waits for its stdin to close).
    let script = format!(
        "exec 3>>'{}'; read x; for i in 1 2 3 4 5; do echo $i >&3; done",
        out_file.display()
    );
    let mut child = std::process::Command::new(&sh)
        .args(["-c", &script])
        .stdin(std::process::Stdio::piped())
        .spawn()
        .expect("sh");
    let pid = child.id();
    let picked = format!("now watching pid {pid} ");
    loop {
        line.clear();
        if err.read_line(&mut line).unwrap() == 0 {
            panic!("dbio watch ended without picking up pid {}", child.id());
        }
        if line.contains(&picked) {
            break;
        }
    }
    drop(child.stdin.take());
    let _ = child.wait();
    // Ctrl-C: the summary, exit 0.
    unsafe { libc::kill(watch.id() as i32, libc::SIGINT) };
    let out = wait_output_within(watch, CHILD_DEADLINE);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v = json(&out.stdout);
    let w = &v["watch"][0];
    assert_eq!(w["ended"]["kind"], "signal", "{w}");
    assert!(v["partial"].is_null(), "{v}");
    // The shell exits at once, so the descriptor's path may be gone
    // before dbio reads it: the calls are counted by process.
    let writes: Vec<&Value> = w["ops"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|o| o["pid"] == pid && o["op"] == "write")
        .collect();
    let count: u64 = writes.iter().map(|o| o["count"].as_u64().unwrap()).sum();
    let bytes: u64 = writes.iter().map(|o| o["bytes"].as_u64().unwrap()).sum();
    assert_eq!((count, bytes), (5, 10), "{w}");
    assert_eq!(
        std::fs::read_to_string(&out_file).unwrap(),
        "1\n2\n3\n4\n5\n"
    );
}
