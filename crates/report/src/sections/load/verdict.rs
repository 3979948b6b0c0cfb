//! The answer a commit load gives: is a commit the log storage's flush,
//! or something else? A commit's time against the engine's log flush
//! ('log file sync' against 'log file parallel write'): flushes half of
//! a commit's time or more is storage-bound, under a third the commit
//! path (CPU, locks, round trips), in between mixed. Commits that waited
//! for no flush are named for what they are (acknowledged before they
//! are durable). Without flush figures the device baseline answers (the
//! median commit against the storage's own 4 KiB write + fdatasync).
//! A comparison answers for each configuration; its class is the first
//! durable configuration's.

use super::compare_findings::{ELSEWHERE, NO_WAIT, STORAGE_BOUND};
use super::findings::{flush_share_pct, no_flush_wait, no_grouping};
use crate::verdict::{top, TOP};
use dbio_model::load::LoadResult;
use dbio_model::units::format_ns;
use dbio_model::{Finding, RunReport, Verdict, VerdictClass};

/// The verdict of a `dbio load` result (`check`'s database section
/// answers within check's own).
pub fn verdict(r: &RunReport, fs: &[Finding]) -> Option<Verdict> {
    if r.command != "load" {
        return None;
    }
    let firsts: Vec<&LoadResult> = r
        .load
        .iter()
        .filter(|x| x.round.as_ref().is_none_or(|k| k.round == 1) && x.commits > 0)
        .collect();
    let first = firsts.first()?;
    let answers: Vec<(VerdictClass, String)> = firsts.iter().map(|x| one(r, x)).collect();
    let class = answers
        .iter()
        .map(|a| a.0)
        .find(|c| *c != VerdictClass::NonDurable)
        .unwrap_or(answers[0].0);
    let answer = answers
        .into_iter()
        .map(|a| a.1)
        .collect::<Vec<_>>()
        .join("; ");
    let c = &first.config;
    Some(Verdict {
        question: format!(
            "Is a commit the storage? ({} {}, {} session{}, {})",
            c.engine,
            first.server.version,
            c.sessions,
            crate::kit::findings::plural(c.sessions),
            c.target
        ),
        class,
        answer,
        top: top(fs, TOP),
    })
}

/// One run's class and sentence.
pub fn one(r: &RunReport, x: &LoadResult) -> (VerdictClass, String) {
    let name = match &x.round {
        Some(k) => k.config.clone(),
        None => x.name.clone(),
    };
    if let Some(why) = no_flush_wait(x) {
        return (
            VerdictClass::NonDurable,
            format!(
                "{name}: commits waited for no log flush ({why}): acknowledged before they were durable, not a measure of the storage"
            ),
        );
    }
    if let (Some(share), Some(flush)) = (flush_share_pct(x), x.derived.flush_latency_ns) {
        let figures = format!(
            "mean commit {}, mean log flush {}",
            format_ns(x.commit.mean_ns),
            format_ns(flush)
        );
        let queue = if no_grouping(x) {
            ", each commit flushing on its own behind the sessions queued ahead of it"
        } else {
            ""
        };
        return if share >= 50.0 {
            (
                VerdictClass::StorageBound,
                format!(
                    "{name}: log flushes are {share:.0} % of a commit's time ({figures}{queue}): the log storage's flush latency bounds commits"
                ),
            )
        } else if share < 100.0 / 3.0 {
            (
                VerdictClass::CommitPath,
                format!(
                    "{name}: log flushes are only {share:.0} % of a commit's time ({figures}): most of a commit is elsewhere (CPU, locks, round trips), not the log device"
                ),
            )
        } else {
            (
                VerdictClass::Mixed,
                format!(
                    "{name}: log flushes are {share:.0} % of a commit's time ({figures}): the log storage and the rest of the commit path share it"
                ),
            )
        };
    }
    // No flush figures: the device baseline, when one was probed.
    let baseline = x
        .baseline
        .as_ref()
        .or(r.load_compare.as_ref().and_then(|c| c.baseline.as_ref()));
    let storage = baseline.and_then(|b| {
        b.before
            .iter()
            .chain(b.after.iter())
            .map(|p| p.latency.p50_ns() as f64)
            .filter(|&n| n > 0.0)
            .reduce(f64::min)
    });
    let commit = x.commit.p50_ns() as f64;
    match storage {
        Some(s) if commit > 0.0 => {
            let ratio = commit / s;
            let figures = format!(
                "median commit {} against {} for the storage's 4 KiB write + fdatasync, {ratio:.1}x",
                format_ns(commit),
                format_ns(s)
            );
            if ratio < NO_WAIT {
                (
                    VerdictClass::NonDurable,
                    format!("{name}: {figures}: the commits did not wait for the storage (acknowledged before they were durable)"),
                )
            } else if ratio <= STORAGE_BOUND {
                (
                    VerdictClass::StorageBound,
                    format!("{name}: {figures}: the storage's durable write is most of a commit"),
                )
            } else if x.config.sessions == 1 && ratio >= ELSEWHERE {
                (
                    VerdictClass::CommitPath,
                    format!("{name}: {figures}: most of a commit is not the storage's flush"),
                )
            } else {
                (
                    VerdictClass::Mixed,
                    format!("{name}: {figures}: more than the storage's flush is in a commit"),
                )
            }
        }
        _ => (
            VerdictClass::Inconclusive,
            format!(
                "{name}: the engine's log flushes were not measured and no device baseline was probed, so a commit's time cannot be split"
            ),
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use dbio_model::load_compare::{BaselineProbe, LoadBaseline};
    use dbio_model::{LatencySummary, Percentile};

    fn x(sessions: u32, mean_ns: f64, flush_ns: Option<f64>) -> LoadResult {
        let mut x = LoadResult {
            name: "load".into(),
            commits: 1000,
            commit: LatencySummary {
                count: 1000,
                mean_ns,
                percentiles: vec![Percentile {
                    p: 50.0,
                    ns: mean_ns as u64,
                }],
                ..Default::default()
            },
            ..Default::default()
        };
        x.config.sessions = sessions;
        if let Some(f) = flush_ns {
            x.derived.flush_latency_ns = Some(f);
            x.derived.sync_to_flush_ratio = Some(mean_ns / f);
            x.derived.commits_per_flush = Some(if sessions > 1 { 2.0 } else { 1.0 });
        }
        x
    }

    fn answer(loads: Vec<LoadResult>) -> Verdict {
        let r = RunReport {
            command: "load".into(),
            load: loads,
            ..Default::default()
        };
        verdict(&r, &[]).unwrap()
    }

    /// One session: commit 120 µs, flush 100 µs (83 %): storage-bound;
    /// commit 400 µs (25 %, under a third): the commit path; 250 µs
    /// (40 %): mixed.
    #[test]
    fn a_commit_against_its_flush_at_the_thresholds() {
        let v = answer(vec![x(1, 120_000.0, Some(100_000.0))]);
        assert_eq!(v.class, VerdictClass::StorageBound, "{}", v.answer);
        assert!(
            v.answer.contains("log flushes are 83 % of a commit's time"),
            "{}",
            v.answer
        );
        let v = answer(vec![x(1, 400_000.0, Some(100_000.0))]);
        assert_eq!(v.class, VerdictClass::CommitPath, "{}", v.answer);
        assert_eq!(
            answer(vec![x(1, 250_000.0, Some(100_000.0))]).class,
            VerdictClass::Mixed
        );
        // At 10 sessions with group commit, 400 µs is two flushes' wait
        // (50 %): storage-bound.
        assert_eq!(
            answer(vec![x(10, 400_000.0, Some(100_000.0))]).class,
            VerdictClass::StorageBound
        );
    }

    /// synchronous_commit=on,off: off is named non-durable, on answers
    /// the class.
    #[test]
    fn a_comparison_names_the_non_durable_configuration_and_answers_with_the_durable_one() {
        let mut off = x(10, 50_000.0, Some(1_000_000.0));
        off.derived.commits_per_flush = Some(3419.56);
        off.round = Some(dbio_model::load_compare::LoadRound {
            config: "synchronous_commit=off".into(),
            index: 2,
            round: 1,
        });
        let mut on = x(10, 250_000.0, Some(200_000.0));
        on.round = Some(dbio_model::load_compare::LoadRound {
            config: "synchronous_commit=on".into(),
            index: 1,
            round: 1,
        });
        let v = answer(vec![on.clone(), off.clone()]);
        assert_eq!(v.class, VerdictClass::StorageBound, "{}", v.answer);
        assert!(
            v.answer
                .starts_with("synchronous_commit=on: log flushes are"),
            "{}",
            v.answer
        );
        assert!(
            v.answer
                .contains("synchronous_commit=off: commits waited for no log flush"),
            "{}",
            v.answer
        );
        assert_eq!(answer(vec![off]).class, VerdictClass::NonDurable);
    }

    /// No flush figures: the baseline answers (0.1x: not durable; 1.2x:
    /// storage-bound); nothing at all: inconclusive.
    #[test]
    fn without_flush_figures_the_baseline_answers() {
        let probe = |p50: u64| BaselineProbe {
            latency: LatencySummary {
                count: 1,
                percentiles: vec![Percentile { p: 50.0, ns: p50 }],
                ..Default::default()
            },
            ..Default::default()
        };
        let mut fast = x(1, 10_000.0, None);
        fast.baseline = Some(LoadBaseline {
            before: Some(probe(100_000)),
            ..Default::default()
        });
        assert_eq!(answer(vec![fast.clone()]).class, VerdictClass::NonDurable);
        fast.commit.percentiles[0].ns = 120_000;
        assert_eq!(answer(vec![fast]).class, VerdictClass::StorageBound);
        assert_eq!(
            answer(vec![x(1, 10_000.0, None)]).class,
            VerdictClass::Inconclusive
        );
    }
}
