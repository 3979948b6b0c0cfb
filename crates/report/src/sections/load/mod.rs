//! Commit load on a real database (`dbio load`), with its `--compare` and `--predict`: tables, pages and findings of each.

pub mod compare_findings;
pub mod compare_html;
pub mod compare_table;
pub mod findings;
pub mod html;
pub mod predict_findings;
pub mod predict_html;
pub mod predict_table;
pub mod table;
