//! An AWR or Statspack report's answer: is the storage what this DB time
//! is made of? DB time is split by wait class ([`super::db_time`]); a
//! group at half of DB time or more answers ('log file sync' is the
//! commit path when it averages [`LFS_LFPW_RATIO`] times 'log file
//! parallel write' or more, else the log device), I/O under a tenth of DB
//! time is "not the storage", anything else is mixed.

use super::db_time::{parts, shares};
use super::findings::LFS_LFPW_RATIO;
use crate::verdict::TOP;
use dbio_model::awr::AwrReport;
use dbio_model::{Verdict, VerdictClass};

/// A group at or above this share of DB time (percent) is the answer.
pub const DOMINANT_PCT: f64 = 50.0;
/// I/O under this share of DB time (percent) is not the answer.
pub const MINOR_PCT: f64 = 10.0;

/// The question a report answers, naming the database and its DB time.
pub fn question(a: &AwrReport) -> String {
    let db = a.header.db_name.as_deref().unwrap_or("the database");
    match a.header.db_time_s {
        Some(s) => format!("Is it the storage? {db}, DB time {:.1} min", s / 60.0),
        None => format!("Is it the storage? {db}"),
    }
}

/// The verdict of a ranked report analysis.
pub fn verdict(a: &AwrReport) -> Option<Verdict> {
    let top = crate::verdict::top(&a.findings, TOP);
    let Some((_, parts)) = parts(a) else {
        return crate::verdict::from_top_finding(
            question(a),
            VerdictClass::Inconclusive,
            &a.findings,
        );
    };
    let s = shares(&parts);
    let biggest_io = parts
        .iter()
        .filter(|p| !p.cpu && p.class.is_io())
        .max_by(|x, y| x.pct.total_cmp(&y.pct));
    let ratio = a.derived.lfs_lfpw_ratio;
    let (class, answer) = if s.io_storage >= DOMINANT_PCT {
        let what = biggest_io
            .map(|p| {
                format!(
                    "; '{}' alone is {:.1} %{}",
                    p.row.name,
                    p.pct,
                    p.row
                        .avg_us
                        .map(|avg| format!(
                            " at {} per wait, {}",
                            dbio_model::units::format_ns(avg * 1e3),
                            super::db_time::io_tier(avg)
                        ))
                        .unwrap_or_default()
                )
            })
            .unwrap_or_default();
        (
            VerdictClass::StorageBound,
            format!(
                "Storage-bound: I/O waits are {:.1} % of DB time{what}.",
                s.io
            ),
        )
    } else if s.io >= DOMINANT_PCT {
        (
            VerdictClass::PageCache,
            format!(
                "Served from memory: I/O waits are {:.1} % of DB time, at memory speed: a cache above the storage answered.",
                s.io
            ),
        )
    } else if s.commit >= DOMINANT_PCT {
        match ratio {
            Some(x) if x >= LFS_LFPW_RATIO => (
                VerdictClass::CommitPath,
                format!(
                    "Commit path, not the log device: 'log file sync' is {:.1} % of DB time and averages {x:.1}x 'log file parallel write'.",
                    s.commit
                ),
            ),
            _ => (
                VerdictClass::StorageBound,
                format!(
                    "Commit-bound on the log device: 'log file sync' is {:.1} % of DB time and close to 'log file parallel write'.",
                    s.commit
                ),
            ),
        }
    } else if s.cpu >= DOMINANT_PCT {
        (
            VerdictClass::Cpu,
            format!(
                "Not the storage: DB CPU is {:.1} % of DB time; I/O waits {:.1} %.",
                s.cpu, s.io
            ),
        )
    } else if s.io < MINOR_PCT {
        (
            VerdictClass::NotStorage,
            format!(
                "Not the storage: I/O waits are {:.1} % of DB time, DB CPU {:.1} %, commits {:.1} %.",
                s.io, s.cpu, s.commit
            ),
        )
    } else {
        (
            VerdictClass::Mixed,
            format!(
                "Mixed: I/O waits are {:.1} % of DB time, DB CPU {:.1} %, commits {:.1} %, other waits {:.1} %.",
                s.io, s.cpu, s.commit, s.other
            ),
        )
    };
    Some(Verdict {
        question: question(a),
        class,
        answer,
        top,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use dbio_model::awr::WaitEventRow;
    use dbio_model::Finding;

    fn answer(rows: &[(&str, Option<&str>, f64, Option<f64>)], ratio: Option<f64>) -> VerdictClass {
        let mut r = AwrReport::default();
        r.header.db_time_s = Some(1000.0);
        r.derived.lfs_lfpw_ratio = ratio;
        r.top_events = rows
            .iter()
            .map(|&(name, class, time_s, avg_us)| WaitEventRow {
                name: name.into(),
                class: class.map(str::to_string),
                time_s: Some(time_s),
                avg_us,
                ..Default::default()
            })
            .collect();
        r.findings = vec![Finding::note("awr.x", dbio_model::Severity::Notice, "x")];
        verdict(&r).unwrap().class
    }

    #[test]
    fn each_class_answers_from_half_of_db_time() {
        let io = |secs, avg| ("db file sequential read", Some("User I/O"), secs, Some(avg));
        assert_eq!(
            answer(&[io(600.0, 6000.0)], None),
            VerdictClass::StorageBound
        );
        assert_eq!(answer(&[io(600.0, 20.0)], None), VerdictClass::PageCache);
        assert_eq!(answer(&[io(499.0, 6000.0)], None), VerdictClass::Mixed);
        assert_eq!(answer(&[io(99.0, 6000.0)], None), VerdictClass::NotStorage);
        let lfs = ("log file sync", Some("Commit"), 600.0, Some(2000.0));
        assert_eq!(answer(&[lfs], Some(3.0)), VerdictClass::CommitPath);
        assert_eq!(answer(&[lfs], Some(1.2)), VerdictClass::StorageBound);
        assert_eq!(
            answer(&[("DB CPU", None, 600.0, None)], None),
            VerdictClass::Cpu
        );
    }
}
