//! The log writer (`dbio lgwr`, `check`'s commit tests): table, page, findings and compared figures.

pub mod compare;
pub mod findings;
pub mod html;
pub mod table;
pub mod verdict;

use super::named_runs::NamedRuns;
use dbio_model::lgwr::LgwrResult;

/// The lgwr section.
pub(crate) static LGWR: NamedRuns<LgwrResult> = NamedRuns {
    key: "lgwr",
    of: |r| &r.lgwr,
    name: |x| &x.name,
    table: table::render,
    html: html::section,
    rules: findings::RULES,
    verdict: verdict::verdict,
    metrics: compare::metrics,
    settings: |x| serde_json::to_value(&x.config).unwrap_or_default(),
    page_rank: 1,
    comparison_rank: 1,
};
