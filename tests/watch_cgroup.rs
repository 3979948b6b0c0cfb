//! `dbio watch --cgroup`: every process in a real cgroup v2 (and the
//! cgroups below it) watched by the kernel's own cgroup membership, and
//! the paths that are refused. The cgroups are created under the host's
//! cgroup2 mount for the test and removed afterwards.

use crate::util::{dbio, dbio_path, is_root, json, scratch, wait_output_within, CHILD_DEADLINE};
use serde_json::Value;
use std::path::{Path, PathBuf};

/// Where the cgroup2 hierarchy's root is mounted (not a namespace's
/// view of a subtree).
fn cgroup2_root() -> Option<PathBuf> {
    std::fs::read_to_string("/proc/self/mountinfo")
        .ok()?
        .lines()
        .find_map(|l| {
            let (left, right) = l.split_once(" - ")?;
            let f: Vec<&str> = left.split_whitespace().collect();
            (right.split_whitespace().next()? == "cgroup2" && f.get(3) == Some(&"/"))
                .then(|| PathBuf::from(f[4]))
        })
}

/// A cgroup made for a test, removed with its one child when dropped (once
/// its processes have exited).
struct TestCgroup(PathBuf);

impl TestCgroup {
    fn new() -> Result<TestCgroup, String> {
        if !is_root() {
            return Err("creating a cgroup needs root".into());
        }
        let root = cgroup2_root().ok_or("cgroup2 is not mounted here")?;
        let n = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_nanos();
        let dir = root.join(format!("dbio-test-{}-{n}", std::process::id()));
        std::fs::create_dir(&dir)
            .map_err(|e| format!("cannot create a cgroup under {}: {e}", root.display()))?;
        Ok(TestCgroup(dir))
    }
}

impl Drop for TestCgroup {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir(self.0.join("inner"));
        let _ = std::fs::remove_dir(&self.0);
    }
}

/// `dbio bench` writing `ops` 4 KiB blocks to `file` with an fdatasync
/// after each, moved into the cgroup `into` (if any) before it execs.
fn bench_in(into: Option<&Path>, ops: u32, file: &Path) -> std::process::Child {
    use std::os::unix::process::CommandExt;
    let mut cmd = std::process::Command::new(dbio_path());
    cmd.args([
        "bench",
        "--ops",
        &ops.to_string(),
        "--rw",
        "write",
        "--bs",
        "4k",
    ])
    .args(["--size", "8M", "--sync", "fdatasync", "--engine", "psync"])
    .args(["--prepare", "sparse", "--quiet", "--json", "/dev/null"])
    .arg(file)
    .stdout(std::process::Stdio::null());
    if let Some(dir) = into {
        let procs = std::ffi::CString::new(
            dir.join("cgroup.procs")
                .into_os_string()
                .into_encoded_bytes(),
        )
        .unwrap();
        // SAFETY: open(2), write(2) and close(2) are async-signal-safe;
        // nothing is allocated between fork and exec.
        unsafe {
            cmd.pre_exec(move || {
                // "0" moves the writing process itself.
                let fd = libc::open(procs.as_ptr(), libc::O_WRONLY);
                if fd < 0 || libc::write(fd, c"0".as_ptr().cast(), 1) != 1 {
                    return Err(std::io::Error::last_os_error());
                }
                libc::close(fd);
                Ok(())
            });
        }
    }
    cmd.spawn().expect("dbio bench")
}

/// The (count, bytes) of the pwrite64 calls on `file`.
fn writes_on(w: &Value, file: &Path) -> (u64, u64) {
    w["ops"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|o| o["op"] == "pwrite64" && o["path"] == file.to_str().unwrap())
        .fold((0, 0), |(c, b), o| {
            (
                c + o["count"].as_u64().unwrap(),
                b + o["bytes"].as_u64().unwrap(),
            )
        })
}

// See: issue 12.
#[test]
fn watch_counts_every_call_of_the_processes_in_a_cgroup_and_ends_when_it_is_removed() {
    use std::io::{BufRead, BufReader};
    let cg = or_skip!(TestCgroup::new());
    std::fs::create_dir(cg.0.join("inner")).expect("a child cgroup");
    let d = scratch();
    let (a, b, c) = (d.path().join("a"), d.path().join("b"), d.path().join("c"));
    let mut watch = std::process::Command::new(dbio_path())
        .args(["watch", "--no-block", "--json", "-", "--cgroup"])
        .arg(&cg.0)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("dbio watch");
    let mut err = BufReader::new(watch.stderr.take().unwrap());
    let mut line = String::new();
    err.read_line(&mut line).unwrap();
    if !line.contains("watching cgroup") {
        let _ = watch.kill();
        let _ = wait_output_within(watch, CHILD_DEADLINE);
        return crate::util::skip_this_test(&format!("dbio watch could not start: {line}"));
    }
    // One bench in the cgroup, one in the cgroup below it, one outside,
    // all at once.
    let mut kids = [
        bench_in(Some(&cg.0), 300, &a),
        bench_in(Some(&cg.0.join("inner")), 200, &b),
        bench_in(None, 100, &c),
    ];
    let outside = kids[2].id();
    for k in &mut kids {
        assert!(k.wait().unwrap().success());
    }
    // Removing the (now empty) cgroup ends the watch.
    std::fs::remove_dir(cg.0.join("inner")).unwrap();
    std::fs::remove_dir(&cg.0).unwrap();
    let out = wait_output_within(watch, CHILD_DEADLINE);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v = json(&out.stdout);
    let w = &v["watch"][0];
    assert_eq!(w["ended"]["kind"], "exited", "{w}");
    assert_eq!(w["config"]["cgroup"], cg.0.to_str().unwrap(), "{w}");
    assert_eq!(writes_on(w, &a), (300, 300 * 4096), "{w}");
    assert_eq!(writes_on(w, &b), (200, 200 * 4096), "{w}");
    // Nothing of the process outside the cgroup.
    assert_eq!(writes_on(w, &c), (0, 0), "{w}");
    assert!(
        w["ops"]
            .as_array()
            .unwrap()
            .iter()
            .all(|o| o["pid"] != outside),
        "{w}"
    );
    let pids: Vec<u64> = w["processes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["pid"].as_u64().unwrap())
        .collect();
    assert!(!pids.contains(&u64::from(outside)), "{w}");
    // The two moves: each process's write(2) to cgroup.procs entered
    // outside the cgroup and returned inside it, an exit without an entry.
    assert_eq!(w["losses"]["unmatched"], 2, "{w}");
}

/// `dbio watch ARGS`' exit status and standard error.
fn refused(args: &[&str]) -> (Option<i32>, String) {
    let out = dbio().arg("watch").args(args).output().unwrap();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stderr).trim().to_string(),
    )
}

// See: issue 12.
#[test]
fn watch_refuses_a_cgroup_path_that_is_not_one_in_one_sentence() {
    let d = scratch();
    let dir = d.path().to_str().unwrap();
    for (args, says) in [
        (vec!["--cgroup", dir], "is not a cgroup v2 directory"),
        (
            vec!["--cgroup", "/nonexistent/dbio-cgroup"],
            "cannot open it as a directory",
        ),
        (
            vec!["--cgroup", "/proc/self/status"],
            "cannot open it as a directory",
        ),
        (vec!["--cgroup", dir, "--pid", "1"], "cannot be used with"),
        (vec!["--cgroup", dir, "--comm", "x*"], "cannot be used with"),
        (vec!["--cgroup", dir, "--", "true"], "cannot be used with"),
        (
            vec!["--cgroup", dir, "--device", "/dev/null"],
            "cannot be used with",
        ),
        (vec!["--cgroup", dir, "--tid", "1"], "--pid"),
        (
            vec!["--cgroup", dir, "--follow"],
            "with --cgroup the processes they fork are watched already",
        ),
    ] {
        let (code, err) = refused(&args);
        assert_eq!(code, Some(2), "{args:?}: {err}");
        assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
        assert!(err.contains(says), "{args:?}: {err}");
    }
}
