//! The settings that differ between compared inputs, found by walking each
//! input's environment and each aligned entry's configuration as JSON.
//!
//! Left out, because they change from run to run by themselves and say
//! nothing about the set-up: the load average, page-cache residency,
//! dbio's own temporary target names and seeds, and `keep`. The
//! environment's target is kept (`flat_environment`): it is the one the
//! user named.

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

/// The leaves of a run's environment that say where and on what it ran:
/// every one but the load average and the page-cache residency. The
/// target is kept here (two runs on different targets differ, the
/// first thing a comparison must say), a target on no block device
/// (tmpfs) has the device `none (not on a block device)`, and the
/// target, filesystem and device come first.
pub(crate) fn flat_environment(env: &dbio_model::Environment) -> Vec<(String, String)> {
    let Ok(mut v) = serde_json::to_value(env) else {
        return Vec::new();
    };
    if let Some(m) = v.as_object_mut() {
        if m.get("device").is_some_and(Value::is_null) {
            m.insert(
                "device".into(),
                serde_json::json!({"name": "none (not on a block device)"}),
            );
        }
    }
    let mut out = Vec::new();
    leaves(&v, &mut String::new(), &mut out);
    out.retain(|(p, _)| !matches!(p.split('.').next(), Some("loadavg" | "cached_before")));
    // Where it ran first: the target, its filesystem, its device.
    let rank = |p: &str| match p {
        "target" => 0,
        "fs_type" => 1,
        "mount_point" => 2,
        "device.name" => 3,
        p if p.starts_with("device.") => 4,
        _ => 5,
    };
    out.sort_by_key(|(p, _)| rank(p));
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

#[cfg(test)]
mod environment_tests {
    use super::*;
    use dbio_model::{BlockDevice, Environment};

    /// Two lgwr runs, one on ext4 on vda, one on tmpfs: the target, the
    /// filesystem and the device differ, in that order; the load average
    /// does not count. The same environment but the target: the target.
    #[test]
    fn the_target_filesystem_and_device_are_listed_first_when_they_differ() {
        let a = Environment {
            target: "/u01/redo".into(),
            fs_type: "ext4".into(),
            mount_point: "/".into(),
            loadavg: [1.0, 1.0, 1.0],
            device: Some(BlockDevice {
                name: "vda".into(),
                ..Default::default()
            }),
            ..Default::default()
        };
        let b = Environment {
            target: "/dev/shm/x".into(),
            fs_type: "tmpfs".into(),
            mount_point: "/dev/shm".into(),
            loadavg: [2.0, 2.0, 2.0],
            device: None,
            ..Default::default()
        };
        let mut out = Vec::new();
        differing(
            "environment",
            &[Some(flat_environment(&a)), Some(flat_environment(&b))],
            &mut out,
        );
        let names: Vec<&str> = out.iter().map(|d| d.name.as_str()).collect();
        assert_eq!(names, ["target", "fs_type", "mount_point", "device.name"]);
        assert_eq!(
            out[3].values[1].as_deref(),
            Some("none (not on a block device)")
        );
        let mut c = a.clone();
        c.target = "/u02/redo".into();
        let mut out = Vec::new();
        differing(
            "environment",
            &[Some(flat_environment(&a)), Some(flat_environment(&c))],
            &mut out,
        );
        assert_eq!(out.len(), 1);
        assert_eq!(out[0].name, "target");
    }
}
