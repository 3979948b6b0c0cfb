//! Targets: the file (or block device) a job does I/O on, and its safety.
//!
//! dbio runs on machines that hold real data, so a target is written only if
//! dbio created it, which it marks with the extended attribute `user.dbio`,
//! or if the user names it with `--overwrite`. A new temporary file
//! (`dbio-<pid>-<n>.tmp`) is removed when the [`Target`] drops, also after
//! an error or a signal. Block devices are opened by [`crate::blockdev`]:
//! refused unless explicitly allowed, and always refused when they hold any
//! signature or are in use.
//!
//! How a file is prepared changes commit latency several-fold (an 8 KiB
//! write + fdatasync into a freshly fallocated file ran 4.8x slower than
//! into a pre-written one on the development machine), so preparation is an
//! explicit [`Prepare`] choice.

use crate::blockdev::{self, BlockDevicePolicy};
use crate::buf::AlignedBuf;
use crate::{sysinfo, EngineError};
use dbio_model::units::format_bytes;
use dbio_model::{Durability, Prepare};
use std::fs::{self, File, OpenOptions};
use std::io;
use std::os::unix::fs::{FileTypeExt, MetadataExt, OpenOptionsExt};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;

/// Seed of the pattern a pre-written file holds (1 MiB chunks of
/// `AlignedBuf::patterned(1 MiB, PREWRITE_SEED)`).
pub const PREWRITE_SEED: u64 = 0xdb10;

/// Name of the extended attribute that marks files dbio created.
pub const MARK_XATTR: &str = "user.dbio";

/// What the user asked for.
#[derive(Debug, Clone)]
pub struct TargetSpec {
    /// A file, a directory (a temporary file is made in it) or a block device.
    pub path: PathBuf,
    /// Bytes the job uses.
    pub size: u64,
    /// How to prepare a file.
    pub prepare: Prepare,
    /// Open with O_DIRECT.
    pub direct: bool,
    /// Block size of the job's I/Os (checked against the O_DIRECT alignment).
    pub bs: u64,
    /// Open with O_DSYNC or O_SYNC when asked.
    pub sync: Durability,
    /// The job writes (or prepares) the target.
    pub writes: bool,
    /// The user allows dbio to write to an existing file it did not create.
    pub overwrite: bool,
    /// Whether the command takes a block device (and the user allowed it).
    pub block_device: BlockDevicePolicy,
    /// Keep a temporary file after the run instead of removing it.
    pub keep: bool,
}

/// A prepared, open target.
pub struct Target {
    /// Its path.
    pub path: PathBuf,
    /// The open file, shared by the workers.
    pub file: Arc<File>,
    /// Bytes available to the job.
    pub size: u64,
    /// Whether it is a block device.
    pub is_block_device: bool,
    /// Filesystem type (empty for a block device).
    pub fs_type: String,
    remove_on_drop: bool,
    /// A block device's exclusive claim (see [`blockdev::BlockDevice`]):
    /// the device stays claimed while this target lives.
    claim: Option<File>,
}

impl Drop for Target {
    fn drop(&mut self) {
        if self.remove_on_drop {
            let _ = fs::remove_file(&self.path);
        }
    }
}

static TEMP_COUNTER: AtomicU64 = AtomicU64::new(0);

/// Removes a file it owns when dropped, unless disarmed: keeps a half-made
/// target from being left behind by an error or a signal during preparation.
struct RemoveGuard(Option<PathBuf>);

impl Drop for RemoveGuard {
    fn drop(&mut self) {
        if let Some(p) = self.0.take() {
            let _ = fs::remove_file(p);
        }
    }
}

impl Target {
    /// Resolves, checks, prepares and opens the target. `stop` aborts a
    /// long preparation (the user pressed Ctrl-C).
    pub fn prepare(spec: &TargetSpec, stop: &AtomicBool) -> Result<Target, EngineError> {
        let md = fs::metadata(&spec.path);
        if let Ok(md) = &md {
            if md.is_dir() {
                return Self::prepare_temp(spec, stop);
            }
            if md.file_type().is_block_device() {
                return Self::open_block_device(spec);
            }
            if !md.is_file() {
                return Err(EngineError::Refused(format!(
                    "{} is neither a regular file, a directory nor a block device",
                    spec.path.display()
                )));
            }
            return Self::prepare_existing(spec, md, stop);
        }
        let parent = match spec.path.parent() {
            Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
            _ => PathBuf::from("."),
        };
        if !parent.is_dir() {
            return Err(EngineError::Invalid(format!(
                "the directory {} does not exist",
                parent.display()
            )));
        }
        // A new file the user named: created, marked and kept after the run.
        let mut t = Self::create_new(spec, &spec.path, stop)?;
        t.remove_on_drop = false;
        Ok(t)
    }

    fn prepare_temp(spec: &TargetSpec, stop: &AtomicBool) -> Result<Target, EngineError> {
        let n = TEMP_COUNTER.fetch_add(1, Ordering::Relaxed);
        let path = spec
            .path
            .join(format!("dbio-{}-{n}.tmp", std::process::id()));
        let mut t = Self::create_new(spec, &path, stop)?;
        t.remove_on_drop = !spec.keep;
        Ok(t)
    }

    fn create_new(
        spec: &TargetSpec,
        path: &Path,
        stop: &AtomicBool,
    ) -> Result<Target, EngineError> {
        let dir = path.parent().unwrap_or(Path::new("."));
        check_free_space(dir, spec.size, 0)?;
        let f = OpenOptions::new()
            .read(true)
            .write(true)
            .create_new(true)
            .open(path)
            .map_err(|e| EngineError::io("creating the target", path, e))?;
        let mut guard = RemoveGuard(Some(path.to_path_buf()));
        mark(&f);
        lay_out(&f, path, spec.size, spec.prepare, stop)?;
        drop(f);
        let t = Self::open_file(spec, path)?;
        guard.0 = None;
        Ok(t)
    }

    fn prepare_existing(
        spec: &TargetSpec,
        md: &fs::Metadata,
        stop: &AtomicBool,
    ) -> Result<Target, EngineError> {
        let ours = is_marked(&spec.path);
        if !ours && spec.writes && !spec.overwrite {
            return Err(EngineError::Refused(format!(
                "{} exists and was not created by dbio; pass --overwrite to let dbio write to it",
                spec.path.display()
            )));
        }
        let fresh_layout = matches!(
            spec.prepare,
            Prepare::Fallocate | Prepare::Sparse | Prepare::Append
        );
        if fresh_layout && spec.writes {
            // These layouts are properties of a new file: recreate it.
            fs::remove_file(&spec.path)
                .map_err(|e| EngineError::io("removing the old target", &spec.path, e))?;
            let mut t = Self::create_new(spec, &spec.path, stop)?;
            t.remove_on_drop = false;
            return Ok(t);
        }
        if md.len() < spec.size {
            if !spec.writes && !ours {
                return Err(EngineError::Invalid(format!(
                    "{} holds {} but the job needs {}; use a smaller --size",
                    spec.path.display(),
                    format_bytes(md.len()),
                    format_bytes(spec.size)
                )));
            }
            check_free_space(
                spec.path.parent().unwrap_or(Path::new(".")),
                spec.size,
                md.blocks() * 512,
            )?;
            let f = OpenOptions::new()
                .write(true)
                .open(&spec.path)
                .map_err(|e| EngineError::io("opening the target", &spec.path, e))?;
            lay_out(&f, &spec.path, spec.size, Prepare::Prewrite, stop)?;
        }
        Self::open_file(spec, &spec.path)
    }

    fn open_file(spec: &TargetSpec, path: &Path) -> Result<Target, EngineError> {
        let fs_type = sysinfo::mount_of(path)
            .map(|m| m.fs_type)
            .unwrap_or_default();
        let file = open_with_flags(spec, path, &fs_type)?;
        Ok(Target {
            path: path.to_path_buf(),
            file: Arc::new(file),
            size: spec.size,
            is_block_device: false,
            fs_type,
            remove_on_drop: false,
            claim: None,
        })
    }

    fn open_block_device(spec: &TargetSpec) -> Result<Target, EngineError> {
        let dev = blockdev::open_for_job(spec, spec.block_device)?;
        Ok(Target {
            path: spec.path.clone(),
            file: Arc::new(dev.file),
            size: spec.size,
            is_block_device: true,
            fs_type: String::new(),
            remove_on_drop: false,
            claim: Some(dev.claim),
        })
    }

    /// Another job of the same session on this block device: the device is
    /// opened again through this target's exclusive claim, which stays open
    /// (and the device claimed) for as long as this target lives.
    pub fn reopen_block_device(&self, spec: &TargetSpec) -> Result<Target, EngineError> {
        let Some(claim) = &self.claim else {
            return Err(EngineError::Invalid(format!(
                "{} is not a block device dbio holds",
                self.path.display()
            )));
        };
        let file = blockdev::reopen_for_job(claim, spec)?;
        Ok(Target {
            path: self.path.clone(),
            file: Arc::new(file),
            size: spec.size,
            is_block_device: true,
            fs_type: String::new(),
            remove_on_drop: false,
            claim: None,
        })
    }
}

/// Whether files in `dir` can be opened with O_DIRECT (ramfs and some FUSE
/// filesystems refuse it; tmpfs accepts it since Linux 6.6). Probes with an
/// empty file of its own, removed at once; Err when `dir` takes no new file.
pub fn supports_direct(dir: &Path) -> io::Result<bool> {
    let n = TEMP_COUNTER.fetch_add(1, Ordering::Relaxed);
    let probe = dir.join(format!(".dbio-probe-{}-{n}", std::process::id()));
    OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&probe)?;
    let ok = OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_DIRECT)
        .open(&probe)
        .is_ok();
    let _ = fs::remove_file(&probe);
    Ok(ok)
}

fn open_with_flags(spec: &TargetSpec, path: &Path, fs_type: &str) -> Result<File, EngineError> {
    if spec.direct {
        if let Some(a) = sysinfo::dio_alignment(path) {
            let align = u64::from(a.offset_align);
            if align > 0 && !spec.bs.is_multiple_of(align) {
                return Err(EngineError::Invalid(format!(
                    "O_DIRECT on {} needs I/O in multiples of {align} B (statx), and --bs {} B is not one",
                    path.display(),
                    spec.bs
                )));
            }
        }
    }
    let mut flags = 0;
    if spec.direct {
        flags |= libc::O_DIRECT;
    }
    match spec.sync {
        Durability::Dsync => flags |= libc::O_DSYNC,
        Durability::Sync => flags |= libc::O_SYNC,
        _ => {}
    }
    OpenOptions::new()
        .read(true)
        .write(spec.writes)
        .custom_flags(flags)
        .open(path)
        .map_err(|e| {
            if spec.direct && e.raw_os_error() == Some(libc::EINVAL) {
                let fs = if fs_type.is_empty() { "this filesystem" } else { fs_type };
                EngineError::Unsupported(format!(
                    "{fs} does not support O_DIRECT (target {}); run without --direct or use a directory on a disk-backed filesystem",
                    path.display()
                ))
            } else {
                EngineError::io("opening the target", path, e)
            }
        })
}

/// Refuses when the filesystem holding `dir` lacks room for `size` bytes
/// beyond the `already` bytes the target occupies.
fn check_free_space(dir: &Path, size: u64, already: u64) -> Result<(), EngineError> {
    let st = rustix::fs::statvfs(dir)
        .map_err(|e| EngineError::io("checking free space", dir, e.into()))?;
    if st.f_blocks == 0 {
        // ramfs and some pseudo filesystems report no size: nothing to check.
        return Ok(());
    }
    let free = st.f_bavail * st.f_frsize;
    let need = size.saturating_sub(already);
    if need > free {
        return Err(EngineError::Refused(format!(
            "the target needs {} but only {} is free on the filesystem holding {}; use a smaller --size",
            format_bytes(need),
            format_bytes(free),
            dir.display()
        )));
    }
    Ok(())
}

fn mark(f: &File) {
    // Best effort: tmpfs before 6.6 and some FUSE filesystems refuse user
    // xattrs; such a file is still ours for this run, but a later run will
    // want --overwrite to reuse it.
    let _ = rustix::fs::fsetxattr(f, MARK_XATTR, b"1", rustix::fs::XattrFlags::empty());
}

/// Whether `path` carries dbio's mark.
pub fn is_marked(path: &Path) -> bool {
    let mut buf = [0u8; 8];
    rustix::fs::getxattr(path, MARK_XATTR, &mut buf[..]).is_ok()
}

/// Lays out a new file of `size` bytes the way `prepare` says.
fn lay_out(
    f: &File,
    path: &Path,
    size: u64,
    prepare: Prepare,
    stop: &AtomicBool,
) -> Result<(), EngineError> {
    match prepare {
        Prepare::Prewrite => {
            const CHUNK: usize = 1 << 20;
            let buf = AlignedBuf::patterned(CHUNK, PREWRITE_SEED);
            let mut off = 0u64;
            while off < size {
                if stop.load(Ordering::Relaxed) {
                    return Err(EngineError::io(
                        "preparing the target",
                        path,
                        io::Error::from(io::ErrorKind::Interrupted),
                    ));
                }
                let n = (size - off).min(CHUNK as u64) as usize;
                rustix::io::pwrite(f, &buf.as_slice()[..n], off)
                    .map_err(|e| EngineError::io("pre-writing the target", path, e.into()))?;
                off += n as u64;
            }
            rustix::fs::fdatasync(f)
                .map_err(|e| EngineError::io("syncing the pre-written target", path, e.into()))?;
            // Start from a known cache state: the pre-write left the file
            // in the page cache, which would make buffered reads look fast.
            let _ = rustix::fs::fadvise(f, 0, None, rustix::fs::Advice::DontNeed);
        }
        Prepare::Fallocate => {
            rustix::fs::fallocate(f, rustix::fs::FallocateFlags::empty(), 0, size)
                .map_err(|e| EngineError::io("fallocate of the target", path, e.into()))?;
        }
        Prepare::Sparse => {
            f.set_len(size)
                .map_err(|e| EngineError::io("truncating the target", path, e))?;
        }
        Prepare::Append => {
            f.set_len(0)
                .map_err(|e| EngineError::io("truncating the target", path, e))?;
        }
    }
    Ok(())
}
