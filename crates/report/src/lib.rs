//! dbio's renderers. Every output is rendered from the result model in
//! `dbio-model` and from nothing else, so `dbio report --from run.json`
//! reproduces what the run printed.
#![deny(missing_docs)]

pub mod calibrate;
pub mod csv_out;
pub mod dbwr;
pub mod histogram;
pub mod lgwr;
pub mod read;
pub mod table;

use dbio_model::RunReport;

/// Renders the report as pretty JSON (the documented schema).
pub fn to_json(report: &RunReport) -> String {
    let mut s = serde_json::to_string_pretty(report).expect("the result model serialises");
    s.push('\n');
    s
}

/// Reads a report written by [`to_json`]; refuses other schema versions.
pub fn from_json(text: &str) -> Result<RunReport, String> {
    let v: serde_json::Value =
        serde_json::from_str(text).map_err(|e| format!("not a dbio JSON result: {e}"))?;
    let version = v.get("schema_version").and_then(|x| x.as_u64());
    if version != Some(dbio_model::SCHEMA_VERSION as u64) {
        return Err(format!(
            "schema version {} is not the one this dbio reads ({})",
            version.map_or("missing".to_string(), |v| v.to_string()),
            dbio_model::SCHEMA_VERSION
        ));
    }
    serde_json::from_value(v).map_err(|e| format!("not a dbio JSON result: {e}"))
}
pub mod trace;
