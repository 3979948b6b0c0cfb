//! dbio: the database I/O lab. The binary is glue: parse the command line,
//! validate, run a library, render the result model.
//!
//! Exit status: 0 success; 1 the run stopped early (signal or I/O error)
//! and the result is partial, or a result file could not be written after
//! measuring (the table is printed all the same); 2 an error before
//! anything was measured (bad options, refused target or output file, an
//! input that is not a regular file or is larger than its cap), or when
//! memory ran out: an allocation that fails ends the process with one
//! sentence on standard error and status 2 (`dbio_input::alloc`), never
//! with Rust's abort.

use dbio_cli as cli;
mod build_info;
mod commands;
mod inputs;
mod output;
mod progress;
mod run_context;
mod say;
mod signals;

use cli::Command;
use std::process::ExitCode;

/// Allocation failure is one sentence and status 2, not an abort.
#[global_allocator]
static ALLOCATOR: dbio_input::alloc::OneSentence = dbio_input::alloc::OneSentence;

/// clap's message for a command line it refused, as the one line every
/// other error gets: "dbio: error: &lt;sentence&gt;; try 'dbio CMD --help'".
/// clap's own form spans several paragraphs (message, tips, usage, a
/// pointer to --help); the message's lines and the tips are kept, joined.
fn usage_error(e: &clap::Error, args: &[std::ffi::OsString]) -> String {
    let text = e.render().to_string();
    let mut parts: Vec<String> = Vec::new();
    for para in text.split("\n\n") {
        let line = para
            .lines()
            .map(str::trim)
            .filter(|l| !l.is_empty())
            .collect::<Vec<_>>()
            .join(" ");
        if line.starts_with("Usage:") || line.starts_with("For more information") {
            continue;
        }
        let line = line.strip_prefix("error: ").unwrap_or(&line);
        match line.strip_prefix("tip: ") {
            Some(tip) => parts.push(format!("({tip})")),
            None if !line.is_empty() => parts.push(line.to_string()),
            None => {}
        }
    }
    // The subcommand named on the command line, if any, for the hint.
    let cmd = cli::command();
    let sub = args
        .iter()
        .skip(1)
        .find(|a| !a.to_string_lossy().starts_with('-'))
        .and_then(|a| cmd.find_subcommand(a))
        .map(|c| format!(" {}", c.get_name()))
        .unwrap_or_default();
    format!(
        "dbio: error: {}; try 'dbio{sub} --help'",
        parts.join(" ").trim_end_matches('.')
    )
}

fn main() -> ExitCode {
    let args: Vec<std::ffi::OsString> = std::env::args_os().collect();
    let long_version: &'static str = Box::leak(build_info::long_version().into_boxed_str());
    let cli = match cli::parse(&args, long_version) {
        Ok(cli) => {
            for notice in cli::renamed::notices(&args) {
                say::line(&notice);
            }
            cli
        }
        Err(e) => {
            use clap::error::ErrorKind::*;
            if matches!(
                e.kind(),
                DisplayHelp | DisplayVersion | DisplayHelpOnMissingArgumentOrSubcommand
            ) {
                // Help and version are what was asked for, not errors.
                e.exit();
            }
            say::line(&usage_error(&e, &args));
            return ExitCode::from(2);
        }
    };
    let result = match cli.command {
        Command::Check(a) => commands::check::run(a),
        Command::Bench(a) => commands::bench::run(a),
        Command::Lgwr(a) => commands::lgwr::run(a),
        Command::Read(a) => commands::read::run(a),
        Command::Calibrate(a) => commands::calibrate::run(a),
        Command::Matrix(a) => commands::matrix::run(a),
        Command::Dbwr(a) => commands::dbwr::run(a),
        Command::Load(a) => commands::load::run(a),
        Command::Report(a) => commands::report::run(a),
        Command::Compare(a) => commands::compare::run(a),
        Command::Tracefile(a) => commands::tracefile::run(a),
        Command::Awr(a) => commands::awr::run(a),
        Command::Snap(a) => commands::snap::run(a),
        Command::Watch(a) => commands::watch::run(a),
        Command::Merge(a) => commands::merge::run(a),
        Command::Generate(a) => commands::generate::run(a),
        Command::Version(a) => commands::version::run(a),
    };
    match result {
        Ok(code) => code,
        Err(e) => {
            say::line(&format!("dbio: error: {e:#}"));
            ExitCode::from(2)
        }
    }
}
