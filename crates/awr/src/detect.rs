//! What an input is: a whole AWR or Statspack report, an AWR HTML report,
//! pasted report sections, or none of these (an Oracle trace file, binary
//! data, other text), judged from its first 64 KiB.
//!
//! `dbio tracefile` asks [`report_kind`] so that a report given to it is
//! refused with "this is a Statspack report; use `dbio awr`" instead of
//! an empty profile.
//!
//! Oracle's other reports look like AWR reports to a reader that only
//! looks for AWR words, and read as nonsense: a compare-periods report
//! (`awrddrpt`) prints two periods side by side (read as one, it was "a
//! pasted report section of a RAC database with almost no DB time"), the
//! RAC global report (`awrgrpt`) one row per instance, the ASH report
//! samples instead of totals. They are recognised first ([`other_kind`])
//! and refused in one sentence that says what they are and what to give
//! instead.

use dbio_model::awr::ReportKind;

/// How much of the input is looked at.
const HEAD: usize = 64 * 1024;

/// Lower-cased start of the input, lossily decoded.
fn head(bytes: &[u8]) -> String {
    String::from_utf8_lossy(&bytes[..bytes.len().min(HEAD)]).to_ascii_lowercase()
}

/// Oracle reports that are not single-period AWR or Statspack reports.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OtherKind {
    /// `awrddrpt.sql` (or `awrgdrpt.sql`): two periods side by side.
    ComparePeriods,
    /// `awrgrpt.sql`: the RAC global report, one row per instance.
    RacGlobal,
    /// `ashrpt.sql`: Active Session History samples.
    Ash,
    /// `awrsqrpt.sql`: one SQL statement.
    AwrSql,
    /// `addmrpt.sql`: ADDM's findings.
    Addm,
    /// `sprepsql.sql`: Statspack's report of one SQL statement.
    StatspackSql,
}

impl OtherKind {
    /// Why it is refused, as the end of "FILE ...": what it is and what
    /// to give instead.
    pub fn refusal(self) -> &'static str {
        match self {
            OtherKind::ComparePeriods => "is an AWR compare-periods report (awrddrpt): dbio awr reads single-period reports; run `dbio awr --compare A B` on the two periods' awrrpt reports",
            OtherKind::RacGlobal => "is an AWR RAC global report (awrgrpt), one row per instance: dbio awr reads single-instance reports; give each instance's awrrpt report (awrrpti.sql), several of them for a trend",
            OtherKind::Ash => "is an ASH report (ashrpt), sampled sessions rather than the interval's totals: dbio awr reads AWR and Statspack reports; give the awrrpt report of the same snapshots",
            OtherKind::AwrSql => "is an AWR SQL report (awrsqrpt) of one statement: dbio awr reads the instance's AWR report (awrrpt)",
            OtherKind::Addm => "is an ADDM report (addmrpt), findings without the figures: dbio awr reads the AWR report (awrrpt) of the same snapshots",
            OtherKind::StatspackSql => "is a Statspack SQL report (sprepsql) of one statement: dbio awr reads the instance's Statspack report (spreport)",
        }
    }
}

/// Which of Oracle's other reports the input is, from its heading or
/// HTML title.
pub fn other_kind(bytes: &[u8]) -> Option<OtherKind> {
    let h = head(bytes);
    let h = h.split_whitespace().collect::<Vec<_>>().join(" ");
    // As words: `ash report for` is in `crash report for`.
    let word = |w: &str| {
        h.match_indices(w).any(|(i, _)| {
            !h[..i]
                .chars()
                .next_back()
                .is_some_and(|c| c.is_alphanumeric())
        })
    };
    let any = |words: &[&str]| words.iter().any(|w| word(w));
    if any(&[
        "compare period report",
        "workload repository comparison",
        "awr compare period",
        "awr diff report",
    ]) {
        Some(OtherKind::ComparePeriods)
    } else if any(&[
        "workload repository report (rac)",
        "workload repository report (global)",
        "workload repository rac report",
        "awr rac report",
        "awr global report",
    ]) {
        Some(OtherKind::RacGlobal)
    } else if any(&["ash report for", "<title>ash report"]) {
        Some(OtherKind::Ash)
    } else if any(&["workload repository sql report", "awr sql report"]) {
        Some(OtherKind::AwrSql)
    } else if any(&["addm report for task"]) {
        Some(OtherKind::Addm)
    } else if word("statspack sql report for") {
        Some(OtherKind::StatspackSql)
    } else {
        None
    }
}

/// A whole report's kind from its heading, or `None` (pastes are not
/// recognised here: only a report's own heading counts; nor are
/// Oracle's other reports, [`other_kind`]).
pub fn report_kind(bytes: &[u8]) -> Option<ReportKind> {
    if other_kind(bytes).is_some() {
        return None;
    }
    let h = head(bytes);
    let awr = h.contains("workload repository report") || h.contains("awr report for");
    if (awr && h.contains("<html")) || h.contains("<title>awr report") {
        return Some(ReportKind::AwrHtml);
    }
    if awr {
        return Some(ReportKind::AwrText);
    }
    if h.contains("statspack report for") {
        return Some(ReportKind::Statspack);
    }
    None
}

/// Words that make a text a pasted report section: table headings and
/// statistic names only AWR and Statspack print together.
const PASTE_MARKERS: &[&str] = &[
    "statistic total per second per trans",
    "top 5 timed events",
    "top 10 foreground events",
    "foreground wait events",
    "background wait events",
    "wait event histogram",
    "instance activity stats",
    "load profile",
    "redo size",
    "redo writes",
    "log file parallel write",
];

/// Compressed formats dbio does not decompress, by their magic bytes.
const OTHER_PACKINGS: &[(&[u8], &str)] = &[
    (b"PK\x03\x04", "a zip archive"),
    (b"BZh", "bzip2-compressed"),
    (b"\x28\xb5\x2f\xfd", "zstd-compressed"),
    (b"7z\xbc\xaf\x27\x1c", "a 7-Zip archive"),
];

/// The kind of the input, or one sentence saying why it is not a report
/// (for Oracle's other reports, the sentence starts with "is ...": see
/// [`OtherKind::refusal`]).
pub fn classify(bytes: &[u8]) -> Result<ReportKind, String> {
    if bytes.is_empty() {
        return Err("it is empty".into());
    }
    if let Some((_, what)) = OTHER_PACKINGS.iter().find(|(m, _)| bytes.starts_with(m)) {
        return Err(format!(
            "it is {what}; extract the report first (dbio reads text, HTML, gzip and xz)"
        ));
    }
    let sample = &bytes[..bytes.len().min(HEAD)];
    if sample.contains(&0) {
        return Err("it is binary data, not a text or HTML report".into());
    }
    if let Some(k) = other_kind(bytes) {
        return Err(k.refusal().to_string());
    }
    if let Some(k) = report_kind(bytes) {
        return Ok(k);
    }
    let h = head(bytes);
    if h.contains("parsing in cursor") || h.contains("wait #") || h.contains("*** session id") {
        return Err("it is an Oracle trace file; use `dbio tracefile`".into());
    }
    let collapsed = h.split_whitespace().collect::<Vec<_>>().join(" ");
    if PASTE_MARKERS.iter().any(|m| collapsed.contains(m)) {
        return Ok(ReportKind::Pasted);
    }
    Err(
        "it has no AWR or Statspack heading and no wait event or statistic table dbio recognises"
            .into(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds_are_told_apart_and_traces_are_sent_to_tracefile() {
        assert_eq!(
            classify(b"\nWORKLOAD REPOSITORY report for\n"),
            Ok(ReportKind::AwrText)
        );
        assert_eq!(
            classify(b"\nSTATSPACK report for\n"),
            Ok(ReportKind::Statspack)
        );
        assert_eq!(
            classify(b"<html><title>AWR Report for DB: X</title>WORKLOAD REPOSITORY report for"),
            Ok(ReportKind::AwrHtml)
        );
        assert_eq!(
            classify(b"Event Statistic Total per Second per Trans redo size 1 2 3"),
            Ok(ReportKind::Pasted)
        );
        let e =
            classify(b"PARSING IN CURSOR #1 len=5\nWAIT #1: nam='db file sequential read' ela= 5")
                .unwrap_err();
        assert!(e.contains("dbio tracefile"), "{e}");
        assert!(classify(b"hello\x00world").unwrap_err().contains("binary"));
        assert!(classify(b"just some text").is_err());
        assert_eq!(report_kind(b"log file sync 1 2 3"), None);
        assert!(classify(b"PK\x03\x04rest")
            .unwrap_err()
            .contains("zip archive"));
    }

    #[test]
    fn oracles_other_reports_are_refused_by_name() {
        let cases: [(&[u8], OtherKind, &str); 6] = [
            (
                b"\nWORKLOAD REPOSITORY COMPARE PERIOD REPORT\n\nSnapshot Set    DB Id",
                OtherKind::ComparePeriods,
                "dbio awr --compare A B",
            ),
            (
                b"<html><head><title>AWR Compare Period Report for DB: X</title>",
                OtherKind::ComparePeriods,
                "awrddrpt",
            ),
            (
                b"\nWORKLOAD REPOSITORY REPORT (RAC)\n\nDatabase Summary",
                OtherKind::RacGlobal,
                "awrgrpt",
            ),
            (
                b"\nASH Report For ORCL/orcl1\n\nDB Name         DB Id",
                OtherKind::Ash,
                "ashrpt",
            ),
            (
                b"\nWORKLOAD REPOSITORY SQL Report\n\nSnapshot Period Summary",
                OtherKind::AwrSql,
                "awrsqrpt",
            ),
            (
                b"\nSTATSPACK SQL report for Hash Value: 1\n",
                OtherKind::StatspackSql,
                "sprepsql",
            ),
        ];
        for (text, kind, says) in cases {
            assert_eq!(other_kind(text), Some(kind));
            assert_eq!(report_kind(text), None);
            let e = classify(text).unwrap_err();
            assert!(e.starts_with("is ") && e.contains(says), "{e}");
        }
        // A single-period report names none of them, nor does a crash
        // report.
        assert_eq!(other_kind(b"WORKLOAD REPOSITORY report for\n"), None);
        assert_eq!(other_kind(b"see the crash report for details"), None);
        assert_eq!(other_kind(b"STATSPACK report for\n"), None);
    }
}
