//! The parts of an interval's AWR result that both servers fill the same
//! way: statistics from counter growth, wait event rows, tables kept as
//! read, the load profile in Oracle's names, the derived figures.

use crate::delta::Interval;
use crate::Group;
use dbio_model::awr::{AwrDerived, LoadProfileRow, RawTable, StatRow, WaitEventRow};

/// Every counter's growth as a statistic named `group.column` (a keyed
/// group's columns summed over its rows; zero growth kept, so a counter
/// that did not move is seen not to have), per second and per
/// transaction.
pub fn statistics(i: &Interval, transactions: Option<f64>) -> Vec<StatRow> {
    let mut out = Vec::new();
    for g in &i.groups {
        for (c, _) in &g.group.cols {
            if let Some(total) = g.group.sum(c) {
                out.push(stat(
                    &format!("{}.{c}", g.group.name),
                    total,
                    i,
                    transactions,
                ));
            }
        }
    }
    out
}

/// One statistic with its rates.
pub fn stat(name: &str, total: f64, i: &Interval, transactions: Option<f64>) -> StatRow {
    StatRow {
        name: name.to_string(),
        total,
        per_second: (i.elapsed_s > 0.0).then(|| total / i.elapsed_s),
        per_transaction: transactions.filter(|t| *t > 0.0).map(|t| total / t),
    }
}

/// A wait event row: its time and share of DB time; `waits` where the
/// server counts them (a sampled event has none), the average from them.
pub fn event(
    name: &str,
    class: &str,
    waits: Option<f64>,
    time_s: Option<f64>,
    db_time_s: Option<f64>,
) -> WaitEventRow {
    WaitEventRow {
        name: name.to_string(),
        class: Some(class.to_string()),
        waits,
        time_s,
        avg_us: match (waits, time_s) {
            (Some(w), Some(t)) if w > 0.0 => Some(t * 1e6 / w),
            _ => None,
        },
        avg_error_us: None,
        pct_db_time: match (time_s, db_time_s) {
            (Some(t), Some(d)) if d > 0.0 => Some(100.0 * t / d),
            _ => None,
        },
        // Exact counts and times from the server's own counters: no
        // printed precision, no name cut, never an idle event.
        ..Default::default()
    }
}

/// Rows sorted by time, largest first.
pub fn by_time(mut rows: Vec<WaitEventRow>) -> Vec<WaitEventRow> {
    rows.sort_by(|a, b| {
        b.time_s
            .unwrap_or(0.0)
            .total_cmp(&a.time_s.unwrap_or(0.0))
            .then(b.waits.unwrap_or(0.0).total_cmp(&a.waits.unwrap_or(0.0)))
    });
    rows
}

/// A keyed group's growth as a table: its key columns, its label (when
/// any row has one) and its counters; only the rows that moved, the
/// `top` largest by column `by` (all when `top` is 0). Numbers are
/// printed as whole numbers, times (ms, ps) with three decimals in ms.
pub fn table(section: &str, g: &Group, by: &str, top: usize) -> RawTable {
    let labelled = g.rows.iter().any(|r| r.label.is_some());
    let mut columns: Vec<String> = g.keys.clone();
    if labelled {
        columns.push("text".into());
    }
    for (c, unit) in &g.cols {
        columns.push(match *unit {
            "ms" | "ps" => format!("{c} (ms)"),
            "bytes" => format!("{c} (bytes)"),
            _ => c.clone(),
        });
    }
    let by_i = g.cols.iter().position(|(c, _)| c == by);
    let mut rows: Vec<&crate::Row> = g
        .rows
        .iter()
        .filter(|r| r.values.iter().any(|v| v.is_some_and(|v| v > 0.0)))
        .collect();
    if let Some(i) = by_i {
        rows.sort_by(|a, b| {
            let v = |r: &crate::Row| r.values.get(i).copied().flatten().unwrap_or(0.0);
            v(b).total_cmp(&v(a))
        });
    }
    if top > 0 {
        rows.truncate(top);
    }
    RawTable {
        section: section.to_string(),
        columns,
        rows: rows
            .into_iter()
            .map(|r| {
                let mut cells = r.key.clone();
                if labelled {
                    cells.push(r.label.clone().unwrap_or_default());
                }
                for ((_, unit), v) in g.cols.iter().zip(&r.values) {
                    cells.push(match (v, *unit) {
                        (None, _) => "-".into(),
                        (Some(v), "ms") => format!("{v:.3}"),
                        (Some(v), "ps") => format!("{:.3}", v / 1e9),
                        (Some(v), _) => format!("{v:.0}"),
                    });
                }
                cells
            })
            .collect(),
    }
}

/// Oracle's Load Profile lines from what the server counts: each figure
/// per second and per transaction.
pub fn load_profile(
    lines: &[(&str, Option<f64>)],
    elapsed_s: f64,
    transactions: Option<f64>,
) -> Vec<LoadProfileRow> {
    lines
        .iter()
        .filter_map(|(name, total)| {
            let total = (*total)?;
            Some(LoadProfileRow {
                name: name.to_string(),
                per_second: (elapsed_s > 0.0).then(|| total / elapsed_s),
                per_transaction: transactions.filter(|t| *t > 0.0).map(|t| total / t),
            })
        })
        .collect()
}

/// The commit figures every server derives the same way.
pub struct CommitFigures {
    /// Log bytes written (WAL bytes, redo LSN growth).
    pub log_bytes: Option<f64>,
    /// Log writes.
    pub log_writes: Option<f64>,
    /// Log flushes (fsync/fdatasync, or writes under an O_*SYNC method).
    pub log_flushes: Option<f64>,
    /// Time in the log writes and flushes, s.
    pub log_flush_time_s: Option<f64>,
    /// Commits of the server's clients (dbio's own left out).
    pub commits: Option<f64>,
    /// Rollbacks.
    pub rollbacks: Option<f64>,
    /// 'log file sync' time (sessions waiting for their commit), s.
    pub commit_wait_s: Option<f64>,
    /// Blocks read from storage (or the OS cache) and blocks written.
    pub blocks_read: Option<f64>,
    /// Blocks written by every writer.
    pub blocks_written: Option<f64>,
}

fn div(a: Option<f64>, b: Option<f64>) -> Option<f64> {
    match (a, b) {
        (Some(a), Some(b)) if b > 0.0 => Some(a / b),
        _ => None,
    }
}

/// The derived figures of an interval, in the AWR model's terms.
///
/// * redo write size: log bytes / log writes;
/// * redo write time per write: log write + flush time / log writes;
/// * commits per redo write: commits / log flushes (group commit at work
///   above 1; the flush, not the write, is what a commit waits for);
/// * 'log file sync' average: the sessions' commit wait / commits. The
///   commits counted include read-only ones, which wait for no flush,
///   so on a mixed load this is a lower bound of the average over
///   committing writers;
/// * 'log file parallel write' average: log write + flush time / log
///   flushes.
pub fn derived(f: &CommitFigures, elapsed_s: f64) -> AwrDerived {
    let transactions = match (f.commits, f.rollbacks) {
        (Some(c), r) => Some(c + r.unwrap_or(0.0)),
        _ => None,
    };
    let lfs = div(f.commit_wait_s.map(|s| s * 1e6), f.commits);
    let lfpw = div(f.log_flush_time_s.map(|s| s * 1e6), f.log_flushes);
    let per_s = |v: Option<f64>| div(v, Some(elapsed_s));
    AwrDerived {
        redo_write_size_bytes: div(f.log_bytes, f.log_writes),
        redo_write_time_us: div(f.log_flush_time_s.map(|s| s * 1e6), f.log_writes),
        commits_per_redo_write: div(f.commits, f.log_flushes),
        synch_writes_per_redo_write: None,
        log_file_sync_us: lfs,
        log_file_parallel_write_us: lfpw,
        lfs_lfpw_ratio: div(lfs, lfpw),
        lfs_minus_lfpw_us: lfs.zip(lfpw).map(|(s, w)| s - w),
        redo_wastage_share: None,
        transactions,
        physical_reads_per_txn: div(f.blocks_read, transactions),
        physical_reads_per_s: per_s(f.blocks_read),
        physical_writes_per_txn: div(f.blocks_written, transactions),
        physical_writes_per_s: per_s(f.blocks_written),
        read_tiers: None,
        dbwr_batch_blocks: None,
        log_switches_per_hour: None,
        host_cpu_busy_pct: None,
        // The server's counters are exact: no printed-precision bounds.
        ..Default::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Row;

    #[test]
    fn derived_figures_from_their_counters() {
        let d = derived(
            &CommitFigures {
                log_bytes: Some(1_000_000.0),
                log_writes: Some(500.0),
                log_flushes: Some(250.0),
                log_flush_time_s: Some(0.5),
                commits: Some(1000.0),
                rollbacks: Some(0.0),
                commit_wait_s: Some(3.0),
                blocks_read: Some(600.0),
                blocks_written: None,
            },
            60.0,
        );
        assert_eq!(d.redo_write_size_bytes, Some(2000.0));
        assert_eq!(d.commits_per_redo_write, Some(4.0));
        // 0.5 s over 250 flushes: 2 ms each; 3 s over 1000 commits: 3 ms.
        assert_eq!(d.log_file_parallel_write_us, Some(2000.0));
        assert_eq!(d.log_file_sync_us, Some(3000.0));
        assert_eq!(d.lfs_lfpw_ratio, Some(1.5));
        assert_eq!(d.lfs_minus_lfpw_us, Some(1000.0));
        assert_eq!(d.physical_reads_per_s, Some(10.0));
        assert_eq!(d.physical_writes_per_s, None);
        let none = derived(
            &CommitFigures {
                log_bytes: Some(1.0),
                log_writes: Some(0.0),
                log_flushes: None,
                log_flush_time_s: None,
                commits: None,
                rollbacks: None,
                commit_wait_s: None,
                blocks_read: None,
                blocks_written: None,
            },
            0.0,
        );
        assert_eq!(none.redo_write_size_bytes, None, "no division by zero");
        assert_eq!(none.transactions, None);
    }

    #[test]
    fn a_table_keeps_the_rows_that_moved_largest_first() {
        let g = Group {
            name: "pg_stat_io".into(),
            keys: vec!["backend_type".into()],
            cols: vec![("reads".into(), "count"), ("read_time".into(), "ms")],
            rows: [("a", 0.0), ("b", 30.0), ("c", 10.0)]
                .iter()
                .map(|(k, v)| Row {
                    key: vec![k.to_string()],
                    label: None,
                    values: vec![Some(*v), Some(v / 10.0)],
                    reset: None,
                })
                .collect(),
        };
        let t = table("pg_stat_io", &g, "reads", 0);
        assert_eq!(t.columns, ["backend_type", "reads", "read_time (ms)"]);
        assert_eq!(t.rows, [["b", "30", "3.000"], ["c", "10", "1.000"]]);
        assert_eq!(table("x", &g, "reads", 1).rows.len(), 1);
    }
}
