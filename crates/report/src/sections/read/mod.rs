//! Datafile reads (`dbio read`, `check`'s reads): table, page, findings and compared figures.

pub mod compare;
pub mod findings;
pub mod html;
pub mod table;
pub mod verdict;

use super::named_runs::NamedRuns;
use dbio_model::read::ReadResult;

/// The read section.
pub(crate) static READ: NamedRuns<ReadResult> = NamedRuns {
    key: "read",
    of: |r| &r.reads,
    name: |x| &x.name,
    table: table::render,
    html: html::section,
    rules: findings::RULES,
    verdict: verdict::verdict,
    metrics: compare::metrics,
    settings: |x| serde_json::json!({"config": x.config, "thresholds": x.thresholds}),
    page_rank: 3,
    comparison_rank: 2,
};
