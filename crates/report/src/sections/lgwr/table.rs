//! Terminal rendering of the `dbio lgwr` section of a report.
//!
//! The layout answers the question of "Log File Sync wait event and SSD
//! disks" (20.8 ms of 'log file sync' against 0.1 ms of 'log file parallel
//! write': disk or scheduling?) on one screen: the session's wait ('log
//! file sync') next to the writer's ('log file parallel write'), then the
//! commit split into its parts side by side, then group commit and
//! wastage, the process and disk counters, that article's per-thread
//! lines, and the histograms on Oracle's power-of-two buckets. Several
//! configurations (`--compare`) get one table with a column each and
//! ratios against the first, the way "Analyzing Oracle Logwriter w/
//! buffered vs. direct I/O" puts forcedirectio next to noforcedirectio.

use crate::kit::histogram;
use crate::kit::text::{lat_cells, new_table, right_align};
use comfy_table::Cell;
use dbio_model::lgwr::{LgwrResult, Protocol};
use dbio_model::units::{format_bytes, format_count_rate, format_ns};
use dbio_model::{EngineKind, LatencySummary, Layout, Prepare, RunReport};
use std::fmt::Write;

/// Renders the lgwr section (empty when the report has none): each
/// configuration in full, or one summary table in a [`Layout::Summary`]
/// report.
pub fn render(r: &RunReport) -> String {
    if r.lgwr.is_empty() {
        return String::new();
    }
    let mut out = String::new();
    if r.layout == Layout::Summary {
        out.push_str("Commit path (log writer with group commit):\n");
        out.push_str(&summary(&r.lgwr));
        return out;
    }
    for x in &r.lgwr {
        out.push_str(&detail(x));
        out.push('\n');
    }
    if r.lgwr.len() > 1 {
        out.push_str(&compare(&r.lgwr));
    }
    out
}

/// The engine's name as the result wrote it (`null`, `psync`, `io_uring`).
pub(crate) fn engine_name(e: EngineKind) -> &'static str {
    match e {
        EngineKind::Null => "null",
        EngineKind::Psync => "psync",
        EngineKind::IoUring => "io_uring",
        EngineKind::Libaio => "libaio",
    }
}

/// The preparation's name as the command line takes it.
fn prepare_name(p: Prepare) -> &'static str {
    match p {
        Prepare::Prewrite => "prewrite",
        Prepare::Fallocate => "fallocate",
        Prepare::Sparse => "sparse",
        Prepare::Append => "append",
    }
}

/// One line describing a configuration.
pub fn describe(x: &LgwrResult) -> String {
    let c = &x.config;
    let mut s = format!(
        "{} session{}, redo {}, {} B blocks, max write {}, {} ({})",
        c.sessions,
        if c.sessions == 1 { "" } else { "s" },
        c.redo_size,
        c.bs,
        format_bytes(c.max_write_bytes),
        c.method,
        engine_name(c.engine())
    );
    if let Some(delay) = c.null_delay_ns {
        let _ = write!(s, ", injected service time {}", format_ns(delay as f64));
    } else {
        let _ = write!(
            s,
            ", {} x {} log files ({}), {} member{}",
            c.files,
            format_bytes(c.file_size),
            prepare_name(c.prepare),
            c.members,
            if c.members == 1 { "" } else { "s" }
        );
    }
    if c.async_depth > 1 {
        let _ = write!(s, ", {} writes in flight", c.async_depth);
    }
    if c.protocol == Protocol::Leader {
        s.push_str(", leader protocol (the first waiting session flushes)");
    }
    if c.txn_cpu_ns > 0 {
        let _ = write!(
            s,
            ", {} of CPU per transaction",
            format_ns(c.txn_cpu_ns as f64)
        );
    }
    if c.cpu_includes_commit_path {
        s.push_str(" less the sessions' own commit-path CPU per commit");
    }
    if c.syncs_per_flush > 1 {
        let _ = write!(
            s,
            ", {} durable writes per commit{}",
            c.syncs_per_flush,
            if c.pipeline && c.stage_append {
                " as pipelined group commits, the later ones appended through the page cache"
            } else if c.pipeline {
                " as pipelined group commits"
            } else {
                " in each flush"
            }
        );
    }
    if c.think_time_ns > 0 {
        let _ = write!(s, ", think time {}", format_ns(c.think_time_ns as f64));
    }
    if c.commit_delay_ns > 0 {
        let _ = write!(
            s,
            ", commit_delay {} with commit_siblings {}",
            format_ns(c.commit_delay_ns as f64),
            c.commit_siblings
        );
    }
    if let Some(cpu) = c.writer_cpu {
        let _ = write!(s, ", writer on CPU {cpu}");
    }
    if !c.session_cpus.is_empty() {
        let list: Vec<String> = c.session_cpus.iter().map(u32::to_string).collect();
        let _ = write!(s, ", sessions on CPU {}", list.join(","));
    }
    if let Some(n) = c.writer_nice {
        let _ = write!(s, ", writer nice {n}");
    }
    if let Some(p) = c.writer_fifo {
        let _ = write!(s, ", writer SCHED_FIFO {p}");
    }
    if c.post_spin_ns > 0 {
        let _ = write!(s, ", post spin {}", format_ns(c.post_spin_ns as f64));
    }
    s
}

fn event_row(name: &str, l: &LatencySummary, secs: f64) -> Vec<Cell> {
    let mut row = vec![
        Cell::new(name),
        Cell::new(l.count),
        Cell::new(format!("{}/s", format_count_rate(l.count as f64 / secs))),
    ];
    row.extend(lat_cells(l));
    row
}

fn pct(part: f64, whole: f64) -> String {
    if whole > 0.0 {
        format!("{:.1} %", 100.0 * part / whole)
    } else {
        "-".into()
    }
}

/// The detail block of one configuration: what ran, the wait events,
/// where a commit's time went, the writer's and sessions' work, the I/O
/// evidence, then the per-session lines and histograms.
pub fn detail(x: &LgwrResult) -> String {
    let mut s = String::new();
    heading(&mut s, x);
    wait_events(&mut s, x);
    breakdown(&mut s, x);
    group_commit_and_cpu(&mut s, x);
    pipeline_stages(&mut s, x);
    io_evidence(&mut s, x);
    sessions_and_histograms(&mut s, x);
    s.push_str(&crate::kit::series::summary(&x.name, &x.per_second));
    s
}

/// The later stages of a pipelined commit, one line each; and the
/// leaders' flush CPU per commit.
fn pipeline_stages(s: &mut String, x: &LgwrResult) {
    for (i, st) in x.stages.iter().enumerate() {
        let _ = writeln!(
            s,
            "stage {} (a group commit of its own): {} writes, {:.2} commits per write, write + sync mean {} p99 {}",
            i + 2,
            st.writes,
            st.commits_per_write,
            format_ns(st.write_sync.mean_ns),
            format_ns(st.write_sync.p99_ns() as f64)
        );
    }
    if let Some(f) = x.writer.flush_cpu_per_commit_ns {
        let _ = writeln!(s, "leaders' CPU in flushes: {} per commit", format_ns(f));
    }
    if let Some(p) = x.writer.session_path_cpu_per_commit_ns {
        let _ = write!(
            s,
            "the sessions' own commit-path CPU (round trip, queue, wake-ups, flushes): {} per commit, taken off --txn-cpu",
            format_ns(p)
        );
        if let Some(c) = x.writer.client_path_cpu_per_commit_ns {
            let _ = write!(
                s,
                "; the client threads' own: {} per round trip, taken off --client-cpu",
                format_ns(c)
            );
        }
        s.push('\n');
    }
}

/// Whether a leading session, not a writer thread, flushed.
fn led(x: &LgwrResult) -> bool {
    x.config.protocol == Protocol::Leader
}

fn heading(s: &mut String, x: &LgwrResult) {
    let _ = writeln!(
        s,
        "[{}] {} | measured {}{}",
        x.name,
        describe(x),
        format_ns(x.runtime_ns as f64),
        if x.rounds > 1 {
            format!(" over {} rounds", x.rounds)
        } else {
            String::new()
        }
    );
    let _ = writeln!(
        s,
        "{} commits, {} TPS; {} log writes, {} per second",
        x.commits,
        format_count_rate(x.tps),
        x.writer.writes,
        format_count_rate(x.writer.writes_per_sec)
    );
}

fn wait_events(s: &mut String, x: &LgwrResult) {
    let secs = x.runtime_ns.max(1) as f64 / 1e9;
    let mut t = new_table(&[
        "wait event",
        "waits",
        "rate",
        "mean",
        "p50",
        "p90",
        "p99",
        "p99.9",
        "max",
    ]);
    t.add_row(event_row(
        "log file sync (sessions)",
        &x.log_file_sync,
        secs,
    ));
    t.add_row(event_row(
        if led(x) {
            "log file parallel write (leaders)"
        } else {
            "log file parallel write (writer)"
        },
        &x.writer.log_file_parallel_write,
        secs,
    ));
    if x.log_buffer_space.count > 0 {
        t.add_row(event_row("log buffer space", &x.log_buffer_space, secs));
    }
    right_align(&mut t);
    let _ = writeln!(s, "{t}");
}

/// The parts of 'log file sync' (they add up to its mean).
fn breakdown(s: &mut String, x: &LgwrResult) {
    let b = &x.breakdown;
    let total = x.log_file_sync.mean_ns;
    let mut t = new_table(&["where a commit's time went", "mean", "share", "p50", "p99"]);
    let sum =
        b.wait_for_writer.mean_ns + b.writer_io.mean_ns + b.posting.mean_ns + b.wake_up.mean_ns;
    let names = if led(x) && !x.stages.is_empty() {
        // The later stages of a pipelined commit come after the first
        // stage's post, so their queueing and I/O are in the last part.
        [
            "queued for the flush lock until a leader took the redo",
            "leader's I/O: copy, write, sync (first stage)",
            "leader posting the sessions ahead",
            "post until the session runs: the later stages, scheduling",
        ]
    } else if led(x) {
        [
            "queued for the flush lock until a leader took the redo",
            "leader's I/O: copy, write, sync",
            "leader posting the sessions ahead",
            "post until the session runs (scheduling)",
        ]
    } else {
        [
            "waiting for the writer to take the redo",
            "writer I/O: copy, write, sync",
            "writer posting sessions ahead",
            "post until the session runs (scheduling)",
        ]
    };
    for (name, l) in
        names
            .into_iter()
            .zip([&b.wait_for_writer, &b.writer_io, &b.posting, &b.wake_up])
    {
        t.add_row(vec![
            Cell::new(name),
            Cell::new(format_ns(l.mean_ns)),
            Cell::new(pct(l.mean_ns, total)),
            Cell::new(format_ns(l.p50_ns() as f64)),
            Cell::new(format_ns(l.p99_ns() as f64)),
        ]);
    }
    t.add_row(vec![
        Cell::new("sum of the parts / measured 'log file sync'"),
        Cell::new(format!("{} / {}", format_ns(sum), format_ns(total))),
        Cell::new(pct(sum, total)),
        Cell::new(""),
        Cell::new(""),
    ]);
    right_align(&mut t);
    let _ = writeln!(s, "{t}");
}

fn group_commit_and_cpu(s: &mut String, x: &LgwrResult) {
    let w = &x.writer;
    let per_commit = |v: u64| v.checked_div(x.commits).map_or("-".into(), format_bytes);
    let _ = writeln!(
        s,
        "group commit: {:.2} commits per write (max {}); redo size {} ({} per commit), redo wastage {} ({} of the {} written), mean write {}; {} log switch{}",
        w.commits_per_write,
        w.max_commits_per_write,
        format_bytes(w.redo_bytes),
        per_commit(w.redo_bytes),
        format_bytes(w.wastage_bytes),
        pct(w.wastage_bytes as f64, w.written_bytes as f64),
        format_bytes(w.written_bytes),
        format_bytes(w.written_bytes / w.writes.max(1)),
        w.log_switches,
        if w.log_switches == 1 { "" } else { "es" }
    );
    if w.commit_delays > 0 {
        let _ = writeln!(
            s,
            "commit_delay: the writer slept {} times",
            w.commit_delays
        );
    }
    let cpu = |c: &dbio_model::CpuUsage| {
        format!(
            "user {}, system {} ({:.0} % of one CPU), {} voluntary / {} involuntary context switches",
            format_ns(c.user_ns as f64),
            format_ns(c.system_ns as f64),
            c.utilisation * 100.0,
            c.voluntary_cs,
            c.involuntary_cs
        )
    };
    if led(x) {
        let _ = writeln!(
            s,
            "no log writer: each flush ran in the session that led it, so its CPU is in the sessions' below"
        );
    } else {
        let _ = writeln!(
            s,
            "writer CPU: {} per write; {}; of which watching an empty log buffer before sleeping {}",
            format_ns(w.cpu.per_io_ns),
            cpu(&w.cpu),
            format_ns(w.idle_watch_ns as f64)
        );
    }
    let _ = writeln!(
        s,
        "session CPU: {} per commit; {}",
        format_ns(x.session_cpu.per_io_ns),
        cpu(&x.session_cpu)
    );
}

/// What the process and the disk did during the run (real I/O only).
fn io_evidence(s: &mut String, x: &LgwrResult) {
    if x.config.real_io() {
        let io = &x.io;
        let _ = write!(
            s,
            "storage reads during the run: {} (/proc/self/io read_bytes), writes {}",
            format_bytes(io.proc_read_bytes),
            format_bytes(io.proc_write_bytes)
        );
        if let Some(d) = &io.device {
            let f = |v: Option<f64>| v.map_or("-".into(), |v| format!("{v:.2}"));
            let _ = write!(
                s,
                "; device {} (whole disk, all processes): {} reads ({}, {} per commit), {} writes ({} per commit), {} flushes ({} per commit)",
                d.device,
                d.reads,
                format_bytes(d.read_sectors * 512),
                f(io.device_reads_per_commit),
                d.writes,
                f(io.device_writes_per_commit),
                d.flushes.map_or("-".into(), |v| v.to_string()),
                f(io.device_flushes_per_commit)
            );
        }
        s.push('\n');
    }
}

fn sessions_and_histograms(s: &mut String, x: &LgwrResult) {
    let w = &x.writer;
    if let Some(v) = &x.verify {
        let _ = writeln!(
            s,
            "read-back: {} committed records intact, {} overwritten by log reuse, {} bad{}",
            v.checked,
            v.overwritten,
            v.bad,
            v.first_bad
                .as_ref()
                .map_or(String::new(), |b| format!(" (first: {b})"))
        );
    }
    if x.sessions.len() <= 16 {
        for l in &x.sessions {
            let _ = writeln!(
                s,
                "  session {:>3}: {:>8} commits - MIN commit time {:>9} - MAX commit time {:>9} - session TPS {:.2}",
                l.id,
                l.commits,
                format_ns(l.min_ns as f64),
                format_ns(l.max_ns as f64),
                l.tps
            );
        }
    }
    for (name, l) in [
        ("log file sync", &x.log_file_sync),
        ("log file parallel write", &w.log_file_parallel_write),
    ] {
        if l.count > 0 {
            let _ = writeln!(s, "{name} histogram (power-of-two µs buckets):");
            s.push_str(&histogram::render(&l.log2_us));
        }
    }
    if !w.write_sizes.is_empty() {
        let _ = writeln!(s, "redo write size histogram:");
        for b in &w.write_sizes {
            let _ = writeln!(
                s,
                "  {:>9} .. {:<9} {:>10} {:>6.2}%",
                format_bytes(b.from_bytes),
                format_bytes(b.below_bytes),
                b.count,
                100.0 * b.count as f64 / w.writes.max(1) as f64
            );
        }
    }
}

/// One row per configuration (the `dbio check` view).
pub fn summary(xs: &[LgwrResult]) -> String {
    let mut t = new_table(&[
        "configuration",
        "TPS",
        "log file sync p50",
        "p99",
        "log file parallel write p50",
        "commits/write",
        "scheduling share",
    ]);
    for x in xs {
        t.add_row(vec![
            Cell::new(&x.name),
            Cell::new(format_count_rate(x.tps)),
            Cell::new(format_ns(x.log_file_sync.p50_ns() as f64)),
            Cell::new(format_ns(x.log_file_sync.p99_ns() as f64)),
            Cell::new(format_ns(x.writer.log_file_parallel_write.p50_ns() as f64)),
            Cell::new(format!("{:.2}", x.writer.commits_per_write)),
            Cell::new(pct(x.breakdown.wake_up.mean_ns, x.log_file_sync.mean_ns)),
        ]);
    }
    right_align(&mut t);
    format!("{t}\n")
}

/// The metrics the comparison table shows: name, value, formatter.
type Metric = (&'static str, fn(&LgwrResult) -> f64, fn(f64) -> String);

fn metrics() -> Vec<Metric> {
    let ns: fn(f64) -> String = format_ns;
    let rate: fn(f64) -> String = format_count_rate;
    let two: fn(f64) -> String = |v| format!("{v:.2}");
    let bytes: fn(f64) -> String = |v| format_bytes(v as u64);
    vec![
        ("TPS", |x| x.tps, rate),
        ("log file sync mean", |x| x.log_file_sync.mean_ns, ns),
        ("log file sync p50", |x| x.log_file_sync.p50_ns() as f64, ns),
        ("log file sync p99", |x| x.log_file_sync.p99_ns() as f64, ns),
        (
            "log file parallel write mean",
            |x| x.writer.log_file_parallel_write.mean_ns,
            ns,
        ),
        (
            "log file parallel write p50",
            |x| x.writer.log_file_parallel_write.p50_ns() as f64,
            ns,
        ),
        ("writes/s", |x| x.writer.writes_per_sec, rate),
        ("commits per write", |x| x.writer.commits_per_write, two),
        (
            "mean write size",
            |x| (x.writer.written_bytes / x.writer.writes.max(1)) as f64,
            bytes,
        ),
        (
            "redo wastage per commit",
            |x| x.writer.wastage_bytes as f64 / x.commits.max(1) as f64,
            bytes,
        ),
        (
            "waiting for the writer",
            |x| x.breakdown.wait_for_writer.mean_ns,
            ns,
        ),
        ("writer I/O", |x| x.breakdown.writer_io.mean_ns, ns),
        ("post until running", |x| x.breakdown.wake_up.mean_ns, ns),
        (
            "storage reads per commit",
            |x| x.io.proc_read_bytes as f64 / x.commits.max(1) as f64,
            bytes,
        ),
        (
            "device writes per commit",
            |x| x.io.device_writes_per_commit.unwrap_or(f64::NAN),
            two,
        ),
        (
            "device flushes per commit",
            |x| x.io.device_flushes_per_commit.unwrap_or(f64::NAN),
            two,
        ),
        ("writer CPU per write", |x| x.writer.cpu.per_io_ns, ns),
    ]
}

/// Configurations side by side, each with its ratio to the first.
pub fn compare(xs: &[LgwrResult]) -> String {
    let mut header: Vec<String> = vec!["metric".into()];
    for (i, x) in xs.iter().enumerate() {
        header.push(x.name.clone());
        if i > 0 {
            header.push(format!("{} / {}", x.name, xs[0].name));
        }
    }
    let refs: Vec<&str> = header.iter().map(String::as_str).collect();
    let mut t = new_table(&refs);
    for (name, get, fmt) in metrics() {
        let base = get(&xs[0]);
        let mut row = vec![Cell::new(name)];
        for (i, x) in xs.iter().enumerate() {
            let v = get(x);
            row.push(Cell::new(if v.is_nan() { "-".into() } else { fmt(v) }));
            if i > 0 {
                row.push(Cell::new(if base > 0.0 && v.is_finite() {
                    format!("{:.2}x", v / base)
                } else {
                    "-".into()
                }));
            }
        }
        t.add_row(row);
    }
    right_align(&mut t);
    let mut s = String::from("Side by side (rounds interleaved; medians of round TPS below):\n");
    let _ = writeln!(s, "{t}");
    for x in xs {
        let mut v = x.round_tps.clone();
        v.sort_by(|a, b| a.total_cmp(b));
        let median = v.get(v.len() / 2).copied().unwrap_or(0.0);
        let _ = writeln!(
            s,
            "  {}: round TPS {} (median {})",
            x.name,
            x.round_tps
                .iter()
                .map(|t| format_count_rate(*t))
                .collect::<Vec<_>>()
                .join(" / "),
            format_count_rate(median)
        );
    }
    s
}
