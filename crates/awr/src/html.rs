//! AWR HTML reports into the same sections of tables as the text reader.
//!
//! An AWR HTML report is a sequence of `<h2>`/`<h3>` section titles, each
//! followed by `<table>`s whose first row holds `<th>` headings and whose
//! other rows hold `<td>` cells; the numbers in the cells are printed as
//! in the text report. A small tag scanner is enough (no scripts, no
//! nesting that matters): it keeps the text of titles and cells, decodes
//! the few entities the reports use, and ignores every other tag, so a
//! malformed or cut report yields what it holds and nothing fatal.
//!
//! Real 11.2 reports (11.2.0.2 XE, 11.2.0.4 RAC: see
//! `tests/data/FIXTURES.md`) print the titles of the summary's parts as
//! bare text between `<p />` tags, not as headings (`<p />Load
//! Profile<p />` then its `<table>`), and so do `Top 5 Timed Foreground
//! Events`, `Instance Efficiency Percentages` and `Host CPU`. So the last
//! line of bare text before a table (text in no cell, heading or list
//! item) is that table's title too: it opens a section of its own once
//! the current section holds a table (a heading's first table keeps its
//! heading).

use crate::text::{Section, Table};

/// Decodes `&amp;`, `&lt;`, `&gt;`, `&quot;`, `&#39;`, `&nbsp;` and
/// numeric entities; collapses whitespace.
fn decode(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(p) = rest.find('&') {
        out.push_str(&rest[..p]);
        rest = &rest[p..];
        let end = rest.find(';').filter(|&e| e <= 10);
        let (rep, used) = match end {
            Some(e) => {
                let name = &rest[1..e];
                let ch = match name {
                    "amp" => Some('&'),
                    "lt" => Some('<'),
                    "gt" => Some('>'),
                    "quot" => Some('"'),
                    "apos" => Some('\''),
                    "nbsp" => Some(' '),
                    n if n.starts_with("#x") => u32::from_str_radix(&n[2..], 16)
                        .ok()
                        .and_then(char::from_u32),
                    n if n.starts_with('#') => n[1..].parse().ok().and_then(char::from_u32),
                    _ => None,
                };
                match ch {
                    Some(c) => (c, e + 1),
                    None => ('&', 1),
                }
            }
            None => ('&', 1),
        };
        out.push(rep);
        rest = &rest[used..];
    }
    out.push_str(rest);
    out.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The last line of bare text before a table when it reads as a title
/// (`Load Profile`, `Host CPU (CPUs: 8 Cores: 4 Sockets: 1)`): a letter
/// first, at most 100 characters, no sentence (no `. ` inside).
fn bare_title(bare: &str) -> Option<String> {
    let line = bare.lines().map(str::trim).rfind(|l| !l.is_empty())?;
    let t = decode(line);
    (t.chars().next().is_some_and(char::is_alphabetic)
        && t.chars().count() <= 100
        && !t.contains(". ")
        && !t.starts_with("Back to"))
    .then_some(t)
}

/// Sections of an HTML report (the part before the first title is the
/// header section `""`).
pub fn sections(html: &str) -> Vec<Section> {
    let mut out = vec![Section::default()];
    let mut text = String::new();
    let mut in_title = false;
    let mut row: Option<Vec<String>> = None;
    let mut header_row = false;
    // Whether the row has a `<td>` with text (a row of headings has
    // none), and whether the open cell is a `<td>`.
    let mut td_text = false;
    let mut cell_is_td = false;
    let mut table: Option<Table> = None;
    let mut cell: Option<String> = None;
    // Text outside cells, headings and list items since the last table
    // or heading (a bare title), and whether inside a list item.
    let mut bare = String::new();
    let mut in_li = false;
    let mut rest = html;
    while !rest.is_empty() {
        let Some(lt) = rest.find('<') else {
            text.push_str(rest);
            break;
        };
        text.push_str(&rest[..lt]);
        if let Some(c) = &mut cell {
            c.push_str(&rest[..lt]);
        } else if !in_title && !in_li && table.is_none() && bare.len() < 4096 {
            bare.push_str(&rest[..lt]);
        }
        rest = &rest[lt..];
        // A tag cut by the end of the input ends the report.
        let Some(gt) = rest.find('>') else {
            break;
        };
        let tag = rest[1..gt].trim().to_ascii_lowercase();
        rest = &rest[gt + 1..];
        let name: String = tag
            .trim_start_matches('/')
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric())
            .collect();
        let closing = tag.starts_with('/');
        match (name.as_str(), closing) {
            ("h1" | "h2" | "h3" | "h4" | "title", false) => {
                in_title = true;
                text.clear();
                bare.clear();
            }
            ("h1" | "h2" | "h3" | "h4", true) if in_title => {
                in_title = false;
                let t = decode(&text);
                if !t.is_empty() && out.last().map(|s| s.title.as_str()) != Some(t.as_str()) {
                    out.push(Section {
                        title: t,
                        ..Default::default()
                    });
                }
            }
            ("title", true) => {
                in_title = false;
                out[0].lines.push(decode(&text));
            }
            ("table", false) => {
                if table.is_none() {
                    let last = out.last().expect("one section");
                    if let Some(t) = bare_title(&bare) {
                        if !last.tables.is_empty() && last.title != t {
                            out.push(Section {
                                title: t,
                                ..Default::default()
                            });
                        }
                    }
                    bare.clear();
                }
                table = Some(Table::default());
            }
            ("table", true) => {
                if let Some(t) = table.take() {
                    if !t.rows.is_empty() || !t.headers.is_empty() {
                        out.last_mut().expect("one section").tables.push(t);
                    }
                }
                bare.clear();
            }
            ("li", false) => in_li = true,
            ("li", true) => in_li = false,
            ("tr", false) => {
                row = Some(Vec::new());
                header_row = false;
                td_text = false;
            }
            ("tr", true) => {
                if let (Some(r), Some(t)) = (row.take(), table.as_mut()) {
                    // 12c+ put a row of group headings over the column
                    // headings (`<td>&#160;</td><td>&#160;</td><th
                    // colspan="8">% of Total Waits</th>` over `Event`,
                    // `Total Waits`, `<8us` ...): of the heading rows
                    // before the first data row, the last one names the
                    // columns.
                    if header_row && !td_text && t.rows.is_empty() {
                        t.headers = r;
                    } else if !r.is_empty() {
                        t.rows.push(r);
                    }
                }
            }
            ("th" | "td", false) => {
                header_row |= name == "th";
                cell_is_td = name == "td";
                cell = Some(String::new());
            }
            ("th" | "td", true) => {
                if let (Some(c), Some(r)) = (cell.take(), row.as_mut()) {
                    let c = decode(&c);
                    td_text |= cell_is_td && !c.is_empty();
                    r.push(c);
                }
            }
            ("br" | "p", _) => {
                if let Some(c) = &mut cell {
                    c.push(' ');
                } else {
                    bare.push('\n');
                }
            }
            _ => {}
        }
    }
    // Tables without headings (a header table of label: value cells)
    // keep their rows; headings default to empty.
    for s in &mut out {
        for t in &mut s.tables {
            let n = t.rows.iter().map(Vec::len).max().unwrap_or(0);
            if t.headers.len() < n {
                t.headers.resize(n, String::new());
            }
            for r in &mut t.rows {
                r.resize(t.headers.len(), String::new());
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn titles_headings_and_cells_are_read_and_entities_decoded() {
        let h = "<html><h3 class=\"awr\">Foreground Wait Events</h3>\
<table><tr><th>Event</th><th>Waits</th></tr>\
<tr><td>SQL*Net message to client</td><td align=\"right\">1,914,010</td></tr>\
<tr><td>a &amp; b&nbsp;c</td><td>&#49;</td></tr></table>";
        let s = sections(h);
        assert_eq!(s[1].title, "Foreground Wait Events");
        assert_eq!(s[1].tables[0].headers, ["Event", "Waits"]);
        assert_eq!(
            s[1].tables[0].rows[0],
            ["SQL*Net message to client", "1,914,010"]
        );
        assert_eq!(s[1].tables[0].rows[1], ["a & b c", "1"]);
    }

    #[test]
    fn a_row_of_group_headings_gives_way_to_the_column_headings() {
        // As AWR 19c prints its wait event histograms.
        let h = "<h3>Wait Event Histogram</h3><table><tr>\
<td>&#160;</td><td>&#160;</td><th colspan=\" 2\">% of Total Waits</th></tr><tr>\
<th>Event</th><th>Total Waits</th><th>&lt;8us</th><th>&gt;=8us</th></tr>\
<tr><td scope=\"row\">ADR file lock</td><td>4</td><td>50.0</td><td>&#160;</td></tr>\
<tr><th>row label</th><td>1</td><td>2</td><td>3</td></tr></table>";
        let s = sections(h);
        let t = &s[1].tables[0];
        assert_eq!(t.headers, ["Event", "Total Waits", "<8us", ">=8us"]);
        assert_eq!(t.rows[0], ["ADR file lock", "4", "50.0", ""]);
        // A data row whose label is a `<th>` stays a data row.
        assert_eq!(t.rows[1], ["row label", "1", "2", "3"]);
    }

    #[test]
    fn bare_text_before_a_table_titles_it_as_11g_prints_the_summary() {
        // As AWR 11.2 prints the summary: the first table stays with its
        // heading, the next ones get their bare titles; notes in list
        // items and sentences are no titles.
        let h = "<h3>Report Summary</h3><p />Cache Sizes<p /><table><tr><td>Buffer Cache:</td></tr></table>\n\
<p />Load Profile<p />\n<table><tr><th></th><th>Per Second</th></tr><tr><td>Redo size:</td><td>1.0</td></tr></table>\n\
Shared Pool Statisitics Not Available\n<p />\n<p />Top 5 Timed Foreground Events<p />\n<ul>\n</ul>\n<table><tr><th>Event</th></tr></table>\n\
<h3>Foreground Wait Events</h3><ul><li>s - second</li></ul><table><tr><th>Event</th></tr></table>\n\
<ul><li>ordered by wait time</li></ul><table><tr><th>Event</th></tr></table>\n\
<a href=\"#top\">Back to Top</a><p />\n<table><tr><th>Event</th></tr></table>\n\
Some of the values are invalid. Read them with care\n<table><tr><th>Event</th></tr></table>";
        let s = sections(h);
        let titles: Vec<&str> = s.iter().map(|s| s.title.as_str()).collect();
        assert_eq!(
            titles,
            [
                "",
                "Report Summary",
                "Load Profile",
                "Top 5 Timed Foreground Events",
                "Foreground Wait Events"
            ]
        );
        assert_eq!(s[2].tables[0].rows[0], ["Redo size:", "1.0"]);
        assert_eq!(s[4].tables.len(), 4);
    }
}
