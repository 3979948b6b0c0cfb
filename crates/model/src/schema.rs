//! The JSON Schema of a result, generated from this crate's types.
//!
//! `docs/result-schema.json` is this function's output, committed so that
//! a reader (or a script in another language) has the contract without
//! building dbio; a test compares the two, so the file cannot drift from
//! the types. The schema describes what a result *is when written*
//! (schemars' serialize contract): a field that serde leaves out when
//! empty is optional, every other one is required. Reading is more
//! lenient than the schema (older versions migrate, defaults fill what
//! older writers left out): that is `dbio_report::from_json`'s business.
//!
//! Every description in the schema is the `///` comment of the type or
//! field it describes.

use crate::awr::{AwrComparison, AwrReport, AwrTrend};
use crate::compare::Comparison;
use crate::outcome::{
    AWR_COMMAND, AWR_COMPARISON_COMMAND, AWR_TREND_COMMAND, COMPARE_COMMAND, TRACE_COMMAND,
    TRACE_COMPARISON_COMMAND,
};
use crate::trace::{TraceComparison, TraceReport};
use crate::{Outcome, RunReport, SCHEMA_VERSION};
use schemars::generate::SchemaSettings;
use schemars::{json_schema, JsonSchema, Schema, SchemaGenerator};
use std::borrow::Cow;

/// The JSON Schema (draft 2020-12) of every result dbio writes, an
/// [`Outcome`] of [`SCHEMA_VERSION`].
pub fn result_schema() -> Schema {
    let mut schema = SchemaSettings::draft2020_12()
        .for_serialize()
        .into_generator()
        .into_root_schema_for::<Outcome>();
    schema.insert(
        "title".into(),
        format!("dbio result, schema version {SCHEMA_VERSION}").into(),
    );
    schema
}

/// A result of a kind other than a run: its own fields, and a `command`
/// naming the kind in front of them.
fn tagged<T: JsonSchema>(g: &mut SchemaGenerator, command: &str) -> Schema {
    let result = g.subschema_for::<T>();
    json_schema!({
        "allOf": [
            {
                "type": "object",
                "properties": {"command": {"const": command}},
                "required": ["command"]
            },
            result
        ]
    })
}

/// By hand, because [`Outcome`]'s `Serialize` is: a run is its report
/// (whose own `command` names the measuring command), any other kind is
/// its result with a `command` naming the kind.
impl JsonSchema for Outcome {
    fn schema_name() -> Cow<'static, str> {
        "Outcome".into()
    }

    fn json_schema(g: &mut SchemaGenerator) -> Schema {
        json_schema!({
            "description": "What one dbio command produced: a measurement's run report, \
                or another kind of result named by its `command`.",
            "oneOf": [
                g.subschema_for::<RunReport>(),
                tagged::<TraceReport>(g, TRACE_COMMAND),
                tagged::<TraceComparison>(g, TRACE_COMPARISON_COMMAND),
                tagged::<AwrReport>(g, AWR_COMMAND),
                tagged::<AwrComparison>(g, AWR_COMPARISON_COMMAND),
                tagged::<Comparison>(g, COMPARE_COMMAND),
                tagged::<AwrTrend>(g, AWR_TREND_COMMAND),
            ]
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `docs/result-schema.json` is [`result_schema`]'s output; with
    /// `DBIO_UPDATE_SCHEMA=1` this test writes it instead of comparing.
    #[test]
    fn the_committed_schema_is_the_generated_one() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/result-schema.json");
        let generated = serde_json::to_string_pretty(&result_schema()).unwrap() + "\n";
        if std::env::var_os("DBIO_UPDATE_SCHEMA").is_some() {
            std::fs::write(path, &generated).unwrap();
            return;
        }
        let committed = std::fs::read_to_string(path).unwrap_or_default();
        assert!(
            committed == generated,
            "docs/result-schema.json is not the schema of the model's types; \
             regenerate it with `DBIO_UPDATE_SCHEMA=1 cargo test -p dbio-model schema` \
             and commit it"
        );
    }
}
