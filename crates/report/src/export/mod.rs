//! One export path: every output format is an [`Exporter`] over the one
//! top-level result, [`Outcome`], so a format covers every command at once
//! and a new command (one more variant) is rendered by every format once
//! each exporter handles it.
//!
//! The shape is hyperfine's `src/export/` (one trait, one file per format,
//! a format enum picking the exporter); HTML is one more exporter.
//! Exporters render into memory: the binary writes the bytes (`src/output.rs`,
//! atomically for regular files), so an exporter never touches a file.

pub mod csv;
pub mod html;
mod json;
pub mod table;

pub use self::csv::CsvExporter;
pub use self::html::HtmlExporter;
pub use self::json::JsonExporter;
pub use self::table::TableExporter;
use dbio_model::Outcome;

/// Renders a result in one format.
pub trait Exporter {
    /// The whole output for `result`, as the command prints or writes it.
    fn export(&self, result: &Outcome) -> Result<String, ExportError>;
}

/// An output format, as the command line names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// The terminal tables (standard output).
    Table,
    /// `--json`: the documented schema.
    Json,
    /// `--csv`.
    Csv,
    /// `--html`: one self-contained page with charts.
    Html,
}

impl Format {
    /// The exporter of this format.
    pub fn exporter(self) -> &'static dyn Exporter {
        match self {
            Format::Table => &TableExporter,
            Format::Json => &JsonExporter,
            Format::Csv => &CsvExporter,
            Format::Html => &HtmlExporter { invocation: None },
        }
    }
}

/// Why a result could not be rendered (one sentence, no cause chain: the
/// renderers work in memory, so this is a serialiser's complaint).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExportError(pub String);

impl std::fmt::Display for ExportError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for ExportError {}

impl From<::csv::Error> for ExportError {
    fn from(e: ::csv::Error) -> Self {
        ExportError(format!("cannot render CSV: {e}"))
    }
}

impl From<serde_json::Error> for ExportError {
    fn from(e: serde_json::Error) -> Self {
        ExportError(format!("cannot render JSON: {e}"))
    }
}
