//! What `dbio compare` compares an entry by: a `Metric` (a figure, its
//! unit and direction, where its spread comes from), the `Entry` an
//! entry is aligned by, and the rows of one section side by side
//! (`section_rows`). Each kind of result lists its own figures in its
//! folder (`sections/<kind>/compare.rs`).

use dbio_model::compare::{verdict, ComparedRow, MetricUnit, SpreadSource};
use dbio_model::series::Spread;
use dbio_model::LatencySummary;

/// A figure of an entry of type `T`: name, unit, direction, value, and
/// where its spread comes from.
pub(crate) struct Metric<T> {
    pub name: &'static str,
    pub unit: MetricUnit,
    pub higher_is_better: Option<bool>,
    pub get: fn(&T) -> Option<f64>,
    pub spread: Spr<T>,
}

/// Where a figure's spread comes from.
pub(crate) enum Spr<T> {
    /// None.
    No,
    /// The values of its rounds.
    Rounds(fn(&T) -> Vec<f64>),
    /// The per-second series of this name.
    Series(&'static str),
    /// The rounds where every input has more than one, else the series.
    RoundsElse(fn(&T) -> Vec<f64>, &'static str),
    /// The range the figure's printed digits allow: (lowest, best,
    /// highest), None where the figure is exact or absent.
    Precision(fn(&T) -> Option<(f64, f64, f64)>),
}

/// An entry that can be aligned by name and may hold per-second series.
pub(crate) trait Entry {
    fn name(&self) -> String;
    fn per_second(&self) -> Vec<dbio_model::series::Series> {
        Vec::new()
    }
}

pub(crate) const UP: Option<bool> = Some(true);
pub(crate) const DOWN: Option<bool> = Some(false);

pub(crate) fn m<T>(
    name: &'static str,
    unit: MetricUnit,
    higher_is_better: Option<bool>,
    get: fn(&T) -> Option<f64>,
    spread: Spr<T>,
) -> Metric<T> {
    Metric {
        name,
        unit,
        higher_is_better,
        get,
        spread,
    }
}

pub(crate) fn p50(l: &LatencySummary) -> Option<f64> {
    (l.count > 0).then(|| l.p50_ns() as f64)
}

pub(crate) fn p99(l: &LatencySummary) -> Option<f64> {
    (l.count > 0).then(|| l.p99_ns() as f64)
}

pub(crate) fn mean(l: &LatencySummary) -> Option<f64> {
    (l.count > 0).then_some(l.mean_ns)
}

/// Each input's range from its printed digits, as a spread (min and max
/// its bounds, the median its best estimate); none at all when every
/// input's figure is exact to a hundredth (a range that narrow says
/// nothing the values do not).
fn precision_spreads<T>(
    found: &[Option<&T>],
    f: fn(&T) -> Option<(f64, f64, f64)>,
) -> Vec<Option<Spread>> {
    let spreads: Vec<Option<Spread>> = found
        .iter()
        .map(|e| {
            e.and_then(f).map(|(lo, best, hi)| Spread {
                n: 1,
                min: lo,
                p25: lo,
                median: best,
                p75: hi,
                max: hi,
            })
        })
        .collect();
    let coarse = spreads
        .iter()
        .flatten()
        .any(|s| s.max - s.min > 0.01 * s.median.abs());
    if coarse {
        spreads
    } else {
        vec![None; found.len()]
    }
}

/// The label of input `i`: `A`, `B`, ... `Z`, `AA`, ...
pub fn label(i: usize) -> String {
    let mut n = i;
    let mut s = String::new();
    loop {
        s.insert(0, (b'A' + (n % 26) as u8) as char);
        if n < 26 {
            break;
        }
        n = n / 26 - 1;
    }
    s
}

/// The rows of one section: entries aligned by name (in the order they
/// first appear), one row per figure.
pub(crate) fn section_rows<T: Entry>(
    section: &str,
    per_input: &[Vec<&T>],
    metrics: &[Metric<T>],
    rows: &mut Vec<ComparedRow>,
    warnings: &mut Vec<String>,
) {
    let mut names: Vec<String> = Vec::new();
    for list in per_input {
        for e in list {
            let n = e.name();
            if !names.contains(&n) {
                names.push(n);
            }
        }
    }
    for name in names {
        let found: Vec<Option<&T>> = per_input
            .iter()
            .map(|l| l.iter().copied().find(|e| e.name() == name))
            .collect();
        let missing: Vec<String> = found
            .iter()
            .enumerate()
            .filter(|(_, e)| e.is_none())
            .map(|(i, _)| label(i))
            .collect();
        if !missing.is_empty() {
            warnings.push(format!(
                "{section} '{name}' is not in {}: its figures there are blank",
                missing.join(", ")
            ));
        }
        let series: Vec<Vec<dbio_model::series::Series>> = found
            .iter()
            .map(|e| e.map(|e| e.per_second()).unwrap_or_default())
            .collect();
        for m in metrics {
            let values: Vec<Option<f64>> = found
                .iter()
                .map(|e| e.and_then(|e| (m.get)(e)).filter(|v| v.is_finite()))
                .collect();
            if values.iter().all(Option::is_none) {
                continue;
            }
            let spread = match &m.spread {
                Spr::RoundsElse(f, n) => {
                    if found.iter().flatten().all(|e| f(e).len() > 1) {
                        Spr::Rounds(*f)
                    } else {
                        Spr::Series(n)
                    }
                }
                Spr::No => Spr::No,
                Spr::Rounds(f) => Spr::Rounds(*f),
                Spr::Series(n) => Spr::Series(n),
                Spr::Precision(f) => Spr::Precision(*f),
            };
            let (source, spreads): (Option<SpreadSource>, Vec<Option<Spread>>) = match &spread {
                Spr::No | Spr::RoundsElse(..) => (None, Vec::new()),
                Spr::Rounds(f) => (
                    Some(SpreadSource::Rounds),
                    found
                        .iter()
                        .map(|e| e.map(f).filter(|v| v.len() > 1).and_then(Spread::of))
                        .collect(),
                ),
                Spr::Precision(f) => (
                    Some(SpreadSource::PrintedPrecision),
                    precision_spreads(&found, *f),
                ),
                Spr::Series(n) => (
                    Some(SpreadSource::PerSecond {
                        series: n.to_string(),
                    }),
                    series
                        .iter()
                        .map(|s| dbio_model::series::find(s, n).and_then(|s| s.spread()))
                        .collect(),
                ),
            };
            let has_spread = spreads.iter().any(Option::is_some);
            let (source, spreads) = if has_spread {
                (source, spreads)
            } else {
                (None, Vec::new())
            };
            let verdicts = match &source {
                Some(src) => spreads
                    .iter()
                    .enumerate()
                    .map(|(i, b)| match (i, &spreads[0], b) {
                        (0, _, _) => None,
                        (_, Some(a), Some(b)) => verdict(src, a, b),
                        _ => None,
                    })
                    .collect(),
                None => Vec::new(),
            };
            let base = values[0];
            let ratios = values
                .iter()
                .enumerate()
                .map(|(i, v)| match (i, base, v) {
                    (0, _, _) => None,
                    (_, Some(a), Some(b)) if a != 0.0 => Some(b / a),
                    _ => None,
                })
                .collect();
            rows.push(ComparedRow {
                section: section.to_string(),
                entry: name.clone(),
                metric: m.name.to_string(),
                unit: m.unit,
                higher_is_better: m.higher_is_better,
                values,
                ratios,
                spread_source: source,
                spreads,
                verdicts,
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_run_past_z() {
        assert_eq!(label(0), "A");
        assert_eq!(label(25), "Z");
        assert_eq!(label(26), "AA");
        assert_eq!(label(27), "AB");
    }
}
