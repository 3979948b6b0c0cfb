//! The ORION-style load matrix (`dbio matrix`): table, page, CSV and findings.

pub mod findings;
pub mod html;
pub mod table;
pub mod verdict;

use crate::export::ExportError;
use crate::kit::csv::{entry_rows, LongRow};
use crate::sections::Section;
use dbio_model::{Finding, RunReport};

/// Matrix's [`Section`].
pub struct Matrix;

impl Section for Matrix {
    fn table(&self, r: &RunReport) -> String {
        table::render(r)
    }

    fn html(&self, r: &RunReport) -> String {
        r.matrix.as_deref().map(html::section).unwrap_or_default()
    }

    fn csv(&self, r: &RunReport) -> Result<Vec<LongRow>, ExportError> {
        let mut rows = Vec::new();
        if let Some(m) = &r.matrix {
            rows.extend(entry_rows("matrix", &m.name, &m.config, &[])?);
            for p in &m.points {
                let item = format!("small={} large={}", p.small, p.large);
                rows.extend(entry_rows("matrix", &item, p, &["small", "large"])?);
            }
            if let Some(s) = &m.search {
                rows.extend(entry_rows("matrix", "search", s, &[])?);
            }
        }
        Ok(rows)
    }

    fn is_in(&self, r: &RunReport) -> bool {
        r.matrix.is_some()
    }

    fn findings(&self, r: &RunReport) -> Vec<Finding> {
        (findings::RULES.evaluate)(r)
    }

    fn verdict(&self, r: &RunReport, findings: &[Finding]) -> Option<dbio_model::Verdict> {
        verdict::verdict(r, findings)
    }

    fn page_rank(&self) -> u8 {
        5
    }

    fn comparison_rank(&self) -> u8 {
        7
    }
}
