//! Oracle 10046 trace analyses and their comparison (`dbio tracefile`): table, page and findings.

pub mod compare;
pub mod csv;
pub mod difference;
pub mod findings;
pub mod html;
pub mod table;
pub mod verdict;
