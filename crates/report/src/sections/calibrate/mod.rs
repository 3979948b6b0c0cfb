//! The tier calibration (`dbio calibrate`): table, page and findings.

pub mod findings;
pub mod html;
pub mod table;
