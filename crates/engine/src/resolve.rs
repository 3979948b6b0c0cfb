//! Opening a directory the user named, one path component at a time, with
//! the symbolic-link rules dbio holds to as root.
//!
//! dbio runs as root in directories other users own. A directory reached
//! through a symbolic link someone else planted sends root's scratch files,
//! kept files and results wherever that user chose, and a magic link of
//! /proc (`/proc/PID/cwd`, `/proc/PID/root`, `/proc/PID/fd/N`) turns what
//! another process can reach into what root writes. So every user-named
//! directory (a target directory, the directory of a new target file, the
//! directory of an output file) is opened here, and only here:
//!
//! - The path is walked one component at a time from `/` or the working
//!   directory. Each step is `openat2(dir, name, O_PATH | O_NOFOLLOW,
//!   RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS)` (openat2(2)), which
//!   hands back the component itself, a symbolic link included, never
//!   what it leads to; the walk then decides on that descriptor.
//! - A symbolic link is followed only when its owner (fstat of the link's
//!   own descriptor) is root or the real user id of this process, as the
//!   kernel's `fs.protected_symlinks` does for sticky world-writable
//!   directories, but everywhere: a link is trusted only as far as its
//!   owner. Its target is read from the same descriptor (`readlinkat(fd,
//!   "")`), so what was judged is what is followed, and the target's own
//!   components are walked by the same rules.
//! - A magic link is never followed: a link on procfs that
//!   `openat2(RESOLVE_NO_MAGICLINKS)` refuses with ELOOP is one. (Ordinary
//!   procfs links such as `/proc/self` are followed; magic links exist
//!   only on procfs, and nobody can plant or rename one there, so the probe
//!   and the walk see the same link.)
//! - At most [`MAX_LINKS`] links are followed (the kernel's MAXSYMLINKS,
//!   40); then the lookup fails with ELOOP as the kernel's would.
//!
//! The walk ends on an `O_PATH` descriptor of the directory, reopened
//! through `"."` as an ordinary read-only descriptor that callers create
//! files under, fsync and fstatvfs. Why a walk rather than one `openat2`
//! with `RESOLVE_NO_MAGICLINKS`: the kernel has no flag for "follow a link
//! only from these owners", and following ordinary links is what users
//! expect (`/var/lib/pgsql -> /data/pgsql`).

use rustix::fs::{FileType, Mode, OFlags, ResolveFlags, CWD};
use rustix::io::Errno;
use std::ffi::OsStr;
use std::os::fd::{AsFd, OwnedFd};
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

/// Symbolic links followed in one lookup before it fails with ELOOP (the
/// kernel's `MAXSYMLINKS`, include/linux/namei.h).
pub const MAX_LINKS: usize = 40;

/// Why a directory could not be opened.
#[derive(Debug)]
pub enum DirError {
    /// A lookup failed as the kernel's would (ENOENT, ENOTDIR, EACCES,
    /// ELOOP after [`MAX_LINKS`] links).
    Os(Errno),
    /// A symbolic link dbio does not follow: one sentence naming it.
    Refused(String),
}

/// Opens the directory `path` by the rules of this module: a read-only
/// descriptor on the directory, every symbolic link on the way judged
/// before it was followed.
pub fn open_dir(path: &Path) -> Result<OwnedFd, DirError> {
    let walked = walk(path)?;
    rustix::fs::openat(
        &walked,
        ".",
        OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC,
        Mode::empty(),
    )
    .map_err(DirError::Os)
}

/// The directory in which `path` names an entry (its parent, or `.` for a
/// bare name) and the entry's name; None for a path whose last component
/// names no entry (`/`, `..`, `a/.`).
pub fn split_entry(path: &Path) -> Option<(&Path, &OsStr)> {
    let name = path.file_name()?;
    // `a/b/.` ends in "." and file_name() says "b": only a plain last
    // component names an entry (a trailing slash aside).
    let bytes = path.as_os_str().as_bytes();
    let end = bytes.len() - bytes.iter().rev().take_while(|&&b| b == b'/').count();
    if !bytes[..end].ends_with(name.as_bytes()) {
        return None;
    }
    let parent = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    Some((parent, name))
}

/// One step: the component `name` of `dir` itself (a link is not followed).
fn step(dir: impl AsFd, name: &OsStr) -> Result<OwnedFd, Errno> {
    let flags = OFlags::PATH | OFlags::NOFOLLOW | OFlags::CLOEXEC;
    match rustix::fs::openat2(
        &dir,
        name,
        flags,
        Mode::empty(),
        ResolveFlags::NO_SYMLINKS | ResolveFlags::NO_MAGICLINKS,
    ) {
        // Before Linux 5.6 (or under a seccomp filter that hides it):
        // one component with O_NOFOLLOW follows no link either.
        Err(Errno::NOSYS) => rustix::fs::openat(&dir, name, flags, Mode::empty()),
        r => r,
    }
}

/// Whether the link `name` in `dir` is a magic link of /proc.
fn is_magic(dir: impl AsFd, name: &OsStr) -> bool {
    let on_proc = rustix::fs::fstatfs(&dir).is_ok_and(|s| s.f_type == rustix::fs::PROC_SUPER_MAGIC);
    if !on_proc {
        return false;
    }
    match rustix::fs::openat2(
        &dir,
        name,
        OFlags::PATH | OFlags::CLOEXEC,
        Mode::empty(),
        ResolveFlags::NO_MAGICLINKS,
    ) {
        Ok(_) => false,
        // Without openat2 a procfs link cannot be told apart: none is
        // followed.
        Err(Errno::LOOP | Errno::NOSYS) => true,
        // Whatever else stops the probe stops the walk too.
        Err(_) => false,
    }
}

/// Walks `path` to an `O_PATH` descriptor of the directory it names.
fn walk(path: &Path) -> Result<OwnedFd, DirError> {
    let os = |e| DirError::Os(e);
    let root = || step(CWD, OsStr::new("/")).map_err(os);
    let bytes = path.as_os_str().as_bytes();
    let (mut cur, mut shown) = if bytes.starts_with(b"/") {
        (root()?, PathBuf::from("/"))
    } else {
        (step(CWD, OsStr::new(".")).map_err(os)?, PathBuf::new())
    };
    // Components still to walk, the next one last.
    let mut rest: Vec<Vec<u8>> = components(bytes);
    let uid = rustix::process::getuid().as_raw();
    let mut links = 0;
    while let Some(name) = rest.pop() {
        let name = OsStr::from_bytes(&name);
        let fd = step(&cur, name).map_err(os)?;
        let st = rustix::fs::fstat(&fd).map_err(os)?;
        match FileType::from_raw_mode(st.st_mode) {
            FileType::Directory => {
                if name == ".." {
                    shown.pop();
                } else {
                    shown.push(name);
                }
                cur = fd;
            }
            FileType::Symlink => {
                let link = shown.join(name);
                links += 1;
                if links > MAX_LINKS {
                    return Err(DirError::Os(Errno::LOOP));
                }
                if is_magic(&cur, name) {
                    return Err(DirError::Refused(format!(
                        "{} is a magic link of /proc (it leads to whatever a process has open, not to a name); dbio never follows one: name the directory itself",
                        link.display()
                    )));
                }
                if st.st_uid != 0 && st.st_uid != uid {
                    return Err(DirError::Refused(format!(
                        "{} is a symbolic link owned by uid {}, neither root nor the user running dbio (uid {uid}); dbio follows a link only from them, as the kernel's protected_symlinks does: name the directory it points to",
                        link.display(),
                        st.st_uid
                    )));
                }
                let target = rustix::fs::readlinkat(&fd, "", Vec::new()).map_err(os)?;
                let target = target.as_bytes();
                if target.starts_with(b"/") {
                    cur = root()?;
                    shown = PathBuf::from("/");
                }
                rest.extend(components(target));
            }
            // A file, device or socket where a directory was expected.
            _ => return Err(DirError::Os(Errno::NOTDIR)),
        }
    }
    Ok(cur)
}

/// The components of `path` in reverse order (the next one last), without
/// empty ones and `.`.
fn components(path: &[u8]) -> Vec<Vec<u8>> {
    path.split(|&b| b == b'/')
        .filter(|c| !c.is_empty() && *c != b".")
        .rev()
        .map(<[u8]>::to_vec)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::symlink;

    fn same_dir(fd: &OwnedFd, p: &Path) -> bool {
        let a = rustix::fs::fstat(fd).unwrap();
        let b = rustix::fs::stat(p).unwrap();
        (a.st_dev, a.st_ino) == (b.st_dev, b.st_ino)
    }

    #[test]
    fn own_links_dot_dot_and_relative_targets_are_walked_as_the_kernel_would() {
        let d = tempfile::tempdir().unwrap();
        let real = d.path().join("a/b");
        std::fs::create_dir_all(&real).unwrap();
        symlink("a/b", d.path().join("rel")).unwrap();
        symlink(&real, d.path().join("abs")).unwrap();
        // `..` after a link is the link target's parent (physical, as the
        // kernel resolves it), not the link's directory.
        let fd = open_dir(&d.path().join("rel/..")).unwrap();
        assert!(same_dir(&fd, &d.path().join("a")));
        let fd = open_dir(&d.path().join("abs/./")).unwrap();
        assert!(same_dir(&fd, &real));
    }

    #[test]
    fn a_loop_fails_with_eloop_and_a_file_with_enotdir() {
        let d = tempfile::tempdir().unwrap();
        symlink("y", d.path().join("x")).unwrap();
        symlink("x", d.path().join("y")).unwrap();
        assert!(matches!(
            open_dir(&d.path().join("x")),
            Err(DirError::Os(Errno::LOOP))
        ));
        std::fs::write(d.path().join("f"), b"").unwrap();
        assert!(matches!(
            open_dir(&d.path().join("f/z")),
            Err(DirError::Os(Errno::NOTDIR))
        ));
        assert!(matches!(
            open_dir(&d.path().join("missing")),
            Err(DirError::Os(Errno::NOENT))
        ));
    }

    #[test]
    fn magic_links_are_refused_and_ordinary_proc_links_followed() {
        match open_dir(Path::new("/proc/self/cwd")) {
            Err(DirError::Refused(s)) => assert!(s.contains("magic link"), "{s}"),
            other => panic!("{other:?}"),
        }
        assert!(matches!(
            open_dir(Path::new("/proc/self/root/tmp")),
            Err(DirError::Refused(_))
        ));
        // /proc/self itself is an ordinary link to the process's directory.
        let fd = open_dir(Path::new("/proc/self/fd")).unwrap();
        assert!(same_dir(&fd, Path::new("/proc/self/fd")));
    }

    #[test]
    fn the_parent_of_an_entry_and_paths_that_name_none() {
        let e = |p: &'static str| split_entry(Path::new(p));
        assert_eq!(e("x.json"), Some((Path::new("."), OsStr::new("x.json"))));
        assert_eq!(
            e("/d/x.json"),
            Some((Path::new("/d"), OsStr::new("x.json")))
        );
        assert_eq!(e("a/b/"), Some((Path::new("a"), OsStr::new("b"))));
        assert_eq!(e("/"), None);
        assert_eq!(e("a/.."), None);
        assert_eq!(e("a/b/."), None);
    }
}
