//! A live server's snapshot interval (`dbio snap`): what only a snapshot
//! has, beside the AWR rendering it shares (`sections/awr/`): how DB time
//! was sampled and what that cost, the statistics the server does not
//! track, counter resets and restarts, a cut interval, and the server's
//! own tables. The AWR table, page and rules call in here once each,
//! for a report whose `snap` is set.

pub mod findings;
pub mod html;
pub mod layers;
pub mod table;
