//! `dbio load --compare` and the device baseline in words: whether a
//! configuration's difference from the first is larger than the
//! run-to-run range, whether a setting was left changed, and how the
//! database's commit compares with the storage's own durable write.
//!
//! Thresholds: a difference counts as measured only when the TPS ranges
//! over the rounds do not overlap (the same criterion as `dbio lgwr
//! --compare`'s table). For the baseline, a median commit within 1.5x of
//! the storage's 4 KiB write + `fdatasync` means the storage's flush is
//! most of a commit; at one session a commit of 3x or more means most of
//! it is elsewhere (at more sessions commits also queue behind each
//! other's flushes, about 2x by the queueing argument in Nikolay
//! Savvinov's "How not to troubleshoot log file sync waits", so only the
//! single-session reading is drawn).

use crate::kit::findings::RuleSet;
use crate::kit::findings::{ev, finding, Finding, Severity};
use crate::kit::references::{doc, savvinov_log_file_sync};
use dbio_model::load_compare::{LoadBaseline, LoadComparison};
use dbio_model::units::{format_count_rate, format_ns};
use dbio_model::RunReport;

/// The comparison and baseline rules.
pub const RULES: RuleSet<RunReport> = RuleSet {
    area: "load_compare",
    evaluate,
};

/// Commit over storage write at or below which the storage is most of a commit.
pub const STORAGE_BOUND: f64 = 1.5;
/// Commit over storage write under which a commit cannot have waited for
/// a durable write.
pub const NO_WAIT: f64 = 0.5;
/// Commit over storage write, at one session, from which most of a commit is elsewhere.
pub const ELSEWHERE: f64 = 3.0;

fn evaluate(r: &RunReport) -> Vec<Finding> {
    if r.command != "load" {
        return Vec::new();
    }
    let mut v = Vec::new();
    if let Some(c) = &r.load_compare {
        compared(c, &mut v);
        if let (Some(b), Some(first)) = (&c.baseline, c.configs.first()) {
            let sessions = r.load.first().map_or(0, |x| x.config.sessions);
            baseline(
                b,
                &first.config,
                first.commit_p50_ns.median,
                sessions,
                &mut v,
            );
        }
    }
    for x in &r.load {
        if let Some(b) = &x.baseline {
            baseline(
                b,
                &x.name,
                x.commit.p50_ns() as f64,
                x.config.sessions,
                &mut v,
            );
        }
    }
    v
}

fn compared(c: &LoadComparison, v: &mut Vec<Finding>) {
    let Some(first) = c.configs.first() else {
        return;
    };
    for x in c.configs.iter().skip(1) {
        if x.rounds == 0 || first.rounds == 0 {
            continue;
        }
        let verdict = if x.rounds < 2 || first.rounds < 2 {
            "with one round each that cannot be told from run-to-run variation"
        } else if x.beyond_range {
            "the ranges over the rounds do not overlap: the difference is larger than the run-to-run range"
        } else {
            "the ranges over the rounds overlap: the difference is within the run-to-run range, not a measured one"
        };
        v.push(finding(
            "load_compare.difference",
            Some(x.config.as_str()),
            Severity::Info,
            format!(
                "{} committed {} times per second against {} with {} ({:.2}x, medians over {} and {} rounds); {verdict}.",
                x.config,
                format_count_rate(x.tps.median),
                format_count_rate(first.tps.median),
                first.config,
                x.tps_ratio,
                x.rounds,
                first.rounds
            ),
            vec![
                ev("median commits per second", x.tps.median, "ops/s"),
                ev("lowest round", x.tps.min, "ops/s"),
                ev("highest round", x.tps.max, "ops/s"),
                ev("first configuration's median", first.tps.median, "ops/s"),
                ev("first configuration's lowest round", first.tps.min, "ops/s"),
                ev("first configuration's highest round", first.tps.max, "ops/s"),
            ],
            Some(doc("docs/load.md")),
        ));
    }
    for s in c.settings.iter().filter(|s| !s.restored) {
        v.push(finding(
            "load_compare.not_restored",
            Some(s.name.as_str()),
            Severity::Warning,
            format!(
                "{} could not be put back to {}: a warning below names the statement that restores it.",
                s.name, s.original
            ),
            Vec::new(),
            Some(doc("docs/load.md")),
        ));
    }
}

fn baseline(
    b: &LoadBaseline,
    subject: &str,
    commit_p50_ns: f64,
    sessions: u32,
    v: &mut Vec<Finding>,
) {
    let Some(storage) = b
        .before
        .iter()
        .chain(b.after.iter())
        .map(|p| p.latency.p50_ns() as f64)
        .filter(|&n| n > 0.0)
        .reduce(f64::min)
    else {
        return;
    };
    if commit_p50_ns <= 0.0 {
        return;
    }
    let ratio = commit_p50_ns / storage;
    let (severity, reading) = if ratio < NO_WAIT {
        (
            Severity::Warning,
            "far less than one durable write: the commits did not wait for the storage (acknowledged before they were durable)",
        )
    } else if ratio <= STORAGE_BOUND {
        (
            Severity::Info,
            "the storage's durable write is most of a commit: faster commits need faster log storage (or fewer flushes: group commit, a commit delay)",
        )
    } else if sessions == 1 && ratio >= ELSEWHERE {
        (
            Severity::Notice,
            "most of a commit is not the storage's flush: look at the database's and the client's CPU, locks and round trips",
        )
    } else {
        (
            Severity::Info,
            "more than the storage's flush; at several sessions commits also wait for the flush in progress before their own",
        )
    };
    v.push(finding(
        "load_compare.baseline",
        Some(subject),
        severity,
        format!(
            "The median commit took {} against {} for a 4 KiB write + fdatasync on the storage probed ({}, {}): {:.1}x; {reading}.",
            format_ns(commit_p50_ns),
            format_ns(storage),
            b.dir,
            b.place,
            ratio
        ),
        vec![
            ev("median commit", commit_p50_ns, "ns"),
            ev("median 4 KiB write + fdatasync", storage, "ns"),
            ev("ratio", ratio, "x"),
        ],
        Some(savvinov_log_file_sync()),
    ));
}

#[cfg(test)]
mod tests {
    use super::*;
    use dbio_model::load_compare::{BaselineProbe, ComparedSetting, ConfigSummary, Spread};

    fn probe(p50: u64) -> BaselineProbe {
        let mut p = BaselineProbe {
            writes: 10,
            ..Default::default()
        };
        p.latency.count = 10;
        p.latency.percentiles = vec![dbio_model::Percentile { p: 50.0, ns: p50 }];
        p
    }

    #[test]
    fn differences_restores_and_the_baseline_are_told() {
        let sp = |median, min, max| Spread { median, min, max };
        let mut c = LoadComparison {
            rounds: 3,
            settings: vec![ComparedSetting {
                name: "sync_binlog".into(),
                scope: "server".into(),
                original: "1".into(),
                restored: false,
            }],
            configs: vec![
                ConfigSummary {
                    config: "sync_binlog=1".into(),
                    rounds: 3,
                    tps: sp(100.0, 90.0, 110.0),
                    commit_p50_ns: sp(4e6, 4e6, 4e6),
                    tps_ratio: 1.0,
                    ..Default::default()
                },
                ConfigSummary {
                    config: "sync_binlog=0".into(),
                    rounds: 3,
                    tps: sp(105.0, 95.0, 120.0),
                    tps_ratio: 1.05,
                    ..Default::default()
                },
            ],
            baseline: Some(LoadBaseline {
                dir: "/var/lib/mysql".into(),
                place: "the database's log directory".into(),
                before: Some(probe(1_000_000)),
                after: Some(probe(2_000_000)),
            }),
        };
        let mut r = RunReport {
            command: "load".into(),
            load_compare: Some(Box::new(c.clone())),
            ..Default::default()
        };
        let f = evaluate(&r);
        let text = |rule: &str| {
            f.iter()
                .find(|x| x.rule == rule)
                .map(|x| x.text.clone())
                .unwrap_or_default()
        };
        assert!(
            text("load_compare.difference").contains("within the run-to-run range"),
            "{f:?}"
        );
        assert!(
            text("load_compare.not_restored").contains("sync_binlog could not be put back to 1")
        );
        // 4 ms against the faster probe's 1 ms.
        assert!(text("load_compare.baseline").contains("4.0x"), "{f:?}");
        c.configs[1].tps = sp(300.0, 290.0, 310.0);
        c.configs[1].beyond_range = true;
        r.load_compare = Some(Box::new(c));
        assert!(evaluate(&r)
            .iter()
            .any(|x| x.text.contains("larger than the run-to-run range")));
    }

    #[test]
    fn the_baseline_reading_depends_on_the_ratio_and_the_sessions() {
        let b = LoadBaseline {
            dir: ".".into(),
            place: "--dir".into(),
            before: Some(probe(1_000_000)),
            after: None,
        };
        let one = |commit: f64, sessions: u32| {
            let mut v = Vec::new();
            baseline(&b, "load", commit, sessions, &mut v);
            v.pop().unwrap()
        };
        assert!(one(1.2e6, 1)
            .text
            .contains("most of a commit: faster commits"));
        let f = one(5e6, 1);
        assert_eq!(f.severity, Severity::Notice);
        assert!(f.text.contains("not the storage's flush"), "{}", f.text);
        assert_eq!(one(5e6, 10).severity, Severity::Info);
        // Under half a durable write: the commit did not wait for one
        // (synchronous=off); at half, the storage is most of it.
        let f = one(0.49e6, 4);
        assert_eq!(f.severity, Severity::Warning);
        assert!(
            f.text.contains("did not wait for the storage"),
            "{}",
            f.text
        );
        assert!(one(0.5e6, 4).text.contains("most of a commit"));
    }
}
