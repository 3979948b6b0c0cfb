//! The `watch` section: per process, descriptor and call, the counts,
//! bytes and latency of a live process's I/O, with its histogram, and what
//! the tracer could not record.

use crate::kit::findings::plural;
use comfy_table::{Cell, CellAlignment};
use dbio_model::units::{format_bytes, format_ns};
use dbio_model::watch::{file_kind, BlockOp, FileKind, WatchFileOp, WatchResult, FOLD_SHARE_PCT};
use dbio_model::RunReport;
use std::fmt::Write;

/// Every watch of the report, in full.
pub fn render(r: &RunReport) -> String {
    r.watch
        .iter()
        .map(render_one)
        .collect::<Vec<_>>()
        .join("\n")
}

/// One finished watch: a heading, the table, one histogram per row, the
/// losses.
pub fn render_one(w: &WatchResult) -> String {
    let head = format!(
        "watch {}: {} watched, ended because {}",
        w.name,
        format_ns(w.duration_ns as f64),
        w.ended
    );
    body(head, w)
}

/// A watch still running (`--interval`): the same, headed by the time so
/// far.
pub fn render_so_far(w: &WatchResult) -> String {
    let head = format!(
        "watch {}: {} so far",
        w.name,
        format_ns(w.duration_ns as f64)
    );
    body(head, w)
}

fn body(head: String, w: &WatchResult) -> String {
    let mut out = head;
    out.push('\n');
    if let Some(s) = w.command_status {
        let _ = writeln!(out, "  command exit status {s}");
    }
    if let Some(s) = w.command_signal {
        let _ = writeln!(out, "  command killed by signal {s}");
    }
    // --device traces no system call: no table of calls.
    let calls = w.config.device.is_none();
    let mut t = crate::kit::text::new_table(&[
        "pid", "fd", "file", "call", "count", "bytes", "errors", "mean", "total",
    ]);
    // Files busiest first, each file's calls busiest first; pseudo-files,
    // libraries and files under a small share fold into one row.
    let files = super::files::files(w);
    let (shown, other): (Vec<_>, Vec<_>) = files.iter().partition(|f| !super::files::folded(w, f));
    let rows: Vec<&WatchFileOp> = shown.iter().flat_map(|f| f.rows.iter().copied()).collect();
    for o in &rows {
        t.add_row([
            Cell::new(o.pid).set_alignment(CellAlignment::Right),
            Cell::new(if o.fd < 0 {
                // An io_uring request names a file, not a number.
                "-".to_string()
            } else if o.generation > 0 {
                // The number held another file before: this row is the
                // file it held after `generation` closes or dup2s.
                format!("{} #{}", o.fd, o.generation)
            } else {
                o.fd.to_string()
            })
            .set_alignment(CellAlignment::Right),
            Cell::new(o.file_name()),
            Cell::new(o.op.name()),
            Cell::new(o.count).set_alignment(CellAlignment::Right),
            Cell::new(if o.op.moves_data() {
                format_bytes(o.bytes)
            } else {
                "-".into()
            })
            .set_alignment(CellAlignment::Right),
            Cell::new(o.errors).set_alignment(CellAlignment::Right),
            Cell::new(mean(o.total_ns, o.count)).set_alignment(CellAlignment::Right),
            Cell::new(format_ns(o.total_ns as f64)).set_alignment(CellAlignment::Right),
        ]);
    }
    if !other.is_empty() {
        let folded: Vec<&WatchFileOp> = other.iter().flat_map(|f| f.rows.iter().copied()).collect();
        let (count, bytes, errors, total) = folded.iter().fold((0, 0, 0, 0), |a, o| {
            (
                a.0 + o.count,
                a.1 + if o.op.moves_data() { o.bytes } else { 0 },
                a.2 + o.errors,
                a.3 + o.total_ns,
            )
        });
        t.add_row([
            Cell::new("-").set_alignment(CellAlignment::Right),
            Cell::new("-").set_alignment(CellAlignment::Right),
            Cell::new(format!("other files ({})", other.len())),
            Cell::new("-"),
            Cell::new(count).set_alignment(CellAlignment::Right),
            Cell::new(format_bytes(bytes)).set_alignment(CellAlignment::Right),
            Cell::new(errors).set_alignment(CellAlignment::Right),
            Cell::new(mean(total, count)).set_alignment(CellAlignment::Right),
            Cell::new(format_ns(total as f64)).set_alignment(CellAlignment::Right),
        ]);
    }
    if calls {
        let traced = super::files::traced_ns(w);
        let n_calls: u64 = w.ops.iter().map(|o| o.count).sum();
        let _ = writeln!(
            out,
            "I/O calls: {n_calls} in {} files, {} inside them (the traced time), files busiest first",
            files.len(),
            format_ns(traced as f64)
        );
        let _ = writeln!(out, "{t}");
        if !other.is_empty() {
            let count = |k: FileKind| other.iter().filter(|f| f.kind == k).count();
            let (pseudo, libs, small) = (
                count(FileKind::Pseudo),
                count(FileKind::Library),
                count(FileKind::Data),
            );
            let _ = writeln!(
                out,
                "other files ({}): {pseudo} pseudo-file{} (/proc, /sys, terminals, pipes, sockets), {libs} shared librar{}, {small} file{} under {FOLD_SHARE_PCT} % of the traced time each; --all-files shows every file",
                other.len(),
                plural(pseudo as u64),
                if libs == 1 { "y" } else { "ies" },
                plural(small as u64),
            );
        }
    }
    // The histograms: every shown row's with --all-files; by default
    // those of the rows that hold a tenth of the traced time or more.
    let traced = super::files::traced_ns(w).max(1);
    let big = |o: &WatchFileOp| {
        100.0 * o.total_ns as f64 / traced as f64 >= super::findings::FILE_SHARE_PCT
    };
    let drawn: Vec<&&WatchFileOp> = rows
        .iter()
        .filter(|o| o.count > 0 && (w.config.all_files || big(o)))
        .collect();
    let undrawn = rows.iter().filter(|o| o.count > 0).count() - drawn.len();
    if undrawn > 0 {
        let _ = writeln!(
            out,
            "latency histograms of the rows at {} % of the traced time or more; --all-files draws the other {undrawn}",
            super::findings::FILE_SHARE_PCT
        );
    }
    for o in drawn {
        let _ = writeln!(
            out,
            "{} on {} ({}): latency",
            o.op,
            o.file_name(),
            o.whose()
        );
        out.push_str(&crate::kit::histogram::render(&o.latency));
    }
    block(&mut out, w);
    let l = &w.losses;
    if w.config.device.is_none() {
        let _ = writeln!(
            out,
            "not recorded: {} exits without an entry (calls in progress at the start), {} entries (start table full), {} calls (histogram table full), {} stream records (ring buffer full)",
            l.unmatched, l.start_table_full, l.histogram_table_full, l.ring_drops
        );
    }
    if l.open_drops > 0 {
        let _ = writeln!(
            out,
            "not named at open time: {} opens (their ring buffer or table was full; those files are named from /proc while open)",
            l.open_drops
        );
    }
    if w.config.block {
        let _ = writeln!(
            out,
            "block layer not recorded: {} completions without an issue (issued before the watch, or merged at the front), {} requests (in-flight table full), {} (device table full), {} not attributed to files (ring buffer full)",
            l.block_unmatched, l.block_table_full, l.block_histogram_full, l.block_ring_drops
        );
    }
    if w.config.stream {
        let _ = writeln!(out, "streamed: {} calls", w.streamed);
    }
    if !w.unavailable.is_empty() {
        let _ = writeln!(
            out,
            "unavailable on this kernel (those calls are not seen): {}",
            w.unavailable.join(", ")
        );
    }
    if !w.bpf_programs.is_empty() {
        let runs: u64 = w.bpf_programs.iter().map(|p| p.runs).sum();
        let ns: u64 = w.bpf_programs.iter().map(|p| p.run_ns).sum();
        let traced: u64 = w.ops.iter().map(|o| o.count).sum();
        let per_call = if traced > 0 {
            format!("{:.0} ns", ns as f64 / traced as f64)
        } else {
            "-".into()
        };
        let _ = writeln!(
            out,
            "tracer cost (kernel run-time statistics): {per_call} in its BPF programs per traced call ({traced} calls traced; {runs} program runs in all processes, {} in all)",
            format_ns(ns as f64)
        );
    }
    out
}

/// Who issued a device row's requests: a watched process, a named
/// issuer (`--device`), or nobody watched.
pub fn issuer(w: &WatchResult, d: &dbio_model::watch::WatchDeviceIo) -> String {
    match (d.pid, &d.comm) {
        (Some(p), Some(c)) => format!("pid {p} ({c})"),
        (Some(p), None) => format!("pid {p}"),
        // --device names every issuer; pid 0 is the kernel itself.
        (None, _) if w.config.device.is_some() => "kernel (no process)".into(),
        (None, _) => "writeback/other".into(),
    }
}

fn mean(total_ns: u64, count: u64) -> String {
    if count > 0 {
        format_ns(total_ns as f64 / count as f64)
    } else {
        "-".into()
    }
}

/// Whether any block row has a queue time (old results, and kernels
/// without the queueing tracepoints, have none: their tables keep their
/// columns).
fn queue_known(w: &WatchResult) -> bool {
    w.block.iter().any(|d| d.queued > 0) || w.file_block.iter().any(|f| f.queued > 0)
}

/// A header with "queue mean" inserted before the column `before`, when
/// `queue`.
fn queue_header<'a>(mut h: Vec<&'a str>, before: &str, queue: bool) -> Vec<&'a str> {
    if queue {
        let at = h.iter().position(|c| *c == before).unwrap_or(h.len());
        h.insert(at, "queue mean");
    }
    h
}

/// A row with the mean queue time inserted at `at`, when `queue`.
fn queue_cell(mut row: Vec<Cell>, at: usize, queue: bool, queue_ns: u64, queued: u64) -> Vec<Cell> {
    if queue {
        row.insert(
            at,
            Cell::new(mean(queue_ns, queued)).set_alignment(CellAlignment::Right),
        );
    }
    row
}

/// The syscall side of a file, next to its device time: each call's
/// mean and count (`pwrite64 1.43 ms x504`).
fn syscalls_on(w: &WatchResult, path: &str, op: BlockOp) -> String {
    let mut parts = Vec::new();
    for o in w.ops.iter().filter(|o| o.path.as_deref() == Some(path)) {
        let relevant = match op {
            BlockOp::Read => o.op.is_read(),
            BlockOp::Write => o.op.is_write() || o.op.is_sync(),
            _ => o.op.is_sync(),
        };
        if relevant && o.count > 0 {
            parts.push(format!(
                "{} {} x{}",
                o.op,
                mean(o.total_ns, o.count),
                o.count
            ));
        }
    }
    if parts.is_empty() {
        "-".into()
    } else {
        parts.join(", ")
    }
}

/// The block layer: with `--all-files` (or `--device`), per device,
/// class and issuer, per file with a histogram each, and what no file
/// holds per class; by default folded as the file rows fold: per device
/// and class, the files shown in the call table (the rest in one row per
/// class), and what no file holds in one line per device.
fn block(out: &mut String, w: &WatchResult) {
    if w.config.all_files || w.config.device.is_some() {
        block_full(out, w);
    } else {
        block_folded(out, w);
    }
    for q in &w.block_queue {
        let _ = writeln!(
            out,
            "on the way to {}: {} bios merged into queued requests, {} requests merged, {} bios split (a merged bio is timed with its request, a split one's parts from the whole one's queueing)",
            device_name(w, &q.device),
            q.bio_merges,
            q.rq_merges,
            q.splits
        );
    }
    // A pseudo-file (/proc/self/...) names another file for dbio than
    // for the process: saying so is noise.
    for u in w
        .unmapped
        .iter()
        .filter(|u| file_kind(Some(&u.path)) != FileKind::Pseudo)
    {
        let _ = writeln!(out, "not mapped to the device: {}: {}", u.path, u.reason);
    }
}

/// One row of the folded device table: a device's requests of one class,
/// every issuer together.
#[derive(Default)]
struct DeviceClass {
    device: String,
    op: Option<BlockOp>,
    count: u64,
    by_watched: u64,
    bytes: u64,
    total_ns: u64,
    fua: u64,
    preflush: u64,
    queued: u64,
    queue_ns: u64,
}

/// A device as the tables name it: `vda (254:0)`, or its number.
fn device_name(w: &WatchResult, device: &str) -> String {
    match w
        .block
        .iter()
        .find(|d| d.device == device)
        .and_then(|d| d.name.as_ref())
    {
        Some(n) => format!("{n} ({device})"),
        None => device.to_string(),
    }
}

fn block_folded(out: &mut String, w: &WatchResult) {
    let queue = queue_known(w);
    if !w.block.is_empty() {
        let mut rows: Vec<DeviceClass> = Vec::new();
        for d in &w.block {
            let i = match rows
                .iter()
                .position(|r| r.device == d.device && r.op == Some(d.op))
            {
                Some(i) => i,
                None => {
                    rows.push(DeviceClass {
                        device: d.device.clone(),
                        op: Some(d.op),
                        ..Default::default()
                    });
                    rows.len() - 1
                }
            };
            let r = &mut rows[i];
            r.count += d.count;
            if d.pid.is_some() {
                r.by_watched += d.count;
            }
            r.bytes += d.bytes;
            r.total_ns += d.total_ns;
            r.fua += d.fua;
            r.preflush += d.preflush;
            r.queued += d.queued;
            r.queue_ns += d.queue_ns;
        }
        let _ = writeln!(
            out,
            "{}",
            if queue {
                "block layer: device service time (issue to completion) and queue time (bio queued to request issued) on the devices holding the watched files; --all-files splits it by issuer and draws each file's histograms"
            } else {
                "block layer: device service time (issue to completion) on the devices holding the watched files; --all-files splits it by issuer and draws each file's histograms"
            }
        );
        let mut t = crate::kit::text::new_table(&queue_header(
            vec![
                "device",
                "op",
                "requests",
                "by watched",
                "bytes",
                "mean",
                "total",
                "FUA",
                "preflush",
            ],
            "mean",
            queue,
        ));
        for r in &rows {
            t.add_row(queue_cell(
                vec![
                    Cell::new(device_name(w, &r.device)),
                    Cell::new(r.op.map_or("-", BlockOp::name)),
                    Cell::new(r.count).set_alignment(CellAlignment::Right),
                    Cell::new(r.by_watched).set_alignment(CellAlignment::Right),
                    Cell::new(format_bytes(r.bytes)).set_alignment(CellAlignment::Right),
                    Cell::new(mean(r.total_ns, r.count)).set_alignment(CellAlignment::Right),
                    Cell::new(format_ns(r.total_ns as f64)).set_alignment(CellAlignment::Right),
                    Cell::new(r.fua).set_alignment(CellAlignment::Right),
                    Cell::new(r.preflush).set_alignment(CellAlignment::Right),
                ],
                5,
                queue,
                r.queue_ns,
                r.queued,
            ));
        }
        let _ = writeln!(out, "{t}");
    }
    if !w.file_block.is_empty() {
        // The files the call table shows, busiest first; the rest fold.
        let files = super::files::files(w);
        let shown: Vec<&str> = files
            .iter()
            .filter(|f| !super::files::folded(w, f))
            .filter_map(|f| f.path)
            .collect();
        let _ = writeln!(
            out,
            "device time by file (requests whose first sector lies in the file's extents), next to the time of the calls on it"
        );
        let mut t = crate::kit::text::new_table(&queue_header(
            vec![
                "file",
                "op",
                "requests",
                "bytes",
                "by watched",
                "device mean",
                "calls: mean x count",
            ],
            "device mean",
            queue,
        ));
        for p in &shown {
            for f in w.file_block.iter().filter(|f| f.path == *p) {
                t.add_row(queue_cell(
                    vec![
                        Cell::new(&f.path),
                        Cell::new(f.op.name()),
                        Cell::new(f.count).set_alignment(CellAlignment::Right),
                        Cell::new(format_bytes(f.bytes)).set_alignment(CellAlignment::Right),
                        Cell::new(f.by_watched).set_alignment(CellAlignment::Right),
                        Cell::new(mean(f.total_ns, f.count)).set_alignment(CellAlignment::Right),
                        Cell::new(syscalls_on(w, &f.path, f.op)),
                    ],
                    5,
                    queue,
                    f.queue_ns,
                    f.queued,
                ));
            }
        }
        let rest: Vec<_> = w
            .file_block
            .iter()
            .filter(|f| !shown.contains(&f.path.as_str()))
            .collect();
        for op in BlockOp::ALL {
            let of: Vec<_> = rest.iter().filter(|f| f.op == op).collect();
            if of.is_empty() {
                continue;
            }
            let mut paths: Vec<&str> = of.iter().map(|f| f.path.as_str()).collect();
            paths.sort_unstable();
            paths.dedup();
            let (count, bytes, by, ns) = of.iter().fold((0, 0, 0, 0), |a, f| {
                (
                    a.0 + f.count,
                    a.1 + f.bytes,
                    a.2 + f.by_watched,
                    a.3 + f.total_ns,
                )
            });
            let (queued, queue_ns) = of
                .iter()
                .fold((0, 0), |a, f| (a.0 + f.queued, a.1 + f.queue_ns));
            t.add_row(queue_cell(
                vec![
                    Cell::new(format!("other files ({})", paths.len())),
                    Cell::new(op.name()),
                    Cell::new(count).set_alignment(CellAlignment::Right),
                    Cell::new(format_bytes(bytes)).set_alignment(CellAlignment::Right),
                    Cell::new(by).set_alignment(CellAlignment::Right),
                    Cell::new(mean(ns, count)).set_alignment(CellAlignment::Right),
                    Cell::new("-"),
                ],
                5,
                queue,
                queue_ns,
                queued,
            ));
        }
        let _ = writeln!(out, "{t}");
    }
    // What no watched file holds: one line per device.
    let mut devices: Vec<&str> = Vec::new();
    for u in &w.block_unattributed {
        if !devices.contains(&u.device.as_str()) {
            devices.push(&u.device);
        }
    }
    for dev in devices {
        let of: Vec<_> = w
            .block_unattributed
            .iter()
            .filter(|u| u.device == dev)
            .collect();
        let classes: Vec<String> = of
            .iter()
            .map(|u| format!("{} {}", u.count, u.op.name()))
            .collect();
        let (count, bytes, by, ns) = of.iter().fold((0, 0, 0, 0), |a, u| {
            (
                a.0 + u.count,
                a.1 + u.bytes,
                a.2 + u.by_watched,
                a.3 + u.total_ns,
            )
        });
        let _ = writeln!(
            out,
            "not in any watched file's extents on {}: {} requests ({}; {}, {by} issued by a watched process, device mean {}): journal, metadata, flushes or other processes' files",
            device_name(w, dev),
            count,
            classes.join(", "),
            format_bytes(bytes),
            mean(ns, count)
        );
    }
}

fn block_full(out: &mut String, w: &WatchResult) {
    let queue = queue_known(w);
    if !w.block.is_empty() {
        let _ = writeln!(
            out,
            "{}",
            if w.config.device.is_some() {
                "block layer: device service time (issue to completion) of every request on the device, by issuing process"
            } else {
                "block layer: device service time (issue to completion) on the devices holding the watched files"
            }
        );
        let mut t = crate::kit::text::new_table(&queue_header(
            vec![
                "device",
                "op",
                "issued by",
                "requests",
                "bytes",
                "mean",
                "total",
                "FUA",
                "preflush",
            ],
            "mean",
            queue,
        ));
        for d in &w.block {
            let dev = match &d.name {
                Some(n) => format!("{n} ({})", d.device),
                None => d.device.clone(),
            };
            t.add_row(queue_cell(
                vec![
                    Cell::new(dev),
                    Cell::new(d.op.name()),
                    Cell::new(issuer(w, d)),
                    Cell::new(d.count).set_alignment(CellAlignment::Right),
                    Cell::new(format_bytes(d.bytes)).set_alignment(CellAlignment::Right),
                    Cell::new(mean(d.total_ns, d.count)).set_alignment(CellAlignment::Right),
                    Cell::new(format_ns(d.total_ns as f64)).set_alignment(CellAlignment::Right),
                    Cell::new(d.fua).set_alignment(CellAlignment::Right),
                    Cell::new(d.preflush).set_alignment(CellAlignment::Right),
                ],
                5,
                queue,
                d.queue_ns,
                d.queued,
            ));
        }
        let _ = writeln!(out, "{t}");
        // --device: the rows are the result; each has its histogram.
        if w.config.device.is_some() {
            for d in &w.block {
                let _ = writeln!(out, "{} requests by {}: device time", d.op, issuer(w, d));
                out.push_str(&crate::kit::histogram::render(&d.latency));
            }
        }
    }
    if !w.file_block.is_empty() {
        let _ = writeln!(
            out,
            "device time by file (requests whose first sector lies in the file's extents), next to the time of the calls on it"
        );
        let mut t = crate::kit::text::new_table(&queue_header(
            vec![
                "file",
                "op",
                "requests",
                "bytes",
                "by watched",
                "device mean",
                "calls: mean x count",
            ],
            "device mean",
            queue,
        ));
        for f in &w.file_block {
            t.add_row(queue_cell(
                vec![
                    Cell::new(&f.path),
                    Cell::new(f.op.name()),
                    Cell::new(f.count).set_alignment(CellAlignment::Right),
                    Cell::new(format_bytes(f.bytes)).set_alignment(CellAlignment::Right),
                    Cell::new(f.by_watched).set_alignment(CellAlignment::Right),
                    Cell::new(mean(f.total_ns, f.count)).set_alignment(CellAlignment::Right),
                    Cell::new(syscalls_on(w, &f.path, f.op)),
                ],
                5,
                queue,
                f.queue_ns,
                f.queued,
            ));
        }
        let _ = writeln!(out, "{t}");
        for f in &w.file_block {
            let _ = writeln!(out, "{} requests on {}: device time", f.op, f.path);
            out.push_str(&crate::kit::histogram::render(&f.latency));
            if f.queued > 0 {
                let _ = writeln!(
                    out,
                    "{} requests on {}: queue time (bio queued to request issued)",
                    f.op, f.path
                );
                out.push_str(&crate::kit::histogram::render(&f.queue_latency));
            }
        }
    }
    for u in &w.block_unattributed {
        let _ = writeln!(
            out,
            "not in any watched file's extents on {}: {} {} requests ({}, {} issued by a watched process, device mean {}): journal, metadata, flushes or other processes' files",
            u.device,
            u.count,
            u.op,
            format_bytes(u.bytes),
            u.by_watched,
            mean(u.total_ns, u.count)
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use dbio_model::watch::{
        SyscallOp, WatchConfig, WatchEnd, WatchFileOp, WatchLosses, WatchProgramCost,
    };

    #[test]
    fn a_watch_renders_its_rows_histograms_and_losses() {
        let mut latency = dbio_model::Log2Buckets::default();
        latency.record_us_n(5, 10);
        let w = WatchResult {
            name: "pid 7".into(),
            config: WatchConfig::default(),
            duration_ns: 2_000_000_000,
            ended: WatchEnd::Signal {
                signal: "SIGINT".into(),
            },
            command_status: None,
            processes: vec![],
            ops: vec![WatchFileOp {
                pid: 7,
                fd: 3,
                path: Some("/redo01.log".into()),
                op: SyscallOp::Pwrite64,
                count: 10,
                bytes: 5120,
                total_ns: 50_000,
                latency,
                ..Default::default()
            }],
            losses: WatchLosses {
                unmatched: 2,
                ring_drops: 4,
                ..Default::default()
            },
            streamed: 0,
            unavailable: vec!["syscalls:sys_enter_preadv2".into()],
            block: vec![],
            file_block: vec![],
            block_unattributed: vec![],
            unmapped: vec![],
            bpf_programs: vec![
                WatchProgramCost {
                    name: "enter_pwrite64".into(),
                    runs: 10,
                    run_ns: 1000,
                },
                WatchProgramCost {
                    name: "exit_pwrite64".into(),
                    runs: 12,
                    run_ns: 2000,
                },
            ],
            block_queue: vec![],
            command_signal: None,
        };
        let s = render_one(&w);
        assert!(
            s.contains("tracer cost (kernel run-time statistics): 300 ns in its BPF programs per traced call (10 calls traced; 22 program runs"),
            "{s}"
        );
        assert!(
            s.starts_with("watch pid 7: 2.00 s watched, ended because SIGINT arrived"),
            "{s}"
        );
        assert!(
            s.contains("/redo01.log") && s.contains("pwrite64") && s.contains("5.00 KiB"),
            "{s}"
        );
        assert!(
            s.contains("pwrite64 on /redo01.log (pid 7, fd 3): latency"),
            "{s}"
        );
        assert!(
            s.contains("2 exits without an entry") && s.contains("4 stream records"),
            "{s}"
        );
        assert!(
            s.contains(
                "unavailable on this kernel (those calls are not seen): syscalls:sys_enter_preadv2"
            ),
            "{s}"
        );
        assert!(render_so_far(&w).starts_with("watch pid 7: 2.00 s so far"));
        assert!(!s.contains("block layer"), "{s}");
    }

    #[test]
    fn block_rows_show_device_time_next_to_the_calls() {
        use dbio_model::watch::{WatchDeviceIo, WatchFileBlock, WatchUnattributed, WatchUnmapped};
        let mut lat = dbio_model::Log2Buckets::default();
        lat.record_us_n(100, 4);
        let w = WatchResult {
            name: "pid 7".into(),
            config: WatchConfig {
                block: true,
                ..Default::default()
            },
            duration_ns: 1_000_000_000,
            ended: WatchEnd::Exited,
            command_status: None,
            processes: vec![],
            ops: vec![WatchFileOp {
                pid: 7,
                fd: 3,
                path: Some("/redo".into()),
                op: SyscallOp::Fdatasync,
                count: 4,
                total_ns: 4_000_000,
                ..Default::default()
            }],
            losses: WatchLosses {
                block_unmatched: 3,
                ..Default::default()
            },
            streamed: 0,
            unavailable: vec![],
            block: vec![WatchDeviceIo {
                device: "254:0".into(),
                name: Some("vda".into()),
                op: BlockOp::Flush,
                pid: None,
                count: 4,
                total_ns: 400_000,
                latency: lat.clone(),
                ..Default::default()
            }],
            file_block: vec![WatchFileBlock {
                path: "/redo".into(),
                device: "254:0".into(),
                op: BlockOp::Write,
                count: 4,
                bytes: 16384,
                total_ns: 400_000,
                by_watched: 4,
                latency: lat,
                ..Default::default()
            }],
            block_unattributed: vec![WatchUnattributed {
                device: "254:0".into(),
                op: BlockOp::Write,
                count: 2,
                bytes: 8192,
                by_watched: 0,
                total_ns: 10,
                ..Default::default()
            }],
            unmapped: vec![
                WatchUnmapped {
                    path: "/tmpfile".into(),
                    reason: "not on a block device".into(),
                },
                // An old result's: /proc/self names dbio's own files.
                WatchUnmapped {
                    path: "/proc/self/status".into(),
                    reason: "the path now names another file than the one the process has open"
                        .into(),
                },
            ],
            bpf_programs: vec![],
            block_queue: vec![],
            command_signal: None,
        };
        // By default: per device and class, every issuer together; the
        // files of the call table without histograms; what no file
        // holds in one line per device.
        let s = render_one(&w);
        assert!(s.contains("vda (254:0)") && s.contains("by watched"), "{s}");
        assert!(!s.contains("writeback/other"), "{s}");
        assert!(s.contains("fdatasync 1.00 ms x4"), "{s}");
        assert!(!s.contains("requests on /redo: device time"), "{s}");
        assert!(
            s.contains("not in any watched file's extents on vda (254:0): 2 requests (2 write; 8.00 KiB, 0 issued"),
            "{s}"
        );
        assert!(
            s.contains("not mapped to the device: /tmpfile: not on a block device"),
            "{s}"
        );
        assert!(!s.contains("not mapped to the device: /proc"), "{s}");
        let html = crate::sections::watch::html_block::section(0, &w);
        assert!(
            html.contains("Not mapped to the device: /tmpfile"),
            "{html}"
        );
        assert!(!html.contains("/proc/self/status"), "{html}");
        assert!(s.contains("3 completions without an issue"), "{s}");
        // --all-files (and `dbio report --detail`): by issuer, with each
        // file's histogram and a line per class.
        let mut all = w.clone();
        all.config.all_files = true;
        let s = render_one(&all);
        assert!(
            s.contains("vda (254:0)") && s.contains("writeback/other"),
            "{s}"
        );
        assert!(s.contains("write requests on /redo: device time"), "{s}");
        assert!(
            s.contains("on 254:0: 2 write requests (8.00 KiB, 0 issued"),
            "{s}"
        );
        assert!(
            s.contains("not mapped to the device: /tmpfile: not on a block device"),
            "{s}"
        );
    }

    #[test]
    fn by_default_the_block_layer_folds_files_as_the_call_table_does() {
        use dbio_model::watch::{WatchDeviceIo, WatchFileBlock};
        let mut lat = dbio_model::Log2Buckets::default();
        lat.record_us_n(100, 4);
        let call = |path: &str, ns: u64| WatchFileOp {
            pid: 7,
            fd: 3,
            path: Some(path.into()),
            op: SyscallOp::Pwrite64,
            count: 4,
            total_ns: ns,
            latency: lat.clone(),
            ..Default::default()
        };
        let fb = |path: &str, op: BlockOp| WatchFileBlock {
            path: path.into(),
            device: "254:0".into(),
            op,
            count: 2,
            bytes: 8192,
            total_ns: 200_000,
            by_watched: 2,
            latency: lat.clone(),
            ..Default::default()
        };
        let dev = |op: BlockOp, pid: Option<u32>| WatchDeviceIo {
            device: "254:0".into(),
            name: Some("vda".into()),
            op,
            pid,
            count: 3,
            total_ns: 300_000,
            latency: lat.clone(),
            ..Default::default()
        };
        let w = WatchResult {
            name: "pid 7".into(),
            config: WatchConfig {
                block: true,
                ..Default::default()
            },
            duration_ns: 1_000_000_000,
            ended: WatchEnd::Exited,
            command_status: None,
            processes: vec![],
            // /redo holds nearly all the time; /small and /tiny are under
            // 1 % of it and fold.
            ops: vec![
                call("/redo", 10_000_000),
                call("/small", 10_000),
                call("/tiny", 10_000),
            ],
            losses: WatchLosses::default(),
            streamed: 0,
            unavailable: vec![],
            block: vec![
                dev(BlockOp::Write, Some(7)),
                dev(BlockOp::Write, None),
                dev(BlockOp::Discard, None),
            ],
            file_block: vec![
                fb("/redo", BlockOp::Write),
                fb("/redo", BlockOp::Discard),
                fb("/small", BlockOp::Write),
                fb("/tiny", BlockOp::Write),
            ],
            block_unattributed: vec![],
            unmapped: vec![],
            bpf_programs: vec![],
            block_queue: vec![],
            command_signal: None,
        };
        let s = render_one(&w);
        // One device row per class: 6 write requests, 3 by the watched
        // process.
        let write = s
            .lines()
            .find(|l| l.contains("vda (254:0)") && l.contains(" write "))
            .unwrap_or_else(|| panic!("{s}"));
        assert!(write.contains(" 6 ") && write.contains(" 3 "), "{write}");
        assert_eq!(s.matches("vda (254:0)").count(), 2, "{s}");
        // The busiest file's rows, the two small files in one row.
        let other = s
            .lines()
            .find(|l| l.contains("other files (2)") && l.contains(" write "))
            .unwrap_or_else(|| panic!("{s}"));
        assert!(
            other.contains(" 4 ") && other.contains("16.0 KiB"),
            "{other}"
        );
        assert!(!s.contains("/small ┆"), "{s}");
        assert!(!s.contains("requests on /redo: device time"), "{s}");
        // One call histogram: the row at 10 % of the traced time or more.
        assert_eq!(s.matches(": latency").count(), 1, "{s}");
    }

    #[test]
    fn a_device_watch_names_each_issuer_with_its_histogram() {
        use dbio_model::watch::WatchDeviceIo;
        let mut lat = dbio_model::Log2Buckets::default();
        lat.record_us_n(40, 37);
        let w = WatchResult {
            name: "device /dev/loop3".into(),
            config: WatchConfig {
                block: true,
                device: Some("/dev/loop3".into()),
                ..Default::default()
            },
            duration_ns: 1_000_000_000,
            ended: WatchEnd::Duration,
            command_status: None,
            processes: vec![],
            ops: vec![],
            losses: WatchLosses::default(),
            streamed: 0,
            unavailable: vec![],
            block: vec![
                WatchDeviceIo {
                    device: "7:3".into(),
                    name: Some("loop3".into()),
                    op: BlockOp::Write,
                    pid: Some(42),
                    comm: Some("dd".into()),
                    count: 37,
                    bytes: 37 * 4096,
                    total_ns: 37 * 40_000,
                    latency: lat,
                    ..Default::default()
                },
                WatchDeviceIo {
                    device: "7:3".into(),
                    op: BlockOp::Read,
                    count: 1,
                    ..Default::default()
                },
            ],
            file_block: vec![],
            block_unattributed: vec![],
            unmapped: vec![],
            bpf_programs: vec![],
            block_queue: vec![],
            command_signal: None,
        };
        let s = render_one(&w);
        assert!(
            s.contains("every request on the device, by issuing process"),
            "{s}"
        );
        assert!(
            s.contains("pid 42 (dd)") && s.contains("kernel (no process)"),
            "{s}"
        );
        assert!(
            s.contains("write requests by pid 42 (dd): device time"),
            "{s}"
        );
        assert!(!s.contains("writeback/other"), "{s}");
        assert!(
            !s.contains("call") && !s.contains("exits without an entry"),
            "{s}"
        );
    }
}
