//! JSON: the documented schema (`docs/result-schema.json`), pretty-printed,
//! one object per result with its `command` naming the variant.

use super::{ExportError, Exporter};
use dbio_model::Outcome;

/// Pretty JSON with a final newline.
#[derive(Debug, Clone, Copy, Default)]
pub struct JsonExporter;

impl Exporter for JsonExporter {
    fn export(&self, result: &Outcome) -> Result<String, ExportError> {
        let mut s = serde_json::to_string_pretty(result)?;
        s.push('\n');
        Ok(s)
    }
}
