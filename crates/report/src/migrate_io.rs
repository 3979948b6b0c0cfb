//! Reading `bench`, `check`, `read` and `calibrate` results written before
//! schema version 3, when each command's echo became its configuration in
//! canonical units (`dbio_model::JobConfig`): durations that were seconds
//! as floats (`runtime_s`, `warmup_s`) are whole nanoseconds (`runtime_ns`,
//! `warmup_ns`), and a job's resolved `target` moved from its echo to the
//! job's result. The rewrite is on the JSON value, before it is read into
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
    v
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
    fn a_version_2_job_gets_nanoseconds_and_its_target_moves_out() {
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
        let three = json!({"schema_version": 3, "jobs": [{"job": {"runtime_s": 1.0}}]});
        assert_eq!(migrate(three.clone()), three);
    }
}
