//! A trend's answer (`dbio awr A B C ...`): which interval is the
//! busiest (the most average active sessions, else the most DB time) and
//! what its DB time is made of (that report's own verdict), which wait
//! events' averages moved between intervals beyond their printed
//! precision (by half again or more), and, with five reports or more of
//! one database, the intervals that are outliers and whether commit and
//! read latency move with the load ([`super::trend_outliers`]).

use super::difference::{ratio_range, ratio_words, row_avg};
use super::trend_outliers;
use crate::kit::findings::{ev, finding, Finding, Severity};
use crate::kit::references::doc;
use crate::verdict::{rank, severity_of_share, top, TOP};
use dbio_model::awr::{AwrInterval, AwrTrend};
use dbio_model::units::format_ns;
use dbio_model::{Verdict, VerdictClass};

/// From this ratio of the largest average to the smallest an event's
/// average is said to have moved.
pub const MOVED: f64 = 1.5;

fn name(n: usize, i: &AwrInterval) -> String {
    match &i.header.begin_time {
        Some(b) => format!("#{} ({b})", n + 1),
        None => format!("#{}", n + 1),
    }
}

/// An interval's load: average active sessions, else DB time in seconds.
fn load(t: &AwrTrend) -> Vec<Option<f64>> {
    let aas = t
        .intervals
        .iter()
        .all(|i| i.average_active_sessions.is_some());
    t.intervals
        .iter()
        .map(|i| {
            if aas {
                i.average_active_sessions
            } else {
                i.header.db_time_s
            }
        })
        .collect()
}

fn busiest(t: &AwrTrend) -> Option<Finding> {
    let loads = load(t);
    let aas = t
        .intervals
        .iter()
        .all(|i| i.average_active_sessions.is_some());
    let known: Vec<(usize, f64)> = loads
        .iter()
        .enumerate()
        .filter_map(|(n, l)| l.map(|l| (n, l)))
        .collect();
    let &(hi, hv) = known.iter().max_by(|a, b| a.1.total_cmp(&b.1))?;
    let &(lo, lv) = known.iter().min_by(|a, b| a.1.total_cmp(&b.1))?;
    let i = &t.intervals[hi];
    let unit = |v: f64| {
        if aas {
            format!("{v:.2} average active sessions")
        } else {
            format!("DB time {}", format_ns(v * 1e9))
        }
    };
    let ratio = if lv > 0.0 && hi != lo {
        format!(
            ", {:.2}x the quietest, {} at {}",
            hv / lv,
            name(lo, &t.intervals[lo]),
            unit(lv)
        )
    } else {
        String::new()
    };
    let answer = i.verdict.as_ref().map_or_else(String::new, |v| {
        format!("; there: {}", v.answer.trim_end_matches('.'))
    });
    let total: f64 = t.intervals.iter().filter_map(|i| i.header.db_time_s).sum();
    let share = i
        .header
        .db_time_s
        .filter(|_| total > 0.0)
        .map(|d| 100.0 * d / total);
    let severity = if lv > 0.0 && hv / lv >= MOVED {
        Severity::Notice.max(severity_of_share(share.unwrap_or(0.0)))
    } else {
        Severity::Info
    };
    let f = finding(
        "awr.trend.busiest",
        Some(&name(hi, i)),
        severity,
        format!(
            "{} is the busiest of {} intervals: {}{ratio}{answer}",
            name(hi, i),
            t.intervals.len(),
            unit(hv)
        ),
        {
            let (what, u) = if aas {
                ("average active sessions", "count")
            } else {
                ("DB time", "s")
            };
            vec![
                ev(&format!("{what}, busiest"), hv, u),
                ev(&format!("{what}, quietest"), lv, u),
            ]
        },
        Some(doc("docs/awr.md")),
    );
    Some(match share {
        Some(s) => f.with_impact(s, "DB time of the trend"),
        None => f,
    })
}

/// Each trend event whose average moved by [`MOVED`] or more between two
/// intervals, beyond the printed precision.
fn moved(t: &AwrTrend) -> Vec<Finding> {
    let mut out = Vec::new();
    for e in &t.events {
        let avgs: Vec<(usize, dbio_model::awr::WaitEventRow, crate::difference::Avg)> = t
            .intervals
            .iter()
            .enumerate()
            .filter_map(|(n, i)| {
                let row = i.events.iter().find(|x| &x.name == e)?;
                let a = row_avg(row)?;
                Some((n, row.clone(), a))
            })
            .collect();
        let Some((lo_n, _, lo)) = avgs.iter().min_by(|a, b| a.2.us.total_cmp(&b.2.us)) else {
            continue;
        };
        let Some((hi_n, hi_row, hi)) = avgs.iter().max_by(|a, b| a.2.us.total_cmp(&b.2.us)) else {
            continue;
        };
        if lo.us <= 0.0 || hi.us / lo.us < MOVED || lo.same_as(hi) {
            continue;
        }
        let iv = &t.intervals[*hi_n];
        let share = match (hi_row.time_s, iv.header.db_time_s) {
            (Some(x), Some(d)) if d > 0.0 => Some(100.0 * x / d),
            _ => None,
        };
        let (first, then) = if lo_n < hi_n {
            ((*lo_n, lo), (*hi_n, hi))
        } else {
            ((*hi_n, hi), (*lo_n, lo))
        };
        let ratio =
            ratio_range(lo, hi).map_or_else(|| format!("{:.2}x", hi.us / lo.us), ratio_words);
        let mut text = format!(
            "'{e}' averaged {} in {} and {} in {} ({ratio})",
            format_ns(first.1.us * 1e3),
            name(first.0, &t.intervals[first.0]),
            format_ns(then.1.us * 1e3),
            name(then.0, &t.intervals[then.0]),
        );
        if let Some(s) = share {
            text.push_str(&format!(
                "; in {} it is {s:.1} % of DB time",
                name(*hi_n, iv)
            ));
        }
        let f = finding(
            "awr.trend.event",
            Some(e),
            severity_of_share(share.unwrap_or(0.0)),
            text,
            vec![
                ev("smallest average", lo.us * 1e3, "ns"),
                ev("largest average", hi.us * 1e3, "ns"),
            ],
            Some(doc("docs/awr.md")),
        );
        out.push(match share {
            Some(s) => f.with_impact(s, &format!("DB time of #{}", hi_n + 1)),
            None => f,
        });
    }
    out
}

/// The question a trend answers.
pub fn question(t: &AwrTrend) -> String {
    let db = t
        .intervals
        .first()
        .and_then(|i| i.header.db_name.clone())
        .unwrap_or_else(|| "the database".into());
    format!(
        "Which interval is worst, and is it the storage? {} reports of {db}",
        t.intervals.len()
    )
}

/// Draws, ranks and answers a trend.
pub fn conclude(t: &mut AwrTrend) {
    let mut fs = Vec::new();
    let b = busiest(t);
    let busiest_text = b.as_ref().map(|f| f.text.clone());
    fs.extend(b);
    fs.extend(moved(t));
    fs.extend(trend_outliers::outliers(t));
    fs.extend(trend_outliers::with_load(t));
    t.findings = rank(fs);
    for n in trend_outliers::notes(t) {
        if !t.notes.contains(&n) {
            t.notes.push(n);
        }
    }
    // The finding that is the answer leads.
    if let Some(i) = t
        .findings
        .iter()
        .position(|f| f.rule == "awr.trend.busiest")
    {
        let f = t.findings.remove(i);
        t.findings.insert(0, f);
    }
    let busiest = t.findings.iter().find(|f| f.rule == "awr.trend.busiest");
    let class = busiest
        .and_then(|f| f.subject.as_ref())
        .and_then(|s| {
            t.intervals
                .iter()
                .enumerate()
                .find(|(n, i)| name(*n, i) == *s)
                .and_then(|(_, i)| i.verdict.as_ref())
        })
        .map_or(VerdictClass::Inconclusive, |v| v.class);
    let mut answer = match busiest_text {
        Some(text) => format!("{text}."),
        None => "Inconclusive: no interval gives its DB time.".into(),
    };
    answer.push_str(&trend_outliers::in_words(&t.findings).unwrap_or_default());
    t.verdict = Some(Verdict {
        question: question(t),
        class,
        answer,
        top: top(&t.findings, TOP),
    });
}

#[cfg(test)]
mod tests {
    use super::trend_outliers::OUTLIER;
    use super::*;
    use dbio_model::awr::WaitEventRow;

    fn interval(aas: f64, lfs_avg_us: f64, class: VerdictClass) -> AwrInterval {
        let mut i = AwrInterval {
            average_active_sessions: Some(aas),
            ..Default::default()
        };
        i.header.db_time_s = Some(aas * 3600.0);
        i.header.elapsed_s = Some(3600.0);
        i.events.push(WaitEventRow {
            name: "log file sync".into(),
            waits: Some(1e6),
            time_s: Some(lfs_avg_us),
            avg_us: Some(lfs_avg_us),
            ..Default::default()
        });
        i.verdict = Some(Verdict {
            question: String::new(),
            class,
            answer: format!("{class:?} here"),
            top: Vec::new(),
        });
        i
    }

    #[test]
    fn the_busiest_interval_answers_and_a_moved_average_is_named() {
        let mut t = AwrTrend {
            events: vec!["log file sync".into()],
            intervals: vec![
                interval(0.5, 1000.0, VerdictClass::NotStorage),
                interval(1.5, 4000.0, VerdictClass::CommitPath),
                interval(0.52, 1000.0, VerdictClass::NotStorage),
            ],
            ..Default::default()
        };
        conclude(&mut t);
        let v = t.verdict.clone().unwrap();
        assert_eq!(v.class, VerdictClass::CommitPath);
        assert_eq!(
            v.answer,
            "#2 is the busiest of 3 intervals: 1.50 average active sessions, 3.00x the quietest, #1 at 0.50 average active sessions; there: CommitPath here."
        );
        let moved: Vec<&Finding> = t
            .findings
            .iter()
            .filter(|f| f.rule == "awr.trend.event")
            .collect();
        assert_eq!(moved.len(), 1);
        assert!(
            moved[0]
                .text
                .starts_with("'log file sync' averaged 1.00 ms in #1 and 4.00 ms in #2 (4.00x)"),
            "{}",
            moved[0].text
        );
        // Under half again: not moved.
        t.intervals[1].events[0].avg_us = Some(1490.0);
        t.intervals[1].events[0].time_s = Some(1490.0);
        assert!(super::moved(&t).is_empty());
    }

    #[test]
    fn five_reports_or_more_name_their_outliers_in_the_answer() {
        // Six hours at 1 ms 'log file sync' and 1 session, the fifth at
        // 9 ms: an outlier, named after the busiest interval.
        let mut t = AwrTrend {
            events: vec!["log file sync".into()],
            intervals: (0..6)
                .map(|n| {
                    let lfs = if n == 4 { 9000.0 } else { 1000.0 };
                    let mut i = interval(
                        if n == 4 { 1.2 } else { 1.0 },
                        lfs,
                        VerdictClass::NotStorage,
                    );
                    i.header.begin_time = Some(format!("02-Mar-25 {:02}:00:00", 9 + n));
                    i.log_file_sync = i.events.first().cloned();
                    i
                })
                .collect(),
            ..Default::default()
        };
        conclude(&mut t);
        let v = t.verdict.clone().unwrap();
        assert!(
            v.answer.ends_with(" Outliers, beyond 7 median absolute deviations of the median: #5 (02-Mar-25 13:00:00): 'log file sync' average 9.00 ms, average active sessions 1.20."),
            "{}",
            v.answer
        );
        assert!(t.notes.is_empty(), "{:?}", t.notes);
        // Four: no outlier rule, and the notes say why (once, however
        // often the trend is concluded).
        t.intervals.truncate(4);
        conclude(&mut t);
        conclude(&mut t);
        assert!(t.findings.iter().all(|f| f.rule != OUTLIER));
        assert_eq!(
            t.notes,
            ["4 reports of one database: no outlier or load rule (a median and its absolute deviations need 5 or more)"]
        );
    }
}
