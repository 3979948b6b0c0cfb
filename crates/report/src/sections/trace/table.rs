//! Terminal rendering of Oracle trace analysis (`dbio tracefile`): the
//! tables of one trace group, and a side-by-side comparison of two.
//!
//! Everything is derived from [`TraceReport`] / [`TraceComparison`] alone,
//! so a saved JSON result re-renders identically (`dbio report --from`).
//! The CSV comes from the same long-form machinery as every other result
//! (`crate::kit::csv`).

use crate::kit::histogram;
use comfy_table::{presets::UTF8_FULL_CONDENSED, CellAlignment, Table};
use dbio_model::trace::*;
use dbio_model::units::format_ns;
use dbio_model::Log2Buckets;
use std::fmt::Write;

/// Rows shown in the timeline table before it is cut short.
const TIMELINE_ROWS: usize = 60;

fn us(v: i64) -> String {
    if v == 0 {
        return "0".into();
    }
    if v < 0 {
        format!("-{}", format_ns((-v) as f64 * 1000.0))
    } else {
        format_ns(v as f64 * 1000.0)
    }
}

fn usf(v: f64) -> String {
    format_ns(v * 1000.0)
}

fn pct(part: f64, whole: f64) -> String {
    if whole == 0.0 {
        "-".into()
    } else {
        format!("{:.1}%", 100.0 * part / whole)
    }
}

fn table(header: &[&str]) -> Table {
    let mut t = Table::new();
    t.load_style(UTF8_FULL_CONDENSED);
    t.set_header(header.to_vec());
    t
}

fn right_from(t: &mut Table, first: usize) {
    let n = t.column_count();
    for i in first..n {
        if let Some(c) = t.column_mut(i) {
            c.set_cell_alignment(CellAlignment::Right);
        }
    }
}

fn section(out: &mut String, title: &str, body: &str) {
    let _ = writeln!(out, "\n{title}\n{body}");
}

/// Label of a power-of-two bucket as a range: `0`, `1-2us`, `512us-1.02ms`.
pub fn bucket_range(b: usize) -> String {
    if b == 0 {
        return "<1us".into();
    }
    let lo = 1u64 << (b - 1);
    let hi = 1u64 << b.min(63);
    format!(
        "{}..{}",
        format_ns(lo as f64 * 1000.0),
        format_ns(hi as f64 * 1000.0)
    )
}

/// Renders a whole report for a terminal.
pub fn render(r: &TraceReport) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "dbio tracefile {}", r.label);
    out.push_str(&crate::kit::text::opening(
        r.verdict.as_ref(),
        &r.findings,
        crate::kit::text::DETAIL_BELOW,
    ));
    out.push_str(&files(r));
    out.push_str(&profile(r));
    out.push_str(&events(r));
    out.push_str(&io_histograms(r));
    out.push_str(&size_histograms(r));
    out.push_str(&tiers(r));
    out.push_str(&statements(r));
    out.push_str(&objects(r));
    out.push_str(&slowest(r));
    if r.sessions.len() > 1 {
        out.push_str(&sessions(r));
    }
    out.push_str(&timeline(r));
    let rest = crate::kit::text::other_findings(r.verdict.as_ref(), &r.findings);
    if !rest.is_empty() {
        out.push('\n');
        out.push_str(&rest);
    }
    out
}

fn files(r: &TraceReport) -> String {
    let mut t = table(&[
        "file",
        "release",
        "units",
        "tim",
        "sessions",
        "lines",
        "calls",
        "waits",
        "skipped lines",
    ]);
    for f in &r.files {
        let skipped = if f.skipped_lines == 0 {
            "0".to_string()
        } else {
            let nums: Vec<String> = f
                .skipped_line_numbers
                .iter()
                .map(|n| n.to_string())
                .collect();
            let more = if f.skipped_lines as usize > nums.len() {
                ", ..."
            } else {
                ""
            };
            format!("{} (lines {}{more})", f.skipped_lines, nums.join(", "))
        };
        t.add_row(vec![
            f.path.clone(),
            f.release.clone().unwrap_or_else(|| "?".into()),
            format!(
                "{} ({})",
                if f.units == TraceUnits::Centiseconds {
                    "cs"
                } else {
                    "µs"
                },
                f.units_from
            ),
            f.tim_kind.clone(),
            f.sessions.to_string(),
            f.lines.to_string(),
            f.call_lines.to_string(),
            f.wait_lines.to_string(),
            skipped,
        ]);
    }
    right_from(&mut t, 4);
    let mut s = format!("\nFiles\n{t}\n");
    for f in &r.files {
        if f.truncated_lines > 0 {
            let _ = writeln!(
                s,
                "note: {}: {} {} longer than 1 MiB {} cut",
                f.path,
                f.truncated_lines,
                if f.truncated_lines == 1 {
                    "line"
                } else {
                    "lines"
                },
                if f.truncated_lines == 1 {
                    "was"
                } else {
                    "were"
                }
            );
        }
        // One note however many markers (a file can hold hundreds).
        let markers = f.continued_markers.max(f.continued_from.len() as u64);
        match f.continued_from.as_slice() {
            [] => {}
            [c] if markers <= 1 => {
                let _ = writeln!(
                    s,
                    "note: {} continues {c}: cursors parsed there show as 'cursor #N'",
                    f.path
                );
            }
            paths => {
                let shown: Vec<&str> = paths.iter().take(3).map(|p| p.as_str()).collect();
                let more = if paths.len() > 3 { ", ..." } else { "" };
                let _ = writeln!(
                    s,
                    "note: {} has {markers} TRACE CONTINUED markers ({} distinct {}: {}{more}): cursors parsed before them show as 'cursor #N'",
                    f.path,
                    paths.len(),
                    if paths.len() == 1 { "file" } else { "files" },
                    shown.join(", ")
                );
            }
        }
        for a in &f.anomalies {
            let _ = writeln!(
                s,
                "note: {}: {} absurd {} ({}; first at line {})",
                f.path,
                a.count,
                if a.count == 1 { "value" } else { "values" },
                a.kind,
                a.first_line
            );
        }
    }
    s
}

fn profile(r: &TraceReport) -> String {
    let p = &r.profile;
    let mut s = String::new();
    let _ = writeln!(
        s,
        "\nResponse-time profile: R = {} ({} busy, {} idle between calls); clock span {}",
        us(p.response_time_us),
        us(p.busy_time_us),
        us(p.idle_between_calls_us),
        us(p.clock_span_us)
    );
    let _ = writeln!(
        s,
        "top-level calls (dep {}): {} taking {}; waits inside calls {}, between calls {}; {} commits, {} rollbacks, {} errors",
        p.top_depth,
        p.top_calls,
        us(p.calls_elapsed_us),
        us(p.waits_in_calls_us),
        us(p.waits_between_calls_us + p.idle_between_calls_us),
        p.commits,
        p.rollbacks,
        p.errors
    );
    let _ = writeln!(
        s,
        "R two ways: from the calls (top-level calls + between-call waits) {}, unaccounted {}; from the trace clock (first start to last tim) {}, unaccounted {}; the profile below uses R from the calls",
        us(p.response_time_us),
        us(p.unaccounted_us),
        us(p.clock_response_time_us),
        us(p.clock_unaccounted_us)
    );
    for n in &p.notes {
        let _ = writeln!(s, "note: {n}");
    }
    let mut t = table(&["component", "kind", "count", "time", "share of R", "mean"]);
    for l in &p.lines {
        let kind = match l.kind {
            ProfileKind::Cpu => "cpu",
            ProfileKind::Wait => "wait",
            ProfileKind::Idle => "idle",
            ProfileKind::Unaccounted => "",
        };
        let mean = if l.count > 0 && l.kind != ProfileKind::Cpu {
            usf(l.total_us as f64 / l.count as f64)
        } else {
            String::new()
        };
        t.add_row(vec![
            l.name.clone(),
            kind.into(),
            if l.count > 0 {
                l.count.to_string()
            } else {
                String::new()
            },
            us(l.total_us),
            format!("{:.1}%", 100.0 * l.share),
            mean,
        ]);
    }
    t.add_row(vec![
        "response time R".to_string(),
        String::new(),
        String::new(),
        us(p.response_time_us),
        "100.0%".into(),
        String::new(),
    ]);
    right_from(&mut t, 2);
    let _ = writeln!(s, "{t}");
    s
}

fn events(r: &TraceReport) -> String {
    if r.events.is_empty() {
        return "\nWait events: none\n".into();
    }
    let mut t = table(&[
        "event", "class", "count", "total", "mean", "min", "p50", "p90", "p99", "max", "ela=0",
    ]);
    for e in &r.events {
        // Oracle's wait class: 'log file sync' is Commit, not I/O.
        let class = dbio_model::WaitClass::of(&e.name).label();
        t.add_row(vec![
            e.name.clone(),
            class.into(),
            e.count.to_string(),
            us(e.total_us),
            usf(e.mean_us),
            us(e.min_us),
            us(e.p50_us as i64),
            us(e.p90_us as i64),
            us(e.p99_us as i64),
            us(e.max_us),
            e.zero_count.to_string(),
        ]);
    }
    right_from(&mut t, 2);
    format!("\nWait events (percentiles within 1 %)\n{t}\n")
}

fn io_histograms(r: &TraceReport) -> String {
    let mut s = String::new();
    for h in &r.io_histograms {
        if h.buckets.total() == 0 {
            continue;
        }
        let _ = writeln!(
            s,
            "\nLatency histogram: {} ({} waits)",
            h.event,
            h.buckets.total()
        );
        s.push_str(&histogram::render(&h.buckets));
    }
    s
}

fn bucket_span(rows: &[&Log2Buckets]) -> Option<(usize, usize)> {
    let first = rows
        .iter()
        .filter_map(|b| b.counts.iter().position(|&c| c > 0))
        .min()?;
    let last = rows
        .iter()
        .filter_map(|b| b.counts.iter().rposition(|&c| c > 0))
        .max()?;
    Some((first, last))
}

fn size_histograms(r: &TraceReport) -> String {
    if r.size_histograms.is_empty() {
        return String::new();
    }
    let all: Vec<&Log2Buckets> = r.size_histograms.iter().map(|h| &h.buckets).collect();
    let Some((first, last)) = bucket_span(&all) else {
        return String::new();
    };
    let mut header = vec![
        "event".to_string(),
        "blocks".into(),
        "count".into(),
        "mean".into(),
    ];
    header.extend((first..=last).map(Log2Buckets::label));
    let mut t = Table::new();
    t.load_style(UTF8_FULL_CONDENSED);
    t.set_header(header);
    for h in &r.size_histograms {
        let n = h.buckets.total();
        let mut row = vec![
            h.event.clone(),
            h.blocks.to_string(),
            n.to_string(),
            if n > 0 {
                usf(h.total_us as f64 / n as f64)
            } else {
                "-".into()
            },
        ];
        row.extend(
            (first..=last).map(|i| h.buckets.counts.get(i).copied().unwrap_or(0).to_string()),
        );
        t.add_row(row);
    }
    right_from(&mut t, 1);
    format!(
        "\nMultiblock latency by I/O size in blocks (columns: upper bucket edge, power-of-two µs; {} KiB blocks)\n{t}\n",
        r.settings.bs / 1024
    )
}

fn tiers(r: &TraceReport) -> String {
    if r.tiers.is_empty() {
        return String::new();
    }
    let st = &r.settings;
    let mut t = table(&[
        "event",
        "page cache",
        "storage cache",
        "device",
        "page cache time",
        "storage time",
        "device time",
    ]);
    for row in &r.tiers {
        let n = (row.page_cache.count + row.storage_cache.count + row.device.count) as f64;
        let cell = |c: &TierCell| format!("{} ({})", c.count, pct(c.count as f64, n));
        t.add_row(vec![
            row.event.clone(),
            cell(&row.page_cache),
            cell(&row.storage_cache),
            cell(&row.device),
            us(row.page_cache.total_us),
            us(row.storage_cache.total_us),
            us(row.device.total_us),
        ]);
    }
    right_from(&mut t, 1);
    format!(
        "\nTier attribution by latency (page cache < {}, storage cache < {}, else device; thresholds: {})\n{t}\n",
        format_ns(st.page_cache_max_ns as f64),
        format_ns(st.storage_cache_max_ns as f64),
        st.thresholds_from
    )
}

fn statements(r: &TraceReport) -> String {
    if r.statements.is_empty() {
        return String::new();
    }
    let top = r.settings.top.max(1);
    let mut t = table(&[
        "statement",
        "dep",
        "parse",
        "exec",
        "fetch",
        "rows",
        "elapsed",
        "cpu",
        "waits",
        "top wait",
        "text",
    ]);
    for st in r.statements.iter().take(top) {
        let top_wait = st
            .waits
            .first()
            .map(|w| format!("{} {}", w.event, us(w.total_us)))
            .unwrap_or_default();
        let text: String = if st.text.is_empty() {
            "(SQL text not in trace)".into()
        } else {
            // A tab in SQL text is layout: a space in this one-line
            // preview (other control characters are escaped on output).
            st.text
                .chars()
                .take(60)
                .map(|c| if c == '\t' { ' ' } else { c })
                .collect()
        };
        t.add_row(vec![
            st.key.clone(),
            st.depth.to_string(),
            st.parses.to_string(),
            st.execs.to_string(),
            st.fetches.to_string(),
            st.rows.to_string(),
            us(st.elapsed_us),
            us(st.cpu_us),
            us(st.wait_us),
            top_wait,
            text,
        ]);
    }
    right_from(&mut t, 1);
    if let Some(c) = t.column_mut(9) {
        c.set_cell_alignment(CellAlignment::Left);
    }
    if let Some(c) = t.column_mut(10) {
        c.set_cell_alignment(CellAlignment::Left);
    }
    let more = r.statements.len().saturating_sub(top);
    let tail = if more > 0 {
        format!("({more} more in --json/--csv)\n")
    } else {
        String::new()
    };
    format!(
        "\nStatements by elapsed time (elapsed and cpu include recursive statements)\n{t}\n{tail}"
    )
}

fn objects(r: &TraceReport) -> String {
    let mut s = String::new();
    let top = r.settings.top.max(1);
    if !r.objects.is_empty() {
        let mut t = table(&["obj#", "waits", "time", "top event"]);
        for o in r.objects.iter().take(top) {
            let w = o
                .waits
                .first()
                .map(|w| format!("{} ({})", w.event, w.count))
                .unwrap_or_default();
            t.add_row(vec![
                o.obj.to_string(),
                o.count.to_string(),
                us(o.total_us),
                w,
            ]);
        }
        right_from(&mut t, 0);
        if let Some(c) = t.column_mut(3) {
            c.set_cell_alignment(CellAlignment::Left);
        }
        section(&mut s, "Objects by wait time", &t.to_string());
    }
    if !r.hot_files.is_empty() {
        let mut t = table(&["file#", "waits", "time", "blocks"]);
        for f in r.hot_files.iter().take(top) {
            t.add_row(vec![
                f.file.to_string(),
                f.count.to_string(),
                us(f.total_us),
                f.blocks.to_string(),
            ]);
        }
        right_from(&mut t, 0);
        section(
            &mut s,
            "Data files by wait time (block-addressed waits)",
            &t.to_string(),
        );
    }
    if !r.hot_blocks.is_empty() {
        let mut t = table(&["file#", "block#", "waits", "time"]);
        for b in &r.hot_blocks {
            t.add_row(vec![
                b.file.to_string(),
                b.block.to_string(),
                b.count.to_string(),
                us(b.total_us),
            ]);
        }
        right_from(&mut t, 0);
        let note = if r.hot_blocks_complete {
            ""
        } else {
            " (table capped: counts are lower bounds)"
        };
        section(
            &mut s,
            &format!("Blocks waited for more than once{note}"),
            &t.to_string(),
        );
    }
    s
}

fn slowest(r: &TraceReport) -> String {
    if r.slowest_waits.is_empty() {
        return String::new();
    }
    let mut t = table(&[
        "ela",
        "event",
        "file:line",
        "session",
        "cursor",
        "statement",
        "p1",
        "p2",
        "p3",
        "obj#",
    ]);
    let o = |v: Option<i64>| v.map(|x| x.to_string()).unwrap_or_default();
    for w in &r.slowest_waits {
        t.add_row(vec![
            us(w.ela_us),
            w.event.clone(),
            format!("{}:{}", w.path, w.line),
            w.session.clone(),
            format!("#{}", w.cursor),
            w.statement.clone().unwrap_or_default(),
            o(w.p1),
            o(w.p2),
            o(w.p3),
            o(w.obj),
        ]);
    }
    if let Some(c) = t.column_mut(0) {
        c.set_cell_alignment(CellAlignment::Right);
    }
    format!("\nSlowest individual waits\n{t}\n")
}

fn sessions(r: &TraceReport) -> String {
    let mut t = table(&[
        "file",
        "session",
        "start",
        "R",
        "cpu",
        "waits",
        "idle",
        "unaccounted",
        "dep",
        "calls",
        "commits",
    ]);
    for s in &r.sessions {
        t.add_row(vec![
            s.path.clone(),
            s.id.clone(),
            s.start.clone().unwrap_or_default(),
            us(s.response_time_us),
            us(s.cpu_us),
            us(s.wait_us),
            us(s.idle_us),
            us(s.unaccounted_us),
            s.top_depth.to_string(),
            s.calls.to_string(),
            s.commits.to_string(),
        ]);
    }
    right_from(&mut t, 3);
    format!("\nDatabase sessions\n{t}\n")
}

fn timeline(r: &TraceReport) -> String {
    let tl = &r.timeline;
    if tl.points.is_empty() {
        return String::new();
    }
    let mut t = table(&[
        "start",
        "waits",
        "wait time",
        "I/O waits",
        "I/O mean",
        "I/O max",
    ]);
    for p in tl.points.iter().take(TIMELINE_ROWS) {
        t.add_row(vec![
            p.start.clone(),
            p.waits.to_string(),
            us(p.wait_us),
            p.io_waits.to_string(),
            if p.io_waits > 0 {
                usf(p.io_us as f64 / p.io_waits as f64)
            } else {
                "-".into()
            },
            if p.io_waits > 0 {
                us(p.io_max_us)
            } else {
                "-".into()
            },
        ]);
    }
    right_from(&mut t, 1);
    let clock = if tl.wall_clock {
        "wall clock from *** timestamps"
    } else {
        "seconds from the first tim"
    };
    let more = tl.points.len().saturating_sub(TIMELINE_ROWS);
    let tail = if more > 0 {
        format!("({more} more intervals in --json/--csv)\n")
    } else {
        String::new()
    };
    format!(
        "\nWaits over time, per {} s ({clock})\n{t}\n{tail}",
        tl.interval_s
    )
}

/// Renders two groups side by side (the dev-against-prod table of Kyle
/// Hailey's "Oracle 'Physical I/O'? not always physical"): the profiles,
/// the wait events, each I/O event's histogram, the tier attribution and
/// each group's findings.
pub fn render_comparison(c: &TraceComparison) -> String {
    let mut out = String::from("dbio tracefile --compare\n");
    out.push_str(&crate::kit::text::opening(
        c.verdict.as_ref(),
        &c.findings,
        crate::kit::text::DETAIL_BELOW,
    ));
    let _ = writeln!(out, "  A = {}\n  B = {}", c.a.label, c.b.label);
    compare_profiles(&mut out, c);
    compare_events(&mut out, c);
    compare_histograms(&mut out, c);
    compare_tiers(&mut out, c);
    let rest = crate::kit::text::other_findings(c.verdict.as_ref(), &c.findings);
    if !rest.is_empty() {
        section(&mut out, "Findings, B against A", rest.trim_end());
    }
    for (g, r) in [("A", &c.a), ("B", &c.b)] {
        if !r.findings.is_empty() {
            section(
                &mut out,
                &format!("Findings, {g}"),
                crate::kit::text::findings(&r.findings).trim_end(),
            );
        }
    }
    out
}

fn compare_profiles(out: &mut String, c: &TraceComparison) {
    let (a, b) = (&c.a, &c.b);
    let mut t = table(&["", "A", "B"]);
    let pr = |f: fn(&ResponseProfile) -> i64, name: &str, t: &mut Table| {
        t.add_row(vec![name.to_string(), us(f(&a.profile)), us(f(&b.profile))]);
    };
    pr(|p| p.response_time_us, "response time R", &mut t);
    pr(|p| p.busy_time_us, "R without idle", &mut t);
    pr(|p| p.cpu_us, "CPU", &mut t);
    pr(|p| p.waits_in_calls_us, "waits inside calls", &mut t);
    pr(|p| p.waits_between_calls_us, "waits between calls", &mut t);
    pr(|p| p.unaccounted_us, "unaccounted-for", &mut t);
    pr(|p| p.clock_span_us, "clock span", &mut t);
    right_from(&mut t, 1);
    section(out, "Profile", &t.to_string());
}

fn compare_events(out: &mut String, c: &TraceComparison) {
    let (a, b) = (&c.a, &c.b);
    let mut names: Vec<&str> = a
        .events
        .iter()
        .chain(&b.events)
        .map(|e| e.name.as_str())
        .collect();
    names.sort();
    names.dedup();
    let find = |r: &'_ TraceReport, n: &str| {
        r.events
            .iter()
            .find(|e| e.name == n)
            .cloned()
            .unwrap_or_default()
    };
    let mut rows: Vec<(EventStats, EventStats)> =
        names.iter().map(|n| (find(a, n), find(b, n))).collect();
    rows.sort_by_key(|(x, y)| std::cmp::Reverse(x.total_us.saturating_add(y.total_us)));
    let mut t = table(&[
        "event", "A count", "A total", "A mean", "A p99", "B count", "B total", "B mean", "B p99",
    ]);
    for (x, y) in &rows {
        let name = if x.name.is_empty() { &y.name } else { &x.name };
        t.add_row(vec![
            name.clone(),
            x.count.to_string(),
            us(x.total_us),
            usf(x.mean_us),
            us(x.p99_us as i64),
            y.count.to_string(),
            us(y.total_us),
            usf(y.mean_us),
            us(y.p99_us as i64),
        ]);
    }
    right_from(&mut t, 1);
    section(out, "Wait events", &t.to_string());
}

fn compare_histograms(out: &mut String, c: &TraceComparison) {
    let (a, b) = (&c.a, &c.b);
    let mut io: Vec<&str> = a
        .io_histograms
        .iter()
        .chain(&b.io_histograms)
        .map(|h| h.event.as_str())
        .collect();
    io.sort();
    io.dedup();
    for ev in io {
        let ha = a
            .io_histograms
            .iter()
            .find(|h| h.event == ev)
            .map(|h| h.buckets.clone())
            .unwrap_or_default();
        let hb = b
            .io_histograms
            .iter()
            .find(|h| h.event == ev)
            .map(|h| h.buckets.clone())
            .unwrap_or_default();
        let Some((first, last)) = bucket_span(&[&ha, &hb]) else {
            continue;
        };
        let (na, nb) = (ha.total() as f64, hb.total() as f64);
        let mut t = table(&["latency", "A count", "A %", "B count", "B %"]);
        for i in first..=last {
            let ca = ha.counts.get(i).copied().unwrap_or(0);
            let cb = hb.counts.get(i).copied().unwrap_or(0);
            t.add_row(vec![
                bucket_range(i),
                ca.to_string(),
                pct(ca as f64, na),
                cb.to_string(),
                pct(cb as f64, nb),
            ]);
        }
        right_from(&mut t, 1);
        section(out, &format!("Latency histogram: {ev}"), &t.to_string());
    }
}

fn compare_tiers(out: &mut String, c: &TraceComparison) {
    let (a, b) = (&c.a, &c.b);
    let mut tn: Vec<&str> = a
        .tiers
        .iter()
        .chain(&b.tiers)
        .map(|t| t.event.as_str())
        .collect();
    tn.sort();
    tn.dedup();
    if !tn.is_empty() {
        let mut t = table(&[
            "event",
            "A page cache",
            "A storage",
            "A device",
            "B page cache",
            "B storage",
            "B device",
        ]);
        let cells = |r: &TraceReport, ev: &str| -> Vec<String> {
            let row = r
                .tiers
                .iter()
                .find(|t| t.event == ev)
                .cloned()
                .unwrap_or_default();
            let n = (row.page_cache.count + row.storage_cache.count + row.device.count) as f64;
            [row.page_cache, row.storage_cache, row.device]
                .iter()
                .map(|c| format!("{} ({})", c.count, pct(c.count as f64, n)))
                .collect()
        };
        for ev in tn {
            let mut row = vec![ev.to_string()];
            row.extend(cells(a, ev));
            row.extend(cells(b, ev));
            t.add_row(row);
        }
        right_from(&mut t, 1);
        section(
            out,
            &format!(
                "Tier attribution (page cache < {}, storage cache < {})",
                format_ns(a.settings.page_cache_max_ns as f64),
                format_ns(a.settings.storage_cache_max_ns as f64)
            ),
            &t.to_string(),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> TraceReport {
        let mut b = Log2Buckets::default();
        b.record_us(5);
        b.record_us(700);
        TraceReport {
            label: "x.trc".into(),
            events: vec![EventStats {
                name: "db file sequential read".into(),
                io: true,
                count: 2,
                total_us: 705,
                ..EventStats::default()
            }],
            io_histograms: vec![IoHistogram {
                event: "db file sequential read".into(),
                buckets: b,
                total_us: 705,
            }],
            ..TraceReport::default()
        }
    }

    #[test]
    fn table_shows_event_and_histogram() {
        let s = render(&sample());
        assert!(s.contains("db file sequential read"), "{s}");
        assert!(
            s.contains("Latency histogram: db file sequential read (2 waits)"),
            "{s}"
        );
    }

    #[test]
    fn comparison_lists_both_sides() {
        let c = TraceComparison {
            schema_version: dbio_model::SCHEMA_VERSION,
            invocation: None,
            a: sample(),
            b: TraceReport::default(),
            ..Default::default()
        };
        let s = render_comparison(&c);
        assert!(s.contains("A count"), "{s}");
        assert!(s.contains("512 µs..1.02 ms"), "{s}");
    }
}
