//! No panics, no hangs, no runaway memory: threads that cannot be started
//! (a real cgroup pids limit), sizes, counts and depths out of bounds,
//! durations that overflow, and `lgwr --verify` memory that must not grow
//! with the run's length.

use crate::util::{dbio, dbio_files, dbio_path, is_root, scratch, wait_output_within, Tmpfs};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// A pids cgroup (v2, or v1's pids hierarchy) limiting the processes and
/// threads of a child started with [`PidsLimit::command`]; removed on drop.
struct PidsLimit {
    dir: PathBuf,
}

impl PidsLimit {
    /// A group allowing `max` tasks, or why none can be made (a skip reason).
    fn new(max: u32) -> Result<PidsLimit, String> {
        if !is_root() {
            return Err("a cgroup needs root".into());
        }
        let v2 = Path::new("/sys/fs/cgroup");
        let controllers =
            std::fs::read_to_string(v2.join("cgroup.controllers")).unwrap_or_default();
        let parent = if controllers.split_whitespace().any(|c| c == "pids") {
            // Children of the root get the pids controller when the root
            // enables it for its subtree.
            let _ = std::fs::write(v2.join("cgroup.subtree_control"), "+pids");
            v2.to_path_buf()
        } else if Path::new("/sys/fs/cgroup/pids/pids.max").exists()
            || Path::new("/sys/fs/cgroup/pids/cgroup.procs").exists()
        {
            PathBuf::from("/sys/fs/cgroup/pids")
        } else {
            return Err("no pids cgroup controller (v2 or v1) is mounted".into());
        };
        let dir = parent.join(format!("dbio-test-{}-{max}", std::process::id()));
        std::fs::create_dir(&dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
        let g = PidsLimit { dir };
        std::fs::write(g.dir.join("pids.max"), max.to_string())
            .map_err(|e| format!("cannot set pids.max in {}: {e}", g.dir.display()))?;
        Ok(g)
    }

    /// `dbio ARGS` started inside the group (it moves itself in between
    /// fork and exec, so the limit holds from its first instruction).
    fn command(&self, args: &[&str]) -> Command {
        let procs = std::ffi::CString::new(
            self.dir
                .join("cgroup.procs")
                .into_os_string()
                .into_encoded_bytes(),
        )
        .unwrap();
        let mut c = Command::new(dbio_path());
        c.args(args)
            .env_remove("RUST_BACKTRACE")
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        // SAFETY: only async-signal-safe calls (open, write, close) on a
        // path prepared before the fork; "0" means the writing process.
        unsafe {
            c.pre_exec(move || {
                let fd = libc::open(procs.as_ptr(), libc::O_WRONLY);
                if fd < 0 {
                    return Err(std::io::Error::last_os_error());
                }
                let n = libc::write(fd, b"0".as_ptr().cast(), 1);
                libc::close(fd);
                if n != 1 {
                    return Err(std::io::Error::last_os_error());
                }
                Ok(())
            });
        }
        c
    }
}

impl Drop for PidsLimit {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir(&self.dir);
    }
}

/// `dbio bench --threads 64`, `lgwr --sessions 64` and `dbwr
/// --foregrounds 64` in a group that allows 8 tasks: each must stop at the
/// thread that cannot start, with status 2, one sentence and no panic,
/// promptly, and leave no file behind.
#[test]
fn safety_limits_thread_spawn_failure_is_an_error() {
    let g = or_skip!(PidsLimit::new(8));
    let d = scratch();
    let dir = d.path().to_str().unwrap();
    let cases: &[&[&str]] = &[
        &[
            "bench",
            "--threads",
            "64",
            "--size",
            "8m",
            "--runtime",
            "5",
            "--quiet",
            dir,
        ],
        &[
            "lgwr",
            "--sessions",
            "64",
            "--commits",
            "1000",
            "--file-size",
            "4m",
            "--quiet",
            dir,
        ],
        &[
            "dbwr",
            "--foregrounds",
            "64",
            "--size",
            "64m",
            "--buffers",
            "1024",
            "--runtime",
            "5",
            "--quiet",
            dir,
        ],
        &[
            "read",
            "--threads",
            "64",
            "--size",
            "16m",
            "--runtime",
            "5",
            "--quiet",
            dir,
        ],
    ];
    for args in cases {
        let t0 = Instant::now();
        let child = g.command(args).spawn().expect("starting dbio");
        let out = wait_output_within(child, Duration::from_secs(60));
        let took = t0.elapsed();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(!err.contains("panicked"), "{args:?}: {err}");
        assert_eq!(
            err.trim_end().lines().count(),
            1,
            "{args:?}: one sentence: {err}"
        );
        assert!(
            err.starts_with("dbio: error: could not start thread ")
                && err.contains(" of 65: Resource temporarily unavailable (os error 11)"),
            "{args:?}: {err}"
        );
        assert_eq!(err.matches("os error").count(), 1, "{args:?}: {err}");
        assert!(took < Duration::from_secs(30), "{args:?} took {took:?}");
        let left: Vec<_> = std::fs::read_dir(d.path()).unwrap().flatten().collect();
        assert!(left.is_empty(), "{args:?} left {left:?}");
    }
}

/// Runs `dbio ARGS` in `dir`'s scratch target and checks the refusal.
fn refused(dir: &Path, args: &[&str], msg: &str) {
    let out = dbio().current_dir(dir).args(args).output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
    let first = err.lines().next().unwrap_or_default();
    assert!(
        first.starts_with("dbio: error: ") || first.starts_with("error: "),
        "{args:?}: {err}"
    );
    assert!(
        first.contains(msg),
        "{args:?}: the first line must say '{msg}': {err}"
    );
    assert!(!err.contains("panicked"), "{args:?}: {err}");
    assert!(
        std::fs::read_dir(dir).unwrap().next().is_none(),
        "{args:?}: a refused run created a file"
    );
}

#[test]
fn safety_limits_counts_sizes_and_depths_are_bounded() {
    let d = scratch();
    let p = d.path();
    let empty = p
        .join("..")
        .join(format!("dbio-empty-{}.trc", std::process::id()));
    std::fs::write(&empty, "").unwrap();
    let trc = empty.to_str().unwrap();
    let cases: &[(&[&str], &str)] = &[
        (
            &["bench", "--threads", "1025", "."],
            "--threads must be between 1 and 1024",
        ),
        (
            &["bench", "--iodepth", "0", "."],
            "--iodepth must be between 1 and 1024",
        ),
        (
            &[
                "bench",
                "--engine",
                "io_uring",
                "--threads",
                "1024",
                "--iodepth",
                "1024",
                "--bs",
                "8m",
                ".",
            ],
            "of memory, but only",
        ),
        (
            &["read", "--iodepth", "0", "."],
            "--iodepth must be between 1 and 1024",
        ),
        (
            &["read", "--iodepth", "2000", "--engine", "io_uring", "."],
            "--iodepth must be between 1 and 1024",
        ),
        (
            &["read", "--threads", "2000", "."],
            "--threads must be between 1 and 1024",
        ),
        (
            // 1024 threads × 1024 reads in flight × 1 MiB multiblock reads.
            &[
                "read",
                "--engine",
                "io_uring",
                "--threads",
                "1024",
                "--iodepth",
                "1024",
                "--multiblock-count",
                "128",
                ".",
            ],
            "of memory, but only",
        ),
        (
            &["read", "--rounds", "1001", "."],
            "--rounds must be between 1 and 1000",
        ),
        (
            &["lgwr", "--sessions", "5000", "."],
            "--sessions 5000 is more than 4096",
        ),
        (
            &["lgwr", "--log-buffer", "100g", "--commits", "10", "."],
            "--log-buffer 100 GiB is more than",
        ),
        (
            &["lgwr", "--rounds", "1001", "--commits", "10", "."],
            "--rounds must be between 1 and 1000",
        ),
        (
            &["dbwr", "--foregrounds", "5000", "."],
            "--foregrounds 5000 is more than 4096",
        ),
        (
            &["dbwr", "--buffers", "4000000000", "--size", "64m", "."],
            "of memory, but only",
        ),
        (
            &["calibrate", "--samples", "2000000", "."],
            "--samples must be between 1 and 1000000",
        ),
        (
            &["tracefile", "--top", "0", trc],
            "--top must be between 1 and 100000",
        ),
        (
            &["tracefile", "--threads", "5000", trc],
            "--threads must be between 0",
        ),
    ];
    for (args, msg) in cases {
        refused(p, args, msg);
    }
    let _ = std::fs::remove_file(&empty);
}

#[test]
fn safety_limits_overflowing_durations_are_refused() {
    let d = scratch();
    let p = d.path();
    let cases: &[(&[&str], &str)] = &[
        (
            &["bench", "--runtime", "99999999999999999999", "."],
            "'--runtime <RUNTIME>': '99999999999999999999' is longer than 30 days",
        ),
        (
            &["bench", "--warmup", "1e20", "."],
            "'--warmup <WARMUP>': '1e20' is longer than 30 days",
        ),
        (
            &["bench", "--engine", "null", "--null-delay", "1e20s"],
            "'--null-delay <TIME>': '1e20s' is longer than 100 s",
        ),
        (
            &["bench", "--runtime", "inf", "."],
            "'--runtime <RUNTIME>': 'inf' is not a duration",
        ),
        (
            &["bench", "--runtime=-5ms", "."],
            "'--runtime <RUNTIME>': '-5ms' is negative",
        ),
        (
            &["bench", "--runtime", "721h", "."],
            "is longer than 30 days",
        ),
        (
            &["lgwr", "--runtime", "1e20", "."],
            "'--runtime <RUNTIME>': '1e20' is longer than 30 days",
        ),
        (
            &["lgwr", "--null-delay", "1e20ms", "--commits", "1"],
            "'--null-delay <TIME>': '1e20ms' is longer than 100 s",
        ),
        (
            &["lgwr", "--think-time", "101s", "--commits", "1", "."],
            "'--think-time <THINK_TIME>': '101s' is longer than 100 s",
        ),
        (
            &[
                "lgwr",
                "--compare",
                "null-delay=1e20s",
                "--commits",
                "1",
                ".",
            ],
            "--compare item 'null-delay=1e20s': '1e20s' is longer than 100 s",
        ),
        (
            &["dbwr", "--runtime", "1e20", "."],
            "'--runtime <RUNTIME>': '1e20' is longer than 30 days",
        ),
        (
            &["dbwr", "--engine", "null", "--null-delay", "1e20us"],
            "'--null-delay <TIME>': '1e20us' is longer than 100 s",
        ),
        (
            &["check", "--runtime", "1e20", "."],
            "'--runtime <RUNTIME>': '1e20' is longer than 30 days",
        ),
        (
            &["read", "--runtime", "1e20", "."],
            "'--runtime <RUNTIME>': '1e20' is longer than 30 days",
        ),
    ];
    for (args, msg) in cases {
        refused(p, args, msg);
    }
}

/// A latency, delay or threshold written without a unit is refused in one
/// sentence by every command that takes one: `--page-cache-max 100` was
/// 100 s in `read` and 100 µs in `tracefile`. Spans of a run keep bare
/// seconds (`--runtime 1`), and a bare 0 is 0 in any unit.
#[test]
fn safety_limits_bare_numbers_are_refused_where_the_unit_is_ambiguous() {
    let d = scratch();
    let p = d.path();
    let trc = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/crates/oracle/tests/data/ninei-9201.trc"
    );
    let cases: &[(&[&str], &str)] = &[
        (
            &[
                "bench",
                "--engine",
                "null",
                "--null-delay",
                "200",
                "--ops",
                "1",
            ],
            "'--null-delay <TIME>': '200' needs a unit",
        ),
        (
            &[
                "dbwr",
                "--engine",
                "null",
                "--null-delay",
                "100",
                "--ops",
                "1",
            ],
            "'--null-delay <TIME>': '100' needs a unit",
        ),
        (
            &["lgwr", "--null", "--think-time", "5", "--commits", "1"],
            "'--think-time <THINK_TIME>': '5' needs a unit",
        ),
        (
            &["lgwr", "--null", "--commit-delay", "100", "--commits", "1"],
            "'--commit-delay <COMMIT_DELAY>': '100' needs a unit",
        ),
        (
            &["lgwr", "--null", "--post-spin", "5", "--commits", "1"],
            "'--post-spin <POST_SPIN>': '5' needs a unit",
        ),
        (
            &["lgwr", "--null", "--compare", "spin=5", "--commits", "1"],
            "--compare item 'spin=5': '5' needs a unit",
        ),
        (
            &[
                "read",
                "--engine",
                "null",
                "--page-cache-max",
                "100",
                "--ops",
                "1",
            ],
            "'--page-cache-max <TIME>': '100' needs a unit",
        ),
        (
            &[
                "read",
                "--engine",
                "null",
                "--storage-cache-max",
                "1",
                "--ops",
                "1",
            ],
            "'--storage-cache-max <TIME>': '1' needs a unit",
        ),
        (
            &["tracefile", "--page-cache-max", "100", trc],
            "'--page-cache-max <TIME>': '100' needs a unit",
        ),
    ];
    for (args, msg) in cases {
        refused(p, args, msg);
    }
    // Bare seconds where the option is a span, and a bare 0, still work.
    for args in [
        &[
            "bench",
            "--engine",
            "null",
            "--runtime",
            "0.05",
            "--warmup",
            "0",
            "-q",
        ][..],
        &[
            "lgwr",
            "--null",
            "--runtime",
            "0.05",
            "--think-time",
            "0",
            "--post-spin",
            "0",
            "-q",
        ],
        &["tracefile", "--interval", "60", "-q", trc],
    ] {
        let out = dbio().current_dir(p).args(args).output().unwrap();
        assert!(
            out.status.success(),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

/// Peak resident memory (KiB) of `dbio ARGS`, from wait4's rusage.
// The child is reaped by wait4 itself (to get its rusage), not by Child::wait.
#[allow(clippy::zombie_processes)]
fn peak_rss_kib(args: &[&str]) -> i64 {
    let mut child = Command::new(dbio_path())
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("starting dbio");
    let pid = child.id() as libc::pid_t;
    let stderr = child.stderr.take();
    let t0 = Instant::now();
    loop {
        let mut status = 0;
        // SAFETY: rusage is plain data that wait4 fills in.
        let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
        // SAFETY: pid is our own child; status and ru are valid pointers.
        let r = unsafe { libc::wait4(pid, &mut status, libc::WNOHANG, &mut ru) };
        if r == pid {
            let mut err = String::new();
            if let Some(mut e) = stderr {
                use std::io::Read;
                let _ = e.read_to_string(&mut err);
            }
            assert!(
                libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0,
                "{args:?}: status {status}: {err}"
            );
            return ru.ru_maxrss;
        }
        assert!(r == 0, "wait4: {}", std::io::Error::last_os_error());
        if t0.elapsed() > Duration::from_secs(120) {
            let _ = child.kill();
            let _ = child.wait();
            panic!("{args:?} still running after 120 s; killed");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// `lgwr --verify` used to keep about 30 B per commit: a run four times as
/// long peaked about 7 MiB higher at 8 × 40000 commits. Now the peak must
/// not grow with the number of commits.
#[test]
fn safety_limits_lgwr_verify_memory_is_bounded() {
    let fs = or_skip!(Tmpfs::mount("256m"));
    let dir = fs.path().to_str().unwrap().to_string();
    let run = |commits: &str| {
        peak_rss_kib(&[
            "lgwr",
            "--sessions",
            "8",
            "--commits",
            commits,
            "--method",
            "buffered-fdatasync",
            "--file-size",
            "4m",
            "--files",
            "3",
            "--redo-size",
            "512",
            "--verify",
            "--quiet",
            "--json",
            "/dev/null",
            &dir,
        ])
    };
    let short = run("10000");
    let long = run("40000");
    assert!(
        long < short + 3 * 1024,
        "peak RSS grew from {short} KiB to {long} KiB for 4x the commits"
    );
    assert!(dbio_files(fs.path()).is_empty());
}
