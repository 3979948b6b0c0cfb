//! `dbio load --predict`: the log-writer model run on the same storage,
//! with the same sessions, the database's protocol and sync method and
//! the CPU per commit measured during the real run, so that the result
//! shows how far the database is from what its storage and CPU allow.
//!
//! Two stages. [`plan`] runs before anything is measured: it reads the
//! engine's settings, maps them onto the model
//! ([`dbio_load::predict::shape`]), picks the directory (`--predict-dir`,
//! else the database's log directory when the server runs on this
//! machine and dbio can create a file there, SQLite's `--dir`, else the
//! current directory, and says which) and checks the model's options and
//! that directory, so a bad combination fails with one sentence and exit
//! status 2 before the load starts. `dbio_load::predict_run::predict`
//! runs after the load: it takes the measured CPU per commit (the server
//! backends' on the model's sessions, the client's on a client thread per
//! session, so that every commit also makes the round trip a database
//! client makes) and log bytes per commit, runs the model once for the
//! same run time or commit count, and puts the two side by side.

use crate::cli::LoadArgs;
use dbio_load::predict::{check_writable, shape};
use dbio_load::predict_run::{model_config, Plan};
use dbio_load::{Database, DbKind};
use dbio_model::load::LoadConfig;
use dbio_sim::lgwr::{self as model, LgwrRun};
use std::path::PathBuf;

fn settings(db: &mut dyn Database) -> anyhow::Result<Vec<(String, String)>> {
    Ok(db.describe()?.settings)
}

/// The directory and why, before the run.
fn choose_dir(a: &LoadArgs, db: &mut dyn Database) -> anyhow::Result<(PathBuf, String)> {
    if let Some(d) = &a.predict_dir {
        check_writable(d).map_err(|e| anyhow::anyhow!("--predict-dir: {e}"))?;
        return Ok((d.clone(), "--predict-dir".into()));
    }
    if db.kind() == DbKind::Sqlite {
        check_writable(&a.dir).map_err(|e| anyhow::anyhow!("--predict: {e}"))?;
        return Ok((a.dir.clone(), "SQLite's database directory (--dir)".into()));
    }
    let why_not = match db.log_location() {
        None => "the server did not say where its log is (PostgreSQL shows data_directory \
                 only to superusers and pg_read_all_settings)"
            .to_string(),
        Some(loc) if !loc.is_local() => format!(
            "the server's {} is not on this machine (or its data directory {} could not be \
             confirmed)",
            loc.what,
            loc.data_dir.display()
        ),
        Some(loc) => match check_writable(&loc.dir) {
            Ok(()) => {
                return Ok((
                    loc.dir.clone(),
                    format!("{}, on the same storage as the database's log", loc.what),
                ))
            }
            Err(e) => format!("{}: {e}", loc.what),
        },
    };
    let here = PathBuf::from(".");
    check_writable(&here)
        .map_err(|e| anyhow::anyhow!("--predict: {e} (and {why_not}); give --predict-dir DIR"))?;
    Ok((
        here,
        format!("the current directory, not the database's storage: {why_not}"),
    ))
}

/// Everything `--predict` can check before the load: the directory, the
/// model's options there (O_DIRECT support, free space for its log
/// files). The error is one sentence.
pub fn plan(a: &LoadArgs, cfg: &LoadConfig, db: &mut dyn Database) -> anyhow::Result<Plan> {
    let settings = settings(db)?;
    let shape = shape(db.kind(), &settings, cfg.sessions);
    let (dir, reason) = choose_dir(a, db)?;
    let run = LgwrRun {
        config: model_config(cfg, &shape, 512, (0, 0)),
        dir: dir.clone(),
        ..LgwrRun::default()
    };
    model::check(&run).map_err(|e| anyhow::anyhow!("--predict in {}: {e}", dir.display()))?;
    Ok(Plan { dir, reason, shape })
}
