//! Issue 21 item 6: a run makes all its scratch files in the one directory
//! it opened, however the directory's name is swapped meanwhile.
//!
//! The attacker owns the parent directory (uid 65534) that holds the
//! user's directory `target` and a root-owned `victim` directory, and
//! swaps the two names with `renameat2(RENAME_EXCHANGE)` in a tight loop
//! from a child that dropped to uid 65534, while root runs `dbio lgwr` or
//! `dbio check` on `parent/target`. inotify watches on both directories
//! (watches follow the inode, not the name) record every file created in
//! each; after each run the files dbio made must all have been created in
//! one of them, and both must be empty again. Whether a swap falls between
//! two lookups is up to the scheduler, so the outcome never depends on a
//! timing: with the fix no interleaving splits a run, and without it the
//! tries below split runs every time this was tried.

use crate::util::{dbio, is_root, scratch, skip_this_test};
use std::ffi::CString;
use std::os::fd::{AsFd, OwnedFd};
use std::os::unix::ffi::OsStrExt;
use std::path::Path;

/// Runs of `dbio lgwr` (4 files each) under the swapping.
const LGWR_TRIES: usize = 200;
/// Runs of `dbio check` (every section, about 2 s each) under the swapping.
const CHECK_TRIES: usize = 15;

/// A child that swaps `a` and `b` until it is killed, as uid/gid 65534.
struct Swapper(libc::pid_t);

impl Swapper {
    fn start(a: &Path, b: &Path) -> Swapper {
        let ca = CString::new(a.as_os_str().as_bytes()).unwrap();
        let cb = CString::new(b.as_os_str().as_bytes()).unwrap();
        // SAFETY: the child calls only async-signal-safe system calls
        // (setgroups, setresgid, setresuid, renameat2, _exit) on memory
        // made before the fork.
        unsafe {
            let pid = libc::fork();
            assert!(pid >= 0, "fork: {}", std::io::Error::last_os_error());
            if pid == 0 {
                if libc::setgroups(0, std::ptr::null()) != 0
                    || libc::setresgid(65534, 65534, 65534) != 0
                    || libc::setresuid(65534, 65534, 65534) != 0
                {
                    libc::_exit(1);
                }
                loop {
                    libc::renameat2(
                        libc::AT_FDCWD,
                        ca.as_ptr(),
                        libc::AT_FDCWD,
                        cb.as_ptr(),
                        libc::RENAME_EXCHANGE,
                    );
                }
            }
            Swapper(pid)
        }
    }
}

impl Drop for Swapper {
    fn drop(&mut self) {
        // SAFETY: our own child; reaped once.
        unsafe {
            libc::kill(self.0, libc::SIGKILL);
            libc::waitpid(self.0, std::ptr::null_mut(), 0);
        }
    }
}

/// Names created in each watched directory since the last call.
struct Watch {
    fd: OwnedFd,
    wds: [i32; 2],
}

impl Watch {
    fn new(dirs: [&Path; 2]) -> Watch {
        use rustix::fs::inotify;
        let fd =
            inotify::init(inotify::CreateFlags::NONBLOCK | inotify::CreateFlags::CLOEXEC).unwrap();
        let wds = dirs.map(|d| inotify::add_watch(&fd, d, inotify::WatchFlags::CREATE).unwrap());
        Watch { fd, wds }
    }

    fn drain(&self) -> [Vec<String>; 2] {
        let mut buf = [std::mem::MaybeUninit::uninit(); 8192];
        let mut r = rustix::fs::inotify::Reader::new(self.fd.as_fd(), &mut buf);
        let mut made = [Vec::new(), Vec::new()];
        loop {
            match r.next() {
                Ok(ev) => {
                    let name = ev
                        .file_name()
                        .map(|n| n.to_string_lossy().into_owned())
                        .unwrap_or_default();
                    if let Some(i) = self.wds.iter().position(|&w| w == ev.wd()) {
                        made[i].push(name);
                    }
                }
                Err(rustix::io::Errno::AGAIN) => return made,
                Err(e) => panic!("reading inotify: {e}"),
            }
        }
    }
}

/// The parent (owned by 65534) with `target` and `victim` in it, both
/// root's.
fn arena() -> Result<tempfile::TempDir, String> {
    if !is_root() {
        return Err("playing uid 65534 needs root".into());
    }
    let d = scratch();
    for sub in ["target", "victim"] {
        std::fs::create_dir(d.path().join(sub)).unwrap();
    }
    rustix::fs::chown(
        d.path(),
        Some(rustix::process::Uid::from_raw(65534)),
        Some(rustix::process::Gid::from_raw(65534)),
    )
    .map_err(|e| format!("chown: {e}"))?;
    // The scratch root may be private to root: 65534 must reach the parent.
    let mut p = d.path().parent();
    while let Some(dir) = p {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(dir).unwrap().permissions().mode();
        if mode & 0o001 == 0 {
            return Err(format!("{} is not searchable by uid 65534", dir.display()));
        }
        p = dir.parent();
    }
    Ok(d)
}

/// Runs `args` + `parent/target` `tries` times under the swapping; every
/// run's files (names for which `counts` says true) are created in one
/// directory, and neither holds anything afterwards. Returns how many runs
/// made files in each directory. `excused`: a partial result (status 1)
/// that is not this test's business, told by its output.
fn race(
    args: &[&str],
    tries: usize,
    counts: impl Fn(&str) -> bool,
    excused: impl Fn(&str) -> bool,
) -> Option<[usize; 2]> {
    let d = match arena() {
        Ok(d) => d,
        Err(why) => {
            skip_this_test(&why);
            return None;
        }
    };
    let (target, victim) = (d.path().join("target"), d.path().join("victim"));
    let watch = Watch::new([&target, &victim]);
    let swapper = Swapper::start(&target, &victim);
    let mut used = [0usize; 2];
    for i in 0..tries {
        let out = dbio().args(args).arg(&target).output().unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(
            out.status.code() == Some(0) || (out.status.code() == Some(1) && excused(&stdout)),
            "try {i}: {}{}",
            String::from_utf8_lossy(&out.stderr),
            String::from_utf8_lossy(&out.stdout)
        );
        let made = watch
            .drain()
            .map(|v| v.into_iter().filter(|n| counts(n)).collect::<Vec<_>>());
        assert!(
            made[0].is_empty() || made[1].is_empty(),
            "try {i} of {tries}: one run split its files between the two directories: {made:?}"
        );
        for (n, m) in used.iter_mut().zip(&made) {
            *n += usize::from(!m.is_empty());
        }
        for dir in [&target, &victim] {
            let left: Vec<_> = std::fs::read_dir(dir)
                .unwrap()
                .flatten()
                .map(|e| e.file_name())
                .collect();
            assert!(
                left.is_empty(),
                "try {i}: left in {}: {left:?}",
                dir.display()
            );
        }
    }
    drop(swapper);
    assert!(used[0] + used[1] > 0, "no run made a file");
    Some(used)
}

fn dbio_scratch(name: &str) -> bool {
    name.starts_with("dbio-") || name.starts_with(".dbio-")
}

#[test]
fn lgwr_makes_every_log_file_in_the_directory_it_opened_under_a_rename_swap() {
    let args = [
        "lgwr",
        "--method",
        "buffered-fdatasync",
        "--files",
        "4",
        "--file-size",
        "64k",
        "--max-write",
        "16k",
        "--redo-size",
        "1000",
        "--sessions",
        "1",
        "--commits",
        "5",
        "--quiet",
    ];
    if let Some(used) = race(&args, LGWR_TRIES, dbio_scratch, |_| false) {
        eprintln!(
            "{LGWR_TRIES} runs: files made in target {} times, in victim {} times",
            used[0], used[1]
        );
    }
}

#[test]
fn check_makes_every_scratch_file_in_the_directory_it_opened_under_a_rename_swap() {
    let args = ["check", "--size", "16m", "--runtime", "100ms", "--quiet"];
    // The database section's SQLite files count too: their private
    // directory (`dbio-load-*`) is made in check's one directory
    // descriptor and SQLite reaches it through /proc/self/fd.
    if let Some(used) = race(&args, CHECK_TRIES, dbio_scratch, |_| false) {
        eprintln!(
            "{CHECK_TRIES} runs: files made in target {} times, in victim {} times",
            used[0], used[1]
        );
    }
}
