//! Embedded SQLite: the target of `dbio load` without a server.
//!
//! It needs no server, so it is the default and a section of `dbio
//! check`: a real database engine's commit path on this storage. The
//! database (`dbio-load.sqlite`) and every file SQLite makes beside it
//! (`-wal`, `-shm`, `-journal`) live in a private directory dbio creates
//! for the run in the target directory (`dbio-load-<pid>-<random>`, mode
//! 0700, see [`crate::private_dir`]), which dbio holds open and SQLite
//! reaches only through `/proc/self/fd/N` ([`crate::vfs_shim`]): no other
//! user can plant or swap a file in it, and renaming the directories above
//! it redirects nothing. A side file dbio did not create there is refused
//! in one sentence. Afterwards dbio removes what it created and the
//! directory, unless `--keep` (the directory then stays, with the
//! database in it); a later run removes the directories of runs that were
//! killed. The database is created with `O_CREAT | O_EXCL | O_NOFOLLOW`,
//! every connection is opened without `SQLITE_OPEN_CREATE`, and the name is
//! checked to lead to dbio's inode before anything is written.
//!
//! Settings: `journal_mode=WAL` and `synchronous=FULL` (every commit
//! syncs the WAL: SQLite's durable setting in WAL mode, see "Write-Ahead
//! Logging" and "PRAGMA synchronous" in SQLite's documentation), one
//! connection per session, the default `wal_autocheckpoint` (1,000
//! pages). SQLite has one writer at a time: a session that finds the WAL
//! write lock taken polls it through the busy handler, sleeping 50 µs
//! between tries (SQLite's own `busy_timeout` sleeps 1, 2, 5, 10 ... ms,
//! which would measure the back-off rather than the storage). Only the
//! lock holder syncs, and each sync covers one transaction: SQLite has
//! no group commit, its commits per flush are 1 by construction, and
//! more sessions queue on the lock instead of sharing a flush.
//!
//! The flush path comes from dbio's VFS shim ([`crate::vfs_shim`]): the
//! commits' WAL syncs and their time, WAL bytes and write calls, and the
//! checkpoints' syncs of the WAL and of the main file, counted apart.

use crate::backend::{
    counter_delta, Counter, Database, DbKind, FlushPath, LoadError, ServerInfo, Session, TableSpec,
    WaitSample,
};
use crate::private_dir::PrivateDir;
use crate::settings::{SavedSetting, Scope};
use crate::vfs_shim::{names, Shim};
use dbio_engine::target::{MARK_XATTR, TEMP_MARK};
use rusqlite::{Connection, OpenFlags, Statement};
use rustix::fs::AtFlags;
use std::fs::File;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

/// How long a blocked writer sleeps between polls of the write lock.
const BUSY_SLEEP: Duration = Duration::from_micros(50);
/// Polls before a blocked writer gives up (about a minute of sleeps).
const BUSY_TRIES: i32 = 1_000_000;
/// The scratch database file and the shim its connections go through;
/// shared by the database value and every session, so the files are
/// removed and the shim unregistered only after the last connection
/// closed.
struct Owned {
    scratch: Scratch,
    shim: Shim,
    /// `PRAGMA synchronous` of the connections opened from now on
    /// (`--compare synchronous=...`; FULL otherwise).
    synchronous: std::sync::Mutex<String>,
}

/// The database file's name in its private directory.
const DB_NAME: &str = "dbio-load.sqlite";

/// A database file dbio created in a private directory of its own,
/// removed with the directory on drop unless kept.
struct Scratch {
    /// Held until the files are removed: closing it earlier would not
    /// matter to SQLite's locks, which are on SQLite's own descriptors.
    _anchor: File,
    dir: PrivateDir,
    /// Where the user finds it (the private directory's path).
    path: PathBuf,
    dev: u64,
    ino: u64,
}

impl Scratch {
    fn create(dir: PrivateDir, keep: bool) -> Result<Scratch, LoadError> {
        let fd = dir.create_file(DB_NAME, 0o644)?;
        let path = dir.path().join(DB_NAME);
        let st = rustix::fs::fstat(&fd).map_err(|e| {
            LoadError::Io(format!(
                "cannot inspect {}: {}",
                path.display(),
                std::io::Error::from(e)
            ))
        })?;
        // dbio's mark, as on its other files (best effort: some
        // filesystems refuse user attributes).
        let mark: &[u8] = if keep { b"1" } else { TEMP_MARK };
        let _ = rustix::fs::fsetxattr(&fd, MARK_XATTR, mark, rustix::fs::XattrFlags::empty());
        Ok(Scratch {
            _anchor: File::from(fd),
            dir,
            path,
            dev: st.st_dev,
            ino: st.st_ino,
        })
    }

    /// Refuses when the database's name no longer leads to the file dbio
    /// created (replaced since by dbio's own user: nobody else can write
    /// in the private directory).
    fn still_ours(&self) -> Result<(), LoadError> {
        match rustix::fs::statat(self.dir.fd(), DB_NAME, AtFlags::SYMLINK_NOFOLLOW) {
            Ok(st) if st.st_dev == self.dev && st.st_ino == self.ino => Ok(()),
            _ => Err(LoadError::Refused(format!(
                "{} no longer is the scratch database dbio created (replaced while dbio was opening it); nothing was written to it",
                self.path.display()
            ))),
        }
    }
}

/// Polls the write lock every [`BUSY_SLEEP`], [`BUSY_TRIES`] times.
fn busy(tries: i32) -> bool {
    if tries >= BUSY_TRIES {
        return false;
    }
    std::thread::sleep(BUSY_SLEEP);
    true
}

fn sql_err(what: &str, e: rusqlite::Error) -> LoadError {
    LoadError::Sql(format!("SQLite could not {what}: {e}"))
}

/// A connection through the shim, in WAL mode with synchronous=FULL.
fn open(owned: &Owned) -> Result<Connection, LoadError> {
    // No O_CREAT (the file is dbio's, made above); the name is the held
    // private directory's /proc/self/fd path (see vfs_shim).
    let flags = OpenFlags::SQLITE_OPEN_READ_WRITE
        | OpenFlags::SQLITE_OPEN_NO_MUTEX
        | OpenFlags::SQLITE_OPEN_NOFOLLOW;
    let refused = |e: LoadError| match owned.shim.take_refusal() {
        Some(why) => LoadError::Refused(why),
        None => e,
    };
    let c =
        Connection::open_with_flags_and_vfs(owned.shim.path_of(DB_NAME), flags, owned.shim.name())
            .map_err(|e| {
                refused(LoadError::Io(format!(
                    "SQLite cannot open {}: {e}",
                    owned.scratch.path.display()
                )))
            })?;
    // Before anything is written, the name must still lead to the file
    // dbio created.
    owned.scratch.still_ours()?;
    open_wal(owned, c).map_err(refused)
}

/// Sets up a new connection: busy handling, WAL mode, synchronous.
fn open_wal(owned: &Owned, c: Connection) -> Result<Connection, LoadError> {
    c.busy_handler(Some(busy))
        .map_err(|e| sql_err("set its busy handler", e))?;
    let mode: String = c
        .query_row("PRAGMA journal_mode=WAL", [], |r| r.get(0))
        .map_err(|e| sql_err("switch to WAL mode", e))?;
    if !mode.eq_ignore_ascii_case("wal") {
        return Err(LoadError::Sql(format!(
            "SQLite stayed in journal mode {mode} instead of WAL on {}",
            owned.scratch.path.display()
        )));
    }
    // A read opens the WAL and -shm now, so that a refused side file is
    // said when the connection opens, not in the middle of the load.
    c.query_row("SELECT count(*) FROM sqlite_master", [], |r| {
        r.get::<_, i64>(0)
    })
    .map_err(|e| sql_err("read its schema", e))?;
    let sync = owned
        .synchronous
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .clone();
    c.execute_batch(&format!("PRAGMA synchronous={sync}"))
        .map_err(|e| sql_err(&format!("set synchronous={sync}"), e))?;
    Ok(c)
}

/// Table names are dbio's own (`dbio_load_` and digits, letters, `_`);
/// anything else is refused before it reaches SQL text.
fn checked_name(t: &TableSpec) -> Result<&str, LoadError> {
    let ok = t.name.starts_with(TableSpec::PREFIX)
        && t.name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_');
    if ok && !t.mark.contains("*/") {
        Ok(&t.name)
    } else {
        Err(LoadError::Refused(format!(
            "'{}' is not a table name dbio makes",
            t.name
        )))
    }
}

/// Embedded SQLite in a scratch file.
pub struct SqliteDb {
    // Dropped first: the own connection closes before the files go. A
    // mutex only because `Database` is `Sync`: the main thread alone uses it.
    conn: std::sync::Mutex<Connection>,
    owned: Arc<Owned>,
}

impl SqliteDb {
    /// Creates the scratch database in `dir` (kept after the run when
    /// `keep`).
    pub fn create(dir: &Path, keep: bool) -> Result<SqliteDb, LoadError> {
        Self::with(PrivateDir::create(dir, keep)?, keep)
    }

    /// As [`SqliteDb::create`], in a directory the caller holds open
    /// (`dir`, named `shown` in messages): `dbio check` opens its
    /// directory once for all its sections (issue 21 §6).
    pub fn create_in(
        dir: &impl std::os::fd::AsFd,
        shown: &Path,
        keep: bool,
    ) -> Result<SqliteDb, LoadError> {
        let parent = rustix::io::fcntl_dupfd_cloexec(dir, 3).map_err(|e| {
            LoadError::Io(format!(
                "cannot use the directory {}: {}",
                shown.display(),
                std::io::Error::from(e)
            ))
        })?;
        Self::with(PrivateDir::create_in(parent, shown, keep)?, keep)
    }

    fn with(dir: PrivateDir, keep: bool) -> Result<SqliteDb, LoadError> {
        let scratch = Scratch::create(dir, keep)?;
        let shim = Shim::register(scratch.dir.fd(), &scratch.dir.path(), scratch.dir.made())
            .map_err(LoadError::Io)?;
        let owned = Arc::new(Owned {
            scratch,
            shim,
            synchronous: std::sync::Mutex::new("FULL".into()),
        });
        let conn = open(&owned)?;
        Ok(SqliteDb {
            conn: std::sync::Mutex::new(conn),
            owned,
        })
    }

    /// The scratch database file.
    pub fn path(&self) -> &Path {
        &self.owned.scratch.path
    }

    /// What the user should know about the directory (stale private
    /// directories of killed runs removed or named), once.
    pub fn take_notices(&mut self) -> Vec<String> {
        match Arc::get_mut(&mut self.owned) {
            Some(o) => o.scratch.dir.take_notices(),
            None => Vec::new(),
        }
    }

    /// The shim's counters (cumulative over every connection).
    pub fn shim_counters(&self) -> Arc<crate::vfs_shim::ShimCounters> {
        self.owned.shim.counters().clone()
    }

    fn conn(&self) -> std::sync::MutexGuard<'_, Connection> {
        self.conn.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn table_sql(&self, name: &str) -> Result<Option<String>, LoadError> {
        use rusqlite::OptionalExtension;
        self.conn()
            .query_row(
                "SELECT sql FROM sqlite_master WHERE type = 'table' AND name = ?1",
                [name],
                |r| r.get::<_, String>(0),
            )
            .optional()
            .map_err(|e| sql_err("read its schema", e))
    }
}

impl Database for SqliteDb {
    fn kind(&self) -> DbKind {
        DbKind::Sqlite
    }

    fn display_target(&self) -> String {
        format!("sqlite:{}", self.path().display())
    }

    fn describe(&mut self) -> Result<ServerInfo, LoadError> {
        let pragma = |p: &str| -> Result<String, LoadError> {
            self.conn()
                .query_row(&format!("PRAGMA {p}"), [], |r| {
                    r.get::<_, rusqlite::types::Value>(0)
                })
                .map(|v| match v {
                    rusqlite::types::Value::Integer(i) => i.to_string(),
                    rusqlite::types::Value::Text(t) => t,
                    other => format!("{other:?}"),
                })
                .map_err(|e| sql_err(&format!("read PRAGMA {p}"), e))
        };
        let sync = match pragma("synchronous")?.as_str() {
            "0" => "off".to_string(),
            "1" => "normal".to_string(),
            "2" => "full".to_string(),
            "3" => "extra".to_string(),
            v => v.to_string(),
        };
        let version = rusqlite::version().to_string();
        let num = rusqlite::version_number();
        Ok(ServerInfo {
            version,
            version_num: u32::try_from(num).unwrap_or(0),
            settings: vec![
                ("journal_mode".into(), pragma("journal_mode")?),
                ("synchronous".into(), sync),
                ("wal_autocheckpoint".into(), pragma("wal_autocheckpoint")?),
                ("page_size".into(), pragma("page_size")?),
                (
                    "busy handling".into(),
                    format!(
                        "poll the write lock every {} µs",
                        BUSY_SLEEP.as_micros()
                    ),
                ),
            ],
            missing: vec![
                "SQLite has no view of what its connections wait for: there is no wait-event sampling".into(),
            ],
        })
    }

    fn create_table(&mut self, table: &TableSpec) -> Result<(), LoadError> {
        let name = checked_name(table)?;
        if self.table_sql(name)?.is_some() {
            return Err(LoadError::Refused(format!(
                "a table named {name} already exists in {} and dbio did not create it in this run; it was left as it is",
                self.path().display()
            )));
        }
        // The mark lives in the table's own SQL text, which SQLite keeps
        // in sqlite_master as written.
        self.conn()
            .execute_batch(&format!(
                "CREATE TABLE {name} (/* {} */ id INTEGER PRIMARY KEY, payload BLOB NOT NULL)",
                table.mark
            ))
            .map_err(|e| sql_err(&format!("create the table {name}"), e))
    }

    fn drop_table(&mut self, table: &TableSpec) -> Result<(), LoadError> {
        let name = checked_name(table)?;
        match self.table_sql(name)? {
            None => Ok(()),
            Some(sql) if sql.contains(&format!("/* {} */", table.mark)) => self
                .conn()
                .execute_batch(&format!("DROP TABLE {name}"))
                .map_err(|e| sql_err(&format!("drop the table {name}"), e)),
            Some(_) => Err(LoadError::Refused(format!(
                "the table {name} in {} does not carry this run's mark; dbio did not drop it",
                self.path().display()
            ))),
        }
    }

    fn connect(&self, table: &TableSpec) -> Result<Box<dyn Session>, LoadError> {
        let name = checked_name(table)?;
        SqliteSession::new(self.owned.clone(), name, table.row_bytes as usize)
            .map(|s| Box::new(s) as Box<dyn Session>)
    }

    fn save_setting(
        &mut self,
        name: &str,
        scope: Scope,
        _values: &[String],
    ) -> Result<SavedSetting, LoadError> {
        // A pragma of dbio's own connections to its own scratch file:
        // nothing outside dbio to restore.
        let value = self
            .owned
            .synchronous
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone();
        Ok(SavedSetting {
            name: name.to_string(),
            value,
            scope,
            restore: String::new(),
        })
    }

    fn change_setting(&mut self, _name: &str, value: &str, _scope: Scope) -> Result<(), LoadError> {
        *self
            .owned
            .synchronous
            .lock()
            .unwrap_or_else(|e| e.into_inner()) = value.to_ascii_uppercase();
        Ok(())
    }

    fn restore_setting(&mut self, saved: &SavedSetting) -> Result<(), LoadError> {
        self.change_setting(&saved.name, &saved.value, saved.scope)
    }

    fn counters(&mut self) -> Result<Vec<Counter>, LoadError> {
        Ok(self.owned.shim.counters().snapshot())
    }

    fn flush_path(&self, before: &[Counter], after: &[Counter]) -> FlushPath {
        let delta = |n: &str| counter_delta(before, after, n).map(|v| v as u64);
        let extra = [
            (names::WAL_WRITES, "count"),
            (names::WAL_WRITE_TIME, "ns"),
            (names::CKPT_WAL_SYNCS, "count"),
            (names::CKPT_WAL_SYNC_TIME, "ns"),
            (names::DB_SYNCS, "count"),
            (names::DB_SYNC_TIME, "ns"),
        ]
        .iter()
        .filter_map(|&(n, unit)| {
            delta(n).map(|v| Counter {
                name: n.to_string(),
                value: v as f64,
                unit,
            })
        })
        .collect();
        FlushPath {
            flushes: delta(names::WAL_SYNCS),
            flush_time_ns: delta(names::WAL_SYNC_TIME),
            bytes: delta(names::WAL_BYTES),
            server_commits: None,
            extra,
        }
    }

    fn sample_waits(&mut self) -> Result<Vec<WaitSample>, LoadError> {
        Ok(Vec::new())
    }
}

/// One session's connection and its prepared statements.
///
/// The statements borrow the connection, which lives in a box owned by
/// the same value: fields drop in declaration order, so the statements
/// are finalized before the connection closes, and the box is never
/// moved out or handed out.
pub struct SqliteSession {
    insert: Statement<'static>,
    begin: Statement<'static>,
    commit: Statement<'static>,
    payload: Vec<u8>,
    _conn: Box<Connection>,
    _owned: Arc<Owned>,
}

// SAFETY: the connection and its statements move together to one thread
// and are used only there; SQLite connections may be used from any one
// thread at a time (SQLITE_THREADSAFE=1, SQLITE_OPEN_NO_MUTEX), which is
// why rusqlite's Connection is Send. The statements are not Send only
// because they borrow the connection, which travels with them.
unsafe impl Send for SqliteSession {}

impl SqliteSession {
    fn new(owned: Arc<Owned>, table: &str, row_bytes: usize) -> Result<SqliteSession, LoadError> {
        let conn = Box::new(open(&owned)?);
        // SAFETY: see the struct's documentation: the box outlives the
        // statements (field order) and its address never changes.
        let c: &'static Connection = unsafe { &*(conn.as_ref() as *const Connection) };
        let insert = c
            .prepare(&format!(
                "INSERT INTO {table} (id, payload) VALUES (?1, ?2)"
            ))
            .map_err(|e| sql_err("prepare the insert", e))?;
        let begin = c
            .prepare("BEGIN IMMEDIATE")
            .map_err(|e| sql_err("prepare BEGIN", e))?;
        let commit = c
            .prepare("COMMIT")
            .map_err(|e| sql_err("prepare COMMIT", e))?;
        // A payload that does not compress to nothing (a page of zeros
        // would be as cheap to write as a page of data here, but not on
        // a compressing filesystem).
        let payload = (0..row_bytes)
            .map(|i| (i as u8).wrapping_mul(151).wrapping_add(7))
            .collect();
        Ok(SqliteSession {
            insert,
            begin,
            commit,
            payload,
            _conn: conn,
            _owned: owned,
        })
    }

    fn run(stmt: &mut Statement<'static>, what: &str) -> Result<(), LoadError> {
        stmt.execute([]).map(|_| ()).map_err(|e| sql_err(what, e))
    }
}

impl Session for SqliteSession {
    fn insert_autocommit(&mut self, id: u64) -> Result<(), LoadError> {
        self.insert(id)
    }

    fn begin(&mut self) -> Result<(), LoadError> {
        Self::run(&mut self.begin, "begin a transaction")
    }

    fn insert(&mut self, id: u64) -> Result<(), LoadError> {
        self.insert
            .execute((id as i64, &self.payload[..]))
            .map(|_| ())
            .map_err(|e| sql_err("insert", e))
    }

    fn commit(&mut self) -> Result<(), LoadError> {
        Self::run(&mut self.commit, "commit")
    }

    fn backend_pid(&self) -> Option<u32> {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn value(list: &[Counter], name: &str) -> Option<f64> {
        list.iter().find(|c| c.name == name).map(|c| c.value)
    }

    fn spec(name: &str, mark: &str) -> TableSpec {
        TableSpec {
            name: name.into(),
            row_bytes: 16,
            mark: mark.into(),
        }
    }

    #[test]
    fn a_table_dbio_did_not_create_is_refused_and_left_intact() {
        let d = tempfile::tempdir().unwrap();
        let mut db = SqliteDb::create(d.path(), false).unwrap();
        let path = db.path().to_path_buf();
        // Someone else's table with a name of dbio's pattern.
        let other = Connection::open(&path).unwrap();
        other
            .execute_batch("CREATE TABLE dbio_load_7 (x); INSERT INTO dbio_load_7 VALUES (42)")
            .unwrap();
        let t = spec("dbio_load_7", "dbio run 1");
        let e = db.create_table(&t).unwrap_err().to_string();
        assert!(
            e.contains("already exists") && e.contains("did not create"),
            "{e}"
        );
        let e = db.drop_table(&t).unwrap_err().to_string();
        assert!(e.contains("does not carry this run's mark"), "{e}");
        let n: i64 = other
            .query_row("SELECT x FROM dbio_load_7", [], |r| r.get(0))
            .unwrap();
        assert_eq!(n, 42);
        // A table of its own is dropped; a name dbio never makes is refused.
        let mine = spec("dbio_load_8", "dbio run 2");
        db.create_table(&mine).unwrap();
        assert!(db
            .table_sql("dbio_load_8")
            .unwrap()
            .unwrap()
            .contains("/* dbio run 2 */"));
        db.drop_table(&spec("dbio_load_8", "dbio run 3"))
            .unwrap_err();
        db.drop_table(&mine).unwrap();
        assert!(db.table_sql("dbio_load_8").unwrap().is_none());
        assert!(db.create_table(&spec("users", "m")).is_err());
        assert!(db
            .create_table(&spec("dbio_load_x; DROP TABLE y", "m"))
            .is_err());
        drop(other);
        drop(db);
        assert!(!path.exists(), "scratch database removed");
    }

    #[test]
    fn the_scratch_files_are_removed_or_kept_and_a_foreign_file_survives() {
        let d = tempfile::tempdir().unwrap();
        let db = SqliteDb::create(d.path(), true).unwrap();
        let kept = db.path().to_path_buf();
        drop(db);
        assert!(kept.exists(), "--keep keeps the database");
        let db = SqliteDb::create(d.path(), false).unwrap();
        let p = db.path().to_path_buf();
        assert_ne!(p, kept);
        // A file renamed into the database's place is not dbio's.
        std::fs::remove_file(&p).unwrap();
        std::fs::write(&p, b"not yours").unwrap();
        let e = db
            .connect(&spec("dbio_load_1", "m"))
            .err()
            .unwrap()
            .to_string();
        assert!(e.contains("is not a file dbio created"), "{e}");
        drop(db);
        assert_eq!(std::fs::read(&p).unwrap(), b"not yours");
    }

    /// Every file SQLite made is in the private directory, and a side
    /// file dbio did not create there is refused, left as it is.
    #[test]
    fn side_files_live_in_the_private_directory_and_foreign_ones_are_refused() {
        let d = tempfile::tempdir().unwrap();
        let mut db = SqliteDb::create(d.path(), false).unwrap();
        let private = db.path().parent().unwrap().to_path_buf();
        assert_eq!(private.parent().unwrap(), d.path());
        let t = spec("dbio_load_1", "m");
        db.create_table(&t).unwrap();
        let mut s = db.connect(&t).unwrap();
        s.insert_autocommit(1).unwrap();
        let mut names: Vec<String> = std::fs::read_dir(&private)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        assert_eq!(
            names,
            [
                "dbio-load.sqlite",
                "dbio-load.sqlite-shm",
                "dbio-load.sqlite-wal",
                "dbio.lock"
            ]
        );
        // Only the private directory is in the target directory.
        assert_eq!(std::fs::read_dir(d.path()).unwrap().count(), 1);
        // Someone with dbio's own rights swaps the WAL: a new connection
        // refuses it and the file stays as it was.
        let wal = private.join("dbio-load.sqlite-wal");
        std::fs::rename(&wal, private.join("moved")).unwrap();
        std::fs::write(&wal, b"planted").unwrap();
        let e = db.connect(&t).err().unwrap().to_string();
        assert!(
            e.contains("dbio-load.sqlite-wal is not a file dbio created"),
            "{e}"
        );
        drop(s);
        drop(db);
        assert_eq!(std::fs::read(&wal).unwrap(), b"planted");
    }

    #[test]
    fn the_shim_counts_one_wal_sync_per_commit() {
        let d = tempfile::tempdir().unwrap();
        let mut db = SqliteDb::create(d.path(), false).unwrap();
        let t = spec("dbio_load_1", "m");
        db.create_table(&t).unwrap();
        let mut s = db.connect(&t).unwrap();
        let before = db.counters().unwrap();
        // Fewer pages than wal_autocheckpoint: no checkpoint in between.
        for id in 0..50 {
            s.insert_autocommit(id).unwrap();
        }
        for id in 50..60 {
            s.begin().unwrap();
            s.insert(id).unwrap();
            s.insert(id + 1000).unwrap();
            s.commit().unwrap();
        }
        let after = db.counters().unwrap();
        let f = db.flush_path(&before, &after);
        assert_eq!(f.flushes, Some(60), "{f:?}");
        assert!(f.flush_time_ns.unwrap() > 0);
        // At least one page frame (page + 24-byte header) per commit.
        assert!(f.bytes.unwrap() >= 60 * 4096, "{f:?}");
        assert_eq!(value(&after, names::CKPT_WAL_SYNCS), Some(0.0));
        drop(s);
        db.drop_table(&t).unwrap();
    }

    /// A checkpoint's syncs (WAL, then database) are not commit flushes.
    #[test]
    fn checkpoint_syncs_are_counted_apart_from_commit_syncs() {
        let d = tempfile::tempdir().unwrap();
        let mut db = SqliteDb::create(d.path(), false).unwrap();
        let t = TableSpec {
            row_bytes: 2000,
            ..spec("dbio_load_2", "m")
        };
        db.create_table(&t).unwrap();
        let mut s = db.connect(&t).unwrap();
        let before = db.counters().unwrap();
        // 2 kB rows: a new page every other commit, past 1,000 WAL pages.
        let n = 800;
        for id in 0..n {
            s.insert_autocommit(id).unwrap();
        }
        let after = db.counters().unwrap();
        let delta = |name| counter_delta(&before, &after, name).unwrap();
        let checkpoints = delta(names::DB_SYNCS);
        assert!(checkpoints >= 1.0, "no checkpoint ran");
        assert!(delta(names::CKPT_WAL_SYNCS) >= 1.0);
        // One sync per commit, plus one per restarted WAL header.
        let commits = n as f64;
        let flushes = delta(names::WAL_SYNCS);
        assert!(
            flushes >= commits && flushes <= commits + checkpoints,
            "{flushes} commit syncs for {commits} commits and {checkpoints} checkpoints"
        );
    }
}
