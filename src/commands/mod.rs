//! One module per subcommand: glue between the CLI and the libraries.

pub mod awr;
pub mod bench;
pub mod calibrate;
pub mod check;
pub mod compare;
pub mod dbwr;
pub mod fleet;
pub mod generate;
pub mod lgwr;
pub mod load;
pub mod load_compare;
pub mod load_predict;
pub mod matrix;
pub mod merge;
pub mod read;
pub mod report;
pub mod snap;
pub mod stripe;
pub mod tracefile;
pub mod version;
pub mod watch;
