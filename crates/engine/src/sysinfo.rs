//! The environment a result records: kernel, CPU, filesystem, block device
//! and its queue settings (sysfs), O_DIRECT alignment (statx), page-cache
//! residency (mincore) and the disk's counters (/proc/diskstats), in the
//! manner of fio's diskutil.c. Everything here is best effort: a missing
//! file yields `None`, never an error, because the environment describes a
//! run and must not prevent it.
//!
//! Helpers whose answer decides something about a target (its O_DIRECT
//! alignment, its filesystem, its page-cache state) come in a descriptor
//! variant (`*_fd`): a path can be changed under dbio by anyone who can
//! write to its directory, an open descriptor cannot.

use dbio_model::{BlockDevice, DioAlignment, DiskStatsDelta, Environment, PageCacheResidency};
use std::fs;
use std::os::fd::AsFd;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

fn read_trim(p: impl AsRef<Path>) -> Option<String> {
    fs::read_to_string(p).ok().map(|s| s.trim().to_string())
}

fn read_u64(p: impl AsRef<Path>) -> Option<u64> {
    read_trim(p)?.parse().ok()
}

/// The filesystem holding `path`, from /proc/self/mountinfo.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct MountInfo {
    /// Mount point.
    pub mount_point: String,
    /// Filesystem type.
    pub fs_type: String,
    /// Mount options (per-mount and superblock options).
    pub options: String,
    /// Mount source (device path or name).
    pub source: String,
}

/// Finds the mount that holds `path`: the longest mount point that prefixes
/// the canonical path among mounts of the same device number.
pub fn mount_of(path: &Path) -> Option<MountInfo> {
    let canon = fs::canonicalize(path).ok()?;
    let dev = fs::metadata(&canon).ok()?.dev();
    mount_of_dev(&canon, dev)
}

/// The path the kernel records for an open descriptor (/proc/self/fd).
fn fd_path(fd: impl AsFd) -> Option<PathBuf> {
    use std::os::fd::AsRawFd;
    fs::read_link(format!("/proc/self/fd/{}", fd.as_fd().as_raw_fd())).ok()
}

/// [`mount_of`] for the file open on `fd`.
pub fn mount_of_fd(fd: impl AsFd) -> Option<MountInfo> {
    let dev = rustix::fs::fstat(fd.as_fd()).ok()?.st_dev;
    let canon = fd_path(fd)?;
    mount_of_dev(&canon, dev)
}

fn mount_of_dev(canon: &Path, dev: u64) -> Option<MountInfo> {
    let (maj, min) = (libc::major(dev), libc::minor(dev));
    let text = fs::read_to_string("/proc/self/mountinfo").ok()?;
    let mut best: Option<MountInfo> = None;
    for line in text.lines() {
        // id parent maj:min root mountpoint options [optional...] - fstype source superopts
        let (pre, post) = line.split_once(" - ")?;
        let f: Vec<&str> = pre.split(' ').collect();
        if f.len() < 6 || f[2] != format!("{maj}:{min}") {
            continue;
        }
        let mp = unescape_mount(f[4]);
        if !canon.starts_with(&mp) {
            continue;
        }
        let p: Vec<&str> = post.split(' ').collect();
        let cand = MountInfo {
            mount_point: mp,
            fs_type: p.first().unwrap_or(&"").to_string(),
            source: p.get(1).unwrap_or(&"").to_string(),
            options: format!("{}; superblock {}", f[5], p.get(2).unwrap_or(&"")),
        };
        if best
            .as_ref()
            .is_none_or(|b| cand.mount_point.len() >= b.mount_point.len())
        {
            best = Some(cand);
        }
    }
    best
}

fn unescape_mount(s: &str) -> String {
    s.replace("\\040", " ")
        .replace("\\011", "\t")
        .replace("\\012", "\n")
        .replace("\\134", "\\")
}

/// The sysfs directory of the whole disk under `path` (or of the block
/// device `path` itself), and the partition name when there is one.
pub fn disk_of(path: &Path) -> Option<(PathBuf, Option<String>)> {
    let md = fs::metadata(path).ok()?;
    let dev = if std::os::unix::fs::FileTypeExt::is_block_device(&md.file_type()) {
        md.rdev()
    } else {
        md.dev()
    };
    disk_of_dev(dev)
}

/// [`disk_of`] for the file or block device open on `fd`.
pub fn disk_of_fd(fd: impl AsFd) -> Option<(PathBuf, Option<String>)> {
    let st = rustix::fs::fstat(fd).ok()?;
    let block =
        rustix::fs::FileType::from_raw_mode(st.st_mode) == rustix::fs::FileType::BlockDevice;
    disk_of_dev(if block { st.st_rdev } else { st.st_dev })
}

fn disk_of_dev(dev: u64) -> Option<(PathBuf, Option<String>)> {
    let (maj, min) = (libc::major(dev), libc::minor(dev));
    if maj == 0 {
        return None; // tmpfs, overlay, ...: no block device
    }
    let sys = fs::canonicalize(format!("/sys/dev/block/{maj}:{min}")).ok()?;
    if sys.join("partition").exists() {
        let part = sys.file_name()?.to_string_lossy().to_string();
        Some((sys.parent()?.to_path_buf(), Some(part)))
    } else {
        Some((sys, None))
    }
}

/// A block device's identity and queue settings.
pub fn block_device(sys: &Path, partition: Option<String>) -> BlockDevice {
    let q = sys.join("queue");
    BlockDevice {
        name: sys
            .file_name()
            .map(|n| n.to_string_lossy().to_string())
            .unwrap_or_default(),
        partition,
        model: read_trim(sys.join("device/model")).filter(|s| !s.is_empty()),
        rotational: read_u64(q.join("rotational")).map(|v| v == 1),
        scheduler: read_trim(q.join("scheduler")).map(|s| {
            s.split_whitespace()
                .find(|w| w.starts_with('['))
                .map(|w| w.trim_matches(|c| c == '[' || c == ']').to_string())
                .unwrap_or(s)
        }),
        logical_block_size: read_u64(q.join("logical_block_size")),
        physical_block_size: read_u64(q.join("physical_block_size")),
        write_cache: read_trim(q.join("write_cache")),
        fua: read_u64(q.join("fua")).map(|v| v == 1),
        nr_requests: read_u64(q.join("nr_requests")),
        read_ahead_kb: read_u64(q.join("read_ahead_kb")),
    }
}

/// Raw /proc/diskstats counters of one disk.
#[derive(Debug, Clone, Default)]
pub struct DiskCounters {
    name: String,
    fields: Vec<u64>,
}

/// Reads the /proc/diskstats line of disk `name`.
pub fn disk_counters(name: &str) -> Option<DiskCounters> {
    let text = fs::read_to_string("/proc/diskstats").ok()?;
    for line in text.lines() {
        let mut it = line.split_whitespace();
        let _maj = it.next();
        let _min = it.next();
        if it.next() == Some(name) {
            return Some(DiskCounters {
                name: name.to_string(),
                fields: it.filter_map(|f| f.parse().ok()).collect(),
            });
        }
    }
    None
}

impl DiskCounters {
    /// Counters from `earlier` to `self` (Documentation/admin-guide/iostats.rst:
    /// fields 1-11 always, discards 12-15 since 4.18, flushes 16-17 since 5.5).
    pub fn delta(&self, earlier: &DiskCounters) -> DiskStatsDelta {
        let d = |i: usize| -> u64 {
            self.fields
                .get(i)
                .zip(earlier.fields.get(i))
                .map_or(0, |(a, b)| a.saturating_sub(*b))
        };
        let has_flush = self.fields.len() >= 17;
        DiskStatsDelta {
            device: self.name.clone(),
            reads: d(0),
            read_merges: d(1),
            read_sectors: d(2),
            read_ms: d(3),
            writes: d(4),
            write_merges: d(5),
            write_sectors: d(6),
            write_ms: d(7),
            io_ms: d(9),
            queue_ms: d(10),
            flushes: has_flush.then(|| d(15)),
            flush_ms: has_flush.then(|| d(16)),
        }
    }
}

/// O_DIRECT alignment of `path` from statx (Linux 6.1+), when reported.
pub fn dio_alignment(path: &Path) -> Option<DioAlignment> {
    use rustix::fs::{statx, AtFlags, StatxFlags, CWD};
    dio_alignment_of(statx(CWD, path, AtFlags::empty(), StatxFlags::DIOALIGN).ok()?)
}

/// [`dio_alignment`] of the file open on `fd`.
pub fn dio_alignment_fd(fd: impl AsFd) -> Option<DioAlignment> {
    use rustix::fs::{statx, AtFlags, StatxFlags};
    dio_alignment_of(statx(fd, "", AtFlags::EMPTY_PATH, StatxFlags::DIOALIGN).ok()?)
}

fn dio_alignment_of(st: rustix::fs::Statx) -> Option<DioAlignment> {
    use rustix::fs::StatxFlags;
    if st.stx_mask & StatxFlags::DIOALIGN.bits() == 0 || st.stx_dio_offset_align == 0 {
        return None;
    }
    Some(DioAlignment {
        mem_align: st.stx_dio_mem_align,
        offset_align: st.stx_dio_offset_align,
    })
}

/// How much of the regular file `path` is in the page cache (mmap + mincore).
pub fn page_cache_residency(path: &Path) -> Option<PageCacheResidency> {
    use std::os::unix::fs::OpenOptionsExt;
    // O_NONBLOCK: a FIFO swapped in for the file must not hang dbio.
    let f = fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK | libc::O_NOCTTY)
        .open(path)
        .ok()?;
    page_cache_residency_fd(&f)
}

/// [`page_cache_residency`] of the open `file`.
pub fn page_cache_residency_fd(file: &fs::File) -> Option<PageCacheResidency> {
    let md = file.metadata().ok()?;
    if !md.is_file() {
        return None;
    }
    let len = md.len() as usize;
    // SAFETY: sysconf has no memory-safety preconditions.
    let page = unsafe { libc::sysconf(libc::_SC_PAGESIZE) } as usize;
    let pages = len.div_ceil(page);
    if len == 0 {
        return Some(PageCacheResidency {
            resident_pages: 0,
            total_pages: 0,
            page_size: page as u64,
        });
    }
    use std::os::fd::AsRawFd;
    // SAFETY: a read-only shared mapping of an open file; unmapped below and
    // never dereferenced (mincore only inspects residency).
    let addr = unsafe {
        libc::mmap(
            std::ptr::null_mut(),
            len,
            libc::PROT_READ,
            libc::MAP_SHARED,
            file.as_raw_fd(),
            0,
        )
    };
    if addr == libc::MAP_FAILED {
        return None;
    }
    let mut vec = vec![0u8; pages];
    // SAFETY: addr/len is our mapping; vec has one byte per page.
    let rc = unsafe { libc::mincore(addr, len, vec.as_mut_ptr()) };
    // SAFETY: unmapping what we mapped.
    unsafe { libc::munmap(addr, len) };
    if rc != 0 {
        return None;
    }
    Some(PageCacheResidency {
        resident_pages: vec.iter().filter(|&&b| b & 1 == 1).count() as u64,
        total_pages: pages as u64,
        page_size: page as u64,
    })
}

/// Drops the page-cache pages of `path` (POSIX_FADV_DONTNEED; dirty pages
/// are written first by fdatasync so none is lost).
pub fn drop_from_page_cache(path: &Path) -> std::io::Result<()> {
    drop_from_page_cache_fd(&fs::OpenOptions::new().read(true).open(path)?)
}

/// [`drop_from_page_cache`] for the open `file`.
pub fn drop_from_page_cache_fd(f: &fs::File) -> std::io::Result<()> {
    rustix::fs::fdatasync(f)?;
    rustix::fs::fadvise(f, 0, None, rustix::fs::Advice::DontNeed)?;
    Ok(())
}

fn cpu_model() -> String {
    fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|t| {
            t.lines()
                .find(|l| l.starts_with("model name"))
                .and_then(|l| l.split_once(':'))
                .map(|(_, v)| v.trim().to_string())
        })
        .unwrap_or_else(|| "unknown".into())
}

fn loadavg() -> [f64; 3] {
    let t = read_trim("/proc/loadavg").unwrap_or_default();
    let v: Vec<f64> = t
        .split_whitespace()
        .take(3)
        .filter_map(|x| x.parse().ok())
        .collect();
    [
        v.first().copied().unwrap_or(0.0),
        v.get(1).copied().unwrap_or(0.0),
        v.get(2).copied().unwrap_or(0.0),
    ]
}

/// MemAvailable from /proc/meminfo, bytes (None when unreadable).
pub fn mem_available() -> Option<u64> {
    fs::read_to_string("/proc/meminfo").ok().and_then(|t| {
        t.lines()
            .find(|l| l.starts_with("MemAvailable:"))
            .and_then(|l| l.split_whitespace().nth(1))
            .and_then(|v| v.parse::<u64>().ok())
            .map(|kb| kb * 1024)
    })
}

fn mem_total() -> u64 {
    fs::read_to_string("/proc/meminfo")
        .ok()
        .and_then(|t| {
            t.lines()
                .find(|l| l.starts_with("MemTotal:"))
                .and_then(|l| l.split_whitespace().nth(1))
                .and_then(|v| v.parse::<u64>().ok())
        })
        .map_or(0, |kb| kb * 1024)
}

/// Gathers the environment of a run on `target` (a file or directory).
pub fn environment(target: &Path) -> Environment {
    let uts = rustix::system::uname();
    // A file not made yet will lie in its directory; a block device is on
    // no filesystem (the one that holds its /dev node says nothing of it).
    let md = fs::metadata(target).ok();
    let block = md
        .as_ref()
        .is_some_and(|m| std::os::unix::fs::FileTypeExt::is_block_device(&m.file_type()));
    let place = match (&md, target.parent()) {
        (None, Some(dir)) if !dir.as_os_str().is_empty() => dir,
        (None, _) => Path::new("."),
        (Some(_), _) => target,
    };
    let mount = if block {
        MountInfo::default()
    } else {
        mount_of(place).unwrap_or_default()
    };
    let device = disk_of(place).map(|(sys, part)| block_device(&sys, part));
    let file = md.as_ref().is_some_and(|m| m.is_file());
    Environment {
        hostname: uts.nodename().to_string_lossy().to_string(),
        kernel: uts.release().to_string_lossy().to_string(),
        cpu_model: cpu_model(),
        cpus: std::thread::available_parallelism().map_or(1, |n| n.get()),
        memory_bytes: mem_total(),
        loadavg: loadavg(),
        target: target.display().to_string(),
        fs_type: mount.fs_type,
        mount_point: mount.mount_point,
        mount_options: mount.options,
        device,
        dio_alignment: dio_alignment(target),
        cached_before: if file {
            page_cache_residency(target)
        } else {
            None
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::{Read, Write};

    #[test]
    fn mount_of_root_exists() {
        let m = mount_of(Path::new("/")).expect("/ is mounted");
        assert_eq!(m.mount_point, "/");
        assert!(!m.fs_type.is_empty());
    }

    #[test]
    fn buffered_read_brings_file_into_page_cache() {
        let dir = tempfile::tempdir_in(".").unwrap();
        let p = dir.path().join("f");
        let mut f = fs::File::create(&p).unwrap();
        f.write_all(&vec![7u8; 1 << 20]).unwrap();
        drop(f);
        drop_from_page_cache(&p).unwrap();
        let before = page_cache_residency(&p).unwrap();
        assert_eq!(before.total_pages, (1 << 20) / before.page_size);
        assert!(before.fraction() < 0.5, "{before:?}");
        let mut buf = Vec::new();
        fs::File::open(&p).unwrap().read_to_end(&mut buf).unwrap();
        let after = page_cache_residency(&p).unwrap();
        assert_eq!(after.resident_pages, after.total_pages);
    }
}
