//! The two real reports of the shared fixtures (AGPL-3.0, not copied into
//! this repository: read from `../shared/fixtures/oracle` when present,
//! skipped with a printed reason otherwise), with numbers checked against
//! their text.

use dbio_awr::derive::{derive, Thresholds};
use dbio_model::awr::{AwrReport, ReportKind};
use std::path::PathBuf;

fn fixture(name: &str) -> Option<Vec<u8>> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/fixtures/oracle");
    let p = dir.join(name);
    match std::fs::read(&p) {
        Ok(b) => Some(b),
        Err(e) => {
            eprintln!("skipped: fixture {} is absent ({e})", p.display());
            None
        }
    }
}

fn parsed(name: &str) -> Option<AwrReport> {
    let b = fixture(name)?;
    let mut r = dbio_awr::parse(&b, name).expect("a report");
    derive(&mut r, &Thresholds::default());
    Some(r)
}

#[test]
fn awr_12201_aix_numbers_equal_their_text() {
    let Some(r) = parsed("jasmin-awr-12201-aix.txt") else {
        return;
    };
    assert_eq!(r.kind, ReportKind::AwrText);
    let h = &r.header;
    assert_eq!(h.db_name.as_deref(), Some("BPSC"));
    assert_eq!(h.instance.as_deref(), Some("bpsc"));
    assert_eq!(h.version.as_deref(), Some("12.2.0.1.0"));
    assert_eq!(h.host.as_deref(), Some("oracle1"));
    assert_eq!(h.platform.as_deref(), Some("AIX-Based Systems (64-bit)"));
    assert_eq!(h.cpus, Some(40.0));
    assert!(!h.rac);
    assert_eq!((h.begin_snap, h.end_snap), (Some(2668), Some(2669)));
    assert_eq!(h.elapsed_s, Some(60.25 * 60.0));
    assert_eq!(h.db_time_s, Some(66.24 * 60.0));

    let lfs = r.event("log file sync").unwrap();
    assert_eq!(lfs.waits, Some(77_820.0));
    assert_eq!(lfs.avg_us, Some(373.76));
    assert_eq!(lfs.time_s, Some(29.0));
    let lfpw = r.event("log file parallel write").unwrap();
    assert_eq!(lfpw.waits, Some(103_636.0));
    assert_eq!(lfpw.avg_us, Some(386.73));
    assert_eq!(lfpw.pct_db_time, Some(30.1));
    let seq = r.event("db file sequential read").unwrap();
    assert_eq!((seq.waits, seq.avg_us), (Some(360_121.0), Some(109.72)));
    // A name cut at the column width, an average in ms, an idle event.
    let cf = r.event("control file sequential re").unwrap();
    assert_eq!(cf.waits, Some(17_546.0));
    let wd = r.event("watchdog main loop").unwrap();
    assert_eq!(wd.avg_us, Some(3_000_060.0));
    assert_eq!(r.top_events[0].name, "DB CPU");
    assert_eq!(r.top_events[0].time_s, Some(1234.8));
    assert_eq!(r.top_events[4].class.as_deref(), Some("Concurre"));

    let lp = r
        .load_profile
        .iter()
        .find(|p| p.name == "Redo size (bytes)")
        .unwrap();
    assert_eq!(
        (lp.per_second, lp.per_transaction),
        (Some(146_118.4), Some(7_016.0))
    );
    assert_eq!(r.stat("redo size"), Some(528_179_268.0));
    assert_eq!(r.stat("user commits"), Some(74_563.0));
    assert_eq!(r.stat("redo wastage"), Some(32_205_656.0));

    let h = r.histogram("log file sync").unwrap();
    assert_eq!(h.total_waits, 77_900.0);
    let pcts: Vec<f64> = h.cells.iter().take(8).map(|c| c.pct).collect();
    assert_eq!(pcts, [0.0, 0.0, 0.1, 0.5, 2.8, 13.8, 73.3, 9.6]);
    let seqh = r.histogram("db file sequential read").unwrap();
    assert_eq!(seqh.total_waits, 363_300.0);
    // 90.6 % of 363.3K below 128 µs: bucket 7 (64..128 µs).
    assert_eq!(
        seqh.buckets.counts[7],
        (0.906f64 * 363_300.0).round() as u64
    );

    let d = &r.derived;
    let size = d.redo_write_size_bytes.unwrap();
    assert!((size - 528_179_268.0 / r.stat("redo writes").unwrap()).abs() < 1e-9);
    assert!((d.lfs_lfpw_ratio.unwrap() - 373.76 / 386.73).abs() < 1e-12);
    assert_eq!(d.log_switches_per_hour, Some(5.98));
    let t = d.read_tiers.as_ref().unwrap();
    // 90.6 % in 64..128 µs: above the 100 µs page-cache threshold's
    // bucket edge, so storage cache; .4 % at or above 512 µs... device.
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
    let h = &r.header;
    assert_eq!(h.db_name.as_deref(), Some("CLINPRD"));
    assert_eq!(h.instance.as_deref(), Some("clinprd1"));
    assert_eq!(h.version.as_deref(), Some("12.1.0.2.0"));
    assert_eq!(h.host.as_deref(), Some("cgm-szara.root.d"));
    assert_eq!(h.cpus, Some(22.0));
    assert_eq!((h.begin_snap, h.end_snap), (Some(70371), Some(70372)));
    assert_eq!(h.elapsed_s, Some(60.02 * 60.0));
    let lfs = r.event("log file sync").unwrap();
    assert_eq!((lfs.waits, lfs.avg_us), (Some(4_491.0), Some(5_000.0)));
    let lfpw = r.event("log file parallel write").unwrap();
    assert_eq!((lfpw.waits, lfpw.time_s), (Some(5_226.0), Some(31.0)));
    assert_eq!(r.top_events[0].name, "LGWR worker group idle");
    assert_eq!(r.stat("redo size"), Some(240_192_332.0));
    assert_eq!(r.stat("redo write time (usec)"), Some(31_032_413.0));
    let d = &r.derived;
    assert!((d.redo_write_size_bytes.unwrap() - 240_192_332.0 / 5_225.0).abs() < 1e-9);
    assert!((d.redo_write_time_us.unwrap() - 31_032_413.0 / 5_225.0).abs() < 1e-9);
    assert_eq!(d.log_switches_per_hour, Some(2.0));
    let h = r.histogram("log file parallel write").unwrap();
    assert_eq!(h.total_waits, 5225.0);
    assert_eq!(h.cells[0].pct, 6.2);
    assert_eq!(h.cells[0].hi_us, Some(1024));
    assert!(r.histogram("direct path read").is_some());
    assert!(r
        .tables
        .iter()
        .any(|t| t.section == "File Read Histogram Stats"));
}
