//! A watch session: a live process's I/O system calls, counted and timed
//! in the kernel by the BPF programs of this crate, from the load of the
//! programs to the finished [`WatchResult`].
//!
//! Why here and not in the binary: the session is the tracer's own
//! lifecycle (load, attach, stream, collect, attribute); the command only
//! parses its options, says what the person watching should see (an
//! [`Observer`]) and hands the result to the output.
//!
//! The session picks the processes (by id, by command-name pattern with
//! later ones picked up, by cgroup, which the kernel checks per call, or a
//! command it starts and holds at exec until it is watched, so not one of
//! its calls is missed), reads the in-kernel histograms every tick,
//! resolves each descriptor to its path when first seen (`/proc/PID/fd`,
//! while the file is still open), and ends when the processes have exited
//! (the cgroup was removed), the duration elapsed or a signal asked for
//! the summary: a stop is the ordinary end of a watch, so the result is
//! complete and the exit status 0.

use crate::cgroup::Cgroup;
use crate::{block, device, names, requests};
use crate::{LoadOptions, Snapshot, StreamEvent, Watcher};
use anyhow::Context;
use dbio_model::watch::{
    WatchConfig, WatchEnd, WatchFileOp, WatchLosses, WatchResult, WatchedProcess,
};
use dbio_model::{Finding, Severity};
use std::collections::{BTreeMap, BTreeSet};
use std::os::fd::AsRawFd;
use std::os::unix::process::CommandExt;
use std::process::Child;
use std::time::{Duration, Instant};

/// How often the processes, the maps and the descriptors are looked at.
const TICK: Duration = Duration::from_millis(50);

/// The watch's name in words.
fn name(c: &WatchConfig) -> String {
    if !c.command.is_empty() {
        format!("command {}", c.command.join(" "))
    } else if let Some(p) = &c.comm {
        format!("comm {p}")
    } else if let Some(p) = &c.cgroup {
        format!("cgroup {p}")
    } else if let Some(t) = c.tid {
        format!("pid {} tid {t}", c.pids[0])
    } else {
        let p: Vec<String> = c.pids.iter().map(u32::to_string).collect();
        format!("pid {}", p.join(","))
    }
}

/// Whether `pid` is a live process (not gone, not a zombie).
fn alive(pid: u32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        // The state follows the last `)` (the command name may hold one).
        Ok(s) => s
            .rsplit_once(')')
            .is_some_and(|(_, rest)| !rest.trim_start().starts_with(['Z', 'X'])),
        Err(_) => false,
    }
}

/// A process's command name (`/proc/PID/comm`).
fn comm_of(pid: u32) -> String {
    std::fs::read_to_string(format!("/proc/{pid}/comm"))
        .map(|s| s.trim_end().to_string())
        .unwrap_or_default()
}

/// Whether `text` matches `pattern`, where `*` matches any run of
/// characters and everything else itself.
fn glob(pattern: &str, text: &str) -> bool {
    let parts: Vec<&str> = pattern.split('*').collect();
    if parts.len() == 1 {
        return pattern == text;
    }
    let (first, last) = (parts[0], parts[parts.len() - 1]);
    if !text.starts_with(first) || text.len() < first.len() + last.len() {
        return false;
    }
    let mut rest = &text[first.len()..];
    for mid in &parts[1..parts.len() - 1] {
        match rest.find(mid) {
            Some(i) => rest = &rest[i + mid.len()..],
            None => return false,
        }
    }
    rest.ends_with(last)
}

/// Processes whose command name or command line matches `pattern`
/// (`postgres: walwriter` is a rewritten command line, not a name).
fn matching(pattern: &str, me: u32) -> Vec<u32> {
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    dir.filter_map(|e| e.ok()?.file_name().to_str()?.parse::<u32>().ok())
        .filter(|&pid| pid != me)
        .filter(|&pid| {
            glob(pattern, &comm_of(pid))
                || std::fs::read(format!("/proc/{pid}/cmdline")).is_ok_and(|c| {
                    let line = String::from_utf8_lossy(&c).replace('\0', " ");
                    glob(pattern, line.trim_end())
                })
        })
        .collect()
}

/// Starts `argv` and calls `watch` with its pid before it execs, so not
/// one of the command's calls is missed. The child, between fork and exec,
/// writes its pid to one pipe and blocks reading another; std's `spawn`
/// returns only after the exec, so it runs on a helper thread while this
/// one reads the pid, adds it to the watched map and lets the child go.
/// Also returns the number of the pipe the child read its go from (its
/// one watched call before the exec, which closes it) and what that pipe
/// is (`pipe:[INODE]`, read from dbio's own end).
fn start_command(
    argv: &[String],
    stdout_to_stderr: bool,
    watch: impl FnOnce(u32) -> anyhow::Result<()>,
) -> anyhow::Result<(Child, i32, Option<String>)> {
    use rustix::pipe::{pipe_with, PipeFlags};
    let what = "creating the pipes that hold the command until it is watched";
    let (pid_r, pid_w) = pipe_with(PipeFlags::CLOEXEC).context(what)?;
    let (go_r, go_w) = pipe_with(PipeFlags::CLOEXEC).context(what)?;
    let (pw, gr, gw) = (pid_w.as_raw_fd(), go_r.as_raw_fd(), go_w.as_raw_fd());
    let gate = std::fs::read_link(format!("/proc/self/fd/{gr}"))
        .ok()
        .map(|p| p.to_string_lossy().into_owned());
    let mut cmd = std::process::Command::new(&argv[0]);
    cmd.args(&argv[1..]);
    if stdout_to_stderr {
        // dbio's result takes standard output: the command's goes to
        // standard error, so the two do not mix.
        use std::os::fd::AsFd;
        let err = std::io::stderr()
            .as_fd()
            .try_clone_to_owned()
            .context("duplicating standard error for the command")?;
        cmd.stdout(std::process::Stdio::from(err));
    }
    // SAFETY: the closure calls only getpid(2), write(2), close(2) and
    // read(2), which are async-signal-safe, and allocates nothing.
    unsafe {
        cmd.pre_exec(move || {
            libc::close(gw);
            let pid = libc::getpid().to_ne_bytes();
            libc::write(pw, pid.as_ptr().cast(), pid.len());
            libc::close(pw);
            let mut b = 0u8;
            // One byte, or EOF when dbio is gone, lets the command exec.
            while libc::read(gr, (&raw mut b).cast(), 1) < 0 {
                if *libc::__errno_location() != libc::EINTR {
                    break;
                }
            }
            Ok(())
        });
    }
    std::thread::scope(|s| {
        let spawned = s.spawn(move || cmd.spawn());
        let mut buf = [0u8; 4];
        let got = rustix::io::read(&pid_r, &mut buf);
        drop(go_r);
        let watched = match got {
            Ok(4) => watch(u32::from_ne_bytes(buf)),
            // The fork failed: spawn's own error says why.
            _ => Ok(()),
        };
        if watched.is_ok() {
            let _ = rustix::io::write(&go_w, &[1]);
        }
        drop(go_w);
        drop(pid_w);
        let child = spawned
            .join()
            .map_err(|_| anyhow::anyhow!("the thread starting {} panicked", argv[0]))?
            .with_context(|| format!("cannot start {}", argv[0]));
        match (watched, child) {
            (Ok(()), c) => c.map(|c| (c, gr, gate)),
            (Err(e), Ok(mut c)) => {
                // The child got EOF and exec'd unwatched: stop it.
                let _ = c.kill();
                let _ = c.wait();
                Err(e)
            }
            (Err(e), Err(_)) => Err(e),
        }
    })
}

/// Descriptor paths by (pid, fd, generation), read when first seen and at
/// every tick while that generation is the one open.
#[derive(Default)]
pub(crate) struct Paths(pub(crate) BTreeMap<(u32, i32, u32), Option<String>>);

impl Paths {
    pub(crate) fn resolve(pid: u32, fd: i32) -> Option<String> {
        if fd < 0 {
            return None;
        }
        std::fs::read_link(format!("/proc/{pid}/fd/{fd}"))
            .ok()
            .map(|p| p.to_string_lossy().into_owned())
    }

    /// Reads the path of every descriptor whose row is the file the
    /// number holds now (the kernel counts closes and dup2/dup3 per
    /// number, and a row of an earlier generation keeps the path it had).
    /// A path that can no longer be read keeps its last value.
    fn learn(&mut self, s: &Snapshot, w: &Watcher) {
        for e in &s.entries {
            let slot = self.0.entry((e.pid, e.fd, e.generation)).or_insert(None);
            if e.fd < 0 || w.fd_generation(e.pid, e.fd) != e.generation {
                continue;
            }
            if let Some(now) = Self::resolve(e.pid, e.fd) {
                *slot = Some(now);
            }
        }
    }

    /// The path of what `pid` held as `fd` at a streamed call of
    /// generation `generation`: the name learned for that file (its open,
    /// or /proc while it was open), or /proc's now while the number still
    /// holds it. A call printed after its process exited is named only
    /// from what was learned.
    fn at_call(&mut self, w: &Watcher, pid: u32, fd: i32, generation: u32) -> Option<String> {
        let key = (pid, fd, generation);
        if let Some(Some(p)) = self.0.get(&key) {
            return Some(p.clone());
        }
        if fd < 0 || w.fd_generation(pid, fd) != generation {
            return None;
        }
        let now = Self::resolve(pid, fd)?;
        self.0.insert(key, Some(now.clone()));
        Some(now)
    }
}

/// The open files of a snapshot: (pid, fd, path) of each descriptor
/// whose path is known.
fn open_files<'a>(
    s: &'a Snapshot,
    paths: &'a Paths,
) -> impl Iterator<Item = (u32, i32, String)> + 'a {
    s.entries.iter().filter_map(|e| {
        let p = paths.0.get(&(e.pid, e.fd, e.generation))?.clone()?;
        Some((e.pid, e.fd, p))
    })
}

/// The files known with their identity, to map by name whether or not a
/// watched process still holds them: those opened while watched (their
/// inode read by the kernel at the open) and those of io_uring requests.
fn known_files<'a>(
    names: &'a names::Names,
    request_files: &'a requests::RequestFiles,
) -> impl Iterator<Item = (String, block::FileId)> + 'a {
    names
        .stat_ids
        .values()
        .cloned()
        .chain(request_files.mappable())
}

/// A snapshot as the model's result.
#[allow(clippy::too_many_arguments)]
fn result(
    cfg: &WatchConfig,
    s: &Snapshot,
    paths: &Paths,
    processes: &BTreeMap<u32, String>,
    start: Instant,
    attr: Option<&block::Attribution>,
    names: &names::Names,
    request_files: &requests::RequestFiles,
) -> WatchResult {
    WatchResult {
        name: name(cfg),
        config: cfg.clone(),
        duration_ns: start.elapsed().as_nanos() as u64,
        ended: WatchEnd::Exited,
        command_status: None,
        command_signal: None,
        processes: processes
            .iter()
            .map(|(&pid, comm)| WatchedProcess {
                pid,
                comm: comm.clone(),
            })
            .collect(),
        ops: s
            .entries
            .iter()
            .map(|e| WatchFileOp {
                path: paths.0.get(&(e.pid, e.fd, e.generation)).cloned().flatten(),
                open_flags: names
                    .flags
                    .get(&(e.pid, e.fd, e.generation))
                    .map(|&f| names::flag_names(f)),
                ..e.clone()
            })
            .chain(s.requests.iter().map(|r| WatchFileOp {
                path: request_files.path(r.row.pid, r.file).map(str::to_string),
                ..r.row.clone()
            }))
            .collect(),
        losses: WatchLosses {
            unmatched: s.unmatched,
            start_table_full: s.start_table_full,
            histogram_table_full: s.histogram_table_full,
            ring_drops: s.ring_drops,
            block_unmatched: s.block_unmatched,
            block_table_full: s.block_table_full,
            block_histogram_full: s.block_histogram_full,
            block_ring_drops: s.block_ring_drops,
            open_drops: s.open_drops,
            async_unmatched: s.async_unmatched,
            async_table_full: s.async_table_full,
            aio_unread: s.aio_unread,
        },
        streamed: 0,
        unavailable: Vec::new(),
        block: attr.map(|a| a.device_rows(&s.block)).unwrap_or_default(),
        file_block: attr.map(|a| a.file_rows()).unwrap_or_default(),
        block_unattributed: attr.map(|a| a.unattributed_rows()).unwrap_or_default(),
        unmapped: attr.map(|a| a.unmapped_rows()).unwrap_or_default(),
        block_queue: attr
            .map(|a| a.queue_rows(&s.block_queue, &s.block))
            .unwrap_or_default(),
        bpf_programs: Vec::new(),
    }
}

/// One `--stream` line, iosnoop style.
fn stream_line(e: &StreamEvent, path: Option<&str>, t0_ns: u64) -> String {
    let off = e.offset.map_or_else(|| "-".to_string(), |o| o.to_string());
    format!(
        "{:>12.6} {:>7} {:>7} {:<15} {:<15} {:>4} {:<40} {:>12} {:>9} {:>12.1} {:>10}",
        e.start_ns.saturating_sub(t0_ns) as f64 / 1e9,
        e.pid,
        e.tid,
        e.comm,
        e.op.name(),
        e.fd,
        path.unwrap_or("-"),
        off,
        e.size,
        e.latency_ns as f64 / 1000.0,
        e.result
    )
}

/// CLOCK_MONOTONIC now, ns (the clock of the BPF programs' timestamps).
fn monotonic_ns() -> u64 {
    let t = rustix::time::clock_gettime(rustix::time::ClockId::Monotonic);
    t.tv_sec as u64 * 1_000_000_000 + t.tv_nsec as u64
}

/// Refuses, before anything is loaded, a process or thread to watch that
/// is not there.
fn check_processes(cfg: &WatchConfig) -> anyhow::Result<()> {
    for &pid in &cfg.pids {
        if !alive(pid) {
            anyhow::bail!("no process with id {pid} is running");
        }
    }
    if let Some(tid) = cfg.tid {
        let pid = cfg.pids[0];
        if !std::path::Path::new(&format!("/proc/{pid}/task/{tid}")).exists() {
            anyhow::bail!("process {pid} has no thread {tid}");
        }
    }
    Ok(())
}

/// Watches the processes matching `--comm` that are not watched yet. A
/// full table of watched processes (4,096) skips the newcomer with a
/// warning finding, it does not end the watch.
fn adopt_matching(
    pattern: &str,
    watcher: &mut Watcher,
    processes: &mut BTreeMap<u32, String>,
    names: &mut names::Names,
    findings: &mut Vec<Finding>,
    observer: &mut dyn Observer,
) {
    let me = std::process::id();
    for pid in matching(pattern, me) {
        if let std::collections::btree_map::Entry::Vacant(v) = processes.entry(pid) {
            if let Err(e) = watcher.watch(pid, None) {
                let w = Finding::note(
                    "watch.not_watched",
                    Severity::Warning,
                    format!("some processes matching the pattern are not watched: {e}"),
                );
                if !findings.contains(&w) {
                    findings.push(w);
                }
                continue;
            }
            let comm = comm_of(pid);
            observer.note(&format!("dbio watch: now watching pid {pid} ({comm})"));
            v.insert(comm);
            names.see(pid);
        }
    }
}

/// Waits up to a tick for streamed calls and hands each as a line to the
/// observer; returns how many there were.
fn stream_tick(
    watcher: &mut Watcher,
    names: &mut names::Names,
    paths: &mut Paths,
    observer: &mut dyn Observer,
    t0: u64,
) -> u64 {
    wait_stream(watcher, TICK);
    stream_waiting(watcher, names, paths, observer, t0)
}

/// Hands every streamed call waiting in the ring as a line to the
/// observer; returns how many there were. The last ones are handed over
/// too when the watch ends: on a loaded machine the command can exit with
/// a tick's worth of calls still in the ring.
fn stream_waiting(
    watcher: &mut Watcher,
    names: &mut names::Names,
    paths: &mut Paths,
    observer: &mut dyn Observer,
    t0: u64,
) -> u64 {
    let mut events = Vec::new();
    let n = watcher.drain_stream(|e| events.push(e));
    names.drain(watcher, paths);
    let lines: Vec<String> = events
        .iter()
        .map(|e| {
            let path = paths.at_call(watcher, e.pid, e.fd, e.generation);
            stream_line(e, path.as_deref(), t0)
        })
        .collect();
    observer.stream(&lines);
    n
}

/// What the result should say once the watch is over: paths that could
/// not be read or were cut (each a notice: the I/O figures stand, some
/// of their file names do not).
fn path_notes(
    w: &WatchResult,
    processes: &BTreeMap<u32, String>,
    names: &names::Names,
) -> Vec<Finding> {
    let mut notes = Vec::new();
    let mut note = |rule: &str, text: String, count: u64| {
        let f = Finding::note(rule, Severity::Notice, text);
        notes.push(match count {
            0 => f,
            n => f.with_evidence("paths", n as f64, "count"),
        });
    };
    let gone: BTreeSet<u32> = processes.keys().copied().filter(|&p| !alive(p)).collect();
    if w.ops
        .iter()
        .any(|o| o.path.is_none() && o.fd >= 0 && gone.contains(&o.pid))
    {
        note(
            "watch.path_unread",
            "some descriptors were closed before their path could be read (opened before the watch, or their open was not captured, and closed within 50 ms of first use)".into(),
            0,
        );
    }
    if names.unresolved > 0 {
        note(
            "watch.path_relative",
            format!(
                "{} relative paths are shown as the process passed them: its working directory was not known (it came and went within one 50 ms tick)",
                names.unresolved
            ),
            names.unresolved,
        );
    }
    if names.truncated > 0 {
        note(
            "watch.path_cut",
            format!(
                "{} paths were longer than the {} bytes captured at open time and are cut there",
                names.truncated,
                crate::PATH_BYTES - 1
            ),
            names.truncated,
        );
    }
    notes
}

/// What a session tells the person watching, and asks of the command
/// that runs it. The session itself writes nothing.
pub trait Observer {
    /// Why the watch must end now, if something asked it to (a signal):
    /// its name in words. Asked once per tick.
    fn stop_requested(&self) -> Option<String>;
    /// One line for the person watching (a process newly watched).
    fn note(&mut self, line: &str);
    /// The result so far, every `--interval`.
    fn so_far(&mut self, result: &WatchResult);
    /// One tick's `--stream` lines, iosnoop style, in the order the calls
    /// completed.
    fn stream(&mut self, lines: &[String]);
}

/// How a session is loaded, beside its [`WatchConfig`].
#[derive(Debug, Default, Clone, Copy)]
pub struct SessionOptions<'a> {
    /// The cgroup v2 directory to watch, as named (the configuration
    /// keeps it in words).
    pub cgroup: Option<&'a std::path::Path>,
    /// Ask the kernel for the programs' own cost (`--bpf-stats`).
    pub bpf_stats: bool,
    /// A started command's standard output goes to standard error, so
    /// that it does not mix with a result written to standard output.
    pub command_stdout_to_stderr: bool,
}

/// A loaded watch: the BPF programs attached and the processes (or the
/// device) checked, nothing watched yet.
pub struct Session {
    cfg: WatchConfig,
    target: Target,
    watcher: Watcher,
    bpf_stats: bool,
    /// What the result should warn about before the watch began.
    findings: Vec<Finding>,
}

/// What a session watches.
enum Target {
    /// Processes (by id, by name, a command, a cgroup), their calls
    /// attributed to files.
    Processes {
        cgroup: Option<Cgroup>,
        /// Boxed: the attribution's tables are large beside a device.
        attr: Option<Box<block::Attribution>>,
        /// A started command's standard output goes to standard error.
        command_stdout_to_stderr: bool,
    },
    /// Every request on one device (`--device`).
    Device(device::Device),
}

impl Session {
    /// Checks what `cfg` names (the processes are running, the cgroup or
    /// the device is there) and loads the programs.
    pub fn load(mut cfg: WatchConfig, opts: SessionOptions<'_>) -> anyhow::Result<Self> {
        let SessionOptions {
            cgroup,
            bpf_stats,
            command_stdout_to_stderr,
        } = opts;
        if let Some(spec) = cfg.device.clone() {
            let (dev, watcher, findings) = device::Device::load(&spec)?;
            cfg.block = true;
            return Ok(Self {
                cfg,
                target: Target::Device(dev),
                watcher,
                bpf_stats,
                findings,
            });
        }
        check_processes(&cfg)?;
        let cgroup = cgroup.map(Cgroup::open).transpose()?;
        let watcher = Watcher::load(LoadOptions {
            stream: cfg.stream,
            min_latency_ns: cfg.min_latency_ns,
            block: cfg.block,
            follow: cfg.follow,
            cgroup: cgroup.clone(),
            bpf_stats,
            device: None,
        })?;
        let attr = watcher.block_traced().then(Box::default);
        Ok(Self {
            cfg,
            target: Target::Processes {
                cgroup,
                attr,
                command_stdout_to_stderr,
            },
            watcher,
            bpf_stats,
            findings: Vec::new(),
        })
    }

    /// The path the environment of the result describes: the device's
    /// node (by path, or the kernel's `/dev/block` link for MAJOR:MINOR),
    /// or `/` for processes.
    pub fn environment_path(&self) -> std::path::PathBuf {
        match &self.target {
            Target::Device(d) => d.node(),
            Target::Processes { .. } => std::path::PathBuf::from("/"),
        }
    }

    /// Watches until the processes have exited (the cgroup was removed),
    /// the duration elapsed or the observer reports a stop, and returns
    /// the result with what it should warn about.
    pub fn run(
        self,
        observer: &mut dyn Observer,
    ) -> anyhow::Result<(WatchResult, Vec<Finding>, Tracer)> {
        let Self {
            cfg,
            target,
            mut watcher,
            bpf_stats,
            mut findings,
        } = self;
        match target {
            Target::Device(d) => {
                let w = d.run(&cfg, &watcher, observer)?;
                Ok((w, findings, Tracer(watcher)))
            }
            Target::Processes {
                cgroup,
                attr,
                command_stdout_to_stderr,
            } => {
                let w = watch_processes(
                    &cfg,
                    &mut watcher,
                    cgroup,
                    attr,
                    command_stdout_to_stderr,
                    bpf_stats,
                    observer,
                    &mut findings,
                )?;
                Ok((w, findings, Tracer(watcher)))
            }
        }
    }
}

/// The tracer of a finished watch, its programs still attached: dropping
/// it detaches them, which takes the kernel a few RCU grace periods (about
/// 2 s for the 60-odd programs on the development machine, in parallel),
/// so a command drops it after its result is out.
pub struct Tracer(#[allow(dead_code, reason = "held for its drop")] Watcher);

/// The watch of processes, from the first watched pid to the result.
#[allow(clippy::too_many_arguments)]
fn watch_processes(
    cfg: &WatchConfig,
    watcher: &mut Watcher,
    cgroup: Option<Cgroup>,
    mut attr: Option<Box<block::Attribution>>,
    command_stdout_to_stderr: bool,
    bpf_stats: bool,
    observer: &mut dyn Observer,
    findings: &mut Vec<Finding>,
) -> anyhow::Result<WatchResult> {
    let mut processes: BTreeMap<u32, String> = BTreeMap::new();
    let mut started = None;
    let mut names = names::Names::default();
    let mut paths = Paths::default();
    let mut request_files = requests::RequestFiles::default();
    let mut ticks = 0u64;
    if !cfg.command.is_empty() {
        let (child, gate_fd, gate) =
            start_command(&cfg.command, command_stdout_to_stderr, |pid| {
                Ok(watcher.watch(pid, None)?)
            })?;
        // The command's one call before its exec: the read of dbio's
        // pipe that held it (closed by the exec).
        paths.0.insert((child.id(), gate_fd, 0), gate);
        // Its standard input, output and error are dbio's (its output
        // dbio's standard error when a result takes standard output): named
        // now, as a command that exits within a tick is not read in /proc.
        for fd in 0..=2 {
            let from = if fd == 1 && command_stdout_to_stderr {
                2
            } else {
                fd
            };
            if let Some(p) = Paths::resolve(std::process::id(), from) {
                paths.0.insert((child.id(), fd, 0), Some(p));
            }
        }
        processes.insert(child.id(), cfg.command[0].clone());
        names.see(child.id());
        started = Some(child);
    }
    for &pid in &cfg.pids {
        watcher.watch(pid, cfg.tid)?;
        processes.insert(pid, comm_of(pid));
        names.see(pid);
    }
    if cfg.follow {
        // The children the watched processes forked before they were in
        // the table (a database's running backends): from now on the
        // kernel adds every new one, and one forked before this scan is
        // in /proc already, so none falls between the two.
        for pid in descendants(&cfg.pids) {
            watcher.watch(pid, None)?;
            processes.entry(pid).or_insert_with(|| comm_of(pid));
            names.see(pid);
        }
    }
    observer.note(&format!(
        "dbio watch: watching {} (Ctrl-C prints the summary)",
        name(cfg)
    ));
    let start = Instant::now();
    let t0 = monotonic_ns();
    let mut streamed = 0u64;
    let mut next_print = cfg.interval_ns.map(|i| start + Duration::from_nanos(i));
    let mut command_status = None;
    let mut command_signal = None;
    let ended = loop {
        if let Some(p) = &cfg.comm {
            adopt_matching(
                p,
                &mut *watcher,
                &mut processes,
                &mut names,
                findings,
                observer,
            );
        }
        if cfg.follow {
            follow(&mut *watcher, &mut processes, &mut names, observer)?;
        }
        if let Some(cg) = &cgroup {
            // Names for the processes the kernel already watches.
            for pid in cg.pids() {
                processes.entry(pid).or_insert_with(|| comm_of(pid));
            }
        }
        if cfg.stream {
            streamed += stream_tick(&mut *watcher, &mut names, &mut paths, observer, t0);
        } else {
            std::thread::sleep(TICK);
        }
        names.drain(&mut *watcher, &mut paths);
        // Working directories, for a process that opens a relative path
        // and exits before the next tick: every 10 ticks (a readlink per
        // process; --comm may match hundreds).
        ticks += 1;
        if ticks.is_multiple_of(10) {
            for &pid in processes.keys() {
                names.see(pid);
            }
        }
        let snap = watcher.snapshot()?;
        paths.learn(&snap, watcher);
        request_files.learn(snap.requests.iter().map(|r| (r.row.pid, r.file)), &names);
        if let Some(at) = attr.as_mut() {
            at.update(
                &mut *watcher,
                open_files(&snap, &paths),
                known_files(&names, &request_files),
            );
            at.drain(&mut *watcher);
        }
        if let (Some(at), Some(i)) = (next_print, cfg.interval_ns) {
            if Instant::now() >= at {
                let r = result(
                    cfg,
                    &snap,
                    &paths,
                    &processes,
                    start,
                    attr.as_deref(),
                    &names,
                    &request_files,
                );
                observer.so_far(&r);
                next_print = Some(at + Duration::from_nanos(i));
            }
        }
        if let Some(end) = stopped_or_timed_out(observer, cfg, start) {
            break end;
        }
        if let Some(s) = started.as_mut() {
            if let Some(st) = s.try_wait().context("waiting for the command")? {
                use std::os::unix::process::ExitStatusExt;
                command_status = st.code();
                command_signal = st.signal();
                break WatchEnd::Exited;
            }
        } else if let Some(cg) = &cgroup {
            // A cgroup can be removed only once it holds no process.
            if !cg.exists() {
                break WatchEnd::Exited;
            }
        } else if cfg.comm.is_none() && !processes.keys().any(|&p| alive(p)) {
            break WatchEnd::Exited;
        }
    };
    if cfg.stream {
        streamed += stream_waiting(&mut *watcher, &mut names, &mut paths, observer, t0);
    }
    names.drain(&mut *watcher, &mut paths);
    let snap = watcher.snapshot()?;
    paths.learn(&snap, watcher);
    request_files.learn(snap.requests.iter().map(|r| (r.row.pid, r.file)), &names);
    if let Some(at) = attr.as_mut() {
        at.update(
            &mut *watcher,
            open_files(&snap, &paths),
            known_files(&names, &request_files),
        );
        at.finish(&mut *watcher);
    }
    if cfg.follow || cgroup.is_some() {
        // Children (or the cgroup's processes) that exited before a tick
        // saw them: their calls are in the tables under their pid.
        for pid in snap
            .entries
            .iter()
            .map(|e| e.pid)
            .chain(snap.requests.iter().map(|r| r.row.pid))
        {
            processes.entry(pid).or_insert_with(|| comm_of(pid));
        }
    }
    let mut w = result(
        cfg,
        &snap,
        &paths,
        &processes,
        start,
        attr.as_deref(),
        &names,
        &request_files,
    );
    w.ended = ended;
    w.command_status = command_status;
    w.command_signal = command_signal;
    w.streamed = streamed;
    w.unavailable = watcher.unavailable().to_vec();
    if bpf_stats {
        // Only when asked: someone else may have the statistics on.
        w.bpf_programs = watcher
            .program_costs()
            .into_iter()
            .map(|(name, runs, run_ns)| dbio_model::watch::WatchProgramCost { name, runs, run_ns })
            .collect();
    }
    findings.extend(path_notes(&w, &processes, &names));
    Ok(w)
}

/// Why the watch ends now, if it does: a stop the observer reports (a
/// signal) or `--duration` elapsed since `start`. Every target's loop
/// asks this.
pub(crate) fn stopped_or_timed_out(
    observer: &dyn Observer,
    cfg: &WatchConfig,
    start: Instant,
) -> Option<WatchEnd> {
    if let Some(signal) = observer.stop_requested() {
        return Some(WatchEnd::Signal { signal });
    }
    cfg.duration_ns
        .is_some_and(|d| start.elapsed() >= Duration::from_nanos(d))
        .then_some(WatchEnd::Duration)
}

/// The thread-group id of task `id` (`Tgid:` in `/proc/ID/status`).
fn tgid_of(id: u32) -> Option<u32> {
    std::fs::read_to_string(format!("/proc/{id}/status"))
        .ok()?
        .lines()
        .find_map(|l| l.strip_prefix("Tgid:"))?
        .trim()
        .parse()
        .ok()
}

/// The processes below `roots` now, children first, from /proc (each
/// process's parent in its `stat`, after the command name, which may
/// hold spaces and parentheses).
fn descendants(roots: &[u32]) -> Vec<u32> {
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    let parent: Vec<(u32, u32)> = dir
        .filter_map(|e| {
            let pid: u32 = e.ok()?.file_name().to_str()?.parse().ok()?;
            let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
            let ppid = stat
                .rsplit_once(')')?
                .1
                .split_whitespace()
                .nth(1)?
                .parse()
                .ok()?;
            Some((pid, ppid))
        })
        .collect();
    let mut out: Vec<u32> = Vec::new();
    let mut frontier: Vec<u32> = roots.to_vec();
    while let Some(p) = frontier.pop() {
        for &(child, _) in parent.iter().filter(|(c, pp)| *pp == p && *c != p) {
            if !out.contains(&child) && !roots.contains(&child) {
                out.push(child);
                frontier.push(child);
            }
        }
    }
    out
}

/// `--follow`: the children the kernel added to the watched table become
/// watched processes; the threads it added too (the fork tracepoint fires
/// for them as well) and children already gone are taken out of the
/// table, so a later process reusing such an id is not watched by mistake.
fn follow(
    w: &mut Watcher,
    processes: &mut BTreeMap<u32, String>,
    names: &mut names::Names,
    observer: &mut dyn Observer,
) -> anyhow::Result<()> {
    for id in w.watched_ids()? {
        if processes.contains_key(&id) {
            continue;
        }
        if tgid_of(id) == Some(id) {
            let comm = comm_of(id);
            observer.note(&format!(
                "dbio watch: now watching pid {id} ({comm}), forked by a watched process"
            ));
            processes.insert(id, comm);
            names.see(id);
        } else {
            w.unwatch(id)?;
        }
    }
    Ok(())
}

/// Waits up to `limit` for stream records (poll(2) on the ring buffer).
fn wait_stream(w: &Watcher, limit: Duration) {
    let Some(fd) = w.stream_fd() else {
        std::thread::sleep(limit);
        return;
    };
    let mut fds = [rustix::event::PollFd::new(
        &fd,
        rustix::event::PollFlags::IN,
    )];
    let ts = rustix::event::Timespec {
        tv_sec: 0,
        tv_nsec: limit.as_nanos() as i64,
    };
    let _ = rustix::event::poll(&mut fds, Some(&ts));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn descendants_are_found_in_proc() {
        let mut child = std::process::Command::new("sleep")
            .arg("5")
            .spawn()
            .unwrap();
        let me = std::process::id();
        assert!(descendants(&[me]).contains(&child.id()));
        assert!(!descendants(&[child.id()]).contains(&me));
        child.kill().unwrap();
        child.wait().unwrap();
    }

    #[test]
    fn glob_matches_stars_and_literals() {
        assert!(glob("ora_lgwr_*", "ora_lgwr_ORCL"));
        assert!(!glob("ora_lgwr_*", "ora_dbw0_ORCL"));
        assert!(glob("postgres: walwriter", "postgres: walwriter"));
        assert!(glob("*walwriter*", "postgres: walwriter "));
        assert!(glob("a*b*c", "aXbYc"));
        assert!(!glob("a*b*c", "aXcYb"));
        assert!(!glob("ab*ba", "aba"));
        assert!(glob("mariadbd", "mariadbd"));
    }
}
