//! From a target string on the command line to a connected server.
//!
//! A DBA names a server the way the database's own tools do: a libpq
//! URL (`postgres://`, `postgresql://`) or keyword string
//! (`host=... dbname=...`) for PostgreSQL, a `mysql://` or `mariadb://`
//! URL for MariaDB and MySQL. Passwords come, in libpq's and the mysql
//! client's order, from the target itself, the environment
//! (`PGPASSWORD`, `MYSQL_PWD`) or the password file (`~/.pgpass` or
//! `$PGPASSFILE`, `~/.my.cnf`). A password never leaves this module in
//! text: every target has a redacted display form, used for output,
//! results, errors and `Debug`.
//!
//! TLS follows the URL (`sslmode=require`, `ssl-mode=REQUIRED`) and is
//! done by rustls with the ring provider, so nothing links OpenSSL. As
//! with libpq's `require` and MySQL's `REQUIRED`, the connection is
//! encrypted but the server's certificate is not checked; the modes that
//! check it (`verify-ca`, `verify-full`, `VERIFY_CA`, `VERIFY_IDENTITY`)
//! are refused with one sentence rather than silently weakened.

// Without both server features some helpers have no caller.
#![cfg_attr(not(all(feature = "postgres", feature = "mysql")), allow(dead_code))]

use crate::backend::{Database, LoadError};
use std::fmt;

/// Which server a target names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ServerFamily {
    /// PostgreSQL: a libpq URL or keyword string.
    Postgres,
    /// MariaDB or MySQL: a `mysql://` or `mariadb://` URL.
    Mysql,
}

/// A server target as typed, kept with its redacted form; `Display` and
/// `Debug` show only the redacted form.
#[derive(Clone)]
pub struct ServerSpec {
    family: ServerFamily,
    raw: String,
    shown: String,
}

impl ServerSpec {
    /// Recognises a server target; `None` when `spec` names none (a
    /// path, for instance).
    pub fn parse(spec: &str) -> Option<ServerSpec> {
        let family = family_of(spec)?;
        Some(ServerSpec {
            family,
            raw: spec.to_string(),
            shown: redact(spec),
        })
    }

    /// The server family.
    pub fn family(&self) -> ServerFamily {
        self.family
    }

    /// The target as typed, password included: for the connectors only.
    pub(crate) fn raw(&self) -> &str {
        &self.raw
    }
}

impl fmt::Display for ServerSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.shown)
    }
}

impl fmt::Debug for ServerSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ServerSpec")
            .field("family", &self.family)
            .field("target", &self.shown)
            .finish()
    }
}

/// True when `spec` names a database server rather than a file.
pub fn is_server(spec: &str) -> bool {
    family_of(spec).is_some()
}

fn family_of(spec: &str) -> Option<ServerFamily> {
    let lower = spec.trim_start().to_ascii_lowercase();
    if lower.starts_with("postgres://") || lower.starts_with("postgresql://") {
        Some(ServerFamily::Postgres)
    } else if lower.starts_with("mysql://") || lower.starts_with("mariadb://") {
        Some(ServerFamily::Mysql)
    } else if !lower.contains("://") && looks_like_keywords(&lower) {
        Some(ServerFamily::Postgres)
    } else {
        None
    }
}

/// A libpq keyword string: `key=value` pairs with a known first key.
fn looks_like_keywords(s: &str) -> bool {
    const KEYS: &[&str] = &[
        "host",
        "hostaddr",
        "port",
        "dbname",
        "user",
        "password",
        "sslmode",
        "application_name",
        "options",
        "connect_timeout",
    ];
    s.split_whitespace().next().is_some_and(|first| {
        first
            .split_once('=')
            .is_some_and(|(k, _)| KEYS.contains(&k.trim()))
    }) || s
        .split_once(" =")
        .is_some_and(|(k, _)| KEYS.contains(&k.trim()))
}

/// The target with any password replaced by `***`: in a URL's user
/// information, a `password=` keyword, or a `password=` URL parameter.
pub fn redact(spec: &str) -> String {
    let spec = spec.trim();
    let mut out = match spec.find("://") {
        Some(i) => {
            let (scheme, rest) = spec.split_at(i + 3);
            // The authority ends at the first '/', '?' or '#'; its user
            // information at the last '@' inside it.
            let end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
            let (authority, tail) = rest.split_at(end);
            let authority = match authority.rfind('@') {
                Some(at) => {
                    let (userinfo, host) = authority.split_at(at);
                    match userinfo.split_once(':') {
                        Some((user, _)) => format!("{user}:***{host}"),
                        None => authority.to_string(),
                    }
                }
                None => authority.to_string(),
            };
            format!("{scheme}{authority}{tail}")
        }
        None => spec.to_string(),
    };
    // `password=...` as a keyword (value up to whitespace, or quoted) or
    // as a URL parameter (value up to '&').
    let mut from = 0;
    while let Some(pos) = out[from..].to_ascii_lowercase().find("password") {
        let start = from + pos + "password".len();
        let rest = &out[start..];
        let eq = rest.len() - rest.trim_start().len();
        if !rest[eq..].starts_with('=') {
            from = start;
            continue;
        }
        let vstart = start + eq + 1;
        let vrest = &out[vstart..];
        let skip = vrest.len() - vrest.trim_start().len();
        let vbody = &vrest[skip..];
        let vlen = if let Some(q) = vbody.strip_prefix('\'') {
            // A quoted keyword value: up to the closing unescaped quote.
            let mut n = 1;
            let mut esc = false;
            for c in q.chars() {
                n += c.len_utf8();
                if esc {
                    esc = false;
                } else if c == '\\' {
                    esc = true;
                } else if c == '\'' {
                    break;
                }
            }
            n
        } else {
            vbody
                .find(|c: char| c.is_whitespace() || c == '&' || c == '#')
                .unwrap_or(vbody.len())
        };
        let vend = vstart + skip + vlen;
        out.replace_range(vstart + skip..vend, "***");
        from = vstart + skip + 3;
    }
    out
}

/// Opens a server target: parses it, finds its password and connects
/// the monitoring connection that describes the server and reads its
/// counters. Fails with one sentence that never holds the password.
pub fn open_server(spec: &str) -> Result<Box<dyn Database>, LoadError> {
    let Some(parsed) = ServerSpec::parse(spec) else {
        return Err(LoadError::Refused(format!(
            "'{}' is not a database server target: expected postgres://..., postgresql://..., \
             a libpq keyword string (host=... dbname=...), mysql://... or mariadb://...",
            redact(spec)
        )));
    };
    match parsed.family() {
        ServerFamily::Postgres => open_postgres(&parsed),
        ServerFamily::Mysql => open_mysql(&parsed),
    }
}

#[cfg(feature = "postgres")]
fn open_postgres(spec: &ServerSpec) -> Result<Box<dyn Database>, LoadError> {
    Ok(Box::new(crate::postgres::Postgres::open(spec)?))
}

#[cfg(not(feature = "postgres"))]
fn open_postgres(spec: &ServerSpec) -> Result<Box<dyn Database>, LoadError> {
    Err(LoadError::Refused(format!(
        "cannot load {spec}: this dbio was built without the PostgreSQL client (cargo feature `servers`: cargo build --release --features full)"
    )))
}

#[cfg(feature = "mysql")]
fn open_mysql(spec: &ServerSpec) -> Result<Box<dyn Database>, LoadError> {
    Ok(Box::new(crate::mysql::Mysql::open(spec)?))
}

#[cfg(not(feature = "mysql"))]
fn open_mysql(spec: &ServerSpec) -> Result<Box<dyn Database>, LoadError> {
    Err(LoadError::Refused(format!(
        "cannot load {spec}: this dbio was built without the MariaDB/MySQL client (cargo feature `servers`: cargo build --release --features full)"
    )))
}

/// An error and its causes, each once, joined by ": ".
pub(crate) fn chain(e: &dyn std::error::Error) -> String {
    let mut s = e.to_string();
    let mut src = e.source();
    while let Some(c) = src {
        let t = c.to_string();
        if !s.contains(&t) {
            s.push_str(": ");
            s.push_str(&t);
        }
        src = c.source();
    }
    s
}

/// The home directory, for the password files.
pub(crate) fn home_dir() -> Option<std::path::PathBuf> {
    std::env::var_os("HOME")
        .filter(|h| !h.is_empty())
        .map(Into::into)
}

/// Why a password file was ignored, or `None` when it may be read: it
/// must be a regular file without group or world access (libpq's rule
/// for `.pgpass`; the mysql client warns about a world-writable
/// `.my.cnf` and ignores it).
pub(crate) fn password_file_unsafe(path: &std::path::Path) -> Option<String> {
    use std::os::unix::fs::PermissionsExt;
    let meta = std::fs::metadata(path).ok()?;
    if !meta.is_file() {
        return Some(format!("{} is not a regular file", path.display()));
    }
    let mode = meta.permissions().mode() & 0o777;
    (mode & 0o077 != 0).then(|| {
        format!(
            "{} was ignored: it has group or world access (mode {mode:03o}); \
             permissions should be u=rw (0600) or less",
            path.display()
        )
    })
}

/// Whether `sql` is one statement that begins with one of `keywords` (a
/// whole word, any case) and holds no `;` outside a single-quoted string:
/// the read-only monitors' one check of what they may send.
pub(crate) fn one_statement_starting_with(sql: &str, keywords: &[&str]) -> bool {
    let head = sql.trim_start().to_ascii_uppercase();
    let starts = keywords.iter().any(|k| {
        head.starts_with(k)
            && head[k.len()..]
                .chars()
                .next()
                .is_none_or(|c| !c.is_ascii_alphanumeric() && c != '_')
    });
    let mut quoted = false;
    let mut extra = false;
    for c in sql.trim_end().trim_end_matches(';').chars() {
        match c {
            '\'' => quoted = !quoted,
            ';' if !quoted => extra = true,
            _ => {}
        }
    }
    starts && !extra
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The monitors' check: one statement, led by a permitted keyword as
    /// a whole word; a `;` inside a quoted string is text.
    #[test]
    fn only_one_statement_led_by_a_permitted_keyword_passes() {
        let ok = |sql: &str| one_statement_starting_with(sql, &["SELECT", "SHOW"]);
        assert!(ok("SELECT 1"));
        assert!(ok("  show global status;"));
        assert!(ok("SELECT ';' AS x"));
        assert!(!ok("SELECTED"));
        assert!(!ok("SELECT 1; DROP TABLE t"));
        assert!(!ok("UPDATE t SET a = 1"));
        assert!(!ok("WITH x AS (SELECT 1) SELECT * FROM x"));
    }

    #[test]
    fn recognises_each_family() {
        let pg = ServerFamily::Postgres;
        let my = ServerFamily::Mysql;
        assert_eq!(family_of("postgres://u@h/db"), Some(pg));
        assert_eq!(family_of("PostgreSQL://h"), Some(pg));
        assert_eq!(family_of("host=/tmp dbname=x"), Some(pg));
        assert_eq!(family_of("dbname = x"), Some(pg));
        assert_eq!(family_of("mysql://u@h/db"), Some(my));
        assert_eq!(family_of("mariadb://u@h:3306/db"), Some(my));
        assert_eq!(family_of("./some/dir"), None);
        assert_eq!(family_of("file=x"), None);
        assert_eq!(family_of("http://h"), None);
    }

    #[test]
    fn redacts_every_password_form() {
        assert_eq!(
            redact("postgres://dbio:s3cret@127.0.0.1:5499/dbio"),
            "postgres://dbio:***@127.0.0.1:5499/dbio"
        );
        // An '@' inside the password: the last '@' ends the user info.
        assert_eq!(
            redact("mysql://u:p@ss@h:3399/db?ssl-mode=REQUIRED"),
            "mysql://u:***@h:3399/db?ssl-mode=REQUIRED"
        );
        assert_eq!(redact("postgres://u@h/db"), "postgres://u@h/db");
        assert_eq!(
            redact("host=h password=s3cret dbname=x"),
            "host=h password=*** dbname=x"
        );
        assert_eq!(
            redact("host=h password = 'a b\\' c' dbname=x"),
            "host=h password = *** dbname=x"
        );
        assert_eq!(
            redact("postgres://h/db?password=s3cret&sslmode=require"),
            "postgres://h/db?password=***&sslmode=require"
        );
        for s in [
            "postgres://dbio:s3cret@h/db",
            "host=h password=s3cret",
            "mysql://u:s3cret@h/db",
            "postgresql://h/db?user=u&password=s3cret",
        ] {
            let spec = ServerSpec::parse(s).unwrap();
            for shown in [spec.to_string(), format!("{spec:?}"), format!("{spec:#?}")] {
                assert!(!shown.contains("s3cret"), "{shown}");
            }
        }
    }

    #[test]
    fn a_non_server_target_is_refused_without_its_password() {
        let err = open_server("ftp://u:s3cret@h/x").err().unwrap().to_string();
        assert!(err.contains("not a database server target"), "{err}");
        assert!(!err.contains("s3cret"), "{err}");
    }

    #[test]
    fn a_malformed_target_is_refused_without_its_password() {
        for spec in [
            "postgres://u:s3cret@h:notaport/db",
            "postgresql://u:s3cret@h/db?sslmode=bogus",
            "postgres://u:s3cret@h/db?nosuchoption=1",
            "host=h password=s3cret sslmode=verify-full",
            "host=h password='s3cret",
            "mysql://u:s3cret@h:99999/db",
            "mariadb://u:s3cret@h/db?ssl-mode=bogus",
            "mysql://u:s3cret@h/db?nosuchoption=1",
        ] {
            let Err(err) = open_server(spec) else {
                panic!("{} was accepted", redact(spec));
            };
            for shown in [err.to_string(), format!("{err:?}")] {
                assert!(!shown.contains("s3cret"), "{shown}");
                assert!(!shown.contains('\n'), "{shown}");
            }
        }
    }

    #[test]
    fn password_file_permissions_follow_libpq() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("pgpass");
        std::fs::write(&f, "*:*:*:*:x\n").unwrap();
        std::fs::set_permissions(&f, std::fs::Permissions::from_mode(0o600)).unwrap();
        assert_eq!(password_file_unsafe(&f), None);
        std::fs::set_permissions(&f, std::fs::Permissions::from_mode(0o640)).unwrap();
        let why = password_file_unsafe(&f).unwrap();
        assert!(why.contains("group or world access"), "{why}");
        assert!(password_file_unsafe(dir.path()).is_some());
        assert_eq!(password_file_unsafe(&dir.path().join("absent")), None);
    }
}
