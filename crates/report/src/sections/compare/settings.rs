//! The settings that differ between the inputs, found by walking each
//! input's environment and each aligned entry's configuration as JSON.
//!
//! Left out, because they change from run to run by themselves and say
//! nothing about the set-up: the load average, page-cache residency,
//! dbio's own temporary target names and seeds, and `keep`.

use dbio_model::compare::SettingDifference;
use dbio_model::Outcome;
use serde::Serialize;
use serde_json::Value;

/// JSON paths (prefixes) that are not settings.
const IGNORED: &[&str] = &["loadavg", "cached_before", "target", "keep", "seed"];

fn ignored(path: &str) -> bool {
    IGNORED
        .iter()
        .any(|p| path == *p || path.starts_with(&format!("{p}.")))
}

/// Every leaf of `v` as (path, text).
fn leaves(v: &Value, path: &mut String, out: &mut Vec<(String, String)>) {
    match v {
        Value::Object(m) => {
            for (k, x) in m {
                let len = path.len();
                if !path.is_empty() {
                    path.push('.');
                }
                path.push_str(k);
                leaves(x, path, out);
                path.truncate(len);
            }
        }
        Value::Array(a) => {
            // Settings lists (load's server settings, trace idle events)
            // are compared as one value.
            let text = serde_json::to_string(a).unwrap_or_default();
            out.push((path.clone(), text));
        }
        Value::Null => out.push((path.clone(), "-".into())),
        Value::String(s) => out.push((path.clone(), s.clone())),
        other => out.push((path.clone(), other.to_string())),
    }
}

fn flat<T: Serialize>(x: &T) -> Vec<(String, String)> {
    let mut out = Vec::new();
    if let Ok(v) = serde_json::to_value(x) {
        leaves(&v, &mut String::new(), &mut out);
    }
    out.retain(|(p, _)| !ignored(p));
    out
}

/// The differing leaves of one scope: `per_input` holds each input's
/// leaves (None where the input has no such scope).
fn differing(
    scope: &str,
    per_input: &[Option<Vec<(String, String)>>],
    out: &mut Vec<SettingDifference>,
) {
    let mut names: Vec<&String> = Vec::new();
    for l in per_input.iter().flatten() {
        for (p, _) in l {
            if !names.contains(&p) {
                names.push(p);
            }
        }
    }
    for name in names {
        let values: Vec<Option<String>> = per_input
            .iter()
            .map(|l| {
                l.as_ref()
                    .and_then(|l| l.iter().find(|(p, _)| p == name).map(|(_, v)| v.clone()))
            })
            .collect();
        let present: Vec<&Option<String>> = values.iter().filter(|v| v.is_some()).collect();
        if present.len() < 2 || present.iter().all(|v| *v == present[0]) {
            continue;
        }
        out.push(SettingDifference {
            scope: scope.to_string(),
            name: name.clone(),
            values,
        });
    }
}

/// Entries of a section by name, each flattened.
fn section<T: Serialize>(
    scope: &str,
    per_input: &[&[T]],
    name: fn(&T) -> &str,
    config: fn(&T) -> Value,
    out: &mut Vec<SettingDifference>,
) {
    let mut names: Vec<&str> = Vec::new();
    for l in per_input {
        for e in l.iter() {
            if !names.contains(&name(e)) {
                names.push(name(e));
            }
        }
    }
    for n in names {
        let flats: Vec<Option<Vec<(String, String)>>> = per_input
            .iter()
            .map(|l| l.iter().find(|e| name(e) == n).map(|e| flat(&config(e))))
            .collect();
        let at = if n == scope {
            scope.to_string()
        } else {
            format!("{scope} '{n}'")
        };
        differing(&at, &flats, out);
    }
}

/// What differs between `outcomes` (all of one command).
pub(crate) fn differences(outcomes: &[&Outcome]) -> Vec<SettingDifference> {
    let mut out = Vec::new();
    match outcomes[0] {
        Outcome::Run(_) => {
            let runs: Vec<&dbio_model::RunReport> = outcomes
                .iter()
                .filter_map(|o| match o {
                    Outcome::Run(r) => Some(r),
                    _ => None,
                })
                .collect();
            let env: Vec<_> = runs.iter().map(|r| Some(flat(&r.environment))).collect();
            differing("environment", &env, &mut out);
            section(
                "job",
                &runs.iter().map(|r| r.jobs.as_slice()).collect::<Vec<_>>(),
                |j| &j.name,
                |j| serde_json::to_value(&j.job).unwrap_or_default(),
                &mut out,
            );
            section(
                "lgwr",
                &runs.iter().map(|r| r.lgwr.as_slice()).collect::<Vec<_>>(),
                |x| &x.name,
                |x| serde_json::to_value(&x.config).unwrap_or_default(),
                &mut out,
            );
            section(
                "read",
                &runs.iter().map(|r| r.reads.as_slice()).collect::<Vec<_>>(),
                |x| &x.name,
                |x| serde_json::json!({"config": x.config, "thresholds": x.thresholds}),
                &mut out,
            );
            section(
                "dbwr",
                &runs.iter().map(|r| r.dbwr.as_slice()).collect::<Vec<_>>(),
                |x| &x.name,
                |x| serde_json::to_value(&x.config).unwrap_or_default(),
                &mut out,
            );
            section(
                "load",
                &runs.iter().map(|r| r.load.as_slice()).collect::<Vec<_>>(),
                |x| &x.name,
                |x| {
                    let mut v = serde_json::to_value(&x.config).unwrap_or_default();
                    if let Some(m) = v.as_object_mut() {
                        m.insert("server.version".into(), x.server.version.clone().into());
                        for s in &x.server.settings {
                            m.insert(format!("server.{}", s.name), s.value.clone().into());
                        }
                    }
                    v
                },
                &mut out,
            );
        }
        Outcome::Trace(_) => {
            let s: Vec<_> = outcomes
                .iter()
                .map(|o| match o {
                    Outcome::Trace(t) => Some(flat(&t.settings)),
                    _ => None,
                })
                .collect();
            differing("tracefile", &s, &mut out);
        }
        Outcome::Awr(_) => {
            let s: Vec<_> = outcomes
                .iter()
                .map(|o| match o {
                    Outcome::Awr(r) => Some(flat(
                        &serde_json::json!({"kind": r.kind, "header": r.header}),
                    )),
                    _ => None,
                })
                .collect();
            differing("report", &s, &mut out);
        }
        _ => {}
    }
    out
}
