//! The documents tell the truth: every command's JSON result validates
//! against docs/result-schema.json, every field it writes is declared
//! there (the schema does not forbid unknown fields, so this is checked
//! apart), and every such result renders again with `dbio report --from`.

use crate::util::{dbio, scratch};
use std::collections::BTreeSet;

fn keys(v: &serde_json::Value, out: &mut BTreeSet<String>) {
    match v {
        serde_json::Value::Object(m) => {
            for (k, x) in m {
                out.insert(k.clone());
                keys(x, out);
            }
        }
        serde_json::Value::Array(a) => a.iter().for_each(|x| keys(x, out)),
        _ => {}
    }
}

#[test]
fn result_schema_describes_every_field_of_every_command() {
    let declared = crate::schema::property_names();
    let d = scratch();
    let dir = d.path().to_str().unwrap();
    // Small real runs, with the options that fill the optional sections
    // (--verify, checkpoints, several cache states, per-second series).
    let trace = |name: &str| {
        format!(
            "{}/crates/oracle/tests/data/{name}",
            env!("CARGO_MANIFEST_DIR")
        )
    };
    let (t1, t2) = (trace("shared-server-19c.trc"), trace("ninei-9201.trc"));
    let awr = format!(
        "{}/crates/awr/tests/data/awr-19c-rac-crlf.txt",
        env!("CARGO_MANIFEST_DIR")
    );
    let html = format!(
        "{}/crates/awr/tests/data/awr-11g.html",
        env!("CARGO_MANIFEST_DIR")
    );
    // `dbio compare` of the lgwr result (run 3) with itself.
    let lgwr_result = d.path().join("3-lgwr.json").display().to_string();
    let mine = |name: &str| format!("{}/tests/fixtures/awr/{name}", env!("CARGO_MANIFEST_DIR"));
    let (h1, h2) = (mine("trend-0900.txt"), mine("trend-1000.txt"));
    let (dc, wt) = (mine("decimal-comma.txt"), mine("with-trace.trc"));
    let runs: [&[&str]; 15] = [
        &[
            "load",
            "--dir",
            dir,
            "--sessions",
            "2",
            "--commits",
            "20",
            "--mode",
            "explicit",
        ],
        &[
            "load",
            "--dir",
            dir,
            "--sessions",
            "1",
            "--commits",
            "5",
            "--compare",
            "synchronous=FULL,OFF",
            "--rounds",
            "2",
        ],
        &[
            "bench",
            dir,
            "--size",
            "1m",
            "--ops",
            "200",
            "--sync",
            "fdatasync",
            "--rw",
            "randrw",
        ],
        &[
            "lgwr",
            dir,
            // Time-based, so that the result has its per-second series.
            "--runtime",
            "1.2s",
            "--file-size",
            "128k",
            "--max-write",
            "64k",
            "--files",
            "2",
            "--verify",
        ],
        &[
            "dbwr",
            dir,
            "--size",
            "4m",
            "--buffers",
            "128",
            "--lists",
            "2",
            "--ops",
            "500",
            "--checkpoint-interval",
            "10ms",
        ],
        &[
            "read",
            dir,
            "--size",
            "4m",
            "--ops",
            "200",
            "--cached",
            "cold,warm",
            "--rounds",
            "1",
        ],
        &[
            "calibrate",
            dir,
            "--size",
            "16m",
            "--samples",
            "50",
            "--runtime",
            "0.2",
            "--no-save",
        ],
        &[
            "matrix",
            dir,
            "--small",
            "1,2",
            "--large",
            "0,1",
            "--runtime",
            "0.1",
            "--warmup",
            "0",
            "--size",
            "16m",
            "--max-latency",
            "1s",
        ],
        &["tracefile", &t1, &t2],
        &["tracefile", "--compare", &t1, &t2],
        &["awr", &awr],
        &["awr", "--compare", &awr, &html],
        &["compare", &lgwr_result, &lgwr_result],
        &["awr", &h1, &h2],
        &["awr", &dc, "--with-trace", &wt],
    ];
    let mut undocumented = Vec::new();
    for (i, args) in runs.into_iter().enumerate() {
        let file = d.path().join(format!("{i}-{}.json", args[0]));
        let out = dbio()
            .args(args)
            .arg("--json")
            .arg(&file)
            .arg("--quiet")
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let v: serde_json::Value = serde_json::from_slice(&std::fs::read(&file).unwrap()).unwrap();
        let command = match (args[0], args[1]) {
            ("tracefile", "--compare") => "tracefile --compare",
            ("awr", "--compare") => "awr --compare",
            ("compare", _) => "compare",
            ("awr", _) if args.len() == 3 => "awr trend",
            _ => args[0],
        };
        assert_eq!(v["command"], command);
        // The command line is recorded, as typed after the program name.
        let inv = v["invocation"].as_str().unwrap_or_default();
        assert!(
            inv.contains(&args.join(" ")),
            "{command}: invocation {inv:?} lacks {args:?}"
        );
        crate::schema::assert_valid(command, &v);
        let mut found = BTreeSet::new();
        keys(&v, &mut found);
        undocumented.extend(
            found
                .difference(&declared)
                .map(|k| format!("{k} ({command})")),
        );
        let again = dbio()
            .arg("report")
            .arg("--from")
            .arg(&file)
            .output()
            .unwrap();
        assert!(
            again.status.success(),
            "report --from {}: {}",
            args[0],
            String::from_utf8_lossy(&again.stderr)
        );
    }
    assert!(
        undocumented.is_empty(),
        "fields missing from docs/result-schema.json: {undocumented:?}"
    );
}

/// The long flags `dbio CMD --help` lists (CMD empty: dbio's own).
fn help_flags(cmd: &[&str]) -> BTreeSet<String> {
    let out = dbio().args(cmd).arg("--help").output().unwrap();
    assert!(out.status.success(), "{cmd:?} --help");
    flags_in(&String::from_utf8_lossy(&out.stdout))
}

/// Every `--flag` written in `text`.
fn flags_in(text: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let mut rest = text;
    while let Some(i) = rest.find("--") {
        let before = rest[..i].chars().last();
        rest = &rest[i + 2..];
        let name: String = rest
            .chars()
            .take_while(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || *c == '-')
            .collect();
        let word_start = before.is_none_or(|c| !c.is_ascii_alphanumeric() && c != '-');
        if word_start && name.starts_with(|c: char| c.is_ascii_lowercase()) {
            out.insert(name.trim_end_matches('-').to_string());
        }
    }
    out
}

/// The docs name only flags dbio has, in the command that has them: every
/// `dbio CMD ...` line of a code block uses flags of `dbio CMD --help`,
/// and every other `--flag` in README.md and docs/*.md is a flag of some
/// command, another tool's (listed here), or a renamed flag's old name
/// on a line that says it is the old name.
#[test]
fn docs_name_only_flags_the_help_lists() {
    let root = env!("CARGO_MANIFEST_DIR");
    let top = dbio().arg("--help").output().unwrap();
    let top = String::from_utf8_lossy(&top.stdout).into_owned();
    let commands: Vec<String> = top
        .split("Commands:")
        .nth(1)
        .unwrap()
        .lines()
        .skip(1)
        .take_while(|l| !l.trim().is_empty())
        .filter(|l| l.starts_with("  ") && !l.starts_with("   "))
        .filter_map(|l| l.split_whitespace().next().map(str::to_string))
        .filter(|c| c != "help")
        .collect();
    let per_command: std::collections::BTreeMap<&str, BTreeSet<String>> = commands
        .iter()
        .map(|c| (c.as_str(), help_flags(&[c])))
        .collect();
    let every: BTreeSet<String> = per_command.values().flatten().cloned().collect();
    // Flags of other tools and of scripts/ that the docs quote.
    let others = [
        "before",
        "check",
        "command",
        "ioengine",
        "locked",
        "no-act",
        "no-build",
        "features",
        "only",
        "path",
        "profile",
        "release",
        "screenshot",
        "target",
        "tool",
        "r",
    ];
    let mut files = vec![format!("{root}/README.md")];
    for e in std::fs::read_dir(format!("{root}/docs")).unwrap() {
        let p = e.unwrap().path();
        if p.extension().is_some_and(|x| x == "md") {
            files.push(p.display().to_string());
        }
    }
    let mut wrong = Vec::new();
    for file in &files {
        let text = std::fs::read_to_string(file).unwrap();
        let mut in_code = false;
        let mut joined = String::new();
        for line in text.lines() {
            if line.trim_start().starts_with("```") {
                in_code = !in_code;
                continue;
            }
            for f in flags_in(line) {
                let old_name = line.contains("old name") || line.contains("still accepted");
                if !every.contains(&f) && !others.contains(&f.as_str()) && !old_name {
                    wrong.push(format!("{file}: --{f} is no flag of dbio: {line}"));
                }
            }
            if !in_code {
                continue;
            }
            // A command in a code block, with its continuation lines.
            joined.push_str(line.trim_end_matches('\\'));
            joined.push(' ');
            if line.ends_with('\\') {
                continue;
            }
            let cmdline = std::mem::take(&mut joined);
            let cmdline = cmdline.split(" #").next().unwrap();
            // Each `dbio CMD` on the line (`a && b`, `watch -- dbio ...`)
            // owns the flags up to the next one.
            let mut flags: Option<&BTreeSet<String>> = None;
            let mut words = cmdline.split_whitespace();
            while let Some(w) = words.next() {
                if w == "dbio" {
                    flags = words.next().and_then(|c| per_command.get(c));
                    continue;
                }
                let Some(flags) = flags else { continue };
                for f in flags_in(w) {
                    if !flags.contains(&f) {
                        wrong.push(format!("{file}: --{f} is no flag of: {cmdline}"));
                    }
                }
            }
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}
