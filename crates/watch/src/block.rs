//! Block requests attributed to the watched process's files by their
//! extents (FIEMAP), and the per-device rows of the result.
//!
//! Why extents: the block layer knows a request's device and sector, not
//! its file, and most writes of a buffered database file reach the device
//! from writeback or the journal thread, not from the process. Mapping each
//! open regular file's extents (`FS_IOC_FIEMAP`) turns a sector back into
//! a file name, so the reads of a redo log that a read-modify-write causes
//! show up under the log's name whoever issued them (seed 000).
//!
//! Each file is opened by its path with `O_RDONLY | O_NOFOLLOW` and every
//! decision is taken on that descriptor: it must be a regular file, and
//! the very file the process has open (same device and inode as
//! `/proc/PID/fd/FD`); anything else is left unmapped with the reason.
//! Nothing is written, and no FIEMAP_FLAG_SYNC (which would start
//! writeback and change what is measured).
//!
//! Error bounds: a request is split by sectors among the files whose
//! extents it covers: each file gets its share of the bytes and counts
//! the request once (with its whole service time), so the files' request
//! counts may add up to more than the device's; the share no file holds
//! (metadata merged into the same request) is unattributed. Extents are
//! read when a file is first seen and again every second, so a request to
//! blocks allocated after the last mapping waits in a bounded list
//! ([`PENDING_MAX`] requests) and is attributed when a later mapping holds
//! it; what is still unknown at the end is reported as unattributed
//! (journal, metadata, flushes, other processes' files).
//!
//! The kernel hands over the requests of every device (not only those
//! already known to hold a watched file), so that a request a kworker
//! issued before its file's device was first seen (the first tick of a
//! watch) is not lost: a request on a device with no known watched file
//! waits [`EARLY_TICKS`] ticks for one to be mapped there, then is
//! dropped as another device's (bounded by [`PENDING_MAX`] too).

use crate::{dev_name, kernel_dev, BlockEvent, BlockRow, Watcher};
use dbio_model::watch::{
    BlockOp, WatchDeviceIo, WatchDeviceQueue, WatchFileBlock, WatchUnattributed, WatchUnmapped,
};
use dbio_model::Log2Buckets;
use std::collections::{BTreeMap, BTreeSet, HashMap, VecDeque};
use std::os::unix::fs::{FileTypeExt, MetadataExt, OpenOptionsExt};
use std::time::{Duration, Instant};

/// Requests kept while no mapping holds their sector; beyond this the
/// oldest are counted as unattributed for good.
pub const PENDING_MAX: usize = 65_536;

/// Ticks a request on a device with no known watched file waits for one
/// to be mapped there: the file's first call is in the snapshot of the
/// tick after its request completed at the latest, and it is mapped in
/// that tick, so two would do; four leave a margin.
pub const EARLY_TICKS: u64 = 4;

/// How often the extents of the watched files are read again.
const REMAP: Duration = Duration::from_secs(1);

/// `FS_IOC_FIEMAP`: `_IOWR('f', 11, struct fiemap)` (linux/fs.h).
const FS_IOC_FIEMAP: libc::c_ulong = 0xC020_660B;
const FIEMAP_EXTENT_LAST: u32 = 0x1;
/// Extents without a known place on the device: unknown location,
/// delayed allocation, encoded, inline or tail-packed data.
const FIEMAP_EXTENT_NOT_ON_DEVICE: u32 = 0x2 | 0x4 | 0x8 | 0x200 | 0x400;
/// Extents asked for per ioctl.
const BATCH: usize = 256;

#[repr(C)]
#[derive(Clone, Copy, Default)]
struct FiemapExtent {
    logical: u64,
    physical: u64,
    length: u64,
    reserved64: [u64; 2],
    flags: u32,
    reserved: [u32; 3],
}

#[repr(C)]
struct Fiemap {
    start: u64,
    length: u64,
    flags: u32,
    mapped_extents: u32,
    extent_count: u32,
    reserved: u32,
    extents: [FiemapExtent; BATCH],
}

/// Where a file's data lies: the whole device (kernel `dev_t`, as the
/// block tracepoints name it) and sector ranges `[start, end)` on it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileExtents {
    /// The whole device.
    pub dev: u32,
    /// Sector ranges (512 B) on the whole device.
    pub sectors: Vec<(u64, u64)>,
}

/// The whole device and the partition's first sector for a filesystem's
/// device `major:minor` (requests are traced on the whole disk, with
/// sectors counted from its start).
pub fn whole_device(major: u32, minor: u32) -> Result<(u32, u64), String> {
    let sys = std::path::PathBuf::from(format!("/sys/dev/block/{major}:{minor}"));
    if !sys.exists() {
        return Err(format!(
            "its filesystem's device {major}:{minor} is not a block device (tmpfs, overlay, a network filesystem)"
        ));
    }
    if !sys.join("partition").exists() {
        return Ok((kernel_dev(major, minor), 0));
    }
    let read = |p: std::path::PathBuf| std::fs::read_to_string(p).map(|s| s.trim().to_string());
    let start: u64 = read(sys.join("start"))
        .ok()
        .and_then(|s| s.parse().ok())
        .ok_or_else(|| format!("the start of partition {major}:{minor} is unreadable"))?;
    let parent = std::fs::canonicalize(&sys)
        .ok()
        .and_then(|p| read(p.parent()?.join("dev")).ok())
        .ok_or_else(|| format!("the disk holding partition {major}:{minor} is unknown"))?;
    let (ma, mi) = parent
        .split_once(':')
        .and_then(|(a, b)| Some((a.parse().ok()?, b.parse().ok()?)))
        .ok_or_else(|| format!("the disk holding partition {major}:{minor} is unknown"))?;
    Ok((kernel_dev(ma, mi), start))
}

/// The kernel name of a whole device (`vda`), from `/sys/dev/block`.
pub fn device_name(dev: u32) -> Option<String> {
    let p = std::fs::canonicalize(format!("/sys/dev/block/{}", dev_name(dev))).ok()?;
    Some(p.file_name()?.to_string_lossy().into_owned())
}

/// The file a descriptor or a path is: (device, inode).
pub type FileId = (u64, u64);

/// The identity of what process `pid` has open as `fd`: none when it is
/// not a regular file (a directory, a pipe, a device), an error when the
/// descriptor is gone.
pub fn open_file_id(pid: u32, fd: i32) -> Result<Option<FileId>, String> {
    let m = std::fs::metadata(format!("/proc/{pid}/fd/{fd}"))
        .map_err(|_| "the descriptor was closed before it could be mapped".to_string())?;
    Ok(m.file_type().is_file().then(|| (m.dev(), m.ino())))
}

/// Maps the extents of `path`, which must be the file `id` (the one the
/// watched process has, or had, open).
pub fn map_file(path: &str, id: FileId) -> Result<FileExtents, String> {
    let f = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK | libc::O_NOCTTY)
        .open(path)
        .map_err(|e| format!("cannot open it to map its extents: {e}"))?;
    let m = f.metadata().map_err(|e| format!("cannot stat it: {e}"))?;
    if !m.file_type().is_file() || m.file_type().is_block_device() {
        return Err("not a regular file".into());
    }
    if (m.dev(), m.ino()) != id {
        return Err("the path now names another file than the one the process has open".into());
    }
    let (major, minor) = (libc::major(m.dev()), libc::minor(m.dev()));
    let (dev, part_start) = whole_device(major, minor)?;
    let mut sectors = Vec::new();
    let mut fm = Box::new(Fiemap {
        start: 0,
        length: u64::MAX,
        flags: 0,
        mapped_extents: 0,
        extent_count: BATCH as u32,
        reserved: 0,
        extents: [FiemapExtent::default(); BATCH],
    });
    let mut next = 0u64;
    loop {
        fm.start = next;
        fm.length = u64::MAX - next;
        fm.mapped_extents = 0;
        use std::os::fd::AsRawFd;
        // SAFETY: `fm` is a properly sized and aligned struct fiemap with
        // room for `extent_count` extents; the kernel writes only there.
        let rc = unsafe { libc::ioctl(f.as_raw_fd(), FS_IOC_FIEMAP as _, &mut *fm as *mut Fiemap) };
        if rc != 0 {
            let e = std::io::Error::last_os_error();
            return Err(match e.raw_os_error() {
                Some(libc::EOPNOTSUPP) | Some(libc::ENOTTY) => {
                    "its filesystem does not report extents (FIEMAP)".into()
                }
                _ => format!("FIEMAP failed: {e}"),
            });
        }
        let n = (fm.mapped_extents as usize).min(BATCH);
        if n == 0 {
            break;
        }
        let mut last = false;
        for e in &fm.extents[..n] {
            if e.flags & FIEMAP_EXTENT_NOT_ON_DEVICE == 0 && e.length > 0 {
                let s = part_start + e.physical / 512;
                sectors.push((s, s + e.length.div_ceil(512)));
            }
            last |= e.flags & FIEMAP_EXTENT_LAST != 0;
            next = e.logical + e.length;
        }
        if last {
            break;
        }
    }
    Ok(FileExtents { dev, sectors })
}

/// Requests of one class summed.
#[derive(Debug, Default, Clone)]
struct Acc {
    count: u64,
    bytes: u64,
    total_ns: u64,
    by_watched: u64,
    latency: Log2Buckets,
    queued: u64,
    queue_ns: u64,
    queue_latency: Log2Buckets,
}

impl Acc {
    fn add(&mut self, e: &BlockEvent) {
        self.add_part(e, u64::from(e.bytes));
    }

    /// The request, carrying `bytes` of its data.
    fn add_part(&mut self, e: &BlockEvent, bytes: u64) {
        self.count += 1;
        self.bytes += bytes;
        self.total_ns += e.latency_ns;
        self.by_watched += u64::from(e.pid.is_some());
        self.latency.record_us(e.latency_ns / 1000);
        if let Some(q) = e.queue_ns {
            self.queued += 1;
            self.queue_ns += q;
            self.queue_latency.record_us(q / 1000);
        }
    }
}

/// The watched files' extents and the requests attributed to them.
#[derive(Default)]
pub struct Attribution {
    paths: Vec<String>,
    index: HashMap<String, usize>,
    /// (dev, start, end, file) sorted.
    extents: Vec<(u32, u64, u64, usize)>,
    by_file: HashMap<usize, FileExtents>,
    devices: BTreeSet<u32>,
    files: BTreeMap<(usize, BlockOp), Acc>,
    unattributed: BTreeMap<(u32, BlockOp), Acc>,
    pending: VecDeque<BlockEvent>,
    unmapped: BTreeMap<String, String>,
    mapped_at: Option<Instant>,
    /// The identity of each file, to map it again by its path (even
    /// after the process closed it) and never map another file there.
    ids: HashMap<usize, FileId>,
    /// Requests on devices with no known watched file yet, with the tick
    /// they arrived in.
    early: VecDeque<(u64, BlockEvent)>,
    /// Drains so far.
    ticks: u64,
    /// Requests dropped from `early`: on devices that held no watched
    /// file within [`EARLY_TICKS`] ticks.
    pub other_devices: u64,
}

impl Attribution {
    /// Learns the regular files among `(pid, fd, path)`, maps the new ones
    /// now and all of them again every second, and asks the tracer for
    /// the requests on their devices.
    /// `known` are files named with their identity already (the files of
    /// io_uring requests, which hold no descriptor of their own).
    pub fn update(
        &mut self,
        w: &mut Watcher,
        open: impl Iterator<Item = (u32, i32, String)>,
        known: impl Iterator<Item = (String, FileId)>,
    ) {
        let due = self.mapped_at.is_none_or(|t| t.elapsed() >= REMAP);
        let mut fresh = false;
        for (path, id) in known {
            if !path.starts_with('/')
                || path.starts_with("/dev/")
                || dbio_model::watch::file_kind(Some(&path)) == dbio_model::watch::FileKind::Pseudo
            {
                continue;
            }
            let n = self.paths.len();
            let i = *self.index.entry(path.clone()).or_insert(n);
            if i == n {
                self.paths.push(path);
            }
            if self.ids.insert(i, id) != Some(id) {
                fresh = true;
            }
        }
        for (pid, fd, path) in open {
            // Pipes, sockets and anonymous files are `type:[inode]`.
            // /proc and /sys are not on a block device (and /proc/self
            // names dbio's own files, not the watched process's).
            if !path.starts_with('/')
                || path.starts_with("/dev/")
                || dbio_model::watch::file_kind(Some(&path)) == dbio_model::watch::FileKind::Pseudo
            {
                continue;
            }
            // A known path is checked again only when the files are
            // mapped again (it may name another file by then).
            if !due && self.index.contains_key(&path) {
                continue;
            }
            if path.ends_with(" (deleted)") {
                self.unmapped
                    .entry(path)
                    .or_insert_with(|| "deleted while open (no path to open it by)".into());
                continue;
            }
            // Not a regular file, or closed already (then what it was is
            // unknown): nothing to map.
            let Ok(Some(id)) = open_file_id(pid, fd) else {
                continue;
            };
            let n = self.paths.len();
            let i = *self.index.entry(path.clone()).or_insert(n);
            if i == n {
                self.paths.push(path);
                fresh = true;
            }
            // The path now names another file (replaced, rotated): map
            // the new one.
            if self.ids.insert(i, id) != Some(id) {
                fresh = true;
            }
        }
        if fresh || due {
            self.remap(w);
        }
    }

    fn remap(&mut self, w: &mut Watcher) {
        for (&i, &id) in &self.ids {
            let path = &self.paths[i];
            match map_file(path, id) {
                Ok(x) => {
                    if self.devices.insert(x.dev) {
                        let _ = w.watch_device(x.dev);
                    }
                    self.unmapped.remove(path);
                    self.by_file.insert(i, x);
                }
                // A file already mapped keeps its last extents when it
                // can no longer be opened (closed, process gone).
                Err(why) if !self.by_file.contains_key(&i) => {
                    self.unmapped.insert(path.clone(), why);
                }
                Err(_) => {}
            }
        }
        self.extents = self
            .by_file
            .iter()
            .flat_map(|(&i, x)| x.sectors.iter().map(move |&(s, e)| (x.dev, s, e, i)))
            .collect();
        self.extents.sort_unstable();
        self.mapped_at = Some(Instant::now());
        for e in std::mem::take(&mut self.pending) {
            self.attribute(e);
        }
    }

    /// The file whose extents hold `sector` on `dev`.
    #[cfg(test)]
    fn file_of(&self, dev: u32, sector: u64) -> Option<usize> {
        self.files_in(dev, sector, sector + 1)
            .first()
            .map(|&(i, _)| i)
    }

    /// The files whose extents hold some of the sectors `[start, end)` on
    /// `dev`, each with how many, in sector order. Extents never overlap
    /// (a sector is one file's), so only the last extent starting at or
    /// before `start` can hold `start`, and the rest start after it.
    fn files_in(&self, dev: u32, start: u64, end: u64) -> Vec<(usize, u64)> {
        let at = self
            .extents
            .partition_point(|&(d, s, _, _)| (d, s) <= (dev, start));
        let mut out: Vec<(usize, u64)> = Vec::new();
        for &(d, s, e, i) in &self.extents[at.saturating_sub(1)..] {
            if d > dev || (d == dev && s >= end) {
                break;
            }
            let (lo, hi) = (s.max(start), e.min(end));
            if d != dev || lo >= hi {
                continue;
            }
            match out.iter_mut().find(|(f, _)| *f == i) {
                Some((_, n)) => *n += hi - lo,
                None => out.push((i, hi - lo)),
            }
        }
        out
    }

    fn attribute(&mut self, e: BlockEvent) {
        // A flush carries no data and names no sector.
        let sectors = (u64::from(e.bytes) / 512).max(1);
        let files = if e.op == BlockOp::Flush {
            Vec::new()
        } else {
            self.files_in(e.dev, e.sector, e.sector + sectors)
        };
        if !files.is_empty() {
            let mut held = 0;
            for &(i, n) in &files {
                let bytes = (n * 512).min(u64::from(e.bytes));
                held += bytes;
                self.files.entry((i, e.op)).or_default().add_part(&e, bytes);
            }
            if held < u64::from(e.bytes) {
                self.unattributed
                    .entry((e.dev, e.op))
                    .or_default()
                    .add_part(&e, u64::from(e.bytes) - held);
            }
            return;
        }
        if e.op == BlockOp::Flush {
            self.unattributed.entry((e.dev, e.op)).or_default().add(&e);
            return;
        }
        // No mapping holds it yet: it waits for the next.
        if self.pending.len() == PENDING_MAX {
            if let Some(old) = self.pending.pop_front() {
                self.unattributed
                    .entry((old.dev, old.op))
                    .or_default()
                    .add(&old);
            }
        }
        self.pending.push_back(e);
    }

    /// Takes every request the tracer has.
    pub fn drain(&mut self, w: &mut Watcher) {
        let mut got = Vec::new();
        w.drain_block(|e| got.push(*e));
        self.take(got);
    }

    /// One tick's requests: those on devices with known watched files are
    /// attributed, the others wait in `early` for [`EARLY_TICKS`] ticks.
    fn take(&mut self, got: Vec<BlockEvent>) {
        self.ticks += 1;
        for e in got {
            if self.early.len() == PENDING_MAX {
                self.early.pop_front();
                self.other_devices += 1;
            }
            self.early.push_back((self.ticks, e));
        }
        let now = self.ticks;
        for (t, e) in std::mem::take(&mut self.early) {
            if self.devices.contains(&e.dev) {
                self.attribute(e);
            } else if t + EARLY_TICKS > now {
                self.early.push_back((t, e));
            } else {
                self.other_devices += 1;
            }
        }
    }

    /// Maps every file a last time and settles what is still pending.
    pub fn finish(&mut self, w: &mut Watcher) {
        self.drain(w);
        self.remap(w);
        for (_, e) in std::mem::take(&mut self.early) {
            if self.devices.contains(&e.dev) {
                self.attribute(e);
            } else {
                self.other_devices += 1;
            }
        }
        for e in std::mem::take(&mut self.pending) {
            self.unattributed.entry((e.dev, e.op)).or_default().add(&e);
        }
    }

    /// The per-file rows.
    pub fn file_rows(&self) -> Vec<WatchFileBlock> {
        self.files
            .iter()
            .map(|(&(i, op), a)| WatchFileBlock {
                path: self.paths[i].clone(),
                device: self
                    .by_file
                    .get(&i)
                    .map(|x| dev_name(x.dev))
                    .unwrap_or_default(),
                op,
                count: a.count,
                bytes: a.bytes,
                total_ns: a.total_ns,
                by_watched: a.by_watched,
                latency: a.latency.clone(),
                queued: a.queued,
                queue_ns: a.queue_ns,
                queue_latency: a.queue_latency.clone(),
            })
            .collect()
    }

    /// Requests on the watched devices that no file holds (pending ones
    /// included, as they stand now).
    pub fn unattributed_rows(&self) -> Vec<WatchUnattributed> {
        let mut m = self.unattributed.clone();
        for e in &self.pending {
            m.entry((e.dev, e.op)).or_default().add(e);
        }
        m.into_iter()
            .map(|((dev, op), a)| WatchUnattributed {
                device: dev_name(dev),
                op,
                count: a.count,
                bytes: a.bytes,
                by_watched: a.by_watched,
                total_ns: a.total_ns,
                queued: a.queued,
                queue_ns: a.queue_ns,
            })
            .collect()
    }

    /// Files that could not be mapped, and why.
    pub fn unmapped_rows(&self) -> Vec<WatchUnmapped> {
        self.unmapped
            .iter()
            .map(|(p, r)| WatchUnmapped {
                path: p.clone(),
                reason: r.clone(),
            })
            .collect()
    }

    /// The per-device rows worth showing: the devices that hold watched
    /// files, and any request a watched process issued.
    pub fn device_rows(&self, rows: &[BlockRow]) -> Vec<WatchDeviceIo> {
        rows.iter()
            .filter(|r| r.pid.is_some() || self.devices.contains(&r.dev))
            .map(|r| WatchDeviceIo {
                device: dev_name(r.dev),
                name: device_name(r.dev),
                op: r.op,
                pid: r.pid,
                comm: None,
                count: r.count,
                bytes: r.bytes,
                total_ns: r.total_ns,
                fua: r.fua,
                preflush: r.preflush,
                latency: r.latency.clone(),
                queued: r.queued,
                queue_ns: r.queue_ns,
                queue_latency: r.queue_latency.clone(),
            })
            .collect()
    }

    /// The merges and splits on the devices worth showing: those of
    /// [`Attribution::device_rows`].
    pub fn queue_rows(
        &self,
        rows: &[crate::QueueRow],
        block: &[BlockRow],
    ) -> Vec<WatchDeviceQueue> {
        rows.iter()
            .filter(|r| {
                self.devices.contains(&r.dev)
                    || block.iter().any(|b| b.dev == r.dev && b.pid.is_some())
            })
            .map(queue_row)
            .collect()
    }
}

/// A device's merges and splits as the result keeps them.
pub fn queue_row(r: &crate::QueueRow) -> WatchDeviceQueue {
    WatchDeviceQueue {
        device: dev_name(r.dev),
        bio_merges: r.bio_merges,
        rq_merges: r.rq_merges,
        splits: r.splits,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_written_file_maps_to_sectors_on_its_whole_device() {
        use std::io::Write;
        let d = tempfile::tempdir_in(env!("CARGO_MANIFEST_DIR")).unwrap();
        let p = d.path().join("f");
        let mut f = std::fs::File::create(&p).unwrap();
        f.write_all(&vec![7u8; 1 << 20]).unwrap();
        f.sync_all().unwrap();
        use std::os::fd::AsRawFd;
        let path = p.to_str().unwrap();
        let id = open_file_id(std::process::id(), f.as_raw_fd())
            .unwrap()
            .unwrap();
        let got = map_file(path, id);
        match got {
            Ok(x) => {
                let sectors: u64 = x.sectors.iter().map(|(s, e)| e - s).sum();
                assert_eq!(sectors, 2048, "{x:?}");
                assert!(device_name(x.dev).is_some(), "{x:?}");
            }
            // Only a filesystem without FIEMAP or block device may refuse.
            Err(why) => assert!(
                why.contains("FIEMAP") || why.contains("not a block device"),
                "{why}"
            ),
        }
        // A symbolic link is not followed, and a descriptor of another
        // file is not taken for this one.
        let l = d.path().join("l");
        std::os::unix::fs::symlink(&p, &l).unwrap();
        let err = map_file(l.to_str().unwrap(), id).unwrap_err();
        assert!(err.contains("cannot open"), "{err}");
        let other = std::fs::File::create(d.path().join("g")).unwrap();
        let other = open_file_id(std::process::id(), other.as_raw_fd())
            .unwrap()
            .unwrap();
        let err = map_file(path, other).unwrap_err();
        assert!(err.contains("another file"), "{err}");
        // A directory is not a file to map.
        let dir = std::fs::File::open(d.path()).unwrap();
        assert_eq!(open_file_id(std::process::id(), dir.as_raw_fd()), Ok(None));
    }

    #[test]
    fn requests_go_to_the_file_whose_extents_hold_their_sectors() {
        let mut a = Attribution {
            paths: vec!["/a".into(), "/b".into()],
            extents: vec![(5, 100, 108, 0), (5, 200, 300, 1), (6, 0, 1000, 1)],
            ..Default::default()
        };
        assert_eq!(a.file_of(5, 100), Some(0));
        assert_eq!(a.file_of(5, 107), Some(0));
        assert_eq!(a.file_of(5, 108), None);
        assert_eq!(a.file_of(5, 99), None);
        assert_eq!(a.file_of(5, 299), Some(1));
        assert_eq!(a.file_of(6, 0), Some(1));
        assert_eq!(a.file_of(7, 0), None);
        let ev = |sector, op, pid| BlockEvent {
            dev: 5,
            sector,
            bytes: 4096,
            latency_ns: 100_000,
            pid,
            op,
            queue_ns: None,
        };
        a.attribute(ev(100, BlockOp::Write, Some(9)));
        a.attribute(ev(250, BlockOp::Read, None));
        a.attribute(ev(50, BlockOp::Write, None));
        a.attribute(ev(0, BlockOp::Flush, Some(9)));
        let rows = a.file_rows();
        assert_eq!(rows.len(), 2, "{rows:?}");
        assert_eq!(
            (rows[0].path.as_str(), rows[0].op, rows[0].by_watched),
            ("/a", BlockOp::Write, 1)
        );
        assert_eq!(
            (rows[1].path.as_str(), rows[1].op, rows[1].by_watched),
            ("/b", BlockOp::Read, 0)
        );
        // Sector 50 waits for a mapping that may hold it; the flush is
        // nobody's file.
        assert_eq!(a.pending.len(), 1);
        let un = a.unattributed_rows();
        assert_eq!(un.len(), 2, "{un:?}");
        assert!(un
            .iter()
            .any(|u| u.op == BlockOp::Flush && u.by_watched == 1));
        assert!(un.iter().any(|u| u.op == BlockOp::Write && u.count == 1));
    }

    #[test]
    fn a_request_spanning_two_files_is_split_by_sectors() {
        let mut a = Attribution {
            paths: vec!["/a".into(), "/b".into()],
            // /a: 100..108 and 116..124; /b: 108..116 (interleaved
            // extents, as two files appended together come out).
            extents: vec![
                (5, 100, 108, 0),
                (5, 108, 116, 1),
                (5, 116, 124, 0),
                (5, 200, 208, 1),
            ],
            ..Default::default()
        };
        assert_eq!(a.files_in(5, 104, 120), vec![(0, 8), (1, 8)]);
        assert_eq!(a.files_in(5, 96, 100), vec![]);
        assert_eq!(a.files_in(5, 120, 204), vec![(0, 4), (1, 4)]);
        assert_eq!(a.files_in(4, 100, 124), vec![]);
        // 16 sectors from 104: 4 + 4 of /a, 8 of /b; then 16 from 196:
        // 8 of /b, 8 nobody's.
        let ev = |sector| BlockEvent {
            dev: 5,
            sector,
            bytes: 16 * 512,
            latency_ns: 2_000_000,
            pid: None,
            op: BlockOp::Write,
            queue_ns: None,
        };
        a.attribute(ev(104));
        a.attribute(ev(196));
        let rows = a.file_rows();
        let of = |p: &str| rows.iter().find(|r| r.path == p).unwrap();
        assert_eq!((of("/a").count, of("/a").bytes), (1, 4096), "{rows:?}");
        assert_eq!((of("/b").count, of("/b").bytes), (2, 8192), "{rows:?}");
        assert_eq!(of("/a").latency.counts.iter().sum::<u64>(), 1);
        let un = a.unattributed_rows();
        assert_eq!((un.len(), un[0].count, un[0].bytes), (1, 1, 4096), "{un:?}");
        // Every byte is somewhere, once.
        let total: u64 = rows.iter().map(|r| r.bytes).sum::<u64>() + un[0].bytes;
        assert_eq!(total, 2 * 16 * 512);
        assert!(a.pending.is_empty());
    }

    #[test]
    fn a_request_on_a_device_not_yet_known_waits_a_few_ticks_for_its_file() {
        let mut a = Attribution {
            paths: vec!["/a".into()],
            ..Default::default()
        };
        let ev = |dev, sector| BlockEvent {
            dev,
            sector,
            bytes: 4096,
            latency_ns: 1_000,
            pid: None,
            op: BlockOp::Write,
            queue_ns: None,
        };
        // Tick 1: a kworker's request on device 5 and one on device 9,
        // before any file on either is known.
        a.take(vec![ev(5, 100), ev(9, 0)]);
        assert_eq!(a.early.len(), 2);
        // Tick 2: /a is mapped on device 5: its request is attributed.
        a.devices.insert(5);
        a.extents = vec![(5, 100, 108, 0)];
        a.take(vec![]);
        let rows = a.file_rows();
        assert_eq!((rows.len(), rows[0].count, rows[0].bytes), (1, 1, 4096));
        // Device 9 never holds a watched file: dropped after EARLY_TICKS.
        for _ in 2..=EARLY_TICKS {
            assert_eq!(a.early.len(), 1);
            a.take(vec![]);
        }
        assert_eq!(a.early.len(), 0);
        assert_eq!(a.other_devices, 1);
        assert!(a.unattributed_rows().is_empty());
    }
}
