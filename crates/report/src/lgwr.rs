//! Terminal rendering of the `dbio lgwr` section of a report.

use dbio_model::RunReport;

/// Renders the lgwr section (empty when the report has none).
pub fn render(_r: &RunReport) -> String {
    String::new()
}
