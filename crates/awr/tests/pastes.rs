//! Report sections as DBAs paste them into articles and e-mails: dbio
//! must reproduce the authors' own arithmetic from them.
//!
//! The pastes are quoted from the articles they appeared in (the numbers
//! only), named in each test.

use dbio_awr::derive::{derive, Thresholds};
use dbio_model::awr::{AwrReport, ReportKind};

fn parse(text: &str) -> AwrReport {
    let mut r = dbio_awr::parse(text.as_bytes(), "paste").unwrap();
    derive(&mut r, &Thresholds::default());
    r
}

/// "Analyzing Oracle Logwriter w/ buffered vs. direct I/O": the
/// statistics of a forcedirectio import, pasted with the whitespace
/// collapsed into one line. The author: "an average lgwr I/O of 2731
/// Bytes (redo size / redo writes) with an average servicetime of 4,2 ms
/// ... the times listed in v$sysstat is measured in cs".
#[test]
fn a_collapsed_statistics_paste_gives_2731_bytes_and_4_2_ms_per_redo_write() {
    let r = parse("Event Statistic Total per Second per Trans redo size 48,438,904 267,760.27 2,734.50 redo synch time 7,384 40.82 0.42 redo synch writes 17,864 98.75 1.01 redo wastage 5,559,348 30,730.93 313.84 redo write time 7,381 40.80 0.42 redo writer latching time 0 0.00 0.00 redo writes 17,734 98.03 1.00");
    assert_eq!(r.kind, ReportKind::Pasted);
    assert_eq!(r.stat("redo size"), Some(48_438_904.0));
    assert_eq!(r.stat("redo writes"), Some(17_734.0));
    assert_eq!(r.stat("redo writer latching time"), Some(0.0));
    let s = r
        .statistics
        .iter()
        .find(|s| s.name == "redo synch writes")
        .unwrap();
    assert_eq!(
        (s.total, s.per_second, s.per_transaction),
        (17_864.0, Some(98.75), Some(1.01))
    );
    let d = &r.derived;
    assert_eq!(d.redo_write_size_bytes.unwrap().floor(), 2731.0);
    // 7,381 cs / 17,734 writes = 0.416 cs = 4.2 ms.
    let ms = d.redo_write_time_us.unwrap() / 1000.0;
    assert_eq!((ms * 10.0).round() / 10.0, 4.2);
    let f = dbio_report::findings::evaluate_awr(&r);
    assert!(f.iter().any(|f| f.rule == "awr.small_redo_writes"), "{f:?}");
}

/// The same article, buffered I/O: 73.8 s against 110 s of redo write
/// time, and the large-commit test's "about 400 KB/redo write".
#[test]
fn the_buffered_run_and_the_large_commit_run() {
    let r = parse("Event Statistic Total per Second per Trans redo size 50,214,248 293,724.43 2,832.48 redo synch time 10,993 64.30 0.62 redo synch writes 17,870 104.53 1.01 redo wastage 5,609,796 32,814.08 316.44 redo write time 10,999 64.34 0.62 redo writer latching time 0 0.00 0.00 redo writes 17,728 103.70 1.00");
    assert_eq!(r.stat("redo write time"), Some(10_999.0));
    assert_eq!(
        (r.derived.redo_write_time_us.unwrap() / 100.0).round() / 10.0,
        6.2
    );
    let r = parse("Event Statistic Total per Second per Trans redo size 39,506,404 314,606.56 564,377.20 redo write time 3,222 25.66 46.03 redo writes 99 0.79 1.41");
    let kb = r.derived.redo_write_size_bytes.unwrap() / 1000.0;
    assert!((395.0..=400.0).contains(&kb), "{kb}");
}

/// "Log File Sync wait event and SSD disks": 100,030 commits waiting
/// 20.8 ms each on 'log file sync' while 'log file parallel write' took
/// 0.1 ms; the statistic lines under the table are statistics.
#[test]
fn an_event_table_paste_sets_log_file_sync_against_the_log_write() {
    let r = parse(
        "AWR statistics
-----------------------------------------------------------------------------------
Event                          Wait Class           Waits      Time(s)  Avg Time(ms)    %DB time
------------------------------ ------------- ------------ ------------ ------------- -----------
 log file sync                 Commit             100,030      2,084.1          20.8        95.5
 log file parallel write       System I/O          14,032          0.9           0.1         0.0
 redo synch time                208,871 s
 redo synch writes              100,030
",
    );
    let lfs = r.event("log file sync").unwrap();
    assert_eq!(lfs.class.as_deref(), Some("Commit"));
    assert_eq!(
        (lfs.waits, lfs.time_s, lfs.avg_us),
        (Some(100_030.0), Some(2_084.1), Some(20_800.0))
    );
    assert_eq!(lfs.pct_db_time, Some(95.5));
    assert_eq!(r.stat("redo synch time"), Some(208_871.0));
    assert_eq!(r.stat("redo synch writes"), Some(100_030.0));
    // The article's 208× is 20.8 ms / 0.1 ms, the log write's average
    // printed to one digit (0.05 to 0.15 ms); its 0.9 s over 14,032
    // writes puts it at 60.6 to 67.7 µs, which both hold: 64.1 µs.
    let lfpw = r.event("log file parallel write").unwrap();
    let (lo, hi) = (0.85e6 / 14_032.0, 0.95e6 / 14_032.0);
    assert!((lfpw.avg_us.unwrap() - (lo + hi) / 2.0).abs() < 1e-9);
    assert!((lfpw.avg_error_us.unwrap() - (hi - lo) / 2.0).abs() < 1e-9);
    let d = &r.derived;
    let ratio = 20_800.0 / ((lo + hi) / 2.0);
    assert!((d.lfs_lfpw_ratio.unwrap() - ratio).abs() < 1e-9);
    // The ratio's bound: 20.8 ms over the lowest log write.
    assert!((d.lfs_lfpw_ratio_error.unwrap() - (20_800.0 / lo - ratio)).abs() < 1e-9);
    assert!((d.lfs_minus_lfpw_us.unwrap() - (20_800.0 - (lo + hi) / 2.0)).abs() < 1e-9);
    assert!((d.lfs_minus_lfpw_error_us.unwrap() - (hi - lo) / 2.0).abs() < 1e-9);
    let f = dbio_report::findings::evaluate_awr(&r);
    assert_eq!(f[0].rule, "awr.commit_not_io");
}

/// Kevin Closson, "Over-Configuring DBWR Processes – Part III": the
/// Statspack Top 5 of the 8-writer run, with 'log file switch
/// (checkpoint incomplete)'.
#[test]
fn a_statspack_top_5_paste_shows_the_checkpoint_stall() {
    let r = parse(
        "Top 5 Timed Events                                                    Avg %Total
~~~~~~~~~~~~~~~~~~                                                   wait   Call
Event                                            Waits    Time (s)   (ms)   Time
----------------------------------------- ------------ ----------- ------ ------
CPU time                                                     3,148          35.8
log file sync                                1,207,863       2,905      2   33.1
log file switch (checkpoint incomplete)          4,627         828    179    9.4
db file scattered read                         172,724         670      4    7.6
log file parallel write                        532,373         464      1    5.3
          -------------------------------------------------------------
",
    );
    let e = r.event("log file switch (checkpoint incomplete)").unwrap();
    assert_eq!(
        (e.waits, e.time_s, e.avg_us),
        (Some(4_627.0), Some(828.0), Some(179_000.0))
    );
    assert_eq!(r.event("CPU time").unwrap().time_s, Some(3_148.0));
    let f = dbio_report::findings::evaluate_awr(&r);
    assert!(f.iter().any(|f| f.rule == "awr.log_switch_stall"), "{f:?}");
}
