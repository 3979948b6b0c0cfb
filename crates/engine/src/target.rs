//! Targets: the file (or block device) a job does I/O on, and its safety.
//!
//! dbio runs as root on machines that hold real data, so a target is
//! written only if dbio created it, which it marks with the extended
//! attribute `user.dbio`, or if the user names it with `--overwrite`.
//!
//! Never write through a path that changed under us: a path is looked up
//! once. A file dbio creates is made with `openat(dir, name, O_CREAT |
//! O_EXCL | O_NOFOLLOW)` in a directory opened once; an existing file is
//! opened once with O_NOFOLLOW. Every later decision is made on that
//! descriptor (the `Inode` anchor): its type and link count with fstat,
//! dbio's mark with fgetxattr, free space with fstatvfs, O_DIRECT support
//! and alignment with fcntl(F_SETFL) and statx on the descriptor. A second
//! descriptor with other flags (O_DSYNC cannot be set by F_SETFL, and each
//! job wants its own file description) is opened through
//! `/proc/self/fd/N` and its device and inode numbers are checked against
//! the anchor's. A temporary file (`dbio-<pid>-<n>.tmp`) is removed with
//! `unlinkat(dir, name)` only while that name still refers to its inode, so
//! a file renamed into its place by someone else is never removed; it is
//! flock'ed while dbio runs, and a later run removes the ones whose process
//! is gone (after SIGKILL), or names those it cannot prove are its own, see
//! [`remove_stale_temps`]. A symbolic link is written through only with
//! `--overwrite`. A directory (the target's, or a new file's) is opened by
//! [`crate::resolve`]: a link on the way is followed only when root or the
//! user running dbio owns it, a magic link of /proc never. Every file
//! created here is [`FILE_MODE`] at most.
//!
//! Block devices are opened by [`crate::blockdev`]: refused unless
//! explicitly allowed, and always refused when they hold any signature or
//! are in use.
//!
//! How a file is prepared changes commit latency several-fold (an 8 KiB
//! write + fdatasync into a freshly fallocated file ran 4.8x slower than
//! into a pre-written one on the development machine), so preparation is an
//! explicit [`Prepare`] choice.

use crate::blockdev::{self, BlockDevicePolicy};
use crate::buf::AlignedBuf;
use crate::resolve::DirError;
use crate::scratch::ScratchDir;
use crate::{sysinfo, EngineError};
use dbio_model::units::format_bytes;
use dbio_model::{DioAlignment, Durability, Prepare};
use rustix::fs::{AtFlags, FileType, FlockOperation, Mode, OFlags, CWD};
use rustix::io::Errno;
use std::ffi::{OsStr, OsString};
use std::fs::File;
use std::io;
use std::os::fd::{AsFd, AsRawFd, OwnedFd};
use std::os::unix::ffi::OsStrExt;

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;

/// Seed of the pattern a pre-written file holds (1 MiB chunks of
/// `AlignedBuf::patterned(1 MiB, PREWRITE_SEED)`).
pub const PREWRITE_SEED: u64 = 0xdb10;

/// The mode of every file dbio creates for the user (a target, a kept
/// temporary file, a log file): rw-r--r--. The umask can narrow it, never
/// widen it.
pub const FILE_MODE: u32 = 0o644;

/// Name of the extended attribute that marks files dbio created.
pub const MARK_XATTR: &str = "user.dbio";

/// The mark's value on a temporary file dbio will remove: only such a file
/// is cleaned up as stale when its run was killed (a file kept with
/// `--keep`, or named by the user, carries `1` and is never removed).
pub const TEMP_MARK: &[u8] = b"temporary";

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
    /// The user allows dbio to write to an existing file it did not create
    /// (also through a symbolic link).
    pub overwrite: bool,
    /// Whether the command takes a block device (and the user allowed it).
    pub block_device: BlockDevicePolicy,
    /// Keep a temporary file after the run instead of removing it.
    pub keep: bool,
}

/// A prepared, open target.
pub struct Target {
    /// Its path, for messages and the report (never opened again).
    pub path: PathBuf,
    /// The open file, shared by the workers.
    pub file: Arc<File>,
    /// Bytes available to the job.
    pub size: u64,
    /// Whether it is a block device.
    pub is_block_device: bool,
    /// Filesystem type (empty for a block device).
    pub fs_type: String,
    /// What the user should know about the target (its mark could not be
    /// set, stale temporary files were removed): for the report's warnings.
    pub notices: Vec<String>,
    inode: Arc<Inode>,
    /// A block device's exclusive claim (see [`blockdev::BlockDevice`]):
    /// the device stays claimed while this target lives.
    claim: Option<File>,
}

/// The file a target lives on, opened once: every descriptor a job uses is
/// derived from `anchor`, never from the path.
struct Inode {
    /// The descriptor the file was created or first opened through; holds
    /// the flock of a file dbio created.
    anchor: File,
    dev: u64,
    ino: u64,
    /// `anchor` was opened read-write.
    writable: bool,
    /// dbio created it (or it carries dbio's mark).
    ours: bool,
    /// Where dbio created it, for removal.
    entry: Option<Entry>,
}

/// A directory entry dbio created: the directory (opened once) and the name.
struct Entry {
    dir: OwnedFd,
    name: OsString,
    remove: AtomicBool,
}

impl Drop for Inode {
    fn drop(&mut self) {
        if let Some(e) = &self.entry {
            if e.remove.load(Ordering::Relaxed)
                && !remove_if_same(&e.dir, &e.name, self.dev, self.ino).unwrap_or(false)
            {
                // dbio removes only the name it gave: a file renamed or
                // linked elsewhere during the run is left where it went,
                // and the user is told, since nobody else will remove it.
                // The last moment dbio has: stderr, one line.
                if let Some(line) = left_behind(&self.anchor, e, self.ino) {
                    eprintln!("dbio: warning: {}", dbio_model::visible::visible(&line));
                }
            }
        }
    }
}

/// The sentence for a temporary file that could not be removed by its
/// name although it still has one somewhere (None when it has none: it
/// was removed by someone else).
fn left_behind(anchor: &File, e: &Entry, ino: u64) -> Option<String> {
    let st = rustix::fs::fstat(anchor).ok()?;
    if st.st_nlink == 0 {
        return None;
    }
    // The kernel's name for the open file is where it is now.
    let now = std::fs::read_link(format!("/proc/self/fd/{}", anchor.as_raw_fd()))
        .map_or_else(|_| format!("inode {ino}"), |p| p.display().to_string());
    Some(format!(
        "dbio's temporary file {} was renamed or linked elsewhere while dbio ran, so it was left on disk: {now} ({} B); dbio removes only the name it gave",
        Path::new(&e.name).display(),
        st.st_size,
    ))
}

static TEMP_COUNTER: AtomicU64 = AtomicU64::new(0);

fn errno_io(e: Errno) -> io::Error {
    e.into()
}

/// One sentence for a failed lookup of `p`; a symbolic-link loop is named
/// as such.
fn lookup_error(op: &str, p: &Path, e: Errno) -> EngineError {
    match e {
        Errno::LOOP => EngineError::Invalid(format!(
            "{} cannot be resolved because of a loop of symbolic links: {}",
            p.display(),
            errno_io(e)
        )),
        _ => EngineError::io(op, p, errno_io(e)),
    }
}

/// Opens the directory `p` once, by [`crate::resolve`]'s rules (a
/// symbolic link is followed only when root or the user running dbio owns
/// it, a magic link of /proc never): a directory is only ever used through
/// this descriptor.
pub(crate) fn open_dir(p: &Path) -> Result<OwnedFd, EngineError> {
    crate::resolve::open_dir(p).map_err(|e| match e {
        DirError::Refused(why) => EngineError::Refused(why),
        DirError::Os(Errno::NOENT) => {
            EngineError::Invalid(format!("the directory {} does not exist", p.display()))
        }
        DirError::Os(Errno::NOTDIR) => {
            EngineError::Invalid(format!("{} is not a directory", p.display()))
        }
        DirError::Os(e) => lookup_error("opening the directory", p, e),
    })
}

/// Whether the open directory `dir` is on devtmpfs (/dev): a path there
/// that names no device is a mistyped device, never a place for a file
/// (a regular file made there would fill the memory devtmpfs lives in and
/// shadow the device if it appears).
fn on_devtmpfs(dir: &OwnedFd) -> bool {
    sysinfo::mount_of_fd(dir).is_some_and(|m| m.fs_type == "devtmpfs")
}

/// Checks that `p` is a directory dbio can open, with one sentence that
/// names the problem (missing, not a directory, a loop of symbolic links,
/// a link dbio does not follow).
pub fn check_dir(p: &Path) -> Result<(), EngineError> {
    open_dir(p).map(drop)
}

/// Removes `name` from `dir` only while it still refers to the inode
/// `dev`/`ino` (something renamed into its place is left alone). Ok(false)
/// when the name now refers to something else.
fn remove_if_same(dir: &OwnedFd, name: &OsStr, dev: u64, ino: u64) -> io::Result<bool> {
    let st = rustix::fs::statat(dir, name, AtFlags::SYMLINK_NOFOLLOW)?;
    if st.st_dev != dev || st.st_ino != ino {
        return Ok(false);
    }
    rustix::fs::unlinkat(dir, name, AtFlags::empty())?;
    Ok(true)
}

impl Target {
    /// Resolves, checks, prepares and opens the target. `stop` aborts a
    /// long preparation (the user pressed Ctrl-C).
    pub fn prepare(spec: &TargetSpec, stop: &AtomicBool) -> Result<Target, EngineError> {
        let p = &spec.path;
        let lst = match rustix::fs::lstat(p) {
            Ok(st) => st,
            Err(Errno::NOENT) => return Self::create_named(spec, stop),
            Err(e) => return Err(lookup_error("inspecting the target", p, e)),
        };
        let mut kind = FileType::from_raw_mode(lst.st_mode);
        let mut follow = false;
        if kind == FileType::Symlink {
            let st = rustix::fs::stat(p).map_err(|e| match e {
                Errno::NOENT => EngineError::Refused(format!(
                    "{} is a symbolic link to nothing; dbio does not create files through symbolic links: name the file itself",
                    p.display()
                )),
                e => lookup_error("following the symbolic link", p, e),
            })?;
            kind = FileType::from_raw_mode(st.st_mode);
            follow = true;
            if kind == FileType::RegularFile && spec.writes && !spec.overwrite {
                return Err(EngineError::Refused(format!(
                    "{} is a symbolic link; dbio does not write through one (it can be changed while dbio runs): name the file it points to, or pass --overwrite",
                    p.display()
                )));
            }
        }
        match kind {
            FileType::Directory => Self::prepare_temp(spec, stop),
            FileType::BlockDevice => Self::open_block_device(spec),
            FileType::RegularFile => Self::prepare_existing(spec, follow, stop),
            _ => Err(EngineError::Refused(format!(
                "{} is neither a regular file, a directory nor a block device",
                p.display()
            ))),
        }
    }

    /// Gives the target up after a failed start (another member of a
    /// stripe could not be prepared): a file dbio created in this run is
    /// removed, even a named one that would otherwise be kept, so a
    /// refused run leaves nothing behind. A file or device dbio did not
    /// create is only closed.
    pub fn discard(self) {
        if let Some(e) = &self.inode.entry {
            e.remove.store(true, Ordering::Relaxed);
        }
    }

    /// Another target on the same file or device, for a later job with
    /// other flags or another layout (a file is never looked up again by
    /// its path). `spec.path` is ignored.
    pub fn reopen(&self, spec: &TargetSpec, stop: &AtomicBool) -> Result<Target, EngineError> {
        if self.is_block_device {
            return self.reopen_block_device(spec);
        }
        Self::open_on(spec, self.inode.clone(), self.path.clone(), stop)
    }

    /// A new descriptor on the target's file with these flags (its own
    /// file description, so its O_DIRECT and fadvise state are its own).
    pub fn with_flags(
        &self,
        direct: bool,
        sync: Durability,
        writes: bool,
    ) -> Result<File, EngineError> {
        let spec = TargetSpec {
            path: self.path.clone(),
            size: self.size,
            prepare: Prepare::Prewrite,
            direct,
            bs: 0,
            sync,
            writes,
            overwrite: false,
            block_device: BlockDevicePolicy::NotAccepted,
            keep: false,
        };
        if writes && !self.inode.ours && !self.inode.writable {
            return Err(EngineError::Refused(format!(
                "{} was not created by dbio; pass --overwrite to let dbio write to it",
                self.path.display()
            )));
        }
        descriptor(&spec, &self.inode, &self.path, &self.fs_type)
    }

    /// A new file named by the user: created in its directory, marked and
    /// kept after the run.
    fn create_named(spec: &TargetSpec, stop: &AtomicBool) -> Result<Target, EngineError> {
        let p = &spec.path;
        let name = p
            .file_name()
            .ok_or_else(|| EngineError::Invalid(format!("{} does not name a file", p.display())))?;
        let parent = match p.parent() {
            Some(d) if !d.as_os_str().is_empty() => d,
            _ => Path::new("."),
        };
        let dir = open_dir(parent)?;
        if on_devtmpfs(&dir) {
            return Err(EngineError::Refused(format!(
                "{} does not exist, and dbio does not create files in {} (devtmpfs, where the kernel keeps device nodes): name an existing block device",
                p.display(),
                parent.display()
            )));
        }
        Self::create_in(spec, dir, parent, name, p.clone(), false, stop)
    }

    fn prepare_temp(spec: &TargetSpec, stop: &AtomicBool) -> Result<Target, EngineError> {
        let dir = open_dir(&spec.path)?;
        Self::prepare_temp_at(spec, &dir, &spec.path, stop)
    }

    /// A temporary file in `dir`, a directory opened once for the whole run
    /// (see [`ScratchDir`]): every file of the run is created relative to
    /// that descriptor, so a directory renamed or swapped during the run
    /// cannot split its files between two places. `spec.path` is ignored.
    pub fn prepare_in(
        spec: &TargetSpec,
        dir: &ScratchDir,
        stop: &AtomicBool,
    ) -> Result<Target, EngineError> {
        Self::prepare_temp_at(spec, dir.fd(), dir.path(), stop)
    }

    /// A temporary file `dbio-<pid>-<n>.tmp` in the open directory `dir`
    /// (`dir_path` for messages and the target's path).
    fn prepare_temp_at(
        spec: &TargetSpec,
        dir: &OwnedFd,
        dir_path: &Path,
        stop: &AtomicBool,
    ) -> Result<Target, EngineError> {
        if on_devtmpfs(dir) {
            return Err(EngineError::Refused(format!(
                "{} is on devtmpfs, where the kernel keeps device nodes, and dbio does not create files there: name an existing block device or a directory on a filesystem",
                dir_path.display()
            )));
        }
        let mut notices = remove_stale_temps(dir, dir_path);
        // The name is predictable: when something already holds it, the
        // next number will do (a few times, then the error stands).
        let mut tries = 0;
        loop {
            let n = TEMP_COUNTER.fetch_add(1, Ordering::Relaxed);
            let name = format!("dbio-{}-{n}.tmp", std::process::id());
            let path = dir_path.join(&name);
            let dir = rustix::io::dup(dir)
                .map_err(|e| EngineError::io("opening the directory", dir_path, e.into()))?;
            match Self::create_in(
                spec,
                dir,
                dir_path,
                OsStr::new(&name),
                path,
                !spec.keep,
                stop,
            ) {
                Err(e) if e.raw_os_error() == Some(libc::EEXIST) && tries < 8 => tries += 1,
                Err(e) => return Err(e),
                Ok(mut t) => {
                    notices.append(&mut t.notices);
                    t.notices = notices;
                    return Ok(t);
                }
            }
        }
    }

    /// Creates `name` in `dir` (O_EXCL, O_NOFOLLOW), marks, locks and lays
    /// it out; removed again if anything fails, and after the run when
    /// `remove_after`.
    fn create_in(
        spec: &TargetSpec,
        dir: OwnedFd,
        dir_path: &Path,
        name: &OsStr,
        path: PathBuf,
        remove_after: bool,
        stop: &AtomicBool,
    ) -> Result<Target, EngineError> {
        check_free_space(&dir, dir_path, spec.size, 0)?;
        let fd = rustix::fs::openat(
            &dir,
            name,
            OFlags::RDWR | OFlags::CREATE | OFlags::EXCL | OFlags::NOFOLLOW | OFlags::CLOEXEC,
            // Never wider than rw-r--r--, whatever the umask (000 would
            // otherwise make a kept file world-writable).
            Mode::from_raw_mode(FILE_MODE),
        )
        .map_err(|e| lookup_error("creating the target", &path, e))?;
        let anchor = File::from(fd);
        let st = rustix::fs::fstat(&anchor)
            .map_err(|e| EngineError::io("inspecting the target", &path, e.into()))?;
        // Held while dbio runs: a later run must not take it for stale.
        let _ = rustix::fs::flock(&anchor, FlockOperation::NonBlockingLockExclusive);
        let mut notices = Vec::new();
        let mark: &[u8] = if remove_after { TEMP_MARK } else { b"1" };
        if let Err(e) =
            rustix::fs::fsetxattr(&anchor, MARK_XATTR, mark, rustix::fs::XattrFlags::empty())
        {
            let fs = sysinfo::mount_of_fd(&anchor)
                .map(|m| m.fs_type)
                .unwrap_or_default();
            notices.push(format!(
                "dbio could not mark {} as its own file ({} refuses the extended attribute {MARK_XATTR}: {}): a later run will not recognise it, so reusing it needs --overwrite, and a copy left behind by a killed run is not cleaned up",
                path.display(),
                if fs.is_empty() { "the filesystem" } else { &fs },
                errno_io(e)
            ));
        }
        let inode = Arc::new(Inode {
            anchor,
            dev: st.st_dev,
            ino: st.st_ino,
            writable: true,
            ours: true,
            entry: Some(Entry {
                dir,
                name: name.to_owned(),
                remove: AtomicBool::new(true),
            }),
        });
        // Until the end of this function an error drops `inode`, which
        // removes the half-made file.
        lay_out(&inode.anchor, &path, spec.size, spec.prepare, stop)?;
        let mut t = Self::finish(spec, inode.clone(), path)?;
        if let Some(e) = &inode.entry {
            e.remove.store(remove_after, Ordering::Relaxed);
        }
        t.notices = notices;
        Ok(t)
    }

    /// An existing regular file: opened once (O_NOFOLLOW unless the user
    /// named a symbolic link and may follow it), then checked on the
    /// descriptor.
    fn prepare_existing(
        spec: &TargetSpec,
        follow: bool,
        stop: &AtomicBool,
    ) -> Result<Target, EngineError> {
        let p = &spec.path;
        let flags = OFlags::RDONLY | OFlags::CLOEXEC | OFlags::NONBLOCK | OFlags::NOCTTY;
        // The directory by the rules every directory is opened by (a link
        // on the way only when root or the user owns it, a magic link
        // never), then the file in it: not through a symbolic link unless
        // `--overwrite` allows one, and never through a magic link of
        // /proc (issue 21 §9).
        let Some((dir_path, name)) = crate::resolve::split_entry(p) else {
            return Err(EngineError::Invalid(format!(
                "{} does not name a file",
                p.display()
            )));
        };
        let dir = open_dir(dir_path)?;
        let how = if follow {
            rustix::fs::ResolveFlags::NO_MAGICLINKS
        } else {
            rustix::fs::ResolveFlags::NO_SYMLINKS
        };
        let fd = rustix::fs::openat2(&dir, name, flags, Mode::empty(), how).map_err(|e| match e {
            Errno::LOOP if !follow => EngineError::Refused(format!(
                "{} became a symbolic link while dbio was opening it; nothing was written",
                p.display()
            )),
            // ELOOP is also a loop of ordinary links: a magic link is what
            // the kernel would otherwise have followed.
            Errno::LOOP | Errno::XDEV
                if rustix::fs::openat(&dir, name, flags, Mode::empty()).is_ok() =>
            {
                EngineError::Refused(format!(
                    "{} leads through a magic link of /proc (such as /proc/PID/fd/N or /proc/PID/root), which dbio never follows; name the file itself",
                    p.display()
                ))
            }
            e => lookup_error("opening the target", p, e),
        })?;
        let anchor = File::from(fd);
        // O_NONBLOCK only kept a FIFO swapped in from blocking the open.
        rustix::fs::fcntl_setfl(&anchor, OFlags::empty())
            .map_err(|e| EngineError::io("opening the target", p, e.into()))?;
        let st = rustix::fs::fstat(&anchor)
            .map_err(|e| EngineError::io("inspecting the target", p, e.into()))?;
        if FileType::from_raw_mode(st.st_mode) != FileType::RegularFile {
            return Err(EngineError::Refused(format!(
                "{} changed while dbio was opening it (it is no longer a regular file); nothing was written",
                p.display()
            )));
        }
        let ours = is_marked_fd(&anchor);
        let inode = Arc::new(Inode {
            anchor,
            dev: st.st_dev,
            ino: st.st_ino,
            writable: false,
            ours,
            entry: None,
        });
        Self::open_on(spec, inode, p.clone(), stop)
    }

    /// Checks and lays out an open existing file for `spec`, then opens the
    /// job's descriptor.
    fn open_on(
        spec: &TargetSpec,
        inode: Arc<Inode>,
        path: PathBuf,
        stop: &AtomicBool,
    ) -> Result<Target, EngineError> {
        if spec.writes && !inode.ours && !spec.overwrite {
            return Err(EngineError::Refused(format!(
                "{} exists and was not created by dbio; pass --overwrite to let dbio write to it",
                path.display()
            )));
        }
        let st = rustix::fs::fstat(&inode.anchor)
            .map_err(|e| EngineError::io("inspecting the target", &path, e.into()))?;
        let len = st.st_size as u64;
        let fresh_layout = matches!(
            spec.prepare,
            Prepare::Fallocate | Prepare::Sparse | Prepare::Append
        );
        if fresh_layout && spec.writes {
            // These layouts are properties of a new file: start it again,
            // on the same inode.
            let w = writer(&inode, &path)?;
            check_free_space(&w, &path, spec.size, st.st_blocks as u64 * 512)?;
            w.set_len(0)
                .map_err(|e| EngineError::io("truncating the target", &path, e))?;
            lay_out(&w, &path, spec.size, spec.prepare, stop)?;
        } else if len < spec.size {
            if !spec.writes && !inode.ours {
                return Err(EngineError::Invalid(format!(
                    "{} holds {} but the job needs {}; use a smaller --size",
                    path.display(),
                    format_bytes(len),
                    format_bytes(spec.size)
                )));
            }
            let w = writer(&inode, &path)?;
            check_free_space(&w, &path, spec.size, st.st_blocks as u64 * 512)?;
            lay_out(&w, &path, spec.size, Prepare::Prewrite, stop)?;
        }
        Self::finish(spec, inode, path)
    }

    /// The job's own descriptor on `inode`, with the spec's flags.
    fn finish(spec: &TargetSpec, inode: Arc<Inode>, path: PathBuf) -> Result<Target, EngineError> {
        let fs_type = sysinfo::mount_of_fd(&inode.anchor)
            .map(|m| m.fs_type)
            .unwrap_or_default();
        let file = descriptor(spec, &inode, &path, &fs_type)?;
        Ok(Target {
            path,
            file: Arc::new(file),
            size: spec.size,
            is_block_device: false,
            fs_type,
            notices: Vec::new(),
            inode,
            claim: None,
        })
    }

    fn open_block_device(spec: &TargetSpec) -> Result<Target, EngineError> {
        let dev = blockdev::open_for_job(spec, spec.block_device)?;
        Target::on_block_device(&spec.path, spec, dev.file, Some(dev.claim))
    }

    /// Another job of the same session on this block device: the device is
    /// opened again through this target's exclusive claim, which stays open
    /// (and the device claimed) for as long as this target lives.
    fn reopen_block_device(&self, spec: &TargetSpec) -> Result<Target, EngineError> {
        let Some(claim) = &self.claim else {
            return Err(EngineError::Invalid(format!(
                "{} is not a block device dbio holds",
                self.path.display()
            )));
        };
        let file = blockdev::reopen_for_job(claim, spec)?;
        Target::on_block_device(&self.path, spec, file, None)
    }

    /// A target on a block device opened (and checked) by [`blockdev`].
    fn on_block_device(
        path: &Path,
        spec: &TargetSpec,
        file: File,
        claim: Option<File>,
    ) -> Result<Target, EngineError> {
        let anchor = file
            .try_clone()
            .map_err(|e| EngineError::io("opening the device", path, e))?;
        let st = rustix::fs::fstat(&anchor)
            .map_err(|e| EngineError::io("inspecting the device", path, e.into()))?;
        Ok(Target {
            path: path.to_path_buf(),
            file: Arc::new(file),
            size: spec.size,
            is_block_device: true,
            fs_type: String::new(),
            notices: Vec::new(),
            inode: Arc::new(Inode {
                anchor,
                dev: st.st_dev,
                ino: st.st_ino,
                writable: spec.writes,
                ours: false,
                entry: None,
            }),
            claim,
        })
    }
}

/// A read-write descriptor on `inode` (the anchor itself when it is one).
fn writer(inode: &Inode, path: &Path) -> Result<File, EngineError> {
    if inode.writable {
        return inode
            .anchor
            .try_clone()
            .map_err(|e| EngineError::io("opening the target", path, e));
    }
    reopen(inode, OFlags::RDWR, path)
}

/// Opens the anchor's file again through `/proc/self/fd/N` with `flags`,
/// and checks that it is the same inode.
fn reopen(inode: &Inode, flags: OFlags, path: &Path) -> Result<File, EngineError> {
    let proc = format!("/proc/self/fd/{}", inode.anchor.as_raw_fd());
    let fd = match rustix::fs::open(&proc, flags | OFlags::CLOEXEC, Mode::empty()) {
        Ok(fd) => fd,
        // No /proc (a bare chroot): without sync flags a duplicate of the
        // anchor does, when its access mode allows the job's.
        Err(Errno::NOENT)
            if !flags.intersects(OFlags::SYNC)
                && (inode.writable || !flags.contains(OFlags::RDWR)) =>
        {
            OwnedFd::from(
                inode
                    .anchor
                    .try_clone()
                    .map_err(|e| EngineError::io("opening the target", path, e))?,
            )
        }
        Err(e) => {
            return Err(EngineError::io(
                "opening the target again through /proc/self/fd",
                path,
                e.into(),
            ))
        }
    };
    let st = rustix::fs::fstat(&fd)
        .map_err(|e| EngineError::io("inspecting the target", path, e.into()))?;
    if st.st_dev != inode.dev || st.st_ino != inode.ino {
        return Err(EngineError::Refused(format!(
            "{} is no longer the file dbio opened; nothing was written",
            path.display()
        )));
    }
    Ok(File::from(fd))
}

/// The job's descriptor on `inode`: its own file description with the
/// spec's access mode and sync flags, then O_DIRECT switched on with
/// F_SETFL (checked against the statx alignment of the descriptor first).
fn descriptor(
    spec: &TargetSpec,
    inode: &Inode,
    path: &Path,
    fs_type: &str,
) -> Result<File, EngineError> {
    if spec.direct {
        if let Some(a) = sysinfo::dio_alignment_fd(&inode.anchor) {
            let align = u64::from(a.offset_align);
            if align > 0 && spec.bs > 0 && !spec.bs.is_multiple_of(align) {
                return Err(EngineError::Invalid(format!(
                    "O_DIRECT on {} needs I/O in multiples of {align} B (statx), and --bs {} B is not one",
                    path.display(),
                    spec.bs
                )));
            }
        }
    }
    let mut flags = if spec.writes {
        OFlags::RDWR
    } else {
        OFlags::RDONLY
    };
    match spec.sync {
        // rustix's OFlags::DSYNC is O_SYNC on linux_raw: use libc's value.
        Durability::Dsync => flags |= OFlags::from_bits_retain(libc::O_DSYNC as u32),
        Durability::Sync => flags |= OFlags::SYNC,
        _ => {}
    }
    let file = reopen(inode, flags, path)?;
    if spec.direct {
        set_direct(&file).map_err(|e| {
            if e == Errno::INVAL {
                let fs = if fs_type.is_empty() { "this filesystem" } else { fs_type };
                EngineError::Unsupported(format!(
                    "{fs} does not support O_DIRECT (target {}); run without --direct or use a directory on a disk-backed filesystem",
                    path.display()
                ))
            } else {
                EngineError::io("switching on O_DIRECT", path, e.into())
            }
        })?;
    }
    Ok(file)
}

/// Switches O_DIRECT on for an open descriptor (EINVAL where the
/// filesystem has no direct I/O).
fn set_direct(fd: impl AsFd) -> Result<(), Errno> {
    let fl = rustix::fs::fcntl_getfl(&fd)?;
    rustix::fs::fcntl_setfl(&fd, fl | OFlags::DIRECT)
}

/// What a directory offers a new file, probed on a file of dbio's own.
#[derive(Debug, Clone, Default)]
pub struct DirProbe {
    /// Files there take O_DIRECT.
    pub direct: bool,
    /// Their O_DIRECT alignment (statx), when the kernel reports it.
    pub dio_alignment: Option<DioAlignment>,
    /// The filesystem type.
    pub fs_type: String,
}

/// Probes `dir` with an empty file of dbio's own (`.dbio-probe-<pid>-<n>`,
/// created with O_EXCL|O_NOFOLLOW in the directory's descriptor and
/// removed at once); Err when `dir` takes no new file.
pub fn probe_dir(dir: &Path) -> io::Result<DirProbe> {
    let d = rustix::fs::openat(
        CWD,
        dir,
        OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC,
        Mode::empty(),
    )?;
    probe_in(&d)
}

/// [`probe_dir`] on a directory already open. The probe file carries the
/// temporary mark, so a run killed between its creation and its removal
/// leaves a file the next run removes ([`remove_stale_temps`]).
pub(crate) fn probe_in(d: &OwnedFd) -> io::Result<DirProbe> {
    let n = TEMP_COUNTER.fetch_add(1, Ordering::Relaxed);
    let name = format!(".dbio-probe-{}-{n}", std::process::id());
    let fd = rustix::fs::openat(
        d,
        &name,
        OFlags::RDWR | OFlags::CREATE | OFlags::EXCL | OFlags::NOFOLLOW | OFlags::CLOEXEC,
        Mode::from_raw_mode(0o600),
    )?;
    let _ = rustix::fs::fsetxattr(&fd, MARK_XATTR, TEMP_MARK, rustix::fs::XattrFlags::empty());
    let st = rustix::fs::fstat(&fd)?;
    let direct = set_direct(&fd).is_ok();
    let probe = DirProbe {
        direct,
        dio_alignment: if direct {
            sysinfo::dio_alignment_fd(&fd)
        } else {
            None
        },
        fs_type: sysinfo::mount_of_fd(&fd)
            .map(|m| m.fs_type)
            .unwrap_or_default(),
    };
    drop(fd);
    let _ = remove_if_same(d, OsStr::new(&name), st.st_dev, st.st_ino);
    Ok(probe)
}

/// Whether files in `dir` can be opened with O_DIRECT (ramfs and some FUSE
/// filesystems refuse it; tmpfs accepts it since Linux 6.6). See
/// [`probe_dir`]; Err when `dir` takes no new file.
pub fn supports_direct(dir: &Path) -> io::Result<bool> {
    probe_dir(dir).map(|p| p.direct)
}

/// The pid in the name of a scratch file dbio makes in a directory: a
/// temporary file `dbio-<pid>-<n>.tmp` or a directory probe
/// `.dbio-probe-<pid>-<n>`.
fn temp_pid(name: &[u8]) -> Option<i32> {
    let s = std::str::from_utf8(name).ok()?;
    let rest = match s.strip_prefix("dbio-") {
        Some(r) => r.strip_suffix(".tmp")?,
        None => s.strip_prefix(".dbio-probe-")?,
    };
    let (pid, n) = rest.split_once('-')?;
    let digits = |x: &str| !x.is_empty() && x.bytes().all(|b| b.is_ascii_digit());
    if !digits(pid) || !digits(n) {
        return None;
    }
    pid.parse().ok()
}

/// What became of a scratch file's name found by [`remove_stale_temps`].
#[derive(Debug, PartialEq, Eq)]
enum Stale {
    /// Its process still runs, or a running dbio holds it (flock).
    InUse,
    /// Removed.
    Removed,
    /// Its process is gone but dbio cannot prove it made the file (no
    /// temporary mark, a second link, not a regular file): left alone and
    /// named.
    Named,
}

/// Cleans up after runs killed by SIGKILL in `dir`: every scratch file
/// name dbio gives (`dbio-<pid>-<n>.tmp`, `.dbio-probe-<pid>-<n>`) whose process is gone is either removed
/// or named. Removed are only regular files with a single link that carry
/// dbio's temporary mark ([`TEMP_MARK`]) and are not locked by a running
/// dbio, each by `unlinkat` while its name still refers to the inode
/// checked; the others (a filesystem without extended attributes, a file
/// someone else made under such a name) are left in place and named, so
/// no kind of leftover goes unmentioned. Returns the notices (none when
/// there was nothing).
pub fn remove_stale_temps(dir: &OwnedFd, dir_path: &Path) -> Vec<String> {
    let Ok(entries) = rustix::fs::Dir::read_from(dir) else {
        return Vec::new();
    };
    let me = std::process::id() as i32;
    let (mut removed, mut named) = (Vec::new(), Vec::new());
    for ent in entries.flatten() {
        let name = ent.file_name().to_bytes();
        match temp_pid(name) {
            Some(pid) if pid != me => {
                let name = OsStr::from_bytes(name);
                let shown = name.to_string_lossy().into_owned();
                match remove_if_stale(dir, name, pid) {
                    Ok(Stale::InUse) => {}
                    Ok(Stale::Removed) => removed.push(shown),
                    // Gone between the listing and the check: nothing left.
                    Err(e) if e.kind() == io::ErrorKind::NotFound => {}
                    Ok(Stale::Named) | Err(_) => named.push(shown),
                }
            }
            _ => {}
        }
    }
    let plural = |n: usize| if n == 1 { "" } else { "s" };
    let mut notices = Vec::new();
    if !removed.is_empty() {
        removed.sort();
        notices.push(format!(
            "removed {} stale temporary file{} in {} left by dbio runs that were killed before they could clean up: {}",
            removed.len(),
            plural(removed.len()),
            dir_path.display(),
            removed.join(", ")
        ));
    }
    if !named.is_empty() {
        named.sort();
        notices.push(format!(
            "left {} file{} in {} named like the scratch files of dbio runs that are gone, because dbio cannot prove it made them (no {MARK_XATTR} temporary mark, another link, another owner, or not a regular file): {}; remove them if a killed dbio run left them",
            named.len(),
            plural(named.len()),
            dir_path.display(),
            named.join(", ")
        ));
    }
    notices
}

/// Whether process `pid` is gone (ESRCH): the test every kind of
/// leftover of a killed dbio run is removed by. A pid that cannot be one
/// is not gone.
pub fn process_gone(pid: i32) -> bool {
    rustix::process::Pid::from_raw(pid)
        .is_some_and(|p| rustix::process::test_kill_process(p) == Err(Errno::SRCH))
}

fn remove_if_stale(dir: &OwnedFd, name: &OsStr, pid: i32) -> io::Result<Stale> {
    if rustix::process::Pid::from_raw(pid).is_none() {
        return Ok(Stale::Named);
    }
    if !process_gone(pid) {
        return Ok(Stale::InUse); // alive (or not ours to judge)
    }
    let fd = rustix::fs::openat(
        dir,
        name,
        OFlags::RDONLY | OFlags::NOFOLLOW | OFlags::NONBLOCK | OFlags::NOCTTY | OFlags::CLOEXEC,
        Mode::empty(),
    )?;
    let st = rustix::fs::fstat(&fd)?;
    // Only a file of this user's: root never removes another user's file,
    // whatever its name and mark (both are the file owner's to set).
    if FileType::from_raw_mode(st.st_mode) != FileType::RegularFile
        || st.st_nlink != 1
        || st.st_uid != rustix::process::geteuid().as_raw()
        || !has_temp_mark(&fd)
    {
        return Ok(Stale::Named);
    }
    if rustix::fs::flock(&fd, FlockOperation::NonBlockingLockExclusive).is_err() {
        return Ok(Stale::InUse);
    }
    Ok(if remove_if_same(dir, name, st.st_dev, st.st_ino)? {
        Stale::Removed
    } else {
        Stale::Named
    })
}

/// Refuses when the filesystem holding the open `fd` (`shown` in
/// messages) lacks room for `size` bytes beyond the `already` bytes the
/// target occupies.
fn check_free_space(
    fd: impl AsFd,
    shown: &Path,
    size: u64,
    already: u64,
) -> Result<(), EngineError> {
    let st = rustix::fs::fstatvfs(fd)
        .map_err(|e| EngineError::io("checking free space", shown, e.into()))?;
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
            shown.display()
        )));
    }
    Ok(())
}

/// Whether the file open on `fd` carries dbio's mark.
pub fn is_marked_fd(fd: impl AsFd) -> bool {
    let mut buf = [0u8; 8];
    rustix::fs::fgetxattr(fd, MARK_XATTR, &mut buf[..]).is_ok()
}

/// Whether the file open on `fd` is marked as a temporary file of dbio's.
fn has_temp_mark(fd: impl AsFd) -> bool {
    let mut buf = [0u8; 16];
    rustix::fs::fgetxattr(fd, MARK_XATTR, &mut buf[..]).is_ok_and(|n| &buf[..n] == TEMP_MARK)
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

/// One of a target's notices as a finding. The targets say in plain words
/// what they did or could not do to the scratch space (a stale temporary
/// file of a killed run removed, a file that could not be marked as
/// dbio's); every command that runs on targets hands them on as
/// `scratch.target` notices, so that the result ranks them beside
/// everything else it says.
pub fn scratch_note(notice: impl AsRef<str>) -> dbio_model::Finding {
    dbio_model::Finding::note(
        "scratch.target",
        dbio_model::Severity::Notice,
        notice.as_ref(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;

    #[test]
    fn temp_names_yield_their_pid_and_nothing_else_does() {
        assert_eq!(temp_pid(b"dbio-123-0.tmp"), Some(123));
        assert_eq!(temp_pid(b"dbio-7-42.tmp"), Some(7));
        assert_eq!(temp_pid(b".dbio-probe-99-3"), Some(99));
        for other in [
            &b"dbio-123.tmp"[..],
            b"dbio--0.tmp",
            b"dbio-12a-0.tmp",
            b"dbio-123-0.tmp.bak",
            b"xdbio-123-0.tmp",
            b"dbio-123-.tmp",
            b".dbio-probe-123",
            b".dbio-probe-x-0",
            b"dbio-probe-123-0",
        ] {
            assert_eq!(temp_pid(other), None, "{}", String::from_utf8_lossy(other));
        }
    }

    #[test]
    fn a_name_that_no_longer_refers_to_the_inode_is_not_removed() {
        let d = tempfile::tempdir_in(".").unwrap();
        let dir = open_dir(d.path()).unwrap();
        fs::write(d.path().join("f"), b"mine").unwrap();
        let st = rustix::fs::stat(d.path().join("f")).unwrap();
        fs::rename(d.path().join("f"), d.path().join("moved")).unwrap();
        fs::write(d.path().join("f"), b"someone else's").unwrap();
        assert!(!remove_if_same(&dir, OsStr::new("f"), st.st_dev, st.st_ino).unwrap());
        assert_eq!(fs::read(d.path().join("f")).unwrap(), b"someone else's");
        assert!(remove_if_same(&dir, OsStr::new("moved"), st.st_dev, st.st_ino).unwrap());
        assert!(!d.path().join("moved").exists());
    }
}
