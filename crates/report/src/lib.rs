//! dbio's renderers. Every output is rendered from the result model in
//! `dbio-model` and from nothing else, so `dbio report --from run.json`
//! reproduces what the run printed.
#![deny(missing_docs)]

pub mod difference;
pub mod export;
pub mod findings;
pub mod kit;
mod migrate_io;
mod migrate_models;
pub mod sections;
pub mod verdict;

pub use export::{
    CsvExporter, ExportError, Exporter, Format, HtmlExporter, JsonExporter, TableExporter,
};

use dbio_model::awr::{AwrComparison, AwrReport, AwrTrend};
use dbio_model::outcome::{
    AWR_COMMAND, AWR_COMPARISON_COMMAND, AWR_TREND_COMMAND, TRACE_COMMAND, TRACE_COMPARISON_COMMAND,
};
use dbio_model::trace::{TraceComparison, TraceReport};
use dbio_model::{Outcome, RunReport};

/// Renders any result as pretty JSON (the documented schema), as
/// [`JsonExporter`] does.
pub fn to_json(result: &Outcome) -> Result<String, ExportError> {
    JsonExporter.export(result)
}

/// Reads any result written by [`to_json`] (or by an older dbio), of this
/// schema version or an older one, and refuses other versions. Older
/// forms are migrated:
/// * a version-1 run report (before findings): its `conclusions` strings
///   and the entries' `conclusion`/`notes` become `legacy` findings;
/// * a version-1 or -2 run report (before each command's configuration
///   was its echo): seconds become nanoseconds, and the fields that are
///   not configuration move out of it (`migrate_io`, `migrate_models`);
/// * a run report without `layout`: `check`'s is a summary, the others'
///   detail, as they were printed;
/// * a trace analysis or comparison written with the trace's own schema
///   version 1, without a `command`: recognised by its members.
///
/// The result carries this version from then on.
pub fn from_json(text: &str) -> Result<Outcome, String> {
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
    let bad = |e: serde_json::Error| format!("not a dbio JSON result: {e}");
    match variant(&v) {
        Variant::Trace => {
            let mut t: TraceReport = serde_json::from_value(v).map_err(bad)?;
            t.schema_version = dbio_model::SCHEMA_VERSION;
            Ok(Outcome::Trace(t))
        }
        Variant::TraceComparison => {
            let mut c: TraceComparison = serde_json::from_value(v).map_err(bad)?;
            for x in [
                &mut c.a.schema_version,
                &mut c.b.schema_version,
                &mut c.schema_version,
            ] {
                *x = dbio_model::SCHEMA_VERSION;
            }
            Ok(Outcome::TraceComparison(c))
        }
        Variant::Awr => {
            let mut r: AwrReport = serde_json::from_value(v).map_err(bad)?;
            r.schema_version = dbio_model::SCHEMA_VERSION;
            Ok(Outcome::Awr(r))
        }
        Variant::AwrComparison => {
            let mut c: Box<AwrComparison> = serde_json::from_value(v).map_err(bad)?;
            for x in [
                &mut c.a.schema_version,
                &mut c.b.schema_version,
                &mut c.schema_version,
            ] {
                *x = dbio_model::SCHEMA_VERSION;
            }
            Ok(Outcome::AwrComparison(c))
        }
        Variant::Comparison => {
            let mut c: Box<dbio_model::compare::Comparison> =
                serde_json::from_value(v).map_err(bad)?;
            c.schema_version = dbio_model::SCHEMA_VERSION;
            Ok(Outcome::Comparison(c))
        }
        Variant::AwrTrend => {
            let mut t: Box<AwrTrend> = serde_json::from_value(v).map_err(bad)?;
            t.schema_version = dbio_model::SCHEMA_VERSION;
            Ok(Outcome::AwrTrend(t))
        }
        Variant::Run => {
            let mut v = migrate_io::migrate(v);
            if version < Some(3) {
                migrate_models::lgwr_dbwr_to_v3(&mut v);
            }
            let legacy = legacy_entry_conclusions(&v);
            legacy_layout(&mut v);
            let mut r: RunReport = serde_json::from_value(v).map_err(bad)?;
            for f in legacy {
                if !r.findings.iter().any(|g| g.text == f.text) {
                    r.findings.push(f);
                }
            }
            r.schema_version = dbio_model::SCHEMA_VERSION;
            Ok(Outcome::Run(r))
        }
    }
}

/// Which variant of [`Outcome`] a JSON result is.
enum Variant {
    Run,
    Trace,
    TraceComparison,
    Awr,
    AwrComparison,
    Comparison,
    AwrTrend,
}

/// The variant named by `command`; a trace result of the trace's own
/// schema version 1 has no `command` and is told by its members.
fn variant(v: &serde_json::Value) -> Variant {
    match v.get("command").and_then(|c| c.as_str()) {
        Some(TRACE_COMMAND) => Variant::Trace,
        Some(TRACE_COMPARISON_COMMAND) => Variant::TraceComparison,
        Some(AWR_COMMAND) => Variant::Awr,
        Some(AWR_COMPARISON_COMMAND) => Variant::AwrComparison,
        Some(dbio_model::outcome::COMPARE_COMMAND) => Variant::Comparison,
        Some(AWR_TREND_COMMAND) => Variant::AwrTrend,
        Some(_) => Variant::Run,
        None if v.get("a").is_some() && v.get("b").is_some() => Variant::TraceComparison,
        None if v.get("profile").is_some() => Variant::Trace,
        None => Variant::Run,
    }
}

/// A run report written before `layout` was saved: `check` printed its
/// sections as summaries, every other command in full.
fn legacy_layout(v: &mut serde_json::Value) {
    if let Some(o) = v.as_object_mut() {
        if !o.contains_key("layout") && o.get("command").and_then(|c| c.as_str()) == Some("check") {
            o.insert("layout".into(), "summary".into());
        }
    }
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
        let r = match from_json(&v.to_string()).unwrap() {
            Outcome::Run(r) => r,
            other => panic!("read back as {}", other.command()),
        };
        let texts: Vec<(&str, Option<&str>)> = r
            .findings
            .iter()
            .map(|f| (f.text.as_str(), f.subject.as_deref()))
            .collect();
        assert_eq!(texts, [("same line", None), ("a note", Some("cold"))]);
        assert!(r.findings.iter().all(|f| f.rule == "legacy"));
        // A new result reads back as written, with no legacy additions.
        let r = Outcome::Run(r);
        let back = from_json(&to_json(&r).unwrap()).unwrap();
        assert_eq!(back, r);
    }

    #[test]
    fn every_kind_of_result_reads_back_as_the_variant_it_was() {
        let t = TraceReport {
            schema_version: dbio_model::SCHEMA_VERSION,
            label: "x.trc".into(),
            ..Default::default()
        };
        let c = TraceComparison {
            schema_version: dbio_model::SCHEMA_VERSION,
            invocation: None,
            a: t.clone(),
            b: TraceReport {
                label: "y.trc".into(),
                ..t.clone()
            },
            ..Default::default()
        };
        let r = RunReport {
            schema_version: dbio_model::SCHEMA_VERSION,
            command: "lgwr".into(),
            ..Default::default()
        };
        let w = AwrReport {
            schema_version: dbio_model::SCHEMA_VERSION,
            source: "a.txt".into(),
            ..Default::default()
        };
        let wc = AwrComparison {
            schema_version: dbio_model::SCHEMA_VERSION,
            invocation: None,
            a: w.clone(),
            b: w.clone(),
            ..Default::default()
        };
        for (o, command) in [
            (Outcome::Awr(w), "awr"),
            (Outcome::AwrComparison(Box::new(wc)), "awr --compare"),
            (Outcome::Trace(t), "tracefile"),
            (Outcome::TraceComparison(c), "tracefile --compare"),
            (Outcome::Run(r), "lgwr"),
        ] {
            let text = to_json(&o).unwrap();
            let v: serde_json::Value = serde_json::from_str(&text).unwrap();
            assert_eq!(v["command"], command);
            assert_eq!(v["schema_version"], dbio_model::SCHEMA_VERSION);
            assert_eq!(from_json(&text).unwrap(), o);
        }
    }

    #[test]
    fn a_check_result_without_a_layout_reads_as_the_summary_it_printed() {
        for (command, layout) in [
            ("check", dbio_model::Layout::Summary),
            ("bench", dbio_model::Layout::Detail),
            ("lgwr", dbio_model::Layout::Detail),
        ] {
            let mut v = serde_json::to_value(RunReport {
                schema_version: dbio_model::SCHEMA_VERSION,
                command: command.into(),
                ..Default::default()
            })
            .unwrap();
            v.as_object_mut().unwrap().remove("layout");
            match from_json(&v.to_string()).unwrap() {
                Outcome::Run(r) => assert_eq!(r.layout, layout, "{command}"),
                other => panic!("{command} read back as {}", other.command()),
            }
        }
        // A saved layout is kept, whatever the command.
        let r = RunReport {
            schema_version: dbio_model::SCHEMA_VERSION,
            command: "check".into(),
            layout: dbio_model::Layout::Detail,
            ..Default::default()
        };
        let o = Outcome::Run(r);
        assert_eq!(from_json(&to_json(&o).unwrap()).unwrap(), o);
    }

    #[test]
    fn a_version_this_dbio_does_not_know_is_refused_in_one_sentence() {
        let e = from_json(r#"{"schema_version": 99, "command": "tracefile"}"#).unwrap_err();
        assert!(
            e.starts_with("schema version 99 is not one this dbio reads"),
            "{e}"
        );
        let e = from_json(r#"{"command": "bench"}"#).unwrap_err();
        assert!(e.starts_with("schema version missing"), "{e}");
    }
}
