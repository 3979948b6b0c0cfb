//! `dbio check`'s answer: what this storage gives a database. Storage
//! that cannot keep a commit is named first and never called good for a
//! log; otherwise the answer states the commit rate and tail, group
//! commit's reach, and the device's single-block read, judged by the
//! thresholds of `docs/GUIDE.md` (see [`super::findings`]).

use super::findings::{commit_verdict, read_class};
use crate::verdict::TOP;
use dbio_model::units::{format_count_rate, format_ns};
use dbio_model::{Finding, Pattern, RunReport, Verdict, VerdictClass};

/// The rules whose findings carry check's answer, most important first: a
/// storage that loses commits, two measurements that disagree, then the
/// commit, the read and the group-commit readings.
const ANSWER_RULES: [&str; 6] = [
    "check.non_durable",
    "check.disagreement",
    "check.commit_rate",
    "check.random_read",
    "commit.check_sessions",
    "check.commit_method",
];

/// The question: this target, its filesystem and device.
fn question(r: &RunReport) -> String {
    let e = &r.environment;
    let on = match &e.device {
        Some(d) => format!("{} on {}", e.fs_type, d.name),
        None => e.fs_type.clone(),
    };
    format!("What does {} ({on}) give a database?", e.target)
}

/// The answer of a check result whose findings are ranked.
pub fn verdict(r: &RunReport, fs: &[Finding]) -> Option<Verdict> {
    if r.command != "check" {
        return None;
    }
    let mut top: Vec<usize> = ANSWER_RULES
        .iter()
        .filter_map(|rule| fs.iter().position(|f| f.rule == *rule))
        .take(TOP)
        .collect();
    if top.is_empty() {
        top = crate::verdict::top(fs, TOP);
    }
    let non_durable = fs.iter().find(|f| f.rule == "check.non_durable");
    let (class, mut answer) = match non_durable {
        Some(f) => {
            // The answer is that finding: the list shows the others.
            top = ANSWER_RULES[1..]
                .iter()
                .filter_map(|rule| fs.iter().position(|f| f.rule == *rule))
                .take(TOP)
                .collect();
            (VerdictClass::NonDurable, format!("{}.", f.text))
        }
        None => (VerdictClass::Capability, capability(r)?),
    };
    if fs.iter().any(|f| f.rule == "check.disagreement") {
        answer.push_str(
            " But two of its measurements of one session's commit disagree: rerun before trusting them.",
        );
    }
    Some(Verdict {
        question: question(r),
        class,
        answer,
        top,
    })
}

/// The storage's figures in one sentence: its class for a log, one
/// session's commit, group commit's best rate and the device's read.
fn capability(r: &RunReport) -> Option<String> {
    let commit = r
        .jobs
        .iter()
        .filter_map(|j| {
            let c = j.commit.as_ref().filter(|c| c.count > 0)?;
            Some((c, c.count as f64 / (j.runtime_ns.max(1) as f64 / 1e9)))
        })
        .min_by_key(|(c, _)| c.p99_ns());
    let mut parts = Vec::new();
    let mut class = "";
    if let Some((c, rate)) = commit {
        class = match commit_verdict(c.p99_ns()).1 {
            dbio_model::Severity::Info => "Good for a commit-heavy database log",
            dbio_model::Severity::Notice => "Usable for a database log",
            dbio_model::Severity::Warning => "Slow for a database log",
        };
        parts.push(format!(
            "one session commits {}/s (p99 {})",
            format_count_rate(rate),
            format_ns(c.p99_ns() as f64)
        ));
    }
    if let Some(best) = r
        .lgwr
        .iter()
        .filter(|x| x.config.sessions > 1)
        .max_by(|a, b| a.tps.total_cmp(&b.tps))
    {
        parts.push(format!(
            "group commit reaches {}/s at {} sessions ({})",
            format_count_rate(best.tps),
            best.config.sessions,
            best.config.method
        ));
    }
    if let Some((j, rd)) = r.jobs.iter().find_map(|j| match (&j.read, j.job.rw) {
        (Some(rd), Pattern::Randread) => Some((j, rd)),
        _ => None,
    }) {
        parts.push(format!(
            "a single-block read takes {} ({})",
            format_ns(rd.lat.p50_ns() as f64),
            read_class(j.job.direct, rd.lat.p50_ns())
        ));
    }
    if parts.is_empty() {
        return None;
    }
    let body = join_words(&parts);
    Some(if class.is_empty() {
        format!("{}{}.", body[..1].to_uppercase(), &body[1..])
    } else {
        format!("{class}: {body}.")
    })
}

/// `a, b and c`.
fn join_words(parts: &[String]) -> String {
    match parts {
        [] => String::new(),
        [one] => one.clone(),
        [init @ .., last] => format!("{} and {last}", init.join(", ")),
    }
}
