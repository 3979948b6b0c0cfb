//! Records what `dbio --version` and every result's `build` field say
//! about this build: the git revision and whether the tree was dirty, the
//! build date and the target. Nothing here fails the build: outside a git
//! checkout (a source tarball) the revision is simply unknown.

use std::process::Command;

fn git(args: &[&str]) -> Option<String> {
    let out = Command::new("git").args(args).output().ok()?;
    out.status
        .success()
        .then(|| String::from_utf8_lossy(&out.stdout).trim().to_string())
}

/// Days since 1970-01-01 as a proleptic Gregorian date (Howard Hinnant's
/// civil_from_days).
fn civil(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    (yoe + era * 400 + i64::from(m <= 2), m, d)
}

fn main() {
    // The revision changes with HEAD and with the ref it points at; the
    // dirty flag with the index and every tracked file, not only the
    // sources (an edited test or doc makes the tree dirty too).
    if let Some(dir) = git(&["rev-parse", "--git-dir"]) {
        println!("cargo:rerun-if-changed={dir}/HEAD");
        println!("cargo:rerun-if-changed={dir}/index");
        if let Some(r) = git(&["symbolic-ref", "-q", "HEAD"]) {
            println!("cargo:rerun-if-changed={dir}/{r}");
        }
    }
    let tracked = git(&["ls-tree", "--name-only", "HEAD"]);
    let top: Vec<&str> = match &tracked {
        Some(t) => t.lines().collect(),
        None => vec!["src", "crates", "Cargo.toml", "Cargo.lock"],
    };
    for p in top {
        println!("cargo:rerun-if-changed={p}");
    }
    println!("cargo:rerun-if-env-changed=SOURCE_DATE_EPOCH");

    let revision = git(&["rev-parse", "HEAD"]).unwrap_or_default();
    // Tracked files changed or staged; untracked files do not make a
    // build dirty (they are not part of it unless added).
    let dirty = !revision.is_empty()
        && git(&["status", "--porcelain", "--untracked-files=no"]).is_some_and(|s| !s.is_empty());
    let epoch = std::env::var("SOURCE_DATE_EPOCH")
        .ok()
        .and_then(|s| s.trim().parse::<i64>().ok())
        .unwrap_or_else(|| {
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_secs() as i64)
        });
    let (y, m, d) = civil(epoch.div_euclid(86_400));
    println!("cargo:rustc-env=DBIO_REVISION={revision}");
    println!("cargo:rustc-env=DBIO_DIRTY={dirty}");
    println!("cargo:rustc-env=DBIO_BUILD_DATE={y:04}-{m:02}-{d:02}");
    println!(
        "cargo:rustc-env=DBIO_TARGET={}",
        std::env::var("TARGET").unwrap_or_default()
    );
}
