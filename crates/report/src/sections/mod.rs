//! One folder per kind of result. A measurement ([`RunReport`]) holds a
//! list per section (`check` is all of them at once); each section is one
//! [`Section`] that renders its own terminal table, part of the HTML page
//! and CSV rows, draws its findings, names its compared figures and
//! settings and says whether `dbio merge` can combine it, so that a change
//! to one kind of result (a field of `LgwrResult`) stays in its folder.
//! [`SECTIONS`] is the one list every exporter, `compare`, `merge` and the
//! findings engine loop over. Trace analyses, AWR reports and comparisons
//! are whole results of their own (`Outcome` variants), each in its folder
//! too.
//!
//! A folder imports the ground floor (`crate::kit`) and its own files; the
//! kit imports no section.

pub mod awr;
pub mod calibrate;
pub mod check;
pub mod compare;
pub mod dbwr;
pub mod jobs;
pub mod lgwr;
pub mod load;
pub mod matrix;
mod named_runs;
pub mod read;
pub mod snap;
pub mod trace;
pub mod watch;

use crate::export::ExportError;
use crate::kit::csv::LongRow;
use dbio_model::compare::{ComparedRow, SettingDifference};
use dbio_model::{Finding, RunReport};

/// One kind of entry of a measurement, rendered and compared by itself.
/// Every method is about this section's entries in the result(s) given and
/// gives nothing (an empty string, no rows) when they hold none.
pub trait Section: Sync {
    /// Its terminal text, laid out as the report's `layout` says.
    fn table(&self, _r: &RunReport) -> String {
        String::new()
    }
    /// Its part of the HTML page.
    fn html(&self, _r: &RunReport) -> String {
        String::new()
    }
    /// Its rows of the long-form CSV.
    fn csv(&self, _r: &RunReport) -> Result<Vec<LongRow>, ExportError> {
        Ok(Vec::new())
    }
    /// Whether `r` holds any of its entries (a result of raw jobs alone
    /// is written as the wide CSV).
    fn is_in(&self, _r: &RunReport) -> bool {
        false
    }
    /// Whether `r`'s CSV must be the long form because of this section
    /// (it holds entries of it).
    fn needs_long_csv(&self, r: &RunReport) -> bool {
        self.is_in(r)
    }
    /// Its findings, in the order they print.
    fn findings(&self, _r: &RunReport) -> Vec<Finding> {
        Vec::new()
    }
    /// The answer `r` gives when this section is what it measured
    /// (`findings` are `r`'s, ranked: [`crate::verdict`]); None leaves
    /// the answer to a later section or to the top finding.
    fn verdict(&self, _r: &RunReport, _findings: &[Finding]) -> Option<dbio_model::Verdict> {
        None
    }
    /// Its figures side by side across `runs` (`dbio compare`), with a
    /// warning for what is not compared.
    fn compare(
        &self,
        _runs: &[&RunReport],
        _rows: &mut Vec<ComparedRow>,
        _warnings: &mut Vec<String>,
    ) {
    }
    /// Its configurations that differ across `runs`.
    fn settings(&self, _runs: &[&RunReport], _out: &mut Vec<SettingDifference>) {}
    /// Why `dbio merge` refuses `r` for this section (the section's name
    /// when `r` holds entries that cannot be merged), or None.
    fn merge_refusal(&self, _r: &RunReport) -> Option<&'static str> {
        None
    }
    /// Its place on the HTML page (ascending).
    fn page_rank(&self) -> u8;
    /// Its place in a comparison and in `merge`'s refusal (ascending).
    fn comparison_rank(&self) -> u8;
}

/// Every section, in the order the terminal table, the CSV and the
/// findings list them. The HTML page and the comparison keep the order
/// they have always had ([`Section::page_rank`],
/// [`Section::comparison_rank`]) so that saved results re-render byte for
/// byte; the orders differ only for sections one result holds together
/// (`check`'s log writer, commit load, reads and writers).
pub static SECTIONS: &[&dyn Section] = &[
    &jobs::Jobs,
    &check::Check,
    &lgwr::LGWR,
    &load::Load,
    &read::READ,
    &dbwr::DBWR,
    &calibrate::Calibrate,
    &matrix::Matrix,
    &watch::Watch,
];

/// [`SECTIONS`] in page order.
pub fn in_page_order() -> Vec<&'static dyn Section> {
    let mut v = SECTIONS.to_vec();
    v.sort_by_key(|s| s.page_rank());
    v
}

/// [`SECTIONS`] in comparison order.
pub fn in_comparison_order() -> Vec<&'static dyn Section> {
    let mut v = SECTIONS.to_vec();
    v.sort_by_key(|s| s.comparison_rank());
    v
}
