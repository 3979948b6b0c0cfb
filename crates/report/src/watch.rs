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

/// One watch: a heading, the table, one histogram per row, the losses.
pub fn render_one(w: &WatchResult) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "watch {}: {} watched, ended because {}",
        w.name,
        format_ns(w.duration_ns as f64),
        w.ended
    );
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
