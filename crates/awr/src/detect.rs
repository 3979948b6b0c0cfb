//! What an input is: a whole AWR or Statspack report, an AWR HTML report,
//! pasted report sections, or none of these (an Oracle trace file, binary
//! data, other text), judged from its first 64 KiB.
//!
//! `dbio tracefile` asks [`report_kind`] so that a report given to it is
//! refused with "this is a Statspack report; use `dbio awr`" instead of
//! an empty profile.

use dbio_model::awr::ReportKind;

/// How much of the input is looked at.
const HEAD: usize = 64 * 1024;

/// Lower-cased start of the input, lossily decoded.
fn head(bytes: &[u8]) -> String {
    String::from_utf8_lossy(&bytes[..bytes.len().min(HEAD)]).to_ascii_lowercase()
}

/// A whole report's kind from its heading, or `None` (pastes are not
/// recognised here: only a report's own heading counts).
pub fn report_kind(bytes: &[u8]) -> Option<ReportKind> {
    let h = head(bytes);
    let awr = h.contains("workload repository report")
        || h.contains("workload repository comparison")
        || h.contains("awr report for");
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

/// The kind of the input, or one sentence saying why it is not a report.
pub fn classify(bytes: &[u8]) -> Result<ReportKind, String> {
    if bytes.is_empty() {
        return Err("it is empty".into());
    }
    let sample = &bytes[..bytes.len().min(HEAD)];
    if sample.contains(&0) {
        return Err("it is binary data, not a text or HTML report".into());
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
    }
}
