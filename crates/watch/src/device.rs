//! A `--device` watch: every block request on one device, whoever
//! issues it, per issuing process and request class, timed from issue to
//! completion in the kernel; no system call is traced.
//!
//! Why a device target: "is it the storage?" is often asked of a device
//! before anyone knows which process loads it (a backup, a checkpoint,
//! writeback, another database on the same array). The block tracepoints
//! see every request; the BPF programs key the per-CPU histograms by the
//! process in whose context the request was started (`block_io_start`)
//! or issued (`block_rq_issue`), and keep that process's command name as
//! the kernel saw it, so a `dd` that has long exited is still named.
//!
//! Error bounds: the issuer is the task that queued the bio (direct I/O:
//! the process; buffered writes: the writeback kworker or the journal
//! thread; without `block_io_start`, before Linux 6.5, the task that
//! dispatched it, which may be kblockd's kworker). Requests are paired by
//! (device, sector) as in every watch (see `dbio_watch`), and those issued
//! before the watch began complete unmatched (counted). Requests on a
//! partition are counted on its whole disk: the block tracepoints name
//! the disk, with sectors from its start.
//!
//! The device is decided on the opened descriptor (an `O_PATH` open and
//! `fstat`), not on the path, so a path swapped between the check and the
//! use cannot make dbio watch something else; nothing is read from or
//! written to the device.

use crate::block::{device_name, whole_device};
use crate::session::{stopped_or_timed_out, Observer};
use crate::{dev_name, LoadOptions, Snapshot, Watcher};
use anyhow::Context;
use dbio_model::watch::{
    WatchConfig, WatchDeviceIo, WatchEnd, WatchLosses, WatchResult, WatchedProcess,
};
use dbio_model::{Finding, Severity};
use std::time::{Duration, Instant};

/// How often the maps are read (for `--interval` and the stop checks).
const TICK: Duration = Duration::from_millis(50);

/// The device `spec` names (a path to a block device node, or
/// `MAJOR:MINOR`) as (major, minor), or the one sentence why not.
fn resolve(spec: &str) -> anyhow::Result<(u32, u32)> {
    if let Some((a, b)) = spec.split_once(':') {
        if let (Ok(major), Ok(minor)) = (a.parse::<u32>(), b.parse::<u32>()) {
            if !std::path::Path::new(&format!("/sys/dev/block/{major}:{minor}")).exists() {
                anyhow::bail!("--device {spec}: this machine has no block device {major}:{minor}");
            }
            return Ok((major, minor));
        }
    }
    use rustix::fs::{fstat, open, FileType, Mode, OFlags};
    let fd = open(spec, OFlags::PATH | OFlags::CLOEXEC, Mode::empty())
        .with_context(|| format!("--device {spec}: cannot open it"))?;
    let st = fstat(&fd).with_context(|| format!("--device {spec}: cannot stat it"))?;
    let kind = FileType::from_raw_mode(st.st_mode);
    if kind != FileType::BlockDevice {
        let what = match kind {
            FileType::RegularFile => "a regular file",
            FileType::Directory => "a directory",
            FileType::CharacterDevice => "a character device",
            FileType::Fifo => "a pipe",
            FileType::Socket => "a socket",
            FileType::Symlink => "a symbolic link",
            _ => "not a device",
        };
        anyhow::bail!("--device {spec} is not a block device (it is {what}); name a block device such as /dev/vdb, or MAJOR:MINOR");
    }
    Ok((rustix::fs::major(st.st_rdev), rustix::fs::minor(st.st_rdev)))
}

/// The rows of `dev` in a snapshot, each issuer named.
fn rows(s: &Snapshot, w: &Watcher, dev: u32) -> (Vec<WatchDeviceIo>, Vec<WatchedProcess>) {
    let name = device_name(dev);
    let mut procs = std::collections::BTreeMap::new();
    let rows = s
        .block
        .iter()
        .filter(|r| r.dev == dev)
        .map(|r| {
            let comm = r.pid.and_then(|p| w.issuer_comm(p));
            if let Some(p) = r.pid {
                procs.insert(p, comm.clone().unwrap_or_default());
            }
            WatchDeviceIo {
                device: dev_name(dev),
                name: name.clone(),
                op: r.op,
                pid: r.pid,
                comm,
                count: r.count,
                bytes: r.bytes,
                total_ns: r.total_ns,
                fua: r.fua,
                preflush: r.preflush,
                latency: r.latency.clone(),
                queued: r.queued,
                queue_ns: r.queue_ns,
                queue_latency: r.queue_latency.clone(),
            }
        })
        .collect();
    let procs = procs
        .into_iter()
        .map(|(pid, comm)| WatchedProcess { pid, comm })
        .collect();
    (rows, procs)
}

fn result(cfg: &WatchConfig, s: &Snapshot, w: &Watcher, dev: u32, start: Instant) -> WatchResult {
    let (block, processes) = rows(s, w, dev);
    WatchResult {
        name: format!("device {}", cfg.device.as_deref().unwrap_or_default()),
        config: cfg.clone(),
        duration_ns: start.elapsed().as_nanos() as u64,
        ended: WatchEnd::Duration,
        command_status: None,
        command_signal: None,
        processes,
        ops: Vec::new(),
        losses: WatchLosses {
            block_unmatched: s.block_unmatched,
            block_table_full: s.block_table_full,
            block_histogram_full: s.block_histogram_full,
            block_ring_drops: s.block_ring_drops,
            ..Default::default()
        },
        streamed: 0,
        unavailable: w.unavailable().to_vec(),
        block,
        file_block: Vec::new(),
        block_unattributed: Vec::new(),
        unmapped: Vec::new(),
        block_queue: s
            .block_queue
            .iter()
            .filter(|r| r.dev == dev)
            .map(crate::block::queue_row)
            .collect(),
        bpf_programs: Vec::new(),
    }
}

/// The device a `--device` watch follows.
pub(crate) struct Device {
    /// As named on the command line.
    spec: String,
    major: u32,
    minor: u32,
    /// The whole disk (the kernel's dev_t) the tracepoints name.
    dev: u32,
}

impl Device {
    /// Resolves `spec` to its whole disk and loads the block programs on
    /// it; also returns what the result should warn about (a partition).
    pub(crate) fn load(spec: &str) -> anyhow::Result<(Self, Watcher, Vec<Finding>)> {
        let (major, minor) = resolve(spec)?;
        let (dev, part_start) =
            whole_device(major, minor).map_err(|e| anyhow::anyhow!("--device {spec}: {e}"))?;
        let watcher = Watcher::load(LoadOptions {
            block: true,
            device: Some(dev),
            ..Default::default()
        })?;
        let mut findings = Vec::new();
        let disk = device_name(dev).unwrap_or_else(|| dev_name(dev));
        if (major, minor) != (dev >> 20, dev & 0xfffff) || part_start > 0 {
            findings.push(Finding::note(
                "watch.partition_is_whole_disk",
                Severity::Notice,
                format!("{spec} is a partition: the block tracepoints name its disk, so every request on {disk} is shown"),
            ));
        }
        let d = Self {
            spec: spec.to_string(),
            major,
            minor,
            dev,
        };
        Ok((d, watcher, findings))
    }

    /// The device's node (by path, or the kernel's /dev/block link for
    /// MAJOR:MINOR), or `/` when there is none: the environment describes
    /// the device.
    pub(crate) fn node(&self) -> std::path::PathBuf {
        let node = if self.spec.contains('/') {
            std::path::PathBuf::from(&self.spec)
        } else {
            std::path::PathBuf::from(format!("/dev/block/{}:{}", self.major, self.minor))
        };
        if node.exists() {
            node
        } else {
            std::path::PathBuf::from("/")
        }
    }

    /// Watches every request on the device until `--duration` or a stop.
    pub(crate) fn run(
        &self,
        cfg: &WatchConfig,
        watcher: &Watcher,
        observer: &mut dyn Observer,
    ) -> anyhow::Result<WatchResult> {
        let dev = self.dev;
        let disk = device_name(dev).unwrap_or_else(|| dev_name(dev));
        observer.note(&format!(
            "dbio watch: watching every request on {disk} ({}) (Ctrl-C prints the summary)",
            dev_name(dev)
        ));
        let start = Instant::now();
        let mut next_print = cfg.interval_ns.map(|i| start + Duration::from_nanos(i));
        let ended = loop {
            std::thread::sleep(TICK);
            if let (Some(at), Some(i)) = (next_print, cfg.interval_ns) {
                if Instant::now() >= at {
                    let r = result(cfg, &watcher.snapshot()?, watcher, dev, start);
                    observer.so_far(&r);
                    next_print = Some(at + Duration::from_nanos(i));
                }
            }
            if let Some(end) = stopped_or_timed_out(observer, cfg, start) {
                break end;
            }
        };
        let mut w = result(cfg, &watcher.snapshot()?, watcher, dev, start);
        w.ended = ended;
        Ok(w)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_block_device_is_taken_on_its_descriptor() {
        let d = tempfile::tempdir_in(env!("CARGO_MANIFEST_DIR")).unwrap();
        let f = d.path().join("f");
        std::fs::write(&f, b"x").unwrap();
        let e = resolve(f.to_str().unwrap()).unwrap_err().to_string();
        assert!(
            e.contains("is not a block device (it is a regular file)"),
            "{e}"
        );
        let e = resolve(d.path().to_str().unwrap()).unwrap_err().to_string();
        assert!(e.contains("(it is a directory)"), "{e}");
        let e = resolve("/dev/null").unwrap_err().to_string();
        assert!(e.contains("(it is a character device)"), "{e}");
        let e = format!("{:#}", resolve("/no/such/device").unwrap_err());
        assert!(e.contains("cannot open it"), "{e}");
        let e = resolve("4095:1048575").unwrap_err().to_string();
        assert!(e.contains("no block device 4095:1048575"), "{e}");
    }
}
