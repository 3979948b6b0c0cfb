//! What changed between two reports (`dbio awr --compare A B`): the
//! difference of their DB time split into DB CPU, each wait class and
//! the rest, each class's change read by its event whose time moved most:
//! slower storage, more I/O, the commit path or not the storage
//! ([`crate::difference`]). Reports over intervals of different lengths
//! (by more than a tenth) are compared per hour of elapsed time. Idle
//! events are not DB time and are left out; an event whose name one
//! report cut at its column width (`log file switch (private s`) is the
//! same event as the other report's whole name.
//!
//! Statspack and 11g reports print an average wait in whole
//! milliseconds: each average carries the range its digits allow (the
//! parser's ± bound, `avg_error_us`, else the printed digits), taken with
//! the range of time over waits (time printed in whole seconds), and two
//! averages whose ranges overlap are called the same latency, "within
//! the printed precision": never a change of latency. A ratio of two
//! averages carries the range interval arithmetic gives it.
//!
//! Reports of different databases, or of different instances of one, are
//! compared all the same, with a warning first: their difference is as
//! much the databases' (or instances') as the storage's.

use super::db_time::{self, DbTime, EventShare};
use super::findings::thresholds;
use crate::difference::{conclude, Avg, Kind, Part, Side, Totals};
use crate::kit::findings::{ev, finding};
use crate::kit::references::doc;
use dbio_model::awr::{AwrComparison, AwrReport, WaitEventRow};
use dbio_model::event_names::PrintedNames;
use dbio_model::{Finding, Severity, Verdict, VerdictClass, WaitClass};

/// The rule of a part's finding.
pub const RULE: &str = "awr.compare.part";
/// The rule of the warning that A and B are of different databases or
/// instances.
pub const DIFFERENT: &str = "awr.compare.different_databases";

/// Intervals whose lengths differ by more than this fraction are
/// compared per hour of elapsed time.
const SAME_LENGTH: f64 = 0.1;

/// The largest of `steps` that `v` is a whole multiple of (the digits it
/// was printed with), else the last.
fn step(v: f64, steps: &[f64]) -> f64 {
    for &s in steps {
        let n = v / s;
        if (n - n.round()).abs() < 1e-6 {
            return s;
        }
    }
    *steps.last().expect("steps")
}

/// An average wait with the range its printed digits allow: the average
/// (± `avg_error_us` when the parser gives the bound; else the printed
/// digits: whole ms, 10 µs or 0.01 µs) and time over waits (time in whole
/// seconds, or 0.1, 0.01, 0.001 s), intersected. Both ranges hold the
/// true average (a bound read from the digits is never narrower than the
/// printed precision), so their intersection does too. A time printed as
/// 0 over 4,765 waits is 0 to 105 µs, best estimated at 52 µs, not 0.
pub fn avg_range(
    time_s: Option<f64>,
    waits: Option<f64>,
    avg_us: Option<f64>,
    avg_error_us: Option<f64>,
) -> Option<Avg> {
    let from_time = match (time_s, waits) {
        (Some(t), Some(w)) if w > 0.0 => {
            let half = step(t, &[1.0, 0.1, 0.01, 0.001]) / 2.0;
            Some((
                (t - half).max(0.0) * 1e6 / w,
                (t + half) * 1e6 / w,
                t * 1e6 / w,
            ))
        }
        _ => None,
    };
    let printed = match (avg_us, avg_error_us) {
        (Some(a), Some(e)) if a >= 0.0 && e >= 0.0 => Some(((a - e).max(0.0), a + e, a)),
        (Some(a), _) if a > 0.0 => {
            let half = step(a, &[1000.0, 10.0, 0.01]) / 2.0;
            Some(((a - half).max(0.0), a + half, a))
        }
        _ => None,
    };
    let (lo, hi) = match (from_time, printed) {
        (Some(t), Some(p)) if t.0.max(p.0) <= t.1.min(p.1) => (t.0.max(p.0), t.1.min(p.1)),
        (Some(t), _) => (t.0, t.1),
        (None, Some(p)) => (p.0, p.1),
        (None, None) => return None,
    };
    // The best estimate: time over waits, else the printed average, the
    // first that lies in the range (a time printed in whole seconds can
    // say less than a printed average); a printed 0 only says "under half
    // a unit", so then the middle of the range.
    let us = [from_time.map(|t| t.2), printed.map(|p| p.2)]
        .into_iter()
        .flatten()
        .filter(|v| *v > 0.0)
        .find(|v| (lo..=hi).contains(v))
        .unwrap_or((lo + hi) / 2.0);
    Some(Avg { us, lo, hi })
}

/// A wait event row's average with its range ([`avg_range`]).
pub fn row_avg(e: &WaitEventRow) -> Option<Avg> {
    avg_range(e.time_s, e.waits, e.avg_us, e.avg_error_us)
}

/// The ± bound of a row's average as the report's parser means it: its
/// own, else 0 when the parser gave bounds to other rows of the report
/// (it leaves out a bound finer than 1 % of the average: the average is
/// then as good as exact, whatever round number its digits make), else
/// unknown (a result written before the bounds: the digits tell).
pub fn avg_error_us(r: &AwrReport, e: &WaitEventRow) -> Option<f64> {
    e.avg_error_us.or_else(|| {
        r.top_events
            .iter()
            .chain(&r.foreground_events)
            .chain(&r.background_events)
            .any(|x| x.avg_error_us.is_some())
            .then_some(0.0)
    })
}

/// `b` over `a`, with the range interval arithmetic gives it: (lowest,
/// best, highest); the highest is infinite when `a` can be 0. `None`
/// when `a`'s best estimate is 0.
pub fn ratio_range(a: &Avg, b: &Avg) -> Option<(f64, f64, f64)> {
    if a.us <= 0.0 {
        return None;
    }
    let hi = if a.lo > 0.0 {
        b.hi / a.lo
    } else {
        f64::INFINITY
    };
    Some((b.lo / a.hi, b.us / a.us, hi))
}

/// A ratio in words: `2.00x`, with its range when the printed precision
/// leaves one wider than a hundredth of it (`2.00x, 1.71x to 2.33x`).
pub fn ratio_words(r: (f64, f64, f64)) -> String {
    let (lo, best, hi) = r;
    if hi - lo <= 0.01 * best {
        format!("{best:.2}x")
    } else if hi.is_finite() {
        format!("{best:.2}x, {lo:.2}x to {hi:.2}x")
    } else {
        format!("{best:.2}x, at least {lo:.2}x")
    }
}

/// One report in a comparison: its DB time split, its scale to the
/// compared unit and the report itself (for the rows' printed bounds).
pub struct Compared<'a> {
    /// The report.
    pub report: &'a AwrReport,
    /// Its DB time by component.
    pub db_time: DbTime,
    /// Its scale to the compared unit (1, or to an hour of elapsed time).
    pub scale: f64,
}

impl Compared<'_> {
    /// The ± bound the parser gave the average of the event `e` (its
    /// foreground row, else its top events' row).
    fn avg_error_us(&self, e: &EventShare) -> Option<f64> {
        let r = self.report;
        r.foreground_events
            .iter()
            .chain(&r.top_events)
            .find(|x| x.name == e.name)
            .and_then(|x| avg_error_us(r, x))
    }

    fn event_side(&self, e: Option<&EventShare>) -> Side {
        match e {
            None => Side::default(),
            Some(e) => Side {
                time_s: e.time_s * self.scale,
                count: e.waits.map(|w| w * self.scale),
                avg: avg_range(Some(e.time_s), e.waits, e.avg_us, self.avg_error_us(e)),
            },
        }
    }
}

fn kind(c: WaitClass) -> Kind {
    match c {
        c if c.is_io() => Kind::Io,
        WaitClass::Commit => Kind::Commit,
        _ => Kind::Other,
    }
}

/// Each report's scale to the compared unit: 1, or to an hour of
/// elapsed time when the intervals' lengths differ.
fn scales(a: &AwrReport, b: &AwrReport) -> (f64, f64, String) {
    match (a.header.elapsed_s, b.header.elapsed_s) {
        (Some(x), Some(y)) if x > 0.0 && y > 0.0 && (x / y - 1.0).abs() > SAME_LENGTH => {
            (3600.0 / x, 3600.0 / y, " per hour of elapsed time".into())
        }
        _ => (1.0, 1.0, String::new()),
    }
}

/// DB CPU, each wait class and the rest of DB time, on both sides; an
/// event is one whichever report cut its name.
pub fn parts(a: &Compared, b: &Compared) -> Vec<Part> {
    let (da, db, sa, sb) = (&a.db_time, &b.db_time, a.scale, b.scale);
    let mut out = Vec::new();
    if da.cpu_s.is_some() || db.cpu_s.is_some() {
        let cpu = |d: &DbTime, s: f64| Side {
            time_s: d.cpu_s.unwrap_or(0.0) * s,
            ..Default::default()
        };
        out.push(Part {
            name: "DB CPU".into(),
            kind: Kind::Cpu,
            a: cpu(da, sa),
            b: cpu(db, sb),
            event: None,
        });
    }
    let names = PrintedNames::of(da.events.iter().chain(&db.events).map(|e| e.name.as_str()));
    let mut classes: Vec<WaitClass> = Vec::new();
    for e in da.events.iter().chain(&db.events) {
        if !classes.contains(&e.class) {
            classes.push(e.class);
        }
    }
    for class in classes {
        let time = |d: &DbTime, s: f64| -> f64 {
            d.events
                .iter()
                .filter(|e| e.class == class)
                .map(|e| e.time_s * s)
                .sum()
        };
        let mut in_class: Vec<String> = Vec::new();
        for e in da.events.iter().chain(&db.events) {
            let n = names.whole(&e.name);
            if e.class == class && !in_class.contains(&n) {
                in_class.push(n);
            }
        }
        let find = |d: &'_ DbTime, n: &str| -> Option<EventShare> {
            d.events.iter().find(|e| names.whole(&e.name) == n).cloned()
        };
        let moved = in_class
            .into_iter()
            .map(|n| {
                let (ea, eb) = (find(da, &n), find(db, &n));
                (n, a.event_side(ea.as_ref()), b.event_side(eb.as_ref()))
            })
            .max_by(|x, y| {
                (x.2.time_s - x.1.time_s)
                    .abs()
                    .total_cmp(&(y.2.time_s - y.1.time_s).abs())
            });
        out.push(Part {
            name: class.label().into(),
            kind: kind(class),
            a: Side {
                time_s: time(da, sa),
                ..Default::default()
            },
            b: Side {
                time_s: time(db, sb),
                ..Default::default()
            },
            event: moved,
        });
    }
    if da.whole && db.whole && da.cpu_s.is_some() && db.cpu_s.is_some() {
        let rest = |d: &DbTime, s: f64| Side {
            time_s: (d.db_time_s * d.rest_pct() / 100.0).max(0.0) * s,
            ..Default::default()
        };
        out.push(Part {
            name: "time neither DB CPU nor a listed wait".into(),
            kind: Kind::Other,
            a: rest(da, sa),
            b: rest(db, sb),
            event: None,
        });
    }
    out
}

/// 'log file parallel write' (the background row: the log writer's own
/// write) with its range.
fn log_write(r: &AwrReport) -> Option<Avg> {
    let e = r.event("log file parallel write")?;
    avg_range(e.time_s, e.waits, e.avg_us, avg_error_us(r, e))
}

/// The question a report comparison answers.
pub fn question(c: &AwrComparison) -> String {
    let name = |r: &AwrReport| {
        let db = r.header.db_name.as_deref().unwrap_or("?");
        format!("{} ({db})", r.source)
    };
    format!(
        "What changed, and is it the storage? Reports A = {}, B = {}",
        name(&c.a),
        name(&c.b)
    )
}

/// A database as the warning names it: `SYNTR (DB Id 1111111111)`.
fn database(h: &dbio_model::awr::AwrHeader) -> String {
    match (&h.db_name, &h.dbid) {
        (Some(n), Some(id)) => format!("{n} (DB Id {id})"),
        (Some(n), None) => n.clone(),
        (None, Some(id)) => format!("DB Id {id}"),
        (None, None) => "?".into(),
    }
}

/// A warning when the reports are of different databases (DB Id when
/// both print one, else DB name) or of different instances of one: their
/// difference is then as much the databases' or instances' as the
/// storage's. None when they are of the same, or do not say.
pub fn different_databases(c: &AwrComparison) -> Option<Finding> {
    let (a, b) = (&c.a.header, &c.b.header);
    let databases_differ = match ((&a.dbid, &b.dbid), (&a.db_name, &b.db_name)) {
        ((Some(x), Some(y)), _) => x != y,
        (_, (Some(x), Some(y))) => !x.eq_ignore_ascii_case(y),
        _ => false,
    };
    let instances_differ =
        matches!((&a.instance, &b.instance), (Some(x), Some(y)) if !x.eq_ignore_ascii_case(y));
    let text = if databases_differ {
        format!(
            "A and B are reports of different databases ({} and {}): what changed between them is as much the databases' and their workloads' as the storage's",
            database(a),
            database(b)
        )
    } else if instances_differ {
        format!(
            "A and B are reports of different instances of {} ({} and {}): each instance has its own sessions and its own part of the work, so what changed between them is as much the instances' as the storage's",
            a.db_name.as_deref().or(b.db_name.as_deref()).unwrap_or("one database"),
            a.instance.as_deref().unwrap_or("?"),
            b.instance.as_deref().unwrap_or("?")
        )
    } else {
        return None;
    };
    let mut evidence = Vec::new();
    for (what, h) in [("A", a), ("B", b)] {
        if let Some(d) = h.db_time_s {
            evidence.push(ev(&format!("DB time of {what}"), d, "s"));
        }
    }
    Some(
        finding(
            DIFFERENT,
            None,
            Severity::Warning,
            text,
            evidence,
            Some(doc("docs/awr.md")),
        )
        .with_impact(100.0, "difference in DB time"),
    )
}

/// Draws the findings and the verdict of a report comparison.
pub fn conclude_comparison(c: &mut AwrComparison) {
    let (Some(da), Some(db)) = (db_time::of(&c.a), db_time::of(&c.b)) else {
        c.findings = different_databases(c).into_iter().collect();
        c.verdict = Some(Verdict {
            question: question(c),
            class: VerdictClass::Inconclusive,
            answer: "Inconclusive: a report gives no DB time to compare.".into(),
            top: (0..c.findings.len()).collect(),
        });
        return;
    };
    let (sa, sb, per) = scales(&c.a, &c.b);
    let a = Compared {
        report: &c.a,
        db_time: da,
        scale: sa,
    };
    let b = Compared {
        report: &c.b,
        db_time: db,
        scale: sb,
    };
    let t = Totals {
        what: "DB time".into(),
        per,
        a_s: a.db_time.db_time_s * sa,
        b_s: b.db_time.db_time_s * sb,
        page_cache_max_us: thresholds(&c.a).0 as f64 / 1e3,
        log_write: (log_write(&c.a), log_write(&c.b)),
        rule: RULE.into(),
    };
    let (mut fs, mut v) = conclude(question(c), &parts(&a, &b), &t);
    if let Some(f) = different_databases(c) {
        // The warning first, whatever the parts' shares: it qualifies
        // every one of them.
        v.answer = format!("{}. {}", f.text, v.answer);
        fs.insert(0, f);
        v.top = crate::verdict::top_after(vec![0], &fs);
    }
    c.findings = fs;
    c.verdict = Some(v);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_whole_millisecond_average_is_a_range_narrowed_by_time_over_waits() {
        // Statspack: 160,620 waits, 34 s, printed 0 ms: 209 to 215 µs.
        let a = avg_range(Some(34.0), Some(160_620.0), Some(0.0), None).unwrap();
        assert!(
            (a.lo - 208.56).abs() < 0.01 && (a.hi - 214.79).abs() < 0.01,
            "{a:?}"
        );
        // Printed 5 ms with 1,000 waits, 5 s: 4.5 to 5.5 ms.
        let a = avg_range(Some(5.0), Some(1000.0), Some(5000.0), None).unwrap();
        assert_eq!((a.lo, a.hi, a.us), (4500.0, 5500.0, 5000.0));
        // 167 waits in `2` s printed `10` ms: time over waits (12.0 ms,
        // 9.0 to 15.0 ms) says less than the printed 9.5 to 10.5 ms; the
        // printed 10 ms is the best estimate, not the edge 10.5 ms.
        let a = avg_range(Some(2.0), Some(167.0), Some(10_000.0), None).unwrap();
        assert_eq!((a.lo, a.us, a.hi), (9500.0, 10_000.0, 10_500.0));
        // `0` s over 4,765 waits, printed `0` ms: under 105 µs, 52 µs in
        // the middle rather than "0.00 ns".
        let a = avg_range(Some(0.0), Some(4765.0), Some(0.0), None).unwrap();
        assert_eq!(a.lo, 0.0);
        assert!((a.us - 0.25e6 / 4765.0).abs() < 1e-9, "{a:?}");
        // 12c: 109.72us over 360,121 waits and 40 s.
        let a = avg_range(Some(40.0), Some(360_121.0), Some(109.72), None).unwrap();
        assert!((a.hi - a.lo) < 0.02, "{a:?}");
    }

    fn report(db: f64, elapsed: f64, cpu: f64, ev: &[(&str, f64, f64, f64)]) -> AwrReport {
        // ev: name, waits, time s, printed average µs.
        let mut r = AwrReport::default();
        r.header.db_time_s = Some(db);
        r.header.elapsed_s = Some(elapsed);
        r.top_events.push(WaitEventRow {
            name: "DB CPU".into(),
            time_s: Some(cpu),
            ..Default::default()
        });
        for &(name, waits, t, avg) in ev {
            r.foreground_events.push(WaitEventRow {
                name: name.into(),
                waits: Some(waits),
                time_s: Some(t),
                avg_us: Some(avg),
                ..Default::default()
            });
        }
        r
    }

    #[test]
    fn slower_reads_are_the_storage_and_a_longer_interval_is_scaled() {
        // 100 k reads of 1 ms (100 s) against 100 k of 6 ms (600 s), over
        // one hour against two: per hour 100 s against 300 s.
        let mut c = AwrComparison {
            a: report(
                300.0,
                3600.0,
                200.0,
                &[("db file sequential read", 100_000.0, 100.0, 1000.0)],
            ),
            b: report(
                1000.0,
                7200.0,
                400.0,
                &[("db file sequential read", 100_000.0, 600.0, 6000.0)],
            ),
            ..Default::default()
        };
        conclude_comparison(&mut c);
        let v = c.verdict.unwrap();
        assert_eq!(v.class, VerdictClass::StorageBound, "{}", v.answer);
        assert!(
            v.answer.starts_with("B's DB time per hour of elapsed time is 1.67x A's (500 s against 300 s): User I/O: 100 s in A, 300 s in B (+200 s, 100.0 % of the difference); 'db file sequential read' per wait 1.00 ms"),
            "{}",
            v.answer
        );
        assert!(
            v.answer.ends_with("the storage got slower."),
            "{}",
            v.answer
        );
    }

    #[test]
    fn whole_millisecond_averages_that_may_be_equal_are_not_called_slower() {
        // Printed 5 ms over 1,000 waits and 5 s (4.5..5.5 ms) against 6 ms
        // over 2,000 waits and 11 s (5.5..5.75 ms): the ranges touch, so
        // the latency may be the same; the time doubled with the waits.
        let mut c = AwrComparison {
            a: report(
                45.0,
                3600.0,
                40.0,
                &[("db file sequential read", 1000.0, 5.0, 5000.0)],
            ),
            b: report(
                51.0,
                3600.0,
                40.0,
                &[("db file sequential read", 2000.0, 11.0, 6000.0)],
            ),
            ..Default::default()
        };
        conclude_comparison(&mut c);
        let v = c.verdict.unwrap();
        assert_eq!(v.class, VerdictClass::NotStorage, "{}", v.answer);
        assert!(
            v.answer.contains(
                "per wait 5.00 ms (4.50 ms to 5.50 ms) in A, 5.50 ms (5.50 ms to 5.75 ms) in B"
            ),
            "{}",
            v.answer
        );
        assert!(
            v.answer
                .contains("more I/O at the same latency within the printed precision"),
            "{}",
            v.answer
        );
    }

    /// One foreground event with the parser's ± bound: (name, waits,
    /// time s, average µs, bound µs).
    type Bounded<'a> = (&'a str, f64, f64, f64, Option<f64>);

    fn bounded(db: f64, cpu: f64, ev: &[Bounded]) -> AwrReport {
        let mut r = report(db, 3600.0, cpu, &[]);
        for &(name, waits, t, avg, err) in ev {
            r.foreground_events.push(WaitEventRow {
                name: name.into(),
                waits: Some(waits),
                time_s: Some(t),
                avg_us: Some(avg),
                avg_error_us: err,
                ..Default::default()
            });
        }
        r
    }

    fn verdict_of(a: AwrReport, b: AwrReport) -> (AwrComparison, Verdict) {
        let mut c = AwrComparison {
            a,
            b,
            ..Default::default()
        };
        conclude_comparison(&mut c);
        let v = c.verdict.clone().unwrap();
        (c, v)
    }

    #[test]
    fn two_one_millisecond_averages_twice_apart_are_told_apart() {
        // Both printed `1` ms (11g text, Statspack); the parser gives time
        // over waits with its bound: 10,000 waits in 7 s and in 14 s, time
        // in whole seconds: 700 ± 50 µs against 1.40 ms ± 50 µs.
        let (_, v) = verdict_of(
            bounded(
                20.0,
                10.0,
                &[("db file sequential read", 1e4, 7.0, 700.0, Some(50.0))],
            ),
            bounded(
                27.0,
                10.0,
                &[("db file sequential read", 1e4, 14.0, 1400.0, Some(50.0))],
            ),
        );
        assert_eq!(v.class, VerdictClass::StorageBound, "{}", v.answer);
        assert!(
            v.answer.contains(
                "per wait 700 µs (650 µs to 750 µs) in A, 1.40 ms (1.35 ms to 1.45 ms) in B"
            ),
            "{}",
            v.answer
        );
        assert!(!v.answer.contains("1.00 ms"), "{}", v.answer);
        // Without the parser's bound the printed `1` ms (1000 µs) is read
        // as 0.5 to 1.5 ms and narrowed by time over waits the same way.
        let printed = avg_range(Some(7.0), Some(1e4), Some(1000.0), None).unwrap();
        assert_eq!((printed.lo, printed.us, printed.hi), (650.0, 700.0, 750.0));
    }

    #[test]
    fn a_ratio_of_bounded_averages_is_a_range() {
        let a = Avg {
            us: 700.0,
            lo: 650.0,
            hi: 750.0,
        };
        let b = Avg {
            us: 1400.0,
            lo: 1350.0,
            hi: 1450.0,
        };
        let r = ratio_range(&a, &b).unwrap();
        assert!((r.0 - 1.8).abs() < 1e-9 && r.1 == 2.0 && (r.2 - 1450.0 / 650.0).abs() < 1e-9);
        assert_eq!(ratio_words(r), "2.00x, 1.80x to 2.23x");
        assert_eq!(
            ratio_words(ratio_range(&Avg::exact(2.0), &Avg::exact(5.0)).unwrap()),
            "2.50x"
        );
        let zero = Avg {
            us: 100.0,
            lo: 0.0,
            hi: 500.0,
        };
        assert_eq!(
            ratio_words(ratio_range(&zero, &b).unwrap()),
            "14.00x, at least 2.70x"
        );
        assert!(ratio_range(&Avg::exact(0.0), &b).is_none());
    }

    #[test]
    fn bounds_that_overlap_are_the_same_latency_and_apart_are_not() {
        // 10,000 waits each, time in whole seconds: 7 s is 650..750 µs;
        // 8 s is 750..850 µs, touching it: the same latency within the
        // printed precision, though 14 % apart.
        let side = |t: f64, avg: f64, err: Option<f64>| {
            bounded(
                1.0 + t,
                1.0,
                &[("db file sequential read", 1e4, t, avg, err)],
            )
        };
        for (a, b) in [
            // The parser's bounds, and the printed `1` ms of a Statspack
            // report without them.
            (side(7.0, 700.0, Some(50.0)), side(8.0, 800.0, Some(50.0))),
            (side(7.0, 1000.0, None), side(8.0, 1000.0, None)),
        ] {
            let (_, v) = verdict_of(a, b);
            assert_eq!(v.class, VerdictClass::NotStorage, "{}", v.answer);
            assert!(
                v.answer.contains(
                    "per wait 700 µs (650 µs to 750 µs) in A, 800 µs (750 µs to 850 µs) in B"
                ) && v
                    .answer
                    .contains("the same latency within the printed precision"),
                "{}",
                v.answer
            );
        }
        // 9 s is 850..950 µs, clear of 650..750: the storage got slower.
        for (a, b) in [
            (side(7.0, 700.0, Some(50.0)), side(9.0, 900.0, Some(50.0))),
            (side(7.0, 1000.0, None), side(9.0, 1000.0, None)),
        ] {
            let (_, v) = verdict_of(a, b);
            assert_eq!(v.class, VerdictClass::StorageBound, "{}", v.answer);
            assert!(
                v.answer.ends_with("the storage got slower."),
                "{}",
                v.answer
            );
        }
    }

    #[test]
    fn different_databases_or_instances_are_warned_of_first() {
        let with = |name: &str, id: &str, inst: &str| {
            let mut r = report(
                1000.0,
                3600.0,
                200.0,
                &[("db file sequential read", 100_000.0, 100.0, 1000.0)],
            );
            r.header.db_name = Some(name.into());
            r.header.dbid = Some(id.into());
            r.header.instance = Some(inst.into());
            r
        };
        let (c, v) = verdict_of(
            with("SYNTR", "1111111111", "syntr1"),
            with("OTHERDB", "2222222222", "other1"),
        );
        let f = &c.findings[0];
        assert_eq!(
            (f.rule.as_str(), f.severity),
            (DIFFERENT, Severity::Warning)
        );
        assert!(
            f.text.starts_with("A and B are reports of different databases (SYNTR (DB Id 1111111111) and OTHERDB (DB Id 2222222222))"),
            "{}",
            f.text
        );
        assert_eq!(v.top.first(), Some(&0));
        assert!(v.answer.starts_with(&f.text), "{}", v.answer);
        // The same name, another DB Id: different (the DB Id decides).
        let (c, _) = verdict_of(
            with("SYNTR", "1111111111", "syntr1"),
            with("SYNTR", "3333333333", "syntr1"),
        );
        assert_eq!(c.findings[0].rule, DIFFERENT);
        // One database, two instances (RAC).
        let (c, _) = verdict_of(
            with("SYNTR", "1111111111", "syntr1"),
            with("SYNTR", "1111111111", "syntr2"),
        );
        assert!(
            c.findings[0].text.starts_with(
                "A and B are reports of different instances of SYNTR (syntr1 and syntr2)"
            ),
            "{}",
            c.findings[0].text
        );
        // The same instance, the name in another case: no warning.
        let (c, v) = verdict_of(
            with("SYNTR", "1111111111", "syntr1"),
            with("syntr", "1111111111", "SYNTR1"),
        );
        assert!(c.findings.iter().all(|f| f.rule != DIFFERENT));
        assert!(
            v.answer.starts_with("No material difference"),
            "{}",
            v.answer
        );
    }

    #[test]
    fn a_cut_name_is_the_same_event_and_idle_events_are_no_part() {
        let full = "log file switch (private strand flush incomplete)";
        let a = bounded(
            100.0,
            50.0,
            &[
                ("log file switch (private s", 1000.0, 10.0, 10_000.0, None),
                ("LGWR worker group idle", 10.0, 3000.0, 3e8, None),
            ],
        );
        let b = bounded(
            300.0,
            50.0,
            &[
                (full, 5000.0, 200.0, 40_000.0, None),
                ("Space Manager: slave idle wait", 10.0, 3000.0, 3e8, None),
            ],
        );
        let da = db_time::of(&a).unwrap();
        let db = db_time::of(&b).unwrap();
        let ps = parts(
            &Compared {
                report: &a,
                db_time: da,
                scale: 1.0,
            },
            &Compared {
                report: &b,
                db_time: db,
                scale: 1.0,
            },
        );
        let names: Vec<&str> = ps.iter().map(|p| p.name.as_str()).collect();
        assert_eq!(
            names,
            [
                "DB CPU",
                "Configuration",
                "time neither DB CPU nor a listed wait"
            ]
        );
        let (ev, sa, sb) = ps[1].event.clone().unwrap();
        assert_eq!(ev, full);
        assert_eq!((sa.time_s, sb.time_s), (10.0, 200.0));
    }

    #[test]
    fn a_report_with_bounds_has_exact_averages_where_it_gives_none() {
        // 2 waits in 4 ms, printed 2.00ms: read from its digits alone, a
        // whole-millisecond average and a time to the millisecond (1.75
        // to 2.25 ms); in a report whose parser gives bounds, a row
        // without one is finer than 1 %: 2 ms.
        let mut r = bounded(
            10.0,
            1.0,
            &[("enq: TX - row lock contention", 2.0, 0.004, 2000.0, None)],
        );
        let e = r.foreground_events[0].clone();
        assert_eq!(avg_error_us(&r, &e), None);
        let a = avg_range(e.time_s, e.waits, e.avg_us, avg_error_us(&r, &e)).unwrap();
        assert!(
            (a.lo - 1750.0).abs() < 1e-6 && (a.hi - 2250.0).abs() < 1e-6,
            "{a:?}"
        );
        r.foreground_events.push(WaitEventRow {
            name: "db file sequential read".into(),
            avg_error_us: Some(500.0),
            ..Default::default()
        });
        assert_eq!(avg_error_us(&r, &e), Some(0.0));
        let a = avg_range(e.time_s, e.waits, e.avg_us, avg_error_us(&r, &e)).unwrap();
        assert!(
            (a.lo - 2000.0).abs() < 1e-6 && (a.hi - 2000.0).abs() < 1e-6,
            "{a:?}"
        );
    }
}
