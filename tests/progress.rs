//! Progress bars (issue 23 item 5): `lgwr`, `dbwr` and every section of
//! `check` draw one on a terminal and nothing else anywhere. Without a
//! terminal stderr stays empty; under a pseudo-terminal (`script` from
//! util-linux) the bars' labels appear.

use crate::util::{dbio, dbio_path, scratch, skip_this_test};
use std::process::Command;

/// A short lgwr run, its results going to a JSON file (not stdout).
fn lgwr_args(dir: &std::path::Path, json: &std::path::Path) -> Vec<String> {
    [
        "lgwr",
        &dir.display().to_string(),
        "--runtime",
        "600ms",
        "--sessions",
        "2",
        "--file-size",
        "4m",
        "--json",
        &json.display().to_string(),
    ]
    .map(String::from)
    .to_vec()
}

fn dbwr_args(dir: &std::path::Path, json: &std::path::Path) -> Vec<String> {
    [
        "dbwr",
        &dir.display().to_string(),
        "--size",
        "4m",
        "--buffers",
        "128",
        "--lists",
        "4",
        "--foregrounds",
        "2",
        "--runtime",
        "600ms",
        "--json",
        &json.display().to_string(),
    ]
    .map(String::from)
    .to_vec()
}

fn check_args(dir: &std::path::Path, json: &std::path::Path) -> Vec<String> {
    [
        "check",
        "--runtime",
        "300ms",
        "--size",
        "32m",
        "--json",
        &json.display().to_string(),
        &dir.display().to_string(),
    ]
    .map(String::from)
    .to_vec()
}

/// With stderr a pipe (not a terminal) and no `--quiet`, the commands
/// print nothing on stderr: no bar, no stray line.
#[test]
fn without_a_terminal_lgwr_dbwr_and_check_print_nothing_on_stderr() {
    for args in [lgwr_args, dbwr_args, check_args] {
        let d = scratch();
        let out_dir = scratch();
        let json = out_dir.path().join("r.json");
        let a = args(d.path(), &json);
        let out = dbio().args(&a).output().unwrap();
        assert!(
            out.status.success(),
            "dbio {a:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(
            out.stderr.is_empty(),
            "dbio {}: stderr {:?}",
            a[0],
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(!out.stdout.is_empty(), "dbio {}: no table", a[0]);
        assert!(json.exists());
    }
}

/// Runs `dbio ARGS` under a pseudo-terminal; what the terminal showed, or
/// None (with the reason printed) when `script` is missing.
fn on_a_terminal(args: &[String]) -> Option<String> {
    let Ok(which) = Command::new("script").arg("--version").output() else {
        skip_this_test("`script` (util-linux) is not installed: no pseudo-terminal to draw on");
        return None;
    };
    if !which.status.success() {
        skip_this_test("`script --version` failed: no pseudo-terminal to draw on");
        return None;
    }
    let mut line = dbio_path().display().to_string();
    for a in args {
        // Temporary paths and options only: no quoting needed, but be sure.
        assert!(
            a.chars()
                .all(|c| c.is_ascii_alphanumeric() || "/._-".contains(c)),
            "{a}"
        );
        line.push(' ');
        line.push_str(a);
    }
    let out = Command::new("script")
        .args(["-q", "-f", "-e", "-c", &line, "/dev/null"])
        .env("TERM", "xterm")
        .env("COLUMNS", "160")
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    let shown = strip_escapes(&String::from_utf8_lossy(&out.stdout));
    assert!(
        out.status.success(),
        "{line}: {shown}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    Some(shown)
}

/// `s` without its terminal escape sequences (ESC [ ... letter: bold,
/// cursor moves, line erases).
fn strip_escapes(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        if c == '\x1b' {
            if chars.next() == Some('[') {
                for c in chars.by_ref() {
                    if c.is_ascii_alphabetic() {
                        break;
                    }
                }
            }
            continue;
        }
        out.push(c);
    }
    out
}

/// Whether `shown` holds the bar `label` with a message "R[ k| M] UNIT/s,
/// N UNIT" (the rate so far and the count).
fn bar_shown(shown: &str, label: &str, unit: &str) -> bool {
    shown.split(&format!("{label} [")).skip(1).any(|rest| {
        let Some((_, msg)) = rest.split_once("] ") else {
            return false;
        };
        let Some((rate, count)) = msg.split_once(&format!(" {unit}/s, ")) else {
            return false;
        };
        let rate = rate.trim_end_matches([' ', 'k', 'M']);
        let digits: String = count.chars().take_while(char::is_ascii_digit).collect();
        rate.parse::<f64>().is_ok()
            && !digits.is_empty()
            && count[digits.len()..].starts_with(&format!(" {unit}"))
    })
}

#[test]
fn bar_shown_reads_the_message() {
    assert_eq!(strip_escapes("\x1b[1mlgwr\x1b[0m [=>\x1b[2K"), "lgwr [=>");
    assert!(bar_shown(
        "\rlgwr [==>   ] 12.3 k commits/s, 24600 commits (left 1s)",
        "lgwr",
        "commits"
    ));
    assert!(!bar_shown("lgwr [==>  ] warm-up", "lgwr", "commits"));
}

#[test]
fn on_a_terminal_lgwr_shows_its_bar_with_commits_per_second() {
    let d = scratch();
    let out_dir = scratch();
    let Some(shown) = on_a_terminal(&lgwr_args(d.path(), &out_dir.path().join("r.json"))) else {
        return;
    };
    assert!(bar_shown(&shown, "lgwr", "commits"), "{shown}");
}

#[test]
fn on_a_terminal_dbwr_shows_its_bar_with_blocks_per_second() {
    let d = scratch();
    let out_dir = scratch();
    let Some(shown) = on_a_terminal(&dbwr_args(d.path(), &out_dir.path().join("r.json"))) else {
        return;
    };
    // One bar per writer count, with the buffer operations per second the
    // run counts.
    assert!(
        shown.contains("writers=1 [") && shown.contains(" buffer ops/s"),
        "{shown}"
    );
}

#[test]
fn on_a_terminal_every_section_of_check_shows_its_labelled_bar() {
    let d = scratch();
    let out_dir = scratch();
    let Some(shown) = on_a_terminal(&check_args(d.path(), &out_dir.path().join("r.json"))) else {
        return;
    };
    // One bar per step: the five storage tests, then the four model
    // sections, each labelled with its place and what it measures.
    for label in [
        "check 1/9: log write 8k O_DIRECT+O_DSYNC [",
        "check 2/9: log write 8k buffered+fdatasync [",
        "check 3/9: random read 8k [",
        "check 4/9: sequential write 1m [",
        "check 5/9: sequential read 1m [",
        "check 6/9: commit path (log writer) [",
        "check 7/9: commits in SQLite [",
        "check 8/9: datafile reads [",
        "check 9/9: database writer [",
    ] {
        assert!(shown.contains(label), "{label}: {shown}");
    }
}

/// `--quiet` hides the bars on a terminal too.
#[test]
fn quiet_hides_the_bar_on_a_terminal() {
    let d = scratch();
    let out_dir = scratch();
    let mut args = lgwr_args(d.path(), &out_dir.path().join("r.json"));
    args.push("--quiet".into());
    let Some(shown) = on_a_terminal(&args) else {
        return;
    };
    assert!(!shown.contains("commits/s, "), "{shown}");
}
