//! A report's DB time split as ADDM splits it: DB CPU, each foreground
//! wait event by Oracle's wait class, and what neither accounts for,
//! each as a share of DB time.
//!
//! The events are the foreground ones (the Foreground Wait Events table;
//! a report without it, its top events), idle events left out: their time
//! is not DB time. Background waits ('log file parallel write', 'db file
//! parallel write') are not DB time either; they are read only to explain
//! a foreground wait. An event also in the top events with the same
//! number of waits takes the top events' time, printed with more digits.
//! DB CPU is the top events' `DB CPU` row (Statspack: `CPU time`).

use dbio_model::awr::{AwrReport, WaitEventRow};
use dbio_model::WaitClass;

/// One foreground wait event's part of DB time.
#[derive(Debug, Clone, PartialEq)]
pub struct EventShare {
    /// Event name as printed.
    pub name: String,
    /// Its wait class (as printed, else by name).
    pub class: WaitClass,
    /// Waits, when printed.
    pub waits: Option<f64>,
    /// Time, s.
    pub time_s: f64,
    /// Average wait, µs, when known.
    pub avg_us: Option<f64>,
    /// Share of DB time, percent.
    pub pct: f64,
}

/// A report's DB time by component.
#[derive(Debug, Clone, PartialEq)]
pub struct DbTime {
    /// DB time, s.
    pub db_time_s: f64,
    /// DB CPU, s, when the report gives it.
    pub cpu_s: Option<f64>,
    /// DB CPU's share of DB time, percent (0 when not given; can pass
    /// 100: Statspack's CPU and DB time are sampled apart).
    pub cpu_pct: f64,
    /// The foreground wait events, largest first.
    pub events: Vec<EventShare>,
    /// Whether the events come from a whole foreground table (else only
    /// the top events: the rest of DB time then holds the unlisted ones).
    pub whole: bool,
}

/// Shares are summed from +0.0 (`Iterator::sum` of no `f64` is −0.0,
/// which prints as "-0.0 %").
impl DbTime {
    /// Share of DB time in User I/O and System I/O waits, percent.
    pub fn io_pct(&self) -> f64 {
        self.events
            .iter()
            .filter(|e| e.class.is_io())
            .map(|e| e.pct)
            .fold(0.0, |a, b| a + b)
    }

    /// Share of DB time in 'log file sync' (Commit), percent.
    pub fn commit_pct(&self) -> f64 {
        self.events
            .iter()
            .filter(|e| e.class == WaitClass::Commit)
            .map(|e| e.pct)
            .fold(0.0, |a, b| a + b)
    }

    /// Share of DB time in every listed wait, percent.
    pub fn waits_pct(&self) -> f64 {
        self.events.iter().map(|e| e.pct).fold(0.0, |a, b| a + b)
    }

    /// Share of DB time that is neither DB CPU nor a listed wait, percent
    /// (negative when CPU and waits add up to more than DB time).
    pub fn rest_pct(&self) -> f64 {
        100.0 - self.cpu_pct - self.waits_pct()
    }

    /// The largest I/O event.
    pub fn top_io(&self) -> Option<&EventShare> {
        self.events.iter().find(|e| e.class.is_io())
    }

    /// The I/O waits' own average, µs (time over waits, where both are
    /// printed).
    pub fn io_avg_us(&self) -> Option<f64> {
        let (t, n) = self
            .events
            .iter()
            .filter(|e| e.class.is_io())
            .filter_map(|e| e.waits.map(|w| (e.time_s, w)))
            .fold((0.0, 0.0), |(t, n), (et, w)| (t + et, n + w));
        (n > 0.0).then(|| t * 1e6 / n)
    }
}

fn is_cpu(e: &WaitEventRow) -> bool {
    matches!(e.name.as_str(), "DB CPU" | "CPU time" | "CPU")
}

fn class_of(e: &WaitEventRow) -> WaitClass {
    e.class
        .as_deref()
        .and_then(WaitClass::from_label)
        .unwrap_or_else(|| WaitClass::of(&e.name))
}

/// The report's DB time by component; `None` without a DB time.
pub fn of(r: &AwrReport) -> Option<DbTime> {
    let db = r.header.db_time_s.filter(|s| *s > 0.0)?;
    let cpu_s = r
        .top_events
        .iter()
        .find(|e| is_cpu(e))
        .and_then(|e| e.time_s);
    let whole = !r.foreground_events.is_empty();
    let rows: &[WaitEventRow] = if whole {
        &r.foreground_events
    } else {
        &r.top_events
    };
    let mut events: Vec<EventShare> = rows
        .iter()
        .filter(|e| !is_cpu(e))
        .filter(|e| class_of(e) != WaitClass::Idle)
        .filter_map(|e| {
            let top = r
                .top_events
                .iter()
                .find(|t| t.name == e.name && t.waits == e.waits && t.time_s.is_some());
            let time_s = top.and_then(|t| t.time_s).or(e.time_s)?;
            let waits = e.waits;
            // A printed average of 0 is one under the report's unit
            // (Statspack prints whole ms): time over waits then.
            let computed = waits.filter(|w| *w > 0.0).map(|w| time_s * 1e6 / w);
            let avg_us = match e.avg_us {
                Some(a) if a > 0.0 => Some(a),
                printed => computed.or(printed),
            };
            Some(EventShare {
                name: e.name.clone(),
                class: class_of(e),
                waits,
                time_s,
                avg_us,
                pct: 100.0 * time_s / db,
            })
        })
        .collect();
    events.sort_by(|a, b| b.time_s.total_cmp(&a.time_s));
    Some(DbTime {
        db_time_s: db,
        cpu_s,
        cpu_pct: cpu_s.map_or(0.0, |c| 100.0 * c / db),
        events,
        whole,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(name: &str, class: Option<&str>, waits: f64, time_s: f64) -> WaitEventRow {
        WaitEventRow {
            name: name.into(),
            class: class.map(str::to_string),
            waits: Some(waits),
            time_s: Some(time_s),
            ..Default::default()
        }
    }

    #[test]
    fn db_time_splits_into_cpu_io_commit_and_the_rest() {
        let mut r = AwrReport::default();
        assert!(of(&r).is_none(), "no DB time, no split");
        r.header.db_time_s = Some(1000.0);
        r.top_events = vec![
            WaitEventRow {
                name: "DB CPU".into(),
                time_s: Some(310.0),
                ..Default::default()
            },
            row("db file sequential read", Some("User I/O"), 100_000.0, 10.4),
        ];
        r.foreground_events = vec![
            row("db file sequential read", None, 100_000.0, 10.0),
            row("log file sync", None, 1000.0, 7.0),
            row("control file sequential re", None, 10.0, 2.0),
            row("SQL*Net message from clien", None, 10.0, 9000.0),
        ];
        let d = of(&r).unwrap();
        assert_eq!(d.cpu_pct, 31.0);
        assert_eq!(d.events[0].time_s, 10.4, "the top events' digits");
        assert!((d.io_pct() - 1.24).abs() < 1e-9, "{}", d.io_pct());
        assert_eq!(d.commit_pct(), 0.7);
        assert_eq!(d.events.len(), 3, "the idle client left out");
        assert!((d.rest_pct() - 67.06).abs() < 1e-9);
        let none = DbTime {
            events: Vec::new(),
            ..d.clone()
        };
        assert_eq!(format!("{:.1}", none.io_pct()), "0.0", "not -0.0");
        assert_eq!(d.top_io().unwrap().avg_us, Some(104.0));
    }
}
