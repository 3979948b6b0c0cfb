//! Every component of DB time from a tenth of it (DB CPU, each
//! foreground wait, the time neither accounts for) by its share, as ADDM
//! ranks its findings, saying whether the storage explains it: an I/O
//! wait by its average latency against the tier thresholds (the CPU
//! first when the host is saturated or Resource Manager throttles), 'log
//! file sync' by what the commits wait on ([`super::commit`]), DB CPU is
//! CPU. When no I/O event reaches a tenth, one finding gives the I/O
//! waits' share. The waits a dedicated rule weighs ('log file switch …',
//! 'resmgr:cpu quantum', the writer stalls) are left to it.

use super::cpu::{self, CpuPressure};
use super::{commit, setup, tier_of, us, OF_DB_TIME};
use crate::kit::findings::{ev, finding, Finding};
use crate::kit::references::{log_file_sync, method_r, physical_io_not_always_physical};
use crate::sections::awr::db_time::{self, DbTime, EventShare};
use crate::sections::trace::findings::{article, LatencyTier, COMPONENT_SHARE};
use crate::verdict::severity_of_share;
use dbio_model::awr::AwrReport;
use dbio_model::WaitClass;

/// Events a dedicated rule weighs (names or name prefixes).
const WEIGHED_ELSEWHERE: [&str; 5] = [
    "log file switch",
    "resmgr:cpu quantum",
    "free buffer waits",
    "write complete waits",
    "log buffer space",
];

fn weighed_elsewhere(name: &str) -> bool {
    WEIGHED_ELSEWHERE.iter().any(|p| name.starts_with(p))
}

/// Every component of DB time from a tenth of it, and the I/O waits'
/// share when no I/O event reaches a tenth.
pub fn db_time_components(r: &AwrReport, out: &mut Vec<Finding>) {
    let Some(d) = db_time::of(r) else {
        return;
    };
    let pressure = cpu::pressure(r);
    if d.cpu_s.is_some() && d.cpu_pct >= COMPONENT_SHARE {
        out.push(db_cpu(r, &d, pressure.as_ref()));
    }
    for e in d
        .events
        .iter()
        .filter(|e| e.pct >= COMPONENT_SHARE && !weighed_elsewhere(&e.name))
    {
        out.push(event_finding(r, &d, e, pressure.as_ref()));
    }
    if d.events
        .iter()
        .all(|e| !(e.class.is_io() && e.pct >= COMPONENT_SHARE))
    {
        out.push(io_waits(&d));
    }
    let rest = d.rest_pct();
    if d.whole && d.cpu_s.is_some() && rest >= COMPONENT_SHARE {
        out.push(uncaptured(r, &d, pressure.as_ref()));
    }
}

/// DB CPU's share, with the host's CPU.
fn db_cpu(r: &AwrReport, d: &DbTime, pressure: Option<&CpuPressure>) -> Finding {
    let (cpu, db, share) = (d.cpu_s.unwrap_or(0.0), d.db_time_s, d.cpu_pct);
    let mut evidence = vec![ev("DB CPU", cpu, "s"), ev("DB time", db, "s")];
    let host = match r.derived.host_cpu_busy_pct {
        Some(b) => {
            evidence.push(ev("host CPU busy", b, "%"));
            match pressure.filter(|p| p.busy_pct.is_some()) {
                Some(p) => format!(
                    "; {}, so the sessions also queued for it",
                    p.words()
                ),
                None if b < 50.0 => format!("; the host's CPUs were {b:.1} % busy, so the sessions worked on the CPU rather than queued for it"),
                None => format!("; the host's CPUs were {b:.1} % busy"),
            }
        }
        None => String::new(),
    };
    finding(
        "awr.cpu",
        Some("DB CPU"),
        severity_of_share(share),
        format!(
            "DB CPU is {share:.1} % of DB time ({cpu:.1} s of {db:.1} s): time on the CPU, which the storage does not explain{host}"
        ),
        evidence,
        Some(method_r()),
    )
    .with_impact(share, OF_DB_TIME)
}

/// The I/O waits' share when no I/O event reaches a tenth.
fn io_waits(d: &DbTime) -> Finding {
    let (io, db) = (d.io_pct(), d.db_time_s);
    let largest = match d.top_io() {
        Some(e) => format!(
            "; the largest, '{}', is {:.1} % ({:.1} s{})",
            e.name,
            e.pct,
            e.time_s,
            e.avg_us
                .map_or_else(String::new, |a| format!(" at {} per wait", us(a)))
        ),
        None => String::new(),
    };
    finding(
        "awr.io_waits",
        Some("I/O waits"),
        severity_of_share(io),
        format!(
            "I/O waits (User I/O and System I/O, foreground) are {io:.1} % of DB time{largest}: the storage explains little of this DB time"
        ),
        vec![
            ev("I/O waits", io * db / 100.0, "s"),
            ev("DB time", db, "s"),
        ],
        Some(method_r()),
    )
    .with_impact(io, OF_DB_TIME)
}

/// DB time that is neither DB CPU nor a listed wait, read against the
/// host's CPU: the run queue when the host is saturated, not it when the
/// host is mostly idle.
fn uncaptured(r: &AwrReport, d: &DbTime, pressure: Option<&CpuPressure>) -> Finding {
    let (rest, db) = (d.rest_pct(), d.db_time_s);
    let aix = if r
        .header
        .platform
        .as_deref()
        .is_some_and(|p| p.contains("AIX"))
    {
        "; on AIX, the accounting of SMT threads can also report less DB CPU than the sessions used"
    } else {
        ""
    };
    let mut evidence = vec![
        ev("DB CPU", d.cpu_s.unwrap_or(0.0), "s"),
        ev("foreground waits", d.waits_pct() * db / 100.0, "s"),
        ev("DB time", db, "s"),
    ];
    let what = match (
        pressure.and_then(|p| p.busy_pct.map(|_| p)),
        r.derived.host_cpu_busy_pct,
    ) {
        (Some(p), _) => format!(
            "most likely sessions waiting for a CPU in the run queue: {}{aix}",
            p.words()
        ),
        (None, Some(b)) if b < 50.0 => {
            evidence.push(ev("host CPU busy", b, "%"));
            format!("not a run queue, the host's CPUs being {b:.1} % busy, but code with no wait event{aix}")
        }
        _ => {
            format!("sessions waiting for a CPU in the run queue, or code with no wait event{aix}")
        }
    };
    finding(
        "awr.uncaptured",
        Some("DB time not in CPU or waits"),
        severity_of_share(rest),
        format!(
            "{rest:.1} % of DB time ({:.1} s) is neither DB CPU nor a foreground wait: {what}; no wait says it was the storage",
            rest * db / 100.0
        ),
        evidence,
        Some(method_r()),
    )
    .with_impact(rest, OF_DB_TIME)
}

/// The finding about one foreground wait event from a tenth of DB time.
fn event_finding(
    r: &AwrReport,
    d: &DbTime,
    e: &EventShare,
    pressure: Option<&CpuPressure>,
) -> Finding {
    let share = e.pct;
    let per = e
        .avg_us
        .map_or_else(String::new, |a| format!(" at {} per wait", us(a)));
    let head = format!(
        "'{}' is {share:.1} % of DB time ({:.1} s{per})",
        e.name, e.time_s
    );
    let mut evidence = vec![ev("time", e.time_s, "s"), ev("DB time", d.db_time_s, "s")];
    if let Some(a) = e.avg_us {
        evidence.push(ev("average wait", a * 1000.0, "ns"));
    }
    let (rule, text, reference) = if e.class.is_io() {
        let reading = match e.avg_us {
            Some(a) => match tier_of(r, a) {
                LatencyTier::PageCache => format!(
                    "{} per wait is {}: faster storage would not shorten it",
                    us(a),
                    LatencyTier::PageCache.words()
                ),
                t => format!(
                    "{} per wait is {}: the storage explains this time",
                    us(a),
                    t.words()
                ),
            },
            None => "the storage explains this time".to_string(),
        };
        let cpu_first = pressure.map_or_else(String::new, |p| {
            format!(
                "; but {}: a wait lasts until its process runs again, so the CPU comes first",
                p.words()
            )
        });
        (
            "awr.io_wait",
            format!("{head}: a {} wait; {reading}{cpu_first}", e.class.label()),
            Some(physical_io_not_always_physical()),
        )
    } else if e.class == WaitClass::Commit {
        (
            "awr.commit_wait",
            format!("{head}: {}", commit::reading(r)),
            Some(log_file_sync()),
        )
    } else {
        // RAC: another instance's LMS ships a block only after its LGWR
        // wrote the redo ('gcs log flush sync').
        let flush = match (e.class, setup::log_flush_for_lms(r)) {
            (WaitClass::Cluster, Some(l)) => format!(
                "; LMS ships blocks only after LGWR wrote their redo ('gcs log flush sync': {:.0} waits{}), so a slow log write lengthens it",
                l.waits,
                l.avg_us
                    .map_or_else(String::new, |a| format!(" at {}", us(a)))
            ),
            _ => String::new(),
        };
        (
            "awr.wait",
            format!(
                "{head}: {} {} wait, not an I/O: the storage does not explain it{flush}",
                article(e.class),
                e.class.label()
            ),
            Some(method_r()),
        )
    };
    finding(
        rule,
        Some(&e.name),
        severity_of_share(share),
        text,
        evidence,
        reference,
    )
    .with_impact(share, OF_DB_TIME)
}

#[cfg(test)]
mod tests {
    use super::*;
    use dbio_model::awr::WaitEventRow;

    fn report(cpu_s: f64, busy: Option<f64>, events: &[(&str, f64, f64)]) -> AwrReport {
        let mut r = AwrReport::default();
        r.header.db_time_s = Some(1000.0);
        r.header.cpus = Some(16.0);
        r.derived.host_cpu_busy_pct = busy;
        r.top_events.push(WaitEventRow {
            name: "DB CPU".into(),
            time_s: Some(cpu_s),
            ..Default::default()
        });
        for &(name, waits, t) in events {
            r.foreground_events.push(WaitEventRow {
                name: name.into(),
                waits: Some(waits),
                time_s: Some(t),
                ..Default::default()
            });
        }
        r
    }

    fn texts(r: &AwrReport) -> Vec<(String, String)> {
        let mut out = Vec::new();
        db_time_components(r, &mut out);
        out.into_iter().map(|f| (f.rule, f.text)).collect()
    }

    #[test]
    fn an_io_wait_on_a_saturated_host_says_cpu_first() {
        let ev = [("db file sequential read", 100_000.0, 800.0)];
        let calm = texts(&report(150.0, Some(80.0), &ev));
        let io = calm.iter().find(|(r, _)| r == "awr.io_wait").unwrap();
        assert!(io.1.ends_with("the storage explains this time"), "{}", io.1);
        let busy = texts(&report(150.0, Some(81.0), &ev));
        let io = busy.iter().find(|(r, _)| r == "awr.io_wait").unwrap();
        assert!(
            io.1.ends_with("but the host's CPUs were 81.0 % busy, past the 81 % knee for 16 CPUs: a wait lasts until its process runs again, so the CPU comes first"),
            "{}",
            io.1
        );
    }

    #[test]
    fn time_outside_cpu_and_waits_is_read_against_the_host() {
        let ev = [("db file sequential read", 100_000.0, 10.0)];
        let idle = texts(&report(310.0, Some(2.9), &ev));
        let u = idle.iter().find(|(r, _)| r == "awr.uncaptured").unwrap();
        assert!(
            u.1.contains("not a run queue, the host's CPUs being 2.9 % busy"),
            "{}",
            u.1
        );
        let saturated = texts(&report(310.0, Some(95.0), &ev));
        let u = saturated
            .iter()
            .find(|(r, _)| r == "awr.uncaptured")
            .unwrap();
        assert!(u.1.contains("most likely sessions waiting for a CPU in the run queue: the host's CPUs were 95.0 % busy"), "{}", u.1);
        let unknown = texts(&report(310.0, None, &ev));
        let u = unknown.iter().find(|(r, _)| r == "awr.uncaptured").unwrap();
        assert!(
            u.1.contains("in the run queue, or code with no wait event"),
            "{}",
            u.1
        );
    }

    #[test]
    fn waits_with_their_own_rule_are_not_components_twice() {
        let r = report(
            100.0,
            None,
            &[
                ("log file switch (checkpoint incomplete)", 4000.0, 300.0),
                ("resmgr:cpu quantum", 4000.0, 200.0),
                ("enq: TX - row lock contention", 10.0, 150.0),
            ],
        );
        let rules: Vec<String> = texts(&r).into_iter().map(|(r, _)| r).collect();
        assert_eq!(
            rules,
            ["awr.cpu", "awr.wait", "awr.io_waits", "awr.uncaptured"]
        );
    }

    #[test]
    fn a_cluster_wait_names_the_log_flushes_lms_waits_for() {
        let mut r = report(200.0, None, &[("gc buffer busy acquire", 100_000.0, 240.0)]);
        let plain = texts(&r);
        assert!(
            plain[1].1.ends_with("the storage does not explain it"),
            "{}",
            plain[1].1
        );
        r.background_events.push(WaitEventRow {
            name: "gcs log flush sync".into(),
            waits: Some(400_000.0),
            time_s: Some(200.0),
            ..Default::default()
        });
        let rac = texts(&r);
        assert!(
            rac[1].1.ends_with(
                "('gcs log flush sync': 400000 waits at 500 µs), so a slow log write lengthens it"
            ),
            "{}",
            rac[1].1
        );
    }
}
