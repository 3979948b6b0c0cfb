//! SQLite's side files under dbio's descriptor discipline (issue 21 §3 and
//! the SQLite part of §8): `dbio load` keeps the database, its `-wal`,
//! `-shm` and `-journal` in a private directory it creates and holds, so an
//! unprivileged user who owns the target directory can neither plant a
//! side file nor redirect one with a rename or a symbolic link, and a
//! later run removes (or names) what a killed run left.
//!
//! The attacker is uid 65534: a child forked from the test that drops its
//! groups and ids first and then only makes raw system calls (no
//! allocation after fork), woken by inotify when dbio creates something.

use crate::util::{dbio, dbio_path, is_root, json, scratch, skip_this_test};
use std::ffi::CString;
use std::fs;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

const NOBODY: u32 = 65534;

fn cpath(p: &Path) -> CString {
    CString::new(p.as_os_str().as_bytes()).unwrap()
}

/// A directory owned by the attacker, mode 0755.
fn attacker_dir(p: &Path) -> PathBuf {
    fs::create_dir_all(p).unwrap();
    std::os::unix::fs::chown(p, Some(NOBODY), Some(NOBODY)).unwrap();
    fs::set_permissions(p, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    p.to_path_buf()
}

fn open_dir(p: &Path) -> OwnedFd {
    // SAFETY: valid C string; the fd is owned below.
    let fd = unsafe {
        libc::open(
            cpath(p).as_ptr(),
            libc::O_RDONLY | libc::O_DIRECTORY | libc::O_CLOEXEC,
        )
    };
    assert!(
        fd >= 0,
        "open {}: {}",
        p.display(),
        std::io::Error::last_os_error()
    );
    // SAFETY: a fresh descriptor.
    unsafe { OwnedFd::from_raw_fd(fd) }
}

/// What the attacker does when dbio creates an entry named `dbio-load-*`
/// in the watched directory.
#[derive(Clone, Copy, PartialEq)]
enum Attack {
    /// Plants `<name>-wal`, `-shm`, `-journal` beside it (and tries inside
    /// it when it is a directory).
    Plant,
    /// Swaps the target directory with a symbolic link to the victim
    /// (`renameat2(RENAME_EXCHANGE)`), again and again until killed.
    Exchange,
    /// Renames the new entry away and puts a symbolic link to the victim
    /// in its place, once.
    RenameAndLink,
}

/// The forked attacker, killed and reaped on drop.
struct Attacker(libc::pid_t);

/// Names planted before dbio starts: the files of dbio's private directory
/// and of the old scheme's predictable names, had they been in the target
/// directory itself.
const PREPLANTED: [&[u8]; 5] = [
    b"dbio-load.sqlite\0",
    b"dbio-load.sqlite-wal\0",
    b"dbio-load.sqlite-shm\0",
    b"dbio-load.sqlite-journal\0",
    b"dbio.lock\0",
];

impl Attacker {
    /// Starts the attacker on `dir` (dbio's target directory). `a` and `b`
    /// are the paths `Exchange` swaps; `victim` is where the links lead.
    fn start(dir: &Path, attack: Attack, a: &Path, b: &Path, victim: &Path) -> Attacker {
        let (a, b, victim) = (cpath(a), cpath(b), cpath(victim));
        let dirfd = open_dir(dir);
        // SAFETY: plain syscalls; the fds are owned below.
        let ino = unsafe { libc::inotify_init1(libc::IN_CLOEXEC) };
        assert!(
            ino >= 0,
            "inotify_init1: {}",
            std::io::Error::last_os_error()
        );
        // SAFETY: as above.
        let ino = unsafe { OwnedFd::from_raw_fd(ino) };
        // SAFETY: valid fd and C string.
        let wd = unsafe {
            libc::inotify_add_watch(ino.as_raw_fd(), cpath(dir).as_ptr(), libc::IN_CREATE)
        };
        assert!(
            wd >= 0,
            "inotify_add_watch: {}",
            std::io::Error::last_os_error()
        );
        let mut ready = [0 as libc::c_int; 2];
        // SAFETY: a two-int array.
        assert_eq!(
            unsafe { libc::pipe2(ready.as_mut_ptr(), libc::O_CLOEXEC) },
            0
        );
        // SAFETY: the child makes raw system calls only and ends in _exit.
        let pid = unsafe { libc::fork() };
        assert!(pid >= 0, "fork: {}", std::io::Error::last_os_error());
        if pid == 0 {
            // SAFETY: see above; every pointer is valid in the child's copy.
            unsafe {
                attacker(
                    ino.as_raw_fd(),
                    dirfd.as_raw_fd(),
                    ready[1],
                    attack,
                    a.as_ptr(),
                    b.as_ptr(),
                    victim.as_ptr(),
                )
            }
        }
        // SAFETY: closing our copy of the write end, reading one byte.
        let got = unsafe {
            libc::close(ready[1]);
            let mut byte = 0u8;
            let n = libc::read(ready[0], (&mut byte as *mut u8).cast(), 1);
            libc::close(ready[0]);
            n
        };
        let attacker = Attacker(pid);
        assert_eq!(
            got, 1,
            "the attacker did not get ready (could not drop to uid 65534?)"
        );
        attacker
    }
}

impl Drop for Attacker {
    fn drop(&mut self) {
        // SAFETY: our child's pid.
        unsafe {
            libc::kill(self.0, libc::SIGKILL);
            libc::waitpid(self.0, std::ptr::null_mut(), 0);
        }
    }
}

/// Copies `parts` into `buf` as one C string.
fn join(buf: &mut [u8; 512], parts: &[&[u8]]) -> *const libc::c_char {
    let mut n = 0;
    for p in parts {
        let p = p.strip_suffix(b"\0").unwrap_or(p);
        buf[n..n + p.len()].copy_from_slice(p);
        n += p.len();
    }
    buf[n] = 0;
    buf.as_ptr().cast()
}

/// The attacker's body, in the forked child: raw system calls only.
///
/// # Safety
/// Called in a freshly forked child with valid descriptors and C strings.
unsafe fn attacker(
    ino: libc::c_int,
    dirfd: libc::c_int,
    ready: libc::c_int,
    attack: Attack,
    a: *const libc::c_char,
    b: *const libc::c_char,
    victim: *const libc::c_char,
) -> ! {
    if libc::setgroups(0, std::ptr::null()) != 0
        || libc::setresgid(NOBODY, NOBODY, NOBODY) != 0
        || libc::setresuid(NOBODY, NOBODY, NOBODY) != 0
    {
        libc::_exit(3);
    }
    let mut path = [0u8; 512];
    let plant = |path: &mut [u8; 512], parts: &[&[u8]]| {
        let p = join(path, parts);
        let fd = libc::openat(
            dirfd,
            p,
            libc::O_WRONLY | libc::O_CREAT | libc::O_EXCL | libc::O_NOFOLLOW | libc::O_CLOEXEC,
            0o644,
        );
        if fd >= 0 {
            libc::write(fd, b"planted".as_ptr().cast(), 7);
            libc::close(fd);
        }
    };
    if attack == Attack::Plant {
        for name in PREPLANTED {
            plant(&mut path, &[name]);
        }
    }
    libc::write(ready, b"r".as_ptr().cast(), 1);
    libc::close(ready);
    let mut events = [0u32; 1024];
    let mut done = false;
    loop {
        let n = libc::read(ino, events.as_mut_ptr().cast(), 4096);
        if n <= 0 {
            continue;
        }
        let bytes = std::slice::from_raw_parts(events.as_ptr() as *const u8, n as usize);
        let mut off = 0;
        while off + 16 <= bytes.len() {
            let ev = &*(bytes.as_ptr().add(off) as *const libc::inotify_event);
            let raw = &bytes[off + 16..off + 16 + ev.len as usize];
            off += 16 + ev.len as usize;
            let len = raw.iter().position(|&c| c == 0).unwrap_or(raw.len());
            let name = &raw[..len];
            // dbio's new entry, not one of the attacker's own plants.
            let planted = [&b"-wal"[..], b"-shm", b"-journal", b".moved"]
                .iter()
                .any(|s| name.ends_with(s));
            if !name.starts_with(b"dbio-load-") || planted || done {
                continue;
            }
            match attack {
                Attack::Plant => {
                    for s in [&b"-wal"[..], b"-shm", b"-journal"] {
                        plant(&mut path, &[name, s]);
                    }
                    if ev.mask & libc::IN_ISDIR != 0 {
                        // Inside dbio's directory: refused by its mode.
                        plant(&mut path, &[name, b"/dbio-load.sqlite-wal"]);
                    }
                }
                Attack::Exchange => loop {
                    libc::renameat2(libc::AT_FDCWD, a, libc::AT_FDCWD, b, libc::RENAME_EXCHANGE);
                },
                Attack::RenameAndLink => {
                    let mut to = [0u8; 512];
                    libc::renameat(
                        dirfd,
                        join(&mut path, &[name]),
                        dirfd,
                        join(&mut to, &[name, b".moved"]),
                    );
                    libc::symlinkat(victim, dirfd, join(&mut path, &[name]));
                    done = true;
                }
            }
        }
    }
}

/// Entries of `dir` with their owner.
fn entries(dir: &Path) -> Vec<(String, u32)> {
    let mut v: Vec<_> = fs::read_dir(dir)
        .unwrap()
        .flatten()
        .map(|e| {
            let m = fs::symlink_metadata(e.path()).unwrap();
            (e.file_name().to_string_lossy().into_owned(), m.uid())
        })
        .collect();
    v.sort();
    v
}

fn short_load(dir: &Path) -> Command {
    let mut c = Command::new(dbio_path());
    c.args([
        "load",
        "--sessions",
        "2",
        "--commits",
        "20",
        "--no-baseline",
        "--quiet",
    ])
    .arg("--dir")
    .arg(dir)
    .stdout(Stdio::piped())
    .stderr(Stdio::piped());
    c
}

fn run(c: &mut Command) -> std::process::Output {
    crate::util::wait_output_within(c.spawn().unwrap(), Duration::from_secs(60))
}

/// See: issue 21 §3 (a file planted under the WAL's name became root's
/// with WAL frames in it, 5 of 5 runs; other planted files were unlinked).
#[test]
fn safety_sqlite_planted_side_files_stay_the_users_and_unchanged() {
    if !is_root() {
        return skip_this_test("needs root to plant as another user");
    }
    let d = scratch();
    let t = attacker_dir(&d.path().join("t"));
    let victim = d.path().join("unused");
    const RUNS: usize = 5;
    for i in 0..RUNS {
        let keep = i == RUNS - 1;
        let attacker = Attacker::start(&t, Attack::Plant, &t, &t, &victim);
        let mut cmd = short_load(&t);
        if keep {
            cmd.arg("--keep");
        }
        let out = run(&mut cmd);
        drop(attacker);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(0), "run {i}: {err}");
        let mut reacted = 0;
        let mut kept = Vec::new();
        for (name, uid) in entries(&t) {
            let p = t.join(&name);
            if uid != NOBODY {
                kept.push(p);
                continue;
            }
            // Every planted file is the attacker's, as planted.
            let m = fs::symlink_metadata(&p).unwrap();
            assert!(m.is_file() && m.nlink() == 1, "{name}");
            assert_eq!(
                fs::read(&p).unwrap(),
                b"planted",
                "run {i}: {name} was written"
            );
            reacted += usize::from(name.ends_with("-wal"));
        }
        // The pre-planted names survive every run, and each run the
        // attacker answered dbio's new entry with a planted -wal.
        for name in PREPLANTED {
            let name = std::str::from_utf8(&name[..name.len() - 1]).unwrap();
            assert!(t.join(name).is_file(), "run {i}: {name} was removed");
        }
        assert!(
            reacted > i + 1,
            "run {i}: the -wal files the attacker planted in answer to dbio's are gone (or it never answered)"
        );
        if !keep {
            assert!(kept.is_empty(), "run {i}: dbio left {kept:?}");
            continue;
        }
        // --keep: one private directory, dbio's, that nobody else can
        // write, and only dbio's files in it.
        assert_eq!(kept.len(), 1, "{kept:?}");
        let m = fs::symlink_metadata(&kept[0]).unwrap();
        assert!(m.is_dir(), "{}", kept[0].display());
        assert_eq!((m.uid(), m.mode() & 0o7777), (0, 0o755));
        assert!(err.is_empty(), "{err}");
        let inside = entries(&kept[0]);
        assert_eq!(inside, [("dbio-load.sqlite".to_string(), 0)]);
        fs::remove_dir_all(&kept[0]).unwrap();
    }
}

/// See: issue 21 §3 (with the directory swapped for a symbolic link
/// mid-run, the WAL was created in a root-owned victim directory and left
/// there: 1 of 50 runs). 60 runs: even ones swap the target directory with
/// a link to the victim (RENAME_EXCHANGE, again and again from dbio's
/// first entry on), odd ones rename dbio's new entry away and put a link to
/// the victim in its place.
#[test]
fn safety_sqlite_a_swapped_directory_never_receives_a_file() {
    if !is_root() {
        return skip_this_test("needs root to race as another user");
    }
    let d = scratch();
    let victim = d.path().join("victim");
    fs::create_dir(&victim).unwrap();
    let p = attacker_dir(&d.path().join("p"));
    let t = attacker_dir(&p.join("t"));
    let link = p.join("l");
    std::os::unix::fs::symlink(&victim, &link).unwrap();
    const RUNS: usize = 60;
    let (mut clean, mut refused) = (0, 0);
    for i in 0..RUNS {
        let attack = if i % 2 == 0 {
            Attack::Exchange
        } else {
            Attack::RenameAndLink
        };
        let attacker = Attacker::start(&t, attack, &t, &link, &victim);
        let out = run(&mut short_load(&t));
        drop(attacker);
        // Put the target directory back where the next run looks.
        if fs::symlink_metadata(&t).unwrap().file_type().is_symlink() {
            let rc = unsafe {
                // SAFETY: valid C strings.
                libc::renameat2(
                    libc::AT_FDCWD,
                    cpath(&t).as_ptr(),
                    libc::AT_FDCWD,
                    cpath(&link).as_ptr(),
                    libc::RENAME_EXCHANGE,
                )
            };
            assert_eq!(rc, 0);
        }
        let err = String::from_utf8_lossy(&out.stderr).into_owned();
        assert!(
            fs::read_dir(&victim).unwrap().next().is_none(),
            "run {i}: the victim directory received {:?} ({err})",
            entries(&victim)
        );
        let left: Vec<_> = entries(&t)
            .into_iter()
            .filter(|(_, uid)| *uid != NOBODY)
            .collect();
        match out.status.code() {
            Some(0) => {
                assert!(left.is_empty(), "run {i}: dbio left {left:?} ({err})");
                clean += 1;
            }
            Some(2) => {
                // Renamed between mkdirat and dbio's open: one sentence,
                // and at most the empty directory it names.
                assert_eq!(err.lines().count(), 1, "{err}");
                assert!(err.starts_with("dbio: error: "), "{err}");
                for (name, _) in &left {
                    let orig = name.strip_suffix(".moved").unwrap_or(name);
                    assert!(err.contains(orig), "run {i}: {name} not named: {err}");
                    let empty_dir =
                        fs::read_dir(t.join(name)).is_ok_and(|mut d| d.next().is_none());
                    assert!(empty_dir, "run {i}: dbio left {name} ({err})");
                }
                refused += 1;
            }
            other => panic!("run {i}: dbio ended with {other:?}: {err}"),
        }
        for (name, _) in entries(&t) {
            let e = t.join(name);
            if fs::symlink_metadata(&e).unwrap().is_dir() {
                fs::remove_dir(&e).unwrap();
            } else {
                fs::remove_file(&e).unwrap();
            }
        }
    }
    eprintln!("{RUNS} runs: {clean} completed, {refused} refused in one sentence");
    assert!(
        clean > 0,
        "dbio never completed a run: the test proves nothing"
    );
}

/// See: issue 21 §8 (SIGKILL of `dbio load` left dbio-load-PID-0.sqlite,
/// -wal and -shm that no later run removed or named).
#[test]
fn safety_sqlite_a_killed_runs_files_are_removed_by_the_next_run() {
    let d = scratch();
    let dir = d.path();
    let mut child = Command::new(dbio_path())
        .args([
            "load",
            "--sessions",
            "2",
            "--runtime",
            "60",
            "--no-baseline",
            "--quiet",
        ])
        .arg("--dir")
        .arg(dir)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    // Killed once a WAL exists, wherever dbio keeps it (the run is
    // committing).
    let deadline = std::time::Instant::now() + Duration::from_secs(60);
    let is_wal = |p: &Path| p.to_string_lossy().ends_with("-wal");
    loop {
        let top: Vec<PathBuf> = fs::read_dir(dir)
            .unwrap()
            .flatten()
            .map(|e| e.path())
            .collect();
        let below = top.iter().filter(|p| p.is_dir()).flat_map(|p| {
            fs::read_dir(p)
                .into_iter()
                .flatten()
                .flatten()
                .map(|e| e.path())
        });
        if top.iter().cloned().chain(below).any(|p| is_wal(&p)) {
            break;
        }
        assert!(std::time::Instant::now() < deadline, "no WAL within 60 s");
        std::thread::sleep(Duration::from_millis(5));
    }
    child.kill().unwrap();
    child.wait().unwrap();
    let left = entries(dir);
    assert!(!left.is_empty(), "SIGKILL left nothing to clean");
    // A leftover of dbio before issue 21, of a process that is gone.
    let mut gone = Command::new("true").spawn().unwrap();
    let dead = gone.id();
    gone.wait().unwrap();
    let old = dir.join(format!("dbio-load-{dead}-0.sqlite-wal"));
    fs::write(&old, b"old").unwrap();
    let out = dbio()
        .args([
            "load",
            "--sessions",
            "1",
            "--commits",
            "5",
            "--no-baseline",
            "--json",
            "-",
        ])
        .arg("--dir")
        .arg(dir)
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v = json(&out.stdout);
    let warnings = v["findings"].to_string();
    // Everything the killed run left is gone, and named as removed.
    for (name, _) in &left {
        assert!(
            !dir.join(name).exists(),
            "{name} is still there ({warnings})"
        );
        assert!(
            warnings.contains(name.as_str()),
            "{name} not named: {warnings}"
        );
    }
    assert!(
        warnings.contains("removed 1 private directory"),
        "{warnings}"
    );
    // The old name is named, not removed: another user could have made it.
    assert_eq!(fs::read(&old).unwrap(), b"old");
    assert!(
        warnings.contains(&format!("dbio-load-{dead}-0.sqlite-wal")),
        "{warnings}"
    );
    assert_eq!(
        entries(dir),
        [(format!("dbio-load-{dead}-0.sqlite-wal"), rustix_euid())]
    );
}

fn rustix_euid() -> u32 {
    // SAFETY: geteuid has no preconditions.
    unsafe { libc::geteuid() }
}
