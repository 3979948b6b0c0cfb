//! Durability is tested, not assumed: every durability method of `bench` and
//! `lgwr` must make the device flush, and must open its files with the flags
//! it promises. The flush counts come from a PRIVATE loop device (ext4 on a
//! file in the scratch directory), so no other test's I/O can inflate them,
//! and from the kernel's own counter (/sys/block/loopN/stat), not from dbio's
//! report. The open flags are read from /proc/PID/fdinfo of the running dbio.
//!
//! A loop device passes REQ_PREFLUSH on to its backing file and advertises a
//! volatile write cache without FUA, so on it every durable write (O_DSYNC,
//! fdatasync, fsync, a linked io_uring fsync) shows as one device flush or
//! more, and a write with no durability shows none.

use crate::util::{dbio, dbio_path, json, skip, tool, unmount, wait_output_within, Loop};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// O_DIRECT, O_DSYNC and O_SYNC's extra bit on x86-64 and aarch64 (octal, as
/// fdinfo prints them).
const O_DIRECT: u32 = libc::O_DIRECT as u32;
const O_DSYNC: u32 = libc::O_DSYNC as u32;
const O_SYNC: u32 = libc::O_SYNC as u32;

/// ext4 on a loop device over a file, mounted on a fresh directory; all
/// undone on drop.
struct PrivateExt4 {
    dev: Loop,
    mnt: tempfile::TempDir,
}

impl PrivateExt4 {
    fn new() -> Result<PrivateExt4, String> {
        let dev = Loop::blank(256 << 20)?;
        let mnt = tempfile::tempdir().map_err(|e| e.to_string())?;
        tool(Command::new("mkfs.ext4").args(["-q", "-F", &dev.dev]))?;
        tool(Command::new("mount").arg(&dev.dev).arg(mnt.path()))?;
        Ok(PrivateExt4 { dev, mnt })
    }

    fn dir(&self) -> &Path {
        self.mnt.path()
    }

    /// The device's flush requests so far (field 15 of the stat file, the
    /// kernel's count of completed flushes since 4.19).
    fn flushes(&self) -> u64 {
        let name = Path::new(&self.dev.dev)
            .file_name()
            .unwrap()
            .to_string_lossy();
        let stat = std::fs::read_to_string(format!("/sys/block/{name}/stat")).unwrap();
        let fields: Vec<u64> = stat
            .split_whitespace()
            .map(|f| f.parse().unwrap())
            .collect();
        assert!(fields.len() >= 17, "no flush counter in {stat}");
        fields[15]
    }
}

impl Drop for PrivateExt4 {
    fn drop(&mut self) {
        // Unmounted before the loop device (a field) is detached.
        unmount(self.mnt.path());
    }
}

/// Runs a bench job of `ops` 8 KiB writes on the private filesystem and
/// returns (writes dbio reports, flushes the device saw).
fn bench_flushes(fs: &PrivateExt4, ops: u64, extra: &[&str]) -> (u64, u64) {
    let before = fs.flushes();
    let out = dbio()
        .args(["bench", "--rw", "write", "--bs", "8k", "--size", "4m"])
        .args(["--ops", &ops.to_string(), "--quiet", "--json", "-"])
        .args(extra)
        .arg(fs.dir().join("bench.dat"))
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{extra:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let flushes = fs.flushes() - before;
    let v = json(&out.stdout);
    (v["jobs"][0]["write"]["ops"].as_u64().unwrap(), flushes)
}

#[test]
fn every_bench_durability_method_flushes_the_device_once_per_write() {
    let fs = match PrivateExt4::new() {
        Ok(f) => f,
        Err(why) => {
            return skip(
                "every_bench_durability_method_flushes_the_device_once_per_write",
                &why,
            )
        }
    };
    const OPS: u64 = 64;
    // The file exists before the first measured run, so preparation's own
    // flushes are not counted (a re-used dbio file is not prepared again).
    bench_flushes(&fs, 1, &[]);
    for engine in ["psync", "io_uring"] {
        for sync in ["dsync", "sync", "fdatasync", "fsync"] {
            for direct in [false, true] {
                let mut args = vec!["--engine", engine, "--sync", sync];
                if direct {
                    args.push("--direct");
                }
                let (writes, flushes) = bench_flushes(&fs, OPS, &args);
                assert_eq!(writes, OPS, "{args:?}");
                assert!(
                    flushes >= OPS,
                    "{args:?}: {OPS} durable writes but only {flushes} device flushes"
                );
            }
        }
    }
    // The counter is not rising by itself: writes with no durability
    // leave it (almost) alone; the journal may commit once meanwhile.
    let (_, idle) = bench_flushes(&fs, OPS, &["--direct"]);
    assert!(idle <= 2, "{idle} flushes for {OPS} writes without sync");
}

/// Open flags (octal in fdinfo) of every descriptor `pid` holds on a file
/// under `dir`.
fn open_flags_of(pid: u32, dir: &Path) -> Vec<(PathBuf, u32)> {
    let mut found = Vec::new();
    let Ok(rd) = std::fs::read_dir(format!("/proc/{pid}/fd")) else {
        return found;
    };
    for e in rd.flatten() {
        let Ok(target) = std::fs::read_link(e.path()) else {
            continue;
        };
        if !target.starts_with(dir) || target == dir {
            continue;
        }
        let fdinfo = format!("/proc/{pid}/fdinfo/{}", e.file_name().to_string_lossy());
        let Ok(info) = std::fs::read_to_string(fdinfo) else {
            continue;
        };
        if let Some(f) = info.lines().find_map(|l| l.strip_prefix("flags:")) {
            found.push((target, u32::from_str_radix(f.trim(), 8).unwrap()));
        }
    }
    found
}

/// Whether the descriptors show what a durability method promises: every
/// file under test has a descriptor with all of `want` (the one its writes
/// go through), and no descriptor has any of `unwanted`.
fn flags_keep_promise(flags: &[(PathBuf, u32)], want: u32, unwanted: u32) -> bool {
    !flags.is_empty()
        && flags.iter().all(|(_, f)| f & unwanted == 0)
        && flags
            .iter()
            .all(|(p, _)| flags.iter().any(|(q, f)| q == p && f & want == want))
}

/// Starts dbio with `args` (a long run), watches the descriptors it holds
/// under `dir` until they keep the promise (or 20 s pass), then stops it
/// and asserts the promise was kept.
fn assert_open_flags(what: &str, args: &[&str], dir: &Path, want: u32, unwanted: u32) {
    let child = Command::new(dbio_path())
        .args(args)
        .args(["--quiet"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let pid = child.id();
    let t0 = Instant::now();
    let mut flags = open_flags_of(pid, dir);
    while !flags_keep_promise(&flags, want, unwanted) && t0.elapsed() < Duration::from_secs(20) {
        std::thread::sleep(Duration::from_millis(10));
        flags = open_flags_of(pid, dir);
    }
    // SAFETY: kill with a valid pid and signal.
    unsafe { libc::kill(pid as i32, libc::SIGINT) };
    let out = wait_output_within(child, Duration::from_secs(30));
    assert!(
        matches!(out.status.code(), Some(0 | 1)),
        "{what}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let shown: Vec<String> = flags
        .iter()
        .map(|(p, f)| format!("{} {f:o}", p.display()))
        .collect();
    assert!(
        flags_keep_promise(&flags, want, unwanted),
        "{what}: want flags {want:o} on every file and none of {unwanted:o}; saw {shown:?}"
    );
}

#[test]
fn bench_opens_its_target_with_the_promised_flags() {
    let d = crate::util::scratch();
    let dir = d.path().to_str().unwrap();
    let cases: [(&[&str], u32, u32); 5] = [
        (
            &["--direct", "--sync", "dsync"],
            O_DIRECT | O_DSYNC,
            O_SYNC & !O_DSYNC,
        ),
        (&["--direct", "--sync", "sync"], O_DIRECT | O_SYNC, 0),
        (&["--sync", "dsync"], O_DSYNC, O_DIRECT),
        (&["--sync", "fdatasync"], 0, O_DIRECT | O_DSYNC),
        (&["--direct"], O_DIRECT, O_DSYNC),
    ];
    for (extra, want, unwanted) in cases {
        let mut args = vec![
            "bench",
            "--rw",
            "write",
            "--bs",
            "8k",
            "--size",
            "4m",
            "--runtime",
            "20",
        ];
        args.extend_from_slice(extra);
        args.push(dir);
        assert_open_flags(&format!("bench {extra:?}"), &args, d.path(), want, unwanted);
    }
}

#[test]
fn lgwr_opens_its_log_files_with_each_methods_flags() {
    let d = crate::util::scratch();
    let dir = d.path().to_str().unwrap();
    let cases = [
        ("direct-dsync", O_DIRECT | O_DSYNC, 0),
        ("direct-fdatasync", O_DIRECT, O_DSYNC),
        ("buffered-fdatasync", 0, O_DIRECT | O_DSYNC),
        ("buffered-dsync", O_DSYNC, O_DIRECT),
        ("buffered-fsync", 0, O_DIRECT | O_DSYNC),
        ("uring-fdatasync", O_DIRECT, O_DSYNC),
    ];
    for (method, want, unwanted) in cases {
        let args = [
            "lgwr",
            "--method",
            method,
            "--sessions",
            "2",
            "--file-size",
            "4m",
            "--runtime",
            "20",
            dir,
        ];
        assert_open_flags(&format!("lgwr {method}"), &args, d.path(), want, unwanted);
    }
}

#[test]
fn every_lgwr_method_flushes_the_device_for_every_log_write() {
    let fs = match PrivateExt4::new() {
        Ok(f) => f,
        Err(why) => {
            return skip(
                "every_lgwr_method_flushes_the_device_for_every_log_write",
                &why,
            )
        }
    };
    for method in [
        "direct-dsync",
        "direct-fdatasync",
        "buffered-fdatasync",
        "buffered-dsync",
        "buffered-fsync",
        "uring-fdatasync",
    ] {
        let dir = fs.dir().join(method);
        std::fs::create_dir(&dir).unwrap();
        let before = fs.flushes();
        let out = dbio()
            .args(["lgwr", "--method", method, "--sessions", "4"])
            .args(["--commits", "50", "--files", "2", "--file-size", "2m"])
            .args(["--prepare", "sparse", "--quiet", "--json", "-"])
            .arg(&dir)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{method}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let flushes = fs.flushes() - before;
        let v = json(&out.stdout);
        let r = &v["lgwr"][0];
        assert_eq!(r["commits"].as_u64().unwrap(), 200, "{method}");
        let writes = r["writer"]["writes"].as_u64().unwrap();
        assert!(writes > 0, "{method}");
        assert!(
            flushes >= writes,
            "{method}: {writes} log writes but only {flushes} device flushes"
        );
    }
}
