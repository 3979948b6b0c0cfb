//! `dbio calibrate`: measure this machine's page-cache, storage-cache and
//! device read latencies, derive the tier thresholds and save them for
//! `dbio read --calibration` and `dbio tracefile --calibration`.

use crate::cli::CalibrateArgs;
use crate::run_context::{exit_status, new_report, RunContext};
use anyhow::Context;
use dbio_model::calibrate::{CalibrateConfig, Calibration};
use dbio_model::read::TierThresholds;
use dbio_model::units::seconds_to_ns;
use dbio_model::{Finding, Severity};
use dbio_sim::calibrate::{measure, prepare_target};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// Reads the thresholds of a calibration file: any JSON object with
/// whole-number fields `page_cache_max_ns` and `storage_cache_max_ns` (what
/// `dbio calibrate --save` writes; other fields are explanation).
pub fn load_thresholds(path: &Path) -> anyhow::Result<TierThresholds> {
    let (_, text) = crate::inputs::read_text(path, "a calibration file")?;
    let v: serde_json::Value = serde_json::from_str(&text)
        .with_context(|| format!("calibration file '{}' is not JSON", path.display()))?;
    let field = |k: &str| -> anyhow::Result<u64> {
        v.get(k).and_then(|x| x.as_u64()).with_context(|| {
            format!(
                "calibration file '{}' lacks a whole-number field '{k}'",
                path.display()
            )
        })
    };
    let t = TierThresholds {
        page_cache_max_ns: field("page_cache_max_ns")?,
        storage_cache_max_ns: field("storage_cache_max_ns")?,
        source: path.display().to_string(),
    };
    t.validate()
        .map_err(|e| anyhow::anyhow!("calibration file '{}': {e}", path.display()))?;
    Ok(t)
}

/// The default calibration file, written in the current directory.
const DEFAULT_SAVE: &str = "dbio-calibration.json";

/// The calibration's JSON text.
fn encode(c: &Calibration) -> anyhow::Result<String> {
    Ok(serde_json::to_string_pretty(c).context("encoding the calibration")? + "\n")
}

/// Where the calibration goes, opened and checked before measuring. An
/// existing default file is refused: only `--save` replaces a file.
fn save_destination(
    a: &CalibrateArgs,
    outputs: &crate::output::Outputs,
) -> anyhow::Result<Option<(String, dbio_output::Sink)>> {
    if a.no_save {
        return Ok(None);
    }
    let path = match &a.save {
        Some(p) => p.clone(),
        None => {
            let p = PathBuf::from(DEFAULT_SAVE);
            if p.symlink_metadata().is_ok() {
                anyhow::bail!(
                    "{DEFAULT_SAVE} already exists here; pass --save {DEFAULT_SAVE} to replace it, --save FILE to write another file, or --no-save"
                );
            }
            p
        }
    };
    let shown = path.display().to_string();
    let (sink, id) = dbio_output::Sink::open(&shown, &path)?;
    if outputs.names(&id) {
        anyhow::bail!(
            "--save names the same destination as --json or --csv ('{shown}'); give each its own"
        );
    }
    Ok(Some((shown, sink)))
}

/// Runs `dbio calibrate`.
pub fn run(a: CalibrateArgs) -> anyhow::Result<ExitCode> {
    let bs = a.bs.bs;
    // The one place the arguments become the configuration.
    let cfg = CalibrateConfig {
        bs,
        size: dbio_sim::read::datafile::default_size(&a.target.path, a.target.size.size)
            / bs.max(1)
            * bs,
        samples: a.samples,
        tier_time_ns: seconds_to_ns(a.runtime.or(crate::cli::calibrate::DEFAULT_RUNTIME_S)),
        ..CalibrateConfig::default()
    };
    dbio_sim::calibrate::validate(&cfg).map_err(anyhow::Error::msg)?;
    let outputs = crate::output::Outputs::for_run(&a.output)?;
    let save_to = save_destination(&a, &outputs)?;
    let ctx = RunContext::new(outputs, a.output.quiet)?;
    let stop = ctx.stop_flag().clone();
    let mut report = new_report("calibrate", &a.target.path);
    super::fleet::begin(&a.fleet, ctx.stop_flag(), &mut report)?;
    let t = match prepare_target(&a.target.path, &cfg, a.keep.keep, &stop) {
        Ok(t) => t,
        Err(_) if ctx.interrupted(&mut report) => {
            return Ok(ctx.finish(&report));
        }
        Err(e) => return Err(e.into()),
    };
    report.environment = dbio_engine::sysinfo::environment(&t.path);
    report
        .findings
        .extend(t.notices.iter().map(dbio_engine::target::scratch_note));
    let mut c = measure(&t, &cfg, &stop)?;
    ctx.interrupted(&mut report);
    if a.target.path.is_dir() {
        c.target = format!("a temporary file in {}", a.target.path.display());
    }
    if let Some(why) = &c.no_device_tier {
        report.findings.push(Finding::note(
            "calibrate.no_device_tier",
            Severity::Notice,
            why.clone(),
        ));
    }
    let mut save_error = None;
    if let (Some((shown, sink)), None) = (&save_to, &report.partial) {
        // The file records where it was saved, as the report does.
        c.saved_to = Some(shown.clone());
        if let Err(e) = sink.write(encode(&c)?.as_bytes()) {
            c.saved_to = None;
            save_error = Some(format!("cannot save the calibration to '{shown}': {e}"));
        }
    }
    report.calibration = Some(c);
    let code = ctx.finish(&report);
    if let Some(e) = save_error {
        // The measurement is printed above; only the file is missing.
        crate::say::line(&format!("dbio: error: {e}"));
        return Ok(exit_status(report.partial.is_some(), false));
    }
    Ok(code)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_saved_calibration_loads_back_and_bad_files_are_named() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("c.json");
        let c = Calibration {
            page_cache_max_ns: 12_345,
            storage_cache_max_ns: u64::MAX,
            no_device_tier: Some("tmpfs".into()),
            ..Default::default()
        };
        std::fs::write(&p, encode(&c).unwrap()).unwrap();
        let t = load_thresholds(&p).unwrap();
        assert_eq!(
            (t.page_cache_max_ns, t.storage_cache_max_ns),
            (12_345, u64::MAX)
        );
        assert!(!t.has_device_tier());
        let back: Calibration =
            serde_json::from_str(&std::fs::read_to_string(&p).unwrap()).unwrap();
        assert_eq!(back, c);
        std::fs::write(&p, r#"{"page_cache_max_ns": 5}"#).unwrap();
        let e = load_thresholds(&p).unwrap_err().to_string();
        assert!(
            e.contains("lacks a whole-number field 'storage_cache_max_ns'"),
            "{e}"
        );
        std::fs::write(&p, r#"{"page_cache_max_ns": 5, "storage_cache_max_ns": 4}"#).unwrap();
        assert!(load_thresholds(&p)
            .unwrap_err()
            .to_string()
            .contains("above"));
    }
}
