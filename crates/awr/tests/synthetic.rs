//! Synthetic reports written for dbio (see `data/FIXTURES.md`), each
//! reproducing quirks of real ones: CRLF line endings, a form feed glued
//! to a heading, a section repeated on the next page, a wrapped row,
//! rows shifted off their columns, 11g-style ms histogram columns, a RAC
//! header, an unknown section, and an AWR HTML report.

use dbio_awr::derive::{derive, Thresholds};
use dbio_model::awr::{AwrReport, ReportKind};

fn data(name: &str) -> Vec<u8> {
    let p = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(name);
    std::fs::read(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

fn parse(bytes: &[u8]) -> AwrReport {
    let mut r = dbio_awr::parse(bytes, "x").unwrap();
    derive(&mut r, &Thresholds::default());
    r
}

#[test]
fn crlf_page_breaks_and_wrapped_rows_read_as_their_text() {
    let b = data("awr-19c-rac-crlf.txt");
    assert!(b.windows(2).any(|w| w == b"\r\n"), "the fixture has CRLF");
    let r = parse(&b);
    assert_eq!(r.kind, ReportKind::AwrText);
    assert!(r.header.rac);
    assert_eq!(r.header.db_name.as_deref(), Some("SYNRAC"));
    assert_eq!(r.header.version.as_deref(), Some("19.0.0.0.0"));
    assert_eq!(r.header.db_time_s, Some(7200.0));
    // Both pages of Foreground Wait Events, the second after a form feed
    // glued to its heading, are one list; the wrapped row is one event.
    let names: Vec<&str> = r
        .foreground_events
        .iter()
        .map(|e| e.name.as_str())
        .collect();
    assert_eq!(
        names,
        [
            "log file sync",
            "db file sequential read",
            "log buffer space",
            "free buffer waits"
        ]
    );
    let lbs = r.event("log buffer space").unwrap();
    assert_eq!(
        (lbs.waits, lbs.time_s, lbs.avg_us),
        (Some(326.0), Some(118.0), Some(361_960.0))
    );
    // Shifted rows are read as words, with the same numbers.
    assert_eq!(r.stat("redo size"), Some(3_600_000_000.0));
    assert_eq!(r.stat("redo write time"), Some(12_000.0));
    let d = &r.derived;
    assert_eq!(d.redo_write_size_bytes, Some(6000.0));
    // 12,000 cs over 600,000 writes: 200 µs.
    assert_eq!(d.redo_write_time_us, Some(200.0));
    assert_eq!(d.commits_per_redo_write, Some(3.0));
    assert_eq!(d.lfs_lfpw_ratio, Some(10.0));
    assert_eq!(d.dbwr_batch_blocks, Some(8.0));
    assert_eq!(d.host_cpu_busy_pct, Some(85.0));
    // 11g-style columns: <1ms is 0..1024 µs; 40 % of 900K.
    let h = r.histogram("db file sequential read").unwrap();
    assert_eq!(h.total_waits, 900_000.0);
    assert_eq!(h.cells[0].hi_us, Some(1024));
    assert_eq!(h.buckets.counts[10], 360_000);
    assert_eq!(h.buckets.counts[11], 270_000);
    let skipped: Vec<&str> = r
        .sections
        .iter()
        .filter(|s| !s.parsed)
        .map(|s| s.title.as_str())
        .collect();
    assert_eq!(skipped, ["Mystery Section Nobody Knows"]);
    let init = r
        .tables
        .iter()
        .find(|t| t.section == "init.ora Parameters")
        .unwrap();
    assert_eq!(init.rows[0][..2], ["db_writer_processes", "8"]);
}

#[test]
fn lf_and_crlf_give_the_same_result() {
    let crlf = data("awr-19c-rac-crlf.txt");
    let lf: Vec<u8> = String::from_utf8(crlf.clone())
        .unwrap()
        .replace("\r\n", "\n")
        .into_bytes();
    let (a, mut b) = (parse(&crlf), parse(&lf));
    b.bytes = a.bytes;
    assert_eq!(a, b);
}

#[test]
fn an_html_report_reads_like_the_text_one() {
    let r = parse(&data("awr-11g.html"));
    assert_eq!(r.kind, ReportKind::AwrHtml);
    let h = &r.header;
    assert_eq!(h.db_name.as_deref(), Some("SYNHTML"));
    assert_eq!(h.host.as_deref(), Some("winhost"));
    assert_eq!(h.platform.as_deref(), Some("Microsoft Windows x86 64-bit"));
    assert_eq!((h.begin_snap, h.end_snap), (Some(7), Some(8)));
    assert_eq!(h.elapsed_s, Some(3600.0));
    assert_eq!(r.load_profile[0].name, "Redo size");
    assert_eq!(r.load_profile[0].per_second, Some(267_760.27));
    let lfs = r.event("log file sync").unwrap();
    assert_eq!((lfs.waits, lfs.avg_us), (Some(17_864.0), Some(4000.0)));
    assert_eq!(
        r.event("log file parallel write").unwrap().waits,
        Some(17_734.0)
    );
    assert_eq!(r.stat("redo size"), Some(48_438_904.0));
    let hg = r.histogram("log file parallel write").unwrap();
    assert_eq!(hg.total_waits, 17_700.0);
    assert_eq!(hg.buckets.counts[12], (0.6f64 * 17_700.0).round() as u64);
    assert!(r
        .sections
        .iter()
        .any(|s| s.title == "SQL ordered by Elapsed Time" && !s.parsed));
    // 'redo size' / 'redo writes' = 2,731 B; 7,381 cs / 17,734 = 4.16 ms.
    assert_eq!(r.derived.redo_write_size_bytes.unwrap().round(), 2731.0);
    assert_eq!(
        (r.derived.redo_write_time_us.unwrap() / 10.0).round(),
        416.0
    );
}
