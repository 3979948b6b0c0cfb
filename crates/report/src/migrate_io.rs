//! Reading `bench`, `check`, `read` and `calibrate` results written before
//! schema version 3, when each command's echo became its configuration in
//! canonical units (`dbio_model::JobConfig`, `dbio_model::read::ReadConfig`):
//! durations that were seconds as floats (`runtime_s`, `warmup_s`) are
//! whole nanoseconds (`runtime_ns`, `warmup_ns`); a job's resolved `target`
//! moved from its echo to the job's result; a read state's `settings`
//! became its `config`, with the state's own `cached_pct` and the resolved
//! `target` beside it. The rewrite is on the JSON value, before it is read into
//! the model, so the model carries no field for the old names.
//!
//! A second converts to nanoseconds by rounding, as the command line does
//! (`dbio_model::units::seconds_to_ns`), so the old value comes back
//! exactly to the nanosecond.

use dbio_model::units::seconds_to_ns;
use serde_json::{Map, Value};

/// Rewrites a result of schema version 1 or 2 into version 3's names and
/// units for the raw-I/O jobs, read states and calibration; a version-3
/// result is returned as it is.
pub(crate) fn migrate(mut v: Value) -> Value {
    let version = v.get("schema_version").and_then(Value::as_u64);
    if version.is_some_and(|n| n >= 3) {
        return v;
    }
    if let Some(jobs) = v.get_mut("jobs").and_then(Value::as_array_mut) {
        for j in jobs.iter_mut().filter_map(Value::as_object_mut) {
            job(j);
        }
    }
    if let Some(reads) = v.get_mut("reads").and_then(Value::as_array_mut) {
        for r in reads.iter_mut().filter_map(Value::as_object_mut) {
            read(r);
        }
    }
    v
}

/// A read state: `settings` into `config` (`runtime_s` into ns), with
/// `cached_pct` and `target` out beside it. dbio always wrote an engine;
/// a missing one reads as psync, the engine `dbio read` defaults to.
fn read(r: &mut Map<String, Value>) {
    let Some(Value::Object(mut config)) = r.remove("settings") else {
        return;
    };
    seconds_to_ns_field(&mut config, "runtime_s", "runtime_ns");
    if config.get("engine").is_none_or(Value::is_null) {
        config.insert("engine".into(), Value::from("psync"));
    }
    for key in ["cached_pct", "target"] {
        if let Some(x) = config.remove(key) {
            r.insert(key.into(), x);
        }
    }
    r.insert("config".into(), Value::Object(config));
}

/// A raw I/O job: `job.runtime_s`, `job.warmup_s` into ns; `job.target`
/// out to the job's result.
fn job(j: &mut Map<String, Value>) {
    let mut target = None;
    if let Some(echo) = j.get_mut("job").and_then(Value::as_object_mut) {
        seconds_to_ns_field(echo, "runtime_s", "runtime_ns");
        seconds_to_ns_field(echo, "warmup_s", "warmup_ns");
        target = echo.remove("target");
    }
    j.entry("target")
        .or_insert(target.unwrap_or_else(|| Value::String(String::new())));
}

/// Replaces the seconds field `from` (a number or null) by the
/// nanoseconds field `to`.
fn seconds_to_ns_field(m: &mut Map<String, Value>, from: &str, to: &str) {
    if let Some(x) = m.remove(from) {
        let ns = x
            .as_f64()
            .map_or(Value::Null, |s| Value::from(seconds_to_ns(s)));
        m.insert(to.to_string(), ns);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn version_2_jobs_and_reads_get_nanoseconds_and_their_targets_move_out() {
        let v = migrate(json!({
            "schema_version": 2,
            "jobs": [{"name": "j", "job": {"runtime_s": 0.3, "warmup_s": 0.0, "target": "/d/f"}},
                     {"name": "k", "job": {"runtime_s": null, "warmup_s": 1.5, "target": "/d/g"}}]
        }));
        assert_eq!(
            v["jobs"][0],
            json!({"name": "j", "target": "/d/f", "job": {"runtime_ns": 300_000_000u64, "warmup_ns": 0}})
        );
        assert_eq!(
            v["jobs"][1]["job"],
            json!({"runtime_ns": null, "warmup_ns": 1_500_000_000u64})
        );
        // Version 3 is left alone.
        let v = migrate(json!({
            "schema_version": 1,
            "reads": [{"name": "cold", "settings": {"engine": null, "runtime_s": 2.5,
                       "cached_pct": 30.0, "target": "/d/f", "distribution": "zipf:1.2"}}]
        }));
        assert_eq!(
            v["reads"][0],
            json!({"name": "cold", "cached_pct": 30.0, "target": "/d/f", "config":
                   {"engine": "psync", "runtime_ns": 2_500_000_000u64, "distribution": "zipf:1.2"}})
        );
        let three = json!({"schema_version": 3, "jobs": [{"job": {"runtime_s": 1.0}}]});
        assert_eq!(migrate(three.clone()), three);
    }
}
