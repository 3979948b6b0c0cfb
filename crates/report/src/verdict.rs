//! The verdict: findings ranked by impact, duplicates merged, and the one
//! answer a result gives first.
//!
//! Ranking follows Oracle ADDM (findings by their share of DB time) and
//! Method R (by share of response time): a finding's [`Severity`] says how
//! much it matters and its [`dbio_model::Impact`] what share of the
//! relevant total it explains; the list is ordered by severity, then share,
//! then the order the rules drew them (stable). A rule about a component
//! of time sets its severity from the share ([`severity_of_share`]), so a
//! wait that is 98 % of response time ranks above a notice about 3 waits.
//!
//! Who answers: a measurement's sections in [`crate::sections::SECTIONS`]
//! order (`check` first, since it holds the others) each may give a
//! [`Verdict`] ([`crate::sections::Section::verdict`]); a trace analysis
//! and an AWR report have their own (`sections/trace/verdict.rs`,
//! `sections/awr/verdict.rs`). When none answers, the top finding does.

use crate::sections::SECTIONS;
use dbio_model::awr::AwrReport;
use dbio_model::trace::TraceReport;
use dbio_model::{Finding, RunReport, Severity, Verdict, VerdictClass};

/// How many findings the answer block shows by default.
pub const TOP: usize = 3;

/// The severity a component of time earns from its share of the total:
/// a warning at half or more, a notice at a tenth or more (the issue's
/// coverage line: every component at or above 10 % gets a finding that
/// names it), else information.
pub fn severity_of_share(share_pct: f64) -> Severity {
    if share_pct >= 50.0 {
        Severity::Warning
    } else if share_pct >= 10.0 {
        Severity::Notice
    } else {
        Severity::Info
    }
}

/// `fs` ranked: duplicates (the same rule, subject and text, or the same
/// text) merged into the first, then ordered by severity, share of the
/// total, and the order drawn.
pub fn rank(fs: Vec<Finding>) -> Vec<Finding> {
    let mut kept: Vec<Finding> = Vec::with_capacity(fs.len());
    for f in fs {
        if kept.iter().any(|k| k.text == f.text) {
            continue;
        }
        kept.push(f);
    }
    kept.sort_by(|a, b| {
        b.severity
            .cmp(&a.severity)
            .then(b.share().total_cmp(&a.share()))
    });
    kept
}

/// The positions of the first `n` findings of a ranked list that carry
/// a conclusion (a `legacy` line or a note about the run itself, such as
/// a scratch file removed, is not an answer) and weigh something: a
/// notice or a warning, or a tenth of the total. When none does, the
/// first conclusion alone.
pub fn top(fs: &[Finding], n: usize) -> Vec<usize> {
    let weighty = |f: &Finding| f.severity >= Severity::Notice || f.share() >= 10.0;
    let conclusions = || fs.iter().enumerate().filter(|(_, f)| is_conclusion(f));
    let picked: Vec<usize> = conclusions()
        .filter(|(_, f)| weighty(f))
        .map(|(i, _)| i)
        .take(n)
        .collect();
    if picked.is_empty() {
        conclusions().map(|(i, _)| i).take(1).collect()
    } else {
        picked
    }
}

/// Whether a finding is a conclusion about the measured thing rather than
/// a note about the run (scratch files, sections that could not run).
fn is_conclusion(f: &Finding) -> bool {
    f.rule != "legacy" && f.rule != "scratch.target" && !f.rule.ends_with("section_failed")
}

/// `first` (the findings that carry an answer, in order), then the ranked
/// top findings ([`top`]) that are not among them, [`TOP`] in all.
pub fn top_after(mut first: Vec<usize>, fs: &[Finding]) -> Vec<usize> {
    first.truncate(TOP);
    for i in top(fs, TOP) {
        if first.len() < TOP && !first.contains(&i) {
            first.push(i);
        }
    }
    first
}

/// A verdict whose answer is the top finding's text, for a result no
/// section answers.
pub fn from_top_finding(question: String, class: VerdictClass, fs: &[Finding]) -> Option<Verdict> {
    let top = top(fs, TOP);
    let first = fs.get(*top.first()?)?;
    Some(Verdict {
        question,
        class,
        answer: first.text.clone(),
        top,
    })
}

/// The verdict of a measurement whose findings are drawn and ranked.
pub fn for_run(r: &RunReport) -> Option<Verdict> {
    SECTIONS
        .iter()
        .find_map(|s| s.verdict(r, &r.findings))
        .or_else(|| {
            from_top_finding(
                format!(
                    "What does {} give a database? (dbio {})",
                    r.environment.target, r.command
                ),
                VerdictClass::Capability,
                &r.findings,
            )
        })
}

/// Draws a measurement's findings, keeps the notes it already carries
/// after them, ranks the whole list and draws the verdict: what every
/// output of a measurement shows.
pub fn conclude_run(r: &mut RunReport) {
    let notes = std::mem::take(&mut r.findings);
    let mut fs = crate::findings::evaluate(r);
    fs.extend(notes);
    r.findings = rank(fs);
    r.verdict = for_run(r);
}

/// Draws, ranks and answers a trace analysis.
pub fn conclude_trace(t: &mut TraceReport) {
    t.findings = rank(crate::findings::evaluate_trace(t));
    t.verdict = crate::sections::trace::verdict::verdict(t);
}

/// Draws, ranks and answers an AWR or Statspack analysis.
pub fn conclude_awr(a: &mut AwrReport) {
    a.findings = rank(crate::findings::evaluate_awr(a));
    a.verdict = crate::sections::awr::verdict::verdict(a);
}

/// Draws and answers a trace comparison: what changed between A and B.
pub fn conclude_trace_comparison(c: &mut dbio_model::trace::TraceComparison) {
    crate::sections::trace::difference::conclude_comparison(c);
}

/// Draws and answers a report comparison: what changed between A and B.
pub fn conclude_awr_comparison(c: &mut dbio_model::awr::AwrComparison) {
    crate::sections::awr::difference::conclude_comparison(c);
}

/// Draws and answers a trend of reports: the busiest interval and what
/// dominates it.
pub fn conclude_awr_trend(t: &mut dbio_model::awr::AwrTrend) {
    crate::sections::awr::trend_verdict::conclude(t);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f(rule: &str, sev: Severity, text: &str, share: Option<f64>) -> Finding {
        let f = Finding::note(rule, sev, text);
        match share {
            Some(s) => f.with_impact(s, "response time"),
            None => f,
        }
    }

    #[test]
    fn ranking_puts_severity_first_then_share_and_merges_repeated_text() {
        let ranked = rank(vec![
            f("a.small", Severity::Notice, "three waits", Some(0.1)),
            f("a.big", Severity::Warning, "98 % of R", Some(98.4)),
            f("a.info", Severity::Info, "a reading", None),
            f("a.mid", Severity::Notice, "a tenth", Some(12.0)),
            f("a.again", Severity::Notice, "a tenth", Some(12.0)),
        ]);
        let rules: Vec<&str> = ranked.iter().map(|f| f.rule.as_str()).collect();
        assert_eq!(rules, ["a.big", "a.mid", "a.small", "a.info"]);
    }

    #[test]
    fn severity_follows_the_share_at_its_thresholds() {
        assert_eq!(severity_of_share(9.99), Severity::Info);
        assert_eq!(severity_of_share(10.0), Severity::Notice);
        assert_eq!(severity_of_share(49.9), Severity::Notice);
        assert_eq!(severity_of_share(50.0), Severity::Warning);
    }

    #[test]
    fn notes_about_the_run_are_not_the_answer() {
        let fs = rank(vec![
            f(
                "scratch.target",
                Severity::Warning,
                "removed a scratch file",
                None,
            ),
            f(
                "commit.single_session",
                Severity::Info,
                "commits 8 k/s",
                None,
            ),
        ]);
        let v = from_top_finding("q".into(), VerdictClass::Capability, &fs).unwrap();
        assert_eq!(v.answer, "commits 8 k/s");
        assert_eq!(v.top, [1]);
        assert!(from_top_finding("q".into(), VerdictClass::Capability, &fs[..1]).is_none());
    }
}
