//! The [`Section`] of a kind whose result is a list of named model runs
//! (`lgwr`, `dbwr`, `read`): each run has a name, a configuration and
//! per-second series, so their CSV rows, compared figures, compared
//! settings and `merge` refusal are the same code for all three. A
//! section folder states only what is its own (its table, page, rules,
//! answer, figures and the settings that identify a run) in one
//! [`NamedRuns`] value.

use crate::export::ExportError;
use crate::kit::csv::{entry_rows, series_rows, LongRow, SERIES_ITEM};
use crate::kit::findings::RuleSet;
use crate::kit::metrics::{section_rows, Entry, Metric};
use crate::kit::settings;
use crate::sections::Section;
use dbio_model::compare::{ComparedRow, SettingDifference};
use dbio_model::{Finding, RunReport, Verdict};
use serde::Serialize;

/// One kind of named model run, as a [`Section`].
pub(crate) struct NamedRuns<T: 'static> {
    /// The section's name in CSV rows, compared rows and `merge`'s refusal.
    pub key: &'static str,
    /// The report's runs of this kind.
    pub of: fn(&RunReport) -> &[T],
    /// A run's name.
    pub name: fn(&T) -> &str,
    /// The terminal text.
    pub table: fn(&RunReport) -> String,
    /// The part of the HTML page (called only when there are runs).
    pub html: fn(&[T]) -> String,
    /// The findings.
    pub rules: RuleSet<RunReport>,
    /// The answer when this kind is what the report measured.
    pub verdict: fn(&RunReport, &[Finding]) -> Option<Verdict>,
    /// The figures `dbio compare` puts side by side.
    pub metrics: fn() -> Vec<Metric<T>>,
    /// What identifies a run's set-up in `dbio compare`'s settings.
    pub settings: fn(&T) -> serde_json::Value,
    /// [`Section::page_rank`].
    pub page_rank: u8,
    /// [`Section::comparison_rank`].
    pub comparison_rank: u8,
}

impl<T: Entry + Serialize + Sync> Section for NamedRuns<T> {
    fn table(&self, r: &RunReport) -> String {
        (self.table)(r)
    }

    fn html(&self, r: &RunReport) -> String {
        let runs = (self.of)(r);
        if runs.is_empty() {
            return String::new();
        }
        (self.html)(runs)
    }

    fn csv(&self, r: &RunReport) -> Result<Vec<LongRow>, ExportError> {
        let mut rows = Vec::new();
        for x in (self.of)(r) {
            let name = (self.name)(x);
            rows.extend(entry_rows(self.key, name, x, &SERIES_ITEM)?);
            rows.extend(series_rows(self.key, name, &x.per_second()));
        }
        Ok(rows)
    }

    fn is_in(&self, r: &RunReport) -> bool {
        !(self.of)(r).is_empty()
    }

    fn findings(&self, r: &RunReport) -> Vec<Finding> {
        (self.rules.evaluate)(r)
    }

    fn verdict(&self, r: &RunReport, findings: &[Finding]) -> Option<Verdict> {
        (self.verdict)(r, findings)
    }

    fn compare(
        &self,
        runs: &[&RunReport],
        rows: &mut Vec<ComparedRow>,
        warnings: &mut Vec<String>,
    ) {
        let per_input: Vec<Vec<&T>> = runs.iter().map(|r| (self.of)(r).iter().collect()).collect();
        section_rows(self.key, &per_input, &(self.metrics)(), rows, warnings);
    }

    fn settings(&self, runs: &[&RunReport], out: &mut Vec<SettingDifference>) {
        let per_input: Vec<&[T]> = runs.iter().map(|r| (self.of)(r)).collect();
        settings::section(self.key, &per_input, self.name, self.settings, out);
    }

    fn merge_refusal(&self, r: &RunReport) -> Option<&'static str> {
        self.is_in(r).then_some(self.key)
    }

    fn page_rank(&self) -> u8 {
        self.page_rank
    }

    fn comparison_rank(&self) -> u8 {
        self.comparison_rank
    }
}
