//! `dbio matrix`: the ORION-style load matrix, or with `--max-latency`
//! CALIBRATE_IO's search, on one target. The grid, the search and the
//! point measurement are `dbio_sim::matrix`'s, and so is the run on its
//! prepared target (`dbio_sim::matrix::session`); this file turns the
//! arguments into the configuration and writes the result (and ORION's
//! CSV files).

use crate::cli::matrix::LargePatternArg;
use crate::cli::MatrixArgs;
use crate::run_context::{new_report, RunContext};
use dbio_engine::blockdev::BlockDevicePolicy;
use dbio_engine::stripe::StripePlan;
use dbio_engine::JobTarget;
use dbio_model::matrix::{LargePattern, MatrixConfig};
use dbio_model::units::seconds_to_ns;
use dbio_model::EngineKind;
use dbio_output::Sink;
use dbio_sim::matrix::{self, default_ladders, parse_ladder, session};
use std::process::ExitCode;

/// Default bytes the I/Os spread over.
const DEFAULT_SIZE: u64 = 1 << 30;

/// Default measured time per point, seconds.
const DEFAULT_RUNTIME_S: f64 = 2.0;

/// The one place the arguments become the configuration.
fn config(a: &MatrixArgs) -> anyhow::Result<MatrixConfig> {
    // A stripe's ladders are sized to its first member's device.
    let nr_requests = dbio_engine::sysinfo::disk_of(first_path(a))
        .and_then(|(sys, part)| dbio_engine::sysinfo::block_device(&sys, part).nr_requests);
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get() as u32);
    let (small, large, mut source) = default_ladders(nr_requests, cores);
    let small = match &a.small {
        Some(s) => parse_ladder("--small", s).map_err(anyhow::Error::msg)?,
        None => small,
    };
    let large = match &a.large {
        Some(s) => parse_ladder("--large", s).map_err(anyhow::Error::msg)?,
        None => large,
    };
    if a.small.is_some() && a.large.is_some() {
        source = "given".into();
    }
    let engine: EngineKind = a.engine.engine.into();
    if a.null_delay.null_delay.is_some() && engine != EngineKind::Null {
        anyhow::bail!("--null-delay applies to --engine null only");
    }
    let c = MatrixConfig {
        engine,
        small_ladder: small,
        large_ladder: large,
        ladder_source: source,
        write_pct: a.write_pct,
        large_pattern: match a.large_pattern {
            LargePatternArg::Seq => LargePattern::Sequential,
            LargePatternArg::Rand => LargePattern::Random,
        },
        runtime_ns: seconds_to_ns(a.runtime.or(DEFAULT_RUNTIME_S)),
        warmup_ns: seconds_to_ns(a.warmup.warmup),
        size: a.target.size.size.unwrap_or(DEFAULT_SIZE),
        max_latency_ns: a.max_latency,
        null_delay_ns: a.null_delay.ns().unwrap_or(0),
        seed: a.seed.seed,
        ..MatrixConfig::default()
    };
    matrix::validate(&c).map_err(anyhow::Error::msg)?;
    Ok(c)
}

/// The target, or a stripe's first member.
fn first_path(a: &MatrixArgs) -> &std::path::Path {
    a.stripe.targets.first().unwrap_or(&a.target.path)
}

/// A stripe's plan (None without `--targets`), checked on the job with the
/// largest I/O the ladders run (the stripe unit must hold it whole), and
/// the configuration's size made the stripe's logical size.
fn stripe_plan(
    a: &MatrixArgs,
    cfg: &mut MatrixConfig,
    place: &JobTarget,
) -> anyhow::Result<Option<StripePlan>> {
    let most_large = cfg.large_ladder.iter().copied().max().unwrap_or(0);
    let most_small = cfg.small_ladder.iter().copied().max().unwrap_or(0);
    let (probe, what, one) = if most_large > 0 {
        (
            matrix::large_job(cfg, most_large),
            "the large I/O",
            "a large I/O",
        )
    } else {
        (
            matrix::small_job(cfg, most_small),
            "the small I/O",
            "a small I/O",
        )
    };
    let Some(plan) = super::stripe::plan(&a.stripe, &probe, place, what, one)? else {
        return Ok(None);
    };
    cfg.size = plan.map.logical_size();
    matrix::validate(cfg).map_err(anyhow::Error::msg)?;
    Ok(Some(plan))
}

/// ORION's three files, opened (and checked) before anything is measured:
/// each is created relative to one descriptor of the directory (opened by
/// `dbio_engine::resolve`'s rules), and a file or link already there under
/// an ORION name is replaced, never followed.
fn orion_sinks(a: &MatrixArgs) -> anyhow::Result<Option<[(String, Sink); 3]>> {
    let Some(dir) = &a.orion_csv else {
        return Ok(None);
    };
    let name = &a.orion_name;
    if name.is_empty() || name.contains('/') || name.starts_with('.') {
        anyhow::bail!("--orion-name must be a plain file-name prefix, not '{name}'");
    }
    let fd = dbio_engine::resolve::open_dir(dir).map_err(|e| {
        use dbio_engine::resolve::DirError;
        match e {
            DirError::Os(rustix::io::Errno::NOENT | rustix::io::Errno::NOTDIR) => anyhow::anyhow!(
                "--orion-csv {} is not a directory; name an existing directory for the ORION files",
                dir.display()
            ),
            DirError::Os(e) => anyhow::anyhow!(
                "--orion-csv {} cannot be opened: {}",
                dir.display(),
                std::io::Error::from(e)
            ),
            DirError::Refused(why) => anyhow::anyhow!("--orion-csv {}: {why}", dir.display()),
        }
    })?;
    let open = |suffix: &str| -> anyhow::Result<(String, Sink)> {
        let file = format!("{name}_{suffix}.csv");
        let shown = dir.join(&file).display().to_string();
        let fd = rustix::io::fcntl_dupfd_cloexec(&fd, 3)?;
        let (sink, _) = Sink::at(&shown, fd, std::ffi::OsStr::new(&file))?;
        Ok((shown, sink))
    };
    Ok(Some([open("iops")?, open("mbps")?, open("lat")?]))
}

/// Runs `dbio matrix`.
pub fn run(a: MatrixArgs) -> anyhow::Result<ExitCode> {
    a.stripe.check().map_err(anyhow::Error::msg)?;
    let mut cfg = config(&a)?;
    let place = JobTarget {
        path: first_path(&a).to_path_buf(),
        overwrite: a.overwrite.overwrite,
        block_device: if a.block_device.allow_block_device {
            BlockDevicePolicy::Allowed
        } else {
            BlockDevicePolicy::NeedsFlag
        },
        keep: a.keep.keep,
    };
    // Every job of both ladders is checked before the target is touched.
    matrix::resolve_jobs(&cfg, &place)?;
    let plan = stripe_plan(&a, &mut cfg, &place)?;
    let outputs = crate::output::Outputs::for_run(&a.output)?;
    let orion = orion_sinks(&a)?;
    let ctx = RunContext::new(outputs, a.output.quiet)?;
    let mut report = new_report("matrix", &a.target.path);
    super::fleet::begin(&a.fleet, ctx.stop_flag(), &mut report)?;
    let targets = match session::prepare_targets(&cfg, &place, plan.as_ref(), ctx.stop_flag()) {
        Ok(ts) => ts,
        Err(_) if ctx.interrupted(&mut report) => return Ok(ctx.finish(&report)),
        Err(e) => return Err(e.into()),
    };
    session::adopt(&mut report, &targets);
    let quiet = a.output.quiet;
    let at = session::At {
        place: &place,
        targets: &targets,
        plan: plan.as_ref(),
        stop: ctx.stop_flag(),
        signal: &|| ctx.signal(),
        progress: &|label| Box::new(crate::progress::Bar::new(label, quiet)),
    };
    session::run(cfg, &at, &mut report)?;
    let mut code = ctx.finish(&report);
    if let (Some(sinks), Some(m)) = (orion, &report.matrix) {
        let texts = dbio_report::sections::matrix::table::orion_csv(m);
        for ((shown, sink), text) in sinks.iter().zip(texts) {
            if let Err(e) = sink.write(text.as_bytes()) {
                crate::say::line(&format!(
                    "dbio: error: cannot write the ORION table '{shown}': {e}"
                ));
                code = ExitCode::from(1);
            }
        }
    }
    drop(targets);
    Ok(code)
}
