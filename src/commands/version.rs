//! `dbio version [--json]`: the build, as `--version` prints it or as the
//! JSON record every result keeps in its `build` field.

use crate::cli::VersionArgs;
use std::io::Write;
use std::process::ExitCode;

/// Runs `dbio version`.
pub fn run(a: VersionArgs) -> anyhow::Result<ExitCode> {
    let b = crate::build_info::current();
    let text = if a.json {
        serde_json::to_string_pretty(b)? + "\n"
    } else {
        format!("dbio {}\n", crate::build_info::long_version())
    };
    std::io::stdout()
        .write_all(text.as_bytes())
        .map_err(|e| anyhow::anyhow!("cannot write to standard output: {e}"))?;
    Ok(ExitCode::SUCCESS)
}
