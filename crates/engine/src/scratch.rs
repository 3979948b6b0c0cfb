//! The directory a run makes its scratch files in, opened once.
//!
//! A command that makes several files in one directory (`lgwr`'s log
//! files and stage files, `check`'s battery and sections) must not look
//! the directory's path up again for each: someone who owns a directory
//! above it can rename-swap it (`renameat2(RENAME_EXCHANGE)`) between two
//! lookups, and the run's files then land in two places, one of them a
//! directory dbio was never pointed at (issue 21, item 6). A
//! [`ScratchDir`] is the directory as [`crate::target`] opened it at the
//! start of the run; every probe, free-space check and file of the run is
//! made relative to its descriptor (`openat`, `fstatvfs`), and its path is
//! kept only for messages and the report.

use crate::target::{self, DirProbe};
use crate::EngineError;
use std::os::fd::OwnedFd;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// A directory opened once for a run (cheap to clone: the descriptor is
/// shared).
#[derive(Debug, Clone)]
pub struct ScratchDir {
    fd: Arc<OwnedFd>,
    path: PathBuf,
}

impl ScratchDir {
    /// Opens `path` (one sentence when it is missing, not a directory or
    /// a loop of symbolic links; how a symbolic link on the way is
    /// treated is [`target`]'s rule).
    pub fn open(path: &Path) -> Result<ScratchDir, EngineError> {
        Ok(ScratchDir {
            fd: Arc::new(target::open_dir(path)?),
            path: path.to_path_buf(),
        })
    }

    /// The path it was opened by, for messages and the report (never
    /// looked up again).
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The descriptor every file of the run is created relative to.
    pub fn fd(&self) -> &OwnedFd {
        &self.fd
    }

    /// What the directory offers a new file, probed on an empty file of
    /// dbio's own made and removed in it (see [`target::probe_dir`]).
    pub fn probe(&self) -> std::io::Result<DirProbe> {
        target::probe_in(&self.fd)
    }

    /// Whether files made here take O_DIRECT.
    pub fn supports_direct(&self) -> std::io::Result<bool> {
        self.probe().map(|p| p.direct)
    }

    /// Free bytes on its filesystem (`fstatvfs`); None when the
    /// filesystem reports no size (ramfs).
    pub fn free_space(&self) -> std::io::Result<Option<u64>> {
        let st = rustix::fs::fstatvfs(&*self.fd)?;
        Ok((st.f_blocks > 0).then_some(st.f_bavail * st.f_frsize))
    }

    /// Waits, 5 s at most, until `need` bytes are free on the filesystem
    /// holding it: a removed file's space can come back late when the
    /// kernel still holds the file (an io_uring ring closing in a kernel
    /// worker).
    pub fn wait_for_space(&self, need: u64) {
        let t0 = std::time::Instant::now();
        while t0.elapsed() < std::time::Duration::from_secs(5) {
            match self.free_space() {
                Ok(Some(free)) if free < need => {
                    std::thread::sleep(std::time::Duration::from_millis(10))
                }
                _ => return,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Files are made in the directory that was opened, even after its
    /// path has come to name another directory.
    #[test]
    fn files_go_where_the_directory_was_opened_not_where_the_path_now_leads() {
        let d = tempfile::tempdir_in(".").unwrap();
        let (a, b) = (d.path().join("a"), d.path().join("b"));
        std::fs::create_dir(&a).unwrap();
        std::fs::create_dir(&b).unwrap();
        let s = ScratchDir::open(&a).unwrap();
        std::fs::rename(&a, d.path().join("tmp")).unwrap();
        std::fs::rename(&b, &a).unwrap();
        let spec = target::TargetSpec {
            path: PathBuf::from("ignored"),
            size: 4096,
            prepare: dbio_model::Prepare::Sparse,
            direct: false,
            bs: 4096,
            sync: dbio_model::Durability::None,
            writes: true,
            overwrite: false,
            block_device: crate::blockdev::BlockDevicePolicy::NotAccepted,
            keep: true,
        };
        let stop = std::sync::atomic::AtomicBool::new(false);
        let t = target::Target::prepare_in(&spec, &s, &stop).unwrap();
        let name = t.path.file_name().unwrap().to_owned();
        assert!(d.path().join("tmp").join(&name).exists());
        assert!(std::fs::read_dir(&a).unwrap().next().is_none());
        assert!(s.free_space().unwrap().is_some_and(|f| f > 0));
    }
}
