//! `dbio watch` and asynchronous I/O, against real programs on the real
//! kernel: io_uring requests and Linux AIO control blocks counted per
//! file and opcode, exactly, with their bytes, under the process that
//! submitted them whichever kernel thread ran them: dbio bench's own
//! io_uring (registered files and buffers, durable writes pushed with a
//! linked fsync) and libaio engines, and fio's io_uring engine with
//! registered files and buffers, with and without a SQPOLL thread. Tests
//! that load BPF programs need root and print a skip reason without it;
//! fio is installed by scripts/test, and its absence fails under CI.

use crate::util::{dbio, dbio_path, is_root, scratch, skip_this_test};
use serde_json::Value;
use std::os::unix::fs::MetadataExt;
use std::path::Path;

/// Runs `dbio watch --json FILE ARGS` to completion: the watch's result
/// and its table (standard output), or why the test must be skipped.
fn watch(dir: &Path, args: &[&str]) -> Result<(Value, String), String> {
    if !is_root() {
        return Err("dbio watch needs root to load BPF programs".into());
    }
    let result = dir.join("watch.json");
    let out = dbio()
        .args(["watch", "--json", result.to_str().unwrap()])
        .args(args)
        .output()
        .expect("dbio watch");
    let err = String::from_utf8_lossy(&out.stderr);
    if err.contains("the kernel refused") || err.contains("no syscall tracepoint") {
        return Err(format!("BPF on tracepoints is unavailable here: {err}"));
    }
    assert!(out.status.success(), "dbio watch failed: {err}");
    let v: Value = serde_json::from_slice(&std::fs::read(&result).unwrap()).unwrap();
    if v["watch"][0]["unavailable"]
        .as_array()
        .unwrap()
        .iter()
        .any(|u| u.as_str().unwrap().starts_with("io_uring"))
    {
        return Err(format!(
            "this kernel's io_uring tracepoints or BTF are missing: {}",
            v["watch"][0]["unavailable"]
        ));
    }
    Ok((v, String::from_utf8_lossy(&out.stdout).into_owned()))
}

/// The rows of `op` on the file `path`.
fn rows<'a>(w: &'a Value, path: &str, op: &str) -> Vec<&'a Value> {
    w["ops"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|o| o["path"] == path && o["op"] == op)
        .collect()
}

/// A figure summed over rows.
fn sum(rows: &[&Value], field: &str) -> u64 {
    rows.iter().map(|r| r[field].as_u64().unwrap_or(0)).sum()
}

/// Every row's histogram holds its count: each request was timed once.
fn histograms_hold_their_counts(rows: &[&Value]) {
    for r in rows {
        let n: u64 = r["latency"]["counts"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c.as_u64().unwrap())
            .sum();
        assert_eq!(n, r["count"].as_u64().unwrap(), "{r}");
    }
}

/// `dbio bench ARGS FILE` under the watch.
fn bench(dir: &Path, file: &Path, args: &[&str]) -> Result<(Value, String), String> {
    let bin = dbio_path();
    let mut all = vec!["--", bin.to_str().unwrap(), "bench", "--quiet"];
    all.extend_from_slice(args);
    all.extend(["--json", "/dev/null", file.to_str().unwrap()]);
    watch(dir, &all)
}

/// The device (`MAJOR:MINOR`) and inode of `file`, as the rows name them.
fn identity(file: &Path) -> (String, u64) {
    let m = std::fs::metadata(file).unwrap();
    (
        format!("{}:{}", libc::major(m.dev()), libc::minor(m.dev())),
        m.ino(),
    )
}

// See: issue 26.
#[test]
fn watch_counts_io_uring_writes_and_their_linked_fsyncs_on_the_file() {
    let d = scratch();
    let f = d.path().join("data");
    let (v, table) = or_skip!(bench(
        d.path(),
        &f,
        &[
            "--engine",
            "io_uring",
            "--iodepth",
            "4",
            "--ops",
            "1000",
            "--rw",
            "randwrite",
            "--bs",
            "4k",
            "--size",
            "8M",
            "--sync",
            "fdatasync",
            "--prepare",
            "sparse",
        ],
    ));
    let w = &v["watch"][0];
    let path = f.to_str().unwrap();
    // bench registers its file and buffers: WRITE_FIXED; a kernel that
    // refuses the buffers' registration gets plain WRITEs.
    let mut writes = rows(w, path, "uring_write_fixed");
    writes.extend(rows(w, path, "uring_write"));
    let syncs = rows(w, path, "uring_fsync_linked");
    assert_eq!(sum(&writes, "count"), 1000, "{w}");
    assert_eq!(sum(&writes, "bytes"), 1000 * 4096, "{w}");
    assert_eq!(sum(&writes, "errors"), 0, "{w}");
    // Each durable write is followed by an fsync linked to it: counted as
    // linked, none as a plain FSYNC.
    assert_eq!(sum(&syncs, "count"), 1000, "{w}");
    assert!(rows(w, path, "uring_fsync").is_empty(), "{w}");
    histograms_hold_their_counts(&writes);
    histograms_hold_their_counts(&syncs);
    // The rows are the file's (its device and inode), with no descriptor,
    // and the bench's process's, whichever kernel thread ran them.
    let (dev, ino) = identity(&f);
    let pid = w["processes"][0]["pid"].clone();
    for r in writes.iter().chain(&syncs) {
        assert_eq!(r["fd"], -1, "{r}");
        assert_eq!(r["device"], dev.as_str(), "{r}");
        assert_eq!(r["inode"], ino, "{r}");
        assert_eq!(r["pid"], pid, "{r}");
    }
    assert_eq!(w["losses"]["async_unmatched"], Value::Null, "{w}");
    // The ring's own system calls are their own row.
    assert!(
        w["ops"]
            .as_array()
            .unwrap()
            .iter()
            .any(|o| o["op"] == "io_uring_enter" && o["path"] == "anon_inode:[io_uring]"),
        "{w}"
    );
    // The table names the submission path and the opcode on the file.
    let line = table
        .lines()
        .find(|l| l.contains(path) && l.contains("io_uring FSYNC (linked)"))
        .unwrap_or_else(|| panic!("{table}"));
    assert!(line.contains(" 1000 "), "{line}");
}

// The submission's and the completion's programs run on the raw
// tracepoints (tp_btf), which skip building the tracepoint's record; the
// record-reading programs (`*_tp`) only where those do not load, which
// `unavailable` then says.
// See: issue 26.
#[test]
fn watch_times_io_uring_requests_on_the_raw_tracepoints_where_they_load() {
    let d = scratch();
    let f = d.path().join("data");
    let bin = dbio_path();
    let (v, _) = or_skip!(watch(
        d.path(),
        &[
            "--bpf-stats",
            "--",
            bin.to_str().unwrap(),
            "bench",
            "--quiet",
            "--engine",
            "io_uring",
            "--ops",
            "600",
            "--rw",
            "randread",
            "--bs",
            "4k",
            "--size",
            "4M",
            "--json",
            "/dev/null",
            f.to_str().unwrap(),
        ],
    ));
    let w = &v["watch"][0];
    let runs = |name: &str| {
        w["bpf_programs"]
            .as_array()
            .unwrap()
            .iter()
            .find(|p| p["name"] == name)
            .map_or(0, |p| p["runs"].as_u64().unwrap())
    };
    let fallback = w["unavailable"]
        .as_array()
        .unwrap()
        .iter()
        .any(|u| u.as_str().unwrap().starts_with("raw io_uring:"));
    let (used, unused) = if fallback {
        (
            ["uring_submit_tp", "uring_done_tp"],
            ["uring_submit", "uring_done"],
        )
    } else {
        (
            ["uring_submit", "uring_done"],
            ["uring_submit_tp", "uring_done_tp"],
        )
    };
    for name in used {
        assert!(runs(name) >= 600, "{name}: {w}");
    }
    for name in unused {
        assert_eq!(runs(name), 0, "{name}: {w}");
    }
}

// See: issue 26.
#[test]
fn watch_counts_io_uring_reads_on_the_file() {
    let d = scratch();
    let f = d.path().join("data");
    let (v, _) = or_skip!(bench(
        d.path(),
        &f,
        &[
            "--engine",
            "io_uring",
            "--iodepth",
            "8",
            "--ops",
            "600",
            "--rw",
            "randread",
            "--bs",
            "8k",
            "--size",
            "8M",
        ],
    ));
    let w = &v["watch"][0];
    let path = f.to_str().unwrap();
    let mut reads = rows(w, path, "uring_read_fixed");
    reads.extend(rows(w, path, "uring_read"));
    assert_eq!(sum(&reads, "count"), 600, "{w}");
    assert_eq!(sum(&reads, "bytes"), 600 * 8192, "{w}");
    assert_eq!(sum(&reads, "errors"), 0, "{w}");
    histograms_hold_their_counts(&reads);
    let (dev, ino) = identity(&f);
    assert!(
        reads
            .iter()
            .all(|r| r["device"] == dev.as_str() && r["inode"] == ino),
        "{w}"
    );
}

// See: issue 26.
#[test]
fn watch_times_each_libaio_control_block_from_submission_to_reaping() {
    let d = scratch();
    let f = d.path().join("data");
    let (v, table) = or_skip!(bench(
        d.path(),
        &f,
        &[
            "--engine",
            "libaio",
            "--direct",
            "--iodepth",
            "4",
            "--ops",
            "800",
            "--rw",
            "randwrite",
            "--bs",
            "4k",
            "--size",
            "8M",
            "--sync",
            "fdatasync",
            "--prepare",
            "sparse",
        ],
    ));
    let w = &v["watch"][0];
    let path = f.to_str().unwrap();
    let writes = rows(w, path, "aio_pwrite");
    let mut syncs = rows(w, path, "aio_fdsync");
    syncs.extend(rows(w, path, "aio_fsync"));
    assert_eq!(sum(&writes, "count"), 800, "{w}");
    assert_eq!(sum(&writes, "bytes"), 800 * 4096, "{w}");
    assert_eq!(sum(&writes, "errors"), 0, "{w}");
    assert_eq!(sum(&syncs, "count"), 800, "{w}");
    histograms_hold_their_counts(&writes);
    // Per descriptor, as the system calls: the file's, opened O_DIRECT,
    // and every 4 KiB write at a 4 KiB offset.
    for r in writes.iter().chain(&syncs) {
        assert!(r["fd"].as_i64().unwrap() >= 0, "{r}");
        assert!(
            r["open_flags"].as_str().unwrap().contains("O_DIRECT"),
            "{r}"
        );
    }
    assert_eq!(sum(&writes, "unaligned_4k"), 0, "{w}");
    // io_submit's time is submission only; each control block's row is
    // timed to the io_getevents that reaped it, so it is slower.
    let submit = w["ops"]
        .as_array()
        .unwrap()
        .iter()
        .find(|o| o["op"] == "io_submit")
        .unwrap_or_else(|| panic!("{w}"));
    assert!(submit["count"].as_u64().unwrap() > 0, "{w}");
    assert!(
        table.contains("aio PWRITE") && table.contains("aio FDSYNC"),
        "{table}"
    );
    assert_eq!(w["losses"]["aio_unread"], Value::Null, "{w}");
}

/// Whether fio is here; in CI (scripts/test installs it) its absence is
/// a failure, elsewhere a skip.
fn have_fio() -> bool {
    let ok = std::process::Command::new("fio")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !ok {
        assert!(
            std::env::var_os("CI").is_none(),
            "fio is missing, and scripts/test installs it in CI"
        );
        skip_this_test("fio is not installed (scripts/test installs it)");
    }
    ok
}

/// fio's io_uring engine writing `ios` 4 KiB blocks to one file with
/// registered files and buffers, `extra` added; the watch (fio runs its
/// job in a child process: --follow) and the file.
fn fio_uring(dir: &Path, ios: u32, extra: &[&str]) -> Result<(Value, String), String> {
    let f = dir.join("fio-data");
    let mut args = vec![
        "--follow".to_string(),
        "--".to_string(),
        "fio".to_string(),
        "--name=dbio-watch".to_string(),
        format!("--filename={}", f.display()),
        "--size=8M".to_string(),
        "--bs=4k".to_string(),
        "--rw=randwrite".to_string(),
        "--ioengine=io_uring".to_string(),
        "--registerfiles=1".to_string(),
        "--fixedbufs=1".to_string(),
        "--direct=1".to_string(),
        "--iodepth=8".to_string(),
        format!("--number_ios={ios}"),
        "--output=/dev/null".to_string(),
    ];
    args.extend(extra.iter().map(|s| s.to_string()));
    let refs: Vec<&str> = args.iter().map(String::as_str).collect();
    let (v, _) = watch(dir, &refs)?;
    Ok((v, f.to_str().unwrap().to_string()))
}

// See: issue 26.
#[test]
fn watch_names_fios_registered_file_and_counts_its_fixed_writes() {
    if !have_fio() {
        return;
    }
    let d = scratch();
    let (v, path) = or_skip!(fio_uring(d.path(), 500, &[]));
    let w = &v["watch"][0];
    let writes = rows(w, &path, "uring_write_fixed");
    assert_eq!(writes.len(), 1, "one job, one file: {w}");
    assert_eq!(writes[0]["count"], 500, "{w}");
    assert_eq!(writes[0]["bytes"], 500 * 4096, "{w}");
    assert_eq!(writes[0]["errors"], 0, "{w}");
    // Submitted by fio's job process itself (not by a SQPOLL thread).
    assert_eq!(writes[0]["sq_thread"], Value::Null, "{w}");
    let (dev, ino) = identity(Path::new(&path));
    assert_eq!(writes[0]["device"], dev.as_str(), "{w}");
    assert_eq!(writes[0]["inode"], ino, "{w}");
    // The job is a process fio forked, followed.
    let job = writes[0]["pid"].as_u64().unwrap();
    assert!(
        w["processes"]
            .as_array()
            .unwrap()
            .iter()
            .any(|p| p["pid"] == job),
        "{w}"
    );
}

// See: issue 26.
#[test]
fn watch_attributes_sqpoll_submissions_to_the_rings_process() {
    if !have_fio() {
        return;
    }
    let d = scratch();
    let (v, path) = or_skip!(fio_uring(d.path(), 400, &["--sqthread_poll=1"]));
    let w = &v["watch"][0];
    let writes = rows(w, &path, "uring_write_fixed");
    assert_eq!(writes.len(), 1, "{w}");
    // Every request was submitted by the ring's SQPOLL kernel thread,
    // and counted under fio's job process, which owns the ring.
    assert_eq!(writes[0]["count"], 400, "{w}");
    assert_eq!(writes[0]["sq_thread"], 400, "{w}");
    assert_eq!(writes[0]["bytes"], 400 * 4096, "{w}");
    let job = writes[0]["pid"].as_u64().unwrap();
    let comm = w["processes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["pid"] == job)
        .unwrap_or_else(|| panic!("{w}"))["comm"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(comm.starts_with("fio"), "{comm}: {w}");
}
