//! The answer `dbio lgwr` gives: is a commit the log device? 'log file
//! sync' (commit time) is split into the device's part (the log writer's
//! write and sync, 'log file parallel write', and a wait for the writer
//! no longer than one write: queueing behind the write in progress) and
//! the rest (a wait for a writer that was not running, the writer posting
//! others first, the session getting the CPU back after the post). The
//! reference is "Log File Sync wait event and SSD disks": 20.8 ms of 'log
//! file sync' against 0.1 ms of 'log file parallel write' was CPU
//! scheduling, not the SSD.
//!
//! The device's part at half of a commit or more is storage-bound, under
//! a third the commit path, in between mixed (the thresholds of `dbio
//! load`'s answer). Storage that does not keep what it acknowledges
//! (`commit.non_durable`) answers first and is never called good for a
//! log. Under `--compare` each configuration answers; the class is the
//! first's.

use super::findings::Part;
use crate::kit::findings::{pct, plural};
use crate::verdict::{top, TOP};
use dbio_model::lgwr::LgwrResult;
use dbio_model::units::format_ns;
use dbio_model::{Finding, RunReport, Verdict, VerdictClass};

/// The device's share of a commit (percent) at or above which commits
/// are storage-bound.
pub const STORAGE_BOUND_PCT: f64 = 50.0;
/// The device's share of a commit (percent) under which the time is the
/// commit path's, not the device's.
pub const COMMIT_PATH_PCT: f64 = 100.0 / 3.0;

/// The verdict of a `dbio lgwr` result (`check`'s commit section answers
/// within check's own).
pub fn verdict(r: &RunReport, fs: &[Finding]) -> Option<Verdict> {
    if r.command != "lgwr" {
        return None;
    }
    let ran: Vec<&LgwrResult> = r.lgwr.iter().filter(|x| x.commits > 0).collect();
    let first = *ran.first()?;
    let question = format!(
        "Is a commit the storage? (dbio lgwr, {} session{}, {}, {})",
        first.config.sessions,
        plural(first.config.sessions),
        first.config.method,
        if first.config.real_io() {
            first.target.clone()
        } else {
            "null engine".into()
        }
    );
    if let Some(i) = fs.iter().position(|f| f.rule == "commit.non_durable") {
        // The answer is that finding: the list shows the others.
        let t = top(fs, TOP + 1)
            .into_iter()
            .filter(|&j| j != i)
            .take(TOP)
            .collect();
        return Some(Verdict {
            question,
            class: VerdictClass::NonDurable,
            answer: format!("{}.", fs[i].text),
            top: t,
        });
    }
    let answers: Vec<(VerdictClass, String)> = ran.iter().map(|x| one(x)).collect();
    let class = answers[0].0;
    let answer = if answers.len() == 1 {
        answers.into_iter().next().map(|a| a.1).unwrap_or_default()
    } else {
        ran.iter()
            .zip(answers)
            .map(|(x, a)| format!("{}: {}", x.name, a.1))
            .collect::<Vec<_>>()
            .join("; ")
    };
    // The first configuration's parts of a commit, largest first, then
    // the ranked rest.
    let t: Vec<usize> = fs
        .iter()
        .enumerate()
        .filter(|(_, f)| f.rule == "commit.breakdown" && f.subject.as_deref() == Some(&first.name))
        .map(|(i, _)| i)
        .take(2)
        .collect();
    let t = crate::verdict::top_after(t, fs);
    Some(Verdict {
        question,
        class,
        answer,
        top: t,
    })
}

/// The log device's share of a commit's time in `x`, percent.
pub fn storage_share_pct(x: &LgwrResult) -> f64 {
    Part::ALL
        .into_iter()
        .filter(|p| p.is_storage(x))
        .map(|p| p.share_pct(x))
        .sum()
}

/// One configuration's class and sentence.
pub fn one(x: &LgwrResult) -> (VerdictClass, String) {
    let lfs = x.log_file_sync.mean_ns;
    if lfs <= 0.0 {
        return (
            VerdictClass::Inconclusive,
            "'log file sync' was not timed, so a commit's time cannot be split".into(),
        );
    }
    let share = storage_share_pct(x);
    let io = Part::WriterIo;
    let figures = format!(
        "'log file sync' averages {}, of which the log writer's write and sync ('log file parallel write') take {} ({})",
        format_ns(lfs),
        format_ns(io.mean_ns(x)),
        pct(io.share_pct(x))
    );
    let queue = Part::WaitForWriter;
    let queued = if queue.is_storage(x) && queue.share_pct(x) >= 10.0 {
        format!(
            " and waiting behind the write in progress {} more",
            pct(queue.share_pct(x))
        )
    } else {
        String::new()
    };
    let rest = Part::ALL
        .into_iter()
        .filter(|p| !p.is_storage(x))
        .max_by(|a, b| a.mean_ns(x).total_cmp(&b.mean_ns(x)))
        .filter(|p| p.mean_ns(x) > 0.0)
        .map(|p| format!("{} is {}", pct(p.share_pct(x)), rest_words(p)))
        .unwrap_or_default();
    let null = match x.config.null_delay_ns {
        Some(d) => format!(
            " (null engine: each write takes an injected {}, no storage)",
            format_ns(d as f64)
        ),
        None => String::new(),
    };
    if share >= STORAGE_BOUND_PCT {
        (
            VerdictClass::StorageBound,
            format!(
                "Storage-bound: the log device is {} of a commit's time: {figures}{queued}{null}",
                pct(share)
            ),
        )
    } else if share < COMMIT_PATH_PCT {
        (
            VerdictClass::CommitPath,
            format!("Commit path, not the disk: {figures}; {rest}{null}"),
        )
    } else {
        (
            VerdictClass::Mixed,
            format!(
                "Mixed: the log device is {} of a commit's time: {figures}{queued}; {rest}{null}",
                pct(share)
            ),
        )
    }
}

/// A part of a commit that is not the device, in the answer's words.
fn rest_words(p: Part) -> &'static str {
    match p {
        Part::WaitForWriter => "waiting for a log writer that was not running (CPU, scheduling)",
        Part::Posting => "the writer posting other sessions first (CPU)",
        Part::WakeUp => "waking and scheduling after the writer's post",
        Part::WriterIo => "the log writer's write and sync",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use dbio_model::Environment;

    /// A commit of `wait`, `io`, `post` and `wake` ns (their sum is the
    /// mean 'log file sync'); 'log file parallel write' is `io`.
    fn x(wait: f64, io: f64, post: f64, wake: f64) -> LgwrResult {
        let mut x = LgwrResult {
            name: "lgwr".into(),
            commits: 1000,
            tps: 1000.0,
            ..Default::default()
        };
        x.config.sessions = 1;
        x.log_file_sync.mean_ns = wait + io + post + wake;
        x.writer.log_file_parallel_write.mean_ns = io;
        x.breakdown.wait_for_writer.mean_ns = wait;
        x.breakdown.writer_io.mean_ns = io;
        x.breakdown.posting.mean_ns = post;
        x.breakdown.wake_up.mean_ns = wake;
        x
    }

    fn report(xs: Vec<LgwrResult>) -> RunReport {
        RunReport {
            command: "lgwr".into(),
            lgwr: xs,
            ..Default::default()
        }
    }

    fn answer(r: &RunReport) -> Verdict {
        let fs = crate::verdict::rank((super::super::findings::RULES.evaluate)(r));
        verdict(r, &fs).unwrap()
    }

    /// The seed article's case: 'log file sync' 1.2 ms, the write 0.1 ms
    /// (8 %), waking 0.96 ms (80 %): the commit path.
    #[test]
    fn waking_and_scheduling_is_the_commit_path() {
        let v = answer(&report(vec![x(100e3, 100e3, 40e3, 960e3)]));
        assert_eq!(v.class, VerdictClass::CommitPath, "{}", v.answer);
        assert_eq!(
            v.answer,
            "Commit path, not the disk: 'log file sync' averages 1.20 ms, of which the log writer's write and sync ('log file parallel write') take 100 µs (8.3 %); 80 % is waking and scheduling after the writer's post"
        );
        // The top finding is the largest part, waking, with its share.
        let r = report(vec![x(100e3, 100e3, 40e3, 960e3)]);
        let fs = crate::verdict::rank((super::super::findings::RULES.evaluate)(&r));
        let v = verdict(&r, &fs).unwrap();
        let first = &fs[v.top[0]];
        assert_eq!(first.rule, "commit.breakdown");
        assert!(
            first.text.contains("getting the CPU back"),
            "{}",
            first.text
        );
        assert_eq!(first.impact.as_ref().unwrap().share_pct, 80.0);
    }

    /// The device's share at 50 % is storage-bound, just under it mixed,
    /// at a third mixed, just under a third the commit path. A wait for
    /// the writer of at most one write counts as the device's.
    #[test]
    fn the_device_share_at_its_thresholds() {
        let class = |w, io, p, k| answer(&report(vec![x(w, io, p, k)])).class;
        assert_eq!(class(0.0, 50.0, 0.0, 50.0), VerdictClass::StorageBound);
        assert_eq!(class(0.0, 49.0, 0.0, 51.0), VerdictClass::Mixed);
        assert_eq!(class(0.0, 34.0, 0.0, 66.0), VerdictClass::Mixed);
        assert_eq!(class(0.0, 33.0, 0.0, 67.0), VerdictClass::CommitPath);
        // 30 of writer I/O and 30 behind the write in progress: 60 %.
        let v = answer(&report(vec![x(30.0, 30.0, 0.0, 40.0)]));
        assert_eq!(v.class, VerdictClass::StorageBound, "{}", v.answer);
        assert!(
            v.answer
                .contains("and waiting behind the write in progress 30 % more"),
            "{}",
            v.answer
        );
        // A wait longer than a write is the writer not running.
        assert_eq!(class(31.0, 30.0, 0.0, 39.0), VerdictClass::CommitPath);
    }

    /// tmpfs is named and never called good for a log, whatever its split.
    #[test]
    fn memory_is_not_durable() {
        let mut r = report(vec![x(0.0, 90.0, 0.0, 10.0)]);
        r.environment = Environment {
            target: "/dev/shm/x".into(),
            fs_type: "tmpfs".into(),
            ..Default::default()
        };
        let v = answer(&r);
        assert_eq!(v.class, VerdictClass::NonDurable);
        assert!(
            v.answer
                .starts_with("Not durable storage: /dev/shm/x is on tmpfs (memory)"),
            "{}",
            v.answer
        );
        assert!(!v.answer.contains("good"), "{}", v.answer);
        // Records lost on read-back: not durable either.
        let mut r = report(vec![x(0.0, 90.0, 0.0, 10.0)]);
        r.lgwr[0].verify = Some(dbio_model::lgwr::VerifyResult {
            bad: 3,
            ..Default::default()
        });
        assert_eq!(answer(&r).class, VerdictClass::NonDurable);
    }

    /// `check` answers with its own verdict; a configuration per answer
    /// under --compare.
    #[test]
    fn check_is_not_answered_here_and_compare_answers_each() {
        let mut r = report(vec![x(0.0, 90.0, 0.0, 10.0)]);
        r.command = "check".into();
        assert!(verdict(&r, &[]).is_none());
        let mut b = x(0.0, 10.0, 0.0, 90.0);
        b.name = "b".into();
        let v = answer(&report(vec![x(0.0, 90.0, 0.0, 10.0), b]));
        assert_eq!(v.class, VerdictClass::StorageBound);
        assert!(v.answer.starts_with("lgwr: Storage-bound"), "{}", v.answer);
        assert!(
            v.answer.contains("; b: Commit path, not the disk"),
            "{}",
            v.answer
        );
    }
}
