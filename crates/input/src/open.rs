//! Opening a named input: standard input, a descriptor named by path, or a
//! regular file, decided on the descriptor (see the crate's documentation).

use rustix::fs::{FileType, Mode, OFlags};
use std::fs::File;
use std::io;
use std::path::Path;

/// Where an input's bytes come from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Origin {
    /// Standard input, named as `-`.
    Stdin,
    /// A descriptor the process already holds, named as `/dev/stdin`,
    /// `/dev/fd/N` or `/proc/self/fd/N`: read as it is (a pipe too).
    Descriptor,
    /// A regular file, opened by dbio.
    File,
}

/// An opened input.
#[derive(Debug)]
pub struct Input {
    /// The name to show: the path as given, or "standard input".
    pub name: String,
    /// Where it comes from.
    pub origin: Origin,
    /// Its size when it is a regular file (known before reading).
    pub len: Option<u64>,
    /// The descriptor, in blocking mode.
    pub file: File,
}

fn said(msg: String) -> io::Error {
    io::Error::other(msg)
}

/// The descriptor a path names without naming a file: `/dev/stdin`,
/// `/dev/fd/N` and `/proc/self/fd/N` (the forms bash, zsh and systemd
/// hand out).
fn descriptor_named(path: &Path) -> Option<i32> {
    let s = path.to_str()?;
    if s == "/dev/stdin" {
        return Some(0);
    }
    let n = s
        .strip_prefix("/dev/fd/")
        .or_else(|| s.strip_prefix("/proc/self/fd/"))?;
    // Digits only: "/dev/fd/3/../x" is a path, not a descriptor.
    if n.is_empty() || !n.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    n.parse().ok()
}

/// What a file that is not a regular file is, for the refusal.
fn what(t: FileType) -> &'static str {
    match t {
        FileType::Directory => "a directory",
        FileType::Fifo => "a FIFO (named pipe)",
        FileType::Socket => "a socket",
        FileType::CharacterDevice => "a character device",
        FileType::BlockDevice => "a block device",
        FileType::Symlink => "a symbolic link",
        _ => "not a regular file",
    }
}

/// The sentence that refuses `name`, which is `kind`.
fn refusal(name: &str, kind: &str) -> io::Error {
    said(format!(
        "{name} is {kind}, not a regular file: dbio reads only regular files by name (a pipe or device could block or never end); to read a pipe, give - and redirect it to standard input"
    ))
}

/// Opens the input named `path`: `-` is standard input; `/dev/stdin`,
/// `/dev/fd/N` and `/proc/self/fd/N` are the descriptors they name; any
/// other path must be a regular file (a directory, FIFO, socket or device
/// is refused in one sentence that says which). Every error is one
/// sentence that names the input.
pub fn open(path: &Path) -> io::Result<Input> {
    if path.as_os_str() == "-" {
        return dup(0, "standard input".into(), Origin::Stdin);
    }
    let name = path.display().to_string();
    if let Some(fd) = descriptor_named(path) {
        return dup(fd, name, Origin::Descriptor);
    }
    let flags = OFlags::RDONLY | OFlags::NONBLOCK | OFlags::NOCTTY | OFlags::CLOEXEC;
    let fd = match rustix::fs::open(path, flags, Mode::empty()) {
        Ok(fd) => fd,
        // A Unix socket cannot be opened (ENXIO): say what it is. The
        // path is looked at again only to word the refusal.
        Err(rustix::io::Errno::NXIO) => {
            let kind = rustix::fs::stat(path)
                .map(|st| what(FileType::from_raw_mode(st.st_mode)))
                .unwrap_or("a device with no driver");
            return Err(refusal(&name, kind));
        }
        Err(e) => return Err(said(format!("cannot read {name}: {}", io::Error::from(e)))),
    };
    let st = rustix::fs::fstat(&fd).map_err(|e| said(format!("cannot read {name}: {e}")))?;
    let t = FileType::from_raw_mode(st.st_mode);
    if t != FileType::RegularFile {
        return Err(refusal(&name, what(t)));
    }
    // Reads of a regular file never return EAGAIN, but a reader should see
    // an ordinary blocking descriptor all the same.
    rustix::fs::fcntl_setfl(&fd, flags - OFlags::NONBLOCK - OFlags::CLOEXEC)
        .map_err(|e| said(format!("cannot read {name}: {e}")))?;
    Ok(Input {
        name,
        origin: Origin::File,
        len: Some(st.st_size as u64),
        file: File::from(fd),
    })
}

/// A duplicate of descriptor `fd` (the caller's stays as it is). A
/// directory is refused; anything else is read as it is.
fn dup(fd: i32, name: String, origin: Origin) -> io::Result<Input> {
    // SAFETY: the descriptor is only borrowed for the fcntl that duplicates
    // it; a number that is not open makes fcntl fail with EBADF.
    let held = unsafe { std::os::fd::BorrowedFd::borrow_raw(fd) };
    let own = rustix::io::fcntl_dupfd_cloexec(held, 3).map_err(|e| {
        if e == rustix::io::Errno::BADF {
            said(format!("{name} is not open (descriptor {fd})"))
        } else {
            said(format!("cannot read {name}: {e}"))
        }
    })?;
    let st = rustix::fs::fstat(&own).map_err(|e| said(format!("cannot read {name}: {e}")))?;
    let t = FileType::from_raw_mode(st.st_mode);
    if t == FileType::Directory {
        return Err(said(format!("{name} is a directory, not a file")));
    }
    Ok(Input {
        name,
        origin,
        len: (t == FileType::RegularFile).then_some(st.st_size as u64),
        file: File::from(own),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn descriptor_names_are_digits_only() {
        assert_eq!(descriptor_named(Path::new("/dev/stdin")), Some(0));
        assert_eq!(descriptor_named(Path::new("/dev/fd/63")), Some(63));
        assert_eq!(descriptor_named(Path::new("/proc/self/fd/4")), Some(4));
        assert_eq!(descriptor_named(Path::new("/dev/fd/3/../x")), None);
        assert_eq!(descriptor_named(Path::new("/dev/fd/")), None);
        assert_eq!(descriptor_named(Path::new("/proc/1/fd/3")), None);
    }

    #[test]
    fn only_regular_files_are_opened_by_name() {
        let d = tempfile::tempdir().unwrap();
        let f = d.path().join("r.json");
        std::fs::write(&f, b"{}").unwrap();
        let i = open(&f).unwrap();
        assert_eq!((i.origin, i.len), (Origin::File, Some(2)));
        let flags = rustix::fs::fcntl_getfl(&i.file).unwrap();
        assert!(!flags.contains(OFlags::NONBLOCK), "{flags:?}");

        let e = open(d.path()).unwrap_err().to_string();
        assert!(e.contains("is a directory"), "{e}");
        let e = open(Path::new("/dev/zero")).unwrap_err().to_string();
        assert!(e.contains("is a character device"), "{e}");
        let fifo = d.path().join("p");
        rustix::fs::mknodat(
            rustix::fs::CWD,
            &fifo,
            FileType::Fifo,
            Mode::from_raw_mode(0o600),
            0,
        )
        .unwrap();
        let e = open(&fifo).unwrap_err().to_string();
        assert!(e.contains("is a FIFO") && e.contains("give -"), "{e}");
        let e = open(&d.path().join("missing")).unwrap_err().to_string();
        assert!(
            e.starts_with("cannot read ") && e.contains("missing"),
            "{e}"
        );
    }
}
