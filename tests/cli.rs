//! The command line's one definition: renamed flags still parse under
//! their old names for one release and say so in one line on standard
//! error; `--help` tells the truth about what a command does.

use crate::util::{dbio, json};

/// Runs `dbio ARGS` (which must succeed) and returns its JSON result on
/// standard output and its standard error.
fn run(args: &[&str]) -> (serde_json::Value, String) {
    let out = dbio().args(args).output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "dbio {args:?}: {stderr}");
    (json(&out.stdout), stderr)
}

/// The one line an old flag name prints.
fn notice(old: &str, new: &str) -> String {
    format!("dbio: --{old} is deprecated; use --{new} (it will be removed in the next release)\n")
}

/// A matrix on the null engine: one point, fast.
const NULL_MATRIX: [&str; 12] = [
    "matrix", "--engine", "null", "--small", "1", "--large", "0", "--warmup", "0", "--quiet",
    "--json", "-",
];

#[test]
fn matrix_point_time_is_runtime_and_the_old_name_still_works() {
    let (new, err) = run(&[&NULL_MATRIX[..], &["--runtime", "0.05"]].concat());
    assert_eq!(new["matrix"]["config"]["point_time_ns"], 50_000_000u64);
    assert_eq!(err, "");
    let (old, err) = run(&[&NULL_MATRIX[..], &["--point-time", "0.05"]].concat());
    assert_eq!(old["matrix"]["config"]["point_time_ns"], 50_000_000u64);
    assert_eq!(err, notice("point-time", "runtime"));
    let (old, err) = run(&[&NULL_MATRIX[..], &["--point-time=0.05"]].concat());
    assert_eq!(old["matrix"]["config"]["point_time_ns"], 50_000_000u64);
    assert_eq!(err, notice("point-time", "runtime"));
    // The default is still 2 s per point.
    let out = dbio().args(["matrix", "--help"]).output().unwrap();
    let help = String::from_utf8_lossy(&out.stdout);
    assert!(help.contains("--runtime <RUNTIME>"), "{help}");
    assert!(help.contains("Default 2 s"), "{help}");
    assert!(!help.contains("point-time"), "{help}");
}

/// matrix has no --direct (it always opens the target with O_DIRECT), so
/// its help must not send the reader to one.
#[test]
fn matrix_help_names_no_flag_matrix_lacks() {
    let out = dbio().args(["matrix", "--help"]).output().unwrap();
    assert!(out.status.success());
    let help = String::from_utf8_lossy(&out.stdout);
    assert!(!help.contains("needs --direct"), "{help}");
    assert!(help.contains("O_DIRECT"), "{help}");
    assert!(
        dbio()
            .args(["matrix", "--direct"])
            .output()
            .unwrap()
            .status
            .code()
            == Some(2)
    );
}
