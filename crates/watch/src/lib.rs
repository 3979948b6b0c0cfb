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
#![deny(missing_docs)]

use aya::maps::{HashMap, MapData, PerCpuArray, PerCpuHashMap, RingBuf};
use aya::programs::TracePoint;
use aya::{Ebpf, EbpfLoader, Pod};
use dbio_model::watch::{SyscallOp, WatchFileOp};
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
    pad: u32,
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
    comm: [u8; 16],
}

// SAFETY: plain `repr(C)` integers and arrays without padding (every field
// is 8 bytes, or 4-byte fields in pairs), so any bit pattern is valid.
unsafe impl Pod for Key {}
// SAFETY: as above.
unsafe impl Pod for Val {}

/// Counters of the `stats` map (`STAT_*` in the BPF program).
const STAT_UNMATCHED: u32 = 0;
const STAT_START_FULL: u32 = 1;
const STAT_RB_DROPS: u32 = 2;
const STAT_HIST_FULL: u32 = 3;

/// How to load the programs.
#[derive(Debug, Clone, Copy, Default)]
pub struct LoadOptions {
    /// Send every call through the ring buffer too.
    pub stream: bool,
    /// With `stream`: only calls at least this slow, ns (in the kernel).
    pub min_latency_ns: u64,
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

/// The loaded and attached programs.
pub struct Watcher {
    ebpf: Ebpf,
    unavailable: Vec<String>,
    stream: Option<RingBuf<MapData>>,
}

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
        let mut ebpf = EbpfLoader::new()
            .override_global("stream_enabled", &stream, true)
            .override_global("stream_min_ns", &opts.min_latency_ns, true)
            .load(BPF_OBJECT)
            .map_err(|e| load_error(&e))?;
        let mut unavailable = Vec::new();
        let mut attached = 0;
        for op in SyscallOp::ALL {
            let name = op.name();
            let events = tracefs.join("events/syscalls");
            if !events.join(format!("sys_enter_{name}")).exists()
                || !events.join(format!("sys_exit_{name}")).exists()
            {
                unavailable.push(format!("syscalls:sys_enter_{name}"));
                continue;
            }
            for (side, prog) in [
                ("enter", format!("enter_{name}")),
                ("exit", format!("exit_{name}")),
            ] {
                let tp: &mut TracePoint = ebpf
                    .program_mut(&prog)
                    .ok_or_else(|| {
                        WatchError::Load(format!("program {prog} missing from the object"))
                    })?
                    .try_into()
                    .map_err(|e| WatchError::Load(format!("{prog}: {e}")))?;
                tp.load().map_err(|e| program_error(&prog, &e))?;
                tp.attach("syscalls", &format!("sys_{side}_{name}"))
                    .map_err(|e| program_error(&prog, &e))?;
            }
            attached += 1;
        }
        if attached == 0 {
            return Err(WatchError::NothingAttached);
        }
        let stream = if opts.stream {
            let m = ebpf
                .take_map("events")
                .ok_or_else(|| WatchError::Map("map events missing".into()))?;
            Some(RingBuf::try_from(m).map_err(|e| WatchError::Map(e.to_string()))?)
        } else {
            None
        };
        Ok(Watcher {
            ebpf,
            unavailable,
            stream,
        })
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
                for (b, c) in buckets.iter_mut().zip(v.buckets) {
                    *b += c;
                }
            }
            let last = buckets.iter().rposition(|&c| c > 0).map_or(0, |i| i + 1);
            e.latency.counts = buckets[..last].to_vec();
            entries.push(e);
        }
        entries.sort_by_key(|e| (e.pid, e.fd, e.op));
        let stats: PerCpuArray<_, u64> = PerCpuArray::try_from(
            self.ebpf
                .map("stats")
                .ok_or_else(|| WatchError::Map("map stats missing".into()))?,
        )
        .map_err(map_err)?;
        let stat = |i: u32| -> Result<u64, WatchError> {
            Ok(stats.get(&i, 0).map_err(map_err)?.iter().sum())
        };
        Ok(Snapshot {
            entries,
            unmatched: stat(STAT_UNMATCHED)?,
            start_table_full: stat(STAT_START_FULL)?,
            histogram_table_full: stat(STAT_HIST_FULL)?,
            ring_drops: stat(STAT_RB_DROPS)?,
        })
    }

    /// The stream's file descriptor, to wait on with poll(2) (none
    /// without `stream`).
    pub fn stream_fd(&self) -> Option<std::os::fd::BorrowedFd<'_>> {
        use std::os::fd::AsFd;
        self.stream.as_ref().map(|r| r.as_fd())
    }

    /// Hands every record waiting in the stream to `f`; how many.
    pub fn drain_stream(&mut self, mut f: impl FnMut(StreamEvent)) -> u64 {
        let Some(rb) = self.stream.as_mut() else {
            return 0;
        };
        let mut n = 0;
        while let Some(item) = rb.next() {
            if item.len() < std::mem::size_of::<RawEvent>() {
                continue;
            }
            // SAFETY: the record is at least size_of::<RawEvent>() bytes
            // and RawEvent is plain integers; read_unaligned copes with
            // the ring buffer's 8-byte alignment either way.
            let r: RawEvent = unsafe { std::ptr::read_unaligned(item.as_ptr().cast()) };
            let Some(&op) = SyscallOp::ALL.get(r.op as usize) else {
                continue;
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
                offset: (r.off >= 0).then_some(r.off),
                size: r.size,
                result: r.ret,
            });
            n += 1;
        }
        n
    }
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
