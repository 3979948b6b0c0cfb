//! What changed between two reports (`dbio awr --compare A B`): the
//! difference of their DB time split into DB CPU, each wait class and
//! the rest, each class's change read by its event whose time moved most:
//! slower storage, more I/O, the commit path or not the storage
//! ([`crate::difference`]). Reports over intervals of different lengths
//! (by more than a tenth) are compared per hour of elapsed time.
//!
//! Statspack and 11g reports print an average wait in whole
//! milliseconds: each average carries the range its digits allow, taken
//! with the range of time over waits (time printed in whole seconds), and
//! two averages whose ranges overlap are called the same latency, "within
//! the printed precision".

use super::db_time::{self, DbTime, EventShare};
use super::findings::thresholds;
use crate::difference::{conclude, Avg, Kind, Part, Side, Totals};
use dbio_model::awr::{AwrComparison, AwrReport, WaitEventRow};
use dbio_model::{Finding, Severity, Verdict, VerdictClass, WaitClass};

/// The rule of a part's finding.
pub const RULE: &str = "awr.compare.part";

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

/// An average wait with the range its printed digits allow: the printed
/// average (whole ms, 10 µs or 0.01 µs) and time over waits (time in
/// whole seconds, or 0.1, 0.01, 0.001 s), intersected.
pub fn avg_range(time_s: Option<f64>, waits: Option<f64>, avg_us: Option<f64>) -> Option<Avg> {
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
    let printed = avg_us.filter(|a| *a > 0.0).map(|a| {
        let half = step(a, &[1000.0, 10.0, 0.01]) / 2.0;
        ((a - half).max(0.0), a + half, a)
    });
    let (lo, hi, us) = match (from_time, printed) {
        (Some(t), Some(p)) if t.0.max(p.0) <= t.1.min(p.1) => {
            let (lo, hi) = (t.0.max(p.0), t.1.min(p.1));
            (lo, hi, t.2.clamp(lo, hi))
        }
        (Some(t), _) => t,
        (None, Some(p)) => p,
        (None, None) => return None,
    };
    Some(Avg { us, lo, hi })
}

fn event_side(e: Option<&EventShare>, scale: f64) -> Side {
    match e {
        None => Side::default(),
        Some(e) => Side {
            time_s: e.time_s * scale,
            count: e.waits.map(|w| w * scale),
            avg: avg_range(Some(e.time_s), e.waits, e.avg_us),
        },
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

/// DB CPU, each wait class and the rest of DB time, on both sides.
pub fn parts(da: &DbTime, db: &DbTime, sa: f64, sb: f64) -> Vec<Part> {
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
        let mut names: Vec<&str> = Vec::new();
        for e in da.events.iter().chain(&db.events) {
            if e.class == class && !names.contains(&e.name.as_str()) {
                names.push(&e.name);
            }
        }
        let find = |d: &'_ DbTime, n: &str| -> Option<EventShare> {
            d.events.iter().find(|e| e.name == n).cloned()
        };
        let moved = names
            .into_iter()
            .map(|n| {
                let (a, b) = (find(da, n), find(db, n));
                (
                    n.to_string(),
                    event_side(a.as_ref(), sa),
                    event_side(b.as_ref(), sb),
                )
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

fn log_write(r: &AwrReport) -> Option<Avg> {
    let e: &WaitEventRow = r.event("log file parallel write")?;
    avg_range(e.time_s, e.waits, e.avg_us)
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

/// A note when the reports are of different databases: their difference
/// is then as much the databases' as the storage's.
fn different_databases(c: &AwrComparison) -> Option<Finding> {
    let (a, b) = (&c.a.header, &c.b.header);
    let differ = match (&a.dbid, &b.dbid) {
        (Some(x), Some(y)) => x != y,
        _ => matches!((&a.db_name, &b.db_name), (Some(x), Some(y)) if x != y),
    };
    differ.then(|| {
        Finding::note(
            "awr.compare.different_databases",
            Severity::Notice,
            format!(
                "A and B are reports of different databases ({} and {}): the difference is as much the databases' and their workloads' as the storage's",
                a.db_name.as_deref().unwrap_or("?"),
                b.db_name.as_deref().unwrap_or("?")
            ),
        )
    })
}

/// Draws the findings and the verdict of a report comparison.
pub fn conclude_comparison(c: &mut AwrComparison) {
    let (Some(da), Some(db)) = (db_time::of(&c.a), db_time::of(&c.b)) else {
        c.findings = Vec::new();
        c.verdict = Some(Verdict {
            question: question(c),
            class: VerdictClass::Inconclusive,
            answer: "Inconclusive: a report gives no DB time to compare.".into(),
            top: Vec::new(),
        });
        return;
    };
    let (sa, sb, per) = scales(&c.a, &c.b);
    let t = Totals {
        what: "DB time".into(),
        per,
        a_s: da.db_time_s * sa,
        b_s: db.db_time_s * sb,
        page_cache_max_us: thresholds(&c.a).0 as f64 / 1e3,
        log_write: (log_write(&c.a), log_write(&c.b)),
        rule: RULE.into(),
    };
    let (mut fs, mut v) = conclude(question(c), &parts(&da, &db, sa, sb), &t);
    if let Some(f) = different_databases(c) {
        fs = crate::verdict::rank(fs.into_iter().chain([f]).collect());
        v.top = crate::verdict::top(&fs, crate::verdict::TOP);
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
        let a = avg_range(Some(34.0), Some(160_620.0), Some(0.0)).unwrap();
        assert!(
            (a.lo - 208.56).abs() < 0.01 && (a.hi - 214.79).abs() < 0.01,
            "{a:?}"
        );
        // Printed 5 ms with 1,000 waits, 5 s: 4.5 to 5.5 ms.
        let a = avg_range(Some(5.0), Some(1000.0), Some(5000.0)).unwrap();
        assert_eq!((a.lo, a.hi, a.us), (4500.0, 5500.0, 5000.0));
        // 12c: 109.72us over 360,121 waits and 40 s.
        let a = avg_range(Some(40.0), Some(360_121.0), Some(109.72)).unwrap();
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
}
