//! Result types of `dbio load --compare` and of the device baseline.
//!
//! A comparison runs its configurations interleaved in rounds (A B A B
//! ...) so that drift in the machine (a neighbour, the page cache, a
//! checkpoint) falls on every configuration alike; each round is a
//! complete [`crate::load::LoadResult`] in the report, tagged with its
//! [`LoadRound`]. [`LoadComparison`] is the summary: per configuration
//! the median of the rounds with their minimum and maximum, and whether
//! a difference is larger than the run-to-run range (the ranges do not
//! overlap) or within it.
//!
//! The device baseline is a short commit-latency probe on the storage
//! holding the database's log (4 KiB written and `fdatasync`ed at queue
//! depth 1, as a log writer does), before and after the load, so that a
//! result shows what the storage allows next to what the database makes
//! of it.

use crate::LatencySummary;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Which configuration and round a load result belongs to.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct LoadRound {
    /// The configuration's label (`synchronous_commit=off`).
    pub config: String,
    /// The configuration's number, from 1, in the order given.
    pub index: u32,
    /// The round, from 1.
    pub round: u32,
}

/// A median with the minimum and maximum over the rounds.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[schemars(rename = "LoadSpread")]
pub struct Spread {
    /// Median over the rounds (the mean of the middle two for an even
    /// count).
    pub median: f64,
    /// Smallest round.
    pub min: f64,
    /// Largest round.
    pub max: f64,
}

impl Spread {
    /// The spread of `v`; `None` when it is empty.
    pub fn of(v: &[f64]) -> Option<Spread> {
        if v.is_empty() {
            return None;
        }
        let mut s = v.to_vec();
        s.sort_by(f64::total_cmp);
        let n = s.len();
        let median = if n % 2 == 1 {
            s[n / 2]
        } else {
            (s[n / 2 - 1] + s[n / 2]) / 2.0
        };
        Some(Spread {
            median,
            min: s[0],
            max: s[n - 1],
        })
    }

    /// The two ranges have no value in common.
    pub fn apart_from(&self, o: &Spread) -> bool {
        self.max < o.min || o.max < self.min
    }
}

/// One setting a comparison changed.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct ComparedSetting {
    /// Its name.
    pub name: String,
    /// `session` (dbio's own connections only) or `server` (`ALTER
    /// SYSTEM`, `SET GLOBAL`: every client saw it during the comparison).
    pub scope: String,
    /// Its value before the comparison, as the database showed it.
    pub original: String,
    /// It is back at `original` (always true for session settings).
    pub restored: bool,
}

/// One configuration's rounds, summarised.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ConfigSummary {
    /// The label (`synchronous_commit=off commit_delay=1000`).
    pub config: String,
    /// Rounds measured (fewer than asked after a stop).
    pub rounds: u32,
    /// Commits per second.
    pub tps: Spread,
    /// Median commit latency as the client saw it, ns ('log file sync').
    pub commit_p50_ns: Spread,
    /// 99th percentile commit latency, ns.
    pub commit_p99_ns: Spread,
    /// The engine's mean flush latency, ns ('log file parallel write'),
    /// where the engine times its flushes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub flush_latency_ns: Option<Spread>,
    /// Commits per log flush, where the engine counts its flushes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub commits_per_flush: Option<Spread>,
    /// Median TPS over the first configuration's median TPS (1.0 for the
    /// first).
    pub tps_ratio: f64,
    /// This configuration's TPS range and the first's do not overlap:
    /// the difference is larger than the run-to-run range. False for the
    /// first configuration and with a single round.
    pub beyond_range: bool,
}

/// What `--compare` did and found.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct LoadComparison {
    /// Rounds asked for.
    pub rounds: u32,
    /// The settings changed and whether each is back.
    pub settings: Vec<ComparedSetting>,
    /// One line per configuration, in the order given.
    pub configs: Vec<ConfigSummary>,
    /// The device baseline around the whole comparison.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub baseline: Option<LoadBaseline>,
}

impl LoadComparison {
    /// Summarises the rounds in `results` (those with a [`LoadRound`])
    /// for the configurations `labels`, in their order.
    pub fn summarize(labels: &[String], results: &[crate::load::LoadResult]) -> Vec<ConfigSummary> {
        let mut out: Vec<ConfigSummary> = Vec::with_capacity(labels.len());
        for label in labels {
            let rs: Vec<&crate::load::LoadResult> = results
                .iter()
                .filter(|r| {
                    r.round.as_ref().is_some_and(|x| &x.config == label) && r.commit.count > 0
                })
                .collect();
            let of = |f: &dyn Fn(&crate::load::LoadResult) -> Option<f64>| {
                let v: Vec<f64> = rs.iter().filter_map(|r| f(r)).collect();
                (v.len() == rs.len()).then(|| Spread::of(&v)).flatten()
            };
            let tps = of(&|r| Some(r.tps)).unwrap_or_default();
            let mut c = ConfigSummary {
                config: label.clone(),
                rounds: rs.len() as u32,
                tps,
                commit_p50_ns: of(&|r| Some(r.commit.p50_ns() as f64)).unwrap_or_default(),
                commit_p99_ns: of(&|r| Some(r.commit.p99_ns() as f64)).unwrap_or_default(),
                flush_latency_ns: of(&|r| r.derived.flush_latency_ns),
                commits_per_flush: of(&|r| r.derived.commits_per_flush),
                tps_ratio: 1.0,
                beyond_range: false,
            };
            if let Some(first) = out.first() {
                c.tps_ratio = if first.tps.median > 0.0 {
                    c.tps.median / first.tps.median
                } else {
                    0.0
                };
                c.beyond_range = c.rounds > 1 && first.rounds > 1 && c.tps.apart_from(&first.tps);
            }
            out.push(c);
        }
        out
    }
}

/// The device baseline: a commit-latency probe before and after the load.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct LoadBaseline {
    /// The directory probed.
    pub dir: String,
    /// Why this directory: the database's log directory, or the current
    /// directory because the log is not on this machine.
    pub place: String,
    /// Before the load.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub before: Option<BaselineProbe>,
    /// After the load.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub after: Option<BaselineProbe>,
}

/// One probe: sequential 4 KiB writes, each followed by `fdatasync`, at
/// queue depth 1 (the log writer's pattern).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct BaselineProbe {
    /// Bytes per write.
    pub block_bytes: u64,
    /// Writes (each made durable before the next).
    pub writes: u64,
    /// Wall time, ns.
    pub runtime_ns: u64,
    /// Durable writes per second.
    pub per_second: f64,
    /// Latency of write + `fdatasync`.
    pub latency: LatencySummary,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::load::LoadResult;

    fn round(config: &str, tps: f64) -> LoadResult {
        let mut r = LoadResult {
            tps,
            round: Some(LoadRound {
                config: config.into(),
                index: 1,
                round: 1,
            }),
            ..Default::default()
        };
        r.commit.count = 10;
        r
    }

    #[test]
    fn medians_ranges_and_the_verdict_follow_from_the_rounds() {
        let labels = ["a".to_string(), "b".to_string(), "c".to_string()];
        let rs = vec![
            round("a", 100.0),
            round("b", 300.0),
            round("c", 105.0),
            round("a", 110.0),
            round("b", 310.0),
            round("c", 95.0),
            round("a", 90.0),
            round("b", 290.0),
            round("c", 120.0),
        ];
        let s = LoadComparison::summarize(&labels, &rs);
        assert_eq!(
            s[0].tps,
            Spread {
                median: 100.0,
                min: 90.0,
                max: 110.0
            }
        );
        assert_eq!(s[0].rounds, 3);
        assert!(!s[0].beyond_range);
        assert!((s[1].tps_ratio - 3.0).abs() < 1e-12);
        assert!(s[1].beyond_range, "290..310 does not meet 90..110");
        assert!(!s[2].beyond_range, "95..120 overlaps 90..110");
        // No flush counts in these rounds: none in the summary.
        assert!(s[0].commits_per_flush.is_none());
        assert_eq!(Spread::of(&[4.0, 1.0]).unwrap().median, 2.5);
        assert!(Spread::of(&[]).is_none());
    }
}
