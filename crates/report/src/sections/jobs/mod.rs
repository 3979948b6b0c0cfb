//! Raw jobs (`dbio bench`, `check`'s jobs): their table, page, the fleet's parts and stripes, and merging one job run on many hosts.

pub mod fleet;
pub mod html;
pub mod merge;
pub mod table;
