//! `dbio compare`: saved results of one command, aligned and side by side.
//!
//! Why a result of its own: a comparison is what gets handed on ("the new
//! array against the old one"), so it is saved with `--json`, re-rendered
//! by `dbio report --from`, and exported like any other result. Its rows
//! are plain figures with their unit, one value per input, the ratio of
//! each to the first input, and, where the inputs hold rounds or
//! per-second series, each input's spread and whether the difference to
//! the first is larger than the run-to-run noise ([`NOISE_RULE`]).

use crate::series::Spread;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// How `dbio compare` decides that a difference is larger than the noise.
pub const NOISE_RULE: &str = "a difference is beyond the noise when the inputs' round ranges (min..max) do not overlap, or, without rounds, when the medians of their per-second series differ by more than the larger of the two interquartile ranges (with at least 3 seconds each); a figure a report printed at a coarse precision (an average wait in whole milliseconds) is beyond it when the ranges its digits allow do not overlap; with none of these, no verdict";

/// The unit of a compared figure.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum MetricUnit {
    /// Nanoseconds.
    Ns,
    /// Microseconds (trace and AWR figures, as their sources give them).
    Us,
    /// Seconds.
    S,
    /// Per second.
    PerSecond,
    /// Bytes.
    Bytes,
    /// Bytes per second.
    BytesPerSecond,
    /// A plain number (a count, a ratio).
    Number,
    /// Percent.
    Percent,
}

/// What the spread of a row comes from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum SpreadSource {
    /// The figure of each round.
    Rounds,
    /// The per-second series of that name.
    PerSecond {
        /// The series' name.
        series: String,
    },
    /// The range a figure's printed digits allow (an AWR or Statspack
    /// average wait printed in whole milliseconds, narrowed by its time
    /// over its waits): min and max are its bounds, the median its best
    /// estimate.
    PrintedPrecision,
}

/// The difference of one input to the first, against the noise.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    /// The difference is within the run-to-run noise.
    WithinNoise,
    /// The difference is larger than the noise.
    BeyondNoise,
}

/// One input of a comparison.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ComparedInput {
    /// How the tables name it (its file name, or `A`, `B`, ...).
    pub label: String,
    /// The file it was read from.
    pub file: String,
    /// The tool that wrote it (`dbio 0.1.0`).
    pub tool: String,
    /// Start of its run, seconds since the Unix epoch (None where the
    /// result does not record one).
    pub started_at_unix: Option<u64>,
    /// Why its run stopped early, when it did: its figures are partial.
    pub partial: Option<String>,
}

/// A setting whose value differs between the inputs.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct SettingDifference {
    /// Where it is: `environment`, or a section and entry (`lgwr
    /// writer`, `job seq-write`).
    pub scope: String,
    /// Its path in the result's JSON (`kernel`, `device.write_cache`,
    /// `config.block_size`).
    pub name: String,
    /// Its value in each input (None: not there).
    pub values: Vec<Option<String>>,
}

/// One compared figure.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ComparedRow {
    /// The section (`job`, `lgwr`, `read`, `dbwr`, `load`, `event`,
    /// `profile`, `top_event`, `load_profile`, ...).
    pub section: String,
    /// The entry it belongs to: a job's, configuration's or event's name.
    pub entry: String,
    /// The figure (`tps`, `log file sync p99`).
    pub metric: String,
    /// Its unit.
    pub unit: MetricUnit,
    /// Whether a larger value is better (throughput) or worse (latency);
    /// None where neither.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub higher_is_better: Option<bool>,
    /// The value in each input (None: the entry or figure is not there).
    pub values: Vec<Option<f64>>,
    /// Each value divided by the first input's (None for the first, or
    /// where either is missing or the first is 0).
    pub ratios: Vec<Option<f64>>,
    /// Where the spreads come from (None: no rounds or series).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub spread_source: Option<SpreadSource>,
    /// Each input's spread (rounds or per-second values).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub spreads: Vec<Option<Spread>>,
    /// Each input against the first, by [`NOISE_RULE`] (None for the first
    /// and where there is no verdict).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub verdicts: Vec<Option<Verdict>>,
}

/// Saved results of one command, side by side.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Comparison {
    /// [`crate::SCHEMA_VERSION`] of the writer.
    pub schema_version: u32,
    /// The command line that produced it (argv joined with shell quoting,
    /// passwords in URLs redacted); absent in results written before it
    /// was recorded and in results built by a library caller.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub invocation: Option<String>,
    /// The build of dbio that wrote it (revision, target, features);
    /// absent in results written before it was recorded, in re-rendered
    /// results that lacked it, and in results built by a library caller.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub build: Option<crate::build::BuildInfo>,
    /// Tool name and version of the writer.
    pub tool: String,
    /// The command whose results are compared (`lgwr`, `bench`,
    /// `tracefile`, ...).
    pub compared_command: String,
    /// The inputs, in the order given; ratios are against the first.
    pub inputs: Vec<ComparedInput>,
    /// Settings that differ between the inputs: what makes the runs
    /// different besides the storage under test.
    pub settings: Vec<SettingDifference>,
    /// The noise rule the verdicts follow ([`NOISE_RULE`]).
    pub noise_rule: String,
    /// The figures.
    pub rows: Vec<ComparedRow>,
    /// What results written before notes became findings had to say
    /// (entries only some inputs have, partial inputs), as plain
    /// sentences; dbio now writes these as `findings` and leaves this
    /// empty.
    pub warnings: Vec<String>,
    /// What the comparison says: each input's difference to the first,
    /// the settings besides the storage that differ, and the notes
    /// (entries only some inputs have, partial inputs), ranked; absent in
    /// comparisons written before notes became findings.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub findings: Vec<crate::Finding>,
    /// The answer: how the inputs differ from the first; absent in
    /// comparisons written before verdicts.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub verdict: Option<crate::Verdict>,
}

/// The verdict on `b` against `a`, by [`NOISE_RULE`]: rounds and printed
/// precision by their ranges, per-second series by medians and
/// interquartile ranges.
pub fn verdict(source: &SpreadSource, a: &Spread, b: &Spread) -> Option<Verdict> {
    let beyond = match source {
        SpreadSource::Rounds | SpreadSource::PrintedPrecision => a.max < b.min || b.max < a.min,
        SpreadSource::PerSecond { .. } => {
            if a.n < 3 || b.n < 3 {
                return None;
            }
            (a.median - b.median).abs() > a.iqr().max(b.iqr())
        }
    };
    Some(if beyond {
        Verdict::BeyondNoise
    } else {
        Verdict::WithinNoise
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sp(v: &[f64]) -> Spread {
        Spread::of(v.iter().copied()).unwrap()
    }

    #[test]
    fn rounds_differ_when_their_ranges_do_not_overlap() {
        let r = SpreadSource::Rounds;
        let a = sp(&[100.0, 110.0, 105.0]);
        assert_eq!(
            verdict(&r, &a, &sp(&[111.0, 120.0])),
            Some(Verdict::BeyondNoise)
        );
        assert_eq!(
            verdict(&r, &a, &sp(&[109.0, 130.0])),
            Some(Verdict::WithinNoise)
        );
    }

    #[test]
    fn printed_precision_differs_when_the_ranges_do_not_overlap() {
        let p = SpreadSource::PrintedPrecision;
        let bound = |lo: f64, us: f64, hi: f64| Spread {
            n: 1,
            min: lo,
            p25: lo,
            median: us,
            p75: hi,
            max: hi,
        };
        let a = bound(650.0, 700.0, 750.0);
        assert_eq!(
            verdict(&p, &a, &bound(750.0, 800.0, 850.0)),
            Some(Verdict::WithinNoise)
        );
        assert_eq!(
            verdict(&p, &a, &bound(750.5, 800.0, 850.0)),
            Some(Verdict::BeyondNoise)
        );
    }

    #[test]
    fn series_differ_when_medians_are_further_apart_than_the_larger_iqr() {
        let s = SpreadSource::PerSecond {
            series: "tps".into(),
        };
        // a: median 95, IQR 100 - 90 = 10 (nearest ranks); b's median 125.
        let a = sp(&[90.0, 100.0, 110.0, 95.0]);
        let b = sp(&[120.0, 125.0, 130.0, 126.0]);
        assert_eq!(verdict(&s, &a, &b), Some(Verdict::BeyondNoise));
        // c: median 100, IQR 4: 5 apart, within a's 10.
        let c = sp(&[98.0, 100.0, 102.0, 104.0]);
        assert_eq!(verdict(&s, &a, &c), Some(Verdict::WithinNoise));
        // Two seconds are too few to say.
        assert_eq!(verdict(&s, &a, &sp(&[500.0, 510.0])), None);
    }
}
