//! Where a report's DB time went, by Oracle wait class, as ADDM ranks its
//! findings: DB CPU, storage I/O (User I/O and System I/O) judged by its
//! average wait, commits, and every other event at or above a tenth of DB
//! time, each a finding whose impact is its share of DB time. What no
//! listed event explains is said too: a Top list covers only the largest
//! events, and sessions waiting for a CPU show in no event.
//!
//! Shares come from each event's time over DB time (the printed "% DB
//! time" is rounded to whole percents in some releases); idle events
//! (background timers a Statspack Top list shows) are not DB time.

use crate::kit::findings::{ev, finding, Finding};
use crate::kit::references::doc;
use crate::kit::wait_class::{of_row, WaitClass};
use crate::verdict::severity_of_share;
use dbio_model::awr::{AwrReport, WaitEventRow};
use dbio_model::units::format_ns;

/// Events at or above this share of DB time (percent) get a finding.
pub const COMPONENT_PCT: f64 = 10.0;
/// When DB CPU and the listed events explain less than this share of DB
/// time (percent), the rest is a finding of its own.
pub const ACCOUNTED_PCT: f64 = 80.0;
/// A single-block read averaging under this (µs) is memory speed.
pub const MEMORY_US: f64 = 100.0;
/// ... under this (µs) a storage cache's; above, the device's.
pub const STORAGE_CACHE_US: f64 = 1000.0;

/// One event's part of DB time.
#[derive(Debug, Clone)]
pub struct Part<'a> {
    /// The event row (DB CPU's row for the CPU).
    pub row: &'a WaitEventRow,
    /// Its class.
    pub class: WaitClass,
    /// Whether it is CPU (`DB CPU`, Statspack's `CPU time`).
    pub cpu: bool,
    /// Its share of DB time, percent.
    pub pct: f64,
}

/// DB time split by the report's event rows (its Top list, else the
/// foreground events), idle events left out; None without a DB time.
pub fn parts(r: &AwrReport) -> Option<(f64, Vec<Part<'_>>)> {
    let db = r.header.db_time_s.filter(|d| *d > 0.0)?;
    let rows = if r.top_events.is_empty() {
        &r.foreground_events
    } else {
        &r.top_events
    };
    let parts = rows
        .iter()
        .filter_map(|row| {
            let cpu = matches!(row.name.as_str(), "DB CPU" | "CPU time");
            let class = of_row(&row.name, row.class.as_deref());
            if class == WaitClass::Idle && !cpu {
                return None;
            }
            let secs = row
                .time_s
                .or_else(|| row.pct_db_time.map(|p| p * db / 100.0))?;
            Some(Part {
                row,
                class,
                cpu,
                pct: (secs / db * 100.0).clamp(0.0, 100.0),
            })
        })
        .collect();
    Some((db, parts))
}

/// Where an average wait of `avg_us` puts an I/O event.
pub fn io_tier(avg_us: f64) -> &'static str {
    if avg_us < MEMORY_US {
        "memory speed (a cache above the storage)"
    } else if avg_us < STORAGE_CACHE_US {
        "a storage cache's speed"
    } else {
        "device latency"
    }
}

/// The shares of DB time, percent, by what they are.
#[derive(Debug, Default, Clone, Copy)]
pub struct Shares {
    /// DB CPU.
    pub cpu: f64,
    /// User I/O and System I/O waits.
    pub io: f64,
    /// Of which at a storage cache's or the device's speed.
    pub io_storage: f64,
    /// Commit ('log file sync').
    pub commit: f64,
    /// Every other listed wait.
    pub other: f64,
}

impl Shares {
    /// What the listed rows explain.
    pub fn accounted(&self) -> f64 {
        self.cpu + self.io + self.commit + self.other
    }
}

/// The shares of DB time of a report's parts.
pub fn shares(parts: &[Part]) -> Shares {
    let mut s = Shares::default();
    for p in parts {
        if p.cpu {
            s.cpu += p.pct;
        } else if p.class.is_io() {
            s.io += p.pct;
            if p.row.avg_us.is_none_or(|a| a >= MEMORY_US) {
                s.io_storage += p.pct;
            }
        } else if p.class == WaitClass::Commit {
            s.commit += p.pct;
        } else {
            s.other += p.pct;
        }
    }
    s
}

/// The findings about DB time: CPU, I/O, each event at or above
/// [`COMPONENT_PCT`], and what no listed event explains.
pub fn findings(r: &AwrReport, out: &mut Vec<Finding>) {
    let Some((db, parts)) = parts(r) else {
        return;
    };
    let s = shares(&parts);
    let db_time = format!("{:.0} s", db);
    let source = || Some(doc("docs/awr.md"));
    if let Some(cpu) = parts.iter().find(|p| p.cpu) {
        out.push(
            finding(
                "awr.db_cpu",
                Some(&cpu.row.name),
                severity_of_share(cpu.pct),
                format!(
                    "{} is {:.1} % of DB time ({:.0} s of {db_time}): time on a CPU, not waiting for storage",
                    cpu.row.name,
                    cpu.pct,
                    cpu.pct * db / 100.0
                ),
                vec![ev("DB time", db * 1e9, "ns")],
                source(),
            )
            .with_impact(cpu.pct, "DB time"),
        );
    }
    let io: Vec<&Part> = parts.iter().filter(|p| !p.cpu && p.class.is_io()).collect();
    let listed: Vec<String> = io
        .iter()
        .take(3)
        .map(|p| {
            format!(
                "'{}' {:.1} %{}",
                p.row.name,
                p.pct,
                p.row
                    .avg_us
                    .map(|a| format!(" at {}", format_ns(a * 1e3)))
                    .unwrap_or_default()
            )
        })
        .collect();
    out.push(
        finding(
            "awr.io_waits",
            None,
            severity_of_share(s.io),
            format!(
                "I/O waits (User I/O and System I/O) are {:.1} % of DB time{}",
                s.io,
                if listed.is_empty() {
                    String::new()
                } else {
                    format!(": {}", listed.join(", "))
                }
            ),
            vec![
                ev("I/O share of DB time", s.io, "%"),
                ev("at storage speed", s.io_storage, "%"),
            ],
            source(),
        )
        .with_impact(s.io, "DB time"),
    );
    for p in parts.iter().filter(|p| !p.cpu && p.pct >= COMPONENT_PCT) {
        let judged = match (p.class, p.row.avg_us) {
            (c, Some(avg)) if c.is_io() => format!("storage I/O at {}", io_tier(avg)),
            (WaitClass::Commit, _) => {
                "sessions waiting for the log writer: compare 'log file parallel write'".to_string()
            }
            (c, _) => format!("{}: not storage", c.name()),
        };
        let mut evidence = Vec::new();
        if let Some(w) = p.row.waits {
            evidence.push(ev("waits", w, "count"));
        }
        if let Some(a) = p.row.avg_us {
            evidence.push(ev("average wait", a * 1e3, "ns"));
        }
        out.push(
            finding(
                "awr.component",
                Some(&p.row.name),
                severity_of_share(p.pct),
                format!(
                    "'{}' ({}) is {:.1} % of DB time, {judged}",
                    p.row.name,
                    p.class.name(),
                    p.pct
                ),
                evidence,
                source(),
            )
            .with_impact(p.pct, "DB time"),
        );
    }
    let rest = 100.0 - s.accounted();
    if s.accounted() < ACCOUNTED_PCT {
        out.push(
            finding(
                "awr.unlisted",
                None,
                severity_of_share(rest),
                format!(
                    "DB CPU and the listed events explain {:.1} % of DB time; the other {rest:.1} % is in no listed wait or CPU (waits below the report's list, or time the wait interface does not capture: sessions waiting for a CPU, uninstrumented work)",
                    s.accounted()
                ),
                vec![ev("explained", s.accounted(), "%")],
                source(),
            )
            .with_impact(rest, "DB time"),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(name: &str, class: Option<&str>, time_s: f64, avg_us: Option<f64>) -> WaitEventRow {
        WaitEventRow {
            name: name.into(),
            class: class.map(str::to_string),
            time_s: Some(time_s),
            avg_us,
            ..Default::default()
        }
    }

    pub(crate) fn report(rows: Vec<WaitEventRow>) -> AwrReport {
        let mut r = AwrReport::default();
        r.header.db_time_s = Some(1000.0);
        r.top_events = rows;
        r
    }

    #[test]
    fn shares_follow_the_classes_and_idle_events_are_no_db_time() {
        let r = report(vec![
            row("DB CPU", None, 310.0, None),
            row(
                "db file sequential read",
                Some("User I/O"),
                10.0,
                Some(110.0),
            ),
            row(
                "control file sequential read",
                Some("System I"),
                1.0,
                Some(50.0),
            ),
            row("log file sync", Some("Commit"), 7.0, Some(374.0)),
            row("LGWR worker group idle", None, 900.0, None),
        ]);
        let (_, parts) = parts(&r).unwrap();
        let s = shares(&parts);
        let round = |x: f64| (x * 100.0).round() / 100.0;
        assert_eq!(
            (
                round(s.cpu),
                round(s.io),
                round(s.io_storage),
                round(s.commit)
            ),
            (31.0, 1.1, 1.0, 0.7)
        );
        let mut f = Vec::new();
        findings(&r, &mut f);
        let rules: Vec<&str> = f.iter().map(|f| f.rule.as_str()).collect();
        assert_eq!(rules, ["awr.db_cpu", "awr.io_waits", "awr.unlisted"]);
        assert_eq!(f[1].severity, dbio_model::Severity::Info);
        assert!(f[2].text.contains("the other 67.2 %"), "{}", f[2].text);
    }

    #[test]
    fn a_component_needs_a_tenth_of_db_time_and_is_judged_by_its_average() {
        for (secs, avg, found, words) in [
            (99.0, 6000.0, false, ""),
            (100.0, 6000.0, true, "device latency"),
            (100.0, 50.0, true, "memory speed"),
        ] {
            let r = report(vec![row(
                "db file sequential read",
                Some("User I/O"),
                secs,
                Some(avg),
            )]);
            let mut f = Vec::new();
            findings(&r, &mut f);
            let c = f.iter().find(|f| f.rule == "awr.component");
            assert_eq!(c.is_some(), found, "{secs}");
            if let Some(c) = c {
                assert!(c.text.contains(words), "{}", c.text);
                assert_eq!(c.share(), 10.0);
            }
        }
    }
}
