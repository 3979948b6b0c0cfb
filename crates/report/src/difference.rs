//! What changed between two results of the same thing (two traces, two
//! AWR reports), and whether the storage explains it.
//!
//! The difference of the two totals (R of a trace, DB time of a report)
//! is split into its parts (a profile line, DB CPU, a wait class), each
//! with its share of the difference, as Method R and ADDM rank the parts
//! of one total. A part that explains a tenth of the difference or more
//! gets a finding; the answer is the largest part's, when it explains
//! half or more:
//!
//! * an I/O part whose average per wait moved beyond its precision and
//!   whose latency explains more of its change than its number of waits:
//!   the storage got slower or faster (storage-bound), or one side's
//!   waits were served from memory (page cache) when its average is under
//!   the page-cache threshold and the other's is not;
//! * an I/O part whose waits changed in number at the same average (or
//!   within the printed precision: a Statspack or 11g report prints the
//!   average in whole milliseconds): more I/O, not slower storage;
//! * 'log file sync': the log device when 'log file parallel write'
//!   moved with it (half of its change or more), else the commit path;
//! * CPU: the CPU; anything else: not the storage.
//!
//! A difference under a tenth of the larger total is not material.

use crate::kit::findings::{ev, finding, Finding};
use crate::verdict::{severity_of_share, top, TOP};
use dbio_model::units::format_ns;
use dbio_model::{Verdict, VerdictClass};

/// Under this share of the larger total (percent) a difference is not
/// material.
pub const MATERIAL: f64 = 10.0;
/// From this share of the difference (percent) a part gets a finding.
pub const PART_SHARE: f64 = 10.0;
/// From this share of the difference (percent) a part is the answer.
pub const DOMINANT: f64 = 50.0;
/// Two exact averages closer than this fraction of the larger are the
/// same latency.
pub const SAME_LATENCY: f64 = 0.05;
/// The most parts with a finding.
const MAX_PARTS: usize = 5;

/// An average wait, µs, with the range its printed digits allow (equal to
/// it where it is exact, as in a trace).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Avg {
    /// The best estimate, µs.
    pub us: f64,
    /// The lowest it can be, µs.
    pub lo: f64,
    /// The highest it can be, µs.
    pub hi: f64,
}

impl Avg {
    /// An exact average.
    pub fn exact(us: f64) -> Avg {
        Avg { us, lo: us, hi: us }
    }

    fn is_exact(&self) -> bool {
        self.hi - self.lo <= f64::EPSILON * self.us.abs().max(1.0)
    }

    /// Whether `self` and `o` are the same latency: their ranges overlap,
    /// or they are within [`SAME_LATENCY`] of each other.
    pub fn same_as(&self, o: &Avg) -> bool {
        (self.lo <= o.hi && o.lo <= self.hi)
            || (self.us - o.us).abs() < SAME_LATENCY * self.us.max(o.us)
    }
}

/// What kind of time a part is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// User I/O or System I/O waits.
    Io,
    /// 'log file sync'.
    Commit,
    /// CPU.
    Cpu,
    /// Anything else.
    Other,
}

/// A part on one side.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Side {
    /// Its time, s.
    pub time_s: f64,
    /// Its waits, when known.
    pub count: Option<f64>,
    /// Its average wait, when known.
    pub avg: Option<Avg>,
}

/// One part of the totals, on both sides.
#[derive(Debug, Clone, PartialEq)]
pub struct Part {
    /// As the sentences name it (`'db file sequential read'`, `CPU`,
    /// `User I/O`).
    pub name: String,
    /// What kind of time it is.
    pub kind: Kind,
    /// In A.
    pub a: Side,
    /// In B.
    pub b: Side,
    /// The event its explanation rests on, when the part is a wait class
    /// (its event whose time moved most): name and sides.
    pub event: Option<(String, Side, Side)>,
}

/// The totals the parts split and what the sentences call them.
#[derive(Debug, Clone, PartialEq)]
pub struct Totals {
    /// The total's name (`R`, `DB time`).
    pub what: String,
    /// Said after it (` per hour of elapsed time` when the intervals
    /// differ in length), or empty.
    pub per: String,
    /// A's total, s.
    pub a_s: f64,
    /// B's total, s.
    pub b_s: f64,
    /// The page-cache threshold, µs.
    pub page_cache_max_us: f64,
    /// 'log file parallel write' in A and in B, when known.
    pub log_write: (Option<Avg>, Option<Avg>),
    /// The findings' rule (`trace.compare.part`).
    pub rule: String,
}

impl Totals {
    fn of(&self) -> String {
        format!("difference in {}", self.what)
    }

    /// `B's R is 2.30x A's (23.0 s against 10.0 s)`.
    pub fn headline(&self) -> String {
        let ratio = if self.a_s > 0.0 {
            format!("{:.2}x", self.b_s / self.a_s)
        } else {
            "more than".into()
        };
        format!(
            "B's {}{} is {ratio} A's ({} against {})",
            self.what,
            self.per,
            secs(self.b_s),
            secs(self.a_s)
        )
    }

    fn material(&self) -> bool {
        let big = self.a_s.abs().max(self.b_s.abs());
        big > 0.0 && (self.b_s - self.a_s).abs() >= MATERIAL / 100.0 * big
    }
}

/// Seconds in words, rounded as the tables round.
pub fn secs(s: f64) -> String {
    if s.abs() < 1e-9 {
        "0 s".into()
    } else {
        format_ns(s * 1e9)
    }
}

fn us(v: f64) -> String {
    format_ns(v * 1e3)
}

fn signed(s: f64) -> String {
    if s >= 0.0 {
        format!("+{}", secs(s))
    } else {
        format!("-{}", secs(-s))
    }
}

fn count(n: f64) -> String {
    if n >= 10_000.0 {
        format!("{:.1} k", n / 1000.0)
    } else {
        format!("{n:.0}")
    }
}

/// An average in words, with its range when the printed digits leave one
/// wider than a hundredth of it.
fn avg_words(a: &Avg) -> String {
    if a.hi - a.lo <= 0.01 * a.us {
        us(a.us)
    } else {
        format!("{} ({} to {})", us(a.us), us(a.lo), us(a.hi))
    }
}

/// The class a part's change earns, and why, in words.
fn explain(p: &Part, t: &Totals) -> (VerdictClass, String) {
    match p.kind {
        Kind::Cpu => (VerdictClass::Cpu, "CPU, not the storage".into()),
        Kind::Other => (VerdictClass::NotStorage, "not the storage".into()),
        Kind::Io => io(p, t),
        Kind::Commit => commit(p, t),
    }
}

/// The event a part's explanation rests on: its own sides, or its
/// largest event's, with the prefix that names it.
fn event_of(p: &Part) -> (String, Side, Side) {
    match &p.event {
        Some((n, a, b)) => (format!("'{n}' "), *a, *b),
        None => (String::new(), p.a, p.b),
    }
}

/// Waits on a side: printed, else time over average.
fn waits(s: &Side) -> Option<f64> {
    s.count
        .or_else(|| s.avg.filter(|a| a.us > 0.0).map(|a| s.time_s * 1e6 / a.us))
}

fn io(p: &Part, t: &Totals) -> (VerdictClass, String) {
    let (ev_name, a, b) = event_of(p);
    let (Some(aa), Some(ba), Some(na), Some(nb)) = (a.avg, b.avg, waits(&a), waits(&b)) else {
        return (
            VerdictClass::Mixed,
            format!("{ev_name}has no average per wait on both sides: dbio cannot tell slower storage from more I/O"),
        );
    };
    let per_wait = format!(
        "{ev_name}per wait {} in A, {} in B; {} waits in A, {} in B",
        avg_words(&aa),
        avg_words(&ba),
        count(na),
        count(nb)
    );
    if aa.same_as(&ba) {
        let precision = if aa.is_exact() && ba.is_exact() {
            "the same latency"
        } else {
            "the same latency within the printed precision"
        };
        let more = if nb >= na { "more" } else { "fewer" };
        return (
            VerdictClass::NotStorage,
            format!("{per_wait}: {more} I/O at {precision}, not the storage"),
        );
    }
    // B's time less A's, split: the change of latency at B's count, the
    // change of count at A's latency.
    let latency = nb * (ba.us - aa.us) / 1e6;
    let calls = (nb - na) * aa.us / 1e6;
    if latency.abs() < calls.abs() {
        let more = if nb >= na { "more" } else { "fewer" };
        return (
            VerdictClass::NotStorage,
            format!("{per_wait}: mostly {more} I/O calls, the workload rather than the storage"),
        );
    }
    let (fast, slow, fast_side, slow_side) = if ba.us < aa.us {
        (ba.us, aa.us, "B", "A")
    } else {
        (aa.us, ba.us, "A", "B")
    };
    if fast < t.page_cache_max_us && slow >= t.page_cache_max_us {
        return (
            VerdictClass::PageCache,
            format!(
                "{per_wait}: {fast_side}'s waits were served from memory (the OS page cache), {slow_side}'s by the storage"
            ),
        );
    }
    let how = if ba.us > aa.us { "slower" } else { "faster" };
    (
        VerdictClass::StorageBound,
        format!("{per_wait}: the storage got {how}"),
    )
}

fn commit(p: &Part, t: &Totals) -> (VerdictClass, String) {
    let (ev_name, a, b) = event_of(p);
    let (Some(aa), Some(ba)) = (a.avg, b.avg) else {
        return (
            VerdictClass::Inconclusive,
            format!("{ev_name}has no average per commit on both sides"),
        );
    };
    let per = format!(
        "{ev_name}per commit {} in A, {} in B",
        avg_words(&aa),
        avg_words(&ba)
    );
    if aa.same_as(&ba) {
        let more = if b.time_s >= a.time_s {
            "more"
        } else {
            "fewer"
        };
        return (
            VerdictClass::NotStorage,
            format!("{per}: {more} commits at the same latency, not the storage"),
        );
    }
    match t.log_write {
        (Some(wa), Some(wb)) => {
            let writes = format!(
                "'log file parallel write' {} in A, {} in B",
                avg_words(&wa),
                avg_words(&wb)
            );
            let sync = ba.us - aa.us;
            let write = wb.us - wa.us;
            if write * sync > 0.0 && write.abs() >= 0.5 * sync.abs() {
                let how = if sync > 0.0 { "slower" } else { "faster" };
                (
                    VerdictClass::StorageBound,
                    format!("{per}, {writes}: the log device got {how}"),
                )
            } else {
                (
                    VerdictClass::CommitPath,
                    format!("{per}, {writes}: not the log device (posting and scheduling the log writer)"),
                )
            }
        }
        _ => (
            VerdictClass::Inconclusive,
            format!("{per}; without 'log file parallel write' on both sides dbio cannot tell the log device from the log writer"),
        ),
    }
}

/// A part's sentence: its time on both sides, its share of the
/// difference and what its change is.
fn part_text(p: &Part, share: f64, t: &Totals) -> (VerdictClass, String) {
    let (class, why) = explain(p, t);
    (
        class,
        format!(
            "{}: {} in A, {} in B ({}, {share:.1} % of the difference); {why}",
            p.name,
            secs(p.a.time_s),
            secs(p.b.time_s),
            signed(p.b.time_s - p.a.time_s)
        ),
    )
}

/// A part's name without its quotes and gloss (`'PL/SQL lock timer' (a
/// sleep ...)` is `PL/SQL lock timer`), as a finding's subject.
fn plain(name: &str) -> &str {
    match name.strip_prefix('\'') {
        Some(rest) => rest.split('\'').next().unwrap_or(rest),
        None => name,
    }
}

/// The parts that explain a tenth of the difference or more, as findings
/// (unranked), each with the class its change earns.
pub fn findings(parts: &[Part], t: &Totals) -> Vec<(VerdictClass, Finding)> {
    if !t.material() {
        return Vec::new();
    }
    let diff = t.b_s - t.a_s;
    let mut shares: Vec<(&Part, f64)> = parts
        .iter()
        .map(|p| (p, 100.0 * (p.b.time_s - p.a.time_s) / diff))
        .filter(|(_, s)| *s >= PART_SHARE - 1e-9)
        .collect();
    shares.sort_by(|x, y| y.1.total_cmp(&x.1));
    shares.truncate(MAX_PARTS);
    shares
        .into_iter()
        .map(|(p, share)| {
            let (class, text) = part_text(p, share, t);
            let (_, a, b) = event_of(p);
            let mut evidence = vec![
                ev("time in A", p.a.time_s, "s"),
                ev("time in B", p.b.time_s, "s"),
            ];
            for (what, s) in [("A", a), ("B", b)] {
                if let Some(avg) = s.avg {
                    evidence.push(ev(&format!("average wait in {what}"), avg.us * 1e3, "ns"));
                }
            }
            for (what, s) in [("A", a), ("B", b)] {
                if let Some(n) = s.count {
                    evidence.push(ev(&format!("waits in {what}"), n, "count"));
                }
            }
            let f = finding(
                &t.rule,
                Some(plain(&p.name)),
                severity_of_share(share),
                text,
                evidence,
                Some(crate::kit::references::doc("docs/GUIDE.md")),
            )
            .with_impact(share, &t.of());
            (class, f)
        })
        .collect()
}

/// The answer of a comparison whose ranked findings are `fs`: its
/// headline and the largest part's sentence; `classes` are the classes of
/// the findings of [`findings`] by text.
pub fn verdict(
    question: String,
    t: &Totals,
    fs: &[Finding],
    classes: &[(VerdictClass, String)],
) -> Verdict {
    let head = t.headline();
    let top_part = fs.iter().find(|f| f.rule == t.rule);
    let (class, answer) = if !t.material() {
        (
            VerdictClass::Comparison,
            format!("No material difference: {head}, within a tenth of the larger."),
        )
    } else {
        match top_part {
            None => (
                VerdictClass::Mixed,
                format!("{head}; no one part of it explains a tenth of the difference."),
            ),
            Some(f) => {
                let class = classes
                    .iter()
                    .find(|(_, text)| *text == f.text)
                    .map_or(VerdictClass::Mixed, |(c, _)| *c);
                if f.share() >= DOMINANT - 1e-9 {
                    (class, format!("{head}: {}.", f.text))
                } else {
                    (
                        VerdictClass::Mixed,
                        format!(
                            "{head}; no one part explains half of it, the largest: {}.",
                            f.text
                        ),
                    )
                }
            }
        }
    };
    Verdict {
        question,
        class,
        answer,
        top: top(fs, TOP),
    }
}

/// The ranked findings and the verdict of a comparison split into
/// `parts`.
pub fn conclude(question: String, parts: &[Part], t: &Totals) -> (Vec<Finding>, Verdict) {
    let drawn = findings(parts, t);
    let classes: Vec<(VerdictClass, String)> =
        drawn.iter().map(|(c, f)| (*c, f.text.clone())).collect();
    let fs = crate::verdict::rank(drawn.into_iter().map(|(_, f)| f).collect());
    let v = verdict(question, t, &fs, &classes);
    (fs, v)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn totals(a: f64, b: f64) -> Totals {
        Totals {
            what: "R".into(),
            per: String::new(),
            a_s: a,
            b_s: b,
            page_cache_max_us: 50.0,
            log_write: (None, None),
            rule: "test.part".into(),
        }
    }

    fn io(a: (f64, f64), b: (f64, f64)) -> Part {
        // (waits, average µs) on each side.
        let side = |(n, avg): (f64, f64)| Side {
            time_s: n * avg / 1e6,
            count: Some(n),
            avg: Some(Avg::exact(avg)),
        };
        Part {
            name: "'db file sequential read'".into(),
            kind: Kind::Io,
            a: side(a),
            b: side(b),
            event: None,
        }
    }

    fn answer(parts: &[Part], t: &Totals) -> (VerdictClass, String) {
        let (_, v) = conclude("q".into(), parts, t);
        (v.class, v.answer)
    }

    #[test]
    fn slower_reads_are_the_storage_and_more_reads_the_workload() {
        // 25 k reads: 1.2 ms in A (30 s), 6 ms in B (150 s); CPU 10 s
        // both: R 40 s against 160 s.
        let cpu = |s| Side {
            time_s: s,
            ..Default::default()
        };
        let parts = vec![
            io((25_000.0, 1200.0), (25_000.0, 6000.0)),
            Part {
                name: "CPU".into(),
                kind: Kind::Cpu,
                a: cpu(10.0),
                b: cpu(10.0),
                event: None,
            },
        ];
        let (class, text) = answer(&parts, &totals(40.0, 160.0));
        assert_eq!(class, VerdictClass::StorageBound);
        assert_eq!(
            text,
            "B's R is 4.00x A's (160 s against 40.0 s): 'db file sequential read': 30.0 s in A, 150 s in B (+120 s, 100.0 % of the difference); per wait 1.20 ms in A, 6.00 ms in B; 25.0 k waits in A, 25.0 k in B: the storage got slower."
        );
        // Five times the reads at the same 1.2 ms: the workload.
        let parts = vec![io((25_000.0, 1200.0), (125_000.0, 1200.0))];
        let (class, text) = answer(&parts, &totals(30.0, 150.0));
        assert_eq!(class, VerdictClass::NotStorage);
        assert!(
            text.ends_with("more I/O at the same latency, not the storage."),
            "{text}"
        );
        // Latency 1.2 ms to 1.5 ms but five times the reads: mostly calls.
        let parts = vec![io((25_000.0, 1200.0), (125_000.0, 1500.0))];
        let (class, text) = answer(&parts, &totals(30.0, 187.5));
        assert_eq!(class, VerdictClass::NotStorage);
        assert!(text.contains("mostly more I/O calls"), "{text}");
    }

    #[test]
    fn memory_speed_on_one_side_is_the_page_cache() {
        // A's reads at 20 µs, B's at 5 ms.
        let parts = vec![io((100_000.0, 20.0), (100_000.0, 5000.0))];
        let (class, text) = answer(&parts, &totals(2.0, 500.0));
        assert_eq!(class, VerdictClass::PageCache);
        assert!(text.contains("A's waits were served from memory"), "{text}");
    }

    #[test]
    fn the_thresholds_material_part_and_dominant() {
        let p = io((1000.0, 1000.0), (1000.0, 1099.0));
        // 1 s against 1.099 s: under a tenth of the larger, not material.
        let (class, text) = answer(std::slice::from_ref(&p), &totals(1.0, 1.099));
        assert_eq!(class, VerdictClass::Comparison);
        assert!(text.starts_with("No material difference"), "{text}");
        // A part of 9.9 % of the difference gets no finding; 10 % does.
        let t = totals(10.0, 12.0);
        let small = io((1000.0, 1000.0), (1000.0, 1198.0));
        assert!(findings(std::slice::from_ref(&small), &t).is_empty());
        let tenth = io((1000.0, 1000.0), (1000.0, 1200.0));
        let f = findings(std::slice::from_ref(&tenth), &t);
        assert_eq!(f.len(), 1);
        assert!((f[0].1.share() - 10.0).abs() < 1e-6);
        // Under half of the difference: mixed; half: the part's class.
        assert_eq!(answer(&[tenth], &t).0, VerdictClass::Mixed);
        let half = io((1000.0, 1000.0), (1000.0, 2000.0));
        assert_eq!(answer(&[half], &t).0, VerdictClass::StorageBound);
    }

    #[test]
    fn averages_within_the_printed_precision_are_the_same() {
        // Statspack prints 5 ms and 6 ms: 5.4 and 5.5 can print so.
        let side = |n: f64, avg: f64, t: f64| Side {
            time_s: t,
            count: Some(n),
            avg: Some(Avg {
                us: avg,
                lo: avg - 500.0,
                hi: avg + 500.0,
            }),
        };
        let p = Part {
            name: "'db file sequential read'".into(),
            kind: Kind::Io,
            a: side(10_000.0, 5000.0, 54.0),
            b: side(20_000.0, 6000.0, 110.0),
            event: None,
        };
        let (class, text) = answer(&[p], &totals(60.0, 116.0));
        assert_eq!(class, VerdictClass::NotStorage);
        assert!(text.contains("within the printed precision"), "{text}");
    }

    #[test]
    fn commits_follow_the_log_write() {
        let side = |avg: f64| Side {
            time_s: avg,
            count: Some(1e6),
            avg: Some(Avg::exact(avg)),
        };
        let p = Part {
            name: "'log file sync'".into(),
            kind: Kind::Commit,
            a: side(1000.0),
            b: side(4000.0),
            event: None,
        };
        let mut t = totals(1000.0, 4000.0);
        t.log_write = (Some(Avg::exact(200.0)), Some(Avg::exact(300.0)));
        assert_eq!(
            answer(std::slice::from_ref(&p), &t).0,
            VerdictClass::CommitPath
        );
        t.log_write = (Some(Avg::exact(200.0)), Some(Avg::exact(2000.0)));
        let (class, text) = answer(std::slice::from_ref(&p), &t);
        assert_eq!(class, VerdictClass::StorageBound);
        assert!(text.ends_with("the log device got slower."), "{text}");
        t.log_write = (None, None);
        assert_eq!(answer(&[p], &t).0, VerdictClass::Inconclusive);
    }
}
