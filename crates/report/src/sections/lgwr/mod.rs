//! The log writer (`dbio lgwr`, `check`'s commit tests): table, page and findings.

pub mod findings;
pub mod html;
pub mod table;
