//! Per-second time series of a measurement, in one shape for every command.
//!
//! Why one shape: a chart (the HTML report), a spreadsheet (`--csv`) and
//! `dbio compare` should draw or compare any of them without knowing which
//! command made it. A [`Series`] is a name, a unit, the end of each
//! interval in seconds of measured time, and one value per interval; a
//! value is `null` where the interval has none (a latency percentile of a
//! second in which nothing completed: a stall, which the rate series of
//! the same result shows as 0).
//!
//! How they are recorded, and their error bounds, is the recording side's
//! business (`dbio_engine::series`): rates are exact counts over the
//! measured length of each interval; percentiles come from log-linear
//! buckets and are within 12.5 % of the true value.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// What a series' values measure.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum SeriesUnit {
    /// Events per second (commits, reads, writes, waits).
    PerSecond,
    /// A latency, nanoseconds.
    Ns,
    /// A plain ratio (commits per write).
    Ratio,
}

impl SeriesUnit {
    /// The unit as a table or a CSV header shows it.
    pub fn label(self) -> &'static str {
        match self {
            SeriesUnit::PerSecond => "/s",
            SeriesUnit::Ns => "ns",
            SeriesUnit::Ratio => "ratio",
        }
    }
}

/// One per-second time series.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Series {
    /// What it is, e.g. `tps`, `log_file_sync_p99`, `device_p50`.
    pub name: String,
    /// The values' unit.
    pub unit: SeriesUnit,
    /// End of each interval, seconds of measured time since the start of
    /// the measurement (rounds of one configuration follow each other).
    pub t_s: Vec<f64>,
    /// One value per interval, `null` where the interval has none.
    pub values: Vec<Option<f64>>,
}

/// The spread of a series' values (the intervals that have one).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, JsonSchema)]
#[schemars(rename = "SeriesSpread")]
pub struct Spread {
    /// Intervals with a value.
    pub n: usize,
    /// Smallest value.
    pub min: f64,
    /// 25th percentile (nearest rank).
    pub p25: f64,
    /// Median (nearest rank).
    pub median: f64,
    /// 75th percentile (nearest rank).
    pub p75: f64,
    /// Largest value.
    pub max: f64,
}

impl Spread {
    /// The spread of `values` (None when empty). Non-finite values are
    /// left out.
    pub fn of(values: impl IntoIterator<Item = f64>) -> Option<Spread> {
        let mut v: Vec<f64> = values.into_iter().filter(|x| x.is_finite()).collect();
        if v.is_empty() {
            return None;
        }
        v.sort_by(f64::total_cmp);
        let rank = |q: f64| v[((q * v.len() as f64).ceil() as usize).clamp(1, v.len()) - 1];
        Some(Spread {
            n: v.len(),
            min: v[0],
            p25: rank(0.25),
            median: rank(0.5),
            p75: rank(0.75),
            max: v[v.len() - 1],
        })
    }

    /// The interquartile range.
    pub fn iqr(&self) -> f64 {
        self.p75 - self.p25
    }
}

impl Series {
    /// An empty series.
    pub fn new(name: impl Into<String>, unit: SeriesUnit) -> Self {
        Series {
            name: name.into(),
            unit,
            t_s: Vec::new(),
            values: Vec::new(),
        }
    }

    /// Appends the interval ending at `t_s`.
    pub fn push(&mut self, t_s: f64, value: Option<f64>) {
        self.t_s.push(t_s);
        self.values.push(value.filter(|v| v.is_finite()));
    }

    /// The spread of its values (None when no interval has one).
    pub fn spread(&self) -> Option<Spread> {
        Spread::of(self.values.iter().flatten().copied())
    }

    /// Intervals whose value is at most `share` of the series' median
    /// (stalls of a rate series), as their end times.
    pub fn dips_below(&self, share: f64) -> Vec<f64> {
        let Some(s) = self.spread() else {
            return Vec::new();
        };
        self.t_s
            .iter()
            .zip(&self.values)
            .filter(|(_, v)| v.is_none_or(|v| v <= s.median * share))
            .map(|(t, _)| *t)
            .collect()
    }
}

/// The series called `name` in `list`.
pub fn find<'a>(list: &'a [Series], name: &str) -> Option<&'a Series> {
    list.iter().find(|s| s.name == name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spread_uses_nearest_ranks_and_skips_empty_intervals() {
        let mut s = Series::new("tps", SeriesUnit::PerSecond);
        for (i, v) in [Some(4.0), None, Some(1.0), Some(3.0), Some(2.0)]
            .into_iter()
            .enumerate()
        {
            s.push(i as f64 + 1.0, v);
        }
        let sp = s.spread().unwrap();
        assert_eq!(
            (sp.n, sp.min, sp.p25, sp.median, sp.p75, sp.max),
            (4, 1.0, 1.0, 2.0, 3.0, 4.0)
        );
        assert_eq!(sp.iqr(), 2.0);
        // The empty second and the 1.0 second are at most half the median.
        assert_eq!(s.dips_below(0.5), vec![2.0, 3.0]);
        assert!(Series::new("x", SeriesUnit::Ns).spread().is_none());
    }

    #[test]
    fn a_series_round_trips_with_null_for_empty_intervals() {
        let mut s = Series::new("log_file_sync_p99", SeriesUnit::Ns);
        s.push(1.0, Some(1500.0));
        s.push(2.0, None);
        s.push(3.0, Some(f64::NAN));
        let j = serde_json::to_string(&s).unwrap();
        assert!(j.contains("\"unit\":\"ns\""), "{j}");
        assert!(j.contains("[1500.0,null,null]"), "{j}");
        assert_eq!(serde_json::from_str::<Series>(&j).unwrap(), s);
    }
}
