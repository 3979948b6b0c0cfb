//! `dbio check`: the battery runs, concludes in plain words, and its JSON
//! re-renders.

use crate::util::{dbio, dbio_files, json, scratch, Succeeds, Tmpfs};

#[test]
fn check_runs_every_section_and_concludes() {
    let d = scratch();
    // The JSON in a file of its own (not in the checked directory), the
    // table on standard output.
    let results = scratch();
    let file = results.path().join("check.json");
    let out = dbio()
        .args(["check", "--runtime", "300ms", "--size", "32m", "--quiet"])
        .arg("--json")
        .arg(&file)
        .arg(d.path())
        .succeeds();
    let table = String::from_utf8_lossy(&out.stdout);
    let v = json(&std::fs::read(&file).unwrap());
    let jobs = v["jobs"].as_array().unwrap();
    let names: Vec<&str> = jobs.iter().map(|j| j["name"].as_str().unwrap()).collect();
    assert_eq!(
        names,
        [
            "log write 8k O_DIRECT+O_DSYNC",
            "log write 8k buffered+fdatasync",
            "random read 8k",
            "sequential write 1m",
            "sequential read 1m"
        ]
    );
    assert!(jobs[0]["commit"]["count"].as_u64().unwrap() > 0);
    assert!(jobs[0]["job"]["direct"].as_bool().unwrap());
    // Each test runs for --runtime (a loaded machine can only make it
    // longer).
    for j in jobs {
        assert_eq!(j["job"]["runtime_ns"], 300_000_000, "{}", j["name"]);
        assert!(
            j["runtime_ns"].as_u64().unwrap() >= 300_000_000,
            "{}",
            j["name"]
        );
    }
    let conclusions: Vec<&str> = v["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["text"].as_str().unwrap())
        .collect();
    assert!(
        conclusions
            .iter()
            .any(|c| c.starts_with("One session commits up to")),
        "{conclusions:?}"
    );
    assert!(
        conclusions
            .iter()
            .any(|c| c.starts_with("Durability method for the log: ")),
        "{conclusions:?}"
    );
    let reads: Vec<&str> = v["reads"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        reads,
        [
            "check page cache (buffered, warm)",
            "check storage (O_DIRECT)"
        ]
    );
    assert_eq!(v["reads"][0]["config"]["direct"], false);
    assert_eq!(v["reads"][1]["config"]["direct"], true);
    assert!(
        conclusions
            .iter()
            .any(|c| c.starts_with("Reads: an 8 KiB block costs")),
        "{conclusions:?}"
    );
    // See: issue 10. The tiers are attributed with boundaries measured in
    // this run, and no O_DIRECT read is a page-cache hit (whatever its
    // latency: a fixed 100 µs called nearly all of them page-cache hits).
    let storage = &v["reads"][1];
    let count = |r: &serde_json::Value, tier: &str| r["tiers"][tier]["count"].as_u64().unwrap();
    assert_eq!(count(storage, "page_cache"), 0, "{}", storage["tiers"]);
    assert_eq!(
        count(storage, "storage_cache") + count(storage, "device"),
        storage["ops"].as_u64().unwrap()
    );
    assert!(storage["ops"].as_u64().unwrap() > 0);
    let att = &storage["attribution"];
    assert_eq!(att["direct"], true, "{att}");
    assert_eq!(v["reads"][0]["attribution"]["direct"], false);
    // Both boundaries measured: page-cache hits against O_DIRECT reads,
    // O_DIRECT re-reads against O_DIRECT reads, each with its fit.
    // (Where no block device is under the directory, as on tmpfs, there
    // is no device tier to measure a boundary to.)
    let device_tier = att["storage_cache_max"]["source"] != "no_device";
    for b in ["page_cache_max", "storage_cache_max"] {
        if b == "storage_cache_max" && !device_tier {
            assert_eq!(count(storage, "device"), 0, "{att}");
            continue;
        }
        assert_eq!(att[b]["source"], "measured", "{att}");
        assert!(att[b]["fit"]["ns"].as_u64().unwrap() > 0, "{att}");
    }
    let page_ns = att["page_cache_max"]["ns"].as_u64().unwrap();
    assert_eq!(
        v["reads"][1]["thresholds"]["page_cache_max_ns"].as_u64(),
        Some(page_ns)
    );
    // The warm buffered reads: page-cache hits below the measured boundary.
    assert!(count(&v["reads"][0], "page_cache") > 0);
    // The detail names the boundaries and their source; the storage row
    // has no page-cache line.
    let detail = dbio()
        .args(["report", "--detail", "--from"])
        .arg(&file)
        .succeeds();
    let detail = String::from_utf8_lossy(&detail.stdout);
    let line = detail
        .lines()
        .find(|l| l.starts_with("Tier boundaries: page cache < "))
        .unwrap_or_else(|| panic!("{table}"));
    assert!(line.contains("(measured in this run"), "{line}");
    assert!(
        !detail
            .lines()
            .any(|l| l.contains("check storage (O_DIRECT)") && l.contains("page cache ┆")),
        "{detail}"
    );
    // The commit section: 1 and 10 sessions, then the other methods.
    let lgwr = v["lgwr"].as_array().unwrap();
    assert!(lgwr.len() >= 3, "{} commit runs", lgwr.len());
    assert_eq!(lgwr[0]["config"]["sessions"], 1);
    assert_eq!(lgwr[1]["config"]["sessions"], 10);
    assert!(lgwr.iter().all(|x| x["commits"].as_u64().unwrap() > 0));
    assert!(
        conclusions
            .iter()
            .any(|c| c.contains("at 10 sessions this storage commits about")),
        "{conclusions:?}"
    );
    assert!(
        conclusions
            .iter()
            .any(|c| c.contains("under group commit (10 sessions)") && c.contains("is fastest at")),
        "{conclusions:?}"
    );
    // The database section: embedded SQLite at 1 and 10 sessions.
    let load = v["load"].as_array().unwrap();
    assert_eq!(load.len(), 2, "{load:?}");
    assert_eq!(load[0]["config"]["sessions"], 1);
    assert_eq!(load[1]["config"]["sessions"], 10);
    assert!(load.iter().all(|x| x["commits"].as_u64().unwrap() > 0));
    assert!(
        conclusions
            .iter()
            .any(|c| c.starts_with("A real database engine (SQLite, embedded")),
        "{conclusions:?}"
    );
    // The writer section: one writer, everything written by the end.
    let w = &v["dbwr"][0];
    assert_eq!(w["name"], "writer check");
    assert_eq!(w["config"]["writers"].as_u64(), Some(1));
    // Every change is written by the shutdown checkpoint at the latest, and
    // nothing is written that was not changed (how many changes fit in the
    // section depends on the machine's load, so no count is required).
    let (changes, written) = (
        w["foreground"]["changes"].as_u64().unwrap(),
        w["writes"]["blocks_written"].as_u64().unwrap(),
    );
    assert_eq!(
        written > 0,
        changes > 0,
        "{changes} changes, {written} written"
    );
    assert!(written <= changes, "{changes} changes, {written} written");
    assert_eq!(w["dirty_after_shutdown"].as_u64(), Some(0));
    assert!(
        conclusions
            .iter()
            .any(|c| c.starts_with("One database writer")),
        "{conclusions:?}"
    );
    assert!(dbio_files(d.path()).is_empty(), "scratch file left behind");
    // See: issue 10, item 4, and issue 23. The saved result re-renders to
    // the screen check printed (the result's `layout`): the answer and one
    // headline table; `--detail` gives each section's summary tables.
    assert_eq!(v["layout"], "brief");
    let again = dbio().arg("report").arg("--from").arg(&file).succeeds();
    assert_eq!(String::from_utf8_lossy(&again.stdout), table);
    assert!(!table.contains("Commit path (log writer with group commit):"));
    assert!(detail.contains("Commit path (log writer with group commit):"));
    assert!(detail.lines().count() > 100, "{detail}");
    // See: issue 23. One screen: at most 40 lines of at most 100 columns,
    // the answer within the first 10, and the answer is in the result.
    one_screen_with_the_answer_first(&table);
    assert_eq!(v["verdict"]["class"], "capability", "{}", v["verdict"]);
    let answer = v["verdict"]["answer"].as_str().unwrap();
    assert!(answer.contains("one session commits"), "{answer}");
    assert!(table.contains(&format!("=> {}", &answer[..40])), "{table}");
}

/// The default screen of `dbio check`: at most 40 lines of at most 100
/// columns, the question on line 2 and the answer on line 3.
fn one_screen_with_the_answer_first(table: &str) {
    let lines: Vec<&str> = table.lines().collect();
    assert!(lines.len() <= 40, "{} lines:\n{table}", lines.len());
    for l in &lines {
        assert!(
            l.chars().count() <= 100,
            "{} columns: {l}",
            l.chars().count()
        );
    }
    assert!(lines[1].starts_with("What does "), "{table}");
    assert!(lines[2].starts_with("=> "), "{table}");
}

/// See: issue 23. tmpfs is memory: check names it, calls nothing good for
/// a log, and answers "not durable" first.
#[test]
fn check_on_tmpfs_says_it_is_memory_and_not_durable() {
    let fs = or_skip!(Tmpfs::mount("256m"));
    let out = dbio()
        .args(["check", "--runtime", "200ms", "--size", "32m", "--quiet"])
        .arg(fs.path())
        .succeeds();
    let table = String::from_utf8_lossy(&out.stdout);
    one_screen_with_the_answer_first(&table);
    let answer = table.lines().nth(2).unwrap();
    assert!(
        answer.starts_with("=> Not durable storage: ") && answer.contains("tmpfs (memory)"),
        "{table}"
    );
    assert!(!table.contains("good for"), "{table}");
}

#[test]
fn check_refuses_a_missing_directory() {
    dbio()
        .args(["check", "/nonexistent/dbio-check"])
        .assert()
        .code(2)
        .stderr(predicates::str::contains(
            "the directory /nonexistent/dbio-check does not exist",
        ));
}

/// On ramfs (no O_DIRECT, no user extended attributes) check runs every
/// section buffered, says so, names no test O_DIRECT, and leaves nothing
/// behind, as the guide says.
#[test]
fn check_on_ramfs_runs_buffered_and_warns() {
    let fs = or_skip!(Tmpfs::ramfs());
    let out = dbio()
        .args([
            "check",
            "--runtime",
            "200ms",
            "--size",
            "32m",
            "--quiet",
            "--json",
            "-",
        ])
        .arg(fs.path())
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v = json(&out.stdout);
    let jobs = v["jobs"].as_array().unwrap();
    assert_eq!(jobs.len(), 5);
    for j in jobs {
        assert_eq!(j["job"]["direct"], false, "{j}");
        let name = j["name"].as_str().unwrap();
        assert!(!name.contains("O_DIRECT"), "{name} ran buffered");
    }
    assert_eq!(jobs[0]["name"], "log write 8k buffered+O_DSYNC");
    let warnings = v["findings"].to_string();
    assert!(
        warnings.contains("does not support O_DIRECT (ramfs)"),
        "{warnings}"
    );
    assert!(warnings.contains("could not mark"), "{warnings}");
    // ramfs is memory: not durable, never good for a log.
    assert_eq!(v["verdict"]["class"], "non_durable", "{}", v["verdict"]);
    assert!(!warnings.contains("good for"), "{warnings}");
    assert!(!v["lgwr"].as_array().unwrap().is_empty());
    assert!(!v["reads"].as_array().unwrap().is_empty());
    assert!(!v["dbwr"].as_array().unwrap().is_empty());
    assert!(v["partial"].is_null(), "{}", v["partial"]);
    assert!(
        dbio_files(fs.path()).is_empty(),
        "scratch files left behind"
    );
}
