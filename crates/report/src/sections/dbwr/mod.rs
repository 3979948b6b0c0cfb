//! The database writers (`dbio dbwr`): table, page, findings and compared figures.

pub mod compare;
pub mod findings;
pub mod html;
pub mod table;
pub mod verdict;

use crate::export::ExportError;
use crate::kit::csv::{entry_rows, series_rows, LongRow, SERIES_ITEM};
use crate::kit::metrics::section_rows;
use crate::kit::settings;
use crate::sections::Section;
use dbio_model::compare::{ComparedRow, SettingDifference};
use dbio_model::{Finding, RunReport};

/// Dbwr's [`Section`].
pub struct Dbwr;

impl Section for Dbwr {
    fn table(&self, r: &RunReport) -> String {
        table::render(r)
    }

    fn html(&self, r: &RunReport) -> String {
        if r.dbwr.is_empty() {
            return String::new();
        }
        html::section(&r.dbwr)
    }

    fn csv(&self, r: &RunReport) -> Result<Vec<LongRow>, ExportError> {
        let mut rows = Vec::new();
        for x in &r.dbwr {
            rows.extend(entry_rows("dbwr", &x.name, x, &SERIES_ITEM)?);
            rows.extend(series_rows("dbwr", &x.name, &x.per_second));
        }
        Ok(rows)
    }

    fn is_in(&self, r: &RunReport) -> bool {
        !r.dbwr.is_empty()
    }

    fn findings(&self, r: &RunReport) -> Vec<Finding> {
        (findings::RULES.evaluate)(r)
    }

    fn verdict(&self, r: &RunReport, findings: &[Finding]) -> Option<dbio_model::Verdict> {
        verdict::verdict(r, findings)
    }

    fn compare(
        &self,
        runs: &[&RunReport],
        rows: &mut Vec<ComparedRow>,
        warnings: &mut Vec<String>,
    ) {
        let per_input: Vec<Vec<_>> = runs.iter().map(|r| r.dbwr.iter().collect()).collect();
        section_rows("dbwr", &per_input, &compare::metrics(), rows, warnings);
    }

    fn settings(&self, runs: &[&RunReport], out: &mut Vec<SettingDifference>) {
        settings::section(
            "dbwr",
            &runs.iter().map(|r| r.dbwr.as_slice()).collect::<Vec<_>>(),
            |x| &x.name,
            |x| serde_json::to_value(&x.config).unwrap_or_default(),
            out,
        );
    }

    fn merge_refusal(&self, r: &RunReport) -> Option<&'static str> {
        self.is_in(r).then_some("dbwr")
    }

    fn page_rank(&self) -> u8 {
        2
    }

    fn comparison_rank(&self) -> u8 {
        3
    }
}
