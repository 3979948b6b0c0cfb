//! Report layouts that read wrong when taken as printed (see
//! `data/FIXTURES.md`): 11g text histograms whose `K` the five-character
//! column cuts, whole-millisecond averages, names cut at 26 and 30
//! characters, the 11.2.0.4 HTML `Key` / `Other Instance Activity Stats`,
//! the RAC instance count; and the input's packaging (CRLF, BOM, UTF-16,
//! Latin-1, gzip, xz, a report cut short, Oracle's other reports).
//!
//! `awr-11203-rac-a.txt` and `awr-11203-rac-b.txt` are two hours of one
//! synthetic 11.2.0.3 RAC database whose 'log file sync' averages 1.4 ms
//! and 0.7 ms, both printed `1`; `awr-11204-rac.html` is the first hour
//! as an 11.2.0.4 HTML report.

use dbio_awr::derive::{derive, Thresholds};
use dbio_model::awr::{AwrReport, PctOf, ReportKind, TotalWaitsFrom};

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
fn an_11g_text_histogram_gets_back_the_k_its_column_cut() {
    let r = parse(&data("awr-11203-rac-a.txt"));
    assert_eq!(r.kind, ReportKind::AwrText);
    // `1800.` is 1,800 K, `900.0` 900.0 K: the wait event tables' counts.
    let lfs = r.histogram("log file sync").unwrap();
    assert_eq!(lfs.total_waits, 1_800_000.0);
    assert_eq!(lfs.total_waits_from, TotalWaitsFrom::WaitEvents);
    assert_eq!(lfs.printed_total_waits, Some(1800.0));
    let seq = r.histogram("db file sequential read").unwrap();
    assert_eq!(seq.total_waits, 900_000.0);
    // Background events too: `600.0` is 600,000 'SYNC Remote Write's.
    assert_eq!(
        r.histogram("SYNC Remote Write").unwrap().total_waits,
        600_000.0
    );
    // No wait event row for it: a fraction is thousands all the same.
    let cbc = r.histogram("latch: cache buffers chains").unwrap();
    assert_eq!(
        (cbc.total_waits, cbc.total_waits_from),
        (234_500.0, TotalWaitsFrom::PrintedThousands)
    );
    // Printed with its K (`12.4K`, 12,345 + 12 waits) or whole: kept.
    assert_eq!(
        r.histogram("gc buffer busy acquire").unwrap().total_waits,
        50_000.0
    );
    assert_eq!(r.histogram("jobq slave wait").unwrap().total_waits, 7_200.0);
    // The counts built on them: 60 % of 900,000 reads under 1 ms.
    let t = r.derived.read_tiers.as_ref().unwrap();
    assert_eq!(t.storage_cache, 540_000.0);
    assert_eq!(t.device, 360_000.0);
    assert_eq!(lfs.buckets.total(), 1_800_000);
    // Said once, with examples.
    assert_eq!(r.notes.len(), 1);
    assert!(
        r.notes[0].starts_with("9 wait event histogram totals printed without their K"),
        "{}",
        r.notes[0]
    );
    assert!(
        r.notes[0].contains("1 of them with no wait event row"),
        "{}",
        r.notes[0]
    );
    // The detail section whose title runs into `DB/Inst:` is read.
    assert!(r
        .sections
        .iter()
        .any(|s| s.title == "Wait Event Histogram Detail (64 msec to 2 sec)" && s.parsed));
    let tx = r.histogram("enq: TX - row lock contention").unwrap();
    assert!(tx.cells.iter().any(|c| c.label == "<1/4s" && c.pct == 50.0));
}

#[test]
fn whole_millisecond_averages_are_read_at_their_precision() {
    let (a, b) = (
        parse(&data("awr-11203-rac-a.txt")),
        parse(&data("awr-11203-rac-b.txt")),
    );
    let avg = |r: &AwrReport, n: &str| {
        let e = r.event(n).unwrap();
        (e.avg_us.unwrap(), e.avg_error_us)
    };
    // Both hours print 'log file sync' `1` ms; 2,520 s and 1,260 s over
    // 1,800,000 waits are 1.4 ms and 0.7 ms, to ± 0.3 µs.
    for (r, lfs, lfpw) in [(&a, 1400.0, 600.0), (&b, 700.0, 300.0)] {
        let (v, e) = avg(r, "log file sync");
        assert!((v - lfs).abs() < 1e-9, "{v}");
        assert_eq!(e, None);
        let (v, _) = avg(r, "log file parallel write");
        assert!((v - lfpw).abs() < 1e-9, "{v}");
        assert_eq!(r.derived.lfs_minus_lfpw_us, Some(lfs - lfpw));
        assert_eq!(r.derived.lfs_lfpw_ratio, Some(lfs / lfpw));
        assert_eq!(r.derived.lfs_lfpw_ratio_error, None);
    }
    assert_eq!(
        a.derived.log_file_sync_us.unwrap() / b.derived.log_file_sync_us.unwrap(),
        2.0
    );
    // Printed `0`: 270 s over 600,000 is 450 µs, not 0.
    let (v, _) = avg(&a, "SYNC Remote Write");
    assert!((v - 450.0).abs() < 1e-9);
    // 2 s over 1,200 writes (± 0.5 s) is 1.25 to 2.08 ms; the printed 2
    // ms (1.5 to 2.5) narrows it to 1.5 to 2.08: 1.79 ± 0.29 ms.
    let (v, e) = avg(&a, "control file parallel write");
    let hi = 2.5e6 / 1200.0;
    assert!((v - (1500.0 + hi) / 2.0).abs() < 1e-9);
    assert!((e.unwrap() - (hi - 1500.0) / 2.0).abs() < 1e-9);
}

#[test]
fn an_event_cut_at_26_and_30_characters_is_one_event() {
    let r = parse(&data("awr-11203-rac-a.txt"));
    let full = "log file switch (private strand flush incomplete)";
    let top = r.top_events.iter().find(|e| e.name == full).unwrap();
    assert_eq!(
        top.printed_name.as_deref(),
        Some("log file switch (private stran")
    );
    let fg = r.foreground_events.iter().find(|e| e.name == full).unwrap();
    assert_eq!(
        fg.printed_name.as_deref(),
        Some("log file switch (private s")
    );
    assert_eq!((fg.waits, fg.avg_us), (Some(12_345.0), Some(120_000.0)));
    let bg = r.background_events.iter().find(|e| e.name == full).unwrap();
    assert_eq!(bg.waits, Some(12.0));
    let h = r.histogram(full).unwrap();
    assert_eq!(
        h.printed_event.as_deref(),
        Some("log file switch (private s")
    );
    // 12,345 + 12 waits: `12.4K`.
    assert_eq!(h.total_waits, 12_357.0);
    let names: std::collections::BTreeSet<&str> = r
        .top_events
        .iter()
        .chain(&r.foreground_events)
        .chain(&r.background_events)
        .map(|e| e.name.as_str())
        .filter(|n| n.contains("private"))
        .collect();
    assert_eq!(names.len(), 1, "{names:?}");
    assert_eq!(
        dbio_awr::names::canonical("log file switch (private stran"),
        full
    );
}

#[test]
fn shares_rac_idle_rows_and_the_rest_of_an_11g_text_report() {
    let r = parse(&data("awr-11203-rac-a.txt"));
    let h = &r.header;
    assert_eq!(h.version.as_deref(), Some("11.2.0.3.0"));
    assert!(h.rac);
    // `Number of Instances: 2 2` of RAC Statistics.
    assert_eq!(h.instances, 2);
    assert_eq!(h.db_time_s, Some(139.29 * 60.0));
    assert_eq!(r.event_pct_of.top, Some(PctOf::DbTime));
    assert_eq!(r.event_pct_of.foreground, Some(PctOf::DbTime));
    assert_eq!(r.event_pct_of.background, Some(PctOf::BgTime));
    let bg: Vec<(&str, Option<f64>, bool)> = r
        .background_events
        .iter()
        .map(|e| (e.name.as_str(), e.pct_db_time, e.idle))
        .collect();
    assert_eq!(bg[0], ("log file parallel write", Some(40.0), false));
    assert_eq!(bg[1], ("SYNC Remote Write", Some(30.0), false));
    assert_eq!(bg[3], ("Redo Transport MISC", Some(2.7), false));
    assert_eq!(bg[6], ("rdbms ipc message", None, true));
    assert_eq!(bg[7], ("gcs remote message", None, true));
    let idle: Vec<&str> = r
        .foreground_events
        .iter()
        .filter(|e| e.idle)
        .map(|e| e.name.as_str())
        .collect();
    assert_eq!(idle, ["SQL*Net message from client", "jobq slave wait"]);
    assert_eq!(r.stat("redo write time"), Some(36_000.0));
    assert_eq!(r.derived.redo_write_time_us, Some(600.0));
    assert_eq!(r.derived.log_switches_per_hour, Some(24.0));
    assert_eq!(r.derived.host_cpu_busy_pct, Some(43.0));
    let init = r
        .tables
        .iter()
        .find(|t| t.section == "init.ora Parameters")
        .unwrap();
    assert!(init
        .rows
        .iter()
        .any(|row| row[0] == "log_archive_dest_2" && row[1].contains("SYNC AFFIRM")));
    assert_eq!(r.truncated, None);
}

#[test]
fn the_11204_html_report_reads_key_and_other_activity_stats_like_the_text() {
    let html = parse(&data("awr-11204-rac.html"));
    let text = parse(&data("awr-11203-rac-a.txt"));
    assert_eq!(html.kind, ReportKind::AwrHtml);
    assert_eq!(html.header.version.as_deref(), Some("11.2.0.4.0"));
    assert_eq!(html.header.instances, 2);
    // Key Instance Activity Stats: redo size, user commits; Other: redo
    // writes, redo write time, redo synch writes, redo wastage.
    for (name, v) in [
        ("redo size", 4_444_444_444.0),
        ("user commits", 1_800_000.0),
        ("user rollbacks", 1_000.0),
        ("redo writes", 600_000.0),
        ("redo write time", 36_000.0),
        ("redo synch writes", 1_800_500.0),
        ("redo wastage", 88_888_888.0),
    ] {
        assert_eq!(html.stat(name), Some(v), "{name}");
        assert_eq!(text.stat(name), Some(v), "{name}");
    }
    for s in [
        "Key Instance Activity Stats",
        "Other Instance Activity Stats",
    ] {
        assert!(
            html.sections.iter().any(|x| x.title == s && x.parsed),
            "{s}"
        );
    }
    // And what is derived from them.
    let (h, t) = (&html.derived, &text.derived);
    assert_eq!(h.redo_write_size_bytes, Some(4_444_444_444.0 / 600_000.0));
    assert_eq!(h.redo_write_size_bytes, t.redo_write_size_bytes);
    assert_eq!(h.commits_per_redo_write, Some(3.0));
    assert_eq!(h.redo_write_time_us, t.redo_write_time_us);
    assert_eq!(h.redo_wastage_share, t.redo_wastage_share);
    assert_eq!(h.log_switches_per_hour, Some(24.0));
    // The same hour as HTML: the same events, averages and histogram
    // totals (HTML prints `1800.0K` whole).
    let rows = |r: &AwrReport| -> Vec<(String, Option<f64>, Option<f64>)> {
        r.foreground_events
            .iter()
            .chain(&r.background_events)
            .map(|e| (e.name.clone(), e.waits, e.avg_us))
            .collect()
    };
    assert_eq!(rows(&html), rows(&text));
    let totals = |r: &AwrReport| -> Vec<(String, f64)> {
        r.histograms
            .iter()
            .map(|h| (h.event.clone(), h.total_waits))
            .collect()
    };
    assert_eq!(totals(&html), totals(&text));
    assert_eq!(h.log_file_sync_us, Some(1400.0));
}

#[test]
fn packaging_does_not_change_what_is_read() {
    use std::io::Write;
    let lf = data("awr-11203-rac-a.txt");
    let plain = parse(&lf);
    let same = |mut r: AwrReport, note: Option<&str>| {
        if let Some(n) = note {
            assert_eq!(r.notes[0], n);
            r.notes.remove(0);
        }
        r.bytes = plain.bytes;
        assert_eq!(r, plain);
    };
    let crlf = String::from_utf8(lf.clone())
        .unwrap()
        .replace('\n', "\r\n")
        .into_bytes();
    same(parse(&crlf), None);
    let bom = [b"\xef\xbb\xbf".as_slice(), &lf].concat();
    same(parse(&bom), None);
    let mut utf16 = vec![0xff, 0xfe];
    utf16.extend(
        String::from_utf8(lf.clone())
            .unwrap()
            .encode_utf16()
            .flat_map(u16::to_le_bytes),
    );
    same(parse(&utf16), Some("read from UTF-16 text"));
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    gz.write_all(&crlf).unwrap();
    same(
        parse(&gz.finish().unwrap()),
        Some("read from gzip-compressed input"),
    );
    let mut xz = xz2::write::XzEncoder::new(Vec::new(), 1);
    xz.write_all(&lf).unwrap();
    same(
        parse(&xz.finish().unwrap()),
        Some("read from xz-compressed input"),
    );
    // Latin-1: a name with `ä` (0xE4) reads as `ä`, the numbers alike.
    let latin1: Vec<u8> = String::from_utf8(lf.clone())
        .unwrap()
        .replace("rachost1", "rächost1")
        .chars()
        .map(|c| c as u32 as u8)
        .collect();
    let r = parse(&latin1);
    assert_eq!(r.header.host.as_deref(), Some("rächost1"));
    assert_eq!(r.foreground_events, plain.foreground_events);
}

#[test]
fn a_report_cut_short_says_where_and_keeps_what_it_holds() {
    let b = data("awr-11203-rac-a.txt");
    let text = String::from_utf8(b.clone()).unwrap();
    let at = text.find("Wait Event Histogram ").unwrap();
    let r = parse(&b[..at + 200]);
    let t = r.truncated.clone().expect("a note");
    assert!(
        t.contains("in section 'Wait Event Histogram'") && t.contains("End of Report"),
        "{t}"
    );
    assert_eq!(r.event("log file sync").unwrap().waits, Some(1_800_000.0));
    // Every cut, at any line, reads and never panics; only a whole
    // report has no note.
    let lines: Vec<usize> = text.match_indices('\n').map(|(i, _)| i + 1).collect();
    for &cut in lines.iter().step_by(7).filter(|&&c| c < text.len()) {
        let r = dbio_awr::parse(&b[..cut], "x");
        if let Ok(r) = r {
            assert!(r.truncated.is_some(), "cut at {cut}");
        }
    }
    assert_eq!(parse(&b).truncated, None);
    // An HTML report cut before `</html>`.
    let h = data("awr-11204-rac.html");
    let r = parse(&h[..h.len() / 2]);
    assert!(r.truncated.unwrap().contains("</html>"));
}

#[test]
fn oracles_other_reports_are_refused_in_one_sentence() {
    for (text, says) in [
        (
            "\nWORKLOAD REPOSITORY COMPARE PERIOD REPORT\n\nSnapshot Set    DB Id    Instance\n",
            "a.txt is an AWR compare-periods report (awrddrpt): dbio awr reads single-period reports; run `dbio awr --compare A B` on the two periods' awrrpt reports",
        ),
        (
            "\nWORKLOAD REPOSITORY REPORT (RAC)\n\nDatabase Summary\n",
            "a.txt is an AWR RAC global report (awrgrpt)",
        ),
        (
            "<html><head><title>ASH Report for ORCL/orcl1</title></head><body><h1>ASH Report For ORCL/orcl1</h1>",
            "a.txt is an ASH report (ashrpt)",
        ),
    ] {
        let e = dbio_awr::parse(text.as_bytes(), "a.txt").unwrap_err().0;
        assert!(e.starts_with(says), "{e}");
        assert!(!e.contains('\n'));
    }
    let e = dbio_awr::parse(b"PK\x03\x04....", "a.zip").unwrap_err().0;
    assert_eq!(
        e,
        "a.zip is not an AWR or Statspack report: it is a zip archive; extract the report first (dbio reads text, HTML, gzip and xz)"
    );
}
