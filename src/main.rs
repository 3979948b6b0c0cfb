//! dbio: the database I/O lab. The binary is glue: parse the command line,
//! validate, run a library, render the result model.
//!
//! Exit status: 0 success; 1 the run stopped early (signal or I/O error)
//! and the result is partial, or a result file could not be written after
//! measuring (the table is printed all the same); 2 an error before
//! anything was measured (bad options, refused target or output file).

mod cli;
mod commands;
mod output;
mod progress;
mod session;
mod signals;

use clap::Parser;
use cli::{Cli, Command};
use std::process::ExitCode;

/// Status 1 for a partial result, 0 otherwise.
pub fn exit_code(r: &dbio_model::RunReport) -> ExitCode {
    if r.partial.is_some() {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Check(a) => commands::check::run(a),
        Command::Bench(a) => commands::bench::run(a),
        Command::Lgwr(a) => commands::lgwr::run(a),
        Command::Read(a) => commands::read::run(a),
        Command::Calibrate(a) => commands::calibrate::run(a),
        Command::Dbwr(a) => commands::dbwr::run(a),
        Command::Report(a) => commands::report::run(a),
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
