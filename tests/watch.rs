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
        // Enough commits that the run outlasts a few of dbio's 50 ms
        // ticks on a loaded machine: the log's path is read while the
        // descriptor that writes it is open.
        "--commits",
        "1000",
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
    // Buffered: no O_DIRECT among the descriptor's flags.
    let flags = log["open_flags"]
        .as_str()
        .unwrap_or_else(|| panic!("{log}"));
    assert!(!flags.split('|').any(|f| f == "O_DIRECT"), "{log}");
    let path = log["path"].as_str().unwrap();
    let f = r["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["rule"] == "watch.same_block")
        .unwrap_or_else(|| panic!("no same-block finding: {}", r["findings"]));
    assert_eq!(f["subject"], path, "{f}");
}

// See: issue 23. dbio's log writer opens its file, then switches O_DIRECT
// on with fcntl(F_SETFL): the tracer keeps the flags the calls ran with,
// and the same-block finding (a buffered filesystem reading the block
// back) is not said of direct writes, though they do start in the block
// the previous one ended in.
#[test]
fn watch_does_not_call_o_direct_log_writes_rewrites_through_the_page_cache() {
    let d = scratch();
    let bin = dbio_path();
    let r = or_skip!(watch(&[
        "--json",
        "-",
        "--",
        bin.to_str().unwrap(),
        "lgwr",
        "--method",
        "direct-dsync",
        "--redo-size",
        "512",
        "--sessions",
        "1",
        "--commits",
        "1000",
        "--file-size",
        "4M",
        "--quiet",
        d.path().to_str().unwrap(),
    ]));
    let w = &r["watch"][0];
    let log = w["ops"]
        .as_array()
        .unwrap()
        .iter()
        .find(|o| o["op"] == "pwrite64" && o["count"].as_u64().unwrap() >= 200)
        .unwrap_or_else(|| panic!("no log-file writes: {w}"));
    let flags = log["open_flags"]
        .as_str()
        .unwrap_or_else(|| panic!("{log}"));
    assert!(flags.split('|').any(|f| f == "O_DIRECT"), "{log}");
    assert!(flags.split('|').any(|f| f == "O_DSYNC"), "{log}");
    // The pattern is there: 7 of every 8 writes start in the block the
    // previous one ended in.
    let same = log["same_block"].as_u64().unwrap();
    assert!(same * 8 >= log["count"].as_u64().unwrap() * 6, "{log}");
    let rules: Vec<&str> = r["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["rule"].as_str().unwrap())
        .collect();
    assert!(!rules.contains(&"watch.same_block"), "{rules:?}");
    // The environment is the busiest file's directory, not `/`.
    let target = r["environment"]["target"].as_str().unwrap();
    assert_eq!(
        std::path::Path::new(target).file_name(),
        d.path().file_name(),
        "{target}"
    );
    assert!(!r["environment"]["fs_type"].as_str().unwrap().is_empty());
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

/// The calls still in the ring when the watched command exits are printed
/// too. A burst of 5,000 buffered writes on tmpfs ends within a tick or
/// two of its first write, so most of it is in the ring when the command
/// exits; the stream used to count those calls and drop their lines (1,492
/// of 2,000 printed in one try, on an unloaded machine).
#[test]
fn watch_streams_the_calls_left_in_the_ring_when_the_command_exits() {
    if !is_root() {
        return crate::util::skip_this_test("dbio watch needs root to load BPF programs");
    }
    let t = or_skip!(crate::util::Tmpfs::mount("64m"));
    let f = t.path().join("data");
    let result = t.path().join("watch.json");
    let bin = dbio_path();
    let out = dbio()
        .args(["watch", "--stream", "--json"])
        .arg(&result)
        .arg("--")
        .arg(&bin)
        .args([
            "bench", "--ops", "5000", "--rw", "write", "--bs", "4k", "--size", "8m",
        ])
        .args(["--quiet", "--csv", "/dev/null"])
        .arg(&f)
        .output()
        .expect("dbio watch");
    let err = String::from_utf8_lossy(&out.stderr);
    if err.contains("the kernel refused") {
        return crate::util::skip_this_test(&format!("BPF unavailable: {err}"));
    }
    assert!(out.status.success(), "{err}");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let writes: Vec<Vec<&str>> = stdout
        .lines()
        .map(|l| l.split_whitespace().collect::<Vec<_>>())
        .filter(|c| c.len() == 11 && c[3] == "dbio-worker-0" && c[4] == "pwrite64")
        .collect();
    assert_eq!(writes.len(), 5000, "{err}");
    // Named though the command is gone when they are printed: the worker's
    // descriptor is a reopen of the file through /proc/self/fd.
    let path = f.to_str().unwrap();
    let unnamed = writes.iter().filter(|c| c[6] != path).count();
    assert_eq!(unnamed, 0, "{:?}", writes.iter().find(|c| c[6] != path));
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

// See: issue 12.
#[test]
fn watch_times_block_requests_and_attributes_them_to_the_file() {
    let d = scratch();
    let f = d.path().join("data");
    let bin = dbio_path();
    let args = |extra: &[&str]| -> Vec<String> {
        let mut v: Vec<String> = ["--json", "-"].iter().map(|s| s.to_string()).collect();
        v.extend(extra.iter().map(|s| s.to_string()));
        v.push("--".into());
        v.push(bin.to_str().unwrap().into());
        v.extend(
            [
                "bench",
                "--ops",
                "300",
                // At most 1,000 a second, so the command lives for several
                // of watch's 50 ms ticks: a process gone before its first
                // tick leaves its descriptors unresolved (no file to map),
                // as it did on an idle machine, where 300 writes took 51 ms.
                "--rate",
                "1000",
                "--rw",
                "write",
                "--bs",
                "4k",
                "--size",
                "4M",
                "--direct",
                "--prepare",
                "sparse",
                "--sync",
                "fdatasync",
                "--quiet",
                "--csv",
                "/dev/null",
                "--overwrite",
                f.to_str().unwrap(),
            ]
            .iter()
            .map(|s| s.to_string()),
        );
        v
    };
    let a = args(&[]);
    let r = or_skip!(watch(&a.iter().map(String::as_str).collect::<Vec<_>>()));
    let w = &r["watch"][0];
    let path = f.to_str().unwrap();
    if w["unavailable"]
        .as_array()
        .unwrap()
        .iter()
        .any(|u| u.as_str().unwrap().starts_with("block:block_rq"))
    {
        return crate::util::skip_this_test(&format!("no block tracepoints: {}", w["unavailable"]));
    }
    if let Some(u) = w["unmapped"]
        .as_array()
        .and_then(|u| u.iter().find(|u| u["path"] == path))
    {
        return crate::util::skip_this_test(&format!("the scratch file cannot be mapped: {u}"));
    }
    // Each O_DIRECT 4 KiB write is one request in the file's extents,
    // issued in the command's context. A request completed before the
    // file was first seen (one 50 ms tick) and issued by a kworker is not
    // streamed, so allow 5 % of them to be missing.
    let pid = w["processes"][0]["pid"].as_u64().unwrap();
    let rows: Vec<&Value> = w["file_block"]
        .as_array()
        .unwrap_or_else(|| panic!("no file_block: {w}"))
        .iter()
        .filter(|b| b["path"] == path && b["op"] == "write")
        .collect();
    assert_eq!(rows.len(), 1, "{w}");
    let b = rows[0];
    let count = b["count"].as_u64().unwrap();
    assert!((1..=300).contains(&count), "{b}");
    assert_eq!(b["bytes"].as_u64().unwrap(), count * 4096, "{b}");
    // Requests on the file's blocks issued outside the process (pid
    // none: a kworker's) count for the file too, from the first tick on
    // (since every device's completions reach user space), so on a busy
    // machine a few of the count may not be the process's own.
    let by_watched = b["by_watched"].as_u64().unwrap();
    assert!(by_watched <= count, "{b}");
    // No request is lost: each of the 300 writes is the file's or, when
    // no mapping held its blocks (blocks of this sparse file allocated
    // after its last mapping: on an idle machine none or a few, with the
    // other core busy up to 55 of 300), an unattributed write of the
    // process on the same device. How many fall on which side depends on
    // when watch's ticks ran, so only the sum is checked.
    let unattributed: u64 = w["block_unattributed"]
        .as_array()
        .map(|u| {
            u.iter()
                .filter(|x| x["op"] == "write" && x["device"] == b["device"])
                .map(|x| x["by_watched"].as_u64().unwrap())
                .sum()
        })
        .unwrap_or(0);
    assert!(
        by_watched + unattributed >= 300,
        "{b} {}",
        w["block_unattributed"]
    );
    let hist: u64 = b["latency"]["counts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c.as_u64().unwrap())
        .sum();
    assert_eq!(hist, count, "{b}");
    // The device rows hold the command's own writes, named.
    let dev: Vec<&Value> = w["block"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| d["pid"] == pid && d["op"] == "write" && d["device"] == b["device"])
        .collect();
    assert_eq!(dev.len(), 1, "{w}");
    assert!(dev[0]["count"].as_u64().unwrap() >= count, "{}", dev[0]);
    assert!(dev[0]["name"].is_string(), "{}", dev[0]);
    // Call time against device time, as a finding on the file: the
    // file's time finding (it is nearly all of the traced time), with the
    // device's share of it as evidence.
    let f = r["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|x| x["rule"] == "watch.file_time" && x["subject"] == path)
        .unwrap_or_else(|| panic!("no call/device finding: {}", r["findings"]));
    assert!(f["text"].as_str().unwrap().contains("requests in"), "{f}");
    assert!(
        f["evidence"]
            .as_array()
            .unwrap()
            .iter()
            .any(|e| e["what"] == "device share of the calls' time"),
        "{f}"
    );
    // The answer names the file, whatever this machine's load made of it
    // (storage-bound on an idle disk; above the device when the machine
    // is busy).
    assert!(
        r["verdict"]["answer"].as_str().unwrap().starts_with(path),
        "{}",
        r["verdict"]
    );

    // --no-block: no block layer at all.
    let a = args(&["--no-block"]);
    let r = or_skip!(watch(&a.iter().map(String::as_str).collect::<Vec<_>>()));
    let w = &r["watch"][0];
    assert!(
        w.get("block").is_none() && w.get("file_block").is_none(),
        "{w}"
    );
}

/// (pid, count, bytes) of one process's writes.
type Writes = Vec<(u64, u64, u64)>;

/// The writes of a subshell appending to `out`, watched with `extra`:
/// (pid, count, bytes) of every process's write(2) calls on its standard
/// output (the child exits at once, so its descriptors' paths may never
/// be read).
fn forked_writes(extra: &[&str], out: &std::path::Path) -> Result<(Value, Writes), String> {
    // The subshell is a forked child; `; true` keeps the shell from
    // exec'ing it in place.
    let script = format!("(echo 1; echo 2; echo 3) >>'{}'; true", out.display());
    let mut a = vec!["--json", "-"];
    a.extend(extra);
    a.extend(["--", "sh", "-c", &script]);
    let r = watch(&a)?;
    let w = r["watch"][0].clone();
    let rows = w["ops"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|o| o["op"] == "write" && o["fd"] == 1)
        .map(|o| {
            (
                o["pid"].as_u64().unwrap(),
                o["count"].as_u64().unwrap(),
                o["bytes"].as_u64().unwrap(),
            )
        })
        .collect();
    Ok((w, rows))
}

// See: issue 12.
#[test]
fn watch_follows_the_children_a_watched_process_forks() {
    let d = scratch();
    let out = d.path().join("out");
    let (w, rows) = or_skip!(forked_writes(&["--follow"], &out));
    let sh = w["processes"][0]["pid"].as_u64().unwrap();
    assert_eq!(rows.len(), 1, "{w}");
    let (pid, count, bytes) = rows[0];
    assert_ne!(pid, sh, "the writes are the child's: {w}");
    assert_eq!((count, bytes), (3, 6), "{w}");
    assert!(
        w["processes"]
            .as_array()
            .unwrap()
            .iter()
            .any(|p| p["pid"] == pid),
        "{w}"
    );
    // Without --follow the child is not watched.
    let (w, rows) = or_skip!(forked_writes(&[], &out));
    assert!(rows.is_empty(), "{w}");
    assert_eq!(std::fs::read_to_string(&out).unwrap(), "1\n2\n3\n1\n2\n3\n");
}

// See: issue 12.
#[test]
fn watch_sees_postgres_sync_its_wal_under_commit_load() {
    use crate::util::{skip_this_test, tool};
    let Some(url) = std::env::var("DBIO_TEST_PG_URL")
        .ok()
        .filter(|u| !u.is_empty())
    else {
        return skip_this_test(
            "DBIO_TEST_PG_URL is not set (scripts/test starts a private server as root)",
        );
    };
    if !is_root() {
        return crate::util::skip_this_test("dbio watch needs root to load BPF programs");
    }
    // The server: its long-lived processes (the walwriter, checkpointer
    // and background writer, which never exit under a test) and their
    // parent, the postmaster; --follow adds the backends `dbio load`
    // connects. Backends of an earlier test may still be exiting, so
    // they are not named.
    let out = or_skip!(tool(std::process::Command::new("psql").args([
        "-XAtq",
        &url,
        "-c",
        "select pid from pg_stat_activity where backend_type in ('walwriter', 'checkpointer', 'background writer') order by backend_type = 'walwriter' desc",
    ])));
    let mut pids: Vec<u32> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| l.trim().parse().unwrap())
        .collect();
    let ppid = |pid: u32| -> Option<u32> {
        let s = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
        s.rsplit_once(')')?
            .1
            .split_whitespace()
            .nth(1)?
            .parse()
            .ok()
    };
    pids.push(ppid(pids[0]).unwrap());
    let pids: Vec<String> = pids.iter().map(u32::to_string).collect();
    let d = scratch();
    let result = d.path().join("watch.json");
    let args = ["watch", "--follow", "--pid", &pids.join(",")].map(str::to_string);
    let watch = crate::util::start_watch(&args, &result).expect("BPF on this machine");
    let (sessions, per_session) = (2u64, 150u64);
    let load = dbio()
        .args(["load", &url, "--sessions", &sessions.to_string()])
        .args([
            "--commits",
            &per_session.to_string(),
            "--quiet",
            "--json",
            "-",
        ])
        .output()
        .unwrap();
    unsafe { libc::kill(watch.id() as i32, libc::SIGINT) };
    let done = wait_output_within(watch, CHILD_DEADLINE);
    assert!(
        load.status.success(),
        "{}",
        String::from_utf8_lossy(&load.stderr)
    );
    assert!(
        done.status.success(),
        "{}",
        String::from_utf8_lossy(&done.stderr)
    );
    let l = json(&load.stdout);
    let commits = sessions * per_session;
    assert_eq!(l["load"][0]["commits"], commits, "{l}");
    let flushes = l["load"][0]["flush"]["flushes"].as_u64().unwrap();
    let v: Value = serde_json::from_slice(&std::fs::read(&result).unwrap()).unwrap();
    let w = &v["watch"][0];
    let wal = |op: &str| -> (u64, u64) {
        w["ops"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|o| o["op"] == op && o["path"].as_str().is_some_and(|p| p.contains("/pg_wal/")))
            .fold((0, 0), |(c, b), o| {
                (
                    c + o["count"].as_u64().unwrap(),
                    b + o["bytes"].as_u64().unwrap(),
                )
            })
    };
    let syncs = wal("fdatasync").0 + wal("fsync").0;
    let (writes, bytes) = {
        let (a, b) = wal("pwrite64");
        let (c, d) = wal("write");
        (a + c, b + d)
    };
    // Every WAL flush the server counted during the load was seen (the
    // watch spans the whole load); with synchronous_commit on there is
    // at most one per commit, and at least one per group of `sessions`.
    assert!(
        syncs >= flushes,
        "{syncs} WAL syncs seen, the server counted {flushes}: {w}"
    );
    assert!(
        syncs >= commits / sessions && syncs <= commits + 50,
        "{syncs} WAL syncs for {commits} commits: {w}"
    );
    assert!(
        writes >= syncs / 2 && bytes >= commits * 100,
        "{writes} WAL writes, {bytes} B: {w}"
    );
}

// See: issue 12.
#[test]
fn watch_gives_a_reused_descriptor_number_a_row_per_file() {
    let d = scratch();
    let (a, b) = (d.path().join("a"), d.path().join("b"));
    std::fs::write(&a, "x\n").unwrap();
    std::fs::write(&b, "yyy\n").unwrap();
    // md5sum opens a, reads it to the end, closes it, then opens b on the
    // same (lowest free) number: two files, two rows.
    let r = or_skip!(watch(&[
        "--json",
        "-",
        "--no-block",
        "--",
        "md5sum",
        a.to_str().unwrap(),
        b.to_str().unwrap(),
    ]));
    let w = &r["watch"][0];
    let reads: Vec<(i64, u64, u64, u64)> = w["ops"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|o| o["op"] == "read")
        .map(|o| {
            (
                o["fd"].as_i64().unwrap(),
                o["generation"].as_u64().unwrap_or(0),
                o["count"].as_u64().unwrap(),
                o["bytes"].as_u64().unwrap(),
            )
        })
        .collect();
    // Each file: one read of its bytes and one at its end.
    let of_a = reads.iter().find(|r| (r.2, r.3) == (2, 2));
    let of_b = reads.iter().find(|r| (r.2, r.3) == (2, 4));
    let (Some(ra), Some(rb)) = (of_a, of_b) else {
        panic!("no separate rows for a and b: {reads:?}: {w}");
    };
    assert_eq!(ra.0, rb.0, "the same number: {reads:?}");
    assert!(rb.1 > ra.1, "a later generation: {reads:?}");
}

/// `dbio watch ARGS` with the terminal table on standard output and the
/// JSON result in `json`: the text, or why the test must be skipped.
fn watch_text(args: &[&str]) -> Result<String, String> {
    if !is_root() {
        return Err("dbio watch needs root to load BPF programs".into());
    }
    let out = dbio().arg("watch").args(args).output().expect("dbio watch");
    let err = String::from_utf8_lossy(&out.stderr);
    if err.contains("the kernel refused") || err.contains("no syscall tracepoint") {
        return Err(format!("BPF on tracepoints is unavailable here: {err}"));
    }
    assert!(out.status.success(), "dbio watch failed: {err}");
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

// See: issue 23.
#[test]
fn watch_folds_pseudo_files_and_says_which_file_took_the_time() {
    let d = scratch();
    let log = d.path().join("log");
    std::fs::create_dir(&log).unwrap();
    let saved = d.path().join("w.json");
    let bin = dbio_path();
    // A one-session log writer: dbio reads /proc, /sys and its shared
    // libraries on the way, then writes and syncs its log.
    let args = |extra: &[&str]| -> Vec<String> {
        let mut v: Vec<String> = extra.iter().map(|s| s.to_string()).collect();
        v.push("--".into());
        for a in [
            bin.to_str().unwrap(),
            "lgwr",
            "--sessions",
            "1",
            "--commits",
            "500",
            "--file-size",
            "4M",
            "--quiet",
            log.to_str().unwrap(),
        ] {
            v.push(a.into());
        }
        v
    };
    let a = args(&["--json", saved.to_str().unwrap()]);
    let text = or_skip!(watch_text(
        &a.iter().map(String::as_str).collect::<Vec<_>>()
    ));
    let r: Value = serde_json::from_slice(&std::fs::read(&saved).unwrap()).unwrap();
    let w = &r["watch"][0];
    // The result keeps every row; the table folds the pseudo-files and
    // libraries into one row and says what it folded.
    assert!(
        w["ops"]
            .as_array()
            .unwrap()
            .iter()
            .any(|o| o["path"].as_str().is_some_and(|p| p.starts_with("/proc/"))),
        "{w}"
    );
    assert!(text.contains("other files ("), "{text}");
    assert!(text.contains("--all-files shows every file"), "{text}");
    assert!(!text.contains("on /proc/"), "no /proc histogram: {text}");
    assert!(
        !text.contains("not mapped to the device: /proc"),
        "no mapping warning for a pseudo-file: {text}"
    );
    // The answer comes first and names the log file that took the time.
    let v = &r["verdict"];
    assert!(
        v["question"]
            .as_str()
            .unwrap()
            .starts_with("Is it the storage? (watch"),
        "{v}"
    );
    let top = &r["findings"][v["top"][0].as_u64().unwrap() as usize];
    assert_eq!(top["rule"], "watch.file_time", "{top}");
    let file = top["subject"].as_str().unwrap();
    assert!(file.starts_with(log.to_str().unwrap()), "{top}");
    assert!(v["answer"].as_str().unwrap().contains(file), "{v}");
    assert!(
        top["impact"]["share_pct"].as_f64().unwrap() >= 50.0,
        "{top}"
    );
    assert_eq!(top["impact"]["of"], "traced time", "{top}");
    assert!(text.find("Is it the storage?").unwrap() < text.find("other files (").unwrap());
    // `report --from` folds as the watch did; --detail shows every row.
    let again = dbio()
        .args(["report", "--from", saved.to_str().unwrap()])
        .output()
        .unwrap();
    let again = String::from_utf8_lossy(&again.stdout);
    assert!(
        again.contains("other files (") && !again.contains("on /proc/"),
        "{again}"
    );
    let detail = dbio()
        .args(["report", "--detail", "--from", saved.to_str().unwrap()])
        .output()
        .unwrap();
    let detail = String::from_utf8_lossy(&detail.stdout);
    assert!(
        detail.contains("on /proc/") && !detail.contains("other files ("),
        "{detail}"
    );
    assert!(detail.lines().count() > again.lines().count() + 20);
    // --all-files prints every row at the watch.
    let all = or_skip!(watch_text(
        &args(&["--all-files"])
            .iter()
            .map(String::as_str)
            .collect::<Vec<_>>()
    ));
    assert!(
        all.contains("on /proc/") && !all.contains("other files ("),
        "{all}"
    );
}

// See: issue 23.
#[test]
fn watch_calls_reads_of_a_cached_file_the_page_cache() {
    let d = scratch();
    let f = d.path().join("data");
    // Written and synced before the watch: its pages are in the cache
    // and nothing is left to write back.
    {
        use std::io::Write;
        let mut h = std::fs::File::create(&f).unwrap();
        h.write_all(&vec![7u8; 4 << 20]).unwrap();
        h.sync_all().unwrap();
    }
    let bin = dbio_path();
    let r = or_skip!(watch(&[
        "--json",
        "-",
        "--",
        bin.to_str().unwrap(),
        "bench",
        "--rw",
        "read",
        "--bs",
        "4k",
        "--size",
        "4M",
        "--ops",
        "20000",
        "--quiet",
        "--csv",
        "/dev/null",
        f.to_str().unwrap(),
    ]));
    let v = &r["verdict"];
    let top = &r["findings"][v["top"][0].as_u64().unwrap() as usize];
    assert_eq!(top["subject"], f.to_str().unwrap(), "{top}");
    assert_eq!(v["class"], "page_cache", "{v}");
    assert!(v["answer"].as_str().unwrap().contains("page cache"), "{v}");
}
