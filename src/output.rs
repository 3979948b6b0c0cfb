//! Where results go: the table on standard output, and the `--json`,
//! `--csv` and `--html` destinations. Every command's output files, and
//! `calibrate --save`, are written here and nowhere else, each rendered by
//! its exporter (`dbio_report::export`) from the one top-level result,
//! through a [`Sink`] of `dbio_output` (the directory opened safely,
//! links replaced and never followed, /proc refused, the file renamed
//! into place).
//!
//! Findings (`dbio_report::findings`) are drawn from the report here,
//! each time it is saved or printed.
//!
//! Results are saved after each job (regular files only), so an error in a
//! later job does not lose an earlier one. When saving fails after the
//! measurement, the table is still printed, one sentence names the file
//! and the OS error, and dbio exits with status 1.

use crate::cli::OutputArgs;
use anyhow::bail;
use dbio_model::{Outcome, RunReport};
use dbio_output::{Identity, Sink};
use dbio_report::Format;
use std::path::Path;

/// One requested output: where it goes and the exporter that renders it.
struct Destination {
    /// The destination as the user named it.
    name: String,
    sink: Sink,
    format: Format,
}

/// Every destination of one command (`--json`, `--csv`), opened and
/// checked: the one path by which every command's results reach a file.
pub struct Outputs {
    dests: Vec<Destination>,
    ids: Vec<Identity>,
}

impl Outputs {
    /// Opens and checks the `--json`, `--csv` and `--html` destinations;
    /// the same file twice is refused.
    pub fn open(
        json: Option<&str>,
        csv: Option<&str>,
        html: Option<&str>,
    ) -> anyhow::Result<Outputs> {
        let mut out = Outputs {
            dests: Vec::new(),
            ids: Vec::new(),
        };
        let mut flags: Vec<&str> = Vec::new();
        for (name, format, flag) in [
            (json, Format::Json, "--json"),
            (csv, Format::Csv, "--csv"),
            (html, Format::Html, "--html"),
        ] {
            let Some(name) = name else { continue };
            let (sink, id) = Sink::open(name, Path::new(name))?;
            if let Some(i) = out.ids.iter().position(|x| *x == id) {
                bail!(
                    "{} and {flag} name the same destination ('{name}'); give each its own",
                    flags[i]
                );
            }
            out.ids.push(id);
            flags.push(flag);
            out.dests.push(Destination {
                name: name.to_string(),
                sink,
                format,
            });
        }
        Ok(out)
    }

    /// Whether `id` is already the `--json` or `--csv` destination.
    pub fn names(&self, id: &Identity) -> bool {
        self.ids.contains(id)
    }

    /// The destinations of a command's [`OutputArgs`].
    pub fn for_run(o: &OutputArgs) -> anyhow::Result<Outputs> {
        Self::open(o.json.as_deref(), o.csv.as_deref(), o.html.as_deref())
    }

    fn stdout_taken(&self) -> bool {
        self.dests.iter().any(|d| matches!(d.sink, Sink::Stdout))
    }

    /// Saves a measurement's regular files only (after each step): best
    /// effort, the final [`Outputs::finish_run`] reports a failure.
    pub fn save(&self, r: &RunReport) {
        let result = with_provenance(&Outcome::Run(with_findings(r)));
        let html = html_exporter();
        for d in &self.dests {
            if let Sink::File(f) = &d.sink {
                let exporter: &dyn dbio_report::Exporter = match d.format {
                    Format::Html => &html,
                    f => f.exporter(),
                };
                if let Ok(text) = exporter.export(&result) {
                    let _ = f.replace(text.as_bytes());
                }
            }
        }
    }

    /// Writes the table (unless standard output is a destination), then
    /// every destination, each rendered by its exporter. Returns false
    /// after printing one sentence per output that could not be rendered
    /// or written.
    pub fn finish(&self, result: &Outcome) -> bool {
        let result = &with_provenance(result);
        let mut ok = true;
        let html = html_exporter();
        let mut put = |format: Format, name: Option<&str>, sink: &Sink| {
            let exporter: &dyn dbio_report::Exporter = match format {
                Format::Html => &html,
                f => f.exporter(),
            };
            let written = exporter
                .export(result)
                .map_err(|e| e.to_string())
                .and_then(|text| sink.write(text.as_bytes()).map_err(|e| e.to_string()));
            if let Err(e) = written {
                match name {
                    Some(n) => crate::say::line(&format!(
                        "dbio: error: cannot write results to '{n}': {e}"
                    )),
                    None => crate::say::line(&format!(
                        "dbio: error: cannot write the table to standard output: {e}"
                    )),
                }
                ok = false;
            }
        };
        if !self.stdout_taken() {
            put(Format::Table, None, &Sink::Stdout);
        }
        for d in &self.dests {
            put(d.format, Some(&d.name), &d.sink);
        }
        ok
    }

    /// Writes every requested output of a measurement, with its findings;
    /// false when a destination could not be written (the exit status is
    /// the run context's).
    pub fn finish_run(&self, r: &RunReport) -> bool {
        self.finish(&Outcome::Run(with_findings(r)))
    }
}

/// The HTML exporter: it takes the command line from the result
/// ([`with_provenance`] records it).
fn html_exporter() -> dbio_report::HtmlExporter {
    dbio_report::HtmlExporter::default()
}

/// This process's command line as the result model records it: words
/// with shell quoting, any password in a database URL or `password=`
/// keyword replaced by `***` (the same redaction `dbio load` applies to
/// its target). None for `dbio report`, which re-renders a saved result
/// and keeps the command line that result recorded.
fn invocation() -> Option<String> {
    let args: Vec<String> = std::env::args_os()
        .map(|a| a.to_string_lossy().into_owned())
        .collect();
    if args.get(1).is_some_and(|a| a == "report") {
        return None;
    }
    Some(shell_words(&redacted(&args)))
}

/// `args` with passwords redacted; words that hold none stay as typed.
fn redacted(args: &[String]) -> Vec<String> {
    args.iter()
        .map(|a| {
            if a.contains("://") || a.to_ascii_lowercase().contains("password") {
                dbio_load::target::redact(a)
            } else {
                a.clone()
            }
        })
        .collect()
}

/// The result with this process's command line and build recorded,
/// unless it holds them already (a saved result re-rendered keeps what
/// its writer recorded, or lacks it as it did).
fn with_provenance(result: &Outcome) -> Outcome {
    let mut r = result.clone();
    let Some(inv) = invocation() else {
        return r;
    };
    let (invocation, build) = match &mut r {
        Outcome::Run(x) => (&mut x.invocation, &mut x.build),
        Outcome::Trace(x) => (&mut x.invocation, &mut x.build),
        Outcome::TraceComparison(x) => (&mut x.invocation, &mut x.build),
        Outcome::Awr(x) => (&mut x.invocation, &mut x.build),
        Outcome::AwrComparison(x) => (&mut x.invocation, &mut x.build),
        Outcome::Comparison(x) => (&mut x.invocation, &mut x.build),
        Outcome::AwrTrend(x) => (&mut x.invocation, &mut x.build),
    };
    if invocation.is_none() {
        *invocation = Some(inv);
    }
    if build.is_none() {
        *build = Some(crate::build_info::current().clone());
    }
    r
}

/// A command line as a shell would take it back: words with anything
/// beyond `[A-Za-z0-9_./:=,+-]` single-quoted.
fn shell_words(args: &[String]) -> String {
    args.iter()
        .map(|a| {
            let plain = !a.is_empty()
                && a.chars()
                    .all(|c| c.is_ascii_alphanumeric() || "_./:=,+-@%".contains(c));
            if plain {
                a.clone()
            } else {
                format!("'{}'", a.replace('\'', "'\\''"))
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// The report with its findings drawn from what it holds now: every
/// measuring command's result passes through here, so the table, JSON and
/// CSV carry the same findings, and a save after each step carries those
/// of the steps that ran. The commands themselves write no conclusions,
/// only notes of what they noticed while running ([`Finding::note`]):
/// those follow the drawn findings.
///
/// [`Finding::note`]: dbio_model::Finding::note
fn with_findings(r: &RunReport) -> RunReport {
    let mut r = r.clone();
    dbio_report::verdict::conclude_run(&mut r);
    r
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_recorded_command_line_hides_passwords_and_quotes_words() {
        let args: Vec<String> = [
            "dbio",
            "load",
            "--target",
            "postgres://dbio:s3cret@127.0.0.1:5499/dbio",
            "--name",
            "a b",
            "host=h password=x",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        assert_eq!(
            shell_words(&redacted(&args)),
            "dbio load --target 'postgres://dbio:***@127.0.0.1:5499/dbio' --name 'a b' 'host=h password=***'"
        );
    }
}
