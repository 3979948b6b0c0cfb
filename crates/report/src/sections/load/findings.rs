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
        not_durable,
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
    // A commit that waits for no flush is not compared with one: the
    // not-durable finding says what it is.
    if no_flush_wait(x).is_some() {
        return;
    }
    if let (Some(ratio), Some(flush)) = (d.sync_to_flush_ratio, d.flush_latency_ns) {
        let no_grouping = no_grouping(x);
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
        )
        .with_impact(flush_share_pct(x).unwrap_or(0.0), COMMIT_TIME));
    }
}

/// What a load finding's impact is a share of.
pub const COMMIT_TIME: &str = "commit time";

/// The share of a commit's time that is log flushes, percent, from the
/// 'log file sync' / 'log file parallel write' ratio: at one session a
/// commit waits for one flush (1 / ratio); at several, for the flush in
/// progress and then its own (2 / ratio); without group commit, for the
/// flushes of every session queued ahead of it on the write lock
/// (sessions / ratio). At most 100.
pub fn flush_share_pct(x: &LoadResult) -> Option<f64> {
    let ratio = x.derived.sync_to_flush_ratio.filter(|&r| r > 0.0)?;
    x.derived.flush_latency_ns?;
    let sessions = f64::from(x.config.sessions.max(1));
    let flushes = if no_grouping(x) {
        sessions
    } else {
        sessions.min(2.0)
    };
    Some((100.0 * flushes / ratio).min(100.0))
}

/// Several sessions, and each log flush carried about one commit: no
/// group commit (SQLite's one writer at a time).
pub fn no_grouping(x: &LoadResult) -> bool {
    x.config.sessions > 1 && x.derived.commits_per_flush.is_some_and(|n| n < 1.05)
}

/// A commit that waits for its log flush shares the flush with at most
/// one commit of each other session: more commits per flush than this
/// many times the sessions means commits did not wait.
pub const COMMITS_PER_FLUSH_SLACK: f64 = 1.5;

/// A commit that waits for a flush cannot take less than the flush: a
/// mean commit under this share of the mean flush did not wait.
pub const COMMIT_UNDER_FLUSH: f64 = 0.5;

/// Why the commits of `x` waited for no log flush, in words, when they
/// did not: a setting that acknowledges commits before they are durable
/// (PostgreSQL synchronous_commit=off or fsync=off, SQLite synchronous=OFF,
/// or NORMAL in WAL mode), no flush at all in the run, more commits per
/// flush than the sessions could have waiting, or commits far faster than
/// a flush.
pub fn no_flush_wait(x: &LoadResult) -> Option<String> {
    let setting = |n: &str| {
        x.server
            .settings
            .iter()
            .find(|s| s.name.eq_ignore_ascii_case(n))
            .map(|s| s.value.to_ascii_lowercase())
    };
    if setting("synchronous_commit").as_deref() == Some("off") {
        return Some("synchronous_commit=off".into());
    }
    if setting("fsync").as_deref() == Some("off") {
        return Some("fsync=off".into());
    }
    match setting("synchronous").as_deref() {
        Some("off" | "0") => return Some("synchronous=off".into()),
        Some("normal" | "1") if setting("journal_mode").as_deref() == Some("wal") => {
            return Some(
                "synchronous=normal in WAL mode: commits are synced at checkpoints only".into(),
            )
        }
        _ => {}
    }
    let d = &x.derived;
    if x.commits > 0 && x.flush.flushes == Some(0) {
        return Some(format!("no log flush in {} commits", x.commits));
    }
    let sessions = f64::from(x.config.sessions.max(1));
    if let Some(cpf) = d
        .commits_per_flush
        .filter(|&c| c > COMMITS_PER_FLUSH_SLACK * sessions)
    {
        return Some(format!(
            "{cpf:.0} commits per log flush at {} session{}: a commit that waits for its flush shares it with at most one commit of each other session",
            x.config.sessions,
            plural(x.config.sessions)
        ));
    }
    if let Some(r) = d
        .sync_to_flush_ratio
        .filter(|&r| r > 0.0 && r < COMMIT_UNDER_FLUSH)
    {
        return Some(format!(
            "the mean commit took {r:.2}x the mean log flush: a commit that waits for a flush cannot be faster than it"
        ));
    }
    None
}

/// Commits acknowledged before they are durable: named, never called
/// group commit nor compared with a flush.
fn not_durable(x: &LoadResult, v: &mut Vec<Finding>) {
    let Some(why) = no_flush_wait(x) else {
        return;
    };
    let mut evidence = vec![
        ev("commits per second", x.tps, "ops/s"),
        ev("median commit", x.commit.p50_ns() as f64, "ns"),
    ];
    if let Some(cpf) = x.derived.commits_per_flush {
        evidence.push(ev("commits per flush", cpf, "count"));
    }
    if let Some(f) = x.derived.flush_latency_ns {
        evidence.push(ev("mean flush", f, "ns"));
    }
    v.push(
        finding(
            "load.not_durable",
            Some(x.name.as_str()),
            Severity::Warning,
            format!(
                "{}: commits waited for no log flush ({why}): they were acknowledged before they were durable, so a crash can lose the last of them; {} commits per second (median {}) are not a durable commit's figures and say nothing about the log storage.",
                x.name,
                format_count_rate(x.tps),
                format_ns(x.commit.p50_ns() as f64)
            ),
            evidence,
            Some(doc("docs/load.md")),
        )
        .with_impact(100.0, COMMIT_TIME),
    );
}

/// How many commits each flush carried.
fn group_commit(x: &LoadResult, v: &mut Vec<Finding>) {
    let name = Some(x.name.as_str());
    let c = &x.config;
    let d = &x.derived;
    if no_flush_wait(x).is_some() {
        return;
    }
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
/// Its impact is the flushes' share of the commit time
/// ([`flush_share_pct`]); commits that wait for no flush are not bound by
/// it (the not-durable finding says what they are).
fn flush_bound(x: &LoadResult, v: &mut Vec<Finding>) {
    let name = Some(x.name.as_str());
    let d = &x.derived;
    if no_flush_wait(x).is_some() {
        return;
    }
    if let Some(u) = d.flush_utilisation.filter(|&u| u >= FLUSH_BOUND) {
        let mut evidence = vec![ev("flush time over wall time", 100.0 * u, "%")];
        let share = flush_share_pct(x);
        if let Some(p) = share {
            evidence.push(ev("flushes' share of the commit time", p, "%"));
        }
        let f = finding(
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
            evidence,
            Some(doc("docs/load.md")),
        );
        v.push(match share {
            Some(p) => f.with_impact(p, COMMIT_TIME),
            None => f,
        });
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
        // Its impact is the flushes' share of the commit time, as the
        // commit-against-flush finding's.
        let share = flush_share_pct(&x).unwrap();
        let impact = b.impact.as_ref().unwrap_or_else(|| panic!("{b:?}"));
        assert_eq!(impact.share_pct, share);
        assert_eq!(impact.of, COMMIT_TIME);
        // Commits that waited for no flush are not bound by it.
        setting(&mut x, "synchronous_commit", "off");
        assert!(!rules(&run(&x)).contains(&"load.flush_bound"));
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

    fn setting(x: &mut LoadResult, name: &str, value: &str) {
        x.server.settings.push(dbio_model::load::Setting {
            name: name.into(),
            value: value.into(),
        });
    }

    /// PostgreSQL with synchronous_commit=off at 10 sessions: 3419.56
    /// commits per flush, a mean commit of 50 µs against a 1 ms flush.
    /// Not group commit, not "about one flush": not durable.
    #[test]
    fn commits_that_wait_for_no_flush_are_not_called_group_commit() {
        let mut x = result(10, 200_000.0, 50_000.0, Some(1_000_000.0));
        x.config.engine = "postgresql".into();
        x.derived.commits_per_flush = Some(3419.56);
        setting(&mut x, "synchronous_commit", "off");
        let fs = run(&x);
        assert!(rules(&fs).contains(&"load.not_durable"), "{:?}", rules(&fs));
        assert!(
            !rules(&fs).contains(&"load.group_commit"),
            "{:?}",
            rules(&fs)
        );
        assert!(
            !rules(&fs).contains(&"load.sync_vs_flush"),
            "{:?}",
            rules(&fs)
        );
        let f = one(&fs, "load.not_durable");
        assert_eq!(f.severity, Severity::Warning);
        assert!(f.text.contains("(synchronous_commit=off)"), "{}", f.text);
        assert!(
            f.text.contains("acknowledged before they were durable"),
            "{}",
            f.text
        );
        for f in &fs {
            assert!(!f.text.contains("Group commit put"), "{}", f.text);
            assert!(!f.text.contains("costs about one flush"), "{}", f.text);
        }
    }

    /// Without the setting in the echo, the figures alone tell: more than
    /// 1.5 commits per flush per session, or a mean commit under half
    /// the mean flush.
    #[test]
    fn the_figures_alone_tell_commits_that_did_not_wait_at_their_thresholds() {
        let mut x = result(10, 20_000.0, 1_000_000.0, Some(900_000.0));
        x.derived.commits_per_flush = Some(15.01);
        assert!(no_flush_wait(&x)
            .unwrap()
            .contains("15 commits per log flush at 10 sessions"));
        x.derived.commits_per_flush = Some(15.0);
        assert_eq!(no_flush_wait(&x), None);
        assert!(rules(&run(&x)).contains(&"load.group_commit"));
        x.derived.sync_to_flush_ratio = Some(0.49);
        assert!(no_flush_wait(&x)
            .unwrap()
            .contains("0.49x the mean log flush"));
        x.derived.sync_to_flush_ratio = Some(0.5);
        assert_eq!(no_flush_wait(&x), None);
        // No flush at all in the run; SQLite synchronous=OFF, NORMAL in WAL.
        let mut y = result(1, 60_000.0, 8_000.0, None);
        y.flush.flushes = Some(0);
        assert!(no_flush_wait(&y)
            .unwrap()
            .starts_with("no log flush in 10000 commits"));
        let mut z = result(1, 60_000.0, 8_000.0, None);
        setting(&mut z, "journal_mode", "wal");
        setting(&mut z, "synchronous", "normal");
        assert!(no_flush_wait(&z)
            .unwrap()
            .starts_with("synchronous=normal in WAL mode"));
        let mut full = result(1, 4_000.0, 250_000.0, Some(200_000.0));
        setting(&mut full, "journal_mode", "wal");
        setting(&mut full, "synchronous", "full");
        assert_eq!(no_flush_wait(&full), None);
    }

    /// The flush's share of a commit: 1 / ratio at one session, 2 / ratio
    /// at several, sessions / ratio without group commit; at most 100.
    #[test]
    fn the_flush_share_of_a_commit_follows_the_sessions() {
        let one_session = result(1, 1.0, 400_000.0, Some(100_000.0));
        assert_eq!(flush_share_pct(&one_session), Some(25.0));
        let mut grouped = result(10, 1.0, 400_000.0, Some(100_000.0));
        grouped.derived.commits_per_flush = Some(4.0);
        assert_eq!(flush_share_pct(&grouped), Some(50.0));
        let queued = result(4, 1.0, 500_000.0, Some(100_000.0));
        assert_eq!(flush_share_pct(&queued), Some(80.0));
        let f = one(&run(&queued), "load.sync_vs_flush");
        assert_eq!(f.impact.as_ref().unwrap().of, "commit time");
        assert!((f.share() - 80.0).abs() < 1e-9);
        assert_eq!(flush_share_pct(&result(1, 1.0, 1.0, None)), None);
    }
}
