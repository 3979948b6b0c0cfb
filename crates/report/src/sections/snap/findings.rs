//! A snapshot interval in words (`dbio snap`), beside the AWR rules that
//! read its DB time split and top events as they read a report's:
//!
//! * every statistic the server does not track with its settings, named
//!   with the setting that would enable it (a notice: a figure the
//!   verdict could have used is missing);
//! * what this role may not see (a notice naming the grant);
//! * counters that went backwards inside the interval (a reset or a
//!   restart: a warning, the figures are a lower bound);
//! * an interval cut short by a signal (a warning);
//! * group commit: commits per WAL or redo flush;
//! * the sampler's own cost and the counting error of DB time (sampled
//!   time is n ± √n periods: under [`FEW_SAMPLES`] active samples the
//!   split is a hint);
//! * an idle interval (no session active in any sample);
//! * with `--watch`, where a commit's time goes ([`super::layers`]).

use crate::kit::findings::{ev, finding, Finding, RuleSet, Severity};
use crate::kit::references::doc;
use dbio_model::awr::AwrReport;

/// The snapshot rules (they draw nothing for a report read from a file).
pub const RULES: RuleSet<AwrReport> = RuleSet {
    area: "snap",
    evaluate,
};

/// Under this many active-session samples, DB time's split is said to
/// be a hint: n samples are n ± √n, so 10 samples are ± 32 %.
pub const FEW_SAMPLES: f64 = 10.0;

/// From this share of one CPU (percent) over the interval, the sampler's
/// own server CPU is worth a notice.
pub const SAMPLER_CPU_NOTICE_PCT: f64 = 1.0;

fn evaluate(r: &AwrReport) -> Vec<Finding> {
    let Some(s) = &r.snap else {
        return Vec::new();
    };
    let source = Some(doc("docs/snap.md"));
    let mut out = Vec::new();
    if let Some(sig) = &s.partial {
        let elapsed = r.header.elapsed_s.unwrap_or(0.0);
        out.push(finding(
            "snap.partial",
            Some("interval"),
            Severity::Warning,
            format!(
                "the interval was cut short by {sig} after {elapsed:.1} s of {:.1} s: its figures cover the shorter interval",
                s.planned_s
            ),
            vec![ev("elapsed", elapsed, "s"), ev("planned", s.planned_s, "s")],
            source.clone(),
        ));
    }
    for reset in &s.resets {
        out.push(finding(
            if reset.restart {
                "snap.restart"
            } else {
                "snap.reset"
            },
            Some(&reset.group),
            Severity::Warning,
            reset.text.clone(),
            Vec::new(),
            source.clone(),
        ));
    }
    for t in &s.not_tracked {
        out.push(finding(
            "snap.not_tracked",
            Some(&t.setting),
            Severity::Notice,
            format!(
                "{} is off: {} (enable: {}; dbio changes no setting)",
                t.setting, t.missing, t.enable
            ),
            Vec::new(),
            source.clone(),
        ));
    }
    for h in &s.hidden {
        out.push(finding(
            "snap.hidden",
            None,
            Severity::Notice,
            h.clone(),
            Vec::new(),
            source.clone(),
        ));
    }
    for n in &s.notes {
        out.push(finding(
            "snap.note",
            None,
            Severity::Info,
            n.clone(),
            Vec::new(),
            source.clone(),
        ));
    }
    out.extend(super::layers::finding_of(r));
    group_commit(r, &mut out);
    sampling(r, &mut out);
    untimed(r, &mut out);
    out
}

/// From this share of DB time (percent) in no timed wait, a MariaDB
/// interval says what that time may hold.
pub const UNTIMED_SHARE: f64 = 10.0;

/// MariaDB: DB time (the statements' timers) less the timed waits is CPU
/// and the waits no instrument times, the redo log's fsync among them.
fn untimed(r: &AwrReport, out: &mut Vec<Finding>) {
    if r.kind != dbio_model::awr::ReportKind::MariadbSnap {
        return;
    }
    let Some(db) = r.header.db_time_s.filter(|d| *d > 0.0) else {
        return;
    };
    let waits: f64 = r
        .foreground_events
        .iter()
        .filter_map(|e| e.time_s)
        .sum::<f64>()
        + 0.0;
    let share = 100.0 * (db - waits).max(0.0) / db;
    if share >= UNTIMED_SHARE {
        out.push(
            finding(
                "snap.untimed",
                Some("DB time in no timed wait"),
                crate::verdict::severity_of_share(share),
                format!(
                    "{share:.1} % of DB time ({:.1} s of {db:.1} s) is in no timed wait: CPU, and waits MariaDB does not time, among them the redo log's write and fsync at commit (no instrument since MDEV-27848); OS tracing (dbio watch) tells them apart",
                    db - waits
                ),
                vec![ev("timed waits", waits, "s"), ev("DB time", db, "s")],
                Some(doc("docs/snap.md")),
            )
            .with_impact(share, "DB time"),
        );
    }
}

/// Commits per log flush: group commit at work above 1.
fn group_commit(r: &AwrReport, out: &mut Vec<Finding>) {
    let (Some(per), Some(commits)) = (r.derived.commits_per_redo_write, r.stat("user commits"))
    else {
        return;
    };
    if commits <= 0.0 {
        return;
    }
    let flushes = commits / per;
    let reading = if per >= 1.5 {
        "group commit at work: one flush made several commits durable"
    } else {
        "about one flush per commit: the commits did not overlap enough to share a flush"
    };
    out.push(finding(
        "snap.group_commit",
        Some("commits per flush"),
        Severity::Info,
        format!("{per:.2} commits per log flush ({commits:.0} commits, {flushes:.0} flushes): {reading}"),
        vec![
            ev("commits", commits, "count"),
            ev("log flushes", flushes, "count"),
            ev("commits per flush", per, "x"),
        ],
        Some(doc("docs/snap.md")),
    ));
}

/// The sampler's cost, the counting error of DB time, an idle interval.
fn sampling(r: &AwrReport, out: &mut Vec<Finding>) {
    let Some(s) = r.snap.as_ref() else { return };
    let Some(c) = &s.sampler else { return };
    let elapsed = r.header.elapsed_s.unwrap_or(0.0);
    let mut evidence = vec![
        ev("samples", c.samples as f64, "count"),
        ev("sample period", c.period_s, "s"),
        ev("mean sample query", c.mean_query_us * 1000.0, "ns"),
        ev("slowest sample query", c.max_query_us * 1000.0, "ns"),
    ];
    let cpu = match c.server_cpu_s {
        Some(cpu) if elapsed > 0.0 => {
            let pct = 100.0 * cpu / elapsed;
            evidence.push(ev("sampler's server CPU", cpu, "s"));
            evidence.push(ev("of one CPU", pct, "%"));
            Some(pct)
        }
        _ => None,
    };
    let cpu_words = cpu.map_or_else(
        || "; its server CPU is not known (the server is not on this host)".to_string(),
        |p| format!("; its backend used {p:.2} % of one CPU"),
    );
    let late = if c.late > 0 {
        format!(
            "; {} samples came late (the server or this host was busy)",
            c.late
        )
    } else {
        String::new()
    };
    out.push(finding(
        "snap.sampler_cost",
        Some("sampler"),
        if cpu.is_some_and(|p| p >= SAMPLER_CPU_NOTICE_PCT) || c.late > 0 {
            Severity::Notice
        } else {
            Severity::Info
        },
        format!(
            "the sampler read pg_stat_activity {} times every {}, {:.0} µs per read on average{cpu_words}{late}",
            c.samples,
            dbio_model::units::format_ns(c.period_s * 1e9),
            c.mean_query_us
        ),
        evidence,
        Some(doc("docs/snap.md")),
    ));
    let db = r.header.db_time_s.unwrap_or(0.0);
    let active = if c.period_s > 0.0 {
        db / c.period_s
    } else {
        0.0
    };
    if c.samples > 0 && db <= 0.0 {
        out.push(finding(
            "snap.idle",
            Some("DB time"),
            Severity::Info,
            format!(
                "no session was active in any of the {} samples: the server was idle over the interval, or its sessions ran between the samples (shorter than {})",
                c.samples,
                dbio_model::units::format_ns(c.period_s * 1e9)
            ),
            vec![ev("samples", c.samples as f64, "count")],
            Some(doc("docs/snap.md")),
        ));
    } else if active > 0.0 && active < FEW_SAMPLES {
        out.push(finding(
            "snap.few_samples",
            Some("DB time"),
            Severity::Notice,
            format!(
                "DB time rests on {active:.0} active-session samples (± {:.0} %): its split is a hint, not a measure; a longer --interval or a shorter --sample-period gives more",
                100.0 / active.sqrt()
            ),
            vec![ev("active samples", active, "count")],
            Some(doc("docs/snap.md")),
        ));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use dbio_model::snap::{CounterReset, NotTracked, SamplerCost, SnapInfo};

    fn snap(info: SnapInfo) -> AwrReport {
        let mut r = AwrReport {
            snap: Some(info),
            ..Default::default()
        };
        r.header.elapsed_s = Some(60.0);
        r
    }

    fn rules(r: &AwrReport) -> Vec<String> {
        evaluate(r).into_iter().map(|f| f.rule).collect()
    }

    #[test]
    fn a_report_from_a_file_draws_nothing() {
        assert!(evaluate(&AwrReport::default()).is_empty());
    }

    #[test]
    fn untracked_hidden_reset_and_partial_are_each_said() {
        let r = snap(SnapInfo {
            planned_s: 120.0,
            partial: Some("SIGINT".into()),
            not_tracked: vec![NotTracked {
                setting: "track_wal_io_timing".into(),
                missing: "WAL times".into(),
                enable: "ALTER SYSTEM SET track_wal_io_timing = on".into(),
            }],
            hidden: vec!["role x is not a member of pg_monitor".into()],
            resets: vec![CounterReset {
                group: "pg_stat_wal".into(),
                restart: false,
                text: "pg_stat_wal: reset".into(),
            }],
            ..Default::default()
        });
        assert_eq!(
            rules(&r),
            [
                "snap.partial",
                "snap.reset",
                "snap.not_tracked",
                "snap.hidden"
            ]
        );
        let f = evaluate(&r);
        assert!(f[0]
            .text
            .contains("cut short by SIGINT after 60.0 s of 120.0 s"));
        assert!(f[2]
            .text
            .contains("enable: ALTER SYSTEM SET track_wal_io_timing = on"));
    }

    fn sampled(samples: u64, db_time_s: f64, cpu_s: Option<f64>) -> AwrReport {
        let mut r = snap(SnapInfo {
            sampler: Some(SamplerCost {
                samples,
                period_s: 1.0,
                mean_query_us: 300.0,
                max_query_us: 900.0,
                late: 0,
                server_cpu_s: cpu_s,
            }),
            ..Default::default()
        });
        r.header.db_time_s = Some(db_time_s);
        r
    }

    #[test]
    fn sampler_cost_is_a_notice_from_one_percent_of_a_cpu() {
        // 0.59 s of 60 s is 0.98 %; 0.6 s is 1 %.
        let f = evaluate(&sampled(60, 100.0, Some(0.59)));
        assert_eq!(f[0].rule, "snap.sampler_cost");
        assert_eq!(f[0].severity, Severity::Info);
        assert!(f[0].text.contains("0.98 % of one CPU"), "{}", f[0].text);
        let f = evaluate(&sampled(60, 100.0, Some(0.6)));
        assert_eq!(f[0].severity, Severity::Notice);
        let f = evaluate(&sampled(60, 100.0, None));
        assert!(f[0].text.contains("not known"));
    }

    #[test]
    fn idle_and_few_samples_at_their_thresholds() {
        assert_eq!(
            rules(&sampled(60, 0.0, None)),
            ["snap.sampler_cost", "snap.idle"]
        );
        assert_eq!(
            rules(&sampled(60, 9.0, None)),
            ["snap.sampler_cost", "snap.few_samples"]
        );
        assert_eq!(rules(&sampled(60, 10.0, None)), ["snap.sampler_cost"]);
    }

    #[test]
    fn mariadb_time_in_no_timed_wait_from_a_tenth() {
        let mk = |waits: f64| {
            let mut r = snap(SnapInfo::default());
            r.kind = dbio_model::awr::ReportKind::MariadbSnap;
            r.header.db_time_s = Some(100.0);
            r.foreground_events.push(dbio_model::awr::WaitEventRow {
                name: "wait/io/file/sql/binlog".into(),
                time_s: Some(waits),
                ..Default::default()
            });
            r
        };
        assert!(rules(&mk(90.1)).is_empty());
        let f = evaluate(&mk(90.0));
        assert_eq!(f[0].rule, "snap.untimed");
        assert!(
            f[0].text
                .starts_with("10.0 % of DB time (10.0 s of 100.0 s)"),
            "{}",
            f[0].text
        );
    }

    #[test]
    fn group_commit_from_commits_per_flush() {
        let mut r = snap(SnapInfo::default());
        r.derived.commits_per_redo_write = Some(4.0);
        r.statistics.push(dbio_model::awr::StatRow {
            name: "user commits".into(),
            total: 1000.0,
            ..Default::default()
        });
        let f = evaluate(&r);
        assert_eq!(f[0].rule, "snap.group_commit");
        assert!(f[0]
            .text
            .contains("4.00 commits per log flush (1000 commits, 250 flushes): group commit"));
        r.derived.commits_per_redo_write = Some(1.2);
        assert!(evaluate(&r)[0].text.contains("about one flush per commit"));
    }
}
