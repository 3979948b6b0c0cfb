//! Terminal rendering of `dbio load`: commit load on a real engine.
//!
//! The layout follows the test program of "Log File Sync wait event and
//! SSD disks" (one line per session: commits, TPS, shortest and longest
//! commit) and then answers its question with the engine's own counters:
//! the client's commit latency ('log file sync' as the client sees it)
//! next to the engine's flush latency ('log file parallel write'), the
//! commits each flush covered, how busy the flush path was, and the two
//! consistency checks. `dbio check` gets one summary table instead.

use crate::kit::histogram;
use crate::kit::text::{new_table, right_align};
use comfy_table::Cell;
use dbio_model::load::LoadResult;
use dbio_model::units::{format_bytes, format_count_rate, format_ns};
use dbio_model::RunReport;
use std::fmt::Write;

/// Renders the load section (empty when the report has none).
pub fn render(r: &RunReport) -> String {
    if r.load.is_empty() {
        return String::new();
    }
    if r.command == "check" {
        return format!(
            "A real database engine (SQLite, embedded, WAL mode, synchronous=FULL):\n{}",
            summary(&r.load)
        );
    }
    if let Some(c) = &r.load_compare {
        return format!(
            "{}\n{}{}",
            r.load.first().map(describe).unwrap_or_default(),
            summary(&r.load),
            crate::sections::load::compare_table::render(c)
        );
    }
    let mut out = String::new();
    for x in &r.load {
        out.push_str(&detail(x));
        out.push('\n');
    }
    out
}

/// One line describing a run.
pub fn describe(x: &LoadResult) -> String {
    let c = &x.config;
    let mut s = format!(
        "{} {} at {} | {} session{}, {}, {} row{} of {} per commit",
        c.engine,
        x.server.version,
        c.target,
        c.sessions,
        if c.sessions == 1 { "" } else { "s" },
        c.mode.name(),
        c.rows_per_commit,
        if c.rows_per_commit == 1 { "" } else { "s" },
        format_bytes(u64::from(c.row_bytes))
    );
    if let Some(n) = c.commits_per_session {
        let _ = write!(s, ", {n} commits per session");
    }
    if c.think_time_ns > 0 {
        let _ = write!(s, ", think time {}", format_ns(c.think_time_ns as f64));
    }
    if c.warmup_ns > 0 {
        let _ = write!(s, ", warm-up {}", format_ns(c.warmup_ns as f64));
    }
    s
}

fn ms(ns: f64) -> String {
    format!("{:.3}", ns / 1e6)
}

fn opt(v: Option<f64>, f: impl Fn(f64) -> String) -> String {
    v.map_or_else(|| "-".to_string(), f)
}

/// One line per session (seed 003's per-thread lines) and the overall rate.
fn sessions(s: &mut String, x: &LoadResult) {
    let mut t = new_table(&[
        "session", "commits", "TPS", "min ms", "p50 ms", "p99 ms", "max ms",
    ]);
    for l in &x.sessions {
        t.add_row(vec![
            Cell::new(l.id),
            Cell::new(l.commits),
            Cell::new(format!("{:.0}", l.tps)),
            Cell::new(ms(l.min_ns as f64)),
            Cell::new(ms(l.p50_ns as f64)),
            Cell::new(ms(l.p99_ns as f64)),
            Cell::new(ms(l.max_ns as f64)),
        ]);
    }
    right_align(&mut t);
    let _ = writeln!(s, "{t}");
    let _ = writeln!(
        s,
        "overall: {} commits ({} rows) in {}: {} commits per second{}",
        x.commits,
        x.rows,
        format_ns(x.runtime_ns as f64),
        format_count_rate(x.tps),
        if x.warmup_commits > 0 {
            format!("; {} warm-up commits not counted", x.warmup_commits)
        } else {
            String::new()
        }
    );
}

/// The client's CPU per commit, and the server backends' where it was read.
fn cpu(s: &mut String, x: &LoadResult) {
    let cpu = &x.cpu;
    if cpu.user_ns + cpu.system_ns > 0 {
        let _ = writeln!(
            s,
            "{} CPU: {} per commit (user {}, system {}), {:.0} % of one CPU",
            if x.config.engine == "sqlite" {
                "session threads' (SQLite's included)"
            } else {
                "client"
            },
            format_ns(cpu.per_io_ns),
            format_ns(cpu.user_ns as f64),
            format_ns(cpu.system_ns as f64),
            100.0 * cpu.utilisation
        );
    }
    if let Some(c) = &x.server_cpu {
        let _ = writeln!(
            s,
            "server backends' CPU: {} per commit (user {}, system {}), {:.0} % of one CPU",
            format_ns(c.per_io_ns),
            format_ns(c.user_ns as f64),
            format_ns(c.system_ns as f64),
            100.0 * c.utilisation
        );
    }
}

/// Commit (and transaction) latency percentiles and the commit histogram.
fn latency(s: &mut String, x: &LoadResult) {
    let mut t = new_table(&[
        "latency", "count", "mean", "p50", "p90", "p99", "p99.9", "max",
    ]);
    let mut row = |name: &str, l: &dbio_model::LatencySummary| {
        let mut v = vec![Cell::new(name), Cell::new(l.count)];
        v.extend(crate::kit::text::lat_cells(l));
        t.add_row(v);
    };
    row("commit (client: 'log file sync')", &x.commit);
    if let Some(tx) = &x.transaction {
        row("transaction (BEGIN .. COMMIT)", tx);
    }
    right_align(&mut t);
    let _ = writeln!(s, "{t}");
    let h = histogram::render(&x.commit.log2_us);
    if !h.is_empty() {
        let _ = writeln!(
            s,
            "commit latency histogram (power-of-two µs buckets):\n{h}"
        );
    }
}

/// The engine's side of the flush path and the consistency check.
fn flush_path(s: &mut String, x: &LoadResult) {
    let f = &x.flush;
    let d = &x.derived;
    let _ = writeln!(s, "flush path (the engine's side, over the measured run):");
    let mut t = new_table(&["figure", "value"]);
    let rows: Vec<(&str, String)> = vec![
        (
            "log flushes",
            opt(f.flushes.map(|v| v as f64), |v| format!("{v:.0}")),
        ),
        (
            "time in flushes",
            opt(f.flush_time_ns.map(|v| v as f64), format_ns),
        ),
        (
            "log bytes",
            opt(f.bytes.map(|v| v as f64), |v| format_bytes(v as u64)),
        ),
        (
            "commits per flush",
            opt(d.commits_per_flush, |v| format!("{v:.2}")),
        ),
        (
            "flush latency ('log file parallel write')",
            opt(d.flush_latency_ns, format_ns),
        ),
        (
            "flush path busy",
            opt(d.flush_utilisation, |v| format!("{:.1} %", 100.0 * v)),
        ),
        (
            "commit / flush latency ('log file sync' / 'log file parallel write')",
            opt(d.sync_to_flush_ratio, |v| format!("{v:.2}x")),
        ),
    ];
    for (k, v) in rows {
        t.add_row(vec![Cell::new(k), Cell::new(v)]);
    }
    if let Some(c) = f.server_commits {
        t.add_row(vec![Cell::new("commits the engine counted"), Cell::new(c)]);
    }
    for e in &f.extra {
        let v = match e.unit.as_str() {
            "ns" => format_ns(e.value),
            "bytes" => format_bytes(e.value.max(0.0) as u64),
            "count" => format!("{:.0}", e.value),
            // PostgreSQL's timers are float milliseconds (µs resolution),
            // performance_schema's picoseconds.
            "ms" => format_ns(e.value * 1e6),
            "ps" => format_ns(e.value / 1e3),
            u => format!("{} {u}", e.value),
        };
        t.add_row(vec![Cell::new(&e.name), Cell::new(v)]);
    }
    right_align(&mut t);
    let _ = writeln!(s, "{t}");
    let _ = writeln!(
        s,
        "consistency: measured {} TPS; sessions / mean transaction time gives {}; commits per flush x flushes per second gives {}",
        format_count_rate(x.tps),
        format_count_rate(d.tps_from_latency),
        opt(d.tps_from_flushes, format_count_rate)
    );
}

/// What the sampled backends were doing.
fn waits(s: &mut String, x: &LoadResult) {
    if !x.waits.is_empty() {
        let mut t = new_table(&["backend", "state", "samples", "share"]);
        for w in &x.waits {
            t.add_row(vec![
                Cell::new(&w.backend),
                Cell::new(&w.state),
                Cell::new(w.samples),
                Cell::new(format!("{:.1} %", w.share_pct)),
            ]);
        }
        right_align(&mut t);
        let _ = writeln!(
            s,
            "what the backends were doing (sampled every 25 ms):\n{t}"
        );
    }
}

/// The detail block of one run.
pub fn detail(x: &LoadResult) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "[{}] {}", x.name, describe(x));
    if !x.server.settings.is_empty() {
        let set: Vec<String> = x
            .server
            .settings
            .iter()
            .map(|v| format!("{}={}", v.name, v.value))
            .collect();
        let _ = writeln!(s, "settings: {}", set.join(", "));
    }
    let _ = writeln!(s, "table {}", x.table);

    for part in [sessions, cpu, latency, flush_path, waits] {
        part(&mut s, x);
    }
    if let Some(b) = &x.baseline {
        s.push_str(&crate::sections::load::compare_table::baseline(
            b,
            Some(x.commit.p50_ns()),
        ));
    }
    for m in &x.server.missing {
        let _ = writeln!(s, "not measured: {m}");
    }
    if x.series.len() > 1 {
        let v: Vec<String> = x.series.iter().map(|p| format!("{:.0}", p.tps)).collect();
        let _ = writeln!(s, "commits per second, each second: {}", v.join(" "));
    }
    s.push_str(&crate::kit::series::summary(&x.name, &x.per_second));
    s.push_str(&crate::sections::load::predict_table::render(x));
    s
}

/// One row per run (`dbio check`).
pub fn summary(xs: &[LoadResult]) -> String {
    let mut t = new_table(&[
        "run",
        "commits/s",
        "p50 commit",
        "p99 commit",
        "commits per WAL sync",
        "WAL sync",
    ]);
    for x in xs {
        t.add_row(vec![
            Cell::new(&x.name),
            Cell::new(format_count_rate(x.tps)),
            Cell::new(format_ns(x.commit.p50_ns() as f64)),
            Cell::new(format_ns(x.commit.p99_ns() as f64)),
            Cell::new(opt(x.derived.commits_per_flush, |v| format!("{v:.2}"))),
            Cell::new(opt(x.derived.flush_latency_ns, format_ns)),
        ]);
    }
    right_align(&mut t);
    format!("{t}\n")
}

#[cfg(test)]
mod tests {
    use super::*;
    use dbio_model::load::{LoadConfig, LoadSession};

    #[test]
    fn sessions_overall_and_flush_path_are_shown() {
        let mut x = LoadResult {
            name: "load".into(),
            config: LoadConfig {
                target: "sqlite:./dbio-load-1-0.sqlite".into(),
                sessions: 2,
                ..LoadConfig::default()
            },
            commits: 200,
            rows: 200,
            tps: 1000.0,
            runtime_ns: 200_000_000,
            sessions: vec![
                LoadSession {
                    id: 1,
                    commits: 100,
                    tps: 500.0,
                    min_ns: 1_000_000,
                    p50_ns: 2_000_000,
                    p99_ns: 3_000_000,
                    max_ns: 4_000_000,
                    mean_ns: 2_000_000.0,
                },
                LoadSession {
                    id: 2,
                    commits: 100,
                    ..Default::default()
                },
            ],
            ..Default::default()
        };
        x.flush.flushes = Some(200);
        x.derived.commits_per_flush = Some(1.0);
        for (name, value, unit) in [
            ("pg_stat_wal.wal_write_time", 107.383_000_000_000_04, "ms"),
            (
                "events_waits.wait/io/file/innodb/innodb_log_file",
                2.5e9,
                "ps",
            ),
        ] {
            x.flush.extra.push(dbio_model::load::LoadCounter {
                name: name.into(),
                value,
                unit: unit.into(),
            });
        }
        let r = RunReport {
            command: "load".into(),
            load: vec![x],
            ..Default::default()
        };
        let s = render(&r);
        assert!(s.contains("2 sessions, autocommit"), "{s}");
        assert!(s.contains("4.000"), "max ms of session 1: {s}");
        assert!(s.contains("commits per flush"), "{s}");
        assert!(s.contains("1.00"), "{s}");
        // The engines' timers in time units, not raw floats.
        assert!(s.contains("107 ms") && !s.contains("107.383"), "{s}");
        assert!(s.contains("2.50 ms"), "{s}");
        let check = render(&RunReport {
            command: "check".into(),
            ..r
        });
        assert!(check.starts_with("A real database engine"), "{check}");
    }
}
