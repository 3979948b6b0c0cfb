//! Where results go besides the terminal table, and whether a progress
//! bar is drawn: the same four options in every command.

use clap::Args;

/// `--json`, `--csv`, `--html`, `--quiet`.
#[derive(Debug, Clone, Args)]
pub struct OutputArgs {
    /// Write the result as JSON to FILE (`-` for standard output, instead
    /// of the table).
    #[arg(long, value_name = "FILE")]
    pub json: Option<String>,
    /// Write the result as CSV to FILE (`-` for standard output, instead of
    /// the table).
    #[arg(long, value_name = "FILE")]
    pub csv: Option<String>,
    /// Write the result as one self-contained HTML page with charts to
    /// FILE (`-` for standard output, instead of the table): no script,
    /// nothing fetched, opens offline.
    #[arg(long, value_name = "FILE")]
    pub html: Option<String>,
    /// No progress bar (it is also hidden when stderr is not a terminal).
    #[arg(long, short)]
    pub quiet: bool,
}
