//! Terminal rendering of the `dbio dbwr` section of a report: per
//! configuration, the foreground's throughput and waits in Oracle's event
//! names, the writers' I/O and each writer's CPU and share; for a sweep,
//! the table of Kevin Closson's "Over-Configuring DBWR Processes – Part
//! III" (writers, throughput, aggregate writer CPU).

use crate::kit::text::{lat_cells, new_table, right_align};
use comfy_table::Cell;
use dbio_model::dbwr::{DbwrResult, Placement, WaitStats};
use dbio_model::units::{format_bytes, format_count_rate, format_ns, format_rate};
use dbio_model::{CpuUsage, EngineKind, LatencySummary, RunReport};
use std::fmt::Write;

/// Renders the dbwr section (empty when the report has none).
pub fn render(r: &RunReport) -> String {
    let mut out = String::new();
    for d in &r.dbwr {
        out.push_str(&detail(d));
        if let Some(st) = &d.stripe {
            out.push_str(&crate::sections::jobs::fleet::stripe(st, d.runtime_ns));
        }
        out.push('\n');
    }
    if r.dbwr.len() > 1 {
        out.push_str(&sweep(&r.dbwr));
    }
    out
}

fn cpu_s(c: &CpuUsage) -> f64 {
    (c.user_ns + c.system_ns) as f64 / 1e9
}

/// One line that says what ran.
fn describe(d: &DbwrResult) -> String {
    let c = &d.config;
    let engine = crate::sections::lgwr::table::engine_name(c.engine);
    let mut s = format!(
        "{} writer{}, {} lists, {} buffers ({}), {} foreground{}, {} % changed, batch <= {}, scan depth {} %, {engine}",
        c.writers,
        if c.writers == 1 { "" } else { "s" },
        c.lists,
        c.buffers,
        format_bytes(u64::from(c.buffers) * u64::from(d.block_size)),
        c.foregrounds,
        if c.foregrounds == 1 { "" } else { "s" },
        c.dirty_pct,
        c.batch_max,
        c.scan_depth_pct,
    );
    if c.engine == EngineKind::Null {
        if c.null_delay_ns > 0 {
            let _ = write!(s, " ({} per I/O)", format_ns(c.null_delay_ns as f64));
        }
    } else {
        let _ = write!(
            s,
            ", {}, datafile {}",
            if c.direct { "O_DIRECT" } else { "buffered" },
            format_bytes(c.datafile_bytes)
        );
    }
    if let Some(r) = c.rate_iops {
        let _ = write!(s, ", rate {r} ops/s");
    }
    if let Some(i) = c.checkpoint_interval_ns {
        let _ = write!(s, ", checkpoint every {}", format_ns(i as f64));
    }
    if c.placement != Placement::Free {
        let _ = write!(s, ", writers {}", c.placement);
    }
    s
}

fn wait_row(name: &str, w: &WaitStats) -> Vec<Cell> {
    if w.count == 0 {
        // No waits: nothing was measured, so no time is shown.
        let mut row = vec![Cell::new(name), Cell::new(0)];
        row.extend((0..4).map(|_| Cell::new(crate::kit::text::ABSENT)));
        return row;
    }
    let avg = w.total_ns as f64 / w.count as f64;
    vec![
        Cell::new(name),
        Cell::new(w.count),
        Cell::new(format_ns(w.total_ns as f64)),
        Cell::new(format_ns(avg)),
        Cell::new(format_ns(w.time.p99_ns() as f64)),
        Cell::new(format_ns(w.time.max_ns as f64)),
    ]
}

fn latency_as_wait(l: &LatencySummary) -> WaitStats {
    WaitStats {
        count: l.count,
        total_ns: (l.mean_ns * l.count as f64) as u64,
        time: l.clone(),
    }
}

fn detail(d: &DbwrResult) -> String {
    let mut s = String::new();
    let f = &d.foreground;
    let _ = writeln!(
        s,
        "[{}] {} | measured {}",
        d.name,
        describe(d),
        format_ns(d.runtime_ns as f64)
    );
    let _ = writeln!(
        s,
        "foregrounds: {} ops/min ({} ops/s), hit ratio {:.1} %, {} blocks read, {} changes, CPU {:.2} s ({} per op)",
        format_count_rate(f.ops_per_min),
        format_count_rate(f.ops_per_sec),
        f.hit_ratio * 100.0,
        f.blocks_read,
        f.changes,
        cpu_s(&f.cpu),
        format_ns(f.cpu.per_io_ns),
    );
    let mut t = new_table(&["event", "waits", "total", "avg", "p99", "max"]);
    t.add_row(wait_row("free buffer waits", &f.free_buffer_waits));
    t.add_row(wait_row("write complete waits", &f.write_complete_waits));
    t.add_row(wait_row("read by other session", &f.read_by_other_waits));
    t.add_row(wait_row(
        "db file sequential read",
        &latency_as_wait(&f.read_time),
    ));
    t.add_row(wait_row(
        "db file parallel write (writers)",
        &latency_as_wait(&d.writes.parallel_write),
    ));
    right_align(&mut t);
    let _ = writeln!(s, "{t}");
    let w = &d.writes;
    let _ = writeln!(
        s,
        "writes: {} blocks ({} IOPS, {}) in {} batches, mean {:.1}, max {}; {} for checkpoints ({} completed, mean {}); {} at shutdown; {} buffers scanned",
        w.blocks_written,
        format_count_rate(w.write_iops),
        format_rate(w.bytes_per_sec),
        w.batches,
        w.batch_mean,
        w.batch_max,
        w.checkpoint_writes,
        d.checkpoints.count,
        if d.checkpoints.count == 0 {
            "-".to_string()
        } else {
            format_ns(d.checkpoints.duration.mean_ns)
        },
        d.shutdown_writes,
        w.buffers_scanned,
    );
    let sizes: Vec<String> = w
        .batch_sizes
        .counts
        .iter()
        .enumerate()
        .filter(|(_, &n)| n > 0)
        .map(|(b, n)| {
            let lo = if b == 0 { 0 } else { 1u64 << (b - 1) };
            let hi = (1u64 << b) - 1;
            if lo == hi {
                format!("{lo}: {n}")
            } else {
                format!("{lo}-{hi}: {n}")
            }
        })
        .collect();
    if !sizes.is_empty() {
        let _ = writeln!(s, "batch sizes: {}", sizes.join(", "));
    }
    let mut t = new_table(&[
        "writer",
        "lists",
        "CPUs",
        "blocks",
        "share",
        "batches",
        "CPU s",
        "% of a CPU",
        "CPU/block",
        "vol cs",
        "invol cs",
    ]);
    for x in &d.writers {
        let lists = if x.lists.len() > 6 {
            format!("{} lists", x.lists.len())
        } else {
            x.lists
                .iter()
                .map(|l| l.to_string())
                .collect::<Vec<_>>()
                .join(",")
        };
        t.add_row(vec![
            Cell::new(format!("DBW{}", x.index)),
            Cell::new(lists),
            Cell::new(&x.cpus),
            Cell::new(x.blocks_written),
            Cell::new(format!("{:.1} %", x.share_pct)),
            Cell::new(x.batches),
            Cell::new(format!("{:.3}", cpu_s(&x.cpu))),
            Cell::new(format!("{:.1}", x.cpu.utilisation * 100.0)),
            Cell::new(format_ns(x.cpu.per_io_ns)),
            Cell::new(x.cpu.voluntary_cs),
            Cell::new(x.cpu.involuntary_cs),
        ]);
    }
    let a = &d.writers_cpu;
    t.add_row(vec![
        Cell::new("all"),
        Cell::new(""),
        Cell::new(""),
        Cell::new(w.blocks_written),
        Cell::new("100 %"),
        Cell::new(w.batches),
        Cell::new(format!("{:.3}", cpu_s(a))),
        Cell::new(format!("{:.1}", a.utilisation * 100.0)),
        Cell::new(format_ns(a.per_io_ns)),
        Cell::new(a.voluntary_cs),
        Cell::new(a.involuntary_cs),
    ]);
    right_align(&mut t);
    let _ = writeln!(s, "{t}");
    if let Some(dev) = &d.device {
        let _ = writeln!(
            s,
            "device {} (whole disk, all processes): {} reads ({}), {} writes ({}), busy {} ms",
            dev.device,
            dev.reads,
            format_bytes(dev.read_sectors * 512),
            dev.writes,
            format_bytes(dev.write_sectors * 512),
            dev.io_ms
        );
    }
    if d.dirty_after_shutdown > 0 {
        let _ = writeln!(
            s,
            "{} dirty buffers were never written: the shutdown checkpoint was cut short",
            d.dirty_after_shutdown
        );
    }
    s.push_str(&crate::kit::series::summary(&d.name, &d.per_second));
    s
}

/// Kevin Closson's table ("Over-Configuring DBWR Processes – Part III"):
/// writers, throughput, aggregate writer CPU.
fn sweep(rs: &[DbwrResult]) -> String {
    let mut t = new_table(&[
        "writers",
        "throughput (ops/min)",
        "vs first",
        "aggregate writer CPU (s)",
        "% of one CPU",
        "write IOPS",
        "mean batch",
        "free buffer waits",
        "p50 parallel write",
    ]);
    let base = rs[0].foreground.ops_per_min.max(1e-9);
    for d in rs {
        let mut row = vec![
            Cell::new(d.config.writers),
            Cell::new(format_count_rate(d.foreground.ops_per_min)),
            Cell::new(format!(
                "{:+.1} %",
                (d.foreground.ops_per_min / base - 1.0) * 100.0
            )),
            Cell::new(format!("{:.3}", cpu_s(&d.writers_cpu))),
            Cell::new(format!("{:.1}", d.writers_cpu.utilisation * 100.0)),
            Cell::new(format_count_rate(d.writes.write_iops)),
            Cell::new(format!("{:.1}", d.writes.batch_mean)),
            Cell::new(d.foreground.free_buffer_waits.count),
        ];
        row.push(lat_cells(&d.writes.parallel_write).swap_remove(1));
        t.add_row(row);
    }
    right_align(&mut t);
    format!(
        "writer sweep (Kevin Closson, \"Over-Configuring DBWR Processes\": 1 DBWR 62.6 TPM, 291 CPU s; 8 DBWR 57.9 TPM, 256 CPU s)\n{t}\n"
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use dbio_model::dbwr::WriterStats;

    fn result(writers: u32, opm: f64, cpu_ns: u64) -> DbwrResult {
        let mut d = DbwrResult {
            name: format!("writers={writers}"),
            ..Default::default()
        };
        d.config.writers = writers;
        d.config.engine = EngineKind::Null;
        d.foreground.ops_per_min = opm;
        d.writers_cpu.user_ns = cpu_ns;
        d.writers = (0..writers)
            .map(|i| WriterStats {
                index: i,
                lists: vec![i],
                cpus: "all".into(),
                ..Default::default()
            })
            .collect();
        d
    }

    #[test]
    fn empty_without_results_and_a_sweep_table_with_several() {
        assert_eq!(render(&RunReport::default()), "");
        let r = RunReport {
            dbwr: vec![
                result(1, 62_600_000.0, 291_000_000_000),
                result(8, 57_900_000.0, 256_000_000_000),
            ],
            ..Default::default()
        };
        let s = render(&r);
        assert!(s.contains("writer sweep"), "{s}");
        assert!(s.contains("-7.5 %"), "{s}");
        assert!(s.contains("291.000"), "{s}");
        assert!(s.contains("DBW7"), "{s}");
        assert!(s.contains("free buffer waits"), "{s}");
    }
}
