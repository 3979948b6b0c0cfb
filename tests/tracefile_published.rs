//! `dbio tracefile` against figures another profiler published for public
//! traces (issue 13: "check your figures against a published TVD$XTAT or
//! Method R profile of a public trace").
//!
//! No TVD$XTAT output of a public trace was found. Jared Still published
//! Method R `mrskew` reports of his own public traces: jkstill/oracle-trace
//! @ 83e1ede4f06d, `array-size-tests/logs/mrskew-rpt-2024-03-15_10-17-19.log`
//! (made by `array-size-tests/mrskew-rpt.sh`), which reports, for the
//! statement `4y53369cbbaqf` of each trace, its FETCH calls and its
//! 'SQL*Net message from client' waits (count, total, mean, min, max, in
//! seconds with 6 decimals: exact to the µs). The log names the traces
//! `trace/latency-12ms/...`; the repository keeps them in
//! `array-size-tests/trace/latency-12ms.old-from-vm/` (the same process
//! ids; a later re-run took the old name). mrskew's reports are filtered
//! to that statement, so they give no R; R, CPU and the unaccounted-for
//! time are checked against a second reading of the same traces instead:
//! priitp2/trctools' parser (`scripts/crosscheck-trctools`, figures in
//! docs/tracefile.md), which agreed with dbio to the µs.
//!
//! The traces are not copied into this repository (jkstill/oracle-trace
//! states no licence for them). Point `DBIO_ORACLE_TRACE_REPO` at a
//! checkout of jkstill/oracle-trace, or place one at
//! `../shared/fixtures/oracle/jkstill-oracle-trace`; without either the
//! test is skipped with the reason printed.

use crate::util::{dbio, json};
use std::path::PathBuf;

/// One trace: its file, the mrskew figures for `4y53369cbbaqf` (FETCH
/// calls; 'SQL*Net message from client' calls, total µs, max µs), and
/// trctools' reading (R µs, CPU µs, unaccounted µs, R by the clock µs).
struct Published {
    file: &'static str,
    fetches: u64,
    snmfc_calls: u64,
    snmfc_us: u64,
    snmfc_max_us: u64,
    r_us: u64,
    cpu_us: u64,
    unaccounted_us: i64,
    clock_r_us: u64,
}

const TRACES: &[Published] = &[
    Published {
        file: "cdb1_ora_26130_PF-12ms-010.trc",
        fetches: 10_010,
        snmfc_calls: 10_021,
        snmfc_us: 189_148_232,
        snmfc_max_us: 255_662,
        r_us: 189_562_875,
        cpu_us: 320_381,
        unaccounted_us: -10_875,
        clock_r_us: 190_588_845,
    },
    Published {
        file: "cdb1_ora_26642_PF-12ms-020.trc",
        fetches: 5_010,
        snmfc_calls: 5_021,
        snmfc_us: 64_604_950,
        snmfc_max_us: 47_776,
        r_us: 64_842_392,
        cpu_us: 163_930,
        unaccounted_us: -4_791,
        clock_r_us: 65_348_269,
    },
    Published {
        file: "cdb1_ora_26829_PF-12ms-050.trc",
        fetches: 2_010,
        snmfc_calls: 2_011,
        snmfc_us: 18_589_813,
        snmfc_max_us: 51_277,
        r_us: 18_790_327,
        cpu_us: 73_392,
        unaccounted_us: -1_921,
        clock_r_us: 18_986_059,
    },
    Published {
        file: "cdb1_ora_26889_PF-12ms-100.trc",
        fetches: 1_010,
        snmfc_calls: 1_011,
        snmfc_us: 18_944_690,
        snmfc_max_us: 167_175,
        r_us: 19_100_475,
        cpu_us: 96_076,
        unaccounted_us: -36_272,
        clock_r_us: 19_213_109,
    },
    Published {
        file: "cdb1_ora_26977_PF-12ms-200.trc",
        fetches: 510,
        snmfc_calls: 511,
        snmfc_us: 7_477_630,
        snmfc_max_us: 49_281,
        r_us: 7_596_031,
        cpu_us: 64_758,
        unaccounted_us: -23_281,
        clock_r_us: 7_651_435,
    },
    Published {
        file: "cdb1_ora_27005_PF-12ms-300.trc",
        fetches: 350,
        snmfc_calls: 351,
        snmfc_us: 3_060_174,
        snmfc_max_us: 26_080,
        r_us: 3_185_950,
        cpu_us: 53_578,
        unaccounted_us: -15_558,
        clock_r_us: 3_224_484,
    },
    Published {
        file: "cdb1_ora_27028_PF-12ms-400.trc",
        fetches: 260,
        snmfc_calls: 261,
        snmfc_us: 2_314_539,
        snmfc_max_us: 24_714,
        r_us: 2_438_484,
        cpu_us: 48_203,
        unaccounted_us: -14_014,
        clock_r_us: 2_471_090,
    },
    Published {
        file: "cdb1_ora_27049_PF-12ms-500.trc",
        fetches: 210,
        snmfc_calls: 211,
        snmfc_us: 8_791_792,
        snmfc_max_us: 136_029,
        r_us: 8_968_316,
        cpu_us: 52_361,
        unaccounted_us: -14_698,
        clock_r_us: 8_994_601,
    },
];

/// The directory of the traces, or why there is none.
fn trace_dir() -> Result<PathBuf, String> {
    let repo = match std::env::var_os("DBIO_ORACLE_TRACE_REPO") {
        Some(p) => PathBuf::from(p),
        None => PathBuf::from(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../shared/fixtures/oracle/jkstill-oracle-trace"
        )),
    };
    let dir = repo.join("array-size-tests/trace/latency-12ms.old-from-vm");
    if dir.join(TRACES[0].file).is_file() {
        Ok(dir)
    } else {
        Err(format!(
            "{} holds no jkstill/oracle-trace traces (set DBIO_ORACLE_TRACE_REPO to a checkout of jkstill/oracle-trace)",
            dir.display()
        ))
    }
}

#[test]
fn tracefile_agrees_with_published_mrskew_figures_and_a_second_parser() {
    let dir = or_skip!(trace_dir());
    for t in TRACES {
        let path = dir.join(t.file);
        let out = dbio()
            .arg("tracefile")
            .arg(&path)
            .args(["--json", "-"])
            .assert()
            .success()
            .get_output()
            .stdout
            .clone();
        let v = json(&out);
        let s = v["statements"]
            .as_array()
            .unwrap()
            .iter()
            .find(|s| s["key"] == "4y53369cbbaqf")
            .unwrap_or_else(|| panic!("{}: no statement 4y53369cbbaqf", t.file));
        assert_eq!(s["fetches"], t.fetches, "{}: FETCH calls", t.file);
        let w = s["waits"]
            .as_array()
            .unwrap()
            .iter()
            .find(|w| w["event"] == "SQL*Net message from client")
            .unwrap();
        assert_eq!(
            (&w["count"], &w["total_us"], &w["max_us"]),
            (
                &t.snmfc_calls.into(),
                &t.snmfc_us.into(),
                &t.snmfc_max_us.into()
            ),
            "{}: 'SQL*Net message from client' of 4y53369cbbaqf against mrskew",
            t.file
        );
        let p = &v["profile"];
        assert_eq!(
            (
                &p["response_time_us"],
                &p["cpu_us"],
                &p["unaccounted_us"],
                &p["clock_response_time_us"]
            ),
            (
                &t.r_us.into(),
                &t.cpu_us.into(),
                &t.unaccounted_us.into(),
                &t.clock_r_us.into()
            ),
            "{}: R, CPU, unaccounted-for and R by the clock against trctools' reading",
            t.file
        );
    }
}

/// trctools' reading of the shared fixtures (`scripts/crosscheck-trctools`,
/// docs/tracefile.md): file, R µs, CPU µs, unaccounted µs, R by the clock
/// µs.
const SHARED: &[(&str, u64, u64, i64, u64)] = &[
    (
        "jkstill-122-rac-9850.trc",
        5_418_809,
        87_387,
        216_458,
        5_512_752,
    ),
    (
        "trctools-19c-mixed-execs.trc",
        13_298,
        4_167,
        -571,
        546_387_658,
    ),
    (
        "trctools-19c-two-stmts-one-cursor.trc",
        115_285,
        49_775,
        3_279,
        5_123_413_704,
    ),
    ("trctools-19c-lobs.trc", 84_290, 1_026, 0, 86_072),
];

#[test]
fn tracefile_r_agrees_with_a_second_parser_on_the_shared_fixtures() {
    let dir = PathBuf::from(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../shared/fixtures/oracle"
    ));
    if !dir.join(SHARED[0].0).is_file() {
        return crate::util::skip_this_test(&format!(
            "{} holds no shared Oracle fixtures",
            dir.display()
        ));
    }
    for &(file, r_us, cpu_us, unaccounted_us, clock_r_us) in SHARED {
        let out = dbio()
            .arg("tracefile")
            .arg(dir.join(file))
            .args(["--json", "-"])
            .assert()
            .success()
            .get_output()
            .stdout
            .clone();
        let p = &json(&out)["profile"];
        assert_eq!(
            (
                &p["response_time_us"],
                &p["cpu_us"],
                &p["unaccounted_us"],
                &p["clock_response_time_us"]
            ),
            (
                &r_us.into(),
                &cpu_us.into(),
                &unaccounted_us.into(),
                &clock_r_us.into()
            ),
            "{file}: R, CPU, unaccounted-for and R by the clock against trctools' reading"
        );
    }
}
