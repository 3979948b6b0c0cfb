//! The commit-path settings `dbio load --compare` may change, and how
//! each is changed and put back.
//!
//! dbio runs as root on servers holding real data, so a comparison may
//! touch only settings it knows how to restore, in the least invasive
//! way the database allows:
//!
//! - **session** settings are given to dbio's own session connections
//!   only (PostgreSQL: the `options` start-up parameter, `-c name=value`;
//!   SQLite: a `PRAGMA` on each connection). Nothing outside dbio sees
//!   them and nothing needs restoring.
//! - **server** settings have no session form (PostgreSQL's `sighup`
//!   parameters, MariaDB's global-only variables): they are changed with
//!   `ALTER SYSTEM` and `pg_reload_conf()`, or `SET GLOBAL`, and every
//!   other client of the server sees them while the comparison runs.
//!   The value before the comparison is saved with the statement that
//!   restores it, and that statement is run at the end, after an error,
//!   after SIGINT and after a lost connection (reconnecting once); when
//!   it cannot be run the user is told which setting is left changed
//!   and the statement to run.
//!
//! The list below is deliberately short: the settings the commit-path
//! articles and the PostgreSQL and MariaDB manuals name as deciding how
//! commits reach storage (PostgreSQL 15 "WAL Configuration", MariaDB
//! "InnoDB System Variables" and "Group Commit for the Binary Log").
//! `fsync=off` and its kin are not in it: a comparison must never risk
//! the data.

use crate::backend::DbKind;
use std::fmt;

/// How a setting is applied.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scope {
    /// On dbio's own session connections only; nothing to restore.
    Session,
    /// Server-wide (`ALTER SYSTEM` + reload, `SET GLOBAL`): seen by
    /// every client until restored.
    Server,
}

impl fmt::Display for Scope {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Scope::Session => "session",
            Scope::Server => "server",
        })
    }
}

/// Which values a setting takes (checked before anything is changed;
/// only such values ever reach SQL text).
#[derive(Debug, Clone, Copy)]
enum Values {
    /// One of these words (case-insensitive).
    OneOf(&'static [&'static str]),
    /// A non-negative integer at most this large.
    UpTo(u64),
    /// A non-negative integer, optionally with one of these unit
    /// suffixes (PostgreSQL's `200ms`, `1MB`).
    WithUnit(&'static [&'static str]),
}

/// One setting a comparison may change.
#[derive(Debug, Clone, Copy)]
pub struct Known {
    /// The engine it belongs to.
    pub kind: DbKind,
    /// Its name as the engine spells it.
    pub name: &'static str,
    /// How it is applied.
    pub scope: Scope,
    values: Values,
}

const PG_SYNC: &[&str] = &["on", "off", "local", "remote_write", "remote_apply"];
const PG_METHODS: &[&str] = &[
    "fsync",
    "fdatasync",
    "open_sync",
    "open_datasync",
    "fsync_writethrough",
];
const SQLITE_SYNC: &[&str] = &["off", "normal", "full", "extra", "0", "1", "2", "3"];

/// Every setting `--compare` accepts.
pub const KNOWN: &[Known] = &[
    Known {
        kind: DbKind::Postgres,
        name: "synchronous_commit",
        scope: Scope::Session,
        values: Values::OneOf(PG_SYNC),
    },
    // PGC_SUSET: a session may set it when the user is a superuser.
    Known {
        kind: DbKind::Postgres,
        name: "commit_delay",
        scope: Scope::Session,
        values: Values::UpTo(100_000),
    },
    Known {
        kind: DbKind::Postgres,
        name: "commit_siblings",
        scope: Scope::Session,
        values: Values::UpTo(1000),
    },
    Known {
        kind: DbKind::Postgres,
        name: "wal_sync_method",
        scope: Scope::Server,
        values: Values::OneOf(PG_METHODS),
    },
    Known {
        kind: DbKind::Postgres,
        name: "wal_writer_delay",
        scope: Scope::Server,
        values: Values::WithUnit(&["", "ms", "s"]),
    },
    Known {
        kind: DbKind::Postgres,
        name: "wal_writer_flush_after",
        scope: Scope::Server,
        values: Values::WithUnit(&["", "kB", "MB"]),
    },
    Known {
        kind: DbKind::Mysql,
        name: "innodb_flush_log_at_trx_commit",
        scope: Scope::Server,
        values: Values::UpTo(3),
    },
    Known {
        kind: DbKind::Mysql,
        name: "sync_binlog",
        scope: Scope::Server,
        values: Values::UpTo(u32::MAX as u64),
    },
    Known {
        kind: DbKind::Mysql,
        name: "binlog_commit_wait_count",
        scope: Scope::Server,
        values: Values::UpTo(u32::MAX as u64),
    },
    Known {
        kind: DbKind::Mysql,
        name: "binlog_commit_wait_usec",
        scope: Scope::Server,
        values: Values::UpTo(u32::MAX as u64),
    },
    Known {
        kind: DbKind::Sqlite,
        name: "synchronous",
        scope: Scope::Session,
        values: Values::OneOf(SQLITE_SYNC),
    },
];

/// The most configurations one comparison may have.
pub const MAX_CONFIGS: usize = 16;

/// One `--compare SETTING=V1,V2` as typed, checked for shape only (the
/// engine is known later).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CompareArg {
    /// The setting's name.
    pub name: String,
    /// Its values, in the order given.
    pub values: Vec<String>,
}

/// Parses `SETTING=V1,V2[,..]`; the error is one sentence.
pub fn parse_compare(s: &str) -> Result<CompareArg, String> {
    let Some((name, values)) = s.split_once('=') else {
        return Err(format!(
            "--compare {s:?} is not SETTING=V1,V2 (e.g. synchronous_commit=on,off)"
        ));
    };
    let name = name.trim().to_ascii_lowercase();
    let values: Vec<String> = values.split(',').map(|v| v.trim().to_string()).collect();
    if name.is_empty() || values.iter().any(String::is_empty) {
        return Err(format!(
            "--compare {s:?} is not SETTING=V1,V2 (e.g. synchronous_commit=on,off)"
        ));
    }
    if values.len() < 2 {
        return Err(format!(
            "--compare {name} needs at least two values to compare (e.g. {name}={},...)",
            values[0]
        ));
    }
    for (i, v) in values.iter().enumerate() {
        if values[..i].iter().any(|w| w.eq_ignore_ascii_case(v)) {
            return Err(format!("--compare {name} names the value {v} twice"));
        }
    }
    Ok(CompareArg { name, values })
}

/// The settings `--compare` accepts for `kind`, for messages.
pub fn known_names(kind: DbKind) -> Vec<&'static str> {
    KNOWN
        .iter()
        .filter(|k| k.kind == kind)
        .map(|k| k.name)
        .collect()
}

/// Checks the `--compare` arguments against the engine: every setting
/// known and restorable, every value valid, at most [`MAX_CONFIGS`]
/// configurations. The error is one sentence, given before anything is
/// changed.
pub fn check(kind: DbKind, args: &[CompareArg]) -> Result<Vec<&'static Known>, String> {
    let mut out = Vec::with_capacity(args.len());
    for (i, a) in args.iter().enumerate() {
        if args[..i].iter().any(|b| b.name == a.name) {
            return Err(format!(
                "--compare {} is given twice: list all its values in one --compare",
                a.name
            ));
        }
        let Some(k) = KNOWN.iter().find(|k| k.kind == kind && k.name == a.name) else {
            return Err(format!(
                "dbio cannot compare {} on {kind}: it changes only settings it knows how to \
                 restore ({})",
                a.name,
                known_names(kind).join(", ")
            ));
        };
        for v in &a.values {
            if !valid(k.values, v) {
                return Err(format!(
                    "{} cannot be {v:?}: {}",
                    k.name,
                    describe_values(k.values)
                ));
            }
        }
        out.push(k);
    }
    let n: usize = args.iter().map(|a| a.values.len()).product();
    if n > MAX_CONFIGS {
        return Err(format!(
            "--compare makes {n} configurations (every combination of the values): at most \
             {MAX_CONFIGS}"
        ));
    }
    Ok(out)
}

fn valid(values: Values, v: &str) -> bool {
    match values {
        Values::OneOf(words) => words.iter().any(|w| w.eq_ignore_ascii_case(v)),
        Values::UpTo(max) => v.parse::<u64>().is_ok_and(|n| n <= max),
        Values::WithUnit(units) => {
            let digits = v.bytes().take_while(u8::is_ascii_digit).count();
            digits > 0 && digits <= 10 && units.iter().any(|u| v[digits..] == **u)
        }
    }
}

fn describe_values(values: Values) -> String {
    match values {
        Values::OneOf(words) => format!("it takes {}", words.join(", ")),
        Values::UpTo(max) => format!("it takes a whole number from 0 to {max}"),
        Values::WithUnit(units) => format!(
            "it takes a whole number with {}",
            units
                .iter()
                .map(|u| if u.is_empty() { "no unit" } else { u })
                .collect::<Vec<_>>()
                .join(", ")
        ),
    }
}

/// Every combination of the values, the first setting varying slowest:
/// `a=1,2` and `b=x,y` give `a=1 b=x`, `a=1 b=y`, `a=2 b=x`, `a=2 b=y`.
pub fn configurations(args: &[CompareArg]) -> Vec<Vec<(String, String)>> {
    let mut out: Vec<Vec<(String, String)>> = vec![Vec::new()];
    for a in args {
        out = out
            .into_iter()
            .flat_map(|prefix| {
                a.values.iter().map(move |v| {
                    let mut c = prefix.clone();
                    c.push((a.name.clone(), v.clone()));
                    c
                })
            })
            .collect();
    }
    out
}

/// A configuration's label: `synchronous_commit=off commit_delay=1000`.
pub fn label(config: &[(String, String)]) -> String {
    config
        .iter()
        .map(|(n, v)| format!("{n}={v}"))
        .collect::<Vec<_>>()
        .join(" ")
}

/// A server setting as it was before the comparison changed it, with
/// the statement that puts it back (shown to the user verbatim when
/// dbio cannot run it).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SavedSetting {
    /// The setting's name.
    pub name: String,
    /// Its value before, as the server showed it.
    pub value: String,
    /// How it was applied.
    pub scope: Scope,
    /// SQL that restores it (empty for session settings, which need
    /// no restoring).
    pub restore: String,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn compare_arguments_are_parsed_and_checked_in_one_sentence() {
        let a = parse_compare("synchronous_commit=on,off").unwrap();
        assert_eq!(a.values, ["on", "off"]);
        for (bad, want) in [
            ("synchronous_commit", "SETTING=V1,V2"),
            ("synchronous_commit=on", "at least two values"),
            ("synchronous_commit=on,,off", "SETTING=V1,V2"),
            ("synchronous_commit=on,ON", "twice"),
        ] {
            let e = parse_compare(bad).unwrap_err();
            assert!(e.contains(want), "{bad}: {e}");
            assert!(!e.contains('\n'));
        }
        let pg = DbKind::Postgres;
        let e = check(pg, &[parse_compare("fsync=on,off").unwrap()]).unwrap_err();
        assert!(e.contains("cannot compare fsync"), "{e}");
        assert!(e.contains("synchronous_commit"), "{e}");
        let e = check(pg, &[parse_compare("commit_delay=0,1000000").unwrap()]).unwrap_err();
        assert!(e.contains("0 to 100000"), "{e}");
        // Only words and digits reach SQL.
        let e = check(pg, &[parse_compare("synchronous_commit=on,'off'").unwrap()]).unwrap_err();
        assert!(e.contains("cannot be"), "{e}");
        let e = check(
            pg,
            &[parse_compare("wal_writer_delay=10ms,1;drop").unwrap()],
        )
        .unwrap_err();
        assert!(e.contains("wal_writer_delay"), "{e}");
        assert!(check(pg, &[parse_compare("wal_writer_delay=10ms,200").unwrap()]).is_ok());
        // The same name on another engine is unknown there.
        let e = check(
            DbKind::Mysql,
            &[parse_compare("synchronous_commit=on,off").unwrap()],
        )
        .unwrap_err();
        assert!(e.contains("innodb_flush_log_at_trx_commit"), "{e}");
        let many: Vec<CompareArg> = ["commit_delay=0,1,2,3", "commit_siblings=0,1,2,3,4"]
            .iter()
            .map(|s| parse_compare(s).unwrap())
            .collect();
        assert!(check(pg, &many).unwrap_err().contains("20 configurations"));
    }

    #[test]
    fn configurations_are_every_combination_first_setting_slowest() {
        let args = [
            parse_compare("a=1,2").unwrap(),
            parse_compare("b=x,y").unwrap(),
        ];
        let c: Vec<String> = configurations(&args).iter().map(|c| label(c)).collect();
        assert_eq!(c, ["a=1 b=x", "a=1 b=y", "a=2 b=x", "a=2 b=y"]);
    }
}
