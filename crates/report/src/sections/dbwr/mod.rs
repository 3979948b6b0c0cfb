//! The database writers (`dbio dbwr`): table, page, findings and compared figures.

pub mod compare;
pub mod findings;
pub mod html;
pub mod table;
pub mod verdict;

use super::named_runs::NamedRuns;
use dbio_model::dbwr::DbwrResult;

/// The dbwr section.
pub(crate) static DBWR: NamedRuns<DbwrResult> = NamedRuns {
    key: "dbwr",
    of: |r| &r.dbwr,
    name: |x| &x.name,
    table: table::render,
    html: html::section,
    rules: findings::RULES,
    verdict: verdict::verdict,
    metrics: compare::metrics,
    settings: |x| serde_json::to_value(&x.config).unwrap_or_default(),
    page_rank: 2,
    comparison_rank: 3,
};
