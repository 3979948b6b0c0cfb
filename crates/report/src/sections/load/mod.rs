//! Commit load on a real database (`dbio load`), with its `--compare` and `--predict`: tables, pages, findings and compared figures of each.

pub mod compare;
pub mod compare_findings;
pub mod compare_html;
pub mod compare_table;
pub mod findings;
pub mod html;
pub mod predict_findings;
pub mod predict_html;
pub mod predict_table;
pub mod table;
pub mod verdict;

use crate::export::ExportError;
use crate::kit::csv::{entry_rows, series_rows, LongRow, SERIES_ITEM};
use crate::kit::metrics::section_rows;
use crate::kit::settings;
use crate::sections::Section;
use dbio_model::compare::{ComparedRow, SettingDifference};
use dbio_model::{Finding, RunReport};

/// Load's [`Section`].
pub struct Load;

impl Section for Load {
    fn table(&self, r: &RunReport) -> String {
        table::render(r)
    }

    fn html(&self, r: &RunReport) -> String {
        let mut b = String::new();
        if let Some(c) = &r.load_compare {
            b.push_str(&compare_html::section(c));
        }
        if !r.load.is_empty() {
            b.push_str(&html::section(&r.load));
        }
        b
    }

    fn csv(&self, r: &RunReport) -> Result<Vec<LongRow>, ExportError> {
        let mut rows = Vec::new();
        for x in &r.load {
            rows.extend(entry_rows("load", &x.name, x, &SERIES_ITEM)?);
            rows.extend(series_rows("load", &x.name, &x.per_second));
        }
        if let Some(c) = &r.load_compare {
            rows.extend(entry_rows("load_compare", "comparison", c, &[])?);
        }
        Ok(rows)
    }

    fn is_in(&self, r: &RunReport) -> bool {
        !r.load.is_empty() || r.load_compare.is_some()
    }

    fn findings(&self, r: &RunReport) -> Vec<Finding> {
        let mut out = (findings::RULES.evaluate)(r);
        out.extend((compare_findings::RULES.evaluate)(r));
        out
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
        let per_input: Vec<Vec<_>> = runs.iter().map(|r| r.load.iter().collect()).collect();
        section_rows("load", &per_input, &compare::metrics(), rows, warnings);
    }

    fn settings(&self, runs: &[&RunReport], out: &mut Vec<SettingDifference>) {
        settings::section(
            "load",
            &runs.iter().map(|r| r.load.as_slice()).collect::<Vec<_>>(),
            |x| &x.name,
            |x| {
                let mut v = serde_json::to_value(&x.config).unwrap_or_default();
                if let Some(m) = v.as_object_mut() {
                    m.insert("server.version".into(), x.server.version.clone().into());
                    for s in &x.server.settings {
                        m.insert(format!("server.{}", s.name), s.value.clone().into());
                    }
                }
                v
            },
            out,
        );
    }

    fn merge_refusal(&self, r: &RunReport) -> Option<&'static str> {
        (!r.load.is_empty()).then_some("load")
    }

    fn page_rank(&self) -> u8 {
        6
    }

    fn comparison_rank(&self) -> u8 {
        4
    }
}
