//! Terminal rendering of the `dbio read` section of a report.

use dbio_model::RunReport;

/// Renders the read section (empty when the report has none).
pub fn render(_r: &RunReport) -> String {
    String::new()
}
