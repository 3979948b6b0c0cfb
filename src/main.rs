//! dbio: the database I/O lab. The binary is glue: parse, resolve, run a
//! library, render the result model.

mod commands;

use clap::{Parser, Subcommand};
use std::process::ExitCode;

/// The database I/O lab: measure storage the way databases use it.
#[derive(Debug, Parser)]
#[command(name = "dbio", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Analyze Oracle 10046 extended SQL trace files.
    Tracefile(commands::tracefile::TracefileArgs),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Tracefile(a) => commands::tracefile::run(a),
    };
    match result {
        Ok(code) => code,
        Err(e) => {
            eprintln!("dbio: error: {e:#}");
            ExitCode::from(2)
        }
    }
}
