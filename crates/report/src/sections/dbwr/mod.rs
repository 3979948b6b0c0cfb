//! The database writers (`dbio dbwr`): table, page and findings.

pub mod findings;
pub mod html;
pub mod table;
