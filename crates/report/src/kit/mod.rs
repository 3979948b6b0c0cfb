//! The ground floor: what every kind of result draws with (terminal
//! tables, histograms, per-second series, the long-form CSV, finding
//! builders and their sources, the HTML page and its SVG charts). Nothing
//! here names a section: a section's folder imports the kit, never the
//! other way round.

pub mod classes;
pub mod csv;
pub mod findings;
#[cfg(test)]
pub mod fixtures;
pub mod histogram;
pub mod html;
pub mod metrics;
pub mod references;
pub mod series;
pub mod settings;
pub mod text;
