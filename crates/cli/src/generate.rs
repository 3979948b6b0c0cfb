//! `dbio generate`'s flags: what to write from the command line's own
//! definitions (the man page, shell completions).

use clap::{Args, Subcommand, ValueEnum};
use std::path::PathBuf;

/// Options of `dbio generate`.
#[derive(Debug, Args)]
pub struct GenerateArgs {
    /// What to write.
    #[command(subcommand)]
    pub what: Generated,
}

/// What `dbio generate` writes.
#[derive(Debug, Subcommand)]
pub enum Generated {
    /// The man page dbio(1) in roff: every command and every flag, from
    /// the definitions --help prints. To standard output; or, with DIR,
    /// DIR/dbio.1 and one page per command (dbio-bench.1, ...).
    Man {
        /// A directory to write dbio.1 and the commands' pages in (e.g.
        /// /usr/local/share/man/man1).
        #[arg(value_name = "DIR")]
        dir: Option<PathBuf>,
    },
    /// Completions of dbio's commands, flags and values for a shell, to
    /// standard output (e.g. `dbio generate completions bash >
    /// /etc/bash_completion.d/dbio`).
    Completions {
        /// The shell.
        #[arg(value_enum)]
        shell: ShellArg,
    },
}

/// The shells `dbio generate completions` writes for.
#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum ShellArg {
    /// Bash (bash-completion).
    Bash,
    /// Zsh (compsys).
    Zsh,
    /// Fish.
    Fish,
}

impl From<ShellArg> for clap_complete::Shell {
    fn from(s: ShellArg) -> Self {
        match s {
            ShellArg::Bash => clap_complete::Shell::Bash,
            ShellArg::Zsh => clap_complete::Shell::Zsh,
            ShellArg::Fish => clap_complete::Shell::Fish,
        }
    }
}
