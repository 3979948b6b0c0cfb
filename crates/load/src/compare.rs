//! `dbio load --compare`: configurations interleaved in rounds, and the
//! settings always put back.
//!
//! Configurations run A B A B ... rather than A A B B: whatever drifts
//! during the comparison (a checkpoint, the page cache, a neighbour on
//! the machine) then falls on every configuration alike, and the
//! min–max range of each configuration's rounds is an honest run-to-run
//! range to judge a difference against (the method of `dbio lgwr
//! --compare`). Each round is a complete run ([`crate::run::execute`]:
//! its own table, made and dropped).
//!
//! Safety: every setting is checked ([`crate::settings::check`]) and
//! saved with its restoring statement before the first is changed; the
//! saved ones are restored whatever ends the comparison (its end, a
//! stop flag raised by SIGINT, a failed round, a lost connection, which
//! the engines answer by connecting again once). A setting that cannot
//! be restored is named with the statement that restores it.

use crate::backend::{Database, LoadError};
use crate::run::{execute_with, Outcome, Tick};
use crate::settings::{self, CompareArg, SavedSetting, Scope};
use dbio_model::load::{LoadConfig, LoadResult};
use dbio_model::load_compare::{ComparedSetting, LoadComparison, LoadRound};
use dbio_model::{Finding, Severity};
use std::sync::atomic::{AtomicBool, Ordering};

/// The most rounds.
pub const MAX_ROUNDS: u32 = 100;

/// What a comparison produced.
#[derive(Debug, Default)]
pub struct CompareOutcome {
    /// Every round's result, tagged with its configuration and round, in
    /// the order run.
    pub results: Vec<LoadResult>,
    /// The summary (without the baseline, which the caller measures).
    pub comparison: LoadComparison,
    /// Why the comparison stopped before it was done (a failed round, a
    /// setting that could not be applied).
    pub error: Option<String>,
    /// What the reader should know, as notes (server-wide changes,
    /// settings left changed).
    pub findings: Vec<Finding>,
    /// One sentence per setting left changed, with the statement that
    /// restores it: for stderr as well as the warnings.
    pub left_changed: Vec<String>,
}

/// A comparison checked and its settings saved: nothing changed yet.
#[derive(Debug)]
pub struct Prepared {
    saved: Vec<SavedSetting>,
    configs: Vec<Vec<(String, String)>>,
    labels: Vec<String>,
    rounds: u32,
}

impl Prepared {
    /// The configurations' labels, in the order they run in a round.
    pub fn labels(&self) -> &[String] {
        &self.labels
    }

    /// Some setting is changed server-wide (and must be restored).
    pub fn changes_server(&self) -> bool {
        self.saved.iter().any(|s| s.scope == Scope::Server)
    }
}

/// Checks the comparison of `args` in `rounds` rounds on `db` and saves
/// the settings it will change, with the statements that restore them.
/// `Err` is a refusal in one sentence; nothing has been changed.
pub fn prepare(
    db: &mut dyn Database,
    args: &[CompareArg],
    rounds: u32,
) -> Result<Prepared, LoadError> {
    if rounds == 0 || rounds > MAX_ROUNDS {
        return Err(LoadError::Refused(format!(
            "--rounds must be between 1 and {MAX_ROUNDS}"
        )));
    }
    let known = settings::check(db.kind(), args).map_err(LoadError::Refused)?;
    // Saving changes nothing; a refusal here leaves the server as it was.
    let mut saved: Vec<SavedSetting> = Vec::with_capacity(args.len());
    for (a, k) in args.iter().zip(&known) {
        saved.push(db.save_setting(&a.name, k.scope, &a.values)?);
    }
    let configs = settings::configurations(args);
    let labels = configs.iter().map(|c| settings::label(c)).collect();
    Ok(Prepared {
        saved,
        configs,
        labels,
        rounds,
    })
}

/// Runs a prepared comparison: every configuration in every round, then
/// every saved setting restored, whatever stopped it. `on_round` is told
/// each round's configuration and number before it starts; `tick` is
/// passed to [`crate::run::execute_with`].
pub fn run_compare(
    db: &mut dyn Database,
    cfg: &LoadConfig,
    p: &Prepared,
    stop: &AtomicBool,
    on_round: &mut dyn FnMut(&str, u32),
    tick: &dyn Fn(&Tick),
) -> CompareOutcome {
    let Prepared {
        saved,
        configs,
        labels,
        rounds,
    } = p;
    let rounds = *rounds;
    let mut out = CompareOutcome::default();
    for s in saved.iter().filter(|s| s.scope == Scope::Server) {
        out.findings.push(Finding::note(
            "load_compare.changed_server_wide",
            Severity::Notice,
            format!(
                "{} has no session form: dbio changed it server-wide for the comparison (every \
                 client of the server saw it) and restored it to {} afterwards",
                s.name, s.value
            ),
        ));
    }
    // The value each server setting has now, for the message when it
    // cannot be restored.
    let mut current: Vec<Option<String>> = vec![None; saved.len()];
    'rounds: for round in 1..=rounds {
        for (i, (config, label)) in configs.iter().zip(labels.iter()).enumerate() {
            if stop.load(Ordering::Relaxed) {
                break 'rounds;
            }
            for (j, (name, value)) in config.iter().enumerate() {
                // Unknown while the change is under way (it may have
                // reached the server when the connection broke).
                current[j] = None;
                if let Err(e) = db.change_setting(name, value, saved[j].scope) {
                    out.error = Some(format!("{name} could not be set to {value}: {e}"));
                    break 'rounds;
                }
                if saved[j].scope == Scope::Server {
                    current[j] = Some(value.clone());
                }
            }
            on_round(label, round);
            match execute_with(db, cfg, &format!("{label} #{round}"), stop, tick) {
                Ok(Outcome {
                    mut result,
                    error,
                    mut findings,
                }) => {
                    // The engine's echo shows its own value of a session
                    // setting; the sessions ran with the round's.
                    for ((name, value), sv) in config.iter().zip(saved) {
                        if sv.scope != Scope::Session {
                            continue;
                        }
                        let set = &mut result.server.settings;
                        match set.iter_mut().find(|x| &x.name == name) {
                            Some(x) => x.value = value.clone(),
                            None => set.push(dbio_model::load::Setting {
                                name: name.clone(),
                                value: value.clone(),
                            }),
                        }
                    }
                    result.round = Some(LoadRound {
                        config: label.clone(),
                        index: i as u32 + 1,
                        round,
                    });
                    out.results.push(result);
                    out.findings.append(&mut findings);
                    if let Some(e) = error {
                        out.error = Some(format!("{label}, round {round}: {e}"));
                        break 'rounds;
                    }
                }
                // Stopped before the sessions ran: nothing measured.
                Err(_) if stop.load(Ordering::Relaxed) => break 'rounds,
                Err(e) => {
                    out.error = Some(format!("{label}, round {round}: {e}"));
                    break 'rounds;
                }
            }
        }
    }
    let (compared, left) = restore_all(db, saved, &current);
    out.comparison = LoadComparison {
        rounds,
        settings: compared,
        configs: LoadComparison::summarize(labels, &out.results),
        baseline: None,
    };
    out.findings.extend(left.iter().map(|l| {
        Finding::note(
            "load_compare.setting_left_changed",
            Severity::Warning,
            l.clone(),
        )
    }));
    out.left_changed = left;
    out
}

/// Restores every saved setting, in reverse order; what was restored,
/// and one sentence per setting left changed.
fn restore_all(
    db: &mut dyn Database,
    saved: &[SavedSetting],
    current: &[Option<String>],
) -> (Vec<ComparedSetting>, Vec<String>) {
    let mut left = Vec::new();
    let mut compared: Vec<ComparedSetting> = saved
        .iter()
        .map(|s| ComparedSetting {
            name: s.name.clone(),
            scope: s.scope.to_string(),
            original: s.value.clone(),
            restored: true,
        })
        .collect();
    for (i, s) in saved.iter().enumerate().rev() {
        if let Err(e) = db.restore_setting(s) {
            compared[i].restored = false;
            let now = current[i].as_deref().map_or_else(
                || "may be left changed".to_string(),
                |v| format!("is left at {v}"),
            );
            left.push(format!(
                "{} {now} on {} (it was {}): dbio could not restore it ({e}); restore \
                 it with: {}",
                s.name,
                db.display_target(),
                s.value,
                s.restore
            ));
        }
    }
    (compared, left)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::settings::parse_compare;
    use crate::sqlite::SqliteDb;

    #[test]
    fn sqlite_synchronous_is_compared_in_interleaved_rounds_and_put_back() {
        let d = tempfile::tempdir().unwrap();
        let mut db = SqliteDb::create(d.path(), false).unwrap();
        let cfg = LoadConfig {
            sessions: 1,
            commits_per_session: Some(20),
            runtime_ns: None,
            ..LoadConfig::default()
        };
        let args = [parse_compare("synchronous=FULL,OFF").unwrap()];
        let mut seen = Vec::new();
        let p = prepare(&mut db, &args, 2).unwrap();
        let out = run_compare(
            &mut db,
            &cfg,
            &p,
            &AtomicBool::new(false),
            &mut |l, r| seen.push(format!("{l}#{r}")),
            &|_| {},
        );
        assert!(out.error.is_none(), "{:?}", out.error);
        assert_eq!(
            seen,
            [
                "synchronous=FULL#1",
                "synchronous=OFF#1",
                "synchronous=FULL#2",
                "synchronous=OFF#2"
            ]
        );
        assert_eq!(out.results.len(), 4);
        // synchronous=OFF never syncs the WAL; FULL syncs at every commit.
        for r in &out.results {
            let syncs = r.flush.flushes.unwrap();
            let off = r.round.as_ref().unwrap().config.ends_with("OFF");
            // The echo is the sessions' value.
            let echo = r.server.settings.iter().find(|s| s.name == "synchronous");
            assert_eq!(
                echo.unwrap().value,
                if off { "OFF" } else { "FULL" },
                "{:?}",
                r.server.settings
            );
            assert!(
                if off { syncs == 0 } else { syncs >= 20 },
                "{syncs} {:?}",
                r.round
            );
        }
        let c = &out.comparison;
        assert_eq!(c.configs.len(), 2);
        assert_eq!(c.configs[1].rounds, 2);
        assert_eq!(c.settings[0].original, "FULL");
        assert!(c.settings[0].restored);
        assert!(out.left_changed.is_empty());
    }

    /// A server whose sessions commit at once, whose second value of a
    /// setting fails to apply, and whose restore fails as when it went
    /// away for good.
    struct Gone {
        log: Vec<String>,
    }
    struct Instant;
    impl crate::Session for Instant {
        fn insert_autocommit(&mut self, _: u64) -> Result<(), LoadError> {
            Ok(())
        }
        fn begin(&mut self) -> Result<(), LoadError> {
            Ok(())
        }
        fn insert(&mut self, _: u64) -> Result<(), LoadError> {
            Ok(())
        }
        fn commit(&mut self) -> Result<(), LoadError> {
            Ok(())
        }
        fn backend_pid(&self) -> Option<u32> {
            None
        }
    }
    impl Database for Gone {
        fn kind(&self) -> crate::DbKind {
            crate::DbKind::Mysql
        }
        fn display_target(&self) -> String {
            "mysql://dbio@db1:3306/x".into()
        }
        fn describe(&mut self) -> Result<crate::ServerInfo, LoadError> {
            Ok(Default::default())
        }
        fn create_table(&mut self, _: &crate::TableSpec) -> Result<(), LoadError> {
            Ok(())
        }
        fn drop_table(&mut self, _: &crate::TableSpec) -> Result<(), LoadError> {
            Ok(())
        }
        fn connect(&self, _: &crate::TableSpec) -> Result<Box<dyn crate::Session>, LoadError> {
            Ok(Box::new(Instant))
        }
        fn counters(&mut self) -> Result<Vec<crate::Counter>, LoadError> {
            Ok(Vec::new())
        }
        fn flush_path(&self, _: &[crate::Counter], _: &[crate::Counter]) -> crate::FlushPath {
            Default::default()
        }
        fn sample_waits(&mut self) -> Result<Vec<crate::WaitSample>, LoadError> {
            Ok(Vec::new())
        }
        fn save_setting(
            &mut self,
            name: &str,
            scope: Scope,
            _: &[String],
        ) -> Result<SavedSetting, LoadError> {
            Ok(SavedSetting {
                name: name.into(),
                value: "1".into(),
                scope,
                restore: format!("SET GLOBAL {name} = 1"),
            })
        }
        fn change_setting(&mut self, name: &str, value: &str, _: Scope) -> Result<(), LoadError> {
            self.log.push(format!("{name}={value}"));
            if value == "0" {
                return Err(LoadError::Lost("server closed the connection".into()));
            }
            Ok(())
        }
        fn restore_setting(&mut self, s: &SavedSetting) -> Result<(), LoadError> {
            self.log.push(format!("restore {}", s.name));
            Err(LoadError::Connect {
                target: self.display_target(),
                message: "Connection refused".into(),
            })
        }
    }

    #[test]
    fn a_failed_round_still_restores_and_an_unrestorable_setting_is_named_with_its_fix() {
        let mut db = Gone { log: Vec::new() };
        let cfg = LoadConfig {
            sessions: 1,
            commits_per_session: Some(5),
            runtime_ns: None,
            ..LoadConfig::default()
        };
        let args = [parse_compare("sync_binlog=1,0").unwrap()];
        let p = prepare(&mut db, &args, 3).unwrap();
        assert!(p.changes_server());
        let out = run_compare(
            &mut db,
            &cfg,
            &p,
            &AtomicBool::new(false),
            &mut |_, _| {},
            &|_| {},
        );
        // The first configuration ran; the second could not be applied:
        // the comparison stops there and the restore is tried all the same.
        assert_eq!(
            db.log,
            ["sync_binlog=1", "sync_binlog=0", "restore sync_binlog"]
        );
        assert_eq!(out.results.len(), 1);
        let e = out.error.unwrap();
        assert!(e.contains("sync_binlog could not be set to 0"), "{e}");
        assert!(!out.comparison.settings[0].restored);
        let left = &out.left_changed;
        assert_eq!(left.len(), 1);
        // Which setting, at which value, where, and the statement to run.
        let s = &left[0];
        assert!(
            s.starts_with("sync_binlog may be left changed on mysql://dbio@db1:3306/x (it was 1)"),
            "{s}"
        );
        assert!(
            s.ends_with("restore it with: SET GLOBAL sync_binlog = 1"),
            "{s}"
        );
        assert!(!s.contains('\n'));
        assert!(out.findings.iter().any(|f| &f.text == s));
    }

    #[test]
    fn an_unknown_setting_is_refused_before_anything_runs() {
        let d = tempfile::tempdir().unwrap();
        let mut db = SqliteDb::create(d.path(), false).unwrap();
        let args = [parse_compare("journal_mode=WAL,DELETE").unwrap()];
        let e = prepare(&mut db, &args, 3).unwrap_err();
        assert!(e.to_string().contains("cannot compare journal_mode"), "{e}");
        assert!(prepare(&mut db, &[], 0)
            .unwrap_err()
            .to_string()
            .contains("--rounds"));
    }
}
