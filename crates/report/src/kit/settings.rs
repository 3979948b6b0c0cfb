//! The settings that differ between compared inputs, found by walking each
//! input's environment and each aligned entry's configuration as JSON.
//!
//! Left out, because they change from run to run by themselves and say
//! nothing about the set-up: the load average, page-cache residency,
//! dbio's own temporary target names and seeds, and `keep`.

use dbio_model::compare::SettingDifference;
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

/// The leaves of `x` that are settings, as (path, text).
pub(crate) fn flat<T: Serialize>(x: &T) -> Vec<(String, String)> {
    let mut out = Vec::new();
    if let Ok(v) = serde_json::to_value(x) {
        leaves(&v, &mut String::new(), &mut out);
    }
    out.retain(|(p, _)| !ignored(p));
    out
}

/// The differing leaves of one scope: `per_input` holds each input's
/// leaves (None where the input has no such scope).
pub(crate) fn differing(
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
pub(crate) fn section<T: Serialize>(
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
