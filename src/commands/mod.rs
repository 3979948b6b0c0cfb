//! One module per subcommand: glue between the CLI and the libraries.

pub mod bench;
pub mod check;
pub mod report;
pub mod tracefile;
