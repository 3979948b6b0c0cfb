//! Result types of `dbio watch`: a live process's I/O system calls as the
//! kernel saw them, counted and timed by BPF programs on syscall
//! tracepoints.
//!
//! Why per operation × file: a database's log writer, datafile writer and
//! readers each hold their own files, and the question "what does it do to
//! storage" is answered per file (the redo log: 512 B writes each
//! followed by an fdatasync; the datafile: 8 KiB reads). The latencies are
//! power-of-two microsecond buckets, the [`Log2Buckets`] layout of every
//! other dbio histogram and of Oracle's wait histograms, so a live trace
//! of a log writer compares bucket by bucket with a `log file parallel
//! write` histogram from AWR. Counts and bytes are exact (every call that
//! entered and left while watched); a call already inside the kernel when
//! the watch began is counted in [`WatchLosses::unmatched`] instead.

use crate::Log2Buckets;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// What `dbio watch` was asked to watch and how: the configuration and
/// its echo in the result (durations in ns).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct WatchConfig {
    /// Processes watched by id (`--pid`), all their threads.
    #[serde(default)]
    pub pids: Vec<u32>,
    /// The one thread watched (`--tid`), if only one.
    #[serde(default)]
    pub tid: Option<u32>,
    /// Command-name pattern (`--comm`, `*` matches any run of characters);
    /// processes that start later with a matching name are picked up.
    #[serde(default)]
    pub comm: Option<String>,
    /// The command dbio started and watched (`dbio watch -- COMMAND`).
    #[serde(default)]
    pub command: Vec<String>,
    /// Stop after this long, ns (none: until the processes exit or a signal).
    #[serde(default)]
    pub duration_ns: Option<u64>,
    /// Print the histograms every this often, ns.
    #[serde(default)]
    pub interval_ns: Option<u64>,
    /// Every I/O through the ring buffer as a line (`--stream`).
    #[serde(default)]
    pub stream: bool,
    /// With `stream`: only calls at least this slow, filtered in the kernel.
    #[serde(default)]
    pub min_latency_ns: u64,
    /// Block-layer requests traced too (`block:block_rq_issue` and
    /// `block_rq_complete`) and attributed to the watched files by their
    /// extents; off with `--no-block`.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub block: bool,
    /// Processes forked by a watched process are watched too (`--follow`),
    /// from their first instruction.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub follow: bool,
    /// The cgroup v2 directory whose processes (and those of the cgroups
    /// below it) are watched (`--cgroup`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cgroup: Option<String>,
    /// The block device watched by `--device` (its path or
    /// `MAJOR:MINOR` as given): every request on it, whoever issued it,
    /// and no system calls.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub device: Option<String>,
    /// Every file's rows are printed (`--all-files`); by default
    /// pseudo-files, shared libraries and files under
    /// [`FOLD_SHARE_PCT`] of the traced time are folded into one row
    /// when the result is rendered (the saved rows are all kept).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub all_files: bool,
}

/// Files under this share of the traced time (percent) are folded into
/// the "other files" row of the default output.
pub const FOLD_SHARE_PCT: f64 = 1.0;

/// What a watched path is, for folding the rows that say nothing about
/// storage.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileKind {
    /// A file that may live on storage (a datafile, a log, an unknown
    /// path, a block device).
    Data,
    /// Not a file on storage: `/proc`, `/sys`, terminals, `/dev/null`
    /// and its kin, pipes, sockets, anonymous inodes, memfds.
    Pseudo,
    /// A shared library (`*.so`, `*.so.N`), read once when loaded.
    Library,
}

/// The kind of `path` (none: the path was not read, a [`FileKind::Data`]).
pub fn file_kind(path: Option<&str>) -> FileKind {
    let Some(p) = path else {
        return FileKind::Data;
    };
    const PSEUDO_DEV: [&str; 10] = [
        "/dev/null",
        "/dev/zero",
        "/dev/full",
        "/dev/random",
        "/dev/urandom",
        "/dev/ptmx",
        "/dev/console",
        "/dev/kmsg",
        "/dev/tty",
        "/dev/stdin",
    ];
    let pseudo = p.starts_with("/proc/")
        || p.starts_with("/sys/")
        || p.starts_with("/dev/pts/")
        || p.starts_with("/dev/tty")
        || PSEUDO_DEV.contains(&p)
        // Pipes, sockets, anonymous inodes: `type:[inode]` or
        // `anon_inode:[eventfd]`; memfds are `/memfd:name (deleted)`.
        || !p.starts_with('/')
        || p.starts_with("/memfd:");
    if pseudo {
        return FileKind::Pseudo;
    }
    let name = p.rsplit('/').next().unwrap_or(p);
    // libc.so.6, libaio.so.1.0.1, ld-linux-x86-64.so.2, libfoo.so
    let library = name.ends_with(".so")
        || name.split_once(".so.").is_some_and(|(_, v)| {
            !v.is_empty() && v.split('.').all(|n| n.chars().all(|c| c.is_ascii_digit()))
        });
    if library {
        FileKind::Library
    } else {
        FileKind::Data
    }
}

/// A traced system call, or an asynchronous request (io_uring, Linux AIO)
/// timed from its submission to its completion.
#[derive(
    Debug,
    Clone,
    Copy,
    Default,
    PartialEq,
    Eq,
    PartialOrd,
    Ord,
    Hash,
    Serialize,
    Deserialize,
    JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum SyscallOp {
    /// read(2).
    #[default]
    Read,
    /// pread64(2).
    Pread64,
    /// readv(2).
    Readv,
    /// preadv(2).
    Preadv,
    /// preadv2(2).
    Preadv2,
    /// write(2).
    Write,
    /// pwrite64(2).
    Pwrite64,
    /// writev(2).
    Writev,
    /// pwritev(2).
    Pwritev,
    /// pwritev2(2).
    Pwritev2,
    /// fsync(2).
    Fsync,
    /// fdatasync(2).
    Fdatasync,
    /// sync_file_range(2).
    SyncFileRange,
    /// io_submit(2) (libaio): its latency is submission only.
    IoSubmit,
    /// io_getevents(2) (libaio).
    IoGetevents,
    /// io_uring_enter(2), the system call that submits and waits for a
    /// ring's requests (the requests are their own rows, below).
    IoUringEnter,
    /// An io_uring IORING_OP_READ request.
    UringRead,
    /// IORING_OP_WRITE.
    UringWrite,
    /// IORING_OP_READV.
    UringReadv,
    /// IORING_OP_WRITEV.
    UringWritev,
    /// IORING_OP_READ_FIXED (into a registered buffer).
    UringReadFixed,
    /// IORING_OP_WRITE_FIXED (from a registered buffer).
    UringWriteFixed,
    /// IORING_OP_FSYNC (with or without IORING_FSYNC_DATASYNC), not linked.
    UringFsync,
    /// IORING_OP_FSYNC linked after another request (IOSQE_IO_LINK on the
    /// one before, as a durable write is pushed): timed from that
    /// request's completion, when it could start.
    UringFsyncLinked,
    /// IORING_OP_SYNC_FILE_RANGE.
    UringSyncFileRange,
    /// A Linux AIO control block IOCB_CMD_PREAD, from the io_submit(2)
    /// that submitted it to the io_getevents(2) that reaped it.
    AioPread,
    /// IOCB_CMD_PWRITE.
    AioPwrite,
    /// IOCB_CMD_PREADV.
    AioPreadv,
    /// IOCB_CMD_PWRITEV.
    AioPwritev,
    /// IOCB_CMD_FSYNC.
    AioFsync,
    /// IOCB_CMD_FDSYNC.
    AioFdsync,
}

/// How an operation reached the kernel: the submission path a row names.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Submission {
    /// A system call of its own (read, pwrite64, fsync, ...).
    Syscall,
    /// An io_uring request (submitted by io_uring_enter, or by the ring's
    /// SQPOLL kernel thread).
    IoUring,
    /// A Linux AIO control block (io_submit, reaped by io_getevents).
    Aio,
}

impl Submission {
    /// Its name in words.
    pub fn name(self) -> &'static str {
        match self {
            Submission::Syscall => "system call",
            Submission::IoUring => "io_uring",
            Submission::Aio => "Linux AIO",
        }
    }
}

impl SyscallOp {
    /// Every operation, in the order of the BPF program's `enum op`.
    pub const ALL: [SyscallOp; 31] = [
        SyscallOp::Read,
        SyscallOp::Pread64,
        SyscallOp::Readv,
        SyscallOp::Preadv,
        SyscallOp::Preadv2,
        SyscallOp::Write,
        SyscallOp::Pwrite64,
        SyscallOp::Writev,
        SyscallOp::Pwritev,
        SyscallOp::Pwritev2,
        SyscallOp::Fsync,
        SyscallOp::Fdatasync,
        SyscallOp::SyncFileRange,
        SyscallOp::IoSubmit,
        SyscallOp::IoGetevents,
        SyscallOp::IoUringEnter,
        SyscallOp::UringRead,
        SyscallOp::UringWrite,
        SyscallOp::UringReadv,
        SyscallOp::UringWritev,
        SyscallOp::UringReadFixed,
        SyscallOp::UringWriteFixed,
        SyscallOp::UringFsync,
        SyscallOp::UringFsyncLinked,
        SyscallOp::UringSyncFileRange,
        SyscallOp::AioPread,
        SyscallOp::AioPwrite,
        SyscallOp::AioPreadv,
        SyscallOp::AioPwritev,
        SyscallOp::AioFsync,
        SyscallOp::AioFdsync,
    ];

    /// The system calls, each traced on its own `sys_enter_<name>` and
    /// `sys_exit_<name>` tracepoints.
    pub const SYSCALLS: [SyscallOp; 16] = [
        SyscallOp::Read,
        SyscallOp::Pread64,
        SyscallOp::Readv,
        SyscallOp::Preadv,
        SyscallOp::Preadv2,
        SyscallOp::Write,
        SyscallOp::Pwrite64,
        SyscallOp::Writev,
        SyscallOp::Pwritev,
        SyscallOp::Pwritev2,
        SyscallOp::Fsync,
        SyscallOp::Fdatasync,
        SyscallOp::SyncFileRange,
        SyscallOp::IoSubmit,
        SyscallOp::IoGetevents,
        SyscallOp::IoUringEnter,
    ];

    /// The operation's name: a system call's (its tracepoint is
    /// `sys_enter_<name>`), or the submission path and the request's
    /// opcode (`io_uring WRITE_FIXED`, `aio PWRITE`).
    pub fn name(self) -> &'static str {
        match self {
            SyscallOp::Read => "read",
            SyscallOp::Pread64 => "pread64",
            SyscallOp::Readv => "readv",
            SyscallOp::Preadv => "preadv",
            SyscallOp::Preadv2 => "preadv2",
            SyscallOp::Write => "write",
            SyscallOp::Pwrite64 => "pwrite64",
            SyscallOp::Writev => "writev",
            SyscallOp::Pwritev => "pwritev",
            SyscallOp::Pwritev2 => "pwritev2",
            SyscallOp::Fsync => "fsync",
            SyscallOp::Fdatasync => "fdatasync",
            SyscallOp::SyncFileRange => "sync_file_range",
            SyscallOp::IoSubmit => "io_submit",
            SyscallOp::IoGetevents => "io_getevents",
            SyscallOp::IoUringEnter => "io_uring_enter",
            SyscallOp::UringRead => "io_uring READ",
            SyscallOp::UringWrite => "io_uring WRITE",
            SyscallOp::UringReadv => "io_uring READV",
            SyscallOp::UringWritev => "io_uring WRITEV",
            SyscallOp::UringReadFixed => "io_uring READ_FIXED",
            SyscallOp::UringWriteFixed => "io_uring WRITE_FIXED",
            SyscallOp::UringFsync => "io_uring FSYNC",
            SyscallOp::UringFsyncLinked => "io_uring FSYNC (linked)",
            SyscallOp::UringSyncFileRange => "io_uring SYNC_FILE_RANGE",
            SyscallOp::AioPread => "aio PREAD",
            SyscallOp::AioPwrite => "aio PWRITE",
            SyscallOp::AioPreadv => "aio PREADV",
            SyscallOp::AioPwritev => "aio PWRITEV",
            SyscallOp::AioFsync => "aio FSYNC",
            SyscallOp::AioFdsync => "aio FDSYNC",
        }
    }

    /// How it reached the kernel.
    pub fn submission(self) -> Submission {
        if self >= SyscallOp::AioPread {
            Submission::Aio
        } else if self >= SyscallOp::UringRead {
            Submission::IoUring
        } else {
            Submission::Syscall
        }
    }

    /// A read or write that moves bytes (its `bytes` count).
    pub fn moves_data(self) -> bool {
        self.is_read() || self.is_write()
    }

    /// A write: write, pwrite64, writev, pwritev, pwritev2, or such a
    /// request through io_uring or Linux AIO.
    pub fn is_write(self) -> bool {
        use SyscallOp::*;
        (Write..=Pwritev2).contains(&self)
            || matches!(
                self,
                UringWrite | UringWritev | UringWriteFixed | AioPwrite | AioPwritev
            )
    }

    /// A read: read, pread64, readv, preadv, preadv2, or such a request
    /// through io_uring or Linux AIO.
    pub fn is_read(self) -> bool {
        use SyscallOp::*;
        self <= Preadv2
            || matches!(
                self,
                UringRead | UringReadv | UringReadFixed | AioPread | AioPreadv
            )
    }

    /// fsync, fdatasync or sync_file_range, or such a request through
    /// io_uring or Linux AIO.
    pub fn is_sync(self) -> bool {
        use SyscallOp::*;
        (Fsync..=SyncFileRange).contains(&self)
            || matches!(
                self,
                UringFsync | UringFsyncLinked | UringSyncFileRange | AioFsync | AioFdsync
            )
    }
}

impl std::fmt::Display for SyscallOp {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// One operation on one file descriptor of one process.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct WatchFileOp {
    /// Process id (tgid).
    pub pid: u32,
    /// File descriptor (-1 for calls without one: io_submit, io_getevents).
    pub fd: i32,
    /// How many times the process had closed or replaced (dup2, dup3) this
    /// descriptor number before these calls: each file that held the
    /// number has a row of its own. Absent when 0.
    #[serde(default, skip_serializing_if = "is_zero_u32")]
    pub generation: u32,
    /// What the descriptor pointed to (`/proc/PID/fd/FD`), read when first
    /// seen and again at the end; none when the process or the descriptor
    /// was gone by then.
    pub path: Option<String>,
    /// The flags the file was opened with (`O_WRONLY|O_DIRECT|O_DSYNC`),
    /// with the status flags a later fcntl(F_SETFL) set (O_DIRECT switched
    /// on after the open), when the open or the F_SETFL was seen (files
    /// opened before the watch began and never changed have none).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub open_flags: Option<String>,
    /// The system call.
    pub op: SyscallOp,
    /// Calls that completed while watched.
    pub count: u64,
    /// Bytes the calls returned as transferred (reads and writes).
    pub bytes: u64,
    /// Calls that returned an error.
    pub errors: u64,
    /// Time inside the calls, summed, ns.
    pub total_ns: u64,
    /// Writes at the same offset as the previous write to this descriptor.
    pub same_offset: u64,
    /// Writes whose first 4 KiB block is the last block the previous write
    /// to this descriptor touched (a partial block written again).
    pub same_block: u64,
    /// Positioned writes whose offset is not a multiple of 512 B.
    pub unaligned_512: u64,
    /// Positioned writes whose offset or length is not a multiple of 4 KiB.
    pub unaligned_4k: u64,
    /// Latency of each call, power-of-two µs buckets.
    pub latency: Log2Buckets,
    /// The file's filesystem device (`MAJOR:MINOR`) and inode number, for
    /// io_uring requests: a request names a file (a registered one, or
    /// the file behind a descriptor when it was issued), not a number, so
    /// its row is per file and `fd` is -1.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub device: Option<String>,
    /// See `device`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub inode: Option<u64>,
    /// Of `count`, the io_uring requests the ring's SQPOLL kernel thread
    /// submitted (`iou-sqp-PID`, a thread of the ring's process).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub sq_thread: u64,
    /// Of `count`, the io_uring requests punted to the ring's io-wq
    /// workers (`iou-wrk-PID` threads), counted under the process that
    /// submitted them.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub async_work: u64,
}

/// What the tracer could not record: always shown, so a missing call is
/// never mistaken for one that did not happen.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct WatchLosses {
    /// Exits without a recorded entry (calls already running when the
    /// watch began), per thread.
    pub unmatched: u64,
    /// Entries not recorded because the in-kernel table of calls in
    /// progress was full.
    pub start_table_full: u64,
    /// Calls not counted because the in-kernel histogram table was full.
    pub histogram_table_full: u64,
    /// Stream records dropped because the ring buffer was full.
    pub ring_drops: u64,
    /// Block requests that completed without a recorded issue (issued
    /// before the watch began, or merged at their front after issue so
    /// the sector no longer pairs them), on every device.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub block_unmatched: u64,
    /// Block requests not timed because the in-kernel table of requests
    /// in flight was full.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub block_table_full: u64,
    /// Block requests not counted because the device histogram table was
    /// full.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub block_histogram_full: u64,
    /// Block requests not attributed to files because their ring buffer
    /// was full.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub block_ring_drops: u64,
    /// Opens whose path was not captured (their ring buffer or the table
    /// of opens in progress was full): those files are named from
    /// `/proc` while open, or not at all.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub open_drops: u64,
    /// io_uring requests or AIO control blocks whose completion came
    /// without a recorded submission (submitted before the watch began).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub async_unmatched: u64,
    /// io_uring requests or AIO control blocks not timed: the in-kernel
    /// table of requests in flight was full.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub async_table_full: u64,
    /// AIO control blocks not read: an io_submit or io_getevents handed
    /// more than the tracer reads per call (see the docs).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub aio_unread: u64,
}

fn is_zero(v: &u64) -> bool {
    *v == 0
}

fn no_counts(b: &Log2Buckets) -> bool {
    b.counts.is_empty()
}

fn is_zero_u32(v: &u32) -> bool {
    *v == 0
}

impl WatchLosses {
    /// Whether anything was lost.
    pub fn any(&self) -> bool {
        self.unmatched
            + self.start_table_full
            + self.histogram_table_full
            + self.ring_drops
            + self.block_dropped()
            + self.open_drops
            + self.async_unmatched
            + self.async_table_full
            + self.aio_unread
            > 0
    }

    /// Block requests lost to full tables or a full ring buffer (not the
    /// unmatched completions, which are requests older than the watch).
    pub fn block_dropped(&self) -> u64 {
        self.block_table_full + self.block_histogram_full + self.block_ring_drops
    }
}

/// The operation of a block-layer request, from its `rwbs` flags.
#[derive(
    Debug,
    Clone,
    Copy,
    Default,
    PartialEq,
    Eq,
    PartialOrd,
    Ord,
    Hash,
    Serialize,
    Deserialize,
    JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum BlockOp {
    /// A read.
    #[default]
    Read,
    /// A write (with FUA or a preflush counted on the row).
    Write,
    /// A cache flush without data (what fsync asks of a volatile write
    /// cache).
    Flush,
    /// A discard (or secure erase).
    Discard,
    /// Anything else (write zeroes, zone commands).
    Other,
}

impl BlockOp {
    /// Every class, in the order of the BPF program's `enum blk_class`.
    pub const ALL: [BlockOp; 5] = [
        BlockOp::Read,
        BlockOp::Write,
        BlockOp::Flush,
        BlockOp::Discard,
        BlockOp::Other,
    ];

    /// The class in one word.
    pub fn name(self) -> &'static str {
        match self {
            BlockOp::Read => "read",
            BlockOp::Write => "write",
            BlockOp::Flush => "flush",
            BlockOp::Discard => "discard",
            BlockOp::Other => "other",
        }
    }
}

impl std::fmt::Display for BlockOp {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// Block requests of one class on one device, issued by one watched
/// process or by anyone else: the device's service time (issue to
/// completion), not the time a system call took.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct WatchDeviceIo {
    /// `MAJOR:MINOR` of the whole device the requests went to.
    pub device: String,
    /// Its kernel name (`vda`, `nvme0n1`), from `/sys/dev/block`.
    #[serde(default)]
    pub name: Option<String>,
    /// The request class.
    pub op: BlockOp,
    /// The watched process in whose context the request was started or
    /// issued (direct I/O, an fsync's own flush); none: writeback, the
    /// journal thread, or another process.
    #[serde(default)]
    pub pid: Option<u32>,
    /// With `--device`: the issuer's command name, as the kernel saw it
    /// at the issue (`kworker/u8:2` for writeback).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub comm: Option<String>,
    /// Requests completed.
    pub count: u64,
    /// Bytes they carried (sectors × 512; 0 for flushes).
    pub bytes: u64,
    /// Device service time, summed, ns.
    pub total_ns: u64,
    /// Writes with FUA (written through the device's cache).
    #[serde(default)]
    pub fua: u64,
    /// Requests that asked for a cache flush before them (preflush).
    #[serde(default)]
    pub preflush: u64,
    /// Service time of each request, power-of-two µs buckets.
    pub latency: Log2Buckets,
    /// Of `count`, the requests whose queue time is known: their first
    /// bio was seen entering the block layer (`block_bio_queue`).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub queued: u64,
    /// Their queue time summed, ns: from the bio's queueing to the
    /// request's issue to the driver (the I/O scheduler, a full queue,
    /// writeback throttling; blktrace's Q2D), beside `total_ns`, the
    /// device's service time (issue to completion, D2C).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub queue_ns: u64,
    /// The queue time of each of those requests, power-of-two µs buckets.
    #[serde(default, skip_serializing_if = "no_counts")]
    pub queue_latency: Log2Buckets,
}

/// Block requests of one class attributed to one watched file: their
/// first sector lies in one of the file's extents (FIEMAP), whoever
/// issued them (the process itself, or writeback on its behalf).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct WatchFileBlock {
    /// The file.
    pub path: String,
    /// `MAJOR:MINOR` of the whole device.
    pub device: String,
    /// The request class.
    pub op: BlockOp,
    /// Requests completed.
    pub count: u64,
    /// Bytes they carried.
    pub bytes: u64,
    /// Device service time, summed, ns.
    pub total_ns: u64,
    /// Of `count`, those started or issued in a watched process's context
    /// (the rest: writeback or another thread on its behalf).
    pub by_watched: u64,
    /// Service time of each request, power-of-two µs buckets.
    pub latency: Log2Buckets,
    /// Of `count`, the requests whose queue time is known: their first
    /// bio was seen entering the block layer (`block_bio_queue`).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub queued: u64,
    /// Their queue time summed, ns: from the bio's queueing to the
    /// request's issue to the driver (the I/O scheduler, a full queue,
    /// writeback throttling; blktrace's Q2D), beside `total_ns`, the
    /// device's service time (issue to completion, D2C).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub queue_ns: u64,
    /// The queue time of each of those requests, power-of-two µs buckets.
    #[serde(default, skip_serializing_if = "no_counts")]
    pub queue_latency: Log2Buckets,
}

/// Requests on a device that holds watched files which fell in none of
/// their extents: the journal, metadata, other processes' files, or a
/// file whose extents moved since they were mapped.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct WatchUnattributed {
    /// `MAJOR:MINOR` of the whole device.
    pub device: String,
    /// The request class.
    pub op: BlockOp,
    /// Requests.
    pub count: u64,
    /// Bytes.
    pub bytes: u64,
    /// Of `count`, those issued in a watched process's context (the
    /// journal or metadata it caused, or a file not mapped).
    pub by_watched: u64,
    /// Device service time, summed, ns.
    pub total_ns: u64,
    /// Of `count`, the requests whose queue time is known.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub queued: u64,
    /// Their queue time (bio queued to request issued) summed, ns.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub queue_ns: u64,
}

/// What happened to bios on their way to one device: merged into a
/// request queued before them, requests merged in the I/O scheduler,
/// bios split (too large for the device, or across a boundary). A merged
/// bio is timed as part of its request, from that request's first bio; a
/// split bio's parts are each timed from the whole one's queueing.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct WatchDeviceQueue {
    /// `MAJOR:MINOR` of the whole device.
    pub device: String,
    /// Bios merged into a queued request (back and front merges).
    pub bio_merges: u64,
    /// Requests merged into another.
    pub rq_merges: u64,
    /// Bios split.
    pub splits: u64,
}

/// A watched file whose extents could not be mapped, and why.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct WatchUnmapped {
    /// The file.
    pub path: String,
    /// Why, in words.
    pub reason: String,
}

/// Why a watch ended.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum WatchEnd {
    /// Every watched process exited.
    Exited,
    /// `--duration` elapsed.
    Duration,
    /// A signal (Ctrl-C) asked for the summary.
    Signal {
        /// Signal name.
        signal: String,
    },
}

impl std::fmt::Display for WatchEnd {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            WatchEnd::Exited => f.write_str("the watched processes exited"),
            WatchEnd::Duration => f.write_str("the duration elapsed"),
            WatchEnd::Signal { signal } => write!(f, "{signal} arrived"),
        }
    }
}

/// A process that was watched.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct WatchedProcess {
    /// Process id.
    pub pid: u32,
    /// Its command name when first seen.
    pub comm: String,
}

/// The result of one `dbio watch`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct WatchResult {
    /// Name of the watch (what was watched, in words).
    pub name: String,
    /// The configuration as it ran.
    pub config: WatchConfig,
    /// Time from the first attach to the end, ns.
    pub duration_ns: u64,
    /// Why it ended.
    pub ended: WatchEnd,
    /// The exit status of the command dbio started, if it started one and
    /// it exited.
    #[serde(default)]
    pub command_status: Option<i32>,
    /// The signal that ended the command dbio started, when one killed it
    /// (then it has no exit status; `dbio watch` exits 128 + the signal,
    /// as a shell reports it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub command_signal: Option<i32>,
    /// Every process that was watched.
    pub processes: Vec<WatchedProcess>,
    /// Per process, descriptor and operation.
    pub ops: Vec<WatchFileOp>,
    /// What could not be recorded.
    pub losses: WatchLosses,
    /// Records printed by `--stream`.
    #[serde(default)]
    pub streamed: u64,
    /// Tracepoints this kernel does not have (their calls are not seen).
    #[serde(default)]
    pub unavailable: Vec<String>,
    /// Block requests per device, class and issuer, on the devices that
    /// hold watched files or that a watched process issued to.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub block: Vec<WatchDeviceIo>,
    /// Block requests attributed to watched files by their extents.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub file_block: Vec<WatchFileBlock>,
    /// Block requests on those devices that no watched file's extents
    /// hold.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub block_unattributed: Vec<WatchUnattributed>,
    /// Watched files whose extents could not be mapped.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub unmapped: Vec<WatchUnmapped>,
    /// Per device, the bios merged and split on the way to it.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub block_queue: Vec<WatchDeviceQueue>,
    /// The tracer's own BPF programs: how often each ran and for how long
    /// (`--bpf-stats`, the kernel's run-time statistics); empty unless
    /// asked for.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub bpf_programs: Vec<WatchProgramCost>,
}

/// One of the tracer's BPF programs, as the kernel's run-time statistics
/// (`BPF_ENABLE_STATS`) count it over the watch. A program runs for every
/// call of its system call by any process, watched or not (the unwatched
/// ones return after the first check); the statistics' own two clock reads
/// per run (about 20 to 40 ns) are inside `run_ns`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct WatchProgramCost {
    /// Program name (`enter_pwrite64`, `exit_pwrite64`, `blk_issue`, ...).
    pub name: String,
    /// Runs.
    pub runs: u64,
    /// Time inside the program, summed, ns.
    pub run_ns: u64,
}

impl WatchFileOp {
    /// The file in words: its path; an io_uring request's file not named
    /// by its device and inode; or `?`.
    pub fn file_name(&self) -> String {
        match (&self.path, &self.device, self.inode) {
            (Some(p), _, _) => p.clone(),
            (None, Some(d), Some(i)) => format!("inode {i} on {d}"),
            _ => "?".into(),
        }
    }

    /// Whose the row is: `pid P, fd F`, or `pid P` for a row with no
    /// descriptor (an io_uring request's file, io_submit).
    pub fn whose(&self) -> String {
        if self.fd >= 0 {
            format!("pid {}, fd {}", self.pid, self.fd)
        } else {
            format!("pid {}", self.pid)
        }
    }
}

impl WatchResult {
    /// The exit status `dbio watch -- COMMAND` passes on: the command's
    /// own, or 128 + the signal that killed it, as a shell reports it;
    /// none when the watch ended before the command did, or watched no
    /// command.
    pub fn command_exit(&self) -> Option<i32> {
        self.command_status.or(self.command_signal.map(|s| 128 + s))
    }

    /// The sum over every descriptor and process of `op`'s entries.
    pub fn total(&self, op: SyscallOp) -> WatchFileOp {
        let mut t = WatchFileOp {
            op,
            ..Default::default()
        };
        for o in self.ops.iter().filter(|o| o.op == op) {
            t.count += o.count;
            t.bytes += o.bytes;
            t.errors += o.errors;
            t.total_ns += o.total_ns;
            t.same_offset += o.same_offset;
            t.same_block += o.same_block;
            t.unaligned_512 += o.unaligned_512;
            t.unaligned_4k += o.unaligned_4k;
            t.sq_thread += o.sq_thread;
            t.async_work += o.async_work;
            t.latency.merge(&o.latency);
        }
        t
    }
}

#[cfg(test)]
mod file_kind_tests {
    use super::*;

    #[test]
    fn each_operation_says_its_path_and_whether_it_reads_writes_or_syncs() {
        use SyscallOp::*;
        for (op, path, read, write, sync) in [
            (Pread64, Submission::Syscall, true, false, false),
            (Pwritev2, Submission::Syscall, false, true, false),
            (Fdatasync, Submission::Syscall, false, false, true),
            (IoUringEnter, Submission::Syscall, false, false, false),
            (UringRead, Submission::IoUring, true, false, false),
            (UringReadFixed, Submission::IoUring, true, false, false),
            (UringWriteFixed, Submission::IoUring, false, true, false),
            (UringFsyncLinked, Submission::IoUring, false, false, true),
            (UringSyncFileRange, Submission::IoUring, false, false, true),
            (AioPread, Submission::Aio, true, false, false),
            (AioPwritev, Submission::Aio, false, true, false),
            (AioFdsync, Submission::Aio, false, false, true),
        ] {
            assert_eq!(op.submission(), path, "{op}");
            assert_eq!(
                (op.is_read(), op.is_write(), op.is_sync()),
                (read, write, sync),
                "{op}"
            );
            assert_eq!(op.moves_data(), read || write, "{op}");
        }
        // Only the system calls have tracepoints of their own, first in
        // the BPF program's order.
        assert_eq!(SyscallOp::ALL[..16], SyscallOp::SYSCALLS);
        assert!(SyscallOp::SYSCALLS
            .iter()
            .all(|o| o.submission() == Submission::Syscall));
        assert_eq!(UringFsyncLinked.name(), "io_uring FSYNC (linked)");
        // The JSON names of the requests.
        assert_eq!(
            serde_json::to_string(&UringWriteFixed).unwrap(),
            "\"uring_write_fixed\""
        );
        assert_eq!(serde_json::to_string(&AioFdsync).unwrap(), "\"aio_fdsync\"");
    }

    #[test]
    fn a_started_command_passes_its_status_or_its_signal_on() {
        let mut w = WatchResult {
            name: "command x".into(),
            config: WatchConfig::default(),
            duration_ns: 0,
            ended: WatchEnd::Exited,
            command_status: Some(3),
            command_signal: None,
            processes: vec![],
            ops: vec![],
            losses: WatchLosses::default(),
            streamed: 0,
            unavailable: vec![],
            block: vec![],
            file_block: vec![],
            block_unattributed: vec![],
            unmapped: vec![],
            block_queue: vec![],
            bpf_programs: vec![],
        };
        assert_eq!(w.command_exit(), Some(3));
        w.command_status = None;
        w.command_signal = Some(9);
        assert_eq!(w.command_exit(), Some(137));
        w.command_signal = None;
        assert_eq!(w.command_exit(), None);
        let o = WatchFileOp {
            pid: 7,
            fd: -1,
            device: Some("254:0".into()),
            inode: Some(12),
            ..Default::default()
        };
        assert_eq!(
            (o.file_name(), o.whose()),
            ("inode 12 on 254:0".into(), "pid 7".into())
        );
    }

    #[test]
    fn pseudo_files_and_libraries_are_told_from_files_on_storage() {
        for p in [
            "/proc/self/mountinfo",
            "/sys/fs/cgroup/cpu.max",
            "/dev/null",
            "/dev/pts/3",
            "/dev/tty",
            "pipe:[4711]",
            "socket:[12]",
            "anon_inode:[eventfd]",
            "/memfd:x (deleted)",
        ] {
            assert_eq!(file_kind(Some(p)), FileKind::Pseudo, "{p}");
        }
        for p in [
            "/lib/x86_64-linux-gnu/libc.so.6",
            "/usr/lib/libaio.so.1.0.1",
            "/opt/oracle/lib/libclntsh.so",
        ] {
            assert_eq!(file_kind(Some(p)), FileKind::Library, "{p}");
        }
        for p in [
            "/u01/oradata/redo01.log",
            "/dev/nvme0n1",
            "/dev/shm/ora_data",
            "/data/so.so.x",
            "/data/base.so.bak",
        ] {
            assert_eq!(file_kind(Some(p)), FileKind::Data, "{p}");
        }
        assert_eq!(file_kind(None), FileKind::Data);
    }
}
