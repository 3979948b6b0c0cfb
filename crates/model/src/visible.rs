//! Text from outside dbio made safe to show on a terminal or in a CSV file.
//!
//! SQL text and event names from a trace, strings from an AWR report, file
//! names, host names and a database server's error messages are written by
//! someone else. Shown raw, `ESC ] 0 ; ... BEL` retitles the terminal,
//! `ESC [ 2 J` clears it, a carriage return hides what came before on the
//! line, and a bidi override makes text read in another order than it is
//! stored (the "Trojan Source" trick, CVE-2021-42574). Every such character
//! is written as a visible escape instead: `\x1b` for the ASCII controls
//! (C0 and DEL), `\u{9b}` for the C1 controls (U+0080..U+009F, which some
//! terminals obey as 8-bit CSI and OSC) and `\u{202e}` for the bidi
//! embeddings, overrides and isolates (U+202A..U+202E, U+2066..U+2069).
//! The escapes are printable ASCII, so escaping twice changes nothing.
//!
//! The terminal table and CSV exporters pass their whole output through
//! [`visible_lines`] (newline is their line break; a CSV field that holds
//! one is quoted) rather than each cell: one place that no new cell can
//! bypass. The binary passes each error line through [`visible`] (one
//! sentence, so a newline is escaped too). HTML and JSON have escapes of
//! their own.

use std::borrow::Cow;
use std::fmt::Write;

/// True for a character a terminal may obey rather than print.
fn hidden(c: char) -> bool {
    c.is_control() // C0, DEL and C1 (Unicode category Cc)
        || ('\u{202a}'..='\u{202e}').contains(&c)
        || ('\u{2066}'..='\u{2069}').contains(&c)
}

fn escape(s: &str, keep_newline: bool) -> Cow<'_, str> {
    let bad = |c: char| hidden(c) && !(keep_newline && c == '\n');
    if !s.chars().any(bad) {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 16);
    for c in s.chars() {
        if !bad(c) {
            out.push(c);
        } else if c.is_ascii() {
            let _ = write!(out, "\\x{:02x}", c as u32);
        } else {
            let _ = write!(out, "\\u{{{:x}}}", c as u32);
        }
    }
    Cow::Owned(out)
}

/// `s` with every control character (newline included), DEL, C1 control
/// and bidi control written as a visible escape: for one line of text.
pub fn visible(s: &str) -> Cow<'_, str> {
    escape(s, false)
}

/// As [`visible`], keeping newlines: for multi-line output (a table, a CSV
/// document) whose lines are dbio's own.
pub fn visible_lines(s: &str) -> Cow<'_, str> {
    escape(s, true)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn controls_are_written_as_escapes() {
        assert_eq!(
            visible("a\x1b]0;x\x07b\x1b[2Jc"),
            "a\\x1b]0;x\\x07b\\x1b[2Jc"
        );
        assert_eq!(visible("\r\t\n\x7f"), "\\x0d\\x09\\x0a\\x7f");
        assert_eq!(visible("\u{9b}2J \u{85}"), "\\u{9b}2J \\u{85}");
        assert_eq!(visible("x\u{202e}y\u{2066}z"), "x\\u{202e}y\\u{2066}z");
        // The neighbours of the bidi ranges are ordinary text.
        assert_eq!(
            visible("\u{2029}\u{202f}\u{2065}\u{206a}é"),
            "\u{2029}\u{202f}\u{2065}\u{206a}é"
        );
    }

    #[test]
    fn lines_keep_their_newlines_and_plain_text_is_not_copied() {
        assert_eq!(visible_lines("a\nb\x1bc\r\n"), "a\nb\\x1bc\\x0d\n");
        assert!(matches!(visible("plain text"), Cow::Borrowed(_)));
        let once = visible("\x1b\u{9b}\u{202e}").into_owned();
        assert_eq!(visible(&once), once, "escaping twice changes nothing");
    }
}
