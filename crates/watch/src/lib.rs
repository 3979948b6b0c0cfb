//! dbio's live tracer: BPF programs on syscall tracepoints, loaded by aya,
//! that time and count a watched process's I/O calls inside the kernel.
//!
//! Why this shape: strace stops the traced process twice per call
//! (ptrace), which cut a log writer's throughput from 1,400 to 500
//! commits/s in one published case; a BPF program on the syscall
//! tracepoints runs in the caller's context for well under a microsecond
//! and never stops it. The programs filter by tgid in the kernel (a map of
//! watched processes), keep the entry time per thread, and on exit add
//! the call to a per-CPU histogram keyed by (process, descriptor,
//! operation), so nothing crosses to user space per call unless a
//! per-I/O stream was asked for (a ring buffer, optionally filtered by
//! latency in the kernel). User space reads the maps every interval and
//! at the end and sums the CPUs.
//!
//! Why aya with a committed object: the BPF side is C (writing it in Rust
//! needs a nightly toolchain with `rust-src` and `bpf-linker`), compiled
//! by clang into `bpf/watch.bpf.o`, which is committed and embedded with
//! `include_bytes!`; aya loads it in pure Rust. A machine that builds dbio
//! needs neither clang nor libelf, and `scripts/build-bpf --check`
//! rebuilds the object from `bpf/watch.bpf.c` and compares the bytes
//! where clang is installed (CI installs it), so the object cannot drift
//! from its source.
//!
//! Only static tracepoints are used (`syscalls:sys_enter_*`,
//! `sys_exit_*`): their records are the syscall ABI and do not change
//! between kernels, unlike kernel function names (kprobes and fentry are
//! not available on every kernel, and not on the one dbio is developed
//! on). A tracepoint this kernel lacks is reported, not fatal.
//!
//! The block layer (`block:block_rq_issue`, `block_rq_complete`, and
//! `block_io_start` where present) is traced too unless turned off: every
//! request on every device is timed from issue to completion into a
//! per-CPU histogram per (device, class, issuer), where the issuer is the
//! watched process when the request was started or issued in its context
//! (direct I/O, the flush of its own fsync) and nobody otherwise
//! (writeback, the journal thread). Requests on the devices that hold the
//! watched files also go to user space through a second ring buffer, to
//! be attributed to files by their extents. Those records are not an ABI,
//! so the field offsets come from each event's `format` file at load.
//!
//! Files are named when they are opened: programs on `openat`, `openat2`,
//! `open` and `creat` copy the path the process passes, and those on
//! `dup`, `dup2`, `dup3` and `fcntl(F_DUPFD)` which descriptor a new one
//! copies, and hand both to user space through a third ring buffer
//! ([`Watcher::drain_opens`]), so a file opened and closed between two
//! reads of `/proc` is named. `close_range` and `sched_process_exec`
//! start a new row for every descriptor they may have closed.
//!
//! Requests submitted through io_uring are not system calls of their own:
//! programs on the `io_uring` tracepoints (`io_uring_submit_req`,
//! `io_uring_complete`, `io_uring_link`, `io_uring_queue_async_work`; the
//! first two, which run once per request, on the raw tracepoints typed by
//! the kernel's BTF where they load, as they then skip building the
//! tracepoint's record) time
//! each one from submission to completion per (process, opcode, file),
//! the process being the ring's owner whichever of its threads (the
//! submitter, the SQPOLL thread, an io-wq worker) ran it, and the file
//! its inode, read from the request at completion with CO-RE relocations
//! against the kernel's BTF ([`Snapshot::requests`]; the same reads give
//! each opened descriptor's inode, so the requests' files are named).
//! Linux AIO control blocks are read from the process's iocb and io_event
//! arrays at `io_submit`'s and `io_getevents`' exits and timed from one to
//! the other in the syscalls' table, per descriptor.
//!
//! With [`LoadOptions::device`] no system call is traced: the block
//! programs key every request on that one device by whoever issued it,
//! and keep the issuer's command name ([`Watcher::issuer_comm`]).
#![deny(missing_docs)]

mod block;
pub mod cgroup;
mod device;
mod names;
mod requests;
pub mod session;

pub use session::{Observer, Session, SessionOptions, Tracer};

use aya::maps::{HashMap, MapData, PerCpuArray, PerCpuHashMap, RingBuf};
use aya::programs::tp_btf::BtfTracePointLink;
use aya::programs::trace_point::TracePointLink;
use aya::programs::{BtfTracePoint, TracePoint};
use aya::{Ebpf, EbpfLoader, Pod};
use dbio_model::watch::{BlockOp, SyscallOp, WatchFileOp};
use dbio_model::Log2Buckets;
use std::collections::BTreeMap;
use std::path::Path;

/// The compiled BPF object (`bpf/watch.bpf.c` built by `scripts/build-bpf`).
pub static BPF_OBJECT: &[u8] = include_bytes!("../bpf/watch.bpf.o");

/// Histogram buckets per entry in the BPF program (`NBUCKETS`).
const NBUCKETS: usize = 32;

/// Why the tracer could not start or read its maps.
#[derive(Debug, thiserror::Error)]
pub enum WatchError {
    /// Neither CAP_BPF with CAP_PERFMON nor CAP_SYS_ADMIN.
    #[error("dbio watch needs root, or the CAP_BPF and CAP_PERFMON capabilities, to load its tracepoint programs")]
    Privilege,
    /// tracefs is not mounted and could not be.
    #[error("tracefs is not mounted at /sys/kernel/tracing and mounting it failed ({0}); mount it with `mount -t tracefs nodev /sys/kernel/tracing`")]
    Tracefs(std::io::Error),
    /// The kernel refused the object or a program.
    #[error("the kernel refused dbio's BPF programs: {0}")]
    Load(String),
    /// None of the syscall tracepoints could be attached.
    #[error("no syscall tracepoint could be attached (this kernel has no syscalls:sys_enter_* events, or BPF on tracepoints is disabled)")]
    NothingAttached,
    /// `--follow` without the fork tracepoint.
    #[error("--follow needs the sched:sched_process_fork tracepoint, which this kernel does not have (or its record has no child_pid)")]
    Follow,
    /// A map could not be read or written.
    #[error("reading the tracer's maps failed: {0}")]
    Map(String),
}

/// A key of the `hist` map.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
struct Key {
    tgid: u32,
    fd: i32,
    op: u32,
    gen: u32,
}

/// A value of the `fdgen` map (`struct fdstate`): the descriptor's
/// generation, then padding and its last write's offset and end, which
/// only the programs read.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
struct FdState {
    gen: u32,
    _last_write: [u32; 5],
}

/// A value of the `hist` map (one CPU's share).
#[repr(C)]
#[derive(Clone, Copy, Debug)]
struct Val {
    count: u64,
    bytes: u64,
    errors: u64,
    lat_ns: u64,
    same_offset: u64,
    same_block: u64,
    unaligned_512: u64,
    unaligned_4k: u64,
    buckets: [u64; NBUCKETS],
}

/// A ring-buffer record type: `repr(C)`, made only of integers and byte
/// arrays, so that any bytes the kernel wrote are a valid value.
///
/// # Safety
/// Implement only for such types: [`drain_records`] builds them from raw
/// bytes.
unsafe trait Record: Copy {}
// SAFETY: each is repr(C) with integer and byte-array fields only.
unsafe impl Record for RawEvent {}
// SAFETY: as above.
unsafe impl Record for RawBlockEvent {}
// SAFETY: as above.
unsafe impl Record for RawOpen {}

/// Reads every record waiting in `rb` as a `T` (records shorter than `T`
/// are skipped) and hands it to `f`, which says whether it counted; how
/// many counted.
fn drain_records<T: Record>(
    rb: Option<&mut RingBuf<MapData>>,
    mut f: impl FnMut(T) -> bool,
) -> u64 {
    let Some(rb) = rb else {
        return 0;
    };
    let mut n = 0;
    while let Some(item) = rb.next() {
        if item.len() < std::mem::size_of::<T>() {
            continue;
        }
        // SAFETY: the record holds at least size_of::<T>() bytes and T is
        // a `Record` (any bytes are a valid value); read_unaligned copes
        // with the ring buffer's 8-byte alignment either way.
        let r: T = unsafe { std::ptr::read_unaligned(item.as_ptr().cast()) };
        n += u64::from(f(r));
    }
    n
}

/// A record of the `events` ring buffer.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
struct RawEvent {
    ts: u64,
    lat_ns: u64,
    off: i64,
    size: u64,
    ret: i64,
    tgid: u32,
    tid: u32,
    fd: i32,
    op: u32,
    gen: u32,
    pad: u32,
    comm: [u8; 16],
}

// SAFETY: plain `repr(C)` integers and arrays without padding (every field
// is 8 bytes, or 4-byte fields in pairs), so any bit pattern is valid.
unsafe impl Pod for Key {}
// SAFETY: as above.
unsafe impl Pod for Val {}
// SAFETY: as above.
unsafe impl Pod for FdState {}
// SAFETY: as above.
unsafe impl Pod for UKey {}
// SAFETY: as above.
unsafe impl Pod for UVal {}

/// A key of the `uhist` map: io_uring requests of one opcode on one file
/// by one process.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
struct UKey {
    tgid: u32,
    op: u32,
    ino: u64,
    /// The inode's kernel address: it stands for the filesystem's device
    /// in the key, which the value carries.
    inode: u64,
}

/// A value of the `uhist` map (one CPU's share).
#[repr(C)]
#[derive(Clone, Copy, Debug)]
struct UVal {
    /// The file's filesystem device, 0 in the shares of CPUs that never
    /// counted a request of the row.
    dev: u32,
    pad: u32,
    count: u64,
    bytes: u64,
    errors: u64,
    lat_ns: u64,
    sq_thread: u64,
    async_work: u64,
    buckets: [u64; NBUCKETS],
}

/// A file as the kernel names it: its filesystem's device (kernel
/// `dev_t`, see [`kernel_dev`]) and its inode number.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Inode {
    /// The filesystem's device.
    pub dev: u32,
    /// The inode number.
    pub ino: u64,
}

impl Inode {
    /// The identity `stat(2)` gives the same file: (`st_dev`, `st_ino`).
    pub fn stat_id(self) -> (u64, u64) {
        (libc::makedev(self.dev >> 20, self.dev & 0xfffff), self.ino)
    }

    /// The inode of a `stat(2)` identity.
    pub fn from_stat(dev: u64, ino: u64) -> Inode {
        Inode {
            dev: kernel_dev(libc::major(dev), libc::minor(dev)),
            ino,
        }
    }
}

/// io_uring requests of one opcode by one process on one file, summed
/// over the CPUs.
#[derive(Debug, Clone)]
pub struct RequestRow {
    /// The file the requests worked on (zeros: none, or not read).
    pub file: Inode,
    /// The figures, with `fd` -1 and no path (the caller names the file).
    pub row: WatchFileOp,
}

/// A key of the `bhist` map.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
struct BKey {
    dev: u32,
    tgid: u32,
    class: u32,
    pad: u32,
}

/// A value of the `bhist` map (one CPU's share).
#[repr(C)]
#[derive(Clone, Copy, Debug)]
struct BVal {
    count: u64,
    bytes: u64,
    lat_ns: u64,
    fua: u64,
    preflush: u64,
    buckets: [u64; NBUCKETS],
    queued: u64,
    queue_ns: u64,
    qbuckets: [u64; NBUCKETS],
}

/// A value of the `bqstats` map (one CPU's share).
#[repr(C)]
#[derive(Clone, Copy, Debug)]
struct BQStat {
    bio_merges: u64,
    rq_merges: u64,
    splits: u64,
}

/// A record of the `bevents` ring buffer.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
struct RawBlockEvent {
    sector: u64,
    lat_ns: u64,
    queue_ns: u64,
    dev: u32,
    bytes: u32,
    tgid: u32,
    class: u32,
    flags: u32,
    pad: u32,
}

// SAFETY: plain `repr(C)` integers without padding.
unsafe impl Pod for BKey {}
// SAFETY: as above.
unsafe impl Pod for BVal {}
// SAFETY: as above.
unsafe impl Pod for BQStat {}

/// `BLK_QUEUED` in a block record's flags: its queue time is known.
const BLK_QUEUED: u32 = 4;

/// Counters of the `stats` map (`STAT_*` in the BPF program).
const STAT_UNMATCHED: u32 = 0;
const STAT_START_FULL: u32 = 1;
const STAT_RB_DROPS: u32 = 2;
const STAT_HIST_FULL: u32 = 3;
const STAT_BLK_UNMATCHED: u32 = 4;
const STAT_BLK_TABLE_FULL: u32 = 5;
const STAT_BLK_RB_DROPS: u32 = 6;
const STAT_BLK_HIST_FULL: u32 = 7;
const STAT_OPEN_DROPS: u32 = 8;
const STAT_OPEN_FULL: u32 = 9;
const STAT_ASYNC_UNMATCHED: u32 = 10;
const STAT_ASYNC_FULL: u32 = 11;
const STAT_AIO_UNREAD: u32 = 12;

/// `PATH_BYTES` in the BPF program: the longest path captured at open
/// time, with its terminating NUL.
pub const PATH_BYTES: usize = 256;

/// A record of the `opens` ring buffer (`struct open_event`).
#[repr(C)]
#[derive(Clone, Copy)]
struct RawOpen {
    tgid: u32,
    kind: u32,
    fd: i32,
    gen: u32,
    dfd: i32,
    src_gen: u32,
    flags: u32,
    len: u32,
    dev: u32,
    pad: u32,
    ino: u64,
    path: [u8; PATH_BYTES],
}

/// How a watched process came to hold a descriptor, as the kernel saw it
/// at the call's exit.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Opened {
    /// openat, openat2, open or creat of `path`, relative to the
    /// directory `dfd` (`AT_FDCWD`, -100: the working directory) when it
    /// does not start with `/`.
    Open {
        /// The path as the process passed it.
        path: String,
        /// It was longer than [`PATH_BYTES`] - 1 bytes and is cut there.
        truncated: bool,
        /// The directory descriptor.
        dfd: i32,
        /// The open flags (`O_*`).
        flags: u32,
    },
    /// dup, dup2, dup3 or fcntl(F_DUPFD): the file of `src` (its
    /// generation `src_gen`).
    Dup {
        /// The descriptor duplicated.
        src: i32,
        /// Its generation then.
        src_gen: u32,
    },
    /// fcntl(F_SETFL) on the descriptor: its new status flags (O_APPEND,
    /// O_ASYNC, O_DIRECT, O_NOATIME, O_NONBLOCK take effect; the rest of
    /// the argument is ignored by the kernel).
    SetFlags {
        /// The argument.
        flags: u32,
    },
}

/// A descriptor a watched process got.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OpenEvent {
    /// Process id.
    pub pid: u32,
    /// The new descriptor.
    pub fd: i32,
    /// Its generation: the row its calls go to.
    pub gen: u32,
    /// The file it holds, when the kernel's BTF let the program read it.
    pub file: Option<Inode>,
    /// How.
    pub how: Opened,
}

/// `AT_FDCWD`: a path relative to the working directory.
pub const AT_FDCWD: i32 = -100;

/// A device number as the block tracepoints carry it (the kernel's
/// `dev_t`: major in the high 12 bits, minor in the low 20).
pub fn kernel_dev(major: u32, minor: u32) -> u32 {
    (major << 20) | (minor & 0xfffff)
}

/// `MAJOR:MINOR` of a kernel `dev_t`.
pub fn dev_name(dev: u32) -> String {
    format!("{}:{}", dev >> 20, dev & 0xfffff)
}

/// Block requests of one class on one device by one issuer, summed over
/// the CPUs.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct BlockRow {
    /// The device (kernel `dev_t`, see [`kernel_dev`]).
    pub dev: u32,
    /// The watched process that started or issued them; none: anyone else.
    pub pid: Option<u32>,
    /// The class.
    pub op: BlockOp,
    /// Requests.
    pub count: u64,
    /// Bytes.
    pub bytes: u64,
    /// Service time, summed, ns.
    pub total_ns: u64,
    /// With FUA.
    pub fua: u64,
    /// With a preflush.
    pub preflush: u64,
    /// Service time of each request.
    pub latency: Log2Buckets,
    /// Requests whose queue time is known (their first bio was seen
    /// queued).
    pub queued: u64,
    /// Their queue time (bio queued to request issued), summed, ns.
    pub queue_ns: u64,
    /// The queue time of each of those.
    pub queue_latency: Log2Buckets,
}

/// Bios merged and split on the way to one device.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct QueueRow {
    /// The device (kernel `dev_t`).
    pub dev: u32,
    /// Bios merged into a queued request.
    pub bio_merges: u64,
    /// Requests merged into another.
    pub rq_merges: u64,
    /// Bios split.
    pub splits: u64,
}

/// One completed block request on a device handed to
/// [`Watcher::watch_device`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BlockEvent {
    /// The device (kernel `dev_t`).
    pub dev: u32,
    /// First sector (512 B) on the whole device.
    pub sector: u64,
    /// Bytes.
    pub bytes: u32,
    /// Issue to completion, ns.
    pub latency_ns: u64,
    /// Bio queued to request issued, ns, when known.
    pub queue_ns: Option<u64>,
    /// The watched process that started or issued it; none: anyone else.
    pub pid: Option<u32>,
    /// The class.
    pub op: BlockOp,
}

/// How to load the programs.
#[derive(Debug, Clone, Default)]
pub struct LoadOptions {
    /// Send every call through the ring buffer too.
    pub stream: bool,
    /// With `stream`: only calls at least this slow, ns (in the kernel).
    pub min_latency_ns: u64,
    /// Trace the block layer too.
    pub block: bool,
    /// Watch the processes a watched process forks.
    pub follow: bool,
    /// Watch every process in this cgroup v2 and the cgroups below it
    /// instead of the processes handed to [`Watcher::watch`].
    pub cgroup: Option<cgroup::Cgroup>,
    /// Turn on the kernel's run-time statistics of BPF programs while the
    /// watcher lives (`BPF_ENABLE_STATS`, Linux 5.8), for
    /// [`Watcher::program_costs`]; they add two clock reads to every run
    /// of every BPF program on the machine.
    pub bpf_stats: bool,
    /// Watch every block request on this device (kernel `dev_t`), whoever
    /// issues it, and no system call at all (`--device`).
    pub device: Option<u32>,
}

/// What the maps hold now.
#[derive(Debug, Clone, Default)]
pub struct Snapshot {
    /// Every (process, descriptor, operation) entry, summed over the
    /// CPUs; the paths are left to the caller, which reads them from
    /// `/proc` while the descriptors are open.
    pub entries: Vec<WatchFileOp>,
    /// Exits without entries.
    pub unmatched: u64,
    /// Entries lost to a full start table.
    pub start_table_full: u64,
    /// Calls lost to a full histogram table.
    pub histogram_table_full: u64,
    /// Ring-buffer records dropped.
    pub ring_drops: u64,
    /// Block requests per device, class and issuer.
    pub block: Vec<BlockRow>,
    /// Bios merged and split, per device.
    pub block_queue: Vec<QueueRow>,
    /// Block completions without a recorded issue.
    pub block_unmatched: u64,
    /// Block requests not timed: the in-flight table was full.
    pub block_table_full: u64,
    /// Block requests not counted: the device histogram table was full.
    pub block_histogram_full: u64,
    /// Block records dropped: their ring buffer was full.
    pub block_ring_drops: u64,
    /// Opens whose path was lost: the ring buffer or the table of opens in
    /// progress was full.
    pub open_drops: u64,
    /// io_uring requests per process, opcode and file.
    pub requests: Vec<RequestRow>,
    /// io_uring and AIO completions without a recorded submission.
    pub async_unmatched: u64,
    /// io_uring requests and AIO control blocks not timed: their table
    /// was full.
    pub async_table_full: u64,
    /// AIO control blocks beyond what one call's program reads.
    pub aio_unread: u64,
}

/// One call from the stream.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StreamEvent {
    /// CLOCK_MONOTONIC at entry, ns.
    pub start_ns: u64,
    /// Latency, ns.
    pub latency_ns: u64,
    /// Process id.
    pub pid: u32,
    /// Thread id.
    pub tid: u32,
    /// Thread's command name.
    pub comm: String,
    /// The call.
    pub op: SyscallOp,
    /// Descriptor (-1: none).
    pub fd: i32,
    /// Which file the number held at the call: it counts the number's
    /// closes and replacements, as a row's generation does.
    pub generation: u32,
    /// Offset for positioned calls.
    pub offset: Option<i64>,
    /// Size asked for (bytes, or iocbs for io_submit).
    pub size: u64,
    /// Return value.
    pub result: i64,
}

/// Whether this process may load BPF tracing programs: CAP_BPF and
/// CAP_PERFMON (Linux 5.8 and later), or CAP_SYS_ADMIN (which also
/// covers older kernels), read from `CapEff` in `/proc/self/status`.
pub fn has_privilege() -> bool {
    const CAP_SYS_ADMIN: u32 = 21;
    const CAP_PERFMON: u32 = 38;
    const CAP_BPF: u32 = 39;
    let Ok(status) = std::fs::read_to_string("/proc/self/status") else {
        return false;
    };
    let Some(eff) = status
        .lines()
        .find_map(|l| l.strip_prefix("CapEff:"))
        .and_then(|v| u64::from_str_radix(v.trim(), 16).ok())
    else {
        return false;
    };
    let has = |c: u32| eff & (1u64 << c) != 0;
    has(CAP_SYS_ADMIN) || (has(CAP_BPF) && has(CAP_PERFMON))
}

/// The tracefs mount point, mounting tracefs at `/sys/kernel/tracing` when
/// neither it nor `/sys/kernel/debug/tracing` is mounted (tracefs is a
/// view of kernel state; mounting it changes no data).
fn ensure_tracefs() -> Result<&'static Path, WatchError> {
    let populated = |p: &Path| std::fs::read_dir(p).is_ok_and(|mut d| d.next().is_some());
    for p in ["/sys/kernel/tracing", "/sys/kernel/debug/tracing"] {
        if populated(Path::new(p)) {
            return Ok(Path::new(p));
        }
    }
    let target = c"/sys/kernel/tracing";
    // SAFETY: every pointer is a NUL-terminated literal; data is null.
    let rc = unsafe {
        libc::mount(
            c"nodev".as_ptr(),
            target.as_ptr(),
            c"tracefs".as_ptr(),
            0,
            std::ptr::null(),
        )
    };
    if rc != 0 {
        return Err(WatchError::Tracefs(std::io::Error::last_os_error()));
    }
    Ok(Path::new("/sys/kernel/tracing"))
}

/// Offsets of the fields dbio reads from a tracepoint's record, from its
/// `format` file (`field:dev_t dev;\toffset:8;\tsize:4;\tsigned:0;`);
/// none when the event is missing or a field is absent or of an
/// unexpected size.
fn field_offsets(tracefs: &Path, event: &str, want: &[(&str, u32)]) -> Option<Vec<u32>> {
    let text = std::fs::read_to_string(tracefs.join("events").join(event).join("format")).ok()?;
    let mut found = Vec::new();
    for (name, size) in want {
        let off = text.lines().find_map(|l| {
            let l = l.trim();
            let decl = l.strip_prefix("field:")?.split(';').next()?;
            let field = decl.rsplit([' ', '*']).next()?;
            let field = field.split('[').next()?;
            if field != *name {
                return None;
            }
            let num = |key: &str| -> Option<u32> {
                l.split(';')
                    .find_map(|p| p.trim().strip_prefix(key))
                    .and_then(|v| v.trim().parse().ok())
            };
            let (off, sz) = (num("offset:")?, num("size:")?);
            (sz >= *size).then_some(off)
        })?;
        found.push(off);
    }
    Some(found)
}

/// The block events' field offsets, or why the block layer cannot be
/// traced here.
struct BlockLayout {
    issue: Vec<u32>,
    done: Vec<u32>,
    start: Option<Vec<u32>>,
    queue: Option<QueueLayout>,
}

/// The offsets of the queueing events' fields: bio queued, split, merged.
struct QueueLayout {
    queue: Vec<u32>,
    split: Vec<u32>,
    bio_merge: Vec<u32>,
    rq_merge: Vec<u32>,
}

/// The queueing events' layout, or none when one is missing (then no
/// queue time is measured). The back- and front-merge records share one
/// layout (`block_bio`), and must here too.
fn queue_layout(tracefs: &Path) -> Option<QueueLayout> {
    let dev_sector = [("dev", 4), ("sector", 8)];
    let back = field_offsets(tracefs, "block/block_bio_backmerge", &dev_sector)?;
    let front = field_offsets(tracefs, "block/block_bio_frontmerge", &dev_sector)?;
    if back != front {
        return None;
    }
    Some(QueueLayout {
        queue: field_offsets(tracefs, "block/block_bio_queue", &dev_sector)?,
        split: field_offsets(
            tracefs,
            "block/block_split",
            &[("dev", 4), ("sector", 8), ("new_sector", 8)],
        )?,
        bio_merge: back,
        rq_merge: field_offsets(tracefs, "block/block_rq_merge", &[("dev", 4)])?,
    })
}

fn block_layout(tracefs: &Path) -> Result<BlockLayout, String> {
    let issue = field_offsets(
        tracefs,
        "block/block_rq_issue",
        &[("dev", 4), ("sector", 8), ("nr_sector", 4), ("rwbs", 4)],
    )
    .ok_or("block:block_rq_issue (missing, or its record lacks dev, sector, nr_sector or rwbs)")?;
    let done = field_offsets(
        tracefs,
        "block/block_rq_complete",
        &[("dev", 4), ("sector", 8), ("nr_sector", 4)],
    )
    .ok_or("block:block_rq_complete (missing, or its record lacks dev, sector or nr_sector)")?;
    let start = field_offsets(
        tracefs,
        "block/block_io_start",
        &[("dev", 4), ("sector", 8)],
    );
    let queue = queue_layout(tracefs);
    Ok(BlockLayout {
        issue,
        done,
        start,
        queue,
    })
}

/// An attached program's link, taken from its program: dropping it
/// detaches the program.
enum Link {
    /// On a tracepoint (`tracepoint/...`).
    TracePoint(#[allow(dead_code)] TracePointLink),
    /// On a raw tracepoint, typed by the kernel's BTF (`tp_btf/...`).
    Btf(#[allow(dead_code)] BtfTracePointLink),
}

/// The loaded object and the links of its attached programs, which the
/// watcher detaches all at once when it is dropped.
struct Attached {
    ebpf: Ebpf,
    links: Vec<Link>,
}

/// Detaches `links` in parallel. Detaching a tracepoint program waits for
/// the kernel's RCU grace periods (about 0.1 s each on the development
/// machine): one after the other, the 60-odd programs took 4.6 s after
/// the watched command had exited; at once, they share the grace periods.
fn detach_all(links: Vec<Link>) {
    std::thread::scope(|s| {
        for link in links {
            s.spawn(move || drop(link));
        }
    });
}

/// Program `prog` of the object, as the kind `T` it is attached as.
fn program<'a, T>(ebpf: &'a mut Ebpf, prog: &str) -> Result<&'a mut T, WatchError>
where
    &'a mut T: TryFrom<&'a mut aya::programs::Program, Error = aya::programs::ProgramError>,
{
    ebpf.program_mut(prog)
        .ok_or_else(|| WatchError::Load(format!("program {prog} missing from the object")))?
        .try_into()
        .map_err(|e| WatchError::Load(format!("{prog}: {e}")))
}

/// Loads and attaches one tracepoint program.
fn attach(ebpf: &mut Attached, prog: &str, category: &str, event: &str) -> Result<(), WatchError> {
    let tp: &mut TracePoint = program(&mut ebpf.ebpf, prog)?;
    tp.load().map_err(|e| program_error(prog, &e))?;
    let id = tp
        .attach(category, event)
        .map_err(|e| program_error(prog, &e))?;
    let link = tp.take_link(id).map_err(|e| program_error(prog, &e))?;
    ebpf.links.push(Link::TracePoint(link));
    Ok(())
}

/// Loads and attaches one program on the raw tracepoint `event`, typed by
/// the kernel's BTF `btf`.
fn attach_btf(
    ebpf: &mut Attached,
    prog: &str,
    event: &str,
    btf: &aya::Btf,
) -> Result<(), WatchError> {
    let tp: &mut BtfTracePoint = program(&mut ebpf.ebpf, prog)?;
    tp.load(event, btf).map_err(|e| program_error(prog, &e))?;
    let id = tp.attach().map_err(|e| program_error(prog, &e))?;
    let link = tp.take_link(id).map_err(|e| program_error(prog, &e))?;
    ebpf.links.push(Link::Btf(link));
    Ok(())
}

/// Attaches the block programs, completion before issue (a request
/// issued between the two attaches completes unmatched, counted, rather
/// than never), and issue before queueing (a bio queued before the issue
/// program is there has no queue time, rather than a wrong one); without
/// `block_io_start` the reason `without_start` is listed as unavailable.
/// Whether the queueing is traced.
fn attach_block(
    ebpf: &mut Attached,
    layout: &BlockLayout,
    unavailable: &mut Vec<String>,
    without_start: &str,
) -> Result<bool, WatchError> {
    attach(ebpf, "blk_done", "block", "block_rq_complete")?;
    attach(ebpf, "blk_issue", "block", "block_rq_issue")?;
    if layout.start.is_some() {
        attach(ebpf, "blk_start", "block", "block_io_start")?;
    } else {
        unavailable.push(format!("block:block_io_start ({without_start})"));
    }
    if layout.queue.is_none() {
        unavailable.push(
            "block:block_bio_queue, block_split, block_bio_backmerge, block_bio_frontmerge or block_rq_merge (no queue time: missing, or another record layout)"
                .to_string(),
        );
        return Ok(false);
    }
    for (prog, event) in [
        ("blk_split", "block_split"),
        ("blk_backmerge", "block_bio_backmerge"),
        ("blk_frontmerge", "block_bio_frontmerge"),
        ("blk_rq_merge", "block_rq_merge"),
        ("blk_queue", "block_bio_queue"),
    ] {
        attach(ebpf, prog, "block", event)?;
    }
    Ok(true)
}

/// Attaches `{prefix}enter_{name}` and `{prefix}exit_{name}` to the
/// system call's two tracepoints; false (nothing attached) when this
/// kernel lacks either.
fn attach_syscall(
    ebpf: &mut Attached,
    tracefs: &Path,
    prefix: &str,
    name: &str,
) -> Result<bool, WatchError> {
    let events = tracefs.join("events/syscalls");
    if !events.join(format!("sys_enter_{name}")).exists()
        || !events.join(format!("sys_exit_{name}")).exists()
    {
        return Ok(false);
    }
    for side in ["enter", "exit"] {
        attach(
            ebpf,
            &format!("{prefix}{side}_{name}"),
            "syscalls",
            &format!("sys_{side}_{name}"),
        )?;
    }
    Ok(true)
}

/// Attaches the io_uring program `prog` to `event`: on the raw
/// tracepoint, typed by the kernel's BTF, where the object has that
/// program (the submission's and the completion's, which run once per
/// request) and it loads; else `{prog}_tp` or `prog` on the tracepoint.
///
/// Why: the tracepoint builds its record first (the opcode's name copied
/// as a string among the rest), which the raw one does not.
fn attach_uring(
    ebpf: &mut Attached,
    btf: Option<&aya::Btf>,
    prog: &str,
    event: &str,
    unavailable: &mut Vec<String>,
) -> Result<(), WatchError> {
    let fallback = format!("{prog}_tp");
    if ebpf.ebpf.program(&fallback).is_none() {
        return attach(ebpf, prog, "io_uring", event);
    }
    if let Some(btf) = btf {
        match attach_btf(ebpf, prog, event, btf) {
            Ok(()) => return Ok(()),
            Err(e) => unavailable.push(format!(
                "raw io_uring:{event} ({e}): traced on the tracepoint, at a higher cost per request"
            )),
        }
    }
    attach(ebpf, &fallback, "io_uring", event)
}

/// The ring buffer map `name` of the object.
fn ring(ebpf: &mut Ebpf, name: &str) -> Result<RingBuf<MapData>, WatchError> {
    let m = ebpf
        .take_map(name)
        .ok_or_else(|| WatchError::Map(format!("map {name} missing")))?;
    RingBuf::try_from(m).map_err(|e| WatchError::Map(e.to_string()))
}

/// Whether the kernel describes its types in BTF, which the programs'
/// CO-RE reads of `struct file`, `inode`, `super_block`, `task_struct`,
/// `files_struct` and `fdtable` are relocated against.
fn kernel_btf() -> bool {
    Path::new("/sys/kernel/btf/vmlinux").exists()
}

/// The io_uring events' field offsets.
struct UringLayout {
    submit: Vec<u32>,
    complete: Vec<u32>,
    async_work: Vec<u32>,
    link: Vec<u32>,
}

/// `USUB_SPAN` and `UDONE_SPAN` in the BPF program: the bytes of the
/// submission record read at once from its request pointer to its
/// sq_thread flag, and of the completion record from its request pointer
/// to its result.
const USUB_SPAN: u32 = 64;
const UDONE_SPAN: u32 = 32;

impl UringLayout {
    fn offsets(&self) -> Vec<(&'static str, u32)> {
        let ([req, opcode, sqt], [done_req, res]) = (
            [self.submit[0], self.submit[1], self.submit[2]],
            [self.complete[0], self.complete[1]],
        );
        vec![
            ("usub_req_off", req),
            ("usub_len", sqt - req + 1),
            ("usub_opcode_rel", opcode - req),
            ("usub_sqt_rel", sqt - req),
            ("udone_req_off", done_req),
            ("udone_len", res - done_req + 4),
            ("udone_res_rel", res - done_req),
            ("uasync_req_off", self.async_work[0]),
            ("ulink_req_off", self.link[0]),
            ("ulink_target_off", self.link[1]),
        ]
    }

    /// Whether the programs' one-read spans hold the fields: the request
    /// pointer first, then the opcode, then sq_thread, within
    /// `USUB_SPAN` bytes; the result within `UDONE_SPAN` bytes after the
    /// request pointer, 4-byte aligned.
    fn fits(&self) -> bool {
        let ([req, opcode, sqt], [done_req, res]) = (
            [self.submit[0], self.submit[1], self.submit[2]],
            [self.complete[0], self.complete[1]],
        );
        req < opcode
            && opcode < sqt
            && sqt - req < USUB_SPAN
            && done_req < res
            && (res - done_req) % 4 == 0
            && res - done_req + 4 <= UDONE_SPAN
    }
}

/// The io_uring events' layout, or which one this kernel lacks (io_uring
/// compiled out, or a record without the fields read).
fn uring_layout(tracefs: &Path) -> Result<UringLayout, String> {
    let get = |event: &str, fields: &[(&str, u32)]| {
        field_offsets(tracefs, &format!("io_uring/{event}"), fields).ok_or_else(|| {
            let names: Vec<&str> = fields.iter().map(|f| f.0).collect();
            format!(
                "io_uring:{event} (missing, or its record lacks {})",
                names.join(", ")
            )
        })
    };
    let l = UringLayout {
        submit: get(
            "io_uring_submit_req",
            &[("req", 8), ("opcode", 1), ("sq_thread", 1)],
        )?,
        complete: get("io_uring_complete", &[("req", 8), ("res", 4)])?,
        async_work: get("io_uring_queue_async_work", &[("req", 8)])?,
        link: get("io_uring_link", &[("req", 8), ("target_req", 8)])?,
    };
    if !l.fits() {
        return Err(
            "io_uring:io_uring_submit_req or io_uring_complete (their fields are laid out otherwise than the programs read them)"
                .into(),
        );
    }
    Ok(l)
}

/// The tracepoint record offsets the programs are loaded with: the block
/// layout's and the fork record's child pid.
fn record_offsets(
    layout: Option<&BlockLayout>,
    fork_child: Option<u32>,
) -> Vec<(&'static str, u32)> {
    let mut offsets = Vec::new();
    if let Some(l) = layout {
        offsets.extend([
            ("issue_dev_off", l.issue[0]),
            ("issue_sector_off", l.issue[1]),
            ("issue_nr_off", l.issue[2]),
            ("issue_rwbs_off", l.issue[3]),
            ("done_dev_off", l.done[0]),
            ("done_sector_off", l.done[1]),
            ("done_nr_off", l.done[2]),
        ]);
        if let Some(s) = &l.start {
            offsets.extend([("start_dev_off", s[0]), ("start_sector_off", s[1])]);
        }
        if let Some(q) = &l.queue {
            offsets.extend([
                ("queue_dev_off", q.queue[0]),
                ("queue_sector_off", q.queue[1]),
                ("split_dev_off", q.split[0]),
                ("split_sector_off", q.split[1]),
                ("split_new_off", q.split[2]),
                ("bmerge_dev_off", q.bio_merge[0]),
                ("bmerge_sector_off", q.bio_merge[1]),
                ("rmerge_dev_off", q.rq_merge[0]),
            ]);
        }
    }
    if let Some(off) = fork_child {
        offsets.push(("fork_child_off", off));
    }
    offsets
}

/// The loaded and attached programs.
pub struct Watcher {
    ebpf: Ebpf,
    /// The attached programs' links, detached together on drop.
    links: Vec<Link>,
    /// Holds the run-time statistics on (`LoadOptions::bpf_stats`).
    _stats: Option<std::os::fd::OwnedFd>,
    unavailable: Vec<String>,
    stream: Option<RingBuf<MapData>>,
    block: Option<RingBuf<MapData>>,
    opens: Option<RingBuf<MapData>>,
    device: Option<u32>,
    /// The io_uring programs are attached.
    uring: bool,
    /// The block layer's queueing (`block_bio_queue`) is traced.
    queue_traced: bool,
}

impl Drop for Watcher {
    fn drop(&mut self) {
        detach_all(std::mem::take(&mut self.links));
    }
}

/// The `bevents_mode` values of the BPF program.
const BEVENTS_OFF: u32 = 0;
const BEVENTS_ALL: u32 = 2;

impl Watcher {
    /// Loads the object and attaches every syscall program whose
    /// tracepoint this kernel has; the ones it lacks are listed by
    /// [`Watcher::unavailable`]. Nothing is watched until
    /// [`Watcher::watch`] adds a process.
    pub fn load(opts: LoadOptions) -> Result<Watcher, WatchError> {
        if !has_privilege() {
            return Err(WatchError::Privilege);
        }
        let tracefs = ensure_tracefs()?;
        let stream: u32 = opts.stream.into();
        let mut unavailable = Vec::new();
        let layout = if opts.block || opts.device.is_some() {
            match block_layout(tracefs) {
                Ok(l) => Some(l),
                Err(what) if opts.device.is_some() => {
                    return Err(WatchError::Load(format!(
                        "--device needs the block tracepoints, and this kernel lacks {what}"
                    )))
                }
                Err(what) => {
                    unavailable.push(what.to_string());
                    None
                }
            }
        } else {
            None
        };
        let fork_child = if opts.follow {
            let f = field_offsets(tracefs, "sched/sched_process_fork", &[("child_pid", 4)])
                .ok_or(WatchError::Follow)?;
            Some(f[0])
        } else {
            None
        };
        let core_ok = kernel_btf();
        let uring_layout = if opts.device.is_some() {
            None
        } else if !core_ok {
            unavailable.push(
                "io_uring:* (this kernel has no BTF, /sys/kernel/btf/vmlinux, to read the requests' files with: io_uring requests are not seen)"
                    .to_string(),
            );
            None
        } else {
            match uring_layout(tracefs) {
                Ok(l) => Some(l),
                Err(what) => {
                    unavailable.push(format!("{what}: io_uring requests are not seen"));
                    None
                }
            }
        };
        let mut offsets = record_offsets(layout.as_ref(), fork_child);
        if let Some(u) = &uring_layout {
            offsets.extend(u.offsets());
        }
        let mut loader = EbpfLoader::new();
        loader
            .override_global("stream_enabled", &stream, true)
            .override_global("stream_min_ns", &opts.min_latency_ns, true);
        if let Some(c) = &opts.cgroup {
            loader
                .override_global("cgroup_id", &c.id, true)
                .override_global("cgroup_level", &c.level, true);
        }
        for (name, off) in &offsets {
            loader.override_global(name, off, true);
        }
        let stats = if opts.bpf_stats {
            Some(
                aya::sys::enable_stats(aya::sys::Stats::RunTime).map_err(|e| {
                    WatchError::Load(format!("turning on the run-time statistics: {e}"))
                })?,
            )
        } else {
            None
        };
        let bevents_mode = if opts.device.is_some() {
            BEVENTS_OFF
        } else {
            BEVENTS_ALL
        };
        let device_target = opts.device.unwrap_or(0);
        let core_ok = u32::from(core_ok);
        loader
            .override_global("bevents_mode", &bevents_mode, true)
            .override_global("device_target", &device_target, true)
            .override_global("core_ok", &core_ok, true);
        let mut ebpf = Attached {
            ebpf: loader.load(BPF_OBJECT).map_err(|e| load_error(&e))?,
            links: Vec::new(),
        };
        if let Some(dev) = opts.device {
            let l = layout.as_ref().expect("required above");
            let queue_traced = attach_block(
                &mut ebpf,
                l,
                &mut unavailable,
                "a request is its issuer's, which may be a kworker dispatching for the process that queued it",
            )?;
            return Ok(Watcher {
                ebpf: ebpf.ebpf,
                links: ebpf.links,
                _stats: stats,
                unavailable,
                stream: None,
                block: None,
                opens: None,
                device: Some(dev),
                uring: false,
                queue_traced,
            });
        }
        let mut attached = 0;
        for op in SyscallOp::SYSCALLS {
            let name = op.name();
            if attach_syscall(&mut ebpf, tracefs, "", name)? {
                attached += 1;
            } else {
                unavailable.push(format!("syscalls:sys_enter_{name}"));
            }
        }
        if attached == 0 {
            return Err(WatchError::NothingAttached);
        }
        // Descriptors closed or replaced: without them a reused number
        // adds another file's calls to the first one's row.
        for name in ["close", "dup2", "dup3"] {
            if tracefs
                .join(format!("events/syscalls/sys_enter_{name}"))
                .exists()
            {
                attach(
                    &mut ebpf,
                    &format!("enter_{name}"),
                    "syscalls",
                    &format!("sys_enter_{name}"),
                )?;
            } else {
                unavailable.push(format!(
                    "syscalls:sys_enter_{name} (a descriptor number reused after it is not told apart)"
                ));
            }
        }
        if fork_child.is_some() {
            attach(&mut ebpf, "follow_fork", "sched", "sched_process_fork")?;
        }
        // Paths at open time and duplicated descriptors: without them a
        // file opened and closed between two ticks stays unnamed.
        for name in [
            "openat", "openat2", "open", "creat", "dup", "dup2", "dup3", "fcntl",
        ] {
            // open and creat are absent on arm64 (openat only).
            if !attach_syscall(&mut ebpf, tracefs, "name_", name)?
                && !matches!(name, "open" | "creat")
            {
                unavailable.push(format!(
                    "syscalls:sys_enter_{name} (its descriptors are named from /proc only)"
                ));
            }
        }
        for (prog, category, event, what) in [
            (
                "name_enter_close_range",
                "syscalls",
                "sys_enter_close_range",
                "a descriptor number reused after close_range is not told apart",
            ),
            (
                "name_exec",
                "sched",
                "sched_process_exec",
                "a descriptor number reused after exec is not told apart",
            ),
        ] {
            if tracefs.join(format!("events/{category}/{event}")).exists() {
                attach(&mut ebpf, prog, category, event)?;
            } else {
                unavailable.push(format!("{category}:{event} ({what})"));
            }
        }
        let opens = Some(ring(&mut ebpf.ebpf, "opens")?);
        let uring = uring_layout.is_some();
        if uring {
            let btf = match aya::Btf::from_sys_fs() {
                Ok(b) => Some(b),
                Err(e) => {
                    unavailable.push(format!(
                        "raw io_uring tracepoints (the kernel's BTF could not be read: {e}): traced on the tracepoints, at a higher cost per request"
                    ));
                    None
                }
            };
            // Completion first: a request submitted between two attaches
            // is then never half seen (it is not in the table, its
            // completion is counted as unmatched).
            for (prog, event) in [
                ("uring_done", "io_uring_complete"),
                ("uring_async", "io_uring_queue_async_work"),
                ("uring_link", "io_uring_link"),
                ("uring_submit", "io_uring_submit_req"),
            ] {
                attach_uring(&mut ebpf, btf.as_ref(), prog, event, &mut unavailable)?;
            }
        }
        let mut queue_traced = false;
        let block = match &layout {
            Some(l) => {
                queue_traced = attach_block(
                    &mut ebpf,
                    l,
                    &mut unavailable,
                    "requests queued by a watched process and issued by a kworker count as writeback/other",
                )?;
                Some(ring(&mut ebpf.ebpf, "bevents")?)
            }
            None => None,
        };
        let stream = if opts.stream {
            Some(ring(&mut ebpf.ebpf, "events")?)
        } else {
            None
        };
        Ok(Watcher {
            ebpf: ebpf.ebpf,
            links: ebpf.links,
            _stats: stats,
            unavailable,
            stream,
            block,
            opens,
            device: None,
            uring,
            queue_traced,
        })
    }

    /// The device watched by `--device` (kernel `dev_t`).
    pub fn device(&self) -> Option<u32> {
        self.device
    }

    /// The command name of the process `pid` that issued requests to the
    /// `--device` device, as the kernel saw it at the issue.
    pub fn issuer_comm(&self, pid: u32) -> Option<String> {
        let m: HashMap<_, u32, [u8; 16]> = HashMap::try_from(self.ebpf.map("issuers")?).ok()?;
        let c = m.get(&pid, 0).ok()?;
        let end = c.iter().position(|&b| b == 0).unwrap_or(16);
        Some(String::from_utf8_lossy(&c[..end]).into_owned())
    }

    /// Hands every descriptor the watched processes got since the last
    /// call (opens and dups, in the order they returned) to `f`; how many.
    pub fn drain_opens(&mut self, mut f: impl FnMut(OpenEvent)) -> u64 {
        drain_records(self.opens.as_mut(), |r: RawOpen| {
            let how = if r.kind == 1 {
                Opened::Dup {
                    src: r.dfd,
                    src_gen: r.src_gen,
                }
            } else if r.kind == 2 {
                Opened::SetFlags { flags: r.flags }
            } else {
                let end = r.path.iter().position(|&b| b == 0).unwrap_or(PATH_BYTES);
                Opened::Open {
                    path: String::from_utf8_lossy(&r.path[..end]).into_owned(),
                    // bpf_probe_read_user_str filled the buffer: the
                    // path may go on.
                    truncated: r.len as usize >= PATH_BYTES,
                    dfd: r.dfd,
                    flags: r.flags,
                }
            };
            f(OpenEvent {
                pid: r.tgid,
                fd: r.fd,
                gen: r.gen,
                file: (r.ino != 0).then_some(Inode {
                    dev: r.dev,
                    ino: r.ino,
                }),
                how,
            });
            true
        })
    }

    /// Whether the block layer is traced.
    pub fn block_traced(&self) -> bool {
        self.block.is_some()
    }

    /// Sends the completed requests on device `dev` (kernel `dev_t`) to
    /// [`Watcher::drain_block`] from now on.
    pub fn watch_device(&mut self, dev: u32) -> Result<(), WatchError> {
        let mut m: HashMap<_, u32, u32> = HashMap::try_from(
            self.ebpf
                .map_mut("bdevs")
                .ok_or_else(|| WatchError::Map("map bdevs missing".into()))?,
        )
        .map_err(|e| WatchError::Map(e.to_string()))?;
        m.insert(dev, 1, 0)
            .map_err(|e| WatchError::Map(e.to_string()))
    }

    /// Hands every completed request waiting from the watched devices to
    /// `f`; how many.
    pub fn drain_block(&mut self, mut f: impl FnMut(&BlockEvent)) -> u64 {
        drain_records(self.block.as_mut(), |r: RawBlockEvent| {
            let Some(&op) = BlockOp::ALL.get(r.class as usize) else {
                return false;
            };
            f(&BlockEvent {
                dev: r.dev,
                sector: r.sector,
                bytes: r.bytes,
                latency_ns: r.lat_ns,
                queue_ns: (r.flags & BLK_QUEUED != 0).then_some(r.queue_ns),
                pid: (r.tgid != 0).then_some(r.tgid),
                op,
            });
            true
        })
    }

    /// Each loaded program's (name, runs, ns inside it) so far, from the
    /// kernel's run-time statistics (zero unless `bpf_stats` was asked
    /// for); programs that never ran are left out.
    pub fn program_costs(&self) -> Vec<(String, u64, u64)> {
        let mut out: Vec<(String, u64, u64)> = self
            .ebpf
            .programs()
            .filter_map(|(name, p)| {
                let i = p.info().ok()?;
                (i.run_count() > 0).then(|| {
                    (
                        name.to_string(),
                        i.run_count(),
                        i.run_time().as_nanos() as u64,
                    )
                })
            })
            .collect();
        out.sort();
        out
    }

    /// Tracepoints this kernel lacks.
    pub fn unavailable(&self) -> &[String] {
        &self.unavailable
    }

    /// Watches process `pid`: all its threads, or only `tid`.
    pub fn watch(&mut self, pid: u32, tid: Option<u32>) -> Result<(), WatchError> {
        let mut m: HashMap<_, u32, u32> = HashMap::try_from(
            self.ebpf
                .map_mut("watched")
                .ok_or_else(|| WatchError::Map("map watched missing".into()))?,
        )
        .map_err(|e| WatchError::Map(e.to_string()))?;
        m.insert(pid, tid.unwrap_or(0), 0)
            .map_err(|e| WatchError::Map(e.to_string()))
    }

    /// Every id in the watched table (with `follow`, the children the
    /// kernel added, and the threads it added by mistake).
    pub fn watched_ids(&self) -> Result<Vec<u32>, WatchError> {
        let m: HashMap<_, u32, u32> = HashMap::try_from(
            self.ebpf
                .map("watched")
                .ok_or_else(|| WatchError::Map("map watched missing".into()))?,
        )
        .map_err(|e| WatchError::Map(e.to_string()))?;
        Ok(m.keys().filter_map(Result::ok).collect())
    }

    /// How many times process `pid` closed or replaced descriptor `fd`
    /// while watched: the generation of the file it holds now.
    pub fn fd_generation(&self, pid: u32, fd: i32) -> u32 {
        let Some(map) = self.ebpf.map("fdgen") else {
            return 0;
        };
        let Ok(m) = HashMap::<_, [i32; 2], FdState>::try_from(map) else {
            return 0;
        };
        m.get(&[pid as i32, fd], 0).map_or(0, |s| s.gen)
    }

    /// Stops watching `id`.
    pub fn unwatch(&mut self, id: u32) -> Result<(), WatchError> {
        let mut m: HashMap<_, u32, u32> = HashMap::try_from(
            self.ebpf
                .map_mut("watched")
                .ok_or_else(|| WatchError::Map("map watched missing".into()))?,
        )
        .map_err(|e| WatchError::Map(e.to_string()))?;
        m.remove(&id).map_err(|e| WatchError::Map(e.to_string()))
    }

    /// Sums every map over the CPUs.
    pub fn snapshot(&self) -> Result<Snapshot, WatchError> {
        let map_err = |e: aya::maps::MapError| WatchError::Map(e.to_string());
        let hist: PerCpuHashMap<_, Key, Val> = PerCpuHashMap::try_from(
            self.ebpf
                .map("hist")
                .ok_or_else(|| WatchError::Map("map hist missing".into()))?,
        )
        .map_err(map_err)?;
        let mut entries = Vec::new();
        for item in hist.iter() {
            let (k, per_cpu) = item.map_err(map_err)?;
            let Some(&op) = SyscallOp::ALL.get(k.op as usize) else {
                continue;
            };
            let mut e = WatchFileOp {
                pid: k.tgid,
                fd: k.fd,
                generation: k.gen,
                op,
                ..Default::default()
            };
            let mut buckets = [0u64; NBUCKETS];
            for v in per_cpu.iter() {
                e.count += v.count;
                e.bytes += v.bytes;
                e.errors += v.errors;
                e.total_ns += v.lat_ns;
                e.same_offset += v.same_offset;
                e.same_block += v.same_block;
                e.unaligned_512 += v.unaligned_512;
                e.unaligned_4k += v.unaligned_4k;
                add_buckets(&mut buckets, &v.buckets);
            }
            e.latency.counts = trimmed(&buckets);
            entries.push(e);
        }
        entries.sort_by_key(|e| (e.pid, e.fd, e.generation, e.op));
        let stats: PerCpuArray<_, u64> = PerCpuArray::try_from(
            self.ebpf
                .map("stats")
                .ok_or_else(|| WatchError::Map("map stats missing".into()))?,
        )
        .map_err(map_err)?;
        let stat = |i: u32| -> Result<u64, WatchError> {
            Ok(stats.get(&i, 0).map_err(map_err)?.iter().sum())
        };
        let mut block = Vec::new();
        let mut block_queue = Vec::new();
        if self.block.is_some() || self.device.is_some() {
            let bhist: PerCpuHashMap<_, BKey, BVal> = PerCpuHashMap::try_from(
                self.ebpf
                    .map("bhist")
                    .ok_or_else(|| WatchError::Map("map bhist missing".into()))?,
            )
            .map_err(map_err)?;
            for item in bhist.iter() {
                let (k, per_cpu) = item.map_err(map_err)?;
                let Some(&op) = BlockOp::ALL.get(k.class as usize) else {
                    continue;
                };
                let mut r = BlockRow {
                    dev: k.dev,
                    pid: (k.tgid != 0).then_some(k.tgid),
                    op,
                    ..Default::default()
                };
                let mut buckets = [0u64; NBUCKETS];
                let mut qbuckets = [0u64; NBUCKETS];
                for v in per_cpu.iter() {
                    r.count += v.count;
                    r.bytes += v.bytes;
                    r.total_ns += v.lat_ns;
                    r.fua += v.fua;
                    r.preflush += v.preflush;
                    r.queued += v.queued;
                    r.queue_ns += v.queue_ns;
                    add_buckets(&mut buckets, &v.buckets);
                    add_buckets(&mut qbuckets, &v.qbuckets);
                }
                r.latency.counts = trimmed(&buckets);
                r.queue_latency.counts = trimmed(&qbuckets);
                block.push(r);
            }
            block.sort_by_key(|r| (r.dev, r.op, r.pid));
            if self.queue_traced {
                let q: PerCpuHashMap<_, u32, BQStat> = PerCpuHashMap::try_from(
                    self.ebpf
                        .map("bqstats")
                        .ok_or_else(|| WatchError::Map("map bqstats missing".into()))?,
                )
                .map_err(map_err)?;
                for item in q.iter() {
                    let (dev, per_cpu) = item.map_err(map_err)?;
                    let mut row = QueueRow {
                        dev,
                        ..Default::default()
                    };
                    for v in per_cpu.iter() {
                        row.bio_merges += v.bio_merges;
                        row.rq_merges += v.rq_merges;
                        row.splits += v.splits;
                    }
                    block_queue.push(row);
                }
                block_queue.sort_by_key(|r| r.dev);
            }
        }
        Ok(Snapshot {
            entries,
            block_queue,
            unmatched: stat(STAT_UNMATCHED)?,
            start_table_full: stat(STAT_START_FULL)?,
            histogram_table_full: stat(STAT_HIST_FULL)?,
            ring_drops: stat(STAT_RB_DROPS)?,
            block,
            block_unmatched: stat(STAT_BLK_UNMATCHED)?,
            block_table_full: stat(STAT_BLK_TABLE_FULL)?,
            block_histogram_full: stat(STAT_BLK_HIST_FULL)?,
            block_ring_drops: stat(STAT_BLK_RB_DROPS)?,
            open_drops: stat(STAT_OPEN_DROPS)? + stat(STAT_OPEN_FULL)?,
            requests: self.requests()?,
            async_unmatched: stat(STAT_ASYNC_UNMATCHED)?,
            async_table_full: stat(STAT_ASYNC_FULL)?,
            aio_unread: stat(STAT_AIO_UNREAD)?,
        })
    }

    /// The io_uring rows, summed over the CPUs (none when the io_uring
    /// programs are not attached).
    fn requests(&self) -> Result<Vec<RequestRow>, WatchError> {
        if !self.uring {
            return Ok(Vec::new());
        }
        let map_err = |e: aya::maps::MapError| WatchError::Map(e.to_string());
        let uhist: PerCpuHashMap<_, UKey, UVal> = PerCpuHashMap::try_from(
            self.ebpf
                .map("uhist")
                .ok_or_else(|| WatchError::Map("map uhist missing".into()))?,
        )
        .map_err(map_err)?;
        // One row per (process, file, opcode): a file whose inode was
        // evicted and read again has two keys.
        let mut rows: BTreeMap<(u32, Inode, SyscallOp), (WatchFileOp, [u64; NBUCKETS])> =
            BTreeMap::new();
        for item in uhist.iter() {
            let (k, per_cpu) = item.map_err(map_err)?;
            let Some(&op) = SyscallOp::ALL.get(k.op as usize) else {
                continue;
            };
            let file = Inode {
                dev: per_cpu.iter().map(|v| v.dev).max().unwrap_or(0),
                ino: k.ino,
            };
            let (row, buckets) = rows.entry((k.tgid, file, op)).or_insert_with(|| {
                let mut row = WatchFileOp {
                    pid: k.tgid,
                    fd: -1,
                    op,
                    ..Default::default()
                };
                if file.ino != 0 {
                    row.device = Some(dev_name(file.dev));
                    row.inode = Some(file.ino);
                }
                (row, [0; NBUCKETS])
            });
            for v in per_cpu.iter() {
                row.count += v.count;
                row.bytes += v.bytes;
                row.errors += v.errors;
                row.total_ns += v.lat_ns;
                row.sq_thread += v.sq_thread;
                row.async_work += v.async_work;
                add_buckets(buckets, &v.buckets);
            }
        }
        Ok(rows
            .into_iter()
            .map(|((_, file, _), (mut row, buckets))| {
                row.latency.counts = trimmed(&buckets);
                RequestRow { file, row }
            })
            .collect())
    }

    /// The stream's file descriptor, to wait on with poll(2) (none
    /// without `stream`).
    pub fn stream_fd(&self) -> Option<std::os::fd::BorrowedFd<'_>> {
        use std::os::fd::AsFd;
        self.stream.as_ref().map(|r| r.as_fd())
    }

    /// Hands every record waiting in the stream to `f`; how many.
    pub fn drain_stream(&mut self, mut f: impl FnMut(StreamEvent)) -> u64 {
        drain_records(self.stream.as_mut(), |r: RawEvent| {
            let Some(&op) = SyscallOp::ALL.get(r.op as usize) else {
                return false;
            };
            let end = r.comm.iter().position(|&b| b == 0).unwrap_or(16);
            f(StreamEvent {
                start_ns: r.ts,
                latency_ns: r.lat_ns,
                pid: r.tgid,
                tid: r.tid,
                comm: String::from_utf8_lossy(&r.comm[..end]).into_owned(),
                op,
                fd: r.fd,
                generation: r.gen,
                offset: (r.off >= 0).then_some(r.off),
                size: r.size,
                result: r.ret,
            });
            true
        })
    }
}

/// Adds one CPU's power-of-two µs buckets to the sum of the others.
fn add_buckets(sum: &mut [u64; NBUCKETS], cpu: &[u64; NBUCKETS]) {
    for (b, c) in sum.iter_mut().zip(cpu) {
        *b += c;
    }
}

/// The buckets up to the last one that counted anything (the model's
/// histogram layout leaves trailing empty buckets out).
fn trimmed(buckets: &[u64; NBUCKETS]) -> Vec<u64> {
    let last = buckets.iter().rposition(|&c| c > 0).map_or(0, |i| i + 1);
    buckets[..last].to_vec()
}

/// The one sentence for a failed object load: EPERM is a privilege problem
/// (a lockdown or an LSM can refuse root too).
fn load_error(e: &aya::EbpfError) -> WatchError {
    let s = e.to_string();
    if s.contains("Operation not permitted") {
        WatchError::Privilege
    } else {
        WatchError::Load(s)
    }
}

/// The one sentence for a program that failed to load or attach.
fn program_error(prog: &str, e: &aya::programs::ProgramError) -> WatchError {
    let mut s = e.to_string();
    let mut src = std::error::Error::source(e);
    while let Some(inner) = src {
        s = format!("{s}: {inner}");
        src = inner.source();
    }
    if s.contains("Operation not permitted") {
        WatchError::Privilege
    } else {
        WatchError::Load(format!("{prog}: {s}"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn block_field_offsets_come_from_the_format_file() {
        let d = std::env::temp_dir().join(format!("dbio-watch-fmt-{}", std::process::id()));
        let ev = d.join("events/block/block_rq_issue");
        std::fs::create_dir_all(&ev).unwrap();
        std::fs::write(
            ev.join("format"),
            "name: block_rq_issue\nformat:\n\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n\n\tfield:dev_t dev;\toffset:8;\tsize:4;\tsigned:0;\n\tfield:sector_t sector;\toffset:16;\tsize:8;\tsigned:0;\n\tfield:unsigned int nr_sector;\toffset:24;\tsize:4;\tsigned:0;\n\tfield:char rwbs[8];\toffset:28;\tsize:8;\tsigned:0;\n",
        )
        .unwrap();
        let got = field_offsets(
            &d,
            "block/block_rq_issue",
            &[("dev", 4), ("sector", 8), ("nr_sector", 4), ("rwbs", 4)],
        );
        // A 5.x layout: rwbs right after nr_sector, not at 34 as on 6.x.
        assert_eq!(got, Some(vec![8, 16, 24, 28]));
        // A field the record lacks, or one too small, is no layout.
        assert_eq!(
            field_offsets(&d, "block/block_rq_issue", &[("ioprio", 2)]),
            None
        );
        assert_eq!(
            field_offsets(&d, "block/block_rq_issue", &[("dev", 8)]),
            None
        );
        assert_eq!(field_offsets(&d, "block/none", &[("dev", 4)]), None);
        std::fs::remove_dir_all(&d).unwrap();
        assert_eq!(dev_name(kernel_dev(254, 3)), "254:3");
    }
}
