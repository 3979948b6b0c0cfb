//! A watch per file: the time of the calls on each file as a share of the
//! traced time (the time inside every traced call, summed), which rows
//! the default output folds, and how much of a file's time was the
//! device's (the block-layer service time of the requests in its
//! extents) — what the table, the findings and the verdict all read.

use dbio_model::units::format_ns;
use dbio_model::watch::{file_kind, BlockOp, FileKind, WatchFileOp, WatchResult, FOLD_SHARE_PCT};

/// The calls on one file (every descriptor and process that had it open).
pub struct FileTime<'a> {
    /// The path, `pid P fd F` when it was not read, or the call's name
    /// for calls without a descriptor (`io_getevents`).
    pub key: String,
    /// The path, when it was read.
    pub path: Option<&'a str>,
    /// What the path is.
    pub kind: FileKind,
    /// Its rows, busiest first.
    pub rows: Vec<&'a WatchFileOp>,
    /// Calls.
    pub calls: u64,
    /// Time inside them, ns.
    pub total_ns: u64,
    /// Share of the traced time, percent.
    pub share_pct: f64,
}

/// Time inside every traced call, summed, ns.
pub fn traced_ns(w: &WatchResult) -> u64 {
    w.ops.iter().map(|o| o.total_ns).sum()
}

/// Every file of the watch, busiest first (ties by name).
pub fn files(w: &WatchResult) -> Vec<FileTime<'_>> {
    let traced = traced_ns(w);
    let mut out: Vec<FileTime> = Vec::new();
    for o in &w.ops {
        let key = match (&o.path, o.fd) {
            (Some(p), _) => p.clone(),
            (None, _) if o.inode.is_some() => o.file_name(),
            (None, fd) if fd < 0 => format!("{} (no descriptor)", o.op),
            (None, fd) => format!("pid {} fd {fd}", o.pid),
        };
        match out.iter_mut().find(|f| f.key == key) {
            Some(f) => f.rows.push(o),
            None => out.push(FileTime {
                key,
                path: o.path.as_deref(),
                kind: file_kind(o.path.as_deref()),
                rows: vec![o],
                calls: 0,
                total_ns: 0,
                share_pct: 0.0,
            }),
        }
    }
    for f in &mut out {
        f.rows.sort_by_key(|o| std::cmp::Reverse(o.total_ns));
        f.calls = f.rows.iter().map(|o| o.count).sum();
        f.total_ns = f.rows.iter().map(|o| o.total_ns).sum();
        f.share_pct = if traced > 0 {
            100.0 * f.total_ns as f64 / traced as f64
        } else {
            0.0
        };
    }
    out.sort_by(|a, b| b.total_ns.cmp(&a.total_ns).then(a.key.cmp(&b.key)));
    out
}

/// Whether the default output folds `f` into the "other files" row: a
/// pseudo-file, a shared library, or under [`FOLD_SHARE_PCT`] of the
/// traced time; never with `--all-files`.
pub fn folded(w: &WatchResult, f: &FileTime) -> bool {
    !w.config.all_files && (f.kind != FileKind::Data || f.share_pct < FOLD_SHARE_PCT)
}

/// How much of a file's time the device explains.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Explained {
    /// The device's service time is at least half of the calls' time.
    Device,
    /// Between a third and a half.
    Partly,
    /// The block layer's queue (bio queued to request issued: the I/O
    /// scheduler, a full device queue, writeback throttling) and the
    /// device together hold half of the calls' time or more, the queue
    /// more than the device: "await high, device fine".
    Queue,
    /// Under a third: the wait is above the device (the filesystem's
    /// journal, queueing, CPU).
    AboveDevice,
    /// No request reached the device and the calls were reads: the page
    /// cache served them.
    CacheReads,
    /// No request reached the device and the calls were writes: the page
    /// cache took them (writeback comes later).
    CacheWrites,
    /// Not a file on storage.
    Pseudo,
    /// The device's share is not known (the block layer was not traced,
    /// the file could not be mapped).
    Unknown,
}

/// A call that takes less than this on average was served from memory:
/// no storage answers a read in under 10 µs (the fastest NVMe and
/// Optane devices take 10 µs or more; a page-cache hit takes 1 to 5 µs).
pub const MEMORY_NS: f64 = 10_000.0;

/// A file's device time next to the time of its calls.
#[derive(Debug, Clone, PartialEq)]
pub struct DeviceShare {
    /// Requests in the file's extents.
    pub requests: u64,
    /// Their service time, summed, ns.
    pub file_ns: u64,
    /// The file's part of the cache flushes and journal writes the
    /// watched processes issued outside every file's extents, ns (shared
    /// among the files written or synced, by their write and sync time).
    pub flush_ns: u64,
    /// Device time / call time, percent, at most 100.
    pub share_pct: f64,
    /// Of `requests`, those whose block-layer queue time is known.
    pub queued: u64,
    /// Their queue time (bio queued to request issued), summed, ns.
    pub queue_ns: u64,
    /// (Queue + device time) / call time, percent, at most 100 (0 when no
    /// queue time is known).
    pub block_share_pct: f64,
    /// What it comes to.
    pub explained: Explained,
    /// Why the share is unknown, in words.
    pub why_unknown: Option<String>,
}

fn write_sync_ns(f: &FileTime) -> u64 {
    f.rows
        .iter()
        .filter(|o| o.op.is_write() || o.op.is_sync())
        .map(|o| o.total_ns)
        .sum()
}

/// How much of `f`'s time was the device's.
pub fn device_share(w: &WatchResult, f: &FileTime) -> DeviceShare {
    let mut d = DeviceShare {
        requests: 0,
        file_ns: 0,
        flush_ns: 0,
        share_pct: 0.0,
        queued: 0,
        queue_ns: 0,
        block_share_pct: 0.0,
        explained: Explained::Unknown,
        why_unknown: None,
    };
    if f.kind == FileKind::Pseudo {
        d.explained = Explained::Pseudo;
        return d;
    }
    let reads = f
        .rows
        .iter()
        .filter(|o| o.op.is_read())
        .map(|o| o.count)
        .sum::<u64>();
    let others = f.calls - reads;
    let mean = f.total_ns as f64 / f.calls.max(1) as f64;
    let Some(path) = f.path else {
        d.why_unknown = Some("its path was not read".into());
        return d;
    };
    if !w.config.block {
        d.why_unknown = Some("the block layer was not traced (--no-block)".into());
        if reads > 0 && others == 0 && mean < MEMORY_NS {
            d.explained = Explained::CacheReads;
        }
        return d;
    }
    if let Some(u) = w.unmapped.iter().find(|u| u.path == path) {
        d.why_unknown = Some(format!("its extents were not mapped: {}", u.reason));
        if reads > 0 && others == 0 && mean < MEMORY_NS {
            d.explained = Explained::CacheReads;
        }
        return d;
    }
    // The requests the calls waited for: reads for the reads, writes,
    // flushes and discards for the writes and syncs (writeback of pages
    // written before the watch is no read's wait).
    let own_ws = write_sync_ns(f);
    for b in w.file_block.iter().filter(|b| b.path == path) {
        if (b.op == BlockOp::Read && reads > 0) || (b.op != BlockOp::Read && own_ws > 0) {
            d.requests += b.count;
            d.file_ns += b.total_ns;
            d.queued += b.queued;
            d.queue_ns += b.queue_ns;
        }
    }
    // Flushes and journal writes the watched processes issued outside
    // every file's extents belong to the files they wrote and synced.
    if own_ws > 0 {
        let all_ws: u64 = files(w)
            .iter()
            .filter(|g| g.kind == FileKind::Data)
            .map(write_sync_ns)
            .sum();
        let unattributed: f64 = w
            .block_unattributed
            .iter()
            .filter(|u| matches!(u.op, BlockOp::Write | BlockOp::Flush) && u.count > 0)
            .map(|u| u.total_ns as f64 * u.by_watched as f64 / u.count as f64)
            .sum();
        d.flush_ns = (unattributed * own_ws as f64 / all_ws.max(1) as f64) as u64;
    }
    let dev = d.file_ns + d.flush_ns;
    if dev == 0 {
        d.explained = if reads >= others {
            Explained::CacheReads
        } else {
            Explained::CacheWrites
        };
        return d;
    }
    d.share_pct = (100.0 * dev as f64 / f.total_ns.max(1) as f64).min(100.0);
    if d.queued > 0 {
        d.block_share_pct =
            (100.0 * (dev + d.queue_ns) as f64 / f.total_ns.max(1) as f64).min(100.0);
    }
    d.explained = if d.queue_ns > dev && d.block_share_pct >= 50.0 {
        Explained::Queue
    } else if d.share_pct >= 50.0 {
        Explained::Device
    } else if d.share_pct >= 100.0 / 3.0 {
        Explained::Partly
    } else {
        Explained::AboveDevice
    };
    d
}

/// Whether any call on `f` is a sync (fsync, fdatasync, sync_file_range)
/// or a write to a file opened with O_DSYNC or O_SYNC: the commit path.
pub fn syncs(f: &FileTime) -> bool {
    f.rows.iter().any(|o| {
        o.op.is_sync()
            || (o.op.is_write()
                && o.open_flags
                    .as_deref()
                    .is_some_and(|fl| fl.contains("O_DSYNC") || fl.contains("O_SYNC")))
    })
}

/// A share in percent, with a decimal under 10 % (0.4 %, 17 %).
fn share(pct: f64) -> String {
    if pct < 10.0 {
        format!("{pct:.1} %")
    } else {
        format!("{pct:.0} %")
    }
}

/// The device clause of a sentence about `f`: how much of its time the
/// device explains, with the figures.
pub fn device_clause(f: &FileTime, d: &DeviceShare) -> String {
    let dev = d.file_ns + d.flush_ns;
    let flushes = if d.flush_ns > 0 {
        format!(
            " (with {} of cache flushes and journal writes outside its extents)",
            format_ns(d.flush_ns as f64)
        )
    } else {
        String::new()
    };
    let mean = format_ns(f.total_ns as f64 / f.calls.max(1) as f64);
    match d.explained {
        Explained::Pseudo => "it is not a file on storage".into(),
        Explained::Device => format!(
            "the device served its {} requests in {}{flushes}, {:.0} % of the calls' time: the wait is the storage's",
            d.requests,
            format_ns(dev as f64),
            d.share_pct
        ),
        Explained::Partly => format!(
            "the device served its {} requests in {}{flushes}, {:.0} % of the calls' time: the storage explains part of the wait, the rest is above the device",
            d.requests,
            format_ns(dev as f64),
            d.share_pct
        ),
        Explained::Queue => format!(
            "the block layer held its {} requests {} on average before issuing them (the I/O scheduler, a full device queue, writeback throttling), against {} of device service each: with the queue, {} of the calls' time; the wait is the queue in front of the device, not the device",
            d.requests,
            format_ns(d.queue_ns as f64 / d.queued.max(1) as f64),
            format_ns(dev as f64 / d.requests.max(1) as f64),
            share(d.block_share_pct)
        ),
        Explained::AboveDevice if d.queued > 0 => format!(
            "the device served its {} requests in {}{flushes} and the block layer queued them {} more, only {} of the calls' time together: most of the wait is above the block layer (a cgroup's io.max throttle, which holds bios before they reach it, the filesystem's journal, CPU), not the storage's service time",
            d.requests,
            format_ns(dev as f64),
            format_ns(d.queue_ns as f64),
            share(d.block_share_pct)
        ),
        Explained::AboveDevice => format!(
            "the device served its {} requests in {}{flushes}, only {:.0} % of the calls' time: most of the wait is above the device (the filesystem's journal, queueing, CPU), not the storage's service time",
            d.requests,
            format_ns(dev as f64),
            d.share_pct
        ),
        Explained::CacheReads => match &d.why_unknown {
            None => format!(
                "no request reached the device while watched (mean {mean} per call): the page cache served the reads, not the storage"
            ),
            Some(_) => format!(
                "the calls took {mean} on average, faster than any storage device: the page cache served them"
            ),
        },
        Explained::CacheWrites => format!(
            "no request reached the device while watched (mean {mean} per call): the writes went to the page cache, not yet to the storage"
        ),
        Explained::Unknown => format!(
            "the device's share of it is unknown: {}",
            d.why_unknown.as_deref().unwrap_or("no figures")
        ),
    }
}
