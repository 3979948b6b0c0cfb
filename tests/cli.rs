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

/// `dbio generate man` writes one roff page to standard output, or the
/// same page as DIR/dbio.1 with one page per command beside it
/// (dbio-bench.1 ...); every subcommand has its subsection, and man
/// (where it is installed) formats every page without a warning.
#[test]
fn generate_man_writes_one_page_naming_every_command() {
    let out = dbio().args(["generate", "man"]).output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let page = String::from_utf8(out.stdout.clone()).unwrap();
    assert!(page.contains(".TH dbio 1"), "{page}");
    let help = dbio().arg("--help").output().unwrap();
    let help = String::from_utf8_lossy(&help.stdout).into_owned();
    let commands: Vec<&str> = help
        .split("Commands:")
        .nth(1)
        .unwrap()
        .lines()
        .skip(1)
        .take_while(|l| !l.trim().is_empty() && !l.starts_with("Options"))
        .filter(|l| l.starts_with("  ") && !l.starts_with("   "))
        .filter_map(|l| l.split_whitespace().next())
        .filter(|c| *c != "help")
        .collect();
    assert!(commands.len() >= 15, "{commands:?}");
    for c in &commands {
        assert!(page.contains(&format!(".SS \"dbio {c}\"")), "{c}");
    }
    for flag in [
        "runtime", "bs", "seed", "rate", "ops", "json", "csv", "html",
    ] {
        assert!(page.contains(&format!("\\-\\-{flag}")), "--{flag}");
    }
    let d = crate::util::scratch();
    let dir = d.path().to_str().unwrap();
    let out = dbio().args(["generate", "man", dir]).output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.stdout.is_empty());
    assert_eq!(
        std::fs::read(d.path().join("dbio.1")).unwrap(),
        page.as_bytes()
    );
    // One page per command besides, each naming its own flags.
    for c in &commands {
        let sub = std::fs::read_to_string(d.path().join(format!("dbio-{c}.1"))).unwrap();
        assert!(
            sub.contains(&format!(".TH dbio-{c} 1")),
            "{c}: {}",
            &sub[..200.min(sub.len())]
        );
        assert!(
            sub.contains("dbio (1)") || sub.contains("dbio\\fR(1)") || sub.contains(".BR dbio (1)"),
            "{c}"
        );
    }
    let bench = std::fs::read_to_string(d.path().join("dbio-bench.1")).unwrap();
    assert!(bench.contains("\\-\\-iodepth"), "{bench}");
    if !which("man") {
        return crate::util::skip_this_test("man is not installed");
    }
    for page in
        std::iter::once("dbio.1".to_string()).chain(commands.iter().map(|c| format!("dbio-{c}.1")))
    {
        let o = crate::util::tool(
            std::process::Command::new("sh")
                .arg("-c")
                .arg("man -l -Tutf8 \"$1\" 2>&1 >/dev/null")
                .arg("sh")
                .arg(d.path().join(&page)),
        )
        .unwrap();
        assert!(
            o.stdout.is_empty(),
            "{page}: {}",
            String::from_utf8_lossy(&o.stdout)
        );
    }
}

/// Whether `program` is on PATH.
fn which(program: &str) -> bool {
    std::process::Command::new("sh")
        .args(["-c", &format!("command -v {program}")])
        .output()
        .is_ok_and(|o| o.status.success())
}

/// The completion script for `shell`.
fn completions(shell: &str, dir: &std::path::Path) -> std::path::PathBuf {
    let out = dbio()
        .args(["generate", "completions", shell])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(!out.stdout.is_empty());
    let path = dir.join(format!("dbio.{shell}"));
    std::fs::write(&path, &out.stdout).unwrap();
    path
}

/// The bash completion parses, registers `_dbio` for dbio when sourced,
/// and completes a subcommand and a subcommand's flag (the new name, not
/// a renamed flag's old one).
#[test]
fn generate_completions_bash_completes_commands_and_flags() {
    let d = crate::util::scratch();
    let script = completions("bash", d.path());
    let check = r#"bash -n "$0" || exit 1
source "$0"
complete -p dbio
COMP_WORDS=(dbio matr); COMP_CWORD=1; COMP_LINE="dbio matr"; COMP_POINT=9
_dbio dbio matr dbio
echo "sub: ${COMPREPLY[*]}"
COMP_WORDS=(dbio matrix --run); COMP_CWORD=2; COMP_LINE="dbio matrix --run"; COMP_POINT=17
_dbio dbio --run matrix
echo "flag: ${COMPREPLY[*]}"
COMP_WORDS=(dbio matrix --point); COMP_CWORD=2; COMP_LINE="dbio matrix --point"; COMP_POINT=19
_dbio dbio --point matrix
echo "old: ${COMPREPLY[*]}"
"#;
    let out = crate::util::tool(
        std::process::Command::new("bash")
            .args(["-c", check])
            .arg(&script),
    )
    .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("complete -o bashdefault -o default -o nosort -F _dbio dbio"),
        "{text}"
    );
    assert!(text.contains("sub: matrix\n"), "{text}");
    assert!(text.contains("flag: --runtime\n"), "{text}");
    assert!(text.contains("old: \n"), "{text}");
}

/// The zsh and fish completions parse (`zsh -n`, `fish -n`) where those
/// shells are installed (scripts/test installs them).
#[test]
fn generate_completions_zsh_and_fish_parse() {
    let d = crate::util::scratch();
    for shell in ["zsh", "fish"] {
        let script = completions(shell, d.path());
        let text = std::fs::read_to_string(&script).unwrap();
        assert!(
            text.contains("matrix") && text.contains("runtime"),
            "{shell}"
        );
        if !which(shell) {
            crate::util::skip_this_test(&format!("{shell} is not installed"));
            continue;
        }
        let out = std::process::Command::new(shell)
            .arg("-n")
            .arg(&script)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{shell} -n: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

/// Whether `v` holds `key: want` at any depth.
fn holds(v: &serde_json::Value, key: &str, want: u64) -> bool {
    match v {
        serde_json::Value::Object(m) => m
            .iter()
            .any(|(k, x)| (k == key && x.as_u64() == Some(want)) || holds(x, key, want)),
        serde_json::Value::Array(a) => a.iter().any(|x| holds(x, key, want)),
        _ => false,
    }
}

/// `--block-size` became `--bs` (fio's and bench's name) in read, lgwr,
/// calibrate and tracefile: both names set the same block size (saved
/// under the same JSON key), and the old one prints one notice.
#[test]
fn block_size_is_bs_and_the_old_name_still_works() {
    let d = crate::util::scratch();
    let dir = d.path().to_str().unwrap();
    let trace = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/crates/oracle/tests/data/ninei-9201.trc"
    );
    let runs: [&[&str]; 4] = [
        &["tracefile", trace, "--json", "-"],
        &[
            "lgwr",
            "--null",
            "--null-delay",
            "1us",
            "--sessions",
            "1",
            "--commits",
            "10",
            "--quiet",
            "--json",
            "-",
        ],
        &[
            "read", dir, "--size", "1m", "--ops", "10", "--quiet", "--json", "-",
        ],
        &[
            "calibrate",
            dir,
            "--size",
            "1m",
            "--samples",
            "10",
            "--runtime",
            "0.1",
            "--no-save",
            "--quiet",
            "--json",
            "-",
        ],
    ];
    for args in runs {
        for (flag, want_err) in [
            ("--bs", String::new()),
            ("--block-size", notice("block-size", "bs")),
        ] {
            let (v, err) = run(&[args, &[flag, "16k"]].concat());
            assert!(holds(&v, "block_size", 16384), "{args:?} {flag}: {v}");
            assert_eq!(err, want_err, "{args:?} {flag}");
        }
    }
}

/// Renamed Rust fields keep their saved JSON keys (dbwr's `ops_limit` and
/// `rate_iops` are saved as `ops` and `rate_ops`), so saved results still
/// read and re-render as they did.
#[test]
fn renamed_fields_keep_their_saved_keys() {
    let d = crate::util::scratch();
    let dir = d.path().to_str().unwrap();
    let (v, err) = run(&[
        "dbwr",
        dir,
        "--engine",
        "null",
        "--size",
        "8m",
        "--buffers",
        "512",
        "--ops",
        "100",
        "--rate",
        "1000",
        "--quiet",
        "--json",
        "-",
    ]);
    assert_eq!(err, "");
    let c = &v["dbwr"][0]["config"];
    assert_eq!(
        (&c["ops"], &c["rate_ops"]),
        (&100.into(), &1000.into()),
        "{c}"
    );
}

/// watch's `--duration` became `--runtime`, as in every command that runs
/// for a time: the old name still parses and prints one notice before
/// anything else (here the watch then finds no such process).
#[test]
fn watch_duration_is_runtime_and_the_old_name_still_works() {
    for (flag, first) in [
        ("--runtime", "dbio: error: no process".to_string()),
        ("--duration", notice("duration", "runtime")),
    ] {
        let out = dbio()
            .args(["watch", flag, "0.1", "--pid", "4194304"])
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{flag}: {err}");
        assert!(err.starts_with(first.as_str()), "{flag}: {err}");
        assert!(err.contains("no process with id 4194304"), "{flag}: {err}");
    }
}
