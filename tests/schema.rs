//! Saved results are what `docs/result-schema.json` says they are: every
//! result fixture in the repository validates against the committed
//! schema, the current version as saved, an older version once read back
//! (migrated) and written again. `docs.rs` checks the results of real runs
//! of every command the same way. That the committed schema is the one
//! the model's types generate is `dbio-model`'s own test.

use std::path::{Path, PathBuf};
use std::sync::LazyLock;

fn repo(path: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(path)
}

/// The committed schema, as a reader outside dbio would take it.
pub static SCHEMA: LazyLock<serde_json::Value> = LazyLock::new(|| {
    let text = std::fs::read_to_string(repo("docs/result-schema.json")).unwrap();
    serde_json::from_str(&text).unwrap()
});

static VALIDATOR: LazyLock<jsonschema::Validator> =
    LazyLock::new(|| jsonschema::validator_for(&SCHEMA).expect("a valid JSON Schema"));

/// Fails, naming `what` and every violation, unless `result` validates.
pub fn assert_valid(what: &str, result: &serde_json::Value) {
    let errors: Vec<String> = VALIDATOR
        .iter_errors(result)
        .map(|e| format!("{} at {}", e, e.instance_path()))
        .collect();
    assert!(
        errors.is_empty(),
        "{what} does not validate against docs/result-schema.json:\n{}",
        errors.join("\n")
    );
}

/// Every field name the schema declares, at any depth.
pub fn property_names() -> std::collections::BTreeSet<String> {
    fn walk(v: &serde_json::Value, out: &mut std::collections::BTreeSet<String>) {
        match v {
            serde_json::Value::Object(m) => {
                if let Some(serde_json::Value::Object(props)) = m.get("properties") {
                    out.extend(props.keys().cloned());
                }
                m.values().for_each(|x| walk(x, out));
            }
            serde_json::Value::Array(a) => a.iter().for_each(|x| walk(x, out)),
            _ => {}
        }
    }
    let mut out = std::collections::BTreeSet::new();
    walk(&SCHEMA, &mut out);
    out
}

/// Every `.json` file under `dir`, at any depth.
fn json_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            json_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "json") {
            out.push(path);
        }
    }
}

#[test]
fn every_saved_result_validates_against_the_schema() {
    let mut files = Vec::new();
    json_files(&repo("tests/fixtures"), &mut files);
    let mut older = 0;
    for file in &files {
        let text = std::fs::read_to_string(file).unwrap();
        let saved: serde_json::Value = serde_json::from_str(&text).unwrap();
        let name = file.display();
        if saved["schema_version"] == dbio_model::SCHEMA_VERSION {
            assert_valid(&name.to_string(), &saved);
        } else {
            // An older version: what `dbio report --from ... --json` writes.
            let outcome = dbio_report::from_json(&text).unwrap();
            let written = serde_json::to_value(&outcome).unwrap();
            assert_eq!(written["schema_version"], dbio_model::SCHEMA_VERSION);
            assert_valid(&format!("{name}, migrated"), &written);
            older += 1;
        }
    }
    assert!(older >= 9, "the version-2 fixtures are found: {files:?}");
}

#[test]
fn a_result_that_breaks_the_contract_does_not_validate() {
    let text = std::fs::read_to_string(repo("tests/fixtures/v2/lgwr-null.json")).unwrap();
    let mut v = serde_json::to_value(dbio_report::from_json(&text).unwrap()).unwrap();
    v["lgwr"][0]["config"]["block_size"] = "8k".into();
    assert!(!VALIDATOR.is_valid(&v), "a size is a number of bytes");
    let mut v = serde_json::to_value(dbio_report::from_json(&text).unwrap()).unwrap();
    v.as_object_mut().unwrap().remove("jobs");
    assert!(!VALIDATOR.is_valid(&v), "a run report has its jobs");
}
