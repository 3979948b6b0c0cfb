//! The settings that differ between the inputs: each input's environment,
//! each measurement section's configurations (`Section::settings`), a
//! trace's settings, a report's kind and header.

use crate::kit::settings::{differing, flat, flat_environment};
use dbio_model::compare::SettingDifference;
use dbio_model::Outcome;

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
            let env: Vec<_> = runs
                .iter()
                .map(|r| Some(flat_environment(&r.environment)))
                .collect();
            differing("environment", &env, &mut out);
            for s in crate::sections::in_comparison_order() {
                s.settings(&runs, &mut out);
            }
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
