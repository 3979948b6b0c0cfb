//! Where results go: the table on standard output, and the `--json`,
//! `--csv` and `--html` destinations. Every command's output files, and `calibrate
//! --save`, are written here and nowhere else, each rendered by its
//! exporter (`dbio_report::export`) from the one top-level result.
//!
//! dbio runs as root on servers holding real data, so an output path is
//! treated like a target: it is opened and checked before anything is
//! measured (a bad path costs nothing), and it is never written through.
//! A regular-file destination is written beside itself, in a temporary
//! `.<name>.dbio-<pid>-<random>.partial` created with `O_CREAT|O_EXCL|
//! O_NOFOLLOW` in the destination's directory (held open from validation
//! to rename), synced, then renamed into place: a symlink named as the
//! destination is replaced, never followed, and a full disk never leaves
//! half a file. A character device, FIFO or socket (`/dev/null`, a pipe)
//! is opened without `O_CREAT` and written as a stream, never replaced;
//! `/dev/fd/N`, `/proc/self/fd/N` and `/dev/stdout` write through the
//! descriptor itself, as a shell's `>&N` does; a destination that is
//! standard output takes the table's place, as `-` does.
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
use std::os::fd::OwnedFd;
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

impl AtomicFile {
    /// Opens `path`'s directory and checks that a file can be created there.
    fn open(shown: &str, path: &Path) -> anyhow::Result<AtomicFile> {
        let Some(name) = path.file_name() else {
            bail!("cannot write results to '{shown}': it does not name a file");
        };
        let dir_path = match path.parent() {
            Some(p) if !p.as_os_str().is_empty() => p,
            _ => Path::new("."),
        };
        let dir = rustix::fs::open(
            dir_path,
            OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC,
            Mode::empty(),
        )
        .map_err(|e| {
            anyhow::anyhow!(
                "cannot write results to '{shown}': its directory '{}' cannot be opened: {}",
                dir_path.display(),
                std::io::Error::from(e)
            )
        })?;
        if let Ok(st) = rustix::fs::statat(&dir, name, AtFlags::SYMLINK_NOFOLLOW) {
            if FileType::from_raw_mode(st.st_mode) == FileType::Directory {
                bail!("cannot write results to '{shown}': it is a directory");
            }
        }
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
        Ok(f)
    }

    fn create(&self, tmp: &OsStr) -> std::io::Result<OwnedFd> {
        Ok(rustix::fs::openat(
            &self.dir,
            tmp,
            OFlags::WRONLY | OFlags::CREATE | OFlags::EXCL | OFlags::NOFOLLOW | OFlags::CLOEXEC,
            Mode::from_raw_mode(0o644),
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
            .then_some((old.st_uid, old.st_gid, old.st_mode & 0o666))
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

/// A destination that is a file descriptor rather than a file name.
enum FdPath {
    /// Descriptor N of this process.
    Fd(i32),
    /// Something else under /proc (another process's descriptor).
    Proc,
}

/// Whether `path`, through ordinary symlinks, names a descriptor:
/// `/dev/stdout`, `/dev/stderr`, `/dev/fd/N`, `/proc/self/fd/N`, or
/// anything else in /proc. Such a path is never replaced.
fn fd_path(path: &Path) -> Option<FdPath> {
    let mut p = path.to_path_buf();
    for _ in 0..40 {
        let s = p.to_string_lossy();
        let num = |rest: &str| rest.parse::<i32>().ok().map(FdPath::Fd);
        match &*s {
            "/dev/stdout" => return Some(FdPath::Fd(1)),
            "/dev/stderr" => return Some(FdPath::Fd(2)),
            _ => {}
        }
        for prefix in ["/dev/fd/", "/proc/self/fd/", "/proc/thread-self/fd/"] {
            if let Some(rest) = s.strip_prefix(prefix) {
                return num(rest).or(Some(FdPath::Proc));
            }
        }
        if s.starts_with("/proc/") {
            return Some(FdPath::Proc);
        }
        let target = std::fs::read_link(&p).ok()?;
        p = match p.parent() {
            Some(dir) if target.is_relative() => dir.join(target),
            _ => target,
        };
    }
    None
}

fn same(a: &rustix::fs::Stat, b: &rustix::fs::Stat) -> bool {
    a.st_dev == b.st_dev && a.st_ino == b.st_ino
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
            Some(FdPath::Proc) => {
                // Another process's descriptor: written in place, appended.
                return rustix::fs::open(
                    path,
                    OFlags::WRONLY | OFlags::APPEND | OFlags::NOCTTY | OFlags::CLOEXEC,
                    Mode::empty(),
                )
                .map_err(|e| {
                    anyhow::anyhow!(
                        "cannot write results to '{dest}': {}",
                        std::io::Error::from(e)
                    )
                })
                .and_then(|fd| Self::stream(File::from(fd)));
            }
            None => {}
        }
        let st = match rustix::fs::stat(path) {
            Ok(st) => st,
            // Nothing there, or a symlink to nothing: a new regular file
            // (the symlink itself is replaced, its target never created).
            Err(rustix::io::Errno::NOENT) => return Self::regular(dest, path),
            Err(e) => bail!(
                "cannot write results to '{dest}': {}",
                std::io::Error::from(e)
            ),
        };
        let node = Identity::Node(st.st_dev, st.st_ino);
        if rustix::fs::fstat(std::io::stdout()).is_ok_and(|o| same(&o, &st)) {
            return Ok((Sink::Stdout, Identity::Stdout));
        }
        if rustix::fs::fstat(std::io::stderr()).is_ok_and(|o| same(&o, &st)) {
            let fd = rustix::io::fcntl_dupfd_cloexec(std::io::stderr(), 3)?;
            return Ok((Sink::Stream(File::from(fd)), node));
        }
        let stream = match FileType::from_raw_mode(st.st_mode) {
            FileType::RegularFile => return Self::regular(dest, path),
            FileType::Directory => bail!("cannot write results to '{dest}': it is a directory"),
            FileType::BlockDevice => bail!(
                "cannot write results to '{dest}': it is a block device (results go to a file, a character device, a FIFO or a socket)"
            ),
            FileType::Socket => std::os::unix::net::UnixStream::connect(path)
                .map(|s| File::from(OwnedFd::from(s))),
            // A character device or a FIFO: opened as it is, never
            // created or truncated. A FIFO's open waits for its reader.
            _ => rustix::fs::open(
                path,
                OFlags::WRONLY | OFlags::NOCTTY | OFlags::CLOEXEC,
                Mode::empty(),
            )
            .map(File::from)
            .map_err(std::io::Error::from),
        };
        let f = match stream {
            Ok(f) => f,
            Err(e) => bail!("cannot write results to '{dest}': {e}"),
        };
        // What was opened must be what was checked: a regular file swapped
        // in between would be written over in place, not replaced.
        let socket = FileType::from_raw_mode(st.st_mode) == FileType::Socket;
        if !socket && !rustix::fs::fstat(&f).is_ok_and(|o| same(&o, &st)) {
            bail!("cannot write results to '{dest}': it changed while dbio opened it");
        }
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

    fn regular(dest: &str, path: &Path) -> anyhow::Result<(Sink, Identity)> {
        let f = AtomicFile::open(dest, path)?;
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
/// of the steps that ran. The commands themselves write no conclusions.
fn with_findings(r: &RunReport) -> RunReport {
    let mut r = r.clone();
    r.findings = dbio_report::findings::evaluate(&r);
    r
}

#[cfg(test)]
mod tests {
    use super::*;

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
    fn descriptor_paths_are_recognised_through_symlinks() {
        let d = tempfile::tempdir().unwrap();
        let link = d.path().join("out");
        std::os::unix::fs::symlink("/dev/stdout", &link).unwrap();
        assert!(matches!(fd_path(&link), Some(FdPath::Fd(1))));
        assert!(matches!(
            fd_path(Path::new("/dev/fd/7")),
            Some(FdPath::Fd(7))
        ));
        assert!(matches!(
            fd_path(Path::new("/proc/self/fd/3")),
            Some(FdPath::Fd(3))
        ));
        assert!(matches!(
            fd_path(Path::new("/proc/1/fd/3")),
            Some(FdPath::Proc)
        ));
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
