//! Durability is tested, not assumed: every durability method of `bench` and
//! `lgwr` must make the device flush, must open its files with the flags
//! it promises, and what it reported written must be there after a crash.
//! The flush counts come from a PRIVATE loop device (ext4 on a file in the
//! scratch directory), so no other test's I/O can inflate them, and from
//! the kernel's own counter (/sys/block/loopN/stat), not from dbio's
//! report. The open flags are read from /proc/PID/fdinfo of the running
//! dbio, for every command that opens data files (`--direct` on bench,
//! read and dbwr; calibrate's and check's own O_DIRECT). The crash is the
//! filesystem shutdown ioctl xfstests uses, then a remount: what had not
//! reached the device is gone, and the files are read back cold.
//!
//! A loop device passes REQ_PREFLUSH on to its backing file and advertises a
//! volatile write cache without FUA, so on it every durable write (O_DSYNC,
//! fdatasync, fsync, a linked io_uring fsync) shows as one device flush or
//! more, and a write with no durability shows none.

use crate::util::{
    dbio, dbio_path, json, skip_this_test, tool, unmount, wait_output_within, Loop, Succeeds,
};
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

impl PrivateExt4 {
    /// Crashes the filesystem the way xfstests' `godown` does: the
    /// FS_IOC_SHUTDOWN ioctl with NOLOGFLUSH stops it at once, and whatever
    /// had not reached the device by then (dirty page cache, the running
    /// journal transaction) is lost, as in a power cut. Then it is
    /// unmounted and mounted again (journal replay), with a cold page cache.
    /// What the device's own volatile cache would lose is the flush
    /// counter's business (the tests above).
    fn crash_and_remount(&self) {
        self.shut_down();
        self.remount();
    }

    /// The crash alone: from now on every write and sync on the
    /// filesystem fails with EIO.
    fn shut_down(&self) {
        use std::os::fd::AsRawFd;
        /// _IOR('X', 125, __u32).
        const FS_IOC_SHUTDOWN: libc::c_ulong = 0x8004_587d;
        const FS_GOING_DOWN_NOLOGFLUSH: u32 = 2;
        let root = std::fs::File::open(self.dir()).unwrap();
        let how = FS_GOING_DOWN_NOLOGFLUSH;
        // SAFETY: a valid descriptor and a pointer to a u32 that outlives
        // the call, as the ioctl expects.
        let rc = unsafe { libc::ioctl(root.as_raw_fd(), FS_IOC_SHUTDOWN as _, &how) };
        assert_eq!(
            rc,
            0,
            "FS_IOC_SHUTDOWN: {}",
            std::io::Error::last_os_error()
        );
    }

    /// Unmounts the crashed filesystem and mounts it again (journal
    /// replay, cold page cache).
    fn remount(&self) {
        // An exited process's io_uring lets go of its files a moment
        // after the exit (the ring is torn down by a kernel worker), so
        // the mount may still be busy: retry within a deadline.
        let t0 = Instant::now();
        loop {
            let out = Command::new("umount").arg(self.dir()).output().unwrap();
            if out.status.success() {
                break;
            }
            assert!(
                t0.elapsed() < Duration::from_secs(10),
                "umount {}: {}",
                self.dir().display(),
                String::from_utf8_lossy(&out.stderr)
            );
            std::thread::sleep(Duration::from_millis(50));
        }
        let st = Command::new("mount")
            .arg(&self.dev.dev)
            .arg(self.dir())
            .status()
            .unwrap();
        assert!(st.success(), "mount {} again: {st}", self.dev.dev);
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
    let fs = or_skip!(PrivateExt4::new());
    const OPS: u64 = 64;
    // The file exists before the first measured run, so preparation's own
    // flushes are not counted (a re-used dbio file is not prepared again).
    bench_flushes(&fs, 1, &[]);
    for engine in ["psync", "io_uring", "libaio"] {
        for sync in ["dsync", "sync", "fdatasync", "fsync"] {
            for direct in [false, true] {
                if engine == "libaio" && !direct {
                    continue; // refused: native AIO is asynchronous only with O_DIRECT
                }
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

/// What a test expects of the descriptors dbio holds under its directory
/// at one moment.
type Expect<'a> = &'a dyn Fn(&[(PathBuf, u32)]) -> bool;

/// Every file has a descriptor with all of `want` (the one its I/O goes
/// through), and no descriptor has any of `unwanted`: lgwr keeps the plain
/// descriptor it made each log file with beside the one it writes through.
fn each_file_has(want: u32, unwanted: u32) -> impl Fn(&[(PathBuf, u32)]) -> bool {
    move |fds| {
        !fds.is_empty()
            && fds.iter().all(|(_, f)| f & unwanted == 0)
            && fds
                .iter()
                .all(|(p, _)| fds.iter().any(|(q, f)| q == p && f & want == want))
    }
}

/// Some descriptor has all of `want` and none of `unwanted`.
fn some_has(want: u32, unwanted: u32) -> impl Fn(&[(PathBuf, u32)]) -> bool {
    move |fds| {
        fds.iter()
            .any(|(_, f)| f & want == want && f & unwanted == 0)
    }
}

/// How long an expectation must hold without a break before it counts:
/// longer than preparing a test's file takes, so the descriptor judged is
/// the one the measured I/O goes through, not one of the preparation.
const HOLD: Duration = Duration::from_secs(1);

/// Starts dbio with `args` (a long run), watches the descriptors it holds
/// under `dir` until each of `phases` in turn has held for [`HOLD`] (or
/// 30 s pass, or dbio exits), then stops it with SIGINT and asserts that
/// every phase was seen.
fn assert_open_phases(what: &str, args: &[&str], dir: &Path, phases: &[(&str, Expect)]) {
    let mut child = Command::new(dbio_path())
        .args(args)
        .args(["--quiet"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let pid = child.id();
    let t0 = Instant::now();
    let mut phase = 0;
    let mut since: Option<Instant> = None;
    let mut last = Vec::new();
    while phase < phases.len()
        && t0.elapsed() < Duration::from_secs(30)
        && child.try_wait().unwrap().is_none()
    {
        let fds = open_flags_of(pid, dir);
        if !fds.is_empty() {
            last = fds.clone();
        }
        if (phases[phase].1)(&fds) {
            let s = *since.get_or_insert_with(Instant::now);
            if s.elapsed() >= HOLD {
                phase += 1;
                since = None;
                continue;
            }
        } else {
            since = None;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    // SAFETY: kill with a valid pid and signal (a no-op on an exited child
    // not yet reaped).
    unsafe { libc::kill(pid as i32, libc::SIGINT) };
    let out = wait_output_within(child, Duration::from_secs(30));
    assert!(
        matches!(out.status.code(), Some(0 | 1)),
        "{what}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let shown: Vec<String> = last
        .iter()
        .map(|(p, f)| format!("{} {f:o}", p.display()))
        .collect();
    assert!(
        phase == phases.len(),
        "{what}: never saw {} for {HOLD:?}; last held {shown:?}",
        phases[phase.min(phases.len() - 1)].0
    );
}

/// Asserts that while dbio runs with `args`, every file it holds under
/// `dir` has a descriptor with all of `want`, and no descriptor has any of
/// `unwanted`. A target keeps the descriptor it was created or opened with
/// (its mark, lock and removal are decided on it) beside the one its I/O
/// goes through, which is why "every descriptor" would be too strict.
fn assert_open_flags(what: &str, args: &[&str], dir: &Path, want: u32, unwanted: u32) {
    let expect = each_file_has(want, unwanted);
    let label = format!("flags {want:o} on every file and none of {unwanted:o}");
    assert_open_phases(what, args, dir, &[(&label, &expect)]);
}

#[test]
fn bench_opens_its_target_with_the_promised_flags() {
    let d = crate::util::scratch();
    let dir = d.path().to_str().unwrap();
    let cases: [(&[&str], u32, u32); 10] = [
        (
            &["--direct", "--sync", "dsync"],
            O_DIRECT | O_DSYNC,
            O_SYNC & !O_DSYNC,
        ),
        (&["--direct", "--sync", "sync"], O_DIRECT | O_SYNC, 0),
        (&["--sync", "dsync"], O_DSYNC, O_DIRECT),
        (&["--sync", "fdatasync"], 0, O_DIRECT | O_DSYNC),
        (&["--direct"], O_DIRECT, O_DSYNC),
        (&[], 0, O_DIRECT | O_DSYNC),
        (&["--engine", "io_uring", "--direct"], O_DIRECT, O_DSYNC),
        (&["--engine", "io_uring"], 0, O_DIRECT | O_DSYNC),
        (&["--engine", "libaio", "--direct"], O_DIRECT, O_DSYNC),
        (
            &["--engine", "libaio", "--direct", "--sync", "dsync"],
            O_DIRECT | O_DSYNC,
            O_SYNC & !O_DSYNC,
        ),
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
        ("aio-fdatasync", O_DIRECT, O_DSYNC),
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
        let expect = each_file_has(want, unwanted);
        let label = format!("a descriptor with {want:o} on every file and none with {unwanted:o}");
        assert_open_phases(
            &format!("lgwr {method}"),
            &args,
            d.path(),
            &[(&label, &expect)],
        );
    }
}

/// Every durability method of `lgwr` with the log writer, and the psync
/// ones PostgreSQL and InnoDB use with the leader protocol (the session
/// that leads a group flushes it itself).
const LGWR_METHODS_AND_PROTOCOLS: [(&str, &str); 9] = [
    ("direct-dsync", "writer"),
    ("direct-fdatasync", "writer"),
    ("buffered-fdatasync", "writer"),
    ("buffered-dsync", "writer"),
    ("buffered-fsync", "writer"),
    ("uring-fdatasync", "writer"),
    ("aio-fdatasync", "writer"),
    ("buffered-fdatasync", "leader"),
    ("direct-dsync", "leader"),
];

#[test]
fn every_lgwr_method_flushes_the_device_for_every_log_write() {
    let fs = or_skip!(PrivateExt4::new());
    for (method, protocol) in LGWR_METHODS_AND_PROTOCOLS {
        let dir = fs.dir().join(format!("{method}-{protocol}"));
        std::fs::create_dir(&dir).unwrap();
        let before = fs.flushes();
        let out = dbio()
            .args(["lgwr", "--method", method, "--protocol", protocol])
            .args(["--sessions", "4"])
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

/// Why O_DIRECT cannot be tested in `dir`, if it cannot (the scratch
/// directory is disk-backed by design, but a build tree on a filesystem
/// without O_DIRECT must skip, not fail).
fn no_direct_in(dir: &Path) -> Option<String> {
    use std::os::unix::fs::OpenOptionsExt;
    let probe = dir.join("direct-probe");
    std::fs::write(&probe, b"").unwrap();
    let r = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_DIRECT)
        .open(&probe);
    std::fs::remove_file(&probe).unwrap();
    r.err()
        .map(|e| format!("{} refuses O_DIRECT: {e}", dir.display()))
}

/// Issue 9: a planted bug that made `read` open a sized target without
/// O_DIRECT passed the suite. Every command that takes `--direct` opens its
/// data file with O_DIRECT with it and without O_DIRECT without it.
#[test]
fn read_opens_its_datafile_with_o_direct_exactly_when_asked() {
    let d = crate::util::scratch();
    if let Some(why) = no_direct_in(d.path()) {
        return skip_this_test(&why);
    }
    let dir = d.path().to_str().unwrap();
    // An existing file that dbio did not make (read only reads it).
    let existing = d.path().join("datafile.dbf");
    std::fs::write(&existing, vec![7u8; 8 << 20]).unwrap();
    let existing = existing.to_str().unwrap();
    for target in [dir, existing] {
        assert_direct_exactly_when_asked(&["read", target, "--size", "8m"], d.path());
    }
}

/// Runs `args` with psync and io_uring, with and without `--direct`, and
/// asserts that its files under `dir` are open with O_DIRECT exactly when
/// asked.
fn assert_direct_exactly_when_asked(args: &[&str], dir: &Path) {
    for engine in ["psync", "io_uring"] {
        for direct in [true, false] {
            let mut all = args.to_vec();
            all.extend(["--engine", engine, "--runtime", "20"]);
            let (want, unwanted) = if direct {
                all.push("--direct");
                (O_DIRECT, 0)
            } else {
                (0, O_DIRECT)
            };
            let what = format!("{args:?} {engine} direct={direct}");
            assert_open_flags(&what, &all, dir, want, unwanted);
        }
    }
}

#[test]
fn dbwr_opens_its_datafile_with_o_direct_exactly_when_asked() {
    let d = crate::util::scratch();
    if let Some(why) = no_direct_in(d.path()) {
        return skip_this_test(&why);
    }
    let dir = d.path().to_str().unwrap();
    let args = ["dbwr", dir, "--size", "16m", "--buffers", "512"];
    assert_direct_exactly_when_asked(&args, d.path());
}

/// `calibrate` has no `--direct`: it reads the page-cache tier buffered and
/// the storage-cache and device tiers with O_DIRECT, through a second
/// descriptor on the same file.
#[test]
fn calibrate_reads_the_storage_tiers_with_o_direct_beside_a_buffered_descriptor() {
    let d = crate::util::scratch();
    if let Some(why) = no_direct_in(d.path()) {
        return skip_this_test(&why);
    }
    let dir = d.path().to_str().unwrap();
    // The saved file lies outside the watched directory: dbio holds its
    // output's temporary file open from the start of the run.
    let out = crate::util::scratch();
    let save = out.path().join("cal.json");
    let both = |fds: &[(PathBuf, u32)]| {
        fds.iter().any(|(_, f)| f & O_DIRECT != 0)
            && fds.iter().any(|(_, f)| f & O_DIRECT == 0)
            && fds.iter().all(|(p, _)| p == &fds[0].0)
    };
    // 512 MiB: the O_DIRECT tiers read the rest of the file once, which must
    // take longer than HOLD even on a fast disk.
    let args = [
        "calibrate",
        dir,
        "--size",
        "512m",
        "--samples",
        "1000000",
        "--runtime",
        "20",
        "--save",
        save.to_str().unwrap(),
    ];
    assert_open_phases(
        "calibrate",
        &args,
        d.path(),
        &[("a buffered and an O_DIRECT descriptor", &both)],
    );
}

/// `check` has no `--direct`: its log tests run O_DIRECT + O_DSYNC, then
/// buffered with fdatasync, then its random reads O_DIRECT (where the
/// filesystem takes O_DIRECT, as a disk-backed one does). It keeps the
/// first test's descriptor open beside each later test's, so each phase
/// looks for the test's own descriptor among them.
#[test]
fn check_opens_each_test_with_its_own_flags() {
    let d = crate::util::scratch();
    if let Some(why) = no_direct_in(d.path()) {
        return skip_this_test(&why);
    }
    let dir = d.path().to_str().unwrap();
    let args = ["check", dir, "--size", "32m", "--runtime", "3"];
    let log_direct = each_file_has(O_DIRECT | O_DSYNC, 0);
    let log_buffered = some_has(0, O_DIRECT | O_DSYNC);
    let randread = some_has(O_DIRECT, O_DSYNC);
    assert_open_phases(
        "check",
        &args,
        d.path(),
        &[
            ("the log test with O_DIRECT and O_DSYNC", &log_direct),
            ("the buffered log test", &log_buffered),
            ("O_DIRECT random reads", &randread),
        ],
    );
}

/// Issue 9: durability was measured (flushes, flags) but what survives a
/// crash was never read back. Every bench durability method, with psync
/// and io_uring, direct and buffered, writes 64 blocks to its own file;
/// then the filesystem crashes and is mounted again, and every block the
/// run reported written must hold what dbio wrote: the pattern of one of
/// its buffers (seed `--seed`, thread 0, one slot per I/O in flight), while
/// the pre-written file around it holds another. The last run writes buffered with no
/// durability, and its blocks must be lost: proof that the crash drops
/// what was not made durable.
#[test]
fn what_every_bench_durability_method_wrote_survives_a_crash() {
    let fs = or_skip!(PrivateExt4::new());
    const OPS: u64 = 64;
    const BS: usize = 8192;
    // Thread 0's buffers, one per I/O in flight (the runner's seeds).
    let bufs: Vec<_> = (0..4)
        .map(|slot| dbio_engine::buf::AlignedBuf::patterned(BS, 0x5eed ^ slot))
        .collect();
    let is_written = |b: &[u8]| bufs.iter().any(|w| &w.as_slice()[..BS] == b);
    let mut cases: Vec<(String, Vec<&str>)> = Vec::new();
    for (engine, depth) in [
        ("psync", "1"),
        ("io_uring", "1"),
        ("io_uring", "4"),
        ("libaio", "1"),
        ("libaio", "4"),
    ] {
        for sync in ["dsync", "sync", "fdatasync", "fsync"] {
            for direct in [false, true] {
                if engine == "libaio" && !direct {
                    continue; // refused: native AIO is asynchronous only with O_DIRECT
                }
                let mut args = vec!["--engine", engine, "--iodepth", depth, "--sync", sync];
                if direct {
                    args.push("--direct");
                }
                cases.push((format!("{engine}-qd{depth}-{sync}-direct={direct}"), args));
            }
        }
    }
    cases.push(("no-durability".into(), vec!["--sync", "none"]));
    for (name, extra) in &cases {
        let out = dbio()
            .args(["bench", "--rw", "write", "--bs", "8k", "--size", "4m"])
            .args(["--ops", &OPS.to_string(), "--quiet", "--json", "-"])
            .args(extra)
            .arg(fs.dir().join(name))
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{name}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let v = json(&out.stdout);
        assert_eq!(v["jobs"][0]["write"]["ops"].as_u64(), Some(OPS), "{name}");
    }
    fs.crash_and_remount();
    for (name, _) in &cases {
        let data = std::fs::read(fs.dir().join(name))
            .unwrap_or_else(|e| panic!("{name}: the file is gone after the crash: {e}"));
        assert_eq!(data.len(), 4 << 20, "{name}");
        let blocks: Vec<&[u8]> = data.chunks(BS).collect();
        // The pre-written blocks after the written ones are not the pattern
        // (or the check below would prove nothing).
        assert!(
            !blocks[OPS as usize..].iter().any(|b| is_written(b)),
            "{name}"
        );
        let survived = blocks[..OPS as usize]
            .iter()
            .filter(|b| is_written(b))
            .count() as u64;
        if name == "no-durability" {
            assert!(
                survived < OPS,
                "buffered writes with no durability all survived the crash: the crash did not drop the page cache"
            );
        } else {
            assert_eq!(
                survived, OPS,
                "{name}: only {survived} of the {OPS} blocks the run reported written survived the crash"
            );
        }
    }
}

/// The redo records found intact in the log files under `dir`, as
/// (session index from 0, commit sequence) → copies found: the files are walked record by
/// record (header, length, checksum and payload checked with the format's
/// own `check`), jumping to the next 512-byte boundary over a write's
/// zero padding or the pre-written bytes after the last write.
fn records_on_disk(dir: &Path, seed: u64) -> std::collections::HashMap<(u32, u64), u32> {
    use dbio_sim::lgwr::record;
    const MAX_RECORD: usize = 1 << 20;
    let mut patterns = std::collections::HashMap::new();
    let mut found = std::collections::HashMap::new();
    for e in std::fs::read_dir(dir).unwrap().flatten() {
        let data = std::fs::read(e.path()).unwrap();
        let u32_at = |o: usize| u32::from_le_bytes(data[o..o + 4].try_into().unwrap());
        let mut o = 0;
        while o + 32 <= data.len() {
            if u32_at(o) == record::MAGIC {
                let (session, len) = (u32_at(o + 4), u32_at(o + 16) as usize);
                let seq = u64::from_le_bytes(data[o + 8..o + 16].try_into().unwrap());
                if (32..=MAX_RECORD).contains(&len) && o + len <= data.len() && session < 1024 {
                    let pattern = patterns
                        .entry(session)
                        .or_insert_with(|| record::pattern(seed, session, MAX_RECORD as u64));
                    if record::check(&data[o..o + len], session, seq, len as u32, pattern).is_ok() {
                        *found.entry((session, seq)).or_insert(0) += 1;
                        o += len;
                        continue;
                    }
                }
            }
            o = (o / 512 + 1) * 512;
        }
    }
    found
}

/// Issue 9: every lgwr method's committed records are read back after a
/// crash. Each method runs in its own directory of the private filesystem
/// and keeps its log files, two members each (large enough that the group
/// never wraps, so no record is overwritten by design); then the
/// filesystem crashes and is mounted again, and for every session, each of
/// the commits the JSON result reports must be found intact in both
/// members.
#[test]
fn every_lgwr_methods_committed_records_survive_a_crash() {
    let fs = or_skip!(PrivateExt4::new());
    let mut committed = Vec::new();
    for (method, protocol) in LGWR_METHODS_AND_PROTOCOLS {
        let dir = fs.dir().join(format!("{method}-{protocol}"));
        std::fs::create_dir(&dir).unwrap();
        let out = dbio()
            .args(["lgwr", "--method", method, "--protocol", protocol])
            .args(["--sessions", "4"])
            .args(["--commits", "50", "--files", "2", "--file-size", "4m"])
            .args(["--members", "2"])
            .args(["--keep", "--quiet", "--json", "-"])
            .arg(&dir)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{method}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let v = json(&out.stdout);
        let sessions: Vec<(u32, u64)> = v["lgwr"][0]["sessions"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| {
                let id = s["id"].as_u64().unwrap() as u32;
                (id - 1, s["commits"].as_u64().unwrap())
            })
            .collect();
        assert_eq!(sessions.len(), 4, "{method}");
        assert!(
            sessions.iter().all(|&(_, c)| c == 50),
            "{method}: {sessions:?}"
        );
        committed.push((format!("{method} --protocol {protocol}"), dir, sessions));
    }
    fs.crash_and_remount();
    for (method, dir, sessions) in committed {
        let found = records_on_disk(&dir, 0x5eed);
        for (session, commits) in sessions {
            let missing: Vec<u64> = (1..=commits)
                .filter(|seq| found.get(&(session, *seq)) != Some(&2))
                .collect();
            assert!(
                missing.is_empty(),
                "{method}: session {} committed {commits} records, but after the crash {} are missing or damaged in one of the two members (the first: {:?})",
                session + 1,
                missing.len(),
                &missing[..missing.len().min(5)]
            );
        }
    }
}

/// A log write that fails in the middle of a run (the filesystem shut down
/// under it) stops every session with either protocol, whether a writer
/// thread or a leading session met the error: dbio exits within the
/// deadline with status 1 and a partial result that names the I/O error,
/// keeping the commits made before it.
#[test]
fn a_log_write_error_mid_run_stops_every_session_with_either_protocol() {
    let fs = or_skip!(PrivateExt4::new());
    for protocol in ["writer", "leader"] {
        let dir = fs.dir().join(protocol);
        std::fs::create_dir(&dir).unwrap();
        let before = fs.flushes();
        let child = Command::new(dbio_path())
            .args(["lgwr", "--method", "buffered-fdatasync"])
            .args(["--protocol", protocol, "--sessions", "4"])
            .args(["--runtime", "60", "--files", "2", "--file-size", "8m"])
            .args(["--prepare", "sparse", "--quiet", "--json", "-"])
            .arg(&dir)
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        // Committing: the device has seen log flushes.
        let t0 = Instant::now();
        while fs.flushes() < before + 20 {
            assert!(
                t0.elapsed() < Duration::from_secs(30),
                "{protocol}: no log flushes"
            );
            std::thread::sleep(Duration::from_millis(10));
        }
        fs.shut_down();
        let out = crate::util::wait_output_within(child, Duration::from_secs(30));
        fs.remount();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{protocol}: {err}");
        let v = json(&out.stdout);
        let partial = &v["partial"];
        assert_eq!(partial["kind"], "io_error", "{protocol}: {partial}");
        assert!(
            v["lgwr"][0]["commits"].as_u64().unwrap() > 0,
            "{protocol}: {}",
            v["lgwr"][0]
        );
    }
}

/// `lgwr --compare` runs its configurations over one group of log files,
/// opening them again for each: each configuration writes through
/// descriptors with its own method's flags, not the first one's.
#[test]
fn lgwr_compare_opens_the_log_files_again_with_each_configurations_flags() {
    let d = crate::util::scratch();
    if let Some(why) = no_direct_in(d.path()) {
        return skip_this_test(&why);
    }
    let dir = d.path().to_str().unwrap();
    let args = [
        "lgwr",
        "--method",
        "direct-dsync",
        "--compare",
        "direct-dsync,buffered-fdatasync",
        "--sessions",
        "2",
        "--file-size",
        "4m",
        "--runtime",
        "10",
        dir,
    ];
    let first = each_file_has(O_DIRECT | O_DSYNC, 0);
    let second = each_file_has(0, O_DIRECT | O_DSYNC);
    assert_open_phases(
        "lgwr --compare",
        &args,
        d.path(),
        &[
            ("direct-dsync's O_DIRECT + O_DSYNC", &first),
            ("buffered-fdatasync's plain descriptors", &second),
        ],
    );
}

/// Over several rounds the device's counters add up: on a private device
/// that nothing else writes to, the device saw at least as many writes and
/// flushes as the log writer made O_DIRECT+O_DSYNC writes in all rounds.
#[test]
fn lgwr_device_counters_add_up_over_rounds() {
    let fs = or_skip!(PrivateExt4::new());
    let out = dbio()
        .args(["lgwr", "--method", "direct-dsync", "--sessions", "1"])
        .args(["--commits", "40", "--rounds", "3", "--files", "2"])
        .args(["--file-size", "2m", "--quiet", "--json", "-"])
        .arg(fs.dir())
        .succeeds();
    let r = &json(&out.stdout)["lgwr"][0];
    let writes = r["writer"]["writes"].as_u64().unwrap();
    assert_eq!(r["commits"], 120, "{r}");
    let dev = &r["io"]["device"];
    assert!(
        dev["writes"].as_u64().unwrap() >= writes,
        "{writes} log writes: {dev}"
    );
    assert!(
        dev["flushes"].as_u64().unwrap() >= writes,
        "{writes} log writes: {dev}"
    );
}
