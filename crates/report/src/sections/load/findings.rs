//! Commit load on a real engine in words (`dbio load` and the database
//! section of `dbio check`): how often the sessions committed, how the
//! client's commit latency compares with the engine's flush latency
//! ('log file sync' against 'log file parallel write'), what group commit
//! did, whether the flush path was the bottleneck, whether the figures
//! add up, and how long the slowest commit took.
//!
//! Thresholds: a commit/flush ratio near 1 at one session and up to about
//! 2 when commits queue behind the flush in progress is the expected
//! shape (James Morle's argument as retold in Nikolay Savvinov's "How not
//! to troubleshoot log file sync waits"); above 2.5 something other than
//! the flush is in the commit path. A flush path busy 80 % of the time or
//! more bounds the commit rate. The consistency check flags a 25 %
//! difference between measured TPS and sessions / mean transaction time.

use crate::kit::findings::RuleSet;
use crate::kit::findings::{ev, finding, plural, Finding, Severity};
use crate::kit::references::{doc, log_file_sync, savvinov_log_file_sync};
use dbio_model::load::LoadResult;
use dbio_model::units::{format_count_rate, format_ns};
use dbio_model::RunReport;

/// The load rules.
pub const RULES: RuleSet<RunReport> = RuleSet {
    area: "load",
    evaluate,
};

/// Above this 'log file sync' / 'log file parallel write' ratio, more
/// than queueing behind one flush is in the commit path.
pub const RATIO_MORE_THAN_QUEUEING: f64 = 2.5;
/// Flush time over wall time from which the flush path bounds the rate.
pub const FLUSH_BOUND: f64 = 0.8;
/// Relative difference that fails the consistency check.
pub const INCONSISTENT: f64 = 0.25;
/// Longest over median commit from which the tail is worth a look.
pub const SLOW_TAIL: f64 = 100.0;

fn evaluate(r: &RunReport) -> Vec<Finding> {
    match r.command.as_str() {
        // A comparison's findings come from each configuration's first
        // round (the others would repeat them); its table has the rest.
        "load" => r
            .load
            .iter()
            .filter(|x| x.round.as_ref().is_none_or(|k| k.round == 1))
            .flat_map(run)
            .collect(),
        "check" => check_section(&r.load),
        _ => Vec::new(),
    }
}

/// One run's findings.
pub fn run(x: &LoadResult) -> Vec<Finding> {
    let mut v = Vec::new();
    if x.commits == 0 {
        return v;
    }
    for rule in [
        commit_rate,
        commit_against_flush,
        group_commit,
        flush_bound,
        consistency,
        slow_tail,
        super::predict_findings::prediction,
    ] {
        rule(x, &mut v);
    }
    v
}

/// How often the run committed, and its median and p99 commit.
fn commit_rate(x: &LoadResult, v: &mut Vec<Finding>) {
    let name = Some(x.name.as_str());
    let c = &x.config;
    v.push(finding(
        "load.commit_rate",
        name,
        Severity::Info,
        format!(
            "{} {} with {} session{} committed about {} times per second; median commit {}, p99 {}.",
            c.engine,
            x.server.version,
            c.sessions,
            plural(c.sessions),
            format_count_rate(x.tps),
            format_ns(x.commit.p50_ns() as f64),
            format_ns(x.commit.p99_ns() as f64)
        ),
        vec![
            ev("commits per second", x.tps, "ops/s"),
            ev("median commit", x.commit.p50_ns() as f64, "ns"),
            ev("p99 commit", x.commit.p99_ns() as f64, "ns"),
        ],
        Some(doc("docs/load.md")),
    ));
}

/// The commit ('log file sync') against the flush ('log file parallel write').
fn commit_against_flush(x: &LoadResult, v: &mut Vec<Finding>) {
    let name = Some(x.name.as_str());
    let c = &x.config;
    let d = &x.derived;
    if let (Some(ratio), Some(flush)) = (d.sync_to_flush_ratio, d.flush_latency_ns) {
        let no_grouping = c.sessions > 1 && d.commits_per_flush.is_some_and(|n| n < 1.05);
        let queue;
        let (severity, reading) = if no_grouping && ratio > RATIO_MORE_THAN_QUEUEING {
            queue = format!(
                "without group commit a commit waits for the sessions ahead of it on the write lock, each with a flush of its own (up to {} flushes at {} sessions)",
                c.sessions, c.sessions
            );
            (Severity::Info, queue.as_str())
        } else if ratio > RATIO_MORE_THAN_QUEUEING {
            (
                Severity::Notice,
                "more than waiting for the flush in progress and then for one's own is in the commit path (CPU, lock waits, a delay setting, polling)",
            )
        } else if ratio >= 1.5 {
            (
                Severity::Info,
                "commits queue behind the flush in progress, then wait for their own: the expected shape under concurrency",
            )
        } else {
            (Severity::Info, "a commit costs about one flush")
        };
        v.push(finding(
            "load.sync_vs_flush",
            name,
            severity,
            format!(
                "Mean commit {} against a mean log flush of {} ({ratio:.2}x, 'log file sync' over 'log file parallel write'): {reading}.",
                format_ns(x.commit.mean_ns),
                format_ns(flush)
            ),
            vec![
                ev("mean commit ('log file sync')", x.commit.mean_ns, "ns"),
                ev("mean flush ('log file parallel write')", flush, "ns"),
                ev("ratio", ratio, "x"),
            ],
            Some(savvinov_log_file_sync()),
        ));
    }
}

/// How many commits each flush carried.
fn group_commit(x: &LoadResult, v: &mut Vec<Finding>) {
    let name = Some(x.name.as_str());
    let c = &x.config;
    let d = &x.derived;
    if let Some(cpf) = d.commits_per_flush {
        let text = if cpf < 1.05 && c.sessions > 1 {
            format!(
                "Each log flush covered {cpf:.2} commits: no group commit at {} sessions{}.",
                c.sessions,
                if c.engine == "sqlite" {
                    " (SQLite lets one connection write at a time and syncs each commit's WAL frames itself; more sessions queue on the write lock)"
                } else {
                    ""
                }
            )
        } else {
            format!("Group commit put {cpf:.2} commits in each log flush.")
        };
        v.push(finding(
            "load.group_commit",
            name,
            Severity::Info,
            text,
            vec![
                ev("commits per flush", cpf, "count"),
                ev("sessions", f64::from(c.sessions), "count"),
            ],
            Some(log_file_sync()),
        ));
    }
}

/// A flush path busy nearly all the time: the storage bounds the rate.
fn flush_bound(x: &LoadResult, v: &mut Vec<Finding>) {
    let name = Some(x.name.as_str());
    let d = &x.derived;
    if let Some(u) = d.flush_utilisation.filter(|&u| u >= FLUSH_BOUND) {
        v.push(finding(
            "load.flush_bound",
            name,
            Severity::Notice,
            format!(
                "The log flush path was busy {:.0} % of the run: the commit rate is bound by the flush latency of this storage{}.",
                100.0 * u,
                d.flush_latency_ns
                    .map(|l| format!(" ({} per flush)", format_ns(l)))
                    .unwrap_or_default()
            ),
            vec![ev("flush time over wall time", 100.0 * u, "%")],
            Some(doc("docs/load.md")),
        ));
    }
}

/// Whether the measured rate agrees with the latencies and the flushes.
fn consistency(x: &LoadResult, v: &mut Vec<Finding>) {
    let name = Some(x.name.as_str());
    let d = &x.derived;
    if d.tps_from_latency > 0.0 && x.tps > 0.0 {
        let off = (d.tps_from_latency - x.tps).abs() / x.tps;
        if off > INCONSISTENT {
            v.push(finding(
                "load.consistency",
                name,
                Severity::Notice,
                format!(
                    "Sessions / mean transaction time gives {} commits per second against {} measured ({:.0} % apart): the sessions spent time outside their transactions (client CPU, scheduling, connection) or the latency is skewed by a few long waits.",
                    format_count_rate(d.tps_from_latency),
                    format_count_rate(x.tps),
                    100.0 * off
                ),
                vec![
                    ev("commits per second, measured", x.tps, "ops/s"),
                    ev("commits per second, from latency", d.tps_from_latency, "ops/s"),
                ],
                Some(doc("docs/load.md")),
            ));
        }
    }
}

/// A slowest commit far above the median.
fn slow_tail(x: &LoadResult, v: &mut Vec<Finding>) {
    let name = Some(x.name.as_str());
    let p50 = x.commit.p50_ns() as f64;
    if p50 > 0.0 && x.commit.max_ns as f64 > SLOW_TAIL * p50 {
        v.push(finding(
            "load.slow_tail",
            name,
            Severity::Notice,
            format!(
                "The slowest commit took {}, {:.0} times the median {}.",
                format_ns(x.commit.max_ns as f64),
                x.commit.max_ns as f64 / p50,
                format_ns(p50)
            ),
            vec![
                ev("longest commit", x.commit.max_ns as f64, "ns"),
                ev("median commit", p50, "ns"),
            ],
            Some(doc("docs/load.md")),
        ));
    }
}

/// `dbio check`'s database section: SQLite at 1 and at 10 sessions.
fn check_section(xs: &[LoadResult]) -> Vec<Finding> {
    let (Some(one), Some(ten)) = (
        xs.iter().find(|x| x.config.sessions == 1),
        xs.iter().find(|x| x.config.sessions == 10),
    ) else {
        return Vec::new();
    };
    vec![finding(
        "load.check",
        None,
        Severity::Info,
        format!(
            "A real database engine (SQLite, embedded, WAL with synchronous=FULL) commits about {} times per second here at 1 session and about {} at 10 sessions (median commit {} and {}).",
            format_count_rate(one.tps),
            format_count_rate(ten.tps),
            format_ns(one.commit.p50_ns() as f64),
            format_ns(ten.commit.p50_ns() as f64)
        ),
        vec![
            ev("commits per second, 1 session", one.tps, "ops/s"),
            ev("commits per second, 10 sessions", ten.tps, "ops/s"),
            ev("median commit, 1 session", one.commit.p50_ns() as f64, "ns"),
            ev("median commit, 10 sessions", ten.commit.p50_ns() as f64, "ns"),
        ],
        Some(doc("docs/load.md")),
    )]
}

#[cfg(test)]
mod tests {
    use super::*;
    use dbio_model::{LatencySummary, Percentile};

    fn result(sessions: u32, tps: f64, mean_ns: f64, flush_ns: Option<f64>) -> LoadResult {
        let mut x = LoadResult {
            name: "load".into(),
            commits: 10_000,
            tps,
            runtime_ns: 1_000_000_000,
            commit: LatencySummary {
                count: 10_000,
                mean_ns,
                max_ns: (2.0 * mean_ns) as u64,
                percentiles: vec![
                    Percentile {
                        p: 50.0,
                        ns: mean_ns as u64,
                    },
                    Percentile {
                        p: 99.0,
                        ns: (1.5 * mean_ns) as u64,
                    },
                ],
                ..Default::default()
            },
            ..Default::default()
        };
        x.config.sessions = sessions;
        x.derived.tps_from_latency = tps;
        if let Some(f) = flush_ns {
            x.derived.flush_latency_ns = Some(f);
            x.derived.sync_to_flush_ratio = Some(mean_ns / f);
            x.derived.commits_per_flush = Some(1.0);
        }
        x
    }

    fn rules(fs: &[Finding]) -> Vec<&str> {
        fs.iter().map(|f| f.rule.as_str()).collect()
    }

    fn one(fs: &[Finding], rule: &str) -> Finding {
        fs.iter()
            .find(|f| f.rule == rule)
            .unwrap_or_else(|| panic!("no {rule} in {:?}", rules(fs)))
            .clone()
    }

    #[test]
    fn the_commit_to_flush_ratio_is_read_at_its_thresholds() {
        let at = |ratio: f64| {
            let mut x = result(10, 1000.0, ratio * 1e5, Some(1e5));
            x.derived.commits_per_flush = Some(4.0);
            one(&run(&x), "load.sync_vs_flush")
        };
        assert!(at(1.0).text.contains("about one flush"));
        assert_eq!(at(1.0).severity, Severity::Info);
        assert!(at(2.0).text.contains("queue behind"));
        assert_eq!(at(2.5).severity, Severity::Info);
        let high = at(2.6);
        assert_eq!(high.severity, Severity::Notice);
        assert!(high.text.contains("more than waiting"), "{}", high.text);
        assert!(rules(&run(&result(10, 1000.0, 1e6, None)))
            .iter()
            .all(|r| *r != "load.sync_vs_flush"));
    }

    #[test]
    fn without_group_commit_a_high_ratio_is_the_queue_on_the_write_lock() {
        let mut x = result(10, 1000.0, 12e5, Some(1e5));
        x.derived.commits_per_flush = Some(1.0);
        let f = one(&run(&x), "load.sync_vs_flush");
        assert_eq!(f.severity, Severity::Info);
        assert!(
            f.text.contains("up to 10 flushes at 10 sessions"),
            "{}",
            f.text
        );
        x.derived.commits_per_flush = Some(4.0);
        assert_eq!(
            one(&run(&x), "load.sync_vs_flush").severity,
            Severity::Notice
        );
    }

    #[test]
    fn no_group_commit_is_said_for_sqlite_and_a_busy_flush_path_is_a_notice() {
        let mut x = result(10, 1000.0, 1e6, Some(1e6));
        x.config.engine = "sqlite".into();
        let g = one(&run(&x), "load.group_commit");
        assert!(
            g.text.contains("no group commit at 10 sessions"),
            "{}",
            g.text
        );
        assert!(
            g.text.contains("one connection write at a time"),
            "{}",
            g.text
        );
        x.derived.commits_per_flush = Some(4.2);
        let g = one(&run(&x), "load.group_commit");
        assert!(g.text.contains("4.20 commits in each"), "{}", g.text);
        x.derived.flush_utilisation = Some(0.79);
        assert!(!rules(&run(&x)).contains(&"load.flush_bound"));
        x.derived.flush_utilisation = Some(0.8);
        let b = one(&run(&x), "load.flush_bound");
        assert_eq!(b.severity, Severity::Notice);
        assert!(b.text.contains("busy 80 %"), "{}", b.text);
    }

    #[test]
    fn an_inconsistent_rate_and_a_slow_tail_are_flagged() {
        let mut x = result(10, 1000.0, 1e6, Some(1e6));
        x.derived.tps_from_latency = 1250.0;
        assert!(!rules(&run(&x)).contains(&"load.consistency"));
        x.derived.tps_from_latency = 1260.0;
        assert!(rules(&run(&x)).contains(&"load.consistency"));
        assert!(!rules(&run(&x)).contains(&"load.slow_tail"));
        x.commit.max_ns = 100_000_001;
        let t = one(&run(&x), "load.slow_tail");
        assert!(t.text.contains("100 times the median"), "{}", t.text);
        let empty = LoadResult::default();
        assert!(run(&empty).is_empty());
    }

    #[test]
    fn check_says_how_often_a_real_engine_commits_at_1_and_10_sessions() {
        let r = RunReport {
            command: "check".into(),
            load: vec![result(1, 2000.0, 5e5, None), result(10, 3000.0, 3e6, None)],
            ..Default::default()
        };
        let fs = evaluate(&r);
        assert_eq!(rules(&fs), ["load.check"]);
        assert!(
            fs[0].text.starts_with("A real database engine (SQLite, embedded")
                && fs[0].text.contains("about 2.00 k times per second here at 1 session and about 3.00 k at 10 sessions"),
            "{}",
            fs[0].text
        );
        assert!(evaluate(&RunReport {
            command: "check".into(),
            load: vec![result(1, 2000.0, 5e5, None)],
            ..Default::default()
        })
        .is_empty());
    }
}
