//! Terminal rendering of the `dbio calibrate` section of a report.

use dbio_model::RunReport;

/// Renders the calibrate section (empty when the report has none).
pub fn render(_r: &RunReport) -> String {
    String::new()
}
