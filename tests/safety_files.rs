//! Never write through a path that changed under us (issue 8 §1 and §5):
//! a file dbio writes is opened once and judged on its descriptor, its
//! temporary files are removed only by their own inode, stale ones from a
//! killed run are cleaned up, and every way to stop dbio short of SIGKILL
//! cleans up. Each test attacks the real binary with real renames,
//! symlinks, signals and mounts.

use crate::util::{
    dbio, dbio_files, dbio_path, is_root, json, scratch, skip_this_test, wait_output_within,
};
use std::ffi::CString;
use std::fs;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

fn cpath(p: &Path) -> CString {
    CString::new(p.as_os_str().as_bytes()).unwrap()
}

/// Marks `p` as a temporary file of dbio's, the way dbio does.
fn mark(p: &Path) {
    let name = CString::new("user.dbio").unwrap();
    let value = dbio_engine::target::TEMP_MARK;
    // SAFETY: valid C strings and value.
    let rc = unsafe {
        libc::setxattr(
            cpath(p).as_ptr(),
            name.as_ptr(),
            value.as_ptr().cast(),
            value.len(),
            0,
        )
    };
    assert_eq!(rc, 0, "setxattr: {}", std::io::Error::last_os_error());
}

fn is_marked(p: &Path) -> bool {
    let name = CString::new("user.dbio").unwrap();
    let mut buf = [0u8; 8];
    // SAFETY: valid C strings and buffer.
    unsafe {
        libc::lgetxattr(
            cpath(p).as_ptr(),
            name.as_ptr(),
            buf.as_mut_ptr().cast(),
            buf.len(),
        ) >= 0
    }
}

fn kill(pid: u32, sig: i32) {
    // SAFETY: kill with a valid pid and signal.
    assert_eq!(unsafe { libc::kill(pid as i32, sig) }, 0);
}

/// inotify on a directory: wakes the test when dbio creates its file there
/// (a real event, not a sleep).
struct Created(std::os::fd::OwnedFd);

impl Created {
    fn watch(dir: &Path) -> Created {
        use std::os::fd::FromRawFd;
        // SAFETY: plain syscalls; the fd is owned below.
        let fd = unsafe { libc::inotify_init1(libc::IN_CLOEXEC | libc::IN_NONBLOCK) };
        assert!(
            fd >= 0,
            "inotify_init1: {}",
            std::io::Error::last_os_error()
        );
        // SAFETY: fd is ours and valid.
        let fd = unsafe { std::os::fd::OwnedFd::from_raw_fd(fd) };
        use std::os::fd::AsRawFd;
        // SAFETY: valid fd and C string.
        let wd = unsafe {
            libc::inotify_add_watch(fd.as_raw_fd(), cpath(dir).as_ptr(), libc::IN_CREATE)
        };
        assert!(
            wd >= 0,
            "inotify_add_watch: {}",
            std::io::Error::last_os_error()
        );
        Created(fd)
    }

    /// The first dbio temporary file in `dir`, waiting for its creation.
    fn wait(&self, dir: &Path, limit: Duration) -> PathBuf {
        use std::os::fd::AsRawFd;
        let t0 = Instant::now();
        loop {
            if let Some(p) = dbio_files(dir).into_iter().next() {
                return p;
            }
            let left = limit.saturating_sub(t0.elapsed());
            assert!(
                !left.is_zero(),
                "dbio created no file in {} within {limit:?}",
                dir.display()
            );
            let mut pfd = libc::pollfd {
                fd: self.0.as_raw_fd(),
                events: libc::POLLIN,
                revents: 0,
            };
            // SAFETY: one valid pollfd.
            unsafe { libc::poll(&mut pfd, 1, left.as_millis().min(1000) as i32) };
            let mut buf = [0u8; 4096];
            // SAFETY: draining events into a local buffer.
            while unsafe { libc::read(self.0.as_raw_fd(), buf.as_mut_ptr().cast(), buf.len()) } > 0
            {
            }
        }
    }
}

/// Flips `link` in `dir` between symbolic links and hard links to `ours`
/// (dbio's) and `victim` until `stop`, each flip an atomic rename.
fn flipper(dir: PathBuf, stop: Arc<AtomicBool>) -> std::thread::JoinHandle<u64> {
    std::thread::spawn(move || {
        let tmp = dir.join(".flip");
        let race = dir.join("race");
        let mut n = 0u64;
        while !stop.load(Ordering::Relaxed) {
            let _ = fs::remove_file(&tmp);
            let made = match n % 4 {
                0 => std::os::unix::fs::symlink("ours", &tmp),
                1 => std::os::unix::fs::symlink("victim", &tmp),
                2 => fs::hard_link(dir.join("ours"), &tmp),
                _ => fs::hard_link(dir.join("victim"), &tmp),
            };
            if made.is_ok() {
                let _ = fs::rename(&tmp, &race);
            }
            n += 1;
        }
        n
    })
}

/// See: issue 8 §1 (symlink race: 22 of 50 runs overwrote the other file).
#[test]
fn safety_files_symlink_race_never_writes_the_victim() {
    let d = scratch();
    let dir = d.path().to_path_buf();
    dbio()
        .args([
            "bench", "--rw", "write", "--size", "1m", "--bs", "4k", "--ops", "1", "--quiet",
        ])
        .arg(dir.join("ours"))
        .assert()
        .success();
    let victim_bytes = vec![0x5au8; 1 << 20];
    fs::write(dir.join("victim"), &victim_bytes).unwrap();
    let stop = Arc::new(AtomicBool::new(false));
    let flips = flipper(dir.clone(), stop.clone());
    let (mut wrote, mut refused, mut tries) = (0, 0, 0);
    // At least 40 runs, and on until dbio has both written its own file
    // and refused the victim (each outcome proves the link was in that
    // state when dbio looked): how many runs that takes depends on when
    // the flipper gets a CPU, so the count is not fixed, only bounded.
    while tries < 40 || (tries < 400 && (wrote == 0 || refused == 0)) {
        tries += 1;
        let out = dbio()
            .args([
                "bench", "--rw", "write", "--size", "1m", "--bs", "4k", "--ops", "16", "--quiet",
            ])
            .arg(dir.join("race"))
            .output()
            .unwrap();
        match out.status.code() {
            Some(0) => wrote += 1,
            Some(2) => {
                let err = String::from_utf8_lossy(&out.stderr);
                assert_eq!(err.lines().count(), 1, "one sentence: {err}");
                refused += 1;
            }
            other => panic!(
                "dbio ended with {other:?}: {}",
                String::from_utf8_lossy(&out.stderr)
            ),
        }
        if fs::read(dir.join("victim")).unwrap() != victim_bytes {
            break;
        }
    }
    stop.store(true, Ordering::Relaxed);
    flips.join().unwrap();
    assert!(
        fs::read(dir.join("victim")).unwrap() == victim_bytes,
        "dbio wrote into a file it did not create"
    );
    assert!(!is_marked(&dir.join("victim")));
    assert!(
        wrote > 0 && refused > 0,
        "in {tries} runs dbio wrote its own file {wrote} times and refused {refused} times: the link did not race, the test proves nothing"
    );
}

/// See: issue 8 §1 (a temp file swapped for a symlink during preparation:
/// dbio wrote into the root-only file and grew it to 2 GiB).
#[test]
fn safety_files_temp_swapped_during_prepare_is_not_followed() {
    let d = scratch();
    let dir = d.path();
    let victim = dir.join("victim");
    let victim_bytes = vec![0xa5u8; 64 << 10];
    fs::write(&victim, &victim_bytes).unwrap();
    let created = Created::watch(dir);
    let size: u64 = 512 << 20;
    let child = Command::new(dbio_path())
        .args([
            "bench",
            "--rw",
            "write",
            "--bs",
            "4k",
            "--ops",
            "256",
            "--prepare",
            "prewrite",
            "--quiet",
        ])
        .args(["--size", &size.to_string()])
        .arg(dir)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let pid = child.id();
    let temp = created.wait(dir, Duration::from_secs(60));
    kill(pid, libc::SIGSTOP);
    // Wait until it is really stopped (WNOWAIT leaves it to be reaped later).
    // SAFETY: waitid on our own child with a zeroed siginfo.
    let mut info: libc::siginfo_t = unsafe { std::mem::zeroed() };
    let rc = unsafe {
        libc::waitid(
            libc::P_PID,
            pid,
            &mut info,
            libc::WSTOPPED | libc::WEXITED | libc::WNOWAIT,
        )
    };
    assert_eq!(rc, 0);
    let laid_out = fs::metadata(&temp).unwrap().len();
    // The attacker: move dbio's file away and plant a link to the victim.
    let moved = dir.join("moved");
    fs::rename(&temp, &moved).unwrap();
    std::os::unix::fs::symlink(&victim, &temp).unwrap();
    kill(pid, libc::SIGCONT);
    let out = wait_output_within(child, Duration::from_secs(110));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        laid_out < size,
        "dbio was stopped after it had laid out its file ({laid_out} B): the swap came too late to test anything"
    );
    let now = fs::read(&victim).unwrap();
    assert!(
        now == victim_bytes,
        "dbio wrote through the planted link: the victim now holds {} B",
        now.len()
    );
    assert!(
        fs::symlink_metadata(&temp)
            .unwrap()
            .file_type()
            .is_symlink(),
        "dbio removed a name that no longer was its file"
    );
    match out.status.code() {
        // Went on with its own inode: the run's writes are in the moved file.
        Some(0) => assert_eq!(fs::metadata(&moved).unwrap().len(), size),
        Some(2) => assert_eq!(stderr.lines().count(), 1, "one sentence: {stderr}"),
        other => panic!("dbio ended with {other:?}: {stderr}"),
    }
}

/// See: issue 8 §5 (temporary files of a SIGKILLed run stay behind).
#[test]
fn safety_files_stale_temps_are_removed_with_a_notice() {
    let d = scratch();
    let dir = d.path();
    // A pid that is certainly gone: a child we started and reaped.
    let mut c = Command::new("true").spawn().unwrap();
    let dead = c.id();
    c.wait().unwrap();
    let stale = dir.join(format!("dbio-{dead}-0.tmp"));
    fs::write(&stale, b"left by a killed run").unwrap();
    mark(&stale);
    // What must stay: not marked; a live process; two links; locked; a link.
    let unmarked = dir.join(format!("dbio-{dead}-1.tmp"));
    fs::write(&unmarked, b"x").unwrap();
    let alive = dir.join(format!("dbio-{}-0.tmp", std::process::id()));
    fs::write(&alive, b"x").unwrap();
    mark(&alive);
    let linked = dir.join(format!("dbio-{dead}-2.tmp"));
    fs::write(&linked, b"x").unwrap();
    mark(&linked);
    fs::hard_link(&linked, dir.join("second-link")).unwrap();
    let locked = dir.join(format!("dbio-{dead}-3.tmp"));
    fs::write(&locked, b"x").unwrap();
    mark(&locked);
    let lock = fs::File::open(&locked).unwrap();
    use std::os::fd::AsRawFd;
    // SAFETY: flock on an open file of ours.
    assert_eq!(unsafe { libc::flock(lock.as_raw_fd(), libc::LOCK_EX) }, 0);
    let symlink = dir.join(format!("dbio-{dead}-4.tmp"));
    std::os::unix::fs::symlink(&alive, &symlink).unwrap();
    // Marked and stale, but another user's (where root can make one).
    let foreign = dir.join(format!("dbio-{dead}-5.tmp"));
    fs::write(&foreign, b"x").unwrap();
    mark(&foreign);
    let foreign_kept = std::os::unix::fs::chown(&foreign, Some(65534), Some(65534)).is_ok();
    if !foreign_kept {
        fs::remove_file(&foreign).unwrap();
    }
    // A temporary file a finished run kept on purpose (--keep).
    let keep_dir = scratch();
    dbio()
        .args([
            "bench", "--rw", "write", "--size", "1m", "--bs", "4k", "--ops", "1", "--quiet",
            "--keep",
        ])
        .arg(keep_dir.path())
        .assert()
        .success();
    let kept_src = dbio_files(keep_dir.path())
        .pop()
        .expect("--keep kept the file");
    let kept = dir.join(kept_src.file_name().unwrap());
    fs::rename(&kept_src, &kept).unwrap();

    let out_dir = scratch();
    let json_path = out_dir.path().join("r.json");
    dbio()
        .args([
            "bench", "--rw", "write", "--size", "1m", "--bs", "4k", "--ops", "16", "--quiet",
            "--json",
        ])
        .arg(&json_path)
        .arg(dir)
        .assert()
        .success();
    drop(lock);
    assert!(!stale.exists(), "the stale temporary file is still there");
    for p in [&unmarked, &alive, &linked, &locked, &kept] {
        assert!(p.exists(), "{} was removed", p.display());
    }
    assert_eq!(
        foreign.exists(),
        foreign_kept,
        "another user's file was removed"
    );
    assert!(
        fs::symlink_metadata(&symlink).is_ok(),
        "the symlink was removed"
    );
    let v = json(&fs::read(&json_path).unwrap());
    let warnings = v["findings"].to_string();
    assert!(
        warnings.contains("removed 1 stale temporary file")
            && warnings.contains(&format!("dbio-{dead}-0.tmp")),
        "{warnings}"
    );
}

fn signal_cleans_up(sig: i32, name: &str) {
    signal_cleans_up_after(
        &[
            "bench",
            "--rw",
            "randwrite",
            "--bs",
            "4k",
            "--size",
            "8m",
            "--prepare",
            "sparse",
        ],
        sig,
        name,
    );
}

/// Runs `dbio ARGS --runtime 60 --quiet --json FILE DIR`, sends `sig` once
/// its first file exists, and checks the run context's promise: status 1,
/// the partial result printed and saved with the signal's name, and no
/// file of dbio's left.
fn signal_cleans_up_after(args: &[&str], sig: i32, name: &str) {
    let d = scratch();
    let dir = &d.path().join("run");
    fs::create_dir(dir).unwrap();
    let json_path = d.path().join("out.json");
    let created = Created::watch(dir);
    let child = Command::new(dbio_path())
        .args(args)
        .args(["--runtime", "60", "--quiet", "--json"])
        .arg(&json_path)
        .arg(dir)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Its file exists: the handlers are installed (before any target is made).
    created.wait(dir, Duration::from_secs(60));
    kill(child.id(), sig);
    let out = wait_output_within(child, Duration::from_secs(60));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        out.status.code(),
        Some(1),
        "{name}: {:?} stdout: {stdout} stderr: {}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        stdout.contains(&format!("PARTIAL RESULT: interrupted by {name}")),
        "{stdout}"
    );
    let v = json(&fs::read(&json_path).unwrap());
    assert_eq!(v["partial"]["signal"], name, "{}", args[0]);
    assert!(
        dbio_files(dir).is_empty(),
        "{name}: temporary file left behind"
    );
}

/// dbio removes its temporary file only by the name it gave it: a file
/// renamed away during the run is left where it went (it may now be
/// somebody's), and the user is told in one line where it is, since
/// nobody else will remove it.
#[test]
fn safety_files_a_temporary_file_renamed_away_is_left_and_named() {
    let d = scratch();
    let dir = &d.path().join("run");
    fs::create_dir(dir).unwrap();
    let created = Created::watch(dir);
    let child = Command::new(dbio_path())
        .args([
            "bench",
            "--rw",
            "write",
            "--size",
            "4m",
            "--bs",
            "4k",
            "--runtime",
            "2",
            "--quiet",
        ])
        .arg(dir)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let tmp = created.wait(dir, Duration::from_secs(60));
    let moved = d.path().join("moved.dat");
    fs::rename(&tmp, &moved).unwrap();
    let out = wait_output_within(child, Duration::from_secs(60));
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{err}");
    assert!(moved.exists(), "the renamed file was removed");
    let warning: Vec<&str> = err
        .lines()
        .filter(|l| l.contains("renamed or linked"))
        .collect();
    assert_eq!(warning.len(), 1, "{err}");
    assert!(warning[0].contains(&*moved.to_string_lossy()), "{err}");
    assert!(dbio_files(dir).is_empty());
}

/// See: issue 8 §5 (SIGHUP and SIGQUIT killed dbio with its file left).
#[test]
fn safety_files_sighup_and_sigquit_clean_up_like_sigterm() {
    signal_cleans_up(libc::SIGHUP, "SIGHUP");
    signal_cleans_up(libc::SIGQUIT, "SIGQUIT");
}

/// See: issue 10 §3 (lgwr and dbwr went around the run context): every
/// measuring command stops on a signal the same way.
#[test]
fn safety_files_lgwr_and_dbwr_stop_on_a_signal_like_bench() {
    signal_cleans_up_after(&["lgwr", "--file-size", "8m"], libc::SIGTERM, "SIGTERM");
    signal_cleans_up_after(&["dbwr", "--size", "128m"], libc::SIGINT, "SIGINT");
}

/// See: issue 8 §5 ("checking free space on  failed" for a bare name).
#[test]
fn safety_files_bare_file_name_works() {
    let d = scratch();
    dbio()
        .current_dir(d.path())
        .args([
            "bench", "new.dat", "--rw", "write", "--size", "1m", "--bs", "4k", "--ops", "16",
            "--quiet",
        ])
        .assert()
        .success();
    let p = d.path().join("new.dat");
    assert_eq!(fs::metadata(&p).unwrap().len(), 1 << 20);
    assert!(is_marked(&p));
}

/// See: issue 8 §5 ("File exists (os error 17): File exists (os error 17)").
#[test]
fn safety_files_os_error_is_printed_once() {
    let d = scratch();
    let ro = d.path().join("ro");
    fs::create_dir(&ro).unwrap();
    let _mount = if is_root() {
        // Root ignores permissions: a read-only mount refuses even root.
        match crate::util::Tmpfs::mount("1m") {
            Ok(t) => {
                let st = Command::new("mount")
                    .args(["-o", "remount,ro"])
                    .arg(t.path())
                    .status()
                    .unwrap();
                assert!(st.success());
                Some(t)
            }
            Err(why) => return skip_this_test(&why),
        }
    } else {
        use std::os::unix::fs::PermissionsExt;
        fs::set_permissions(&ro, fs::Permissions::from_mode(0o555)).unwrap();
        None
    };
    let target = _mount
        .as_ref()
        .map_or(ro.clone(), |t| t.path().to_path_buf());
    let out = dbio()
        .args([
            "bench", "--rw", "write", "--size", "1m", "--bs", "4k", "--ops", "16", "--quiet",
        ])
        .arg(&target)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert_eq!(
        err.matches("(os error").count(),
        1,
        "the OS error is repeated: {err}"
    );
}

/// See: issue 8 §5 (ELOOP was reported as "no such file").
#[test]
fn safety_files_symlink_loop_is_named() {
    let d = scratch();
    std::os::unix::fs::symlink("b", d.path().join("a")).unwrap();
    std::os::unix::fs::symlink("a", d.path().join("b")).unwrap();
    // The loop as the file, and as the directory of a new file.
    for (rw, target) in [("read", "a"), ("write", "a"), ("write", "a/new.dat")] {
        let out = dbio()
            .args([
                "bench", "--rw", rw, "--size", "1m", "--bs", "4k", "--ops", "16", "--quiet",
            ])
            .arg(d.path().join(target))
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{err}");
        assert!(err.contains("loop of symbolic links"), "{err}");
        assert!(err.contains("os error 40"), "{err}");
        assert_eq!(err.lines().count(), 1, "{err}");
    }
    // The loop as the directory of `check` and of SQLite's scratch file.
    let lp = d.path().join("a");
    for args in [
        vec!["check".into(), lp.clone().into_os_string()],
        vec!["load".into(), "--dir".into(), lp.into_os_string()],
    ] {
        let out = dbio().args(&args).output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains("loop of symbolic links"), "{args:?}: {err}");
        assert_eq!(err.lines().count(), 1, "{err}");
    }
    // Nothing was created in place of the links.
    assert!(fs::symlink_metadata(d.path().join("a"))
        .unwrap()
        .file_type()
        .is_symlink());
}

/// See: issue 8 §5 (on ramfs the mark silently could not be set).
#[test]
fn safety_files_ramfs_mark_warning() {
    let t = or_skip!(crate::util::Tmpfs::ramfs());
    let out_dir = scratch();
    let json_path = out_dir.path().join("r.json");
    let out = dbio()
        .args([
            "bench", "--rw", "write", "--size", "1m", "--bs", "4k", "--ops", "16", "--quiet",
            "--json",
        ])
        .arg(&json_path)
        .arg(t.path().join("f.dat"))
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{stdout} {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v = json(&fs::read(&json_path).unwrap());
    let warnings = v["findings"].to_string();
    assert!(
        warnings.contains("could not mark") && warnings.contains("ramfs"),
        "{warnings}"
    );
    assert!(
        stdout.contains("could not mark"),
        "the table shows it too: {stdout}"
    );
    assert_eq!(fs::metadata(t.path().join("f.dat")).unwrap().nlink(), 1);
}

/// Without /proc (a bare chroot, or here a mount namespace that unmounted
/// it) dbio cannot reopen its file through /proc/self/fd: a job that needs
/// no other flags uses a duplicate of the descriptor it already holds, and
/// one that needs O_DSYNC is refused in one sentence, leaving nothing.
#[test]
fn safety_files_without_proc_a_duplicate_serves_or_the_job_is_refused() {
    if !is_root() {
        return skip_this_test("unsharing a mount namespace needs root");
    }
    let d = scratch();
    let run = |extra: &str| {
        let script = format!(
            "umount -l /proc && exec {} bench --rw write --size 1m --ops 8 --quiet {extra} {}",
            dbio_path().display(),
            d.path().display()
        );
        let child = Command::new("unshare")
            .args(["-m", "sh", "-c", &script])
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("unshare");
        wait_output_within(child, crate::util::CHILD_DEADLINE)
    };
    let plain = run("");
    if String::from_utf8_lossy(&plain.stderr).contains("umount") {
        return skip_this_test("/proc cannot be unmounted here");
    }
    assert!(
        plain.status.success(),
        "{}",
        String::from_utf8_lossy(&plain.stderr)
    );
    let dsync = run("--sync dsync");
    assert_eq!(dsync.status.code(), Some(2));
    let err = String::from_utf8_lossy(&dsync.stderr);
    assert!(
        err.contains("through /proc/self/fd") && err.lines().count() == 1,
        "{err}"
    );
    assert!(dbio_files(d.path()).is_empty());
}

// See: issue 21 §9. A directory named through a symbolic link is followed
// only when root or the user running dbio owns the link (the kernel's
// protected_symlinks rule, everywhere), a magic link of /proc never; and
// every file dbio creates is rw-r--r-- at most, whatever the umask.

/// A directory owned by nobody inside `d`, and a link in it, planted by
/// nobody, to `target`; Err when setpriv cannot run.
fn nobodys_link_to(d: &Path, target: &Path) -> Result<PathBuf, String> {
    use std::os::unix::fs::PermissionsExt;
    // The scratch directory is rwx------: nobody needs to search it.
    fs::set_permissions(d, fs::Permissions::from_mode(0o755)).unwrap();
    let user = d.join("user");
    fs::create_dir(&user).unwrap();
    std::os::unix::fs::chown(&user, Some(65534), Some(65534)).unwrap();
    let link = user.join("data");
    let out = Command::new("setpriv")
        .args(["--reuid=65534", "--regid=65534", "--clear-groups", "--"])
        .arg("ln")
        .arg("-s")
        .arg(target)
        .arg(&link)
        .output()
        .map_err(|e| format!("setpriv: {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "ln -s as nobody failed: {}",
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    assert_eq!(fs::symlink_metadata(&link).unwrap().uid(), 65534);
    Ok(link)
}

fn entries(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = fs::read_dir(dir)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

/// bench's and lgwr's target directory reached through a link nobody
/// planted: refused with one sentence naming the link and its owner,
/// nothing created where it points; the same link owned by root is
/// followed.
#[test]
fn safety_files_a_target_directory_through_another_users_link_is_refused() {
    if !is_root() {
        return skip_this_test("needs root to plant as another user");
    }
    let d = scratch();
    let elsewhere = d.path().join("elsewhere");
    fs::create_dir(&elsewhere).unwrap();
    let link = or_skip!(nobodys_link_to(d.path(), &elsewhere));
    let bench = [
        "bench", "--rw", "write", "--size", "1m", "--bs", "4k", "--ops", "16", "--quiet", "--keep",
    ];
    let lgwr = [
        "lgwr",
        "--sessions",
        "1",
        "--commits",
        "20",
        "--file-size",
        "128k",
        "--max-write",
        "64k",
        "--files",
        "2",
        "--quiet",
        "--keep",
    ];
    for args in [&bench[..], &lgwr[..]] {
        let out = dbio().args(args).arg(&link).output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(
            err.contains(&format!(
                "{} is a symbolic link owned by uid 65534, neither root nor the user running dbio",
                link.display()
            )),
            "{args:?}: {err}"
        );
        assert!(entries(&elsewhere).is_empty(), "{args:?}: files made");
    }
    // The same link owned by root: followed, the kept files are there.
    std::os::unix::fs::lchown(&link, Some(0), Some(0)).unwrap();
    for args in [&bench[..], &lgwr[..]] {
        let out = dbio().args(args).arg(&link).output().unwrap();
        assert!(
            out.status.success(),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    assert!(entries(&elsewhere).len() >= 3, "{:?}", entries(&elsewhere));
}

/// A magic link of /proc as the target directory is refused, whoever owns
/// it (it leads to whatever a process has open, not to a name).
#[test]
fn safety_files_a_magic_link_as_the_directory_is_refused() {
    let cwd = scratch();
    let d = scratch();
    let own_link = d.path().join("cwd");
    std::os::unix::fs::symlink("/proc/self/cwd", &own_link).unwrap();
    for target in [Path::new("/proc/self/cwd"), &own_link, &own_link.join(".")] {
        let out = dbio()
            .current_dir(cwd.path())
            .args([
                "bench", "--rw", "write", "--size", "1m", "--bs", "4k", "--ops", "16", "--quiet",
            ])
            .arg(target)
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{}: {err}", target.display());
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(
            err.contains("is a magic link of /proc") && err.contains("dbio never follows one"),
            "{}: {err}",
            target.display()
        );
        assert!(entries(cwd.path()).is_empty(), "{:?}", entries(cwd.path()));
    }
}

/// Under umask 000, the results, a kept scratch file and kept log files
/// have no group or world write bit (rw-r--r-- at most).
#[test]
fn safety_files_umask_000_makes_no_world_writable_file() {
    use std::os::unix::process::CommandExt;
    let d = scratch();
    let out_dir = scratch();
    let runs: Vec<Vec<std::ffi::OsString>> = vec![
        vec![
            "bench".into(),
            "--rw".into(),
            "write".into(),
            "--size".into(),
            "1m".into(),
            "--bs".into(),
            "4k".into(),
            "--ops".into(),
            "16".into(),
            "--keep".into(),
            "--json".into(),
            out_dir.path().join("bench.json").into(),
            d.path().into(),
        ],
        vec![
            "lgwr".into(),
            "--sessions".into(),
            "1".into(),
            "--commits".into(),
            "20".into(),
            "--file-size".into(),
            "128k".into(),
            "--max-write".into(),
            "64k".into(),
            "--files".into(),
            "2".into(),
            "--keep".into(),
            "--csv".into(),
            out_dir.path().join("lgwr.csv").into(),
            d.path().into(),
        ],
    ];
    for args in runs {
        let mut cmd = Command::new(dbio_path());
        cmd.args(&args)
            .arg("--quiet")
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        // SAFETY: umask is async-signal-safe and touches only the child.
        unsafe {
            cmd.pre_exec(|| {
                libc::umask(0);
                Ok(())
            });
        }
        let out = wait_output_within(cmd.spawn().unwrap(), Duration::from_secs(60));
        assert!(
            out.status.success(),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let mut seen = 0;
    for dir in [d.path(), out_dir.path()] {
        for e in fs::read_dir(dir).unwrap().flatten() {
            let mode = e.metadata().unwrap().mode() & 0o7777;
            assert_eq!(
                mode & !0o644,
                0,
                "{} is {mode:o} under umask 000",
                e.path().display()
            );
            seen += 1;
        }
    }
    assert!(seen >= 5, "kept files and results: {seen}");
}

/// An existing file is opened by the same directory rules: reached
/// through a directory link another user owns, it is refused before
/// anything is read or written, and a file behind a magic link of /proc
/// is refused even with `--overwrite`. See: issue 21 §9.
#[test]
fn safety_files_an_existing_file_through_another_users_link_or_a_magic_link_is_refused() {
    if !is_root() {
        return skip_this_test("needs root to plant as another user");
    }
    let d = scratch();
    let elsewhere = d.path().join("elsewhere");
    fs::create_dir(&elsewhere).unwrap();
    let data = elsewhere.join("data");
    let bench = [
        "bench", "--rw", "write", "--size", "1m", "--bs", "4k", "--ops", "16", "--quiet",
    ];
    // dbio's own file, made by an earlier run.
    dbio().args(bench).arg(&data).assert().success();
    let before = fs::read(&data).unwrap();
    let link = or_skip!(nobodys_link_to(d.path(), &elsewhere));
    let out = dbio().args(bench).arg(link.join("data")).output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.contains(
            "is a symbolic link owned by uid 65534, neither root nor the user running dbio"
        ),
        "{err}"
    );
    assert_eq!(fs::read(&data).unwrap(), before, "the file was written");
    // A magic link: /proc/self/root leads to / whoever plants it.
    let magic = Path::new("/proc/self/root").join(data.strip_prefix("/").unwrap());
    let out = dbio()
        .args(bench)
        .arg("--overwrite")
        .arg(&magic)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("magic link"), "{err}");
    assert_eq!(fs::read(&data).unwrap(), before, "the file was written");
}
