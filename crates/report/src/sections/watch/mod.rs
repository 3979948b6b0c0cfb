//! Live traces (`dbio watch`) with the block layer: table, page and findings.

pub mod findings;
pub mod html;
pub mod html_block;
pub mod table;
