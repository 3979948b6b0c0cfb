//! Terminal rendering of AWR and Statspack analyses (`dbio awr`): the
//! header, the derived figures, the wait events, the merged histograms and
//! the findings of one report, and two reports side by side with their
//! differences and ratios (`--compare`).
//!
//! Everything is derived from [`AwrReport`] / [`AwrComparison`] alone, so
//! a saved JSON result re-renders identically (`dbio report --from`).

use comfy_table::{presets::UTF8_FULL_CONDENSED, CellAlignment, Table};
use dbio_model::awr::{
    AwrComparison, AwrHistogram, AwrReport, PctOf, SeenIn, TraceBeside, WaitEventRow,
};
use dbio_model::units::{format_bytes, format_ns};
use std::fmt::Write;

/// Wait events shown per list.
const EVENT_ROWS: usize = 15;

pub(crate) fn table(header: &[&str]) -> Table {
    let mut t = Table::new();
    t.load_style(UTF8_FULL_CONDENSED);
    t.set_header(header.to_vec());
    t
}

pub(crate) fn right_from(t: &mut Table, first: usize) {
    for i in first..t.column_count() {
        if let Some(c) = t.column_mut(i) {
            c.set_cell_alignment(CellAlignment::Right);
        }
    }
}

pub(crate) fn section(out: &mut String, title: &str, body: &str) {
    let _ = writeln!(out, "\n{title}\n{body}");
}

pub(crate) fn us(v: Option<f64>) -> String {
    match v {
        None => "-".into(),
        Some(v) if v < 0.0 => format!("-{}", format_ns(-v * 1000.0)),
        Some(v) => format_ns(v * 1000.0),
    }
}

/// An average with the ± bound of the precision it was printed at
/// (`5.93 ms ± 95.68 µs`), or `< 78.43 µs` when the bound reaches 0 (a
/// printed `0`): never a bare `0.00 ns` for a rounded zero.
pub(crate) fn us_bounded(v: Option<f64>, e: Option<f64>) -> String {
    match (v, e) {
        (Some(v), Some(e)) if e > 0.0 && v - e <= 0.0 => format!("< {}", us(Some(v + e))),
        (Some(v), Some(e)) if e > 0.0 => format!("{} ± {}", us(Some(v)), us(Some(e))),
        _ => us(v),
    }
}

/// A number with its ± bound, as [`num`] prints both.
pub(crate) fn num_bounded(v: Option<f64>, e: Option<f64>) -> String {
    match (v, e) {
        (Some(_), Some(e)) if e > 0.0 => format!("{} ± {e:.2}", num(v)),
        _ => num(v),
    }
}

/// The heading of an event list's share column: what the report's
/// column is a share of (`% DB time` for results that do not record it).
pub(crate) fn pct_label(p: Option<PctOf>) -> &'static str {
    p.map_or(PctOf::DbTime.label(), PctOf::label)
}

/// An event's name as shown: marked when idle.
pub(crate) fn event_name(e: &WaitEventRow) -> String {
    if e.idle {
        format!("{} (idle)", e.name)
    } else {
        e.name.clone()
    }
}

/// Rows in the order they are shown: the report's order, idle rows last
/// (Statspack ranks its stale idle list's events into its Top 5).
pub(crate) fn idle_last(rows: &[WaitEventRow]) -> Vec<&WaitEventRow> {
    let mut v: Vec<&WaitEventRow> = rows.iter().collect();
    v.sort_by_key(|e| e.idle);
    v
}

pub(crate) fn num(v: Option<f64>) -> String {
    match v {
        None => "-".into(),
        Some(v) if v.fract() == 0.0 && v.abs() < 1e15 => format!("{v:.0}"),
        Some(v) => format!("{v:.2}"),
    }
}

pub(crate) fn opt(s: &Option<String>) -> &str {
    s.as_deref().unwrap_or("-")
}

/// The derived figures as (name, value) lines, labelled and rounded as
/// the table prints them.
pub(crate) fn derived_rows(r: &AwrReport) -> Vec<(&'static str, String)> {
    let d = &r.derived;
    let pct = |v: Option<f64>| v.map_or("-".into(), |v| format!("{:.1} %", 100.0 * v));
    vec![
        (
            "redo write size (redo size / redo writes)",
            d.redo_write_size_bytes.map_or("-".into(), |v| {
                format!("{v:.0} B ({})", format_bytes(v as u64))
            }),
        ),
        ("redo write time per write", us(d.redo_write_time_us)),
        ("user commits per redo write", num(d.commits_per_redo_write)),
        (
            "redo synch writes per redo write",
            num(d.synch_writes_per_redo_write),
        ),
        (
            "'log file sync' average",
            us_bounded(d.log_file_sync_us, d.log_file_sync_error_us),
        ),
        (
            "'log file parallel write' average",
            us_bounded(
                d.log_file_parallel_write_us,
                d.log_file_parallel_write_error_us,
            ),
        ),
        (
            "'log file sync' / 'log file parallel write'",
            num_bounded(d.lfs_lfpw_ratio, d.lfs_lfpw_ratio_error),
        ),
        (
            "'log file sync' - 'log file parallel write'",
            match (d.lfs_minus_lfpw_us, d.lfs_minus_lfpw_error_us) {
                (Some(v), Some(e)) => format!("{} ± {}", us(Some(v)), us(Some(e))),
                (v, _) => us(v),
            },
        ),
        ("redo wastage share", pct(d.redo_wastage_share)),
        ("transactions (commits + rollbacks)", num(d.transactions)),
        (
            "physical reads per transaction (blocks)",
            num(d.physical_reads_per_txn),
        ),
        (
            "physical reads per second (blocks)",
            num(d.physical_reads_per_s),
        ),
        (
            "physical writes per transaction (blocks)",
            num(d.physical_writes_per_txn),
        ),
        (
            "physical writes per second (blocks)",
            num(d.physical_writes_per_s),
        ),
        (
            "DBWR write batch (blocks per 'db file parallel write')",
            num(d.dbwr_batch_blocks),
        ),
        ("log switches per hour", num(d.log_switches_per_hour)),
        (
            "host CPU busy",
            d.host_cpu_busy_pct
                .map_or("-".into(), |v| format!("{v:.1} %")),
        ),
    ]
}

fn events_table(rows: &[WaitEventRow], pct: Option<PctOf>) -> String {
    let mut t = table(&["event", "class", "waits", "time (s)", "avg", pct_label(pct)]);
    for e in idle_last(rows).into_iter().take(EVENT_ROWS) {
        t.add_row(vec![
            event_name(e),
            e.class.clone().unwrap_or_default(),
            num(e.waits),
            num(e.time_s),
            us_bounded(e.avg_us, e.avg_error_us),
            num(e.pct_db_time),
        ]);
    }
    right_from(&mut t, 2);
    let mut s = t.to_string();
    if rows.len() > EVENT_ROWS {
        let _ = write!(s, "\n({} more in the JSON result)", rows.len() - EVENT_ROWS);
    }
    s
}

/// Renders one report for a terminal.
pub fn render(r: &AwrReport) -> String {
    let mut out = String::new();
    let h = &r.header;
    let _ = writeln!(out, "{} {} ({})", command(r), r.source, r.kind.describe());
    out.push_str(&crate::kit::text::opening(
        r.verdict.as_ref(),
        &r.findings,
        crate::kit::text::DETAIL_BELOW,
    ));
    if r.decimal_comma {
        out.push_str(
            "Numbers read with a decimal comma (the report's locale: 1,5 is 1.5, 1.234 is 1234)\n",
        );
    }
    if let Some(t) = &r.truncated {
        let _ = writeln!(out, "Cut short: {t}");
    }
    for n in &r.notes {
        let _ = writeln!(out, "Note: {n}");
    }
    let mut t = table(&[
        "database", "instance", "release", "host", "platform", "CPUs", "snaps", "elapsed",
        "DB time",
    ]);
    t.add_row(vec![
        opt(&h.db_name).to_string(),
        if h.rac && h.instances > 1 {
            format!("{} (RAC, {} instances)", opt(&h.instance), h.instances)
        } else if h.rac {
            format!("{} (RAC)", opt(&h.instance))
        } else {
            opt(&h.instance).to_string()
        },
        opt(&h.version).to_string(),
        opt(&h.host).to_string(),
        opt(&h.platform).to_string(),
        num(h.cpus),
        match (h.begin_snap, h.end_snap) {
            (Some(a), Some(b)) => format!("{a}-{b}"),
            _ => "-".into(),
        },
        h.elapsed_s
            .map_or("-".into(), |s| format!("{:.2} min", s / 60.0)),
        h.db_time_s
            .map_or("-".into(), |s| format!("{:.2} min", s / 60.0)),
    ]);
    out.push_str(&t.to_string());
    out.push('\n');
    out.push_str(&crate::sections::snap::table::render(r));
    let mut t = table(&["derived figure", "value"]);
    for (k, v) in derived_rows(r) {
        if v != "-" {
            t.add_row(vec![k.to_string(), v]);
        }
    }
    right_from(&mut t, 1);
    section(&mut out, "Derived", &t.to_string());
    if let Some(tr) = &r.derived.read_tiers {
        let n = tr.page_cache + tr.storage_cache + tr.device + tr.unresolved;
        let share = |v: f64| {
            if n > 0.0 {
                format!("{:.1} %", 100.0 * v / n)
            } else {
                "-".into()
            }
        };
        let mut t = table(&["tier", "below", "waits", "share"]);
        t.add_row(vec![
            "page cache".into(),
            format_ns(tr.page_cache_max_ns as f64),
            num(Some(tr.page_cache)),
            share(tr.page_cache),
        ]);
        t.add_row(vec![
            "storage cache".into(),
            format_ns(tr.storage_cache_max_ns as f64),
            num(Some(tr.storage_cache)),
            share(tr.storage_cache),
        ]);
        t.add_row(vec![
            "unresolved (bucket straddles a threshold)".into(),
            "".into(),
            num(Some(tr.unresolved)),
            share(tr.unresolved),
        ]);
        t.add_row(vec![
            "device".into(),
            "".into(),
            num(Some(tr.device)),
            share(tr.device),
        ]);
        right_from(&mut t, 1);
        section(
            &mut out,
            &format!(
                "'{}' by tier (thresholds: {})",
                tr.event, tr.thresholds_from
            ),
            &t.to_string(),
        );
    }
    let p = &r.event_pct_of;
    for (title, rows, pct) in [
        ("Top events", &r.top_events, p.top),
        ("Foreground wait events", &r.foreground_events, p.foreground),
        ("Background wait events", &r.background_events, p.background),
    ] {
        if !rows.is_empty() {
            section(&mut out, title, &events_table(rows, pct));
        }
    }
    for name in [
        "db file sequential read",
        "log file sync",
        "log file parallel write",
        "db file parallel write",
    ] {
        if let Some(hg) = r.histogram(name) {
            if hg.buckets.total() > 0 && hg.buckets_are_exact() {
                section(
                    &mut out,
                    &format!(
                        "'{}' wait histogram (from {} waits, power-of-two buckets)",
                        hg.event,
                        num(Some(hg.total_waits))
                    ),
                    crate::kit::histogram::render(&hg.buckets).trim_end(),
                );
            } else if hg.buckets.total() > 0 {
                section(
                    &mut out,
                    &format!(
                        "'{}' wait histogram (from {} waits, the report's buckets)",
                        hg.event,
                        num(Some(hg.total_waits))
                    ),
                    printed_cells(hg).trim_end(),
                );
            }
        }
    }
    if let Some(w) = &r.with_trace {
        with_trace(&mut out, w);
    }
    let skipped: Vec<&str> = r
        .sections
        .iter()
        .filter(|s| !s.parsed)
        .map(|s| s.title.as_str())
        .collect();
    let _ = write!(
        out,
        "\nSections read: {}; listed and skipped: {}",
        r.sections.iter().filter(|s| s.parsed).count(),
        skipped.len()
    );
    if !skipped.is_empty() {
        let mut names = skipped.clone();
        names.dedup();
        let _ = write!(out, " ({})", names.join(", "));
    }
    out.push('\n');
    let rest = crate::kit::text::other_findings(r.verdict.as_ref(), &r.findings);
    if !rest.is_empty() {
        section(&mut out, "Findings", rest.trim_end());
    }
    out
}

/// Width of the longest bar of [`printed_cells`], characters.
const BAR: usize = 40;

/// A histogram drawn from the report's own cells, where they are coarser
/// than power-of-two buckets (Statspack's and 11g's `<1ms` spans 0 to 1
/// ms, `<=1s` 32 ms to 1 s): each row is a cell's range, its heading as
/// printed, its waits, share, cumulative share and bar.
pub(crate) fn printed_cells(hg: &AwrHistogram) -> String {
    let cells = hg.chosen_cells();
    let waits: Vec<f64> = cells.iter().map(|c| c.waits(hg.total_waits)).collect();
    let total: f64 = waits.iter().sum();
    let (Some(first), Some(last)) = (
        waits.iter().position(|&n| n > 0.0),
        waits.iter().rposition(|&n| n > 0.0),
    ) else {
        return String::new();
    };
    let max = waits.iter().copied().fold(0.0, f64::max);
    let mut out = String::new();
    let mut cum = 0.0;
    for (c, &n) in cells.iter().zip(&waits).take(last + 1).skip(first) {
        cum += n;
        let hi = c
            .hi_us
            .map_or("∞".to_string(), |h| format_ns(h as f64 * 1000.0));
        let lo = if c.lo_us == 0 {
            "0".to_string()
        } else {
            format_ns(c.lo_us as f64 * 1000.0)
        };
        let range = format!("{lo:>8} .. {hi:<8}");
        let len = (n / max * BAR as f64).round() as usize;
        let bar = if n > 0.0 {
            "#".repeat(len.max(1))
        } else {
            String::new()
        };
        let _ = writeln!(
            out,
            "  {range} {:>6} {n:>10.0} {:>6.2}% {:>7.2}% |{bar}",
            c.label,
            100.0 * n / total,
            100.0 * cum / total,
        );
    }
    out
}

/// A trace's waits beside the report's foreground wait events.
fn with_trace(out: &mut String, w: &TraceBeside) {
    let mut t = table(&[
        "event",
        "seen in",
        "trace waits",
        "trace time (s)",
        "trace avg",
        "report waits",
        "report time (s)",
        "report avg",
    ]);
    for e in &w.rows {
        let seen = match e.seen_in {
            SeenIn::Both => "both",
            SeenIn::TraceOnly => "trace only (!)",
            SeenIn::ReportOnly => "report only (!)",
        };
        t.add_row(vec![
            if e.idle {
                format!("{} (idle)", e.event)
            } else {
                e.event.clone()
            },
            seen.to_string(),
            num(e.trace_waits.map(|v| v as f64)),
            num(e.trace_time_s),
            us(e.trace_avg_us),
            num(e.report_waits),
            num(e.report_time_s),
            us(e.report_avg_us),
        ]);
    }
    right_from(&mut t, 2);
    let mut body = format!(
        "The trace covers {} traced session{} ({} WAIT lines); the report covers the whole instance \
over its interval: compare averages and which events occur, not counts or times.\n",
        w.trace_sessions,
        if w.trace_sessions == 1 { "" } else { "s" },
        w.trace_wait_lines
    );
    body.push_str(&t.to_string());
    let only = |s: SeenIn| {
        w.rows
            .iter()
            .filter(|e| e.seen_in == s && !e.idle)
            .map(|e| format!("'{}'", e.event))
            .collect::<Vec<_>>()
    };
    let (to, ro) = (only(SeenIn::TraceOnly), only(SeenIn::ReportOnly));
    if !to.is_empty() {
        let _ = write!(
            body,
            "\nIn the trace, not among the report's foreground wait events: {}",
            to.join(", ")
        );
    }
    if !ro.is_empty() {
        let _ = write!(body, "\nIn the report, not in the trace: {}", ro.join(", "));
    }
    section(
        out,
        &format!(
            "Trace {} beside the report's foreground wait events",
            w.trace
        ),
        &body,
    );
}

pub(crate) fn ratio(a: Option<f64>, b: Option<f64>) -> String {
    match (a, b) {
        (Some(a), Some(b)) if a != 0.0 => format!("{:.2}x", b / a),
        _ => "-".into(),
    }
}

fn diff(a: Option<f64>, b: Option<f64>) -> Option<f64> {
    a.zip(b).map(|(a, b)| b - a)
}

/// Two reports side by side: derived figures, events aligned by name,
/// statistics aligned by name, with B − A and B / A.
pub fn render_comparison(c: &AwrComparison) -> String {
    let (a, b) = (&c.a, &c.b);
    let mut out = String::from("dbio awr --compare\n");
    out.push_str(&crate::kit::text::opening(
        c.verdict.as_ref(),
        &c.findings,
        crate::kit::text::DETAIL_BELOW,
    ));
    let _ = writeln!(
        out,
        "  A = {} ({})\n  B = {} ({})",
        a.source,
        a.kind.describe(),
        b.source,
        b.kind.describe()
    );
    let mut t = table(&["derived figure", "A", "B"]);
    for ((k, x), (_, y)) in derived_rows(a).into_iter().zip(derived_rows(b)) {
        if x != "-" || y != "-" {
            t.add_row(vec![k.to_string(), x, y]);
        }
    }
    right_from(&mut t, 1);
    section(&mut out, "Derived", &t.to_string());

    let mut names: Vec<&str> = Vec::new();
    for e in a
        .top_events
        .iter()
        .chain(&a.foreground_events)
        .chain(&a.background_events)
        .chain(&b.top_events)
        .chain(&b.foreground_events)
        .chain(&b.background_events)
    {
        if !names.contains(&e.name.as_str()) {
            names.push(&e.name);
        }
    }
    let mut rows: Vec<(&str, Option<&WaitEventRow>, Option<&WaitEventRow>)> =
        names.iter().map(|n| (*n, a.event(n), b.event(n))).collect();
    let time = |e: Option<&WaitEventRow>| e.and_then(|e| e.time_s).unwrap_or(0.0);
    rows.sort_by(|x, y| (time(y.1) + time(y.2)).total_cmp(&(time(x.1) + time(x.2))));
    let mut t = table(&[
        "event",
        "A waits",
        "B waits",
        "B/A waits",
        "A avg",
        "B avg",
        "B-A avg",
        "B/A avg",
        "A time (s)",
        "B time (s)",
    ]);
    for (n, x, y) in rows.iter().take(2 * EVENT_ROWS) {
        let w = |e: &Option<&WaitEventRow>| e.and_then(|e| e.waits);
        let av = |e: &Option<&WaitEventRow>| e.and_then(|e| e.avg_us);
        let err = |e: &Option<&WaitEventRow>| e.and_then(|e| e.avg_error_us);
        let ts = |e: &Option<&WaitEventRow>| e.and_then(|e| e.time_s);
        let d = diff(av(x), av(y));
        t.add_row(vec![
            n.to_string(),
            num(w(x)),
            num(w(y)),
            ratio(w(x), w(y)),
            us_bounded(av(x), err(x)),
            us_bounded(av(y), err(y)),
            us(d),
            ratio(av(x), av(y)),
            num(ts(x)),
            num(ts(y)),
        ]);
    }
    right_from(&mut t, 1);
    section(&mut out, "Wait events (aligned by name)", &t.to_string());

    let mut t = table(&["statistic", "A", "B", "B-A", "B/A"]);
    for s in &a.statistics {
        let y = b.stat(&s.name);
        if y.is_none() || y == Some(s.total) {
            continue;
        }
        t.add_row(vec![
            s.name.clone(),
            num(Some(s.total)),
            num(y),
            num(diff(Some(s.total), y)),
            ratio(Some(s.total), y),
        ]);
    }
    if t.row_count() > 0 {
        right_from(&mut t, 1);
        section(
            &mut out,
            "Statistics that differ (aligned by name)",
            &t.to_string(),
        );
    }
    let rest = crate::kit::text::other_findings(c.verdict.as_ref(), &c.findings);
    if !rest.is_empty() {
        section(&mut out, "Findings, B against A", rest.trim_end());
    }
    for (g, r) in [("A", a), ("B", b)] {
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

/// The command that makes a report of this kind: `dbio snap` for a live
/// server's interval, `dbio awr` for a report read from a file.
pub fn command(r: &AwrReport) -> &'static str {
    if r.kind.is_snap() {
        "dbio snap"
    } else {
        "dbio awr"
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use dbio_model::awr::HistogramCell;

    #[test]
    fn a_rounded_average_is_shown_with_its_bound_and_a_printed_zero_as_a_ceiling() {
        assert_eq!(us_bounded(Some(5931.9), Some(95.7)), "5.93 ms ± 95.7 µs");
        assert_eq!(us_bounded(Some(0.0), Some(500.0)), "< 500 µs");
        assert_eq!(us_bounded(Some(39.2), Some(39.2)), "< 78.4 µs");
        assert_eq!(us_bounded(Some(373.76), None), "374 µs");
        assert_eq!(us_bounded(None, Some(1.0)), "-");
        assert_eq!(num_bounded(Some(0.92), Some(0.0213)), "0.92 ± 0.02");
        assert_eq!(num_bounded(Some(3.0), None), "3");
        assert_eq!(pct_label(None), "% DB time");
        assert_eq!(pct_label(Some(PctOf::BgTime)), "% bg time");
        assert_eq!(pct_label(Some(PctOf::CallTime)), "% call time");
    }

    #[test]
    fn idle_rows_go_last_marked() {
        let row = |n: &str, idle| WaitEventRow {
            name: n.into(),
            idle,
            ..Default::default()
        };
        let rows = [row("LGWR worker group idle", true), row("CPU time", false)];
        let shown: Vec<String> = idle_last(&rows).into_iter().map(event_name).collect();
        assert_eq!(shown, ["CPU time", "LGWR worker group idle (idle)"]);
    }

    #[test]
    fn coarse_cells_are_drawn_over_the_range_they_span() {
        let cell = |label: &str, lo, hi, pct| HistogramCell {
            label: label.into(),
            lo_us: lo,
            hi_us: hi,
            pct,
            blank: false,
        };
        let hg = AwrHistogram {
            event: "log file sync".into(),
            total_waits: 1000.0,
            cells: vec![
                cell("<1ms", 0, Some(1024), 60.0),
                cell("<32ms", 1024, Some(32_768), 0.0),
                cell("<=1s", 32_768, Some(1_048_576), 40.0),
                cell(">1s", 1_048_576, None, 0.0),
            ],
            ..Default::default()
        };
        assert!(!hg.buckets_are_exact());
        let s = printed_cells(&hg);
        let lines: Vec<&str> = s.lines().collect();
        assert_eq!(lines.len(), 3, "{s}");
        assert!(
            lines[0].starts_with("         0 .. 1.02 ms    <1ms        600"),
            "{s}"
        );
        // The empty cell between them is drawn empty, not split.
        assert!(
            lines[1].contains("<32ms") && lines[1].contains(" 0 "),
            "{s}"
        );
        assert!(
            lines[2].contains("32.8 ms .. 1.05 s") && lines[2].contains("<=1s"),
            "{s}"
        );
    }
}
