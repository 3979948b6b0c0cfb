//! The block layer of `dbio watch` on the page: per device, the device's
//! service time (issue to completion) as power-of-two µs histograms by
//! request class and issuer; per file, the mean time of the system calls
//! beside the mean device time of the requests in its extents (the
//! 'log file sync' against 'log file parallel write' picture: what the
//! process waited against what the device took); and how much of each
//! device's traffic lay in no watched file.
//!
//! Device time is the kernel's `block_rq_issue` to `block_rq_complete`
//! (docs/watch.md); it leaves out the queueing before issue, so a call
//! can take longer than its requests without the device being slow. Where
//! the queueing was traced (`block_bio_queue` to `block_rq_issue`), each
//! file's mean queue time is drawn beside its mean device time: a queue
//! far longer than the device's service is "await high, device fine".

use crate::kit::html::page::Text;
use crate::kit::html::svg::{self, Hist, Pair};
use dbio_model::watch::{BlockOp, WatchResult};
use maud::html;
use std::fmt::Write;

/// Histograms per device at most (the busiest classes).
const PER_DEVICE: usize = 4;

fn mean(total_ns: u64, count: u64) -> Option<f64> {
    (count > 0).then(|| total_ns as f64 / count as f64)
}

/// Whether a call of class `op` on a file goes with block requests of
/// class `b` (the terminal table's rule, crates/report/src/watch.rs).
fn goes_with(op: dbio_model::watch::SyscallOp, b: BlockOp) -> bool {
    match b {
        BlockOp::Read => op.is_read(),
        BlockOp::Write => op.is_write() || op.is_sync(),
        _ => op.is_sync(),
    }
}

/// The block-layer part of watch `i` (empty when none was traced).
pub fn section(i: usize, w: &WatchResult) -> String {
    if w.block.is_empty() && w.file_block.is_empty() && w.block_unattributed.is_empty() {
        return String::new();
    }
    let mut b = format!(
        "<section class=\"watch-block\" id=\"watch-block-{i}\"><h4>Block layer: device service time</h4>"
    );
    let mut devices: Vec<&str> = w.block.iter().map(|d| d.device.as_str()).collect();
    devices.dedup();
    devices.sort_unstable();
    devices.dedup();
    for (k, dev) in devices.iter().enumerate() {
        let mut rows: Vec<_> = w.block.iter().filter(|d| d.device == *dev).collect();
        rows.sort_by_key(|d| std::cmp::Reverse(d.total_ns));
        let name = rows
            .iter()
            .find_map(|d| d.name.clone())
            .map_or_else(|| dev.to_string(), |n| format!("{n} ({dev})"));
        let labels: Vec<String> = rows
            .iter()
            .take(PER_DEVICE)
            .map(|d| {
                format!(
                    "{} by {} (x{})",
                    d.op,
                    crate::sections::watch::table::issuer(w, d),
                    d.count
                )
            })
            .collect();
        let hists: Vec<Hist> = rows
            .iter()
            .take(PER_DEVICE)
            .zip(&labels)
            .map(|(d, l)| Hist {
                label: l,
                buckets: &d.latency,
            })
            .collect();
        b.push_str(&svg::histogram(
            &format!("watch-dev-{i}-{k}"),
            &format!("{name}: device service time by request class and issuer"),
            &hists,
            None,
        ));
    }
    if !w.file_block.is_empty() {
        let rows: Vec<Pair> = w
            .file_block
            .iter()
            .map(|f| {
                let (n, t) = w
                    .ops
                    .iter()
                    .filter(|o| o.path.as_deref() == Some(f.path.as_str()) && goes_with(o.op, f.op))
                    .fold((0u64, 0u64), |(n, t), o| (n + o.count, t + o.total_ns));
                Pair {
                    label: format!("{} {}", f.op, f.path),
                    a: mean(t, n).unwrap_or(f64::NAN),
                    b: mean(f.total_ns, f.count),
                    fmt: svg::fmt_ns,
                    note: format!("{n} calls, {} requests", f.count),
                }
            })
            .collect();
        b.push_str(&svg::paired(
            &format!("watch-file-dev-{i}"),
            "Per file: mean system-call time beside the mean device time of the requests in its extents",
            ["system call (what the process waited)", "device (issue to completion)"],
            &rows,
        ));
    }
    if w.file_block.iter().any(|f| f.queued > 0) {
        let rows: Vec<Pair> = w
            .file_block
            .iter()
            .filter(|f| f.queued > 0)
            .map(|f| Pair {
                label: format!("{} {}", f.op, f.path),
                a: mean(f.queue_ns, f.queued).unwrap_or(f64::NAN),
                b: mean(f.total_ns, f.count),
                fmt: svg::fmt_ns,
                note: format!("{} requests", f.count),
            })
            .collect();
        b.push_str(&svg::paired(
            &format!("watch-file-queue-{i}"),
            "Per file: mean block-layer queue time beside the mean device time of the requests in its extents",
            ["queue (bio queued to request issued)", "device (issue to completion)"],
            &rows,
        ));
    }
    let mut lines = Vec::new();
    for dev in &devices {
        let (all_n, all_t) = w
            .block
            .iter()
            .filter(|d| d.device == *dev)
            .fold((0u64, 0u64), |(n, t), d| (n + d.count, t + d.total_ns));
        let (un_n, un_t) = w
            .block_unattributed
            .iter()
            .filter(|u| u.device == *dev)
            .fold((0u64, 0u64), |(n, t), u| (n + u.count, t + u.total_ns));
        let share = |a: u64, b: u64| {
            if b > 0 {
                format!("{:.1} %", 100.0 * a as f64 / b as f64)
            } else {
                "-".into()
            }
        };
        let line = html! {
            li {
                (Text(dev)) ": " (un_n) " of " (all_n) " requests (" (share(un_n, all_n.max(un_n)))
                "), " (share(un_t, all_t.max(un_t))) " of the device time, lay in no watched \
                 file's extents (journal, metadata, flushes or other processes' files)."
            }
        };
        lines.push(line.into_string());
    }
    if !lines.is_empty() {
        let _ = write!(
            b,
            "<ul class=\"unattributed\" id=\"watch-unattributed-{i}\">{}</ul>",
            lines.concat()
        );
    }
    // A pseudo-file names another file for dbio than for the process.
    for u in w.unmapped.iter().filter(|u| {
        dbio_model::watch::file_kind(Some(&u.path)) != dbio_model::watch::FileKind::Pseudo
    }) {
        let p = html! { p { "Not mapped to the device: " (Text(&u.path)) ": " (Text(&u.reason)) } };
        b.push_str(&p.into_string());
    }
    let l = &w.losses;
    let _ = write!(
        b,
        "<p>Block losses: {} unmatched, {} table full, {} histogram-table full, {} ring drops.</p></section>",
        l.block_unmatched, l.block_table_full, l.block_histogram_full, l.block_ring_drops
    );
    b
}

#[cfg(test)]
mod tests {
    use super::*;
    use dbio_model::watch::{
        SyscallOp, WatchConfig, WatchDeviceIo, WatchEnd, WatchFileBlock, WatchFileOp, WatchLosses,
        WatchUnattributed,
    };

    fn watch(file_block: bool) -> WatchResult {
        let mut lat = dbio_model::Log2Buckets::default();
        lat.record_us_n(100, 4);
        WatchResult {
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
                path: Some("/redo<1>".into()),
                op: SyscallOp::Fdatasync,
                count: 4,
                total_ns: 4_000_000,
                ..Default::default()
            }],
            losses: WatchLosses::default(),
            streamed: 0,
            unavailable: vec![],
            block: vec![WatchDeviceIo {
                device: "254:0".into(),
                name: Some("vda".into()),
                op: BlockOp::Write,
                pid: Some(7),
                count: 8,
                total_ns: 800_000,
                latency: lat.clone(),
                ..Default::default()
            }],
            file_block: if file_block {
                vec![WatchFileBlock {
                    path: "/redo<1>".into(),
                    device: "254:0".into(),
                    op: BlockOp::Write,
                    count: 4,
                    bytes: 16384,
                    total_ns: 400_000,
                    by_watched: 4,
                    latency: lat,
                    ..Default::default()
                }]
            } else {
                vec![]
            },
            block_unattributed: vec![WatchUnattributed {
                device: "254:0".into(),
                op: BlockOp::Write,
                count: 2,
                bytes: 8192,
                by_watched: 0,
                total_ns: 200_000,
                ..Default::default()
            }],
            unmapped: vec![],
            bpf_programs: vec![],
            block_queue: vec![],
            command_signal: None,
        }
    }

    #[test]
    fn a_file_pairs_its_call_time_with_its_device_time_and_the_rest_is_stated() {
        let s = section(0, &watch(true));
        assert!(s.contains("id=\"watch-dev-0-0\""), "{s}");
        assert!(s.contains("vda (254:0): device service time"), "{s}");
        assert!(s.contains("write by pid 7 (x8)"), "{s}");
        let pair = &s[s.find("id=\"watch-file-dev-0\"").expect("paired chart")..];
        // fdatasync: 4 calls, 4 ms: 1 ms each; 4 requests, 400 µs: 100 µs.
        assert!(pair.contains("write /redo&lt;1&gt;"), "{pair}");
        assert!(pair.contains(">1.00 ms<"), "{pair}");
        assert!(pair.contains(">100 µs<"), "{pair}");
        assert!(pair.contains("4 calls, 4 requests"), "{pair}");
        assert!(
            s.contains("2 of 8 requests (25.0 %), 25.0 % of the device time"),
            "{s}"
        );
        assert!(section(0, &watch(false)).find("watch-file-dev-0").is_none());
    }
}
