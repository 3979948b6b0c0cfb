//! The two real reports of the shared fixtures (AGPL-3.0, not copied into
//! this repository: read from `../shared/fixtures/oracle` when present,
//! skipped with a printed reason otherwise, a failure under CI), with
//! every number checked against their text: each figure equals what the
//! report prints, within the precision it prints it at.

use dbio_awr::derive::{derive, Thresholds};
use dbio_model::awr::{AwrReport, PctOf, ReportKind, TotalWaitsFrom, WaitEventRow};
use std::path::PathBuf;

/// `shared/` sits beside the repository (`../shared` from its root); some
/// checkouts carry it inside the root instead.
fn fixture(name: &str) -> Option<Vec<u8>> {
    let candidates = [
        concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../../shared/fixtures/oracle"
        ),
        concat!(env!("CARGO_MANIFEST_DIR"), "/../../shared/fixtures/oracle"),
    ];
    let Some(dir) = candidates.iter().map(PathBuf::from).find(|d| d.is_dir()) else {
        // CI always runs with shared/ beside the clone: a silent skip there
        // would hide every fixture check, so absence is a failure in CI.
        assert!(
            std::env::var_os("CI").is_none(),
            "shared/fixtures/oracle is absent, and CI runs with ../shared beside the repository"
        );
        eprintln!("SKIP: shared/fixtures/oracle is absent (reference material not checked out beside the repository)");
        return None;
    };
    Some(std::fs::read(dir.join(name)).unwrap_or_else(|e| panic!("{name}: {e}")))
}

/// An event row as compared: name, waits, time, average, share.
type Ev4<'a> = (&'a str, Option<f64>, Option<f64>, Option<f64>, Option<f64>);

fn parsed(name: &str) -> Option<AwrReport> {
    let b = fixture(name)?;
    let mut r = dbio_awr::parse(&b, name).expect("a report");
    derive(&mut r, &Thresholds::default());
    Some(r)
}

/// The row of `list` named `name`.
fn row<'a>(list: &'a [WaitEventRow], name: &str) -> &'a WaitEventRow {
    list.iter()
        .find(|e| e.name == name)
        .unwrap_or_else(|| panic!("no row '{name}'"))
}

/// Asserts an average read within the precision of its printed text:
/// `printed_us` ± `half_unit_us` (a whole-ms `5` is 5000 ± 500).
fn within(e: &WaitEventRow, printed_us: f64, half_unit_us: f64) {
    let v = e.avg_us.expect("an average");
    assert!(
        (v - printed_us).abs() <= half_unit_us + 1e-9,
        "'{}': {v} µs is not {printed_us} ± {half_unit_us}",
        e.name
    );
}

#[test]
fn awr_12201_aix_numbers_equal_their_text() {
    let Some(r) = parsed("jasmin-awr-12201-aix.txt") else {
        return;
    };
    assert_eq!(r.kind, ReportKind::AwrText);
    assert_eq!(r.truncated, None);
    assert!(r.notes.is_empty(), "{:?}", r.notes);
    let h = &r.header;
    assert_eq!(h.db_name.as_deref(), Some("BPSC"));
    assert_eq!(h.dbid.as_deref(), Some("1135854311"));
    assert_eq!(h.instance.as_deref(), Some("bpsc"));
    assert_eq!(h.version.as_deref(), Some("12.2.0.1.0"));
    assert_eq!(h.host.as_deref(), Some("oracle1"));
    assert_eq!(h.platform.as_deref(), Some("AIX-Based Systems (64-bit)"));
    assert_eq!(h.cpus, Some(40.0));
    assert!(!h.rac);
    assert_eq!(h.instances, 1);
    assert_eq!((h.begin_snap, h.end_snap), (Some(2668), Some(2669)));
    assert_eq!(h.begin_time.as_deref(), Some("04-Feb-23 19:00:39"));
    assert_eq!(h.end_time.as_deref(), Some("04-Feb-23 20:00:54"));
    assert_eq!(h.elapsed_s, Some(60.25 * 60.0));
    assert_eq!(h.db_time_s, Some(66.24 * 60.0));

    // Load Profile, as printed.
    let lp: Vec<(&str, Option<f64>, Option<f64>)> = r
        .load_profile
        .iter()
        .take(4)
        .map(|p| (p.name.as_str(), p.per_second, p.per_transaction))
        .collect();
    assert_eq!(
        lp,
        [
            ("DB Time(s)", Some(1.1), Some(0.1)),
            ("DB CPU(s)", Some(0.3), Some(0.0)),
            ("Background CPU(s)", Some(0.0), Some(0.0)),
            ("Redo size (bytes)", Some(146_118.4), Some(7_016.0)),
        ]
    );
    let tx = r.load_profile.iter().find(|p| p.name == "Transactions");
    assert_eq!(tx.and_then(|p| p.per_second), Some(20.8));

    // Top 10: every row.
    let top: Vec<Ev4> = r
        .top_events
        .iter()
        .map(|e| (e.name.as_str(), e.waits, e.time_s, e.avg_us, e.pct_db_time))
        .collect();
    assert_eq!(
        top,
        [
            ("DB CPU", None, Some(1234.8), None, Some(31.1)),
            (
                "db file sequential read",
                Some(360_121.0),
                Some(39.5),
                Some(109.72),
                Some(1.0)
            ),
            (
                "log file sync",
                Some(77_820.0),
                Some(29.1),
                Some(373.76),
                Some(0.7)
            ),
            (
                "PGA memory operation",
                Some(620_496.0),
                Some(10.3),
                Some(16.61),
                Some(0.3)
            ),
            (
                "cursor: pin S wait on X",
                Some(553.0),
                Some(8.8),
                Some(15_940.0),
                Some(0.2)
            ),
            (
                "BFILE read",
                Some(15.0),
                Some(6.1),
                Some(403_570.0),
                Some(0.2)
            ),
            (
                "SQL*Net message to client",
                Some(1_914_010.0),
                Some(2.0),
                Some(1.02),
                Some(0.0)
            ),
            (
                "control file sequential read",
                Some(17_546.0),
                Some(1.9),
                Some(109.91),
                Some(0.0)
            ),
            (
                "row cache mutex",
                Some(1_390.0),
                Some(0.6),
                Some(432.45),
                Some(0.0)
            ),
            (
                "db file scattered read",
                Some(1_025.0),
                Some(0.4),
                Some(391.14),
                Some(0.0)
            ),
        ]
    );
    assert_eq!(r.top_events[4].class.as_deref(), Some("Concurre"));
    assert!(r.top_events.iter().all(|e| !e.idle));
    assert_eq!(r.event_pct_of.top, Some(PctOf::DbTime));
    assert_eq!(r.event_pct_of.foreground, Some(PctOf::DbTime));
    assert_eq!(r.event_pct_of.background, Some(PctOf::BgTime));

    // Foreground: 36 rows, the idle ones last, printed without a share.
    let fg = &r.foreground_events;
    assert_eq!(fg.len(), 36);
    let lfs = row(fg, "log file sync");
    assert_eq!(
        (
            lfs.waits,
            lfs.time_s,
            lfs.avg_us,
            lfs.pct_db_time,
            lfs.avg_error_us
        ),
        (Some(77_820.0), Some(29.0), Some(373.76), Some(0.7), None)
    );
    let seq = row(fg, "db file sequential read");
    assert_eq!((seq.waits, seq.avg_us), (Some(360_121.0), Some(109.72)));
    // A name cut at 26 characters, joined to its full name.
    let cf = row(fg, "control file sequential read");
    assert_eq!(
        cf.printed_name.as_deref(),
        Some("control file sequential re")
    );
    assert_eq!((cf.waits, cf.avg_us), (Some(17_546.0), Some(109.91)));
    // `.98ms`, `3000.06ms`, `60.00 s`, `258.01ns`.
    assert_eq!(row(fg, "db file parallel read").avg_us, Some(980.0));
    let wd = row(fg, "watchdog main loop");
    assert_eq!(wd.avg_us, Some(3_000_060.0));
    assert!(wd.idle && wd.pct_db_time.is_none());
    let idle: Vec<&str> = fg
        .iter()
        .filter(|e| e.idle)
        .map(|e| e.name.as_str())
        .collect();
    assert_eq!(
        idle,
        [
            "SQL*Net message from client",
            "watchdog main loop",
            "jobq slave wait",
            "HS message to agent",
            "single-task message"
        ]
    );

    // Background: its share is of background time.
    let bg = &r.background_events;
    assert_eq!(bg.len(), 51);
    let lfpw = row(bg, "log file parallel write");
    assert_eq!(
        (lfpw.waits, lfpw.time_s, lfpw.avg_us, lfpw.pct_db_time),
        (Some(103_636.0), Some(40.0), Some(386.73), Some(30.1))
    );
    assert_eq!(row(bg, "SQL*Net message to client").avg_us, Some(0.25801));
    assert_eq!(row(bg, "dispatcher timer").avg_us, Some(60_000_000.0));
    assert!(row(bg, "LGWR worker group idle").idle);
    assert!(!row(bg, "LGWR any worker group").idle);
    assert_eq!(
        r.event("log file parallel write").unwrap().waits,
        Some(103_636.0)
    );

    // Statistics: the key statistics page and the others, as printed.
    assert_eq!(r.stat("redo size"), Some(528_179_268.0));
    assert_eq!(r.stat("redo writes"), Some(103_638.0));
    assert_eq!(r.stat("redo write time (usec)"), Some(44_104_430.0));
    assert_eq!(r.stat("user commits"), Some(74_563.0));
    assert_eq!(r.stat("user rollbacks"), Some(719.0));
    assert_eq!(r.stat("redo wastage"), Some(32_205_656.0));
    assert_eq!(r.stat("redo synch writes"), Some(77_987.0));
    assert!(r
        .sections
        .iter()
        .any(|s| s.title == "Key Instance Activity Stats" && s.parsed));

    // Histograms: totals are the wait event tables' counts, which agree
    // with the printed `77.9K` (77,820 + 54), `363.3K` (360,121 + 3,188).
    let h = r.histogram("log file sync").unwrap();
    assert_eq!(h.total_waits, 77_874.0);
    assert_eq!(h.total_waits_from, TotalWaitsFrom::WaitEvents);
    assert_eq!(h.printed_total_waits, Some(77_900.0));
    let pcts: Vec<f64> = h.cells.iter().take(8).map(|c| c.pct).collect();
    assert_eq!(pcts, [0.0, 0.0, 0.1, 0.5, 2.8, 13.8, 73.3, 9.6]);
    // `.0` rounds to zero; an empty cell is truly 0.
    assert!(!h.cells[0].blank);
    let seqh = r.histogram("db file sequential read").unwrap();
    assert_eq!(seqh.total_waits, 363_309.0);
    assert!(seqh.cells[0].blank);
    // 90.6 % of 363,309 below 128 µs: bucket 7 (64..128 µs).
    assert_eq!(
        seqh.buckets.counts[7],
        (0.906f64 * 363_309.0).round() as u64
    );
    // Printed whole and not the tables' count (1,390 in the foreground
    // list, the background's too small to be listed): kept as printed.
    let rcm = r.histogram("row cache mutex").unwrap();
    assert_eq!(
        (rcm.total_waits, rcm.total_waits_from),
        (1400.0, TotalWaitsFrom::Printed)
    );
    // Cut at 25 characters and joined.
    let lfsc = r.histogram("log file switch completion").unwrap();
    assert_eq!(
        lfsc.printed_event.as_deref(),
        Some("log file switch completio")
    );
    assert_eq!(lfsc.total_waits, 18.0);
    // The µs histograms are drawn exactly on power-of-two buckets.
    assert!(h.buckets_are_exact() && seqh.buckets_are_exact());

    let d = &r.derived;
    assert_eq!(d.redo_write_size_bytes, Some(528_179_268.0 / 103_638.0));
    assert_eq!(d.redo_write_time_us, Some(44_104_430.0 / 103_638.0));
    assert_eq!(d.commits_per_redo_write, Some(74_563.0 / 103_638.0));
    assert!((d.lfs_lfpw_ratio.unwrap() - 373.76 / 386.73).abs() < 1e-12);
    // Averages printed to 0.01 µs: no bound to carry.
    assert_eq!(d.lfs_lfpw_ratio_error, None);
    assert_eq!(d.lfs_minus_lfpw_error_us, None);
    assert_eq!(d.log_switches_per_hour, Some(5.98));
    let t = d.read_tiers.as_ref().unwrap();
    // 90.6 % in 64..128 µs: above the 100 µs page-cache threshold's
    // bucket edge, so storage cache; .4 % at or above 512 µs: device.
    assert_eq!(t.page_cache, 0.0, "{t:?}");
    assert!(t.storage_cache > 50.0 * t.device, "{t:?}");
    assert!(r
        .sections
        .iter()
        .any(|s| s.title == "SQL ordered by Gets" && !s.parsed));
    assert!(r
        .tables
        .iter()
        .any(|t| t.section == "IOStat by Function summary"));
}

#[test]
fn statspack_12102_numbers_equal_their_text() {
    let Some(r) = parsed("jasmin-statspack-12102.txt") else {
        return;
    };
    assert_eq!(r.kind, ReportKind::Statspack);
    assert_eq!(r.truncated, None);
    let h = &r.header;
    assert_eq!(h.db_name.as_deref(), Some("CLINPRD"));
    assert_eq!(h.dbid.as_deref(), Some("2071347136"));
    assert_eq!(h.instance.as_deref(), Some("clinprd1"));
    assert_eq!(h.version.as_deref(), Some("12.1.0.2.0"));
    assert_eq!(h.host.as_deref(), Some("cgm-szara.root.d"));
    assert_eq!(h.platform.as_deref(), Some("Linux x86 64-bit"));
    assert_eq!(h.cpus, Some(22.0));
    assert!(!h.rac);
    assert_eq!((h.begin_snap, h.end_snap), (Some(70371), Some(70372)));
    assert_eq!(h.begin_time.as_deref(), Some("14-Jan-24 00:37:42"));
    assert_eq!(h.elapsed_s, Some(60.02 * 60.0));
    assert_eq!(h.db_time_s, Some(15.34 * 60.0));
    let redo = r
        .load_profile
        .iter()
        .find(|p| p.name == "Redo size")
        .unwrap();
    assert_eq!(
        (redo.per_second, redo.per_transaction),
        (Some(66_701.6), Some(152_213.1))
    );

    // Top 5: Statspack's stale idle list ranks four idle events above CPU
    // time; they are kept, marked idle; the share is of call time.
    let top: Vec<(&str, bool, Option<f64>)> = r
        .top_events
        .iter()
        .map(|e| (e.name.as_str(), e.idle, e.pct_db_time))
        .collect();
    assert_eq!(
        top,
        [
            ("LGWR worker group idle", true, Some(36.8)),
            ("AQPC idle", true, Some(19.3)),
            ("heartbeat redo informer", true, Some(19.3)),
            ("lreg timer", true, Some(19.3)),
            ("CPU time", false, Some(4.6)),
        ]
    );
    assert_eq!(r.top_events[0].avg_us, Some(1_327_000.0));
    assert_eq!(r.top_events[4].time_s, Some(861.0));
    assert_eq!(r.event_pct_of.top, Some(PctOf::CallTime));
    assert_eq!(r.event_pct_of.foreground, Some(PctOf::CallTime));
    assert_eq!(r.event_pct_of.background, Some(PctOf::CallTime));

    // Foreground and background lists, complete and separate.
    let fg = &r.foreground_events;
    let bg = &r.background_events;
    assert_eq!((fg.len(), bg.len()), (28, 44));
    // Whole-millisecond averages: within the printed ms, and within
    // total time / waits at the printed seconds.
    let lfs = row(fg, "log file sync");
    assert_eq!((lfs.waits, lfs.time_s), (Some(4_491.0), Some(25.0)));
    within(lfs, 5_000.0, 500.0);
    within(lfs, 25e6 / 4491.0, 0.5e6 / 4491.0);
    let lfpw = row(bg, "log file parallel write");
    assert_eq!((lfpw.waits, lfpw.time_s), (Some(5_226.0), Some(31.0)));
    within(lfpw, 6_000.0, 500.0);
    let e = lfpw.avg_error_us.unwrap();
    assert!((e - 0.5e6 / 5226.0).abs() < 1e-6, "{e}");
    // A printed `0` is a bound, never an exact zero: 34 s over 160,620.
    let dpr = row(fg, "direct path read");
    within(dpr, 0.0, 500.0);
    within(dpr, 34e6 / 160_620.0, 0.5e6 / 160_620.0);
    assert!(dpr.avg_us.unwrap() > 200.0 && dpr.avg_error_us.is_some());
    // 6,378 waits in 0 s (printed): under 78.4 µs.
    let adr = row(bg, "asynch descriptor resize");
    let top_us = adr.avg_us.unwrap() + adr.avg_error_us.unwrap();
    assert!((top_us - 0.5e6 / 6378.0).abs() < 1e-9);
    // Cut names joined.
    assert_eq!(
        row(bg, "Space Manager: slave idle wait")
            .printed_name
            .as_deref(),
        Some("Space Manager: slave idle wa")
    );
    assert!(row(bg, "rdbms ipc message").idle);
    assert!(!row(bg, "log file parallel write").idle);

    assert_eq!(r.stat("redo size"), Some(240_192_332.0));
    assert_eq!(r.stat("redo write time (usec)"), Some(31_032_413.0));
    assert_eq!(r.stat("redo synch writes"), Some(4_557.0));
    assert_eq!(r.stat("user commits"), Some(1_557.0));
    let d = &r.derived;
    assert!((d.redo_write_size_bytes.unwrap() - 240_192_332.0 / 5_225.0).abs() < 1e-9);
    assert!((d.redo_write_time_us.unwrap() - 31_032_413.0 / 5_225.0).abs() < 1e-9);
    assert_eq!(d.log_switches_per_hour, Some(2.0));
    // 'log file sync' − 'log file parallel write' carries the bound of
    // the one average not known to 1 %.
    assert_eq!(d.lfs_minus_lfpw_error_us, Some(e));
    let ratio = d.lfs_lfpw_ratio.unwrap();
    let (a, b) = (lfs.avg_us.unwrap(), lfpw.avg_us.unwrap());
    assert!((ratio - a / b).abs() < 1e-12);
    let re = d.lfs_lfpw_ratio_error.unwrap();
    assert!((re - (a / (b - e) - ratio)).abs() < 1e-12, "{re}");

    // Histograms: the whole-number totals as printed; `120K` (cut, not
    // rounded, by Statspack) is the combined table's 120,772.
    let h = r.histogram("log file parallel write").unwrap();
    assert_eq!(h.total_waits, 5225.0);
    assert_eq!(h.cells[0].pct, 6.2);
    assert_eq!(h.cells[0].hi_us, Some(1024));
    let cf = r.histogram("control file sequential read").unwrap();
    assert_eq!(
        (cf.total_waits, cf.printed_total_waits),
        (120_772.0, Some(120_000.0))
    );
    // `<=1s` is 32 ms to 1 s (truly <1024ms); `>1s` from 1 s up; the
    // cells are coarser than power-of-two buckets, so drawn as printed.
    let idle = r.histogram("LGWR worker group idle").unwrap();
    let le1s = idle.cells.iter().find(|c| c.label == "<=1s").unwrap();
    assert_eq!(
        (le1s.lo_us, le1s.hi_us, le1s.pct),
        (32_768, Some(1_048_576), 47.9)
    );
    let gt1s = idle.cells.iter().find(|c| c.label == ">1s").unwrap();
    assert_eq!((gt1s.lo_us, gt1s.hi_us), (1_048_576, None));
    assert!(!idle.buckets_are_exact());
    // `.0` against an empty cell.
    let dfo = r.histogram("Disk file operations I/O").unwrap();
    let c = |l: &str| dfo.cells.iter().find(|c| c.label == l).unwrap();
    assert_eq!((c("<4ms").pct, c("<4ms").blank), (0.0, false));
    assert_eq!((c(">1s").pct, c(">1s").blank), (0.0, true));
    assert!(r.histogram("direct path read").is_some());
    assert!(r
        .tables
        .iter()
        .any(|t| t.section == "File Read Histogram Stats"));
}

#[test]
fn a_real_report_cut_in_half_says_where_it_stops() {
    let Some(b) = fixture("jasmin-awr-12201-aix.txt") else {
        return;
    };
    let half = &b[..b.len() / 2];
    let r = dbio_awr::parse(half, "half").unwrap();
    let t = r.truncated.clone().expect("a truncation note");
    assert!(t.starts_with("the report stops at line "), "{t}");
    assert!(t.contains("in section '"), "{t}");
    // What it holds is read.
    assert_eq!(r.event("log file sync").unwrap().waits, Some(77_820.0));
}

#[test]
fn a_gzip_or_xz_report_reads_as_the_text() {
    use std::io::Write;
    let Some(b) = fixture("jasmin-statspack-12102.txt") else {
        return;
    };
    let plain = dbio_awr::parse(&b, "x").unwrap();
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    gz.write_all(&b).unwrap();
    let mut r = dbio_awr::parse(&gz.finish().unwrap(), "x").unwrap();
    assert_eq!(r.notes, ["read from gzip-compressed input"]);
    r.notes.clear();
    assert_eq!(r, plain);
    let mut xz = xz2::write::XzEncoder::new(Vec::new(), 1);
    xz.write_all(&b).unwrap();
    let r = dbio_awr::parse(&xz.finish().unwrap(), "x").unwrap();
    assert_eq!(r.notes, ["read from xz-compressed input"]);
    assert_eq!(r.foreground_events, plain.foreground_events);
}
