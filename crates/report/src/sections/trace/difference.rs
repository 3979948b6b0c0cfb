//! What changed between two trace groups (`dbio tracefile --compare A
//! B`): the difference of their response times split by profile line
//! (Method R's components), each line's change read as slower storage,
//! more I/O, the commit path or not the storage ([`crate::difference`]).

use super::findings::{event_of, thresholds};
use super::verdict::named;
use crate::difference::{conclude, Avg, Kind, Part, Side, Totals};
use dbio_model::trace::{ProfileKind, ProfileLine, TraceComparison, TraceReport};
use dbio_model::WaitClass;

/// The rule of a part's finding.
pub const RULE: &str = "trace.compare.part";

fn kind(l: &ProfileLine) -> Kind {
    match l.kind {
        ProfileKind::Cpu => Kind::Cpu,
        ProfileKind::Wait => match WaitClass::of(event_of(l)) {
            c if c.is_io() => Kind::Io,
            WaitClass::Commit => Kind::Commit,
            _ => Kind::Other,
        },
        _ => Kind::Other,
    }
}

fn side(l: Option<&ProfileLine>) -> Side {
    let Some(l) = l else {
        return Side::default();
    };
    let waits = matches!(l.kind, ProfileKind::Wait | ProfileKind::Idle);
    Side {
        time_s: l.total_us as f64 / 1e6,
        count: waits.then_some(l.count as f64),
        avg: (waits && l.count > 0).then(|| Avg::exact(l.total_us as f64 / l.count as f64)),
    }
}

/// The profile lines of both groups, aligned by name.
pub fn parts(c: &TraceComparison) -> Vec<Part> {
    let mut names: Vec<&ProfileLine> = Vec::new();
    for l in c.a.profile.lines.iter().chain(&c.b.profile.lines) {
        if !names.iter().any(|n| n.name == l.name) {
            names.push(l);
        }
    }
    let find = |t: &'_ TraceReport, name: &str| -> Option<ProfileLine> {
        t.profile.lines.iter().find(|l| l.name == name).cloned()
    };
    names
        .into_iter()
        .map(|l| {
            let (a, b) = (find(&c.a, &l.name), find(&c.b, &l.name));
            Part {
                name: named(l),
                kind: kind(l),
                a: side(a.as_ref()),
                b: side(b.as_ref()),
                event: None,
            }
        })
        .collect()
}

fn log_write(t: &TraceReport) -> Option<Avg> {
    t.events
        .iter()
        .find(|e| e.name == "log file parallel write" && e.count > 0)
        .map(|e| Avg::exact(e.mean_us))
}

/// The totals of a trace comparison: R.
pub fn totals(c: &TraceComparison) -> Totals {
    Totals {
        what: "R".into(),
        per: String::new(),
        a_s: c.a.profile.response_time_us as f64 / 1e6,
        b_s: c.b.profile.response_time_us as f64 / 1e6,
        page_cache_max_us: thresholds(&c.a.settings).0 as f64 / 1e3,
        log_write: (log_write(&c.a), log_write(&c.b)),
        rule: RULE.into(),
    }
}

/// The question a trace comparison answers.
pub fn question(c: &TraceComparison) -> String {
    format!(
        "What changed, and is it the storage? Traces A = {}, B = {}",
        c.a.label, c.b.label
    )
}

/// Draws the findings and the verdict of a trace comparison.
pub fn conclude_comparison(c: &mut TraceComparison) {
    let (fs, v) = conclude(question(c), &parts(c), &totals(c));
    c.findings = fs;
    c.verdict = Some(v);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sections::trace::findings::synthetic::reads;
    use dbio_model::VerdictClass;

    #[test]
    fn slower_reads_between_two_traces_are_the_storage() {
        // 1000 reads of 1.2 ms (1.2 s) against 1000 of 6 ms (6 s), CPU
        // 100 ms both: R 1.3 s against 6.1 s.
        let mut c = TraceComparison {
            a: reads(1200, 100_000),
            b: reads(6000, 100_000),
            ..Default::default()
        };
        conclude_comparison(&mut c);
        let v = c.verdict.unwrap();
        assert_eq!(v.class, VerdictClass::StorageBound);
        assert!(
            v.answer.starts_with("B's R is 4.69x A's (6.10 s against 1.30 s): 'db file sequential read': 1.20 s in A, 6.00 s in B (+4.80 s, 100.0 % of the difference); per wait 1.20 ms in A, 6.00 ms in B"),
            "{}",
            v.answer
        );
        assert_eq!(c.findings[v.top[0]].rule, RULE);
        assert_eq!(
            c.findings[v.top[0]].subject.as_deref(),
            Some("db file sequential read")
        );
    }
}
