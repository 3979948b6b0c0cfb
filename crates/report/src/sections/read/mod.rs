//! Datafile reads (`dbio read`, `check`'s reads): table, page and findings.

pub mod findings;
pub mod html;
pub mod table;
