//! Raw jobs in the terminal (`dbio bench`, `check`'s jobs): a table per
//! job with throughput, CPU, percentiles and a latency histogram, and a
//! summary table when a run has several jobs.

use crate::kit::histogram;
use crate::kit::text::{lat_cells, new_table, right_align};
use comfy_table::Cell;
use dbio_model::units::{format_bytes, format_count_rate, format_ns, format_rate};
use dbio_model::{Durability, EngineKind, JobResult, LatencySummary, OpStats, Pattern, Prepare};
use std::fmt::Write;

/// One line that says what a job did, in fio's vocabulary.
pub fn describe(r: &JobResult) -> String {
    let j = &r.job;
    let engine = match j.engine {
        EngineKind::Psync => "psync",
        EngineKind::IoUring => "io_uring",
        EngineKind::Libaio => "libaio",
        EngineKind::Null => "null",
    };
    let rw = match j.rw {
        Pattern::Read => "read".to_string(),
        Pattern::Write => "write".to_string(),
        Pattern::Randread => "randread".to_string(),
        Pattern::Randwrite => "randwrite".to_string(),
        Pattern::Readwrite => format!("readwrite {}% reads", j.read_pct),
        Pattern::Randrw => format!("randrw {}% reads", j.read_pct),
    };
    let sync = match j.sync {
        Durability::None => "no sync",
        Durability::Dsync => "O_DSYNC",
        Durability::Sync => "O_SYNC",
        Durability::Fdatasync => "fdatasync",
        Durability::Fsync => "fsync",
    };
    let prepare = match j.prepare {
        Prepare::Prewrite => "pre-written",
        Prepare::Fallocate => "fallocated",
        Prepare::Sparse => "sparse",
        Prepare::Append => "appended",
    };
    let mut s = format!(
        "{rw}, bs {}, {engine}, iodepth {}, {} thread{}, {}, {sync}",
        format_bytes(j.bs),
        j.iodepth,
        j.threads,
        if j.threads == 1 { "" } else { "s" },
        if j.direct { "O_DIRECT" } else { "buffered" },
    );
    if j.engine == EngineKind::Null {
        if j.null_delay_ns > 0 {
            let _ = write!(
                s,
                ", injected service time {}",
                format_ns(j.null_delay_ns as f64)
            );
        }
    } else if r.block_device {
        // A device is not prepared: its blocks are whatever they held.
        let _ = write!(s, ", {} of a block device", format_bytes(j.size));
    } else {
        let _ = write!(s, ", {} {prepare} file", format_bytes(j.size));
    }
    if let Some(r) = j.rate_iops {
        let _ = write!(s, ", rate {r} IOPS");
    }
    s
}

/// The per-job detail block.
pub fn job_detail(j: &JobResult) -> String {
    let mut s = String::new();
    let e = &j.job;
    let _ = writeln!(
        s,
        "[{}] {} | measured {}",
        j.name,
        describe(j),
        format_ns(j.runtime_ns as f64)
    );
    let mut t = new_table(&[
        "latency",
        "ops",
        "rate",
        "throughput",
        "mean",
        "p50",
        "p90",
        "p99",
        "p99.9",
        "max",
    ]);
    let async_engine = e.engine == EngineKind::IoUring;
    let mut op_rows = |name: &str, o: &OpStats| {
        let mut rows: Vec<(String, &LatencySummary)> = Vec::new();
        if async_engine {
            rows.push((format!("{name} slat"), &o.slat));
            rows.push((format!("{name} clat"), &o.clat));
        }
        rows.push((format!("{name} lat"), &o.lat));
        for (label, l) in rows {
            let mut row = vec![
                Cell::new(label),
                Cell::new(o.ops),
                Cell::new(format!("{} IOPS", format_count_rate(o.iops))),
                Cell::new(format_rate(o.bytes_per_sec)),
            ];
            row.extend(lat_cells(l));
            t.add_row(row);
        }
    };
    if let Some(r) = &j.read {
        op_rows("read", r);
    }
    if let Some(w) = &j.write {
        op_rows("write", w);
    }
    let rate = |l: &LatencySummary| {
        format!(
            "{}/s",
            format_count_rate(l.count as f64 / (j.runtime_ns as f64 / 1e9))
        )
    };
    if let Some(sy) = &j.sync {
        let name = if e.sync == Durability::Fsync {
            "fsync"
        } else {
            "fdatasync"
        };
        let mut row = vec![
            Cell::new(name),
            Cell::new(sy.count),
            Cell::new(rate(sy)),
            Cell::new(""),
        ];
        row.extend(lat_cells(sy));
        t.add_row(row);
    }
    if let Some(c) = &j.commit {
        let mut row = vec![
            Cell::new("commit (write+sync)"),
            Cell::new(c.count),
            Cell::new(format!("{} commits", rate(c))),
            Cell::new(""),
        ];
        row.extend(lat_cells(c));
        t.add_row(row);
    }
    right_align(&mut t);
    let _ = writeln!(s, "{t}");
    let c = &j.cpu;
    let _ = writeln!(
        s,
        "CPU: user {}, system {} ({:.0} % of one CPU), {} per I/O, context switches {} voluntary / {} involuntary",
        format_ns(c.user_ns as f64),
        format_ns(c.system_ns as f64),
        c.utilisation * 100.0,
        format_ns(c.per_io_ns),
        c.voluntary_cs,
        c.involuntary_cs
    );
    if let Some(d) = &j.device {
        let _ = write!(
            s,
            "device {} (whole disk, all processes): {} reads ({}), {} writes ({}), merges {}/{}",
            d.device,
            d.reads,
            format_bytes(d.read_sectors * 512),
            d.writes,
            format_bytes(d.write_sectors * 512),
            d.read_merges,
            d.write_merges
        );
        if let Some(f) = d.flushes {
            let _ = write!(s, ", {f} flushes");
            if let Some(c) = &j.commit {
                if c.count > 0 {
                    let _ = write!(s, " ({:.2} per commit)", f as f64 / c.count as f64);
                }
            }
        }
        let _ = writeln!(s, ", busy {} ms, time in queue {} ms", d.io_ms, d.queue_ms);
    }
    if let Some(st) = &j.stripe {
        s.push_str(&crate::sections::jobs::fleet::stripe(st, j.runtime_ns));
    }
    if let (Some(b), Some(a)) = (&j.cached_before, &j.cached_after) {
        let _ = writeln!(
            s,
            "page cache: {:.0} % of the target resident before, {:.0} % after",
            b.fraction() * 100.0,
            a.fraction() * 100.0
        );
    }
    let hist = j
        .commit
        .as_ref()
        .map(|c| ("commit", c))
        .or_else(|| j.read.as_ref().map(|r| ("read lat", &r.lat)))
        .or_else(|| j.write.as_ref().map(|w| ("write lat", &w.lat)));
    if let Some((what, l)) = hist {
        let _ = writeln!(s, "{what} histogram (power-of-two µs buckets):");
        s.push_str(&histogram::render(&l.log2_us));
    }
    s
}

/// The headline latency of a job: commit when it has one, else reads, else writes.
pub fn headline(j: &JobResult) -> Option<(&'static str, &LatencySummary, f64)> {
    let secs = j.runtime_ns as f64 / 1e9;
    if let Some(c) = &j.commit {
        return Some(("commit", c, c.count as f64 / secs));
    }
    if let Some(r) = &j.read {
        return Some(("read", &r.lat, r.iops));
    }
    j.write.as_ref().map(|w| ("write", &w.lat, w.iops))
}

/// One row per job.
pub fn summary(jobs: &[JobResult]) -> String {
    let mut t = new_table(&[
        "job",
        "measures",
        "ops/s",
        "throughput",
        "p50",
        "p99",
        "p99.9",
        "max",
        "CPU/op",
    ]);
    for j in jobs {
        let secs = j.runtime_ns as f64 / 1e9;
        let mut row = vec![Cell::new(&j.name)];
        match headline(j) {
            Some((what, l, rate)) => {
                row.push(Cell::new(what));
                row.push(Cell::new(format_count_rate(rate)));
                row.push(Cell::new(format_rate(j.total_bytes() as f64 / secs)));
                for p in [50.0, 99.0, 99.9] {
                    row.push(Cell::new(crate::kit::text::ns_or_absent(
                        l.percentile_ns(p),
                    )));
                }
                row.push(Cell::new(format_ns(l.max_ns as f64)));
            }
            None => {
                row.push(Cell::new("nothing completed"));
                for _ in 0..6 {
                    row.push(Cell::new("-"));
                }
            }
        }
        row.push(Cell::new(format_ns(j.cpu.per_io_ns)));
        t.add_row(row);
    }
    right_align(&mut t);
    format!("{t}\n")
}
