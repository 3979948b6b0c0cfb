//! One module per subcommand: glue between the CLI and the libraries.

pub mod tracefile;
