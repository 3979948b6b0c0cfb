//! Across five or more reports of one database: the intervals where a
//! figure departs from its usual value, and whether commit and read
//! latency move with the load.
//!
//! **Outliers.** For each figure (average active sessions, the 'log file
//! sync' and single-block read averages, redo and commits per second,
//! DB CPU's share of DB time) the median over the intervals and the
//! median absolute deviation (MAD, the median of |x − median|); an
//! interval is an outlier when it lies more than [`K`] MADs from the
//! median. This is the rule of the open-source AWR miner jas-min
//! (ora600pl/jas-min, `src/analysis/anomalies.rs`, commit 1cc1ca0d:
//! `MAD_ANOMALY_THRESHOLD = 7.0` on the raw MAD, an interval that does
//! not print the figure left out rather than counted as 0). A raw MAD is
//! 0.674 σ for normal data, so 7 MADs is about 4.7 σ: only a departure
//! no ordinary hour makes. Two changes to it: the MAD is taken as at least
//! [`MAD_FLOOR`] of the median (jas-min flags any departure from a
//! constant series; a series of equal hours would then flag a 1 % wobble),
//! and a figure read at a coarse printed precision (an average printed in
//! whole milliseconds) must depart by more than [`K`] MADs *beyond* its
//! own ± bound and the median interval's, so that rounding is never an
//! outlier.
//!
//! **Latency against load.** Spearman's rank correlation of each
//! interval's 'log file sync' and single-block read averages with its
//! average active sessions (DB time over elapsed time; ranks, so one
//! extreme hour does not make the correlation). Strong when |ρ| is at
//! least [`STRONG`] and past the one-sided 5 % critical value for the
//! number of intervals (n = 5: 0.900, 6: 0.829, 7: 0.714, 8: 0.643;
//! Zar, *Biostatistical Analysis*, table of critical values of r_s; from
//! 9 on the normal approximation 1.645 / √(n − 1)). Latency that rises
//! with the load is queueing: at the storage for reads, at the log
//! device or the log writer's scheduling for commits (then 'log file
//! parallel write' tells which).
//!
//! Fewer than [`MIN_REPORTS`] intervals of one database: neither rule
//! (the trend's notes say so). Reports of several databases (given with
//! `--allow-mixed`): each rule runs within each database and instance.

use super::difference::row_avg;
use super::findings::commit::LogWriter;
use crate::kit::findings::{ev, finding, Finding, Severity};
use crate::kit::references::doc;
use crate::verdict::severity_of_share;
use dbio_model::awr::{AwrInterval, AwrTrend, WaitEventRow};
use dbio_model::units::{format_ns, format_rate};

/// An interval is an outlier beyond this many median absolute deviations
/// from the median (jas-min's `MAD_ANOMALY_THRESHOLD`).
pub const K: f64 = 7.0;
/// The MAD is taken as at least this fraction of the median.
pub const MAD_FLOOR: f64 = 0.01;
/// Fewest intervals of one database for either rule.
pub const MIN_REPORTS: usize = 5;
/// The weakest |ρ| called strong, whatever the number of intervals.
pub const STRONG: f64 = 0.7;
/// The outlier rule's id.
pub const OUTLIER: &str = "awr.trend.outlier";
/// The correlation rule's id.
pub const WITH_LOAD: &str = "awr.trend.latency_with_load";

/// How a figure is shown and what its unit is in the evidence.
#[derive(Clone, Copy, PartialEq)]
enum Unit {
    /// Microseconds, shown as a time (evidence in ns).
    Us,
    /// A count or a rate of things (sessions, commits per second).
    Count,
    /// Bytes per second.
    BytesPerS,
    /// Percent.
    Pct,
}

impl Unit {
    fn show(self, v: f64) -> String {
        match self {
            Unit::Us => format_ns(v * 1e3),
            Unit::Count => format!("{v:.2}"),
            Unit::BytesPerS => format_rate(v),
            Unit::Pct => format!("{v:.1} %"),
        }
    }

    /// The evidence's value and unit.
    fn evidence(self, v: f64) -> (f64, &'static str) {
        match self {
            Unit::Us => (v * 1e3, "ns"),
            Unit::Count => (v, "count"),
            Unit::BytesPerS => (v, "bytes/s"),
            Unit::Pct => (v, "%"),
        }
    }
}

/// A figure read from an interval: its value and the ± bound of the
/// precision it was printed with (0 when exact).
struct Reading {
    value: f64,
    bound: f64,
}

/// One figure the outlier rule watches.
struct Figure {
    /// As the sentences name it.
    name: &'static str,
    unit: Unit,
    /// A higher value is worse for the database (latency, load); else
    /// it is only different.
    worse_up: bool,
    read: fn(&AwrInterval) -> Option<Reading>,
    /// The share (percent) of what the impact is a share of, and its
    /// name, in interval `i` of `t`.
    impact: fn(&AwrTrend, usize) -> Option<(f64, String)>,
}

fn exact(v: Option<f64>) -> Option<Reading> {
    v.filter(|v| v.is_finite())
        .map(|value| Reading { value, bound: 0.0 })
}

/// A row's average with its bound: the half-width of its range.
fn bounded(row: Option<&WaitEventRow>) -> Option<Reading> {
    let a = row_avg(row?)?;
    Some(Reading {
        value: a.us,
        bound: (a.us - a.lo).max(a.hi - a.us),
    })
}

/// The interval's DB time as a share of the whole trend's.
fn share_of_trend(t: &AwrTrend, i: usize) -> Option<(f64, String)> {
    let total: f64 = t.intervals.iter().filter_map(|x| x.header.db_time_s).sum();
    let own = t.intervals[i].header.db_time_s?;
    (total > 0.0).then(|| (100.0 * own / total, "DB time of the trend".to_string()))
}

/// An event's time as a share of the interval's DB time.
fn share_of_interval(t: &AwrTrend, i: usize, row: Option<&WaitEventRow>) -> Option<(f64, String)> {
    let time = row?.time_s?;
    let db = t.intervals[i].header.db_time_s.filter(|d| *d > 0.0)?;
    Some((100.0 * time / db, format!("DB time of #{}", i + 1)))
}

/// The load profile's redo per second.
fn redo_per_s(i: &AwrInterval) -> Option<f64> {
    i.load_profile
        .iter()
        .find(|p| p.name.starts_with("Redo size"))
        .and_then(|p| p.per_second)
}

fn cpu_share(i: &AwrInterval) -> Option<f64> {
    match (i.db_cpu_s, i.header.db_time_s) {
        (Some(c), Some(d)) if d > 0.0 => Some(100.0 * c / d),
        _ => None,
    }
}

/// The AWR miner whose outlier rule this is.
fn jas_min() -> dbio_model::Reference {
    dbio_model::Reference {
        title: "jas-min (github.com/ora600pl/jas-min): anomalies by median absolute deviation"
            .into(),
        author: Some("ora600pl".into()),
    }
}

const FIGURES: [Figure; 6] = [
    Figure {
        name: "average active sessions",
        unit: Unit::Count,
        worse_up: true,
        read: |i| exact(i.average_active_sessions),
        impact: share_of_trend,
    },
    Figure {
        name: "'log file sync' average",
        unit: Unit::Us,
        worse_up: true,
        read: |i| bounded(i.log_file_sync.as_ref()).or_else(|| exact(i.log_file_sync_us)),
        impact: |t, n| share_of_interval(t, n, t.intervals[n].log_file_sync.as_ref()),
    },
    Figure {
        name: "single-block read average",
        unit: Unit::Us,
        worse_up: true,
        read: |i| bounded(i.single_block_read.as_ref()),
        impact: |t, n| share_of_interval(t, n, t.intervals[n].single_block_read.as_ref()),
    },
    Figure {
        name: "redo per second",
        unit: Unit::BytesPerS,
        worse_up: false,
        read: |i| exact(redo_per_s(i)),
        impact: share_of_trend,
    },
    Figure {
        name: "commits per second",
        unit: Unit::Count,
        worse_up: false,
        read: |i| exact(i.commits_per_s),
        impact: share_of_trend,
    },
    Figure {
        name: "DB CPU share of DB time",
        unit: Unit::Pct,
        worse_up: false,
        read: |i| exact(cpu_share(i)),
        impact: |t, n| cpu_share(&t.intervals[n]).map(|s| (s, format!("DB time of #{}", n + 1))),
    },
];

/// The median of `v` (the mean of the middle two when even); `None` when
/// empty.
pub fn median(v: &[f64]) -> Option<f64> {
    let mut s: Vec<f64> = v.to_vec();
    s.sort_by(f64::total_cmp);
    let n = s.len();
    match n {
        0 => None,
        _ if n % 2 == 1 => Some(s[n / 2]),
        _ => Some((s[n / 2 - 1] + s[n / 2]) / 2.0),
    }
}

/// The median absolute deviation of `v` from `m`.
pub fn mad(v: &[f64], m: f64) -> Option<f64> {
    median(&v.iter().map(|x| (x - m).abs()).collect::<Vec<_>>())
}

/// How many MADs `x` lies from `m` beyond `bound` (its own ± bound and
/// the median's: rounding on either side is no departure), the MAD
/// taken as at least [`MAD_FLOOR`] of the median; `None` when that scale
/// is 0 (a series of zeros).
pub fn score(x: f64, bound: f64, m: f64, mad: f64) -> Option<f64> {
    let scale = mad.max(MAD_FLOOR * m.abs());
    (scale > 0.0).then(|| ((x - m).abs() - bound).max(0.0) / scale)
}

/// Ranks (1-based), ties given their mean rank.
fn ranks(v: &[f64]) -> Vec<f64> {
    let mut idx: Vec<usize> = (0..v.len()).collect();
    idx.sort_by(|&a, &b| v[a].total_cmp(&v[b]));
    let mut r = vec![0.0; v.len()];
    let mut i = 0;
    while i < idx.len() {
        let mut j = i;
        while j + 1 < idx.len() && v[idx[j + 1]] == v[idx[i]] {
            j += 1;
        }
        let mean = (i + j) as f64 / 2.0 + 1.0;
        for &k in &idx[i..=j] {
            r[k] = mean;
        }
        i = j + 1;
    }
    r
}

/// Spearman's ρ of paired values: Pearson's correlation of their ranks
/// (ties at their mean rank); `None` under 3 pairs or when either side is
/// constant.
pub fn spearman(x: &[f64], y: &[f64]) -> Option<f64> {
    let n = x.len();
    if n != y.len() || n < 3 {
        return None;
    }
    let (rx, ry) = (ranks(x), ranks(y));
    let mean = (n as f64 + 1.0) / 2.0;
    let (mut sxy, mut sxx, mut syy) = (0.0, 0.0, 0.0);
    for k in 0..n {
        let (a, b) = (rx[k] - mean, ry[k] - mean);
        sxy += a * b;
        sxx += a * a;
        syy += b * b;
    }
    (sxx > 0.0 && syy > 0.0).then(|| sxy / (sxx * syy).sqrt())
}

/// The |ρ| from which a correlation of `n` intervals is strong: at least
/// [`STRONG`] and past the one-sided 5 % critical value of Spearman's ρ.
pub fn strong_from(n: usize) -> f64 {
    let critical = match n {
        0..=4 => 1.0,
        5 => 0.900,
        6 => 0.829,
        7 => 0.714,
        8 => 0.643,
        _ => 1.645 / ((n - 1) as f64).sqrt(),
    };
    critical.max(STRONG)
}

/// Which database and instance an interval is of, for grouping.
fn identity(i: &AwrInterval) -> (String, String) {
    let h = &i.header;
    let db = h
        .dbid
        .clone()
        .or_else(|| h.db_name.as_ref().map(|n| n.to_ascii_lowercase()))
        .unwrap_or_default();
    let inst = h
        .instance
        .as_ref()
        .map(|n| n.to_ascii_lowercase())
        .unwrap_or_default();
    (db, inst)
}

/// The intervals grouped by database and instance (one group unless the
/// trend is mixed), each in time order.
fn groups(t: &AwrTrend) -> Vec<Vec<usize>> {
    if !t.mixed {
        return vec![(0..t.intervals.len()).collect()];
    }
    let mut keys: Vec<(String, String)> = Vec::new();
    let mut out: Vec<Vec<usize>> = Vec::new();
    for (n, i) in t.intervals.iter().enumerate() {
        let k = identity(i);
        match keys.iter().position(|x| *x == k) {
            Some(g) => out[g].push(n),
            None => {
                keys.push(k);
                out.push(vec![n]);
            }
        }
    }
    out
}

/// `#4 (02-Mar-25 12:00:00)`.
fn interval_name(t: &AwrTrend, n: usize) -> String {
    match &t.intervals[n].header.begin_time {
        Some(b) => format!("#{} ({b})", n + 1),
        None => format!("#{}", n + 1),
    }
}

/// `SYNTR: ` before a finding of a mixed trend, naming its database.
fn prefix(t: &AwrTrend, group: &[usize]) -> String {
    if !t.mixed {
        return String::new();
    }
    let h = &t.intervals[group[0]].header;
    let db = h.db_name.as_deref().unwrap_or("?");
    match &h.instance {
        Some(i) => format!("{db} instance {i}: "),
        None => format!("{db}: "),
    }
}

fn outliers_of(t: &AwrTrend, group: &[usize], f: &Figure, out: &mut Vec<Finding>) {
    let read: Vec<(usize, Reading)> = group
        .iter()
        .filter_map(|&n| (f.read)(&t.intervals[n]).map(|r| (n, r)))
        .collect();
    if read.len() < MIN_REPORTS {
        return;
    }
    let values: Vec<f64> = read.iter().map(|(_, r)| r.value).collect();
    let bounds: Vec<f64> = read.iter().map(|(_, r)| r.bound).collect();
    let Some(m) = median(&values) else {
        return;
    };
    let (d, median_bound) = (
        mad(&values, m).unwrap_or(0.0),
        median(&bounds).unwrap_or(0.0),
    );
    for (n, r) in &read {
        let Some(s) = score(r.value, r.bound + median_bound, m, d).filter(|s| *s > K) else {
            continue;
        };
        let up = r.value > m;
        let impact = (f.impact)(t, *n);
        let severity = if up == f.worse_up && f.worse_up {
            Severity::Notice.max(severity_of_share(impact.as_ref().map_or(0.0, |x| x.0)))
        } else {
            Severity::Info
        };
        let coarse = r.bound > 0.01 * r.value.abs();
        let bound = if coarse {
            format!(" (± {} as printed)", f.unit.show(r.bound))
        } else {
            String::new()
        };
        let mut text = format!(
            "{}{}: {} {}{bound}, {s:.1} median absolute deviations {} the median of {} over {} intervals (MAD {}; an outlier beyond {K})",
            prefix(t, group),
            interval_name(t, *n),
            f.name,
            f.unit.show(r.value),
            if up { "above" } else { "below" },
            f.unit.show(m),
            read.len(),
            f.unit.show(d),
        );
        if let Some((share, of)) = &impact {
            text.push_str(&format!("; {share:.1} % of the {of}"));
        }
        let (v, u) = f.unit.evidence(r.value);
        let (mv, _) = f.unit.evidence(m);
        let (dv, _) = f.unit.evidence(d);
        let mut evidence = vec![
            ev(f.name, v, u),
            ev("median of the intervals", mv, u),
            ev("median absolute deviation", dv, u),
            ev("deviations from the median", s, "count"),
        ];
        if coarse {
            let (bv, _) = f.unit.evidence(r.bound);
            evidence.push(ev("± printed precision", bv, u));
        }
        let found = finding(
            OUTLIER,
            Some(&format!("{}{}", prefix(t, group), interval_name(t, *n))),
            severity,
            text,
            evidence,
            Some(jas_min()),
        );
        out.push(match impact {
            Some((share, of)) => found.with_impact(share, &of),
            None => found,
        });
    }
}

/// The outliers in the worse direction (a latency or the load above its
/// median), by interval, for the trend's answer: ` Outliers, beyond 7
/// median absolute deviations of the median: #5 (…): 'log file sync'
/// average 9.00 ms, average active sessions 1.20.`; `None` without one.
pub fn in_words(fs: &[Finding]) -> Option<String> {
    let mut by_interval: Vec<(&str, Vec<String>)> = Vec::new();
    for f in fs
        .iter()
        .filter(|f| f.rule == OUTLIER && f.severity >= Severity::Notice)
    {
        let (Some(at), Some(e)) = (f.subject.as_deref(), f.evidence.first()) else {
            continue;
        };
        let value = match e.unit.as_str() {
            "ns" => format_ns(e.value),
            "bytes/s" => format_rate(e.value),
            "%" => format!("{:.1} %", e.value),
            _ => format!("{:.2}", e.value),
        };
        let words = format!("{} {value}", e.what);
        match by_interval.iter_mut().find(|(x, _)| *x == at) {
            Some((_, v)) => v.push(words),
            None => by_interval.push((at, vec![words])),
        }
    }
    if by_interval.is_empty() {
        return None;
    }
    let shown: Vec<String> = by_interval
        .iter()
        .take(3)
        .map(|(at, v)| format!("{at}: {}", v.join(", ")))
        .collect();
    let more = match by_interval.len().saturating_sub(3) {
        0 => String::new(),
        n => format!(" and {n} more interval{}", if n == 1 { "" } else { "s" }),
    };
    Some(format!(
        " Outliers, beyond {K} median absolute deviations of the median: {}{more}.",
        shown.join("; ")
    ))
}

/// The intervals of `group` beyond [`K`] MADs of any figure's median.
pub fn outliers(t: &AwrTrend) -> Vec<Finding> {
    let mut out = Vec::new();
    for g in groups(t) {
        for f in &FIGURES {
            outliers_of(t, &g, f, &mut out);
        }
    }
    out
}

/// The pairs (load, latency) of a group where both are known.
fn pairs(
    t: &AwrTrend,
    group: &[usize],
    row: fn(&AwrInterval) -> Option<&WaitEventRow>,
) -> Vec<(f64, f64)> {
    group
        .iter()
        .filter_map(|&n| {
            let i = &t.intervals[n];
            let latency = row_avg(row(i)?)?.us;
            Some((i.average_active_sessions?, latency))
        })
        .collect()
}

/// What rising latency under load means for the event, and the event
/// whose correlation tells the cause.
fn meaning(t: &AwrTrend, group: &[usize], commit: bool) -> String {
    let lw = group.first().map_or_else(
        || LogWriter::of(Default::default()),
        |&n| LogWriter::of(t.intervals[n].kind),
    );
    if !commit {
        return "the reads queue when the database is busy: the storage (or the host's I/O path) is saturated at the busy hours".into();
    }
    let writes: Vec<(f64, f64)> = group
        .iter()
        .filter_map(|&n| {
            let i = &t.intervals[n];
            Some((i.average_active_sessions?, i.log_file_parallel_write_us?))
        })
        .collect();
    let (x, y): (Vec<f64>, Vec<f64>) = writes.iter().copied().unzip();
    match spearman(&x, &y) {
        Some(r) if writes.len() >= MIN_REPORTS && r >= strong_from(writes.len()) => format!(
            "'log file parallel write' rises with it (ρ {r:.2}): the log device slows under load"
        ),
        Some(r) if writes.len() >= MIN_REPORTS => format!(
            "'log file parallel write' does not (ρ {r:.2}): {} under load (CPU), not the log device",
            lw.under_load
        ),
        _ => format!(
            "without 'log file parallel write' in enough intervals dbio cannot tell the log device from {}",
            lw.scheduling_short
        ),
    }
}

fn with_load_of(t: &AwrTrend, group: &[usize], commit: bool, out: &mut Vec<Finding>) {
    let row: fn(&AwrInterval) -> Option<&WaitEventRow> = if commit {
        |i| i.log_file_sync.as_ref()
    } else {
        |i| i.single_block_read.as_ref()
    };
    let p = pairs(t, group, row);
    if p.len() < MIN_REPORTS {
        return;
    }
    let (x, y): (Vec<f64>, Vec<f64>) = p.iter().copied().unzip();
    let Some(rho) = spearman(&x, &y) else {
        return;
    };
    let strong = strong_from(p.len());
    if rho.abs() < strong {
        return;
    }
    let event = group
        .iter()
        .find_map(|&n| row(&t.intervals[n]).map(|e| e.name.clone()))
        .unwrap_or_default();
    let (lo, hi) = p.iter().fold((p[0], p[0]), |(lo, hi), q| {
        (
            if q.0 < lo.0 { *q } else { lo },
            if q.0 > hi.0 { *q } else { hi },
        )
    });
    let time: f64 = group
        .iter()
        .filter_map(|&n| row(&t.intervals[n]).and_then(|e| e.time_s))
        .sum();
    let db: f64 = group
        .iter()
        .filter_map(|&n| t.intervals[n].header.db_time_s)
        .sum();
    let share = (db > 0.0).then(|| 100.0 * time / db);
    let (severity, how, what) = if rho > 0.0 {
        (
            Severity::Notice.max(severity_of_share(share.unwrap_or(0.0))),
            "rises",
            meaning(t, group, commit),
        )
    } else {
        (
            Severity::Info,
            "falls",
            "busier hours are served faster (more cache hits when the working set is hot), so the load is not waiting on this latency".into(),
        )
    };
    let text = format!(
        "{}'{event}' average {how} with the load: Spearman ρ {rho:.2} over {} intervals (strong from {strong:.2}), {} at {:.2} average active sessions, {} at {:.2}; {what}",
        prefix(t, group),
        p.len(),
        format_ns(lo.1 * 1e3),
        lo.0,
        format_ns(hi.1 * 1e3),
        hi.0,
    );
    let f = finding(
        WITH_LOAD,
        Some(&event),
        severity,
        text,
        vec![
            ev(
                "Spearman ρ, average against average active sessions",
                rho,
                "",
            ),
            ev("intervals", p.len() as f64, "count"),
            ev("strong from |ρ|", strong, ""),
        ],
        Some(doc("docs/awr.md")),
    );
    out.push(match share {
        Some(s) => f.with_impact(s, "DB time of the trend"),
        None => f,
    });
}

/// 'log file sync' and single-block read latency against the load, where
/// the correlation is strong.
pub fn with_load(t: &AwrTrend) -> Vec<Finding> {
    let mut out = Vec::new();
    for g in groups(t) {
        for commit in [true, false] {
            with_load_of(t, &g, commit, &mut out);
        }
    }
    out
}

/// The trend's note when a database has too few intervals for the
/// rules, and when the rules run per database.
pub fn notes(t: &AwrTrend) -> Vec<String> {
    let gs = groups(t);
    let mut out = Vec::new();
    if gs.len() > 1 {
        out.push(format!(
            "the reports are of {} databases or instances: the outlier and load rules run within each",
            gs.len()
        ));
    }
    for g in &gs {
        if g.len() < MIN_REPORTS {
            out.push(format!(
                "{}{} report{} of one database: no outlier or load rule (a median and its absolute deviations need {MIN_REPORTS} or more)",
                prefix(t, g),
                g.len(),
                if g.len() == 1 { "" } else { "s" }
            ));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use dbio_model::awr::LoadProfileRow;

    fn interval(n: usize, aas: f64, lfs_us: f64) -> AwrInterval {
        let mut i = AwrInterval {
            average_active_sessions: Some(aas),
            ..Default::default()
        };
        i.header.db_name = Some("SYN".into());
        i.header.begin_time = Some(format!("02-Mar-25 {:02}:00:00", 9 + n));
        i.header.elapsed_s = Some(3600.0);
        i.header.db_time_s = Some(aas * 3600.0);
        i.log_file_sync = Some(WaitEventRow {
            name: "log file sync".into(),
            waits: Some(1e6),
            time_s: Some(lfs_us),
            avg_us: Some(lfs_us),
            ..Default::default()
        });
        i.load_profile.push(LoadProfileRow {
            name: "Redo size (bytes)".into(),
            per_second: Some(1e6),
            per_transaction: None,
        });
        i
    }

    fn trend(aas: &[f64], lfs: &[f64]) -> AwrTrend {
        AwrTrend {
            intervals: aas
                .iter()
                .zip(lfs)
                .enumerate()
                .map(|(n, (a, l))| interval(n, *a, *l))
                .collect(),
            ..Default::default()
        }
    }

    #[test]
    fn median_mad_and_the_score_at_k() {
        assert_eq!(median(&[3.0, 1.0, 2.0]), Some(2.0));
        assert_eq!(median(&[4.0, 1.0, 2.0, 3.0]), Some(2.5));
        assert_eq!(median(&[]), None);
        // 100 110 90 105 95: median 100, deviations 0 10 10 5 5: MAD 5.
        let v = [100.0, 110.0, 90.0, 105.0, 95.0];
        assert_eq!(mad(&v, 100.0), Some(5.0));
        // 7 MADs is 35 away: 135 is not beyond, 135.01 is.
        assert_eq!(score(135.0, 0.0, 100.0, 5.0), Some(K));
        assert!(score(135.01, 0.0, 100.0, 5.0).unwrap() > K);
        assert!(score(64.99, 0.0, 100.0, 5.0).unwrap() > K);
        // A ± 10 bound is subtracted first: 145 is not beyond, 145.01 is.
        assert_eq!(score(145.0, 10.0, 100.0, 5.0), Some(K));
        assert!(score(145.01, 10.0, 100.0, 5.0).unwrap() > K);
        // A constant series: the MAD is floored at 1 % of the median.
        assert_eq!(score(105.0, 0.0, 100.0, 0.0), Some(5.0));
        assert_eq!(score(5.0, 0.0, 0.0, 0.0), None);
    }

    #[test]
    fn an_outlier_hour_is_flagged_both_sides_of_k() {
        // Six hourly reports; 'log file sync' 1.0 ms, 1.1, 0.9, 1.05, 0.95
        // and one hour's: MAD 0.05 ms (for the outlier hour at the end,
        // the median and MAD of all six: median 1.025, MAD 0.075).
        let aas = [1.0, 1.0, 1.0, 1.0, 1.0, 1.0];
        let base = [1000.0, 1100.0, 900.0, 1050.0, 950.0];
        let with = |last: f64| {
            let mut l = base.to_vec();
            l.push(last);
            trend(&aas, &l)
        };
        // Median 1025 µs, MAD 75 µs: 7 MADs is 525 µs; 1550 is
        // exactly 7 MADs away, 1551 beyond.
        assert!(outliers(&with(1550.0)).is_empty());
        let fs = outliers(&with(1551.0));
        assert_eq!(fs.len(), 1, "{fs:?}");
        assert_eq!(fs[0].rule, OUTLIER);
        assert!(
            fs[0].text.starts_with("#6 (02-Mar-25 14:00:00): 'log file sync' average 1.55 ms, 7.0 median absolute deviations above the median of 1.02 ms over 6 intervals (MAD 75.0 µs; an outlier beyond 7)"),
            "{}",
            fs[0].text
        );
        assert_eq!(fs[0].severity, Severity::Notice);
        // Its impact: 'log file sync' time over the interval's DB time.
        assert!((fs[0].share() - 1551.0 / 3600.0 * 100.0).abs() < 1e-9);
    }

    #[test]
    fn four_reports_have_no_outlier_rule_five_have() {
        let spike = |n: usize| {
            let mut l = vec![1000.0; n - 1];
            l.push(9000.0);
            trend(&vec![1.0; n], &l)
        };
        assert!(outliers(&spike(4)).is_empty());
        assert_eq!(notes(&spike(4)).len(), 1);
        assert!(notes(&spike(4))[0].starts_with("4 reports of one database: no outlier"));
        assert_eq!(outliers(&spike(5)).len(), 1);
        assert!(notes(&spike(5)).is_empty());
    }

    #[test]
    fn rounding_is_never_an_outlier() {
        // Whole-millisecond averages, 1,000 waits an hour, time in whole
        // seconds: five hours of 1 s (`1` ms, 0.5 to 1.5 ms) and one of
        // 2 s (`2` ms, 1.5 to 2.5 ms): the ranges touch, the difference
        // may be rounding alone. 3 s (2.5 to 3.5 ms) is beyond it.
        let with = |last: f64| {
            let mut t = trend(&[1.0; 6], &[1000.0; 6]);
            for (n, i) in t.intervals.iter_mut().enumerate() {
                let secs = if n == 5 { last } else { 1.0 };
                i.log_file_sync = Some(WaitEventRow {
                    name: "log file sync".into(),
                    waits: Some(1000.0),
                    time_s: Some(secs),
                    avg_us: Some(secs * 1000.0),
                    ..Default::default()
                });
            }
            t
        };
        assert!(outliers(&with(2.0)).is_empty());
        let fs = outliers(&with(3.0));
        assert_eq!(fs.len(), 1, "{fs:?}");
        assert!(
            fs[0].text.contains("3.00 ms (± 500 µs as printed)"),
            "{}",
            fs[0].text
        );
        // Every hour prints `1` ms, but over a million waits time over
        // waits says 1.000 ms (± 0.5 µs) five times and 1.45 ms once: an
        // outlier the printed digits hide.
        let mut t = trend(&[1.0; 6], &[1000.0; 6]);
        for (n, i) in t.intervals.iter_mut().enumerate() {
            i.log_file_sync = Some(WaitEventRow {
                name: "log file sync".into(),
                waits: Some(1e6),
                time_s: Some(if n == 5 { 1450.0 } else { 1000.0 }),
                avg_us: Some(1000.0),
                ..Default::default()
            });
        }
        let fs = outliers(&t);
        assert_eq!(fs.len(), 1, "{fs:?}");
        assert!(
            fs[0].text.contains("'log file sync' average 1.45 ms"),
            "{}",
            fs[0].text
        );
    }

    #[test]
    fn spearman_ranks_and_its_strength_threshold() {
        let x = [1.0, 2.0, 3.0, 4.0, 5.0];
        assert_eq!(spearman(&x, &[10.0, 20.0, 30.0, 40.0, 500.0]), Some(1.0));
        assert_eq!(spearman(&x, &[5.0, 4.0, 3.0, 2.0, 1.0]), Some(-1.0));
        // One swap among five: ρ = 1 − 6·2 / (5·24) = 0.9.
        let r = spearman(&x, &[1.0, 2.0, 3.0, 5.0, 4.0]).unwrap();
        assert!((r - 0.9).abs() < 1e-12, "{r}");
        // Ties take their mean rank.
        assert_eq!(ranks(&[2.0, 1.0, 2.0]), [2.5, 1.0, 2.5]);
        assert!(spearman(&x, &[1.0; 5]).is_none());
        assert_eq!(strong_from(4), 1.0);
        assert_eq!(strong_from(5), 0.9);
        assert_eq!(strong_from(8), 0.7);
        assert!((strong_from(101) - 0.7).abs() < 1e-12);
    }

    #[test]
    fn commit_latency_that_rises_with_the_load_is_named_with_its_cause() {
        // Load 1..6 sessions; 'log file sync' follows it exactly (ρ 1),
        // 'log file parallel write' stays flat with noise (ρ low).
        let aas = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0];
        let lfs = [1000.0, 1200.0, 1500.0, 1900.0, 2600.0, 4000.0];
        let mut t = trend(&aas, &lfs);
        for (n, i) in t.intervals.iter_mut().enumerate() {
            i.log_file_parallel_write_us = Some([300.0, 310.0, 290.0, 305.0, 295.0, 300.0][n]);
        }
        let fs = with_load(&t);
        assert_eq!(fs.len(), 1, "{fs:?}");
        assert!(
            fs[0].text.starts_with("'log file sync' average rises with the load: Spearman ρ 1.00 over 6 intervals (strong from 0.83), 1.00 ms at 1.00 average active sessions, 4.00 ms at 6.00"),
            "{}",
            fs[0].text
        );
        assert!(fs[0].text.contains("not the log device"), "{}", fs[0].text);
        // Neighbours swapped: two pairs, ρ = 1 − 6·4 / (6·35) = 0.886,
        // past the 0.829 of six intervals: strong; three pairs, 0.8286:
        // just under it, not.
        let mut swapped = lfs;
        swapped.swap(0, 1);
        swapped.swap(2, 3);
        assert_eq!(with_load(&trend(&aas, &swapped)).len(), 1);
        swapped.swap(4, 5);
        assert!(with_load(&trend(&aas, &swapped)).is_empty());
        let weak = [1200.0, 1000.0, 1900.0, 1500.0, 4000.0, 1100.0];
        assert!(with_load(&trend(&aas, &weak)).is_empty());
    }

    #[test]
    fn a_mixed_trend_runs_the_rules_per_database() {
        let mut t = trend(&[1.0; 10], &[1000.0; 10]);
        t.mixed = true;
        for i in t.intervals.iter_mut().skip(5) {
            i.header.db_name = Some("OTHER".into());
        }
        t.intervals[9].log_file_sync.as_mut().unwrap().time_s = Some(9000.0);
        t.intervals[9].log_file_sync.as_mut().unwrap().avg_us = Some(9000.0);
        let fs = outliers(&t);
        assert_eq!(fs.len(), 1, "{fs:?}");
        assert!(fs[0].text.starts_with("OTHER: #10"), "{}", fs[0].text);
        assert_eq!(
            notes(&t),
            ["the reports are of 2 databases or instances: the outlier and load rules run within each"]
        );
    }
}
