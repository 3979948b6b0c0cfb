//! One module per subcommand: glue between the CLI and the libraries.

pub mod awr;
pub mod bench;
pub mod calibrate;
pub mod check;
pub mod dbwr;
pub mod fleet;
pub mod lgwr;
pub mod load;
pub mod merge;
pub mod read;
pub mod report;
pub mod tracefile;
pub mod watch;
