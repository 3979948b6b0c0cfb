//! Where results go: the table on standard output, and the `--json`,
//! `--csv` and `--html` destinations. Every command's output files, and `calibrate
//! --save`, are written here and nowhere else, each rendered by its
//! exporter (`dbio_report::export`) from the one top-level result.
//!
//! dbio runs as root on servers holding real data, often in directories
//! other users own, so an output path is treated like a target: it is
//! opened and checked before anything is measured (a bad path costs
//! nothing), and it is never written through.
//!
//! - Only names typed as a descriptor write to one: `-` and `/dev/stdout`
//!   (standard output, taking the table's place), `/dev/stderr`,
//!   `/dev/fd/N`, `/proc/self/fd/N` and `/proc/thread-self/fd/N` write
//!   through descriptor N itself, as a shell's `>&N` does. They are matched
//!   on the name as typed, never by following links: a link planted as
//!   `out.json -> /proc/self/root/etc/passwd` or `-> /proc/PID/fd/N` is an
//!   ordinary destination below, replaced and never followed. Any other
//!   path in /proc is refused.
//! - Every other destination's directory is opened by
//!   [`dbio_engine::resolve`] (symbolic links followed only when root or
//!   the user running dbio owns them, magic links never), and its last
//!   component is examined in that directory without following it
//!   (`statat(dir, name, AT_SYMLINK_NOFOLLOW)`).
//! - Nothing there, a regular file, or a symbolic link (whatever it points
//!   at: a file, /proc, a device, a FIFO, a socket) is replaced: written
//!   beside itself, in a temporary `.<name>.dbio-<pid>-<random>.partial`
//!   created with `O_CREAT|O_EXCL|O_NOFOLLOW` in the directory (held open
//!   from validation to rename), synced, then renamed into place, so a full
//!   disk never leaves half a file. The new file is rw-r--r-- at most,
//!   whatever the umask.
//! - A character device or FIFO the user named itself is opened relative
//!   to the directory with `O_NOFOLLOW|O_NONBLOCK|O_NOCTTY` and written as
//!   a stream, never replaced: a FIFO with no reader fails at once (ENXIO)
//!   instead of hanging, and `O_NONBLOCK` is cleared once it is open. The
//!   descriptor must be the node that was examined (fstat).
//! - A socket the user named itself is opened `O_PATH|O_NOFOLLOW` relative
//!   to the directory, checked the same way, and connected through
//!   `/proc/self/fd/N` of that descriptor (as systemd's
//!   `connect_unix_path` does): the socket connected is the inode checked,
//!   and no link is followed on the way (a connect by name would follow a
//!   link swapped into the last component).
//! - A block device is refused.
//!
//! Findings (`dbio_report::findings`) are drawn from the report here,
//! each time it is saved or printed.
//!
//! Results are saved after each job (regular files only), so an error in a
//! later job does not lose an earlier one. When saving fails after the
//! measurement, the table is still printed, one sentence names the file
//! and the OS error, and dbio exits with status 1.

use crate::cli::OutputArgs;
use anyhow::bail;
use dbio_model::{Outcome, RunReport};
use dbio_report::Format;
use rustix::fs::{AtFlags, FileType, Mode, OFlags};
use std::ffi::{OsStr, OsString};
use std::fs::File;
use std::io::Write;
use std::os::fd::{AsRawFd, OwnedFd};
use std::os::unix::ffi::OsStrExt;
use std::path::Path;

/// One destination, opened and checked.
pub enum Sink {
    /// Standard output (`-`, or a path that is standard output).
    Stdout,
    /// A character device, FIFO, socket or standard error: written in place.
    Stream(File),
    /// A regular file, replaced atomically by rename.
    File(AtomicFile),
}

/// A regular-file destination: its directory, held open, and its name.
pub struct AtomicFile {
    dir: OwnedFd,
    name: OsString,
}

/// What a destination is, to refuse one file named twice.
#[derive(Clone, PartialEq, Eq)]
pub enum Identity {
    Stdout,
    Node(u64, u64),
    Name(u64, u64, OsString),
}

/// A temporary name beside `name`: `.<name>.dbio-<pid>-<random>.partial`.
fn temp_name(name: &OsStr) -> OsString {
    use std::hash::{BuildHasher, Hasher};
    // RandomState is seeded from the OS's random source.
    let mut h = std::collections::hash_map::RandomState::new().build_hasher();
    h.write_u64(std::process::id().into());
    let mut t = OsString::from(".");
    t.push(name);
    t.push(format!(
        ".dbio-{}-{:016x}.partial",
        std::process::id(),
        h.finish()
    ));
    t
}

/// The process id in a temporary name [`temp_name`] gave `name`, if
/// `entry` is one.
fn partial_pid(entry: &[u8], name: &OsStr) -> Option<i32> {
    let rest = entry
        .strip_prefix(b".")?
        .strip_prefix(name.as_bytes())?
        .strip_prefix(b".dbio-")?
        .strip_suffix(b".partial")?;
    let (pid, tag) = std::str::from_utf8(rest).ok()?.split_once('-')?;
    (tag.len() == 16 && tag.bytes().all(|b| b.is_ascii_hexdigit())).then_some(())?;
    pid.parse().ok()
}

/// Removes the temporary files of `name` that a killed dbio left in `dir`
/// (SIGKILL between creating one and renaming it into place, issue 21
/// §8): a `.<name>.dbio-<pid>-<tag>.partial` whose process is gone, a
/// regular file with one link owned by the user running dbio, is removed
/// by `unlinkat` on the directory's descriptor (removing a name never
/// touches another name's file). Any other such name is left and named.
/// Returns one line per file removed or named.
fn remove_stale_partials(dir: &OwnedFd, name: &OsStr) -> Vec<String> {
    let Ok(dup) = rustix::io::fcntl_dupfd_cloexec(dir, 3) else {
        return Vec::new();
    };
    let Ok(entries) = rustix::fs::Dir::new(dup) else {
        return Vec::new();
    };
    let me = rustix::process::geteuid().as_raw();
    let mut lines = Vec::new();
    for e in entries.flatten() {
        let entry = e.file_name().to_bytes();
        let Some(pid) = partial_pid(entry, name) else {
            continue;
        };
        if !dbio_engine::target::process_gone(pid) {
            continue;
        }
        let shown = String::from_utf8_lossy(entry).into_owned();
        let ours =
            rustix::fs::statat(dir, e.file_name(), AtFlags::SYMLINK_NOFOLLOW).is_ok_and(|st| {
                FileType::from_raw_mode(st.st_mode) == FileType::RegularFile
                    && st.st_nlink == 1
                    && st.st_uid == me
            });
        if ours && rustix::fs::unlinkat(dir, e.file_name(), AtFlags::empty()).is_ok() {
            lines.push(format!(
                "removed {shown}, a partial result of dbio process {pid}, which was killed"
            ));
        } else {
            lines.push(format!(
                "{shown} looks like a partial result of dbio process {pid}, which is gone, but it is not a file dbio can tell it made (not a regular file with one link of this user's); left as it is"
            ));
        }
    }
    lines
}

impl AtomicFile {
    /// Checks that a file can be created in `dir` in place of `name`.
    fn at(shown: &str, dir: OwnedFd, name: &OsStr) -> anyhow::Result<AtomicFile> {
        let f = AtomicFile {
            dir,
            name: name.to_os_string(),
        };
        // Create and remove a temporary file now: a read-only or full
        // directory is found before the measurement, not after.
        let tmp = temp_name(&f.name);
        let fd = f
            .create(&tmp)
            .map_err(|e| anyhow::anyhow!("cannot write results to '{shown}': {e}"))?;
        drop(fd);
        let _ = rustix::fs::unlinkat(&f.dir, &tmp, AtFlags::empty());
        for line in remove_stale_partials(&f.dir, name) {
            crate::say::line(&format!("dbio: warning: {shown}: {line}"));
        }
        Ok(f)
    }

    fn create(&self, tmp: &OsStr) -> std::io::Result<OwnedFd> {
        Ok(rustix::fs::openat(
            &self.dir,
            tmp,
            OFlags::WRONLY | OFlags::CREATE | OFlags::EXCL | OFlags::NOFOLLOW | OFlags::CLOEXEC,
            Mode::from_raw_mode(dbio_engine::target::FILE_MODE),
        )?)
    }

    /// The owner and permission bits the new file takes over from the file
    /// it replaces, or `None` for dbio's default (the caller, 0644).
    ///
    /// Kept only when the old file belongs to the directory's owner (a
    /// DBA's own results directory, or root's file in root's directory): a
    /// file someone else planted in a shared directory such as /tmp must not
    /// decide who may change dbio's results. Only the read and write bits
    /// are kept (never execute, set-id or sticky). A symlink or anything but
    /// a regular file keeps nothing. The name is looked up again at each
    /// save, so a file swapped in between can only give its own owner and
    /// mode, under the same rule.
    fn kept_owner_and_mode(&self) -> Option<(u32, u32, u32)> {
        let old = rustix::fs::statat(&self.dir, &self.name, AtFlags::SYMLINK_NOFOLLOW).ok()?;
        let dir = rustix::fs::fstat(&self.dir).ok()?;
        (FileType::from_raw_mode(old.st_mode) == FileType::RegularFile && old.st_uid == dir.st_uid)
            .then_some((
                old.st_uid,
                old.st_gid,
                old.st_mode & dbio_engine::target::FILE_MODE,
            ))
    }

    /// Writes `bytes` to a temporary file, syncs it and renames it over
    /// the destination; the temporary file is removed on any error. A file
    /// replaced keeps its owner and mode where [`Self::kept_owner_and_mode`]
    /// allows.
    pub fn replace(&self, bytes: &[u8]) -> std::io::Result<()> {
        let tmp = temp_name(&self.name);
        let fd = self.create(&tmp)?;
        let kept = self.kept_owner_and_mode();
        let res = (|| {
            if let Some((uid, gid, mode)) = kept {
                // On the new file's descriptor, before it has a name anyone
                // else uses. Only root can give a file away; for anyone else
                // the owner stays theirs and the mode is still kept.
                let _ = rustix::fs::fchown(
                    &fd,
                    Some(rustix::fs::Uid::from_raw(uid)),
                    Some(rustix::fs::Gid::from_raw(gid)),
                );
                rustix::fs::fchmod(&fd, Mode::from_raw_mode(mode))?;
            }
            let mut f = File::from(fd);
            f.write_all(bytes)?;
            f.sync_all()?;
            drop(f);
            rustix::fs::renameat(&self.dir, &tmp, &self.dir, &self.name)?;
            // The rename is durable once the directory is synced; the file
            // is in place either way, so a filesystem that cannot sync a
            // directory is not an error.
            let _ = rustix::fs::fsync(&self.dir);
            Ok(())
        })();
        if res.is_err() {
            let _ = rustix::fs::unlinkat(&self.dir, &tmp, AtFlags::empty());
        }
        res
    }
}

/// What a destination typed as a descriptor name is.
#[derive(Debug, PartialEq, Eq)]
enum FdPath {
    /// Descriptor N of this process.
    Fd(i32),
    /// Another path in /proc: refused.
    Proc,
}

/// Whether `path`, as typed, names a descriptor: `/dev/stdout`,
/// `/dev/stderr`, `/dev/fd/N`, `/proc/self/fd/N`, `/proc/thread-self/fd/N`
/// (N decimal), or is any other path in /proc. No link is followed: a name
/// that only leads to one of these through a link is a file name like any
/// other.
fn fd_path(path: &Path) -> Option<FdPath> {
    let s = path.as_os_str().as_bytes();
    match s {
        b"/dev/stdout" => return Some(FdPath::Fd(1)),
        b"/dev/stderr" => return Some(FdPath::Fd(2)),
        _ => {}
    }
    for prefix in [
        &b"/dev/fd/"[..],
        b"/proc/self/fd/",
        b"/proc/thread-self/fd/",
    ] {
        if let Some(rest) = s.strip_prefix(prefix) {
            let digits = !rest.is_empty() && rest.len() <= 9 && rest.iter().all(u8::is_ascii_digit);
            if digits {
                return std::str::from_utf8(rest)
                    .ok()
                    .and_then(|n| n.parse().ok())
                    .map(FdPath::Fd);
            }
        }
    }
    (s == b"/proc" || s.starts_with(b"/proc/")).then_some(FdPath::Proc)
}

fn same(a: &rustix::fs::Stat, b: &rustix::fs::Stat) -> bool {
    a.st_dev == b.st_dev && a.st_ino == b.st_ino
}

/// The sentence for a path in /proc that is not this process's descriptor.
fn proc_refused(dest: &str) -> anyhow::Error {
    anyhow::anyhow!(
        "cannot write results to '{dest}': dbio writes in /proc only to its own descriptors, named as /proc/self/fd/N or /dev/fd/N; name a file elsewhere"
    )
}

/// Opens the directory of an output (or `--orion-csv`'s directory) by
/// [`dbio_engine::resolve`]'s rules, one sentence on failure.
pub fn open_dir(dest: &str, dir: &Path) -> anyhow::Result<OwnedFd> {
    use dbio_engine::resolve::DirError;
    let fd = dbio_engine::resolve::open_dir(dir).map_err(|e| match e {
        DirError::Refused(why) => anyhow::anyhow!("cannot write results to '{dest}': {why}"),
        DirError::Os(e) => anyhow::anyhow!(
            "cannot write results to '{dest}': its directory '{}' cannot be opened: {}",
            dir.display(),
            std::io::Error::from(e)
        ),
    })?;
    // /proc reached by a name that is not typed as /proc (`/dev/fd/x`, a
    // link to /proc/self/fd).
    if rustix::fs::fstatfs(&fd).is_ok_and(|s| s.f_type == rustix::fs::PROC_SUPER_MAGIC) {
        return Err(proc_refused(dest));
    }
    Ok(fd)
}

/// Whether `dir` is on devtmpfs (/dev). DEVTMPFS has no magic of its own:
/// it is a tmpfs mounted by the kernel, so it is told by the mount's
/// source (the device number a devtmpfs mount gets, compared with /dev's,
/// would miss a second devtmpfs mount elsewhere).
fn on_devtmpfs(dir: &OwnedFd) -> bool {
    let Ok(st) = rustix::fs::fstat(dir) else {
        return false;
    };
    let dev = format!(
        "{}:{}",
        rustix::fs::major(st.st_dev),
        rustix::fs::minor(st.st_dev)
    );
    std::fs::read_to_string("/proc/self/mountinfo").is_ok_and(|m| {
        m.lines().any(|l| {
            let f: Vec<&str> = l.split(' ').collect();
            let fstype = f.iter().position(|x| *x == "-").and_then(|i| f.get(i + 1));
            f.get(2) == Some(&dev.as_str()) && fstype == Some(&"devtmpfs")
        })
    })
}

impl Sink {
    /// Opens and checks `path` (`-` is standard output); `dest` is how
    /// messages name it.
    pub fn open(dest: &str, path: &Path) -> anyhow::Result<(Sink, Identity)> {
        if dest == "-" {
            return Ok((Sink::Stdout, Identity::Stdout));
        }
        if dest.is_empty() {
            bail!("an output file name is empty");
        }
        match fd_path(path) {
            Some(FdPath::Fd(n)) => return Self::fd(dest, n),
            Some(FdPath::Proc) => return Err(proc_refused(dest)),
            None => {}
        }
        let Some((dir, name)) = dbio_engine::resolve::split_entry(path) else {
            bail!("cannot write results to '{dest}': it does not name a file");
        };
        Self::at(dest, open_dir(dest, dir)?, name)
    }

    /// Opens and checks the entry `name` of the directory `dir`, examined
    /// without following it (see the module's documentation).
    pub fn at(dest: &str, dir: OwnedFd, name: &OsStr) -> anyhow::Result<(Sink, Identity)> {
        let fail = |e: std::io::Error| anyhow::anyhow!("cannot write results to '{dest}': {e}");
        let st = match rustix::fs::statat(&dir, name, AtFlags::SYMLINK_NOFOLLOW) {
            Ok(st) => st,
            Err(rustix::io::Errno::NOENT) => return Self::regular(dest, dir, name),
            Err(e) => return Err(fail(e.into())),
        };
        let kind = FileType::from_raw_mode(st.st_mode);
        match kind {
            // The system's own links in /dev (`/dev/stdin`, `/dev/./stdout`,
            // `/dev/disk/by-id/...`) lead to descriptors and devices: they
            // are neither followed nor replaced.
            FileType::Symlink if on_devtmpfs(&dir) => bail!(
                "cannot write results to '{dest}': it is a symbolic link in /dev (dbio neither follows nor replaces those); name the device or descriptor itself, such as /dev/stdout"
            ),
            // A link is replaced, whatever it points at.
            FileType::RegularFile | FileType::Symlink => {}
            FileType::Directory => bail!("cannot write results to '{dest}': it is a directory"),
            FileType::BlockDevice => bail!(
                "cannot write results to '{dest}': it is a block device (results go to a file, a character device, a FIFO or a socket)"
            ),
            _ => {}
        }
        let node = Identity::Node(st.st_dev, st.st_ino);
        if kind != FileType::Symlink {
            if rustix::fs::fstat(std::io::stdout()).is_ok_and(|o| same(&o, &st)) {
                return Ok((Sink::Stdout, Identity::Stdout));
            }
            if rustix::fs::fstat(std::io::stderr()).is_ok_and(|o| same(&o, &st)) {
                let fd = rustix::io::fcntl_dupfd_cloexec(std::io::stderr(), 3)?;
                return Ok((Sink::Stream(File::from(fd)), node));
            }
        }
        if matches!(kind, FileType::RegularFile | FileType::Symlink) {
            return Self::regular(dest, dir, name);
        }
        let socket = kind == FileType::Socket;
        let flags = if socket {
            OFlags::PATH | OFlags::NOFOLLOW | OFlags::CLOEXEC
        } else {
            // A character device or a FIFO: opened as it is, never created
            // or truncated, and never waited on.
            OFlags::WRONLY | OFlags::NOFOLLOW | OFlags::NONBLOCK | OFlags::NOCTTY | OFlags::CLOEXEC
        };
        let fd = match rustix::fs::openat(&dir, name, flags, Mode::empty()) {
            Ok(fd) => fd,
            Err(rustix::io::Errno::NXIO) if kind == FileType::Fifo => bail!(
                "cannot write results to '{dest}': it is a FIFO with no reader (dbio does not wait for one: start the reader first)"
            ),
            Err(e) => return Err(fail(e.into())),
        };
        // What was opened must be what was examined: anything swapped in
        // between (a regular file, a link) is refused, not written.
        if !rustix::fs::fstat(&fd).is_ok_and(|o| same(&o, &st) && o.st_mode == st.st_mode) {
            bail!("cannot write results to '{dest}': it changed while dbio opened it");
        }
        let f = if socket {
            let via = format!("/proc/self/fd/{}", fd.as_raw_fd());
            let s = std::os::unix::net::UnixStream::connect(via).map_err(fail)?;
            File::from(OwnedFd::from(s))
        } else {
            // O_NONBLOCK only kept the open from waiting; writes block.
            rustix::fs::fcntl_setfl(&fd, OFlags::empty()).map_err(|e| fail(e.into()))?;
            File::from(fd)
        };
        Ok((Sink::Stream(f), node))
    }

    /// `/dev/fd/N`, `/proc/self/fd/N`, `/dev/stdout`: descriptor N itself,
    /// written where it stands, as a shell's `>&N` would.
    fn fd(dest: &str, n: i32) -> anyhow::Result<(Sink, Identity)> {
        // SAFETY: N is only borrowed to duplicate it; a closed N fails
        // with EBADF.
        let borrowed = unsafe { std::os::fd::BorrowedFd::borrow_raw(n) };
        let dup = rustix::io::fcntl_dupfd_cloexec(borrowed, 3).map_err(|e| {
            anyhow::anyhow!(
                "cannot write results to '{dest}': {}",
                std::io::Error::from(e)
            )
        })?;
        Self::stream(File::from(dup))
    }

    /// A stream; standard output when it is the same file.
    fn stream(f: File) -> anyhow::Result<(Sink, Identity)> {
        let st = rustix::fs::fstat(&f)?;
        if rustix::fs::fstat(std::io::stdout()).is_ok_and(|o| same(&o, &st)) {
            return Ok((Sink::Stdout, Identity::Stdout));
        }
        Ok((Sink::Stream(f), Identity::Node(st.st_dev, st.st_ino)))
    }

    fn regular(dest: &str, dir: OwnedFd, name: &OsStr) -> anyhow::Result<(Sink, Identity)> {
        let f = AtomicFile::at(dest, dir, name)?;
        let d = rustix::fs::fstat(&f.dir)?;
        let id = Identity::Name(d.st_dev, d.st_ino, f.name.clone());
        Ok((Sink::File(f), id))
    }

    /// Writes `bytes`: standard output ignores a closed pipe (`| head`).
    pub fn write(&self, bytes: &[u8]) -> std::io::Result<()> {
        match self {
            Sink::Stdout => {
                let mut out = std::io::stdout().lock();
                match out.write_all(bytes).and_then(|_| out.flush()) {
                    Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
                    r => r,
                }
            }
            Sink::Stream(f) => {
                let mut f: &File = f;
                f.write_all(bytes)
            }
            Sink::File(a) => a.replace(bytes),
        }
    }
}

/// One requested output: where it goes and the exporter that renders it.
struct Destination {
    /// The destination as the user named it.
    name: String,
    sink: Sink,
    format: Format,
}

/// Every destination of one command (`--json`, `--csv`), opened and
/// checked: the one path by which every command's results reach a file.
pub struct Outputs {
    dests: Vec<Destination>,
    ids: Vec<Identity>,
}

impl Outputs {
    /// Opens and checks the `--json`, `--csv` and `--html` destinations;
    /// the same file twice is refused.
    pub fn open(
        json: Option<&str>,
        csv: Option<&str>,
        html: Option<&str>,
    ) -> anyhow::Result<Outputs> {
        let mut out = Outputs {
            dests: Vec::new(),
            ids: Vec::new(),
        };
        let mut flags: Vec<&str> = Vec::new();
        for (name, format, flag) in [
            (json, Format::Json, "--json"),
            (csv, Format::Csv, "--csv"),
            (html, Format::Html, "--html"),
        ] {
            let Some(name) = name else { continue };
            let (sink, id) = Sink::open(name, Path::new(name))?;
            if let Some(i) = out.ids.iter().position(|x| *x == id) {
                bail!(
                    "{} and {flag} name the same destination ('{name}'); give each its own",
                    flags[i]
                );
            }
            out.ids.push(id);
            flags.push(flag);
            out.dests.push(Destination {
                name: name.to_string(),
                sink,
                format,
            });
        }
        Ok(out)
    }

    /// Whether `id` is already the `--json` or `--csv` destination.
    pub fn names(&self, id: &Identity) -> bool {
        self.ids.contains(id)
    }

    /// The destinations of a command's [`OutputArgs`].
    pub fn for_run(o: &OutputArgs) -> anyhow::Result<Outputs> {
        Self::open(o.json.as_deref(), o.csv.as_deref(), o.html.as_deref())
    }

    fn stdout_taken(&self) -> bool {
        self.dests.iter().any(|d| matches!(d.sink, Sink::Stdout))
    }

    /// Saves a measurement's regular files only (after each step): best
    /// effort, the final [`Outputs::finish_run`] reports a failure.
    pub fn save(&self, r: &RunReport) {
        let result = with_invocation(&Outcome::Run(with_findings(r)));
        let html = html_exporter();
        for d in &self.dests {
            if let Sink::File(f) = &d.sink {
                let exporter: &dyn dbio_report::Exporter = match d.format {
                    Format::Html => &html,
                    f => f.exporter(),
                };
                if let Ok(text) = exporter.export(&result) {
                    let _ = f.replace(text.as_bytes());
                }
            }
        }
    }

    /// Writes the table (unless standard output is a destination), then
    /// every destination, each rendered by its exporter. Returns false
    /// after printing one sentence per output that could not be rendered
    /// or written.
    pub fn finish(&self, result: &Outcome) -> bool {
        let result = &with_invocation(result);
        let mut ok = true;
        let html = html_exporter();
        let mut put = |format: Format, name: Option<&str>, sink: &Sink| {
            let exporter: &dyn dbio_report::Exporter = match format {
                Format::Html => &html,
                f => f.exporter(),
            };
            let written = exporter
                .export(result)
                .map_err(|e| e.to_string())
                .and_then(|text| sink.write(text.as_bytes()).map_err(|e| e.to_string()));
            if let Err(e) = written {
                match name {
                    Some(n) => crate::say::line(&format!(
                        "dbio: error: cannot write results to '{n}': {e}"
                    )),
                    None => crate::say::line(&format!(
                        "dbio: error: cannot write the table to standard output: {e}"
                    )),
                }
                ok = false;
            }
        };
        if !self.stdout_taken() {
            put(Format::Table, None, &Sink::Stdout);
        }
        for d in &self.dests {
            put(d.format, Some(&d.name), &d.sink);
        }
        ok
    }

    /// Writes every requested output of a measurement, with its findings;
    /// false when a destination could not be written (the exit status is
    /// the run context's).
    pub fn finish_run(&self, r: &RunReport) -> bool {
        self.finish(&Outcome::Run(with_findings(r)))
    }
}

/// The HTML exporter: it takes the command line from the result
/// ([`with_invocation`] records it).
fn html_exporter() -> dbio_report::HtmlExporter {
    dbio_report::HtmlExporter::default()
}

/// This process's command line as the result model records it: words
/// with shell quoting, any password in a database URL or `password=`
/// keyword replaced by `***` (the same redaction `dbio load` applies to
/// its target). None for `dbio report`, which re-renders a saved result
/// and keeps the command line that result recorded.
fn invocation() -> Option<String> {
    let args: Vec<String> = std::env::args_os()
        .map(|a| a.to_string_lossy().into_owned())
        .collect();
    if args.get(1).is_some_and(|a| a == "report") {
        return None;
    }
    Some(shell_words(&redacted(&args)))
}

/// `args` with passwords redacted; words that hold none stay as typed.
fn redacted(args: &[String]) -> Vec<String> {
    args.iter()
        .map(|a| {
            if a.contains("://") || a.to_ascii_lowercase().contains("password") {
                dbio_load::target::redact(a)
            } else {
                a.clone()
            }
        })
        .collect()
}

/// The result with this process's command line recorded, unless it holds
/// one already (a saved result re-rendered).
fn with_invocation(result: &Outcome) -> Outcome {
    let mut r = result.clone();
    let Some(inv) = invocation() else {
        return r;
    };
    let slot = match &mut r {
        Outcome::Run(x) => &mut x.invocation,
        Outcome::Trace(x) => &mut x.invocation,
        Outcome::TraceComparison(x) => &mut x.invocation,
        Outcome::Awr(x) => &mut x.invocation,
        Outcome::AwrComparison(x) => &mut x.invocation,
        Outcome::Comparison(x) => &mut x.invocation,
        Outcome::AwrTrend(x) => &mut x.invocation,
    };
    if slot.is_none() {
        *slot = Some(inv);
    }
    r
}

/// A command line as a shell would take it back: words with anything
/// beyond `[A-Za-z0-9_./:=,+-]` single-quoted.
fn shell_words(args: &[String]) -> String {
    args.iter()
        .map(|a| {
            let plain = !a.is_empty()
                && a.chars()
                    .all(|c| c.is_ascii_alphanumeric() || "_./:=,+-@%".contains(c));
            if plain {
                a.clone()
            } else {
                format!("'{}'", a.replace('\'', "'\\''"))
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// The report with its findings drawn from what it holds now: every
/// measuring command's result passes through here, so the table, JSON and
/// CSV carry the same findings, and a save after each step carries those
/// of the steps that ran. The commands themselves write no conclusions,
/// only notes of what they noticed while running ([`Finding::note`]):
/// those follow the drawn findings.
///
/// [`Finding::note`]: dbio_model::Finding::note
fn with_findings(r: &RunReport) -> RunReport {
    let mut r = r.clone();
    let notes = std::mem::take(&mut r.findings);
    r.findings = dbio_report::findings::evaluate(&r);
    r.findings.extend(notes);
    r
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A killed run's temporary result file is removed by the next run
    /// that writes the same destination; one of a live process, of another
    /// destination, or with a malformed tag is not touched, and one that
    /// is not a plain file is named and left. See: issue 21 §8.
    #[test]
    fn a_killed_runs_partial_result_is_removed_by_the_next_save() {
        let d = tempfile::tempdir().unwrap();
        let dead = {
            let mut c = std::process::Command::new("true").spawn().unwrap();
            let pid = c.id();
            c.wait().unwrap();
            pid
        };
        let live = std::process::id();
        let tag = "0123456789abcdef";
        let stale = format!(".r.json.dbio-{dead}-{tag}.partial");
        let keep = [
            format!(".r.json.dbio-{live}-{tag}.partial"),
            format!(".other.json.dbio-{dead}-{tag}.partial"),
            format!(".r.json.dbio-{dead}-xyz.partial"),
        ];
        for n in std::iter::once(&stale).chain(&keep) {
            std::fs::write(d.path().join(n), "half").unwrap();
        }
        let odd = format!(".r.json.dbio-{dead}-fedcba9876543210.partial");
        std::os::unix::fs::symlink("elsewhere", d.path().join(&odd)).unwrap();
        let dir =
            rustix::fs::open(d.path(), OFlags::RDONLY | OFlags::DIRECTORY, Mode::empty()).unwrap();
        let mut lines = remove_stale_partials(&dir, OsStr::new("r.json"));
        lines.sort();
        assert_eq!(lines.len(), 2, "{lines:?}");
        assert!(
            lines[0].contains(&odd) && lines[0].contains("left as it is"),
            "{lines:?}"
        );
        assert!(
            lines[1].starts_with(&format!("removed {stale}")),
            "{lines:?}"
        );
        assert!(!d.path().join(&stale).exists());
        for n in &keep {
            assert!(d.path().join(n).exists(), "{n}");
        }
        assert!(d.path().join(&odd).symlink_metadata().is_ok());
    }

    #[test]
    fn a_recorded_command_line_hides_passwords_and_quotes_words() {
        let args: Vec<String> = [
            "dbio",
            "load",
            "--target",
            "postgres://dbio:s3cret@127.0.0.1:5499/dbio",
            "--name",
            "a b",
            "host=h password=x",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        assert_eq!(
            shell_words(&redacted(&args)),
            "dbio load --target 'postgres://dbio:***@127.0.0.1:5499/dbio' --name 'a b' 'host=h password=***'"
        );
    }

    #[test]
    fn descriptor_paths_are_recognised_as_typed_never_through_symlinks() {
        let d = tempfile::tempdir().unwrap();
        let link = d.path().join("out");
        std::os::unix::fs::symlink("/dev/stdout", &link).unwrap();
        // A link that leads to a descriptor is a file name like any other
        // (it is replaced, never followed).
        assert_eq!(fd_path(&link), None);
        assert_eq!(fd_path(Path::new("/dev/stdout")), Some(FdPath::Fd(1)));
        assert_eq!(fd_path(Path::new("/dev/stderr")), Some(FdPath::Fd(2)));
        assert_eq!(fd_path(Path::new("/dev/fd/7")), Some(FdPath::Fd(7)));
        assert_eq!(fd_path(Path::new("/proc/self/fd/3")), Some(FdPath::Fd(3)));
        assert_eq!(
            fd_path(Path::new("/proc/thread-self/fd/12")),
            Some(FdPath::Fd(12))
        );
        for other in [
            "/proc/1/fd/3",
            "/proc/self/root/etc/passwd",
            "/proc/self/fd/3/x",
            "/proc/self/fd/",
            "/proc",
        ] {
            assert_eq!(fd_path(Path::new(other)), Some(FdPath::Proc), "{other}");
        }
        assert_eq!(fd_path(Path::new("/dev/fd/x")), None);
        assert_eq!(fd_path(Path::new("/dev/./stdout")), None);
        assert!(fd_path(&d.path().join("plain.json")).is_none());
        let a = temp_name(OsStr::new("r.json"));
        let b = temp_name(OsStr::new("r.json"));
        assert_ne!(a, b, "temporary names are random");
        let a = a.to_string_lossy();
        assert!(
            a.starts_with(&format!(".r.json.dbio-{}-", std::process::id()))
                && a.ends_with(".partial"),
            "{a}"
        );
    }
}
