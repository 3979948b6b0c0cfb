//! The host's CPU before any I/O wait: a wait ends when its process runs
//! again, so on a saturated host every wait, an I/O's or a commit's,
//! includes time in the run queue, and Resource Manager's 'resmgr:cpu
//! quantum' is time sessions were held off a CPU on purpose.
//!
//! * Saturated: the host's CPUs busier than the knee of an M/M/m queue
//!   with as many servers as the report names CPUs, where response time
//!   starts to climb steeply (Cary Millsap, "Thinking Clearly About
//!   Performance", table 1: 50 % for 1 CPU, 57 % for 2, 66 % for 4, 74 %
//!   for 8, 81 % for 16, 86 % for 32, 89 % for 64, 92 % for 128). Between
//!   two rows the smaller CPU count's knee is taken (the earlier knee);
//!   with no CPU count, [`UNKNOWN_CPUS_KNEE`]. The busy share is the
//!   interval's average (Host CPU's 100 − %Idle): a host busy half the
//!   hour and idle the other half averages under the knee, so this can
//!   only miss saturation, not invent it.
//! * Load against the CPUs: the foreground sessions' CPU (DB CPU /
//!   elapsed) as CPUs, beside the host's count. The Host CPU section's
//!   load averages are not kept by the parser, so they are not used.
//! * 'resmgr:cpu quantum' from a tenth of DB time ([`RESMGR_SHARE`]):
//!   the plan throttles sessions, and the CPU comes first too.

use super::events::{average_us, foreground, share_of_db_time, waited};
use super::{OF_DB_TIME, RESMGR_SHARE};
use crate::kit::findings::{ev, finding, Finding, Severity};
use crate::kit::references::{method_r, thinking_clearly};
use crate::verdict::severity_of_share;
use dbio_model::awr::AwrReport;

/// Knees of M/M/m queues (CPUs, busy %), from Millsap's table.
const KNEES: [(f64, f64); 8] = [
    (1.0, 50.0),
    (2.0, 57.0),
    (4.0, 66.0),
    (8.0, 74.0),
    (16.0, 81.0),
    (32.0, 86.0),
    (64.0, 89.0),
    (128.0, 92.0),
];

/// The knee taken when the report names no CPU count, busy %.
pub const UNKNOWN_CPUS_KNEE: f64 = 90.0;

/// A 'resmgr:cpu quantum' share of DB time (percent) from which a
/// finding names it.
pub const RESMGR_NOTED_SHARE: f64 = 1.0;

/// The knee of a host of `cpus` CPUs, busy %.
pub fn knee(cpus: Option<f64>) -> f64 {
    match cpus.filter(|c| *c >= 1.0) {
        Some(c) => KNEES
            .iter()
            .rev()
            .find(|(m, _)| *m <= c)
            .map_or(KNEES[0].1, |(_, k)| *k),
        None => UNKNOWN_CPUS_KNEE,
    }
}

/// What holds the sessions off the CPU, when something does.
#[derive(Debug, Clone, PartialEq)]
pub struct CpuPressure {
    /// Host CPU busy, %, at or past the knee.
    pub busy_pct: Option<f64>,
    /// The knee for the host's CPUs, busy %.
    pub knee_pct: f64,
    /// CPUs the report names.
    pub cpus: Option<f64>,
    /// 'resmgr:cpu quantum' share of DB time, percent, from
    /// [`RESMGR_SHARE`].
    pub resmgr_pct: Option<f64>,
}

impl CpuPressure {
    /// The pressure in words: "the host's CPUs were 97.0 % busy, past
    /// the 81 % knee for 16 CPUs" and/or "Resource Manager held sessions
    /// off the CPU for 12.0 % of DB time ('resmgr:cpu quantum')".
    pub fn words(&self) -> String {
        let mut parts = Vec::new();
        if let Some(b) = self.busy_pct {
            parts.push(match self.cpus {
                Some(c) => format!(
                    "the host's CPUs were {b:.1} % busy, past the {:.0} % knee for {c:.0} CPUs",
                    self.knee_pct
                ),
                None => format!(
                    "the host's CPUs were {b:.1} % busy, past {:.0} %",
                    self.knee_pct
                ),
            });
        }
        if let Some(s) = self.resmgr_pct {
            parts.push(format!(
                "Resource Manager held sessions off the CPU for {s:.1} % of DB time ('resmgr:cpu quantum')"
            ));
        }
        parts.join(", and ")
    }
}

/// The CPU pressure of a report: a saturated host or Resource Manager
/// throttling; `None` when neither.
pub fn pressure(r: &AwrReport) -> Option<CpuPressure> {
    let cpus = r.header.cpus;
    let knee_pct = knee(cpus);
    let busy_pct = r.derived.host_cpu_busy_pct.filter(|b| *b >= knee_pct);
    let resmgr_pct = resmgr_share(r).filter(|s| *s >= RESMGR_SHARE);
    (busy_pct.is_some() || resmgr_pct.is_some()).then_some(CpuPressure {
        busy_pct,
        knee_pct,
        cpus,
        resmgr_pct,
    })
}

/// 'resmgr:cpu quantum' (foreground) as a share of DB time, percent.
pub fn resmgr_share(r: &AwrReport) -> Option<f64> {
    foreground(r, "resmgr:cpu quantum")
        .filter(|e| waited(e).is_some())
        .and_then(|e| share_of_db_time(r, e))
}

/// The foreground sessions' CPU as CPUs: DB CPU / elapsed.
pub fn foreground_cpus(r: &AwrReport) -> Option<f64> {
    let cpu = super::super::db_time::of(r)?.cpu_s?;
    let elapsed = r.header.elapsed_s.filter(|e| *e > 0.0)?;
    Some(cpu / elapsed)
}

/// A saturated host: busy past the knee for its CPUs.
pub fn host_cpu(r: &AwrReport, out: &mut Vec<Finding>) {
    let Some(p) = pressure(r) else {
        return;
    };
    let Some(busy) = p.busy_pct else {
        return;
    };
    let mut evidence = vec![ev("host CPU busy", busy, "%"), ev("knee", p.knee_pct, "%")];
    if let Some(c) = p.cpus {
        evidence.push(ev("CPUs", c, "count"));
    }
    let load = match (foreground_cpus(r), p.cpus) {
        (Some(f), Some(c)) => {
            evidence.push(ev(
                "foreground sessions on CPU (DB CPU / elapsed)",
                f,
                "count",
            ));
            let busy_cpus = busy / 100.0 * c;
            let elsewhere = if f < busy_cpus / 2.0 {
                format!(
                    " of the {busy_cpus:.1} in use: most of the load is elsewhere (background processes, other instances or programs on the host)"
                )
            } else {
                String::new()
            };
            format!("; this database's foreground sessions kept {f:.1} of its {c:.0} CPUs busy{elsewhere}")
        }
        _ => String::new(),
    };
    // What the queueing costs: the DB time no CPU or wait accounts for
    // (sessions runnable but not running) when the waits are all listed.
    let queued = super::super::db_time::of(r)
        .filter(|d| d.whole && d.cpu_s.is_some())
        .map(|d| d.rest_pct().max(0.0));
    let f = finding(
        "awr.host_cpu",
        Some("host CPU"),
        queued.map_or(Severity::Warning, |q| severity_of_share(q).max(Severity::Notice)),
        format!(
            "{}{load}: processes queue for a CPU, and every wait (an I/O's, a commit's) lasts until its process runs again, so look at the CPU before any I/O wait",
            capitalised(&p.words())
        ),
        evidence,
        Some(thinking_clearly()),
    );
    out.push(match queued {
        Some(q) => f.with_impact(q, OF_DB_TIME),
        None => f,
    });
}

/// Sessions held off the CPU by Resource Manager.
pub fn resmgr(r: &AwrReport, out: &mut Vec<Finding>) {
    let Some(e) = foreground(r, "resmgr:cpu quantum") else {
        return;
    };
    let (Some(waits), Some(share)) = (waited(e), share_of_db_time(r, e)) else {
        return;
    };
    if share < RESMGR_NOTED_SHARE {
        return;
    }
    let plan = super::setup::parameter(r, "resource_manager_plan")
        .filter(|p| !p.is_empty())
        .map_or_else(String::new, |p| format!(" (resource_manager_plan {p})"));
    let mut evidence = vec![
        ev("waits", waits, "count"),
        ev("time", e.time_s.unwrap_or(0.0), "s"),
    ];
    if let Some(a) = average_us(e) {
        evidence.push(ev("average wait", a * 1000.0, "ns"));
    }
    let first = if share >= RESMGR_SHARE {
        ": the CPU plan is what the sessions wait for, before any I/O"
    } else {
        ""
    };
    out.push(
        finding(
            "awr.resmgr",
            Some("resmgr:cpu quantum"),
            severity_of_share(share),
            format!(
                "'resmgr:cpu quantum' is {share:.1} % of DB time ({waits:.0} waits): Resource Manager{plan} held runnable sessions off the CPU{first}"
            ),
            evidence,
            Some(method_r()),
        )
        .with_impact(share, OF_DB_TIME),
    );
}

fn capitalised(s: &str) -> String {
    let mut c = s.chars();
    match c.next() {
        Some(f) => f.to_uppercase().chain(c).collect(),
        None => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use dbio_model::awr::WaitEventRow;

    fn report(cpus: Option<f64>, busy: f64) -> AwrReport {
        let mut r = AwrReport::default();
        r.header.cpus = cpus;
        r.header.db_time_s = Some(1000.0);
        r.header.elapsed_s = Some(100.0);
        r.derived.host_cpu_busy_pct = Some(busy);
        r
    }

    #[test]
    fn the_knee_follows_the_cpu_count() {
        assert_eq!(knee(Some(1.0)), 50.0);
        assert_eq!(knee(Some(16.0)), 81.0);
        assert_eq!(knee(Some(40.0)), 86.0, "between 32 and 64: 32's");
        assert_eq!(knee(Some(512.0)), 92.0);
        assert_eq!(knee(None), UNKNOWN_CPUS_KNEE);
    }

    #[test]
    fn a_host_past_its_knee_is_saturated_and_one_below_is_not() {
        assert!(pressure(&report(Some(16.0), 80.9)).is_none());
        let p = pressure(&report(Some(16.0), 81.0)).unwrap();
        assert_eq!(
            p.words(),
            "the host's CPUs were 81.0 % busy, past the 81 % knee for 16 CPUs"
        );
        let mut out = Vec::new();
        host_cpu(&report(Some(16.0), 80.9), &mut out);
        assert!(out.is_empty());
        host_cpu(&report(Some(16.0), 97.0), &mut out);
        assert_eq!(out[0].rule, "awr.host_cpu");
        assert!(
            out[0].text.starts_with("The host's CPUs were 97.0 % busy"),
            "{}",
            out[0].text
        );
        // DB CPU 1000 s over 100 s: 10 of 16 CPUs, of 15.5 in use.
        let mut r = report(Some(16.0), 97.0);
        r.top_events.push(WaitEventRow {
            name: "DB CPU".into(),
            time_s: Some(1000.0),
            ..Default::default()
        });
        let mut out = Vec::new();
        host_cpu(&r, &mut out);
        assert!(
            out[0]
                .text
                .contains("foreground sessions kept 10.0 of its 16 CPUs busy:"),
            "{}",
            out[0].text
        );
        r.top_events[0].time_s = Some(700.0);
        let mut out = Vec::new();
        host_cpu(&r, &mut out);
        assert!(
            out[0].text.contains(
                "kept 7.0 of its 16 CPUs busy of the 15.5 in use: most of the load is elsewhere"
            ),
            "{}",
            out[0].text
        );
        assert!(pressure(&report(None, 89.9)).is_none());
        assert!(pressure(&report(None, 90.0)).is_some());
    }

    #[test]
    fn resource_manager_throttling_is_cpu_pressure_from_a_tenth() {
        let mut r = report(Some(16.0), 20.0);
        r.foreground_events.push(WaitEventRow {
            name: "resmgr:cpu quantum".into(),
            waits: Some(5000.0),
            time_s: Some(99.9),
            ..Default::default()
        });
        assert!(pressure(&r).is_none(), "9.99 % of DB time");
        let mut out = Vec::new();
        resmgr(&r, &mut out);
        assert_eq!(out[0].severity, Severity::Info);
        assert!(!out[0].text.contains("before any I/O"));
        r.foreground_events[0].time_s = Some(100.0);
        let p = pressure(&r).unwrap();
        assert_eq!(p.resmgr_pct, Some(10.0));
        assert!(p.busy_pct.is_none());
        let mut out = Vec::new();
        resmgr(&r, &mut out);
        assert_eq!(out[0].severity, Severity::Notice);
        assert!(out[0].text.contains("before any I/O"), "{}", out[0].text);
        r.foreground_events[0].time_s = Some(9.9);
        let mut out = Vec::new();
        resmgr(&r, &mut out);
        assert!(out.is_empty(), "under 1 % of DB time");
    }
}
