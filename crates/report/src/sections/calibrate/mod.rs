//! The tier calibration (`dbio calibrate`): table, page, CSV, findings and compared figures.

pub mod compare;
pub mod findings;
pub mod html;
pub mod table;
pub mod verdict;

use crate::export::ExportError;
use crate::kit::csv::{entry_rows, LongRow};
use crate::kit::metrics::section_rows;
use crate::sections::Section;
use dbio_model::compare::ComparedRow;
use dbio_model::{Finding, RunReport};

/// Calibrate's [`Section`].
pub struct Calibrate;

impl Section for Calibrate {
    fn table(&self, r: &RunReport) -> String {
        table::render(r)
    }

    fn html(&self, r: &RunReport) -> String {
        r.calibration
            .as_ref()
            .map(html::calibration)
            .unwrap_or_default()
    }

    fn csv(&self, r: &RunReport) -> Result<Vec<LongRow>, ExportError> {
        match &r.calibration {
            Some(c) => entry_rows("calibrate", &c.name, c, &["name"]),
            None => Ok(Vec::new()),
        }
    }

    fn is_in(&self, r: &RunReport) -> bool {
        r.calibration.is_some()
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
        if runs.iter().any(|r| r.calibration.is_some()) {
            let th: Vec<Vec<_>> = runs
                .iter()
                .map(|r| r.calibration.iter().collect())
                .collect();
            section_rows("calibrate", &th, &compare::metrics(), rows, warnings);
        }
    }

    fn merge_refusal(&self, r: &RunReport) -> Option<&'static str> {
        self.is_in(r).then_some("calibrate")
    }

    fn page_rank(&self) -> u8 {
        4
    }

    fn comparison_rank(&self) -> u8 {
        6
    }
}
