//! The `watch` section: per process, descriptor and call, the counts,
//! bytes and latency of a live process's I/O, with its histogram, and what
//! the tracer could not record.

use comfy_table::{Cell, CellAlignment};
use dbio_model::units::{format_bytes, format_ns};
use dbio_model::watch::WatchResult;
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
    let mut t = crate::table::new_table(&[
        "pid", "fd", "file", "call", "count", "bytes", "errors", "mean", "total",
    ]);
    for o in &w.ops {
        let mean = if o.count > 0 {
            format_ns(o.total_ns as f64 / o.count as f64)
        } else {
            "-".into()
        };
        t.add_row([
            Cell::new(o.pid).set_alignment(CellAlignment::Right),
            Cell::new(o.fd).set_alignment(CellAlignment::Right),
            Cell::new(o.path.as_deref().unwrap_or("?")),
            Cell::new(o.op.name()),
            Cell::new(o.count).set_alignment(CellAlignment::Right),
            Cell::new(if o.op.moves_data() {
                format_bytes(o.bytes)
            } else {
                "-".into()
            })
            .set_alignment(CellAlignment::Right),
            Cell::new(o.errors).set_alignment(CellAlignment::Right),
            Cell::new(mean).set_alignment(CellAlignment::Right),
            Cell::new(format_ns(o.total_ns as f64)).set_alignment(CellAlignment::Right),
        ]);
    }
    let _ = writeln!(out, "{t}");
    for o in &w.ops {
        if o.count == 0 {
            continue;
        }
        let _ = writeln!(
            out,
            "{} on {} (pid {}, fd {}): latency",
            o.op,
            o.path.as_deref().unwrap_or("?"),
            o.pid,
            o.fd
        );
        out.push_str(&crate::histogram::render(&o.latency));
    }
    let l = &w.losses;
    let _ = writeln!(
        out,
        "not recorded: {} exits without an entry (calls in progress at the start), {} entries (start table full), {} calls (histogram table full), {} stream records (ring buffer full)",
        l.unmatched, l.start_table_full, l.histogram_table_full, l.ring_drops
    );
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
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use dbio_model::watch::{SyscallOp, WatchConfig, WatchEnd, WatchFileOp, WatchLosses};

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
        };
        let s = render_one(&w);
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
    }
}
