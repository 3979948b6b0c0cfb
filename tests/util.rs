//! Shared helpers: a scratch directory on a disk-backed filesystem, the
//! dbio command, JSON parsing, and small tmpfs mounts for the full-disk cases.

use assert_cmd::Command;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// A scratch directory under cargo's target dir (disk-backed, unlike /tmp
/// on some machines, so O_DIRECT works).
pub fn scratch() -> tempfile::TempDir {
    tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).expect("scratch dir")
}

/// How long any dbio run a test starts may take before it is killed and the
/// test fails (no test can hang; nextest also kills a test after 180 s).
pub const CHILD_DEADLINE: Duration = Duration::from_secs(120);

/// The dbio binary, quiet, killed after [`CHILD_DEADLINE`].
pub fn dbio() -> Command {
    let mut c = Command::cargo_bin("dbio").expect("dbio binary");
    c.env_remove("RUST_BACKTRACE");
    c.timeout(CHILD_DEADLINE);
    c
}

/// Path of the built binary (for spawning in the background).
pub fn dbio_path() -> PathBuf {
    assert_cmd::cargo::cargo_bin("dbio")
}

/// Parses JSON from a command's stdout.
pub fn json(out: &[u8]) -> serde_json::Value {
    serde_json::from_slice(out)
        .unwrap_or_else(|e| panic!("stdout is not JSON ({e}): {}", String::from_utf8_lossy(out)))
}

/// Files in `dir` whose names start with `dbio-`.
pub fn dbio_files(dir: &Path) -> Vec<PathBuf> {
    std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| {
            p.file_name()
                .is_some_and(|n| n.to_string_lossy().starts_with("dbio-"))
        })
        .collect()
}

/// True when running as root (mounts, loop devices).
pub fn is_root() -> bool {
    // SAFETY: geteuid has no preconditions.
    unsafe { libc::geteuid() == 0 }
}

/// A memory filesystem mounted on a fresh directory, unmounted on drop.
pub struct Tmpfs {
    pub dir: tempfile::TempDir,
}

impl Tmpfs {
    /// Mounts a tmpfs of `size`, or returns why it cannot (a skip reason).
    pub fn mount(size: &str) -> Result<Tmpfs, String> {
        Self::mount_fs("tmpfs", &format!("size={size}"))
    }

    /// Mounts a ramfs: no size limit, and no O_DIRECT (tmpfs has
    /// supported O_DIRECT since Linux 6.6; ramfs still refuses it).
    pub fn ramfs() -> Result<Tmpfs, String> {
        Self::mount_fs("ramfs", "mode=0755")
    }

    fn mount_fs(fs: &str, opts: &str) -> Result<Tmpfs, String> {
        if !is_root() {
            return Err(format!("mounting a {fs} needs root"));
        }
        let dir = tempfile::tempdir().map_err(|e| e.to_string())?;
        let st = std::process::Command::new("mount")
            .args(["-t", fs, "-o", opts, fs])
            .arg(dir.path())
            .status()
            .map_err(|e| format!("mount: {e}"))?;
        if !st.success() {
            return Err(format!("mount -t {fs} failed with {st}"));
        }
        Ok(Tmpfs { dir })
    }

    /// The mount point.
    pub fn path(&self) -> &Path {
        self.dir.path()
    }
}

impl Drop for Tmpfs {
    fn drop(&mut self) {
        let done = std::process::Command::new("umount")
            .arg(self.dir.path())
            .status()
            .is_ok_and(|s| s.success());
        if !done {
            // Still busy (a killed child's files closing): detach it now,
            // the kernel frees it when the last user goes.
            let _ = std::process::Command::new("umount")
                .arg("-l")
                .arg(self.dir.path())
                .status();
        }
    }
}

/// Prints a skip reason (tests that need a capability the machine lacks).
pub fn skip(test: &str, why: &str) {
    eprintln!("SKIP {test}: {why}");
}

/// Waits for a child started in the background, killing it (and failing the
/// test) when it outlives `limit`: a background child never hangs a test.
/// Its pipes are drained on threads, so a chatty child cannot block on a
/// full pipe while we wait.
pub fn wait_output_within(mut child: std::process::Child, limit: Duration) -> std::process::Output {
    use std::io::Read;
    fn drain<R: Read + Send + 'static>(r: Option<R>) -> std::thread::JoinHandle<Vec<u8>> {
        std::thread::spawn(move || {
            let mut v = Vec::new();
            if let Some(mut r) = r {
                let _ = r.read_to_end(&mut v);
            }
            v
        })
    }
    let out = drain(child.stdout.take());
    let err = drain(child.stderr.take());
    let t0 = Instant::now();
    let status = loop {
        if let Some(st) = child.try_wait().expect("waiting for a child") {
            break st;
        }
        if t0.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            panic!(
                "child still running after {limit:?}; killed. stdout: {} stderr: {}",
                String::from_utf8_lossy(&out.join().unwrap_or_default()),
                String::from_utf8_lossy(&err.join().unwrap_or_default())
            );
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    std::process::Output {
        status,
        stdout: out.join().unwrap_or_default(),
        stderr: err.join().unwrap_or_default(),
    }
}
