//! `dbio watch --cgroup PATH`: a cgroup v2 directory as the set of watched
//! processes.
//!
//! Why a cgroup: a database service (a systemd unit, a container) is a
//! cgroup, and every process in it (backends forked later, helpers) is
//! the database's, whatever its name; the kernel already knows which
//! cgroup a task is in, so the BPF programs compare the current task's
//! cgroup with the watched one (`bpf_get_current_ancestor_cgroup_id`) and
//! nothing has to be added per process, not even a process forked a
//! microsecond ago.
//!
//! A cgroup v2's id is the inode number of its directory in the cgroup2
//! filesystem (kernfs gives each node its 64-bit id as the inode number;
//! the root of the hierarchy is 1), and its level is its depth below that
//! root. Both are read from one descriptor opened with `O_DIRECTORY` on
//! the path and from its parents reached by `..` through descriptors, so
//! a path renamed meanwhile cannot give the id of one cgroup and the
//! level of another.

use rustix::fd::OwnedFd;
use rustix::fs::{Mode, OFlags};
use std::path::{Path, PathBuf};

/// `CGROUP2_SUPER_MAGIC` (`include/uapi/linux/magic.h`).
const CGROUP2_SUPER_MAGIC: u64 = 0x6367_7270;

/// The kernfs id (inode number) of a cgroup hierarchy's root directory.
const ROOT_ID: u64 = 1;

/// Why a path cannot be watched as a cgroup.
#[derive(Debug, thiserror::Error)]
pub enum CgroupError {
    /// The path cannot be opened as a directory.
    #[error("--cgroup {0}: cannot open it as a directory ({1})")]
    Open(PathBuf, std::io::Error),
    /// The directory is not on a cgroup2 filesystem.
    #[error("--cgroup {0} is not a cgroup v2 directory (it is not on a cgroup2 filesystem; cgroup v2 is mounted at {1})")]
    NotCgroup2(PathBuf, String),
    /// The cgroup2 mount's root is not the hierarchy's root.
    #[error("--cgroup {0} is under a cgroup2 mount whose root is not the hierarchy's root (a cgroup namespace's view); give the path as the host's cgroup2 mount shows it")]
    Namespaced(PathBuf),
}

/// A cgroup v2 to watch.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Cgroup {
    /// The path as given.
    pub path: PathBuf,
    /// Its id (the inode number of its directory).
    pub id: u64,
    /// Its depth below the hierarchy's root (the root is 0).
    pub level: u32,
}

/// Where cgroup2 is mounted (`/proc/self/mountinfo`), for the refusal's
/// hint.
fn cgroup2_mounts() -> String {
    let found: Vec<String> = std::fs::read_to_string("/proc/self/mountinfo")
        .unwrap_or_default()
        .lines()
        .filter_map(|l| {
            // ID PARENT MAJ:MIN ROOT MOUNTPOINT OPTS... - FSTYPE SOURCE
            let (left, right) = l.split_once(" - ")?;
            (right.split_whitespace().next()? == "cgroup2")
                .then(|| left.split_whitespace().nth(4).map(str::to_string))?
        })
        .collect();
    if found.is_empty() {
        "nowhere on this machine".into()
    } else {
        found.join(", ")
    }
}

fn is_cgroup2(fd: &OwnedFd) -> bool {
    rustix::fs::fstatfs(fd).is_ok_and(|s| s.f_type as u64 == CGROUP2_SUPER_MAGIC)
}

impl Cgroup {
    /// Opens `path` as a cgroup v2 directory: its id and level, or one
    /// sentence saying why it is not one.
    pub fn open(path: &Path) -> Result<Cgroup, CgroupError> {
        let flags = OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC;
        let fd = rustix::fs::open(path, flags, Mode::empty())
            .map_err(|e| CgroupError::Open(path.to_path_buf(), e.into()))?;
        if !is_cgroup2(&fd) {
            return Err(CgroupError::NotCgroup2(
                path.to_path_buf(),
                cgroup2_mounts(),
            ));
        }
        let ino = |fd: &OwnedFd| rustix::fs::fstat(fd).map(|s| s.st_ino);
        let open_err = |e: rustix::io::Errno| CgroupError::Open(path.to_path_buf(), e.into());
        let id = ino(&fd).map_err(open_err)?;
        // Up to the hierarchy's root: `..` of a mount's root leaves the
        // cgroup2 filesystem (or stays put at `/`).
        let (mut level, mut cur, mut cur_ino) = (0u32, fd, id);
        while cur_ino != ROOT_ID {
            let parent = rustix::fs::openat(&cur, "..", flags, Mode::empty()).map_err(open_err)?;
            let parent_ino = ino(&parent).map_err(open_err)?;
            if !is_cgroup2(&parent) || parent_ino == cur_ino {
                return Err(CgroupError::Namespaced(path.to_path_buf()));
            }
            level += 1;
            (cur, cur_ino) = (parent, parent_ino);
        }
        Ok(Cgroup {
            path: path.to_path_buf(),
            id,
            level,
        })
    }

    /// Whether the cgroup still exists (its path names the same
    /// directory): a removed cgroup has no processes left to watch.
    pub fn exists(&self) -> bool {
        rustix::fs::stat(&self.path).is_ok_and(|s| s.st_ino == self.id)
    }

    /// The processes in the cgroup and the cgroups below it now (each
    /// directory's `cgroup.procs`), sorted.
    pub fn pids(&self) -> Vec<u32> {
        let mut out = Vec::new();
        let mut dirs = vec![self.path.clone()];
        while let Some(d) = dirs.pop() {
            if let Ok(text) = std::fs::read_to_string(d.join("cgroup.procs")) {
                out.extend(text.lines().filter_map(|l| l.trim().parse::<u32>().ok()));
            }
            if let Ok(rd) = std::fs::read_dir(&d) {
                dirs.extend(
                    rd.filter_map(Result::ok)
                        .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
                        .map(|e| e.path()),
                );
            }
        }
        out.sort_unstable();
        out.dedup();
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_directory_that_is_not_a_cgroup_is_refused_in_one_sentence() {
        let d = std::env::temp_dir();
        let e = Cgroup::open(&d).unwrap_err();
        assert!(matches!(e, CgroupError::NotCgroup2(..)), "{e}");
        let msg = e.to_string();
        assert!(msg.contains("is not a cgroup v2 directory"), "{msg}");
        assert_eq!(msg.lines().count(), 1, "{msg}");
        let e = Cgroup::open(Path::new("/nonexistent/dbio-cgroup")).unwrap_err();
        assert!(matches!(e, CgroupError::Open(..)), "{e}");
        // A file is not a directory.
        let e = Cgroup::open(Path::new("/proc/self/status")).unwrap_err();
        assert!(matches!(e, CgroupError::Open(..)), "{e}");
    }

    #[test]
    fn the_hierarchy_root_has_id_1_and_level_0() {
        let mounts = cgroup2_mounts();
        let Some(root) = mounts.split(", ").next().filter(|m| m.starts_with('/')) else {
            eprintln!("skipped: cgroup2 is not mounted here");
            return;
        };
        let root = Path::new(root);
        let c = Cgroup::open(root).unwrap();
        if c.id != ROOT_ID {
            eprintln!("skipped: {} is a cgroup namespace's view", root.display());
            return;
        }
        assert_eq!((c.id, c.level), (ROOT_ID, 0));
        assert!(c.exists());
        // The root holds every process not in a child cgroup, and the
        // walk reaches every process: this test's own among them.
        assert!(c.pids().contains(&std::process::id()));
    }
}
