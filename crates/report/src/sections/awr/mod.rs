//! AWR and Statspack reports, their comparison and trend (`dbio awr`): tables, pages and findings.

pub mod compare;
pub mod csv;
pub mod db_time;
pub mod difference;
pub mod findings;
pub mod html;
pub mod html_trace;
pub mod table;
pub mod trend;
pub mod trend_outliers;
pub mod trend_verdict;
pub mod verdict;
