//! Shared helpers: a scratch directory on a disk-backed filesystem, the
//! dbio command, JSON parsing, small tmpfs mounts for the full-disk cases,
//! and loop devices over image files for the block-device cases.

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
        unmount(self.dir.path());
    }
}

/// Unmounts `dir`. When it is still busy, it is detached lazily and the
/// kernel finishes when the last reference goes: an io_uring instance
/// releases its files in a kernel worker after its process has exited, so a
/// plain umount right after a dbio run can fail with EBUSY (and used to
/// leave the mount, and its loop device, behind).
pub fn unmount(dir: &Path) {
    if tool(std::process::Command::new("umount").arg(dir)).is_err() {
        let _ = tool(std::process::Command::new("umount").arg("--lazy").arg(dir));
    }
}

/// Prints why the running test is skipped (it needs a capability the
/// machine lacks). The test harness names each test's thread after the
/// test.
pub fn skip_this_test(why: &str) {
    let test = std::thread::current();
    eprintln!("SKIP {}: {why}", test.name().unwrap_or("this test"));
}

/// A private server's URL from `var` (scripts/test exports them), or
/// why the test skips; under CI, which starts every server, its absence
/// fails the test.
pub fn server_url(var: &str) -> Option<String> {
    match std::env::var(var) {
        Ok(u) if !u.is_empty() => Some(u),
        _ => {
            assert!(
                std::env::var_os("CI").is_none(),
                "{var} is not set, and CI starts every server (scripts/test)"
            );
            skip_this_test(&format!(
                "{var} is not set (scripts/test starts private servers as root)"
            ));
            None
        }
    }
}

/// Unwraps a set-up the machine may not allow (a mount, a loop device, a
/// private filesystem), or prints why and returns from the test.
macro_rules! or_skip {
    ($setup:expr) => {
        match $setup {
            Ok(ready) => ready,
            Err(why) => return crate::util::skip_this_test(&why),
        }
    };
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

/// How long a helper tool (losetup, mkfs, sfdisk, ...) may run.
pub const TOOL_DEADLINE: Duration = Duration::from_secs(60);

/// Runs a helper tool to completion within [`TOOL_DEADLINE`]; Err says why
/// it could not run or failed (a skip reason when the tool is missing).
pub fn tool(cmd: &mut std::process::Command) -> Result<std::process::Output, String> {
    use std::process::Stdio;
    let name = format!("{:?}", cmd.get_program());
    let child = cmd
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("{name} cannot run: {e}"))?;
    let out = wait_output_within(child, TOOL_DEADLINE);
    if !out.status.success() {
        return Err(format!(
            "{name} failed with {}: {}",
            out.status,
            String::from_utf8_lossy(&out.stderr).trim()
        ));
    }
    Ok(out)
}

/// A loop device over an image file in the scratch directory, detached on
/// drop (`losetup --find --show`).
pub struct Loop {
    /// The device, e.g. `/dev/loop3`.
    pub dev: String,
    _dir: tempfile::TempDir,
}

impl Loop {
    /// A blank (all-zero) device of `size` bytes, or why there cannot be one.
    pub fn blank(size: u64) -> Result<Loop, String> {
        Self::with_image(size, |_| Ok(()))
    }

    /// A device over an image of `size` zero bytes that `make` writes first
    /// (it may replace the file; it is then grown with zeroes to `size`).
    pub fn with_image(
        size: u64,
        make: impl FnOnce(&Path) -> Result<(), String>,
    ) -> Result<Loop, String> {
        Self::with_image_args(size, make, &[])
    }

    /// A blank device the kernel marks read-only (`losetup --read-only`).
    pub fn blank_read_only(size: u64) -> Result<Loop, String> {
        Self::with_image_args(size, |_| Ok(()), &["--read-only"])
    }

    /// Like [`Loop::with_image`], with extra `losetup` options
    /// (`--partscan`, `--read-only`).
    pub fn with_image_args(
        size: u64,
        make: impl FnOnce(&Path) -> Result<(), String>,
        losetup_args: &[&str],
    ) -> Result<Loop, String> {
        if !is_root() {
            return Err("loop devices need root".into());
        }
        let dir = scratch();
        let image = dir.path().join("disk.img");
        std::fs::File::create(&image)
            .and_then(|f| f.set_len(size))
            .map_err(|e| e.to_string())?;
        make(&image)?;
        let f = std::fs::OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(&image)
            .map_err(|e| e.to_string())?;
        let len = f.metadata().map_err(|e| e.to_string())?.len();
        if len < size {
            f.set_len(size).map_err(|e| e.to_string())?;
        }
        drop(f);
        let mut losetup = std::process::Command::new("losetup");
        losetup.args(["--find", "--show"]).args(losetup_args);
        let out = tool(losetup.arg(&image))?;
        Ok(Loop {
            dev: String::from_utf8_lossy(&out.stdout).trim().to_string(),
            _dir: dir,
        })
    }

    /// The first `len` bytes of the device, read through the device.
    pub fn head(&self, len: usize) -> Vec<u8> {
        use std::io::Read;
        let mut v = vec![0u8; len];
        std::fs::File::open(&self.dev)
            .and_then(|mut f| f.read_exact(&mut v))
            .unwrap_or_else(|e| panic!("reading {}: {e}", self.dev));
        v
    }
}

impl Drop for Loop {
    fn drop(&mut self) {
        let _ = tool(std::process::Command::new("losetup").args(["-d", &self.dev]));
    }
}

/// The CPUs this test process may run on (sched_getaffinity).
pub fn allowed_cpus() -> Vec<usize> {
    // SAFETY: cpu_set_t is plain data filled in by the kernel.
    unsafe {
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        if libc::sched_getaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &mut set) != 0 {
            return Vec::new();
        }
        (0..libc::CPU_SETSIZE as usize)
            .filter(|&c| libc::CPU_ISSET(c, &set))
            .collect()
    }
}

/// Runs dbio with `args`, confined to `cpu` from its start (as `taskset
/// -c CPU dbio ...` would), within [`CHILD_DEADLINE`].
pub fn dbio_on_cpu(cpu: usize, args: &[&str]) -> std::process::Output {
    use std::os::unix::process::CommandExt;
    use std::process::{Command, Stdio};
    let mut c = Command::new(dbio_path());
    c.args(args)
        .env_remove("RUST_BACKTRACE")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    // SAFETY: only an async-signal-safe system call between fork and exec.
    unsafe {
        c.pre_exec(move || {
            let mut set: libc::cpu_set_t = std::mem::zeroed();
            libc::CPU_SET(cpu, &mut set);
            if libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &set) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    wait_output_within(c.spawn().expect("spawning dbio"), CHILD_DEADLINE)
}

/// Runs a command to completion and fails the calling test, showing the
/// command's stderr, unless it exited with status 0.
pub trait Succeeds {
    /// The command's output, after a successful exit.
    fn succeeds(&mut self) -> std::process::Output;
}

impl Succeeds for Command {
    #[track_caller]
    fn succeeds(&mut self) -> std::process::Output {
        let out = self.output().expect("running dbio");
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        out
    }
}

/// A result saved by an older dbio under `tests/fixtures/v2/`, and the
/// table that dbio printed for it then (`NAME.json`, `NAME.txt`).
pub fn v2_fixture(name: &str) -> (PathBuf, String) {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/v2");
    let table = std::fs::read_to_string(dir.join(format!("{name}.txt"))).expect("fixture table");
    (dir.join(format!("{name}.json")), table)
}

/// `dbio report --from` of a version 2 fixture prints the table it printed
/// then; `dbio report --json -` of it is a current result, returned.
pub fn v2_renders_as_then(name: &str) -> serde_json::Value {
    let (path, then) = v2_fixture(name);
    let out = dbio().args(["report", "--from"]).arg(&path).succeeds();
    let now = String::from_utf8_lossy(&out.stdout);
    assert!(
        now == then,
        "{name}: the table changed:\n{now}\nwas:\n{then}"
    );
    let out = dbio()
        .args(["report", "--json", "-", "--from"])
        .arg(&path)
        .succeeds();
    let v = json(&out.stdout);
    assert_eq!(v["schema_version"], dbio_model::SCHEMA_VERSION, "{name}");
    v
}

/// Starts `dbio watch ARGS --json RESULT` in the background and waits for
/// its first line on standard error, "watching pid …", so that what the
/// test does next is watched. `Err` with the kernel's refusal when BPF is
/// not available here (the caller skips).
pub fn start_watch(args: &[String], result: &Path) -> Result<std::process::Child, String> {
    use std::io::{BufRead, BufReader};
    let mut watch = std::process::Command::new(dbio_path())
        .args(args)
        .arg("--json")
        .arg(result)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("dbio watch");
    let mut line = String::new();
    BufReader::new(watch.stderr.as_mut().unwrap())
        .read_line(&mut line)
        .unwrap();
    if line.contains("the kernel refused") {
        let _ = watch.kill();
        let _ = watch.wait();
        return Err(format!("BPF unavailable: {line}"));
    }
    assert!(line.contains("watching pid"), "{line}");
    Ok(watch)
}
