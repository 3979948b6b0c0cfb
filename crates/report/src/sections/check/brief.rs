//! `dbio check`'s default screen: one headline table, a row per test,
//! every section's first figures side by side (rate, median, p99), so the
//! whole battery and its answer fit one screen of 40 lines at 100 columns.
//! The per-section tables, histograms and per-second series are what
//! `--detail` shows ([`dbio_model::Layout::Summary`]).

use crate::kit::text::{new_table, right_align};
use comfy_table::Cell;
use dbio_model::units::{format_count_rate, format_ns, format_rate};
use dbio_model::{LatencySummary, RunReport};

/// Where the rest is, printed under the answer.
pub const DETAIL: &str =
    "Every table and the other findings: --detail (or dbio report --from FILE \
--detail); a page to mail: --html FILE; the result to keep: --json FILE.";

/// One row: what ran (the latency's name first: a commit's, 'log file
/// sync', a read's), its rate, median and p99.
struct Row {
    test: String,
    rate: String,
    p50: String,
    p99: String,
}

impl Row {
    fn new(test: impl Into<String>, rate: String, l: Option<&LatencySummary>) -> Row {
        let (p50, p99) = match l.filter(|l| l.count > 0) {
            Some(l) => (format_ns(l.p50_ns() as f64), format_ns(l.p99_ns() as f64)),
            None => ("–".into(), "–".into()),
        };
        Row {
            test: test.into(),
            rate,
            p50,
            p99,
        }
    }
}

/// The headline table of a check result.
pub fn table(r: &RunReport) -> String {
    let mut rows = Vec::new();
    jobs(r, &mut rows);
    log_writer(r, &mut rows);
    for x in &r.load {
        rows.push(Row::new(
            format!("SQLite commit, {}", short(&x.name)),
            format!("{} commits/s", format_count_rate(x.tps)),
            Some(&x.commit),
        ));
    }
    for x in &r.reads {
        rows.push(Row::new(
            format!("read 8k, {}", x.name.trim_start_matches("check ")),
            format!("{} reads/s", format_count_rate(x.iops)),
            Some(&x.lat),
        ));
    }
    for x in &r.dbwr {
        rows.push(Row::new(
            format!(
                "db file parallel write, {} writer{}",
                x.config.writers,
                if x.config.writers == 1 { "" } else { "s" }
            ),
            format!("{} blocks/s", format_count_rate(x.writes.write_iops)),
            Some(&x.writes.parallel_write),
        ));
    }
    if rows.is_empty() {
        return String::new();
    }
    let mut t = new_table(&["test", "rate", "p50", "p99"]);
    for row in rows {
        t.add_row(vec![
            Cell::new(row.test),
            Cell::new(row.rate),
            Cell::new(row.p50),
            Cell::new(row.p99),
        ]);
    }
    right_align(&mut t);
    format!("{t}\n")
}

/// The raw jobs: commits per second for the log writes, reads or
/// throughput for the others, with the latency of the thing measured
/// (a commit's, not its write's).
fn jobs(r: &RunReport, rows: &mut Vec<Row>) {
    for j in &r.jobs {
        let secs = j.runtime_ns.max(1) as f64 / 1e9;
        if let Some(c) = j.commit.as_ref().filter(|c| c.count > 0) {
            rows.push(Row::new(
                format!("commit {}", j.name.trim_start_matches("log write ")),
                format!("{} commits/s", format_count_rate(c.count as f64 / secs)),
                Some(c),
            ));
        } else if let Some(s) = j.read.as_ref().or(j.write.as_ref()) {
            let rate = if j.job.bs >= 1 << 20 {
                format_rate(s.bytes_per_sec)
            } else {
                format!("{} IOPS", format_count_rate(s.iops))
            };
            rows.push(Row::new(j.name.clone(), rate, Some(&s.lat)));
        }
    }
}

/// The log writer: one session, then the fastest and the slowest method
/// at the most sessions ('log file sync' is the commit's latency).
fn log_writer(r: &RunReport, rows: &mut Vec<Row>) {
    let Some(most) = r.lgwr.iter().map(|x| x.config.sessions).max() else {
        return;
    };
    let row = |x: &dbio_model::lgwr::LgwrResult, what: &str| {
        Row::new(
            format!("log file sync, {}{what}", x.name),
            format!("{} commits/s", format_count_rate(x.tps)),
            Some(&x.log_file_sync),
        )
    };
    if let Some(one) = r.lgwr.iter().find(|x| x.config.sessions == 1 && most > 1) {
        rows.push(row(one, ""));
    }
    let at_most: Vec<_> = r
        .lgwr
        .iter()
        .filter(|x| x.config.sessions == most)
        .collect();
    let fastest = at_most.iter().max_by(|a, b| a.tps.total_cmp(&b.tps));
    let slowest = at_most.iter().min_by(|a, b| a.tps.total_cmp(&b.tps));
    match (fastest, slowest) {
        (Some(f), Some(s)) if at_most.len() > 1 => {
            rows.push(row(f, " (fastest)"));
            rows.push(row(s, " (slowest)"));
        }
        (Some(f), _) => rows.push(row(f, "")),
        _ => {}
    }
}

/// A load run's name without the battery's prefix.
fn short(name: &str) -> &str {
    name.trim_start_matches("check ")
}
