//! The ORION-style load matrix (`dbio matrix`): table, page and findings.

pub mod findings;
pub mod html;
pub mod table;
