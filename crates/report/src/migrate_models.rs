//! Reading `lgwr` and `dbwr` results written before schema version 3.
//!
//! Up to version 2 each of the two models echoed its configuration
//! through a separate, hand-copied struct with its own units; from
//! version 3 the result holds the configuration itself
//! (`dbio_model::lgwr::LgwrConfig`, `dbio_model::dbwr::DbwrConfig`), in
//! nanoseconds and bytes. This moves an older result's fields to where
//! version 3 keeps them, so that `dbio report --from` renders it as it
//! rendered then:
//!
//! * lgwr: `config.runtime_s` (seconds) becomes `config.runtime_ns`;
//!   `config.null_delay_ns` is null unless `config.engine` was `null`
//!   (version 3 derives the engine from the method and the delay);
//!   `config.target` and `config.rounds` move up into the entry; the seed,
//!   which older results did not record, is set to the default 0x5eed
//!   (24301) that every run without `--seed` used.
//! * dbwr: `config.checkpoint_interval_s` becomes `checkpoint_interval_ns`;
//!   `config.block_size` and `config.target` move up into the entry;
//!   `config.runtime_ns` and `config.ops`, which older results did not
//!   record, are null.

// The seed every `dbio lgwr` run used unless `--seed` was given.
use dbio_model::DEFAULT_SEED;
use serde_json::{Map, Value};

/// Rewrites the `lgwr` and `dbwr` entries of a version 1 or 2 result `v`
/// in place into their version 3 form. Entries already in that form (or
/// not objects) are left as they are.
pub(crate) fn lgwr_dbwr_to_v3(v: &mut Value) {
    for entry in entries(v, "lgwr") {
        lgwr_entry(entry);
    }
    for entry in entries(v, "dbwr") {
        dbwr_entry(entry);
    }
}

/// The object entries of the array `section` of `v`.
fn entries<'a>(
    v: &'a mut Value,
    section: &str,
) -> impl Iterator<Item = &'a mut Map<String, Value>> {
    v.get_mut(section)
        .and_then(Value::as_array_mut)
        .into_iter()
        .flatten()
        .filter_map(Value::as_object_mut)
}

/// Seconds (a JSON number) as whole nanoseconds; null stays null.
fn seconds_to_ns(s: Option<Value>) -> Value {
    match s.as_ref().and_then(Value::as_f64) {
        Some(s) if s.is_finite() && s >= 0.0 => Value::from((s * 1e9).round() as u64),
        _ => Value::Null,
    }
}

/// Moves `key` of the entry's `config` up into the entry itself.
fn hoist(entry: &mut Map<String, Value>, key: &str) {
    let moved = entry
        .get_mut("config")
        .and_then(Value::as_object_mut)
        .and_then(|c| c.remove(key));
    if let Some(x) = moved {
        entry.insert(key.to_string(), x);
    }
}

fn lgwr_entry(entry: &mut Map<String, Value>) {
    hoist(entry, "target");
    hoist(entry, "rounds");
    let Some(c) = entry.get_mut("config").and_then(Value::as_object_mut) else {
        return;
    };
    if c.contains_key("runtime_s") {
        let ns = seconds_to_ns(c.remove("runtime_s"));
        c.insert("runtime_ns".into(), ns);
    }
    if let Some(engine) = c.remove("engine") {
        if engine.as_str() != Some("null") {
            c.insert("null_delay_ns".into(), Value::Null);
        }
    }
    c.entry("seed").or_insert(Value::from(DEFAULT_SEED));
    c.entry("session_cpus").or_insert(Value::Array(Vec::new()));
    c.entry("post_spin_ns").or_insert(Value::from(0u64));
}

fn dbwr_entry(entry: &mut Map<String, Value>) {
    hoist(entry, "target");
    hoist(entry, "block_size");
    let Some(c) = entry.get_mut("config").and_then(Value::as_object_mut) else {
        return;
    };
    if c.contains_key("checkpoint_interval_s") {
        let ns = seconds_to_ns(c.remove("checkpoint_interval_s"));
        c.insert("checkpoint_interval_ns".into(), ns);
    }
    c.entry("runtime_ns").or_insert(Value::Null);
    c.entry("ops").or_insert(Value::Null);
}

#[cfg(test)]
mod tests {
    use super::*;
    use dbio_model::dbwr::{DbwrResult, Placement};
    use dbio_model::lgwr::{LgwrResult, Method, RedoSize};
    use dbio_model::EngineKind;
    use serde_json::json;

    /// A whole version 3 entry of `section` whose config is `config`.
    fn entry<T: Default + serde::Serialize>(section: &str, config: Value) -> Value {
        let mut e = serde_json::to_value(T::default()).unwrap();
        let o = e.as_object_mut().unwrap();
        for k in ["target", "rounds", "block_size"] {
            o.remove(k);
        }
        o.insert("config".into(), config);
        json!({ section: [e] })
    }

    #[test]
    fn a_version_2_lgwr_entry_reads_as_version_3() {
        let mut v = entry::<LgwrResult>(
            "lgwr",
            json!({
                "sessions": 3, "commits_per_session": null, "runtime_s": 0.2,
                "redo_size": "uniform:512-8192", "think_time_ns": 0,
                "log_buffer_bytes": 16777216, "max_write_bytes": 1048576,
                "block_size": 512, "method": "buffered-fsync", "engine": "psync",
                "null_delay_ns": 0, "files": 3, "file_size": 67108864, "members": 1,
                "prepare": "fallocate", "async_depth": 1, "commit_delay_ns": 0,
                "commit_siblings": 5, "writer_cpu": null, "session_cpus": [],
                "writer_nice": null, "writer_fifo": null, "post_spin_ns": 5000,
                "target": "/data/redo", "rounds": 2
            }),
        );
        lgwr_dbwr_to_v3(&mut v);
        let x: LgwrResult =
            serde_json::from_value(v["lgwr"][0].take()).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(x.config.runtime_ns, Some(200_000_000));
        assert_eq!(
            x.config.null_delay_ns, None,
            "a psync run injected no delay"
        );
        assert_eq!(x.config.redo_size, RedoSize::Uniform(512, 8192));
        assert_eq!(x.config.method, Method::BufferedFsync);
        assert_eq!(x.config.engine(), EngineKind::Psync);
        assert_eq!(x.config.seed, DEFAULT_SEED);
        assert_eq!((x.target.as_str(), x.rounds), ("/data/redo", 2));
    }

    #[test]
    fn a_null_engine_lgwr_entry_keeps_its_delay() {
        let mut v = json!({"lgwr": [{"config": {"engine": "null", "null_delay_ns": 20000, "runtime_s": null}}]});
        lgwr_dbwr_to_v3(&mut v);
        let c = &v["lgwr"][0]["config"];
        assert_eq!(c["null_delay_ns"], json!(20000));
        assert_eq!(c["runtime_ns"], Value::Null);
        assert!(c.get("engine").is_none());
        // Fields the first lgwr results did not have yet.
        assert_eq!(c["session_cpus"], json!([]));
        assert_eq!(c["post_spin_ns"], 0);
        assert_eq!(c["seed"], DEFAULT_SEED);
    }

    #[test]
    fn a_version_2_dbwr_entry_reads_as_version_3() {
        let mut v = entry::<DbwrResult>(
            "dbwr",
            json!({
                "buffers": 256, "lists": 4, "writers": 1, "foregrounds": 4,
                "dirty_pct": 25.0, "batch_max": 64, "scan_depth_pct": 40,
                "block_size": 8192, "datafile_bytes": 8388608, "engine": "null",
                "direct": false, "null_delay_ns": 0, "rate_ops": null,
                "checkpoint_interval_s": 0.05, "placement": "set:0-1", "seed": 24301,
                "target": ""
            }),
        );
        lgwr_dbwr_to_v3(&mut v);
        let d: DbwrResult =
            serde_json::from_value(v["dbwr"][0].take()).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(d.config.checkpoint_interval_ns, Some(50_000_000));
        assert_eq!(d.config.placement, Placement::Set(vec![0, 1]));
        assert_eq!((d.config.runtime_ns, d.config.ops_limit), (None, None));
        assert_eq!(d.block_size, 8192);
    }
}
