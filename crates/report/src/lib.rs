//! dbio's renderers. Every output is rendered from the result model in
//! `dbio-model` and from nothing else, so `dbio report --from run.json`
//! reproduces what the run printed.
#![deny(missing_docs)]

pub mod calibrate;
pub mod csv_out;
pub mod dbwr;
pub mod findings;
pub mod histogram;
pub mod lgwr;
pub mod load;
pub mod read;
pub mod table;

use dbio_model::RunReport;

/// Renders the report as pretty JSON (the documented schema).
pub fn to_json(report: &RunReport) -> String {
    let mut s = serde_json::to_string_pretty(report).expect("the result model serialises");
    s.push('\n');
    s
}

/// Reads a report written by [`to_json`], of this schema version or of
/// version 1 (before findings: its `conclusions` strings and the entries'
/// `conclusion`/`notes` become `legacy` findings, and the report is
/// version 2 from then on); refuses other versions.
pub fn from_json(text: &str) -> Result<RunReport, String> {
    let v: serde_json::Value =
        serde_json::from_str(text).map_err(|e| format!("not a dbio JSON result: {e}"))?;
    let version = v.get("schema_version").and_then(|x| x.as_u64());
    let readable = 1..=u64::from(dbio_model::SCHEMA_VERSION);
    if !version.is_some_and(|v| readable.contains(&v)) {
        return Err(format!(
            "schema version {} is not one this dbio reads (1 to {})",
            version.map_or("missing".to_string(), |v| v.to_string()),
            dbio_model::SCHEMA_VERSION
        ));
    }
    let legacy = legacy_entry_conclusions(&v);
    let mut r: RunReport =
        serde_json::from_value(v).map_err(|e| format!("not a dbio JSON result: {e}"))?;
    for f in legacy {
        if !r.findings.iter().any(|g| g.text == f.text) {
            r.findings.push(f);
        }
    }
    r.schema_version = dbio_model::SCHEMA_VERSION;
    Ok(r)
}

/// The plain-words strings a result written before findings kept inside
/// its entries (a job's or writer configuration's `conclusion`, a read
/// state's `notes`), as `legacy` findings about that entry.
fn legacy_entry_conclusions(v: &serde_json::Value) -> Vec<dbio_model::Finding> {
    let mut out = Vec::new();
    for (section, key) in [
        ("jobs", "conclusion"),
        ("reads", "notes"),
        ("dbwr", "conclusion"),
    ] {
        for entry in v
            .get(section)
            .and_then(|x| x.as_array())
            .into_iter()
            .flatten()
        {
            let name = entry
                .get("name")
                .and_then(|n| n.as_str())
                .map(str::to_string);
            let texts: Vec<&str> = match entry.get(key) {
                Some(serde_json::Value::String(s)) => vec![s.as_str()],
                Some(serde_json::Value::Array(a)) => a.iter().filter_map(|x| x.as_str()).collect(),
                _ => Vec::new(),
            };
            for t in texts {
                out.push(dbio_model::Finding::legacy(name.clone(), t.to_string()));
            }
        }
    }
    out
}
pub mod trace;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entry_conclusions_and_notes_of_an_old_result_become_findings() {
        let mut v = serde_json::to_value(RunReport {
            schema_version: dbio_model::SCHEMA_VERSION,
            reads: vec![dbio_model::read::ReadResult {
                name: "cold".into(),
                ..Default::default()
            }],
            ..Default::default()
        })
        .unwrap();
        let o = v.as_object_mut().unwrap();
        o.remove("findings");
        o.insert("conclusions".into(), serde_json::json!(["same line"]));
        v["reads"][0]["notes"] = serde_json::json!(["a note"]);
        v["jobs"] = serde_json::json!([]);
        let r = from_json(&v.to_string()).unwrap();
        let texts: Vec<(&str, Option<&str>)> = r
            .findings
            .iter()
            .map(|f| (f.text.as_str(), f.subject.as_deref()))
            .collect();
        assert_eq!(texts, [("same line", None), ("a note", Some("cold"))]);
        assert!(r.findings.iter().all(|f| f.rule == "legacy"));
        // A new result reads back as written, with no legacy additions.
        let back = from_json(&to_json(&r)).unwrap();
        assert_eq!(back, r);
    }
}
