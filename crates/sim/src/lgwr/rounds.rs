//! Several log-writer configurations run in interleaved rounds (A B A B
//! ...) into one report: the log groups they share are prepared once and
//! reused, each configuration's runs are merged into one result, and a
//! signal or an I/O error stops the rounds with what was measured kept as
//! a partial result.
//!
//! Why here: `dbio lgwr --compare` and the commit section of `dbio check`
//! run the same rounds, and which log files a run may reuse (a
//! pre-written group, never a fallocated or appended one) is the model's
//! knowledge, not the command line's.

use super::run::run_shown;
use super::{check, LgwrRun, LogGroup, Measured};
use anyhow::Context;
use dbio_engine::runner::MakeProgress;
use dbio_model::{Prepare, RunReport};
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

/// Log groups kept between runs: a pre-written group is reused by every
/// configuration of the same shape; fallocated or appended files are fresh
/// for every run (their first writes are what they measure).
#[derive(Default)]
struct Groups(Vec<LogGroup>, Vec<String>);

impl Groups {
    fn for_config(
        &mut self,
        cfg: &LgwrRun,
        stop: &AtomicBool,
    ) -> anyhow::Result<Option<&mut LogGroup>> {
        if !cfg.real_io() {
            return Ok(None);
        }
        self.0.retain(|g| g.prepare == Prepare::Prewrite || !g.used);
        let i = match self.0.iter().position(|g| g.fits(cfg)) {
            Some(i) => i,
            None => {
                let g = LogGroup::prepare(cfg, stop).context("preparing the log files")?;
                // For the report's warnings.
                self.1.extend(g.notices());
                self.0.push(g);
                self.0.len() - 1
            }
        };
        Ok(Some(&mut self.0[i]))
    }
}

/// Adds to `report` the warnings of the log groups made so far and one
/// result per configuration that ran at least once.
fn add_results(
    report: &mut RunReport,
    configs: &[(String, LgwrRun)],
    acc: &[Option<Measured>],
    done: &[u32],
    notices: &[String],
) {
    for w in notices.iter().map(dbio_engine::target::scratch_note) {
        if !report.findings.contains(&w) {
            report.findings.push(w);
        }
    }
    for ((name, cfg), (m, &n)) in configs.iter().zip(acc.iter().zip(done)) {
        if let Some(m) = m {
            report.lgwr.push(m.summarize(name, cfg, n));
        }
    }
}

/// How a run of rounds is stopped, kept and shown.
pub struct Hooks<'a> {
    /// The stop flag signals raise.
    pub stop: &'a Arc<AtomicBool>,
    /// The signal that arrived, if one did.
    pub signal: &'a dyn Fn() -> Option<&'static str>,
    /// Gets the results so far after each run (what a later SIGKILL
    /// would lose).
    pub save: &'a dyn Fn(&RunReport),
    /// A progress display for each run, by its label (the configuration's
    /// name, and the round when there are several).
    pub progress: &'a MakeProgress<'a>,
}

/// Runs named configurations in `rounds` interleaved rounds. Stops early
/// on a signal or an I/O error and marks the report partial.
pub fn run_all(
    configs: &[(String, LgwrRun)],
    rounds: u32,
    hooks: &Hooks<'_>,
    report: &mut RunReport,
) -> anyhow::Result<()> {
    let Hooks {
        stop, signal, save, ..
    } = *hooks;
    for (_, c) in configs {
        check(c)?;
    }
    let mut groups = Groups::default();
    let mut acc: Vec<Option<Measured>> = vec![None; configs.len()];
    let mut done = vec![0u32; configs.len()];
    'rounds: for r in 0..rounds {
        for (i, (name, cfg)) in configs.iter().enumerate() {
            let group = match groups.for_config(cfg, stop) {
                Ok(g) => g,
                Err(e) => {
                    if report.stopped_by(signal()) {
                        break 'rounds;
                    }
                    // What earlier runs measured is kept: a partial result.
                    if done.iter().any(|&n| n > 0) {
                        report.io_error(format!("{e:#}"));
                        break 'rounds;
                    }
                    return Err(e);
                }
            };
            let label = if rounds > 1 {
                format!("{name} {}/{rounds}", r + 1)
            } else {
                name.clone()
            };
            let bar = (hooks.progress)(&label);
            let out = run_shown(cfg, group, stop, &*bar);
            drop(bar);
            let out = match out {
                Ok(out) => out,
                Err(e) if done.iter().any(|&n| n > 0) => {
                    report.io_error(format!("{e:#}"));
                    break 'rounds;
                }
                Err(e) => return Err(e.into()),
            };
            done[i] += 1;
            match &mut acc[i] {
                Some(m) => m.merge(&out.measured),
                slot => *slot = Some(out.measured),
            }
            if report.stopped_by(signal()) {
                break 'rounds;
            }
            if let Some(e) = out.error {
                report.io_error(e);
                break 'rounds;
            }
            let mut so_far = report.clone();
            add_results(&mut so_far, configs, &acc, &done, &groups.1);
            save(&so_far);
        }
    }
    add_results(report, configs, &acc, &done, &groups.1);
    Ok(())
}

/// Opens each log directory of the run once (`--compare ...+dir=` may
/// name several): every probe and file of a configuration is then made
/// relative to that descriptor, never by looking the path up again.
pub fn open_dirs(configs: &mut [(String, LgwrRun)]) -> Result<(), dbio_engine::EngineError> {
    let mut opened: Vec<dbio_engine::scratch::ScratchDir> = Vec::new();
    for (_, c) in configs.iter_mut().filter(|(_, c)| c.real_io()) {
        let d = match opened.iter().find(|d| d.path() == c.dir) {
            Some(d) => d.clone(),
            None => {
                let d = dbio_engine::scratch::ScratchDir::open(&c.dir)?;
                opened.push(d.clone());
                d
            }
        };
        c.scratch = Some(d);
    }
    Ok(())
}
