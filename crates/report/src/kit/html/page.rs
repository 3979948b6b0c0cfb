//! The page around the charts: one HTML document with its style sheet
//! inline, a Content-Security-Policy that forbids every fetch and every
//! script, and the sections every result shares (what ran, where, what
//! was found).
//!
//! Why no script at all: hover details are SVG `<title>` elements, which
//! every browser shows as a tooltip, so the policy can say
//! `default-src 'none'` and an escaping mistake elsewhere still cannot run
//! anything. Why no external anything: the report is mailed to people
//! whose machines may have no network; a font or style fetched from
//! outside would also tell a third party that the report was opened.

use dbio_model::units::format_bytes;
use dbio_model::{Environment, Finding};
use maud::{html, Markup, PreEscaped, Render, DOCTYPE};
use std::fmt::Write;

/// The policy in the page's `<meta>`: nothing may be fetched (no
/// `connect-src`, `img-src`, `font-src`, ...), style only from the page's
/// own `<style>` and `style` attributes, no script.
pub const CSP: &str = "default-src 'none'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'";

/// Text from outside (SQL text, file names, event names, host names) in
/// a template: rendered with the five characters that can end a text node
/// or an attribute escaped, so it stays text. maud escapes every
/// interpolated string by itself; this wrapper keeps the bytes dbio has
/// always written (`'` as `&#39;`, which maud leaves as it is, and control
/// characters other than tab and newline, which HTML text may not hold,
/// as the replacement character).
#[derive(Debug, Clone, Copy)]
pub struct Text<'a>(pub &'a str);

impl Render for Text<'_> {
    fn render_to(&self, out: &mut String) {
        out.reserve(self.0.len());
        for c in self.0.chars() {
            match c {
                '&' => out.push_str("&amp;"),
                '<' => out.push_str("&lt;"),
                '>' => out.push_str("&gt;"),
                '"' => out.push_str("&quot;"),
                '\'' => out.push_str("&#39;"),
                c if c.is_control() && c != '\t' && c != '\n' => out.push('\u{fffd}'),
                c => out.push(c),
            }
        }
    }
}

/// Escapes text for HTML text and attribute values (SVG included), as
/// [`Text`] renders it: for the hand-drawn SVG, which is written as text.
pub fn esc(s: &str) -> String {
    let mut out = String::new();
    Text(s).render_to(&mut out);
    out
}

/// At most `n` characters of `s`, with an ellipsis when cut (for chart
/// labels; tables keep the whole text).
pub fn clip(s: &str, n: usize) -> String {
    if s.chars().count() <= n {
        s.to_string()
    } else {
        let mut t: String = s.chars().take(n.saturating_sub(1)).collect();
        t.push('…');
        t
    }
}

/// The style sheet: light by default, dark under `prefers-color-scheme`,
/// and a print layout (no backgrounds, charts kept whole on a page).
/// Series are told apart by fill pattern and dash as well as by colour.
const CSS: &str = r#"
:root{--fg:#1b1b1b;--bg:#fff;--muted:#5b5b5b;--rule:#c8c8c8;--panel:#f4f4f4;
--c0:#1f5fa8;--c1:#b5541b;--c2:#2e7d32;--c3:#6a3d9a;--t0:#e8f1e4;--t1:#fbf0d9;--t2:#f6e0e0;
--warn:#8a1c1c;--notice:#7a5200}
@media (prefers-color-scheme:dark){:root{--fg:#e6e6e6;--bg:#161616;--muted:#a8a8a8;--rule:#4a4a4a;--panel:#222;
--c0:#7fb2ee;--c1:#f0a070;--c2:#8fd18f;--c3:#c5a3e8;--t0:#1f3320;--t1:#3a3018;--t2:#3d2020;--warn:#ff9a9a;--notice:#f0c060}}
*{box-sizing:border-box}
body{font:15px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;color:var(--fg);background:var(--bg);margin:0 auto;max-width:1180px;padding:1em 1.5em}
h1{font-size:1.5em;margin:.3em 0}h2{font-size:1.25em;border-bottom:1px solid var(--rule);margin-top:1.6em}h3{font-size:1.05em;margin:1.2em 0 .4em}
code,pre,.mono{font-family:ui-monospace,"DejaVu Sans Mono",monospace;font-size:.9em}
pre{white-space:pre-wrap;word-break:break-all;background:var(--panel);padding:.5em}
table{border-collapse:collapse;margin:.4em 0 1em;font-variant-numeric:tabular-nums}
th,td{border-bottom:1px solid var(--rule);padding:.2em .6em;text-align:left;vertical-align:top}
td.n,th.n{text-align:right}td.sql{max-width:40em;word-break:break-word}
.muted{color:var(--muted)}.partial{border:2px solid var(--warn);padding:.5em 1em;font-weight:600}
ul.findings{padding-left:1.2em}ul.findings li{margin:.4em 0}
section.verdict{border-left:4px solid var(--notice);padding:.2em 1em;margin:.8em 0}section.verdict h2{margin:.2em 0}p.answer{font-size:1.15em;font-weight:600}ol.top li{margin:.4em 0}
.sev{font-weight:700;text-transform:uppercase;font-size:.8em;border:1px solid currentColor;padding:0 .3em;margin-right:.4em}
.sev-warning{color:var(--warn)}.sev-notice{color:var(--notice)}.sev-info{color:var(--muted)}
.ev{color:var(--muted);font-size:.9em;display:block}
figure.chart{margin:.6em 0 1.2em;break-inside:avoid}
figure.chart>svg{width:100%;height:auto;max-width:900px;display:block}
figcaption{color:var(--muted);font-size:.9em}
ul.legend{list-style:none;padding:0;margin:.2em 0;font-size:.85em;display:flex;flex-wrap:wrap;gap:.2em 1.2em}ul.legend svg{vertical-align:middle;margin-right:.3em}
.panels{display:grid;grid-template-columns:repeat(auto-fit,minmax(420px,1fr));gap:1.2em}
.panels>section{min-width:0;overflow-x:auto}
svg text{fill:var(--fg);font:11px system-ui,sans-serif}
svg .axis{stroke:var(--muted);stroke-width:1}svg .grid{stroke:var(--rule);stroke-width:.5}
svg .s0{fill:var(--c0);stroke:var(--c0)}svg .s1{fill:url(#pat-hatch);stroke:var(--c1)}
svg .s2{fill:url(#pat-dots);stroke:var(--c2)}svg .s3{fill:url(#pat-cross);stroke:var(--c3)}
svg .s4{fill:var(--panel);stroke:var(--fg)}
svg polyline.l0{stroke:var(--c0)}svg polyline.l1{stroke:var(--c1);stroke-dasharray:6 3}
svg polyline.l2{stroke:var(--c2);stroke-dasharray:2 2}svg polyline.l3{stroke:var(--c3);stroke-dasharray:8 3 2 3}
svg polyline.l4{stroke:var(--fg);stroke-dasharray:12 3 2 3 2 3}
svg polyline{fill:none;stroke-width:1.6}svg .m0{fill:var(--c0)}svg .m1{fill:var(--c1)}svg .m2{fill:var(--c2)}svg .m3{fill:var(--c3)}svg .m4{fill:var(--fg)}
svg polygon.band{opacity:.25;stroke:none}svg text.tierlabel{paint-order:stroke;stroke:var(--bg);stroke-width:3px}svg .tier0{fill:var(--t0)}svg .tier1{fill:var(--t1)}svg .tier2{fill:var(--t2)}
svg .sw{stroke-width:1}
svg line.whisker{stroke:var(--fg);stroke-width:1.2}svg line.median{stroke:var(--fg);stroke-width:3}
@media print{body{max-width:none;padding:0;font-size:11pt}:root{--bg:#fff;--fg:#000;--panel:#fff}
h2{break-after:avoid}table{break-inside:auto}tr{break-inside:avoid}.panels{display:block}}
"#;

/// The fill patterns every chart refers to (`url(#pat-hatch)`): defined
/// once, in an invisible SVG at the top of the page.
const PATTERNS: &str = r#"<svg width="0" height="0" style="position:absolute" aria-hidden="true"><defs>
<pattern id="pat-hatch" width="6" height="6" patternUnits="userSpaceOnUse" patternTransform="rotate(45)"><rect width="6" height="6" style="fill:var(--bg)"/><line x1="0" y1="0" x2="0" y2="6" style="stroke:var(--c1);stroke-width:3"/></pattern>
<pattern id="pat-dots" width="5" height="5" patternUnits="userSpaceOnUse"><rect width="5" height="5" style="fill:var(--bg)"/><circle cx="2.5" cy="2.5" r="1.5" style="fill:var(--c2)"/></pattern>
<pattern id="pat-cross" width="6" height="6" patternUnits="userSpaceOnUse"><rect width="6" height="6" style="fill:var(--bg)"/><path d="M0 0L6 6M6 0L0 6" style="stroke:var(--c3);stroke-width:1.2"/></pattern>
</defs></svg>"#;

/// The whole document around `body` (already HTML).
pub fn document(title: &str, body: &str) -> String {
    let version = env!("CARGO_PKG_VERSION");
    let page: Markup = html! {
        (DOCTYPE) "\n"
        html lang="en" {
            head {
                meta charset="utf-8"; "\n"
                meta http-equiv="Content-Security-Policy" content=(CSP); "\n"
                meta name="viewport" content="width=device-width,initial-scale=1"; "\n"
                meta name="generator" content={ "dbio-report " (version) }; "\n"
                title { (Text(title)) }
                style { (PreEscaped(CSS)) }
            }
            "\n"
            body {
                "\n" (PreEscaped(PATTERNS)) "\n" (PreEscaped(body)) "\n"
                footer class="muted" {
                    p {
                        "Rendered by dbio-report " (version) " from the result model; one file, \
                         nothing fetched from anywhere. Hover over a bar or a line for its figures."
                    }
                }
                "\n"
            }
        }
        "\n"
    };
    page.into_string()
}

/// A table of plain-text cells (every cell escaped); columns whose
/// header starts with `#` are numeric (right-aligned, the `#` dropped).
pub fn table(id: &str, headers: &[&str], rows: &[Vec<String>]) -> String {
    let numeric: Vec<bool> = headers.iter().map(|h| h.starts_with('#')).collect();
    let class = |i: usize, c: &str| {
        if numeric.get(i).copied().unwrap_or(false) {
            Some("n")
        } else if c.len() > 60 {
            Some("sql")
        } else {
            None
        }
    };
    let t = html! {
        table id=(Text(id)) {
            thead {
                tr {
                    @for h in headers {
                        @match h.strip_prefix('#') {
                            Some(h) => th class="n" { (Text(h)) },
                            None => th { (Text(h)) },
                        }
                    }
                }
            }
            tbody {
                @for r in rows {
                    tr {
                        @for (i, c) in r.iter().enumerate() {
                            td class=[class(i, c)] { (Text(c)) }
                        }
                    }
                }
            }
        }
        "\n"
    };
    t.into_string()
}

/// A bulleted list of plain-text items (notes, warnings).
pub fn list(id: Option<&str>, items: &[String]) -> String {
    html! { ul id=[id] { @for x in items { li { (Text(x)) } } } }.into_string()
}

/// A two-column table of names and values.
pub fn pairs(id: &str, rows: &[(&str, String)]) -> String {
    let rows: Vec<Vec<String>> = rows
        .iter()
        .map(|(k, v)| vec![k.to_string(), v.clone()])
        .collect();
    table(id, &["", ""], &rows)
}

/// The settings of a configuration as a table of its fields, read from
/// its serde form (every field the result records, as JSON names it).
pub fn settings<T: serde::Serialize>(id: &str, config: &T) -> String {
    let v = match serde_json::to_value(config) {
        Ok(v) => v,
        Err(_) => return String::new(),
    };
    let mut rows = Vec::new();
    flatten("", &v, &mut rows);
    let rows: Vec<Vec<String>> = rows.into_iter().map(|(k, v)| vec![k, v]).collect();
    table(id, &["setting", "value"], &rows)
}

/// A configuration's settings folded under "Settings of NAME".
pub fn settings_details<T: serde::Serialize>(name: &str, id: &str, config: &T) -> String {
    html! {
        details {
            summary { "Settings of " (Text(name)) }
            (PreEscaped(settings(id, config)))
        }
    }
    .into_string()
}

fn flatten(prefix: &str, v: &serde_json::Value, out: &mut Vec<(String, String)>) {
    match v {
        serde_json::Value::Object(o) => {
            for (k, x) in o {
                let key = if prefix.is_empty() {
                    k.clone()
                } else {
                    format!("{prefix}.{k}")
                };
                flatten(&key, x, out);
            }
        }
        serde_json::Value::Null => out.push((prefix.to_string(), "-".into())),
        serde_json::Value::String(s) => out.push((prefix.to_string(), s.clone())),
        other => out.push((prefix.to_string(), other.to_string())),
    }
}

/// The answer a page opens with: the question, the answer and its class,
/// and the findings that carry it with their share of the total and
/// evidence (nothing for a result written before verdicts).
pub fn verdict(v: Option<&dbio_model::Verdict>, fs: &[Finding]) -> String {
    let Some(v) = v else {
        return String::new();
    };
    let block = html! {
        section.verdict #verdict data-class=(Text(&format!("{:?}", v.class))) {
            h2 #h-verdict { (Text(&v.question)) }
            p.answer #answer { (Text(&v.answer)) " " span.muted { "(" (v.class.label()) ")" } }
            @if let Some(f) = v.top.iter().filter_map(|&i| fs.get(i)).find(|f| f.text == v.answer) {
                p.ev { (Text(&crate::kit::text::weight_line(f))) }
            }
            ol.top #top-findings {
                @for f in v.top.iter().filter_map(|&i| fs.get(i)).filter(|f| f.text != v.answer) {
                    li data-rule=(Text(&f.rule)) {
                        (Text(&f.text))
                        span.ev { (Text(&crate::kit::text::weight_line(f))) }
                    }
                }
            }
        }
        "\n"
    };
    block.into_string()
}

/// The findings with their evidence and source, severity in words.
pub fn findings(fs: &[Finding]) -> String {
    if fs.is_empty() {
        return "<p class=\"muted\">No findings.</p>\n".into();
    }
    let list = html! {
        ul.findings #findings {
            @for f in fs {
                @let sev = f.severity.to_string();
                li data-rule=(Text(&f.rule)) {
                    span class={ "sev sev-" (sev) } { (sev) }
                    // Most rules name their subject in the text already.
                    @if let Some(sub) = f.subject.as_ref().filter(|x| !f.text.starts_with(x.as_str())) {
                        b { (Text(sub)) } ": "
                    }
                    (Text(&f.text))
                    @if !f.evidence.is_empty() {
                        span.ev { "evidence: " (Text(&crate::kit::findings::evidence_line(f))) }
                    }
                    @if let Some(r) = &f.reference {
                        span.ev { "source: " (Text(&r.to_string())) }
                    }
                }
            }
        }
        "\n"
    };
    list.into_string()
}

/// The environment: host, kernel, filesystem and mount options, device
/// and its write cache.
pub fn environment(e: &Environment) -> String {
    let yes_no = |b: Option<bool>| match b {
        Some(true) => "yes".to_string(),
        Some(false) => "no".to_string(),
        None => "unknown".to_string(),
    };
    let mut rows: Vec<(&str, String)> = vec![
        ("host", e.hostname.clone()),
        ("kernel", format!("Linux {}", e.kernel)),
        ("CPU", format!("{} × {}", e.cpus, e.cpu_model)),
        ("memory", format_bytes(e.memory_bytes)),
        (
            "load average",
            format!(
                "{:.2} {:.2} {:.2} (1, 5, 15 min, at the start)",
                e.loadavg[0], e.loadavg[1], e.loadavg[2]
            ),
        ),
        ("target", e.target.clone()),
        ("filesystem", e.fs_type.clone()),
        ("mount point", e.mount_point.clone()),
        ("mount options", e.mount_options.clone()),
    ];
    match &e.device {
        Some(d) => {
            let mut name = d.name.clone();
            if let Some(p) = &d.partition {
                let _ = write!(name, " (partition {p})");
            }
            if let Some(m) = &d.model {
                let _ = write!(name, " \"{m}\"");
            }
            rows.push(("device", name));
            rows.push((
                "write cache",
                d.write_cache.clone().unwrap_or_else(|| "unknown".into()),
            ));
            rows.push(("FUA", yes_no(d.fua)));
            rows.push(("rotational", yes_no(d.rotational)));
            rows.push((
                "scheduler",
                d.scheduler.clone().unwrap_or_else(|| "unknown".into()),
            ));
            rows.push((
                "sectors logical/physical",
                format!(
                    "{} / {} B",
                    d.logical_block_size.map_or("?".into(), |v| v.to_string()),
                    d.physical_block_size.map_or("?".into(), |v| v.to_string())
                ),
            ));
        }
        None => rows.push((
            "device",
            "none (no block device under the filesystem)".into(),
        )),
    }
    if let Some(a) = &e.dio_alignment {
        rows.push((
            "O_DIRECT alignment",
            format!(
                "memory {} B, offsets {} B (statx)",
                a.mem_align, a.offset_align
            ),
        ));
    }
    if let Some(c) = &e.cached_before {
        rows.push((
            "page cache before",
            format!("{:.1} % of the target resident", c.fraction() * 100.0),
        ));
    }
    pairs("environment", &rows)
}

/// A Unix time as `YYYY-MM-DD HH:MM:SS UTC` (civil-from-days, Howard
/// Hinnant's algorithm; exact for every date after 1970).
pub fn utc(unix: u64) -> String {
    let days = (unix / 86_400) as i64;
    let secs = unix % 86_400;
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!(
        "{y:04}-{m:02}-{d:02} {:02}:{:02}:{:02} UTC",
        secs / 3600,
        secs / 60 % 60,
        secs % 60
    )
}

/// The "how this was produced" lines shared by every page: dbio's version
/// that wrote the result, and the command line when known.
pub fn provenance(tool: &str, invocation: Option<&str>) -> String {
    let mut rows: Vec<(&str, String)> = Vec::new();
    if !tool.is_empty() {
        rows.push(("written by", tool.to_string()));
    }
    rows.push((
        "command line",
        invocation.map_or_else(
            || "not recorded in the result (written by a dbio that did not record it)".to_string(),
            str::to_string,
        ),
    ));
    pairs("provenance", &rows)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn outside_strings_cannot_leave_their_text_node() {
        assert_eq!(
            esc("<script>\"onload='x'&</svg>"),
            "&lt;script&gt;&quot;onload=&#39;x&#39;&amp;&lt;/svg&gt;"
        );
        assert_eq!(esc("a\u{0}b\u{1b}c\td"), "a\u{fffd}b\u{fffd}c\td");
        assert_eq!(clip("abcdef", 4), "abc…");
        assert_eq!(clip("abc", 4), "abc");
    }

    #[test]
    fn utc_dates_are_civil_dates() {
        assert_eq!(utc(0), "1970-01-01 00:00:00 UTC");
        assert_eq!(utc(951_782_400), "2000-02-29 00:00:00 UTC");
        assert_eq!(utc(1_795_000_000), "2026-11-18 11:06:40 UTC");
    }
}
