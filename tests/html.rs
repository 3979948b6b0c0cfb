//! `--html` (issue 14): every command's page rendered in a real headless
//! Chromium with a fresh profile: the DOM holds the expected charts
//! (SVG elements with stable ids and classes), labels and numbers; a
//! screenshot is taken; Chromium's network log shows that the page asked
//! for nothing (only the file:// document itself was loaded); strings
//! from a trace and a file name stay text. Without Chromium the tests
//! print a skip reason, except under CI (`CI` set), where they fail.

use crate::util::{dbio, is_root, json, scratch, wait_output_within, Succeeds};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// Chromium's path, or why the test cannot run (a failure under CI).
fn browser() -> Result<PathBuf, String> {
    for name in ["chromium", "chromium-browser"] {
        let Some(paths) = std::env::var_os("PATH") else {
            break;
        };
        for dir in std::env::split_paths(&paths) {
            let p = dir.join(name);
            if p.is_file() {
                return Ok(p);
            }
        }
    }
    assert!(
        std::env::var_os("CI").is_none(),
        "chromium is not installed (scripts/test installs Debian's chromium); CI needs it"
    );
    Err("chromium is not installed (scripts/test installs it as root)".into())
}

/// What Chromium made of a page.
struct Rendered {
    /// The DOM after load, serialised (`--dump-dom`).
    dom: String,
    /// URLs the page itself asked for (requests with a document
    /// initiator; Chromium's own background requests have none).
    page_requests: Vec<String>,
    /// The screenshot.
    png: PathBuf,
}

/// Chromium in headless mode with everything that could reach out turned
/// off, a fresh profile, and `extra` arguments, on the file `page`.
fn chromium(bin: &Path, profile: &Path, extra: &[String], page: &Path) -> std::process::Output {
    let child = std::process::Command::new(bin)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--window-size=1200,2400",
        ])
        .arg(format!("--user-data-dir={}", profile.display()))
        .args(extra)
        .arg(format!("file://{}", page.display()))
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("starting chromium");
    let out = wait_output_within(child, Duration::from_secs(90));
    assert!(
        out.status.success(),
        "chromium failed on {}: {}",
        page.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

/// The URLs requested by documents in a Chromium net log: the
/// `URL_REQUEST_START_JOB` events whose initiator is an origin (a file://
/// page's is `null`); the browser's own requests are `not an origin`.
fn page_requests(netlog: &Path) -> Vec<String> {
    let text = std::fs::read_to_string(netlog).expect("net log");
    // A log cut short by the browser's exit lacks its closing brackets.
    let v: serde_json::Value = serde_json::from_str(&text)
        .or_else(|_| serde_json::from_str(&format!("{}]}}", text.trim_end().trim_end_matches(','))))
        .expect("net log is JSON");
    let start_job = v["constants"]["logEventTypes"]["URL_REQUEST_START_JOB"]
        .as_u64()
        .expect("net log names URL_REQUEST_START_JOB");
    v["events"]
        .as_array()
        .expect("net log events")
        .iter()
        .filter(|e| e["type"].as_u64() == Some(start_job))
        .filter(|e| e["params"]["initiator"].as_str() != Some("not an origin"))
        .filter_map(|e| e["params"]["url"].as_str().map(str::to_string))
        .collect()
}

/// Renders `page` twice with fresh profiles: the DOM with a net log, then
/// a screenshot.
fn render(bin: &Path, page: &Path) -> Rendered {
    let dir = scratch();
    let netlog = dir.path().join("net.json");
    let out = chromium(
        bin,
        &dir.path().join("profile-dom"),
        &[
            format!("--log-net-log={}", netlog.display()),
            "--dump-dom".into(),
        ],
        page,
    );
    let png = page.with_extension("png");
    chromium(
        bin,
        &dir.path().join("profile-png"),
        &[format!("--screenshot={}", png.display())],
        page,
    );
    let shot = std::fs::read(&png).expect("screenshot written");
    assert!(
        shot.starts_with(b"\x89PNG\r\n\x1a\n") && shot.len() > 10_000,
        "not a screenshot of a page: {} bytes",
        shot.len()
    );
    Rendered {
        dom: String::from_utf8_lossy(&out.stdout).into_owned(),
        page_requests: page_requests(&netlog),
        png,
    }
}

impl Rendered {
    /// Asserts the page's common parts and that nothing left it.
    fn offline_page(&self) {
        assert!(
            self.page_requests.is_empty(),
            "the page asked for {:?}",
            self.page_requests
        );
        assert!(
            self.dom
                .contains("content=\"default-src 'none'; style-src 'unsafe-inline'"),
            "no fetch-forbidding policy"
        );
        assert!(
            !self.dom.contains("<script"),
            "a script element in the page"
        );
        assert_eq!(
            self.dom.matches("<svg").count(),
            self.dom.matches("</svg>").count(),
            "unbalanced SVG"
        );
        let _ = &self.png;
    }

    /// Asserts a chart of `kind` with `id`.
    fn chart(&self, kind: &str, id: &str) {
        let fig = format!("<figure class=\"chart {kind}\" id=\"{id}\"><svg class=\"{kind}\"");
        assert!(self.dom.contains(&fig), "no {kind} chart {id} in the DOM");
    }

    fn text(&self, t: &str) {
        assert!(self.dom.contains(t), "the DOM lacks {t:?}");
    }
}

/// Runs dbio with `args` and `--html FILE --json FILE` in a scratch
/// directory; the rendered page and the JSON result.
fn run_html(bin: &Path, dir: &Path, args: &[&str]) -> (Rendered, serde_json::Value) {
    let html = dir.join("report.html");
    let js = dir.join("report.json");
    dbio()
        .args(args)
        .arg("--html")
        .arg(&html)
        .arg("--json")
        .arg(&js)
        .succeeds();
    let v = json(&std::fs::read(&js).unwrap());
    (render(bin, &html), v)
}

// See: issue 14.
#[test]
fn html_bench_page_has_histogram_percentiles_series_and_stays_offline() {
    let bin = or_skip!(browser());
    let d = scratch();
    let (r, v) = run_html(
        &bin,
        d.path(),
        &["bench", "--engine", "null", "--runtime", "2", "--quiet"],
    );
    r.offline_page();
    for (kind, id) in [
        ("hist", "hist-job-0"),
        ("pct", "pct-job-0"),
        ("series", "series-iops-job-0"),
        ("series", "series-lat-job-0"),
    ] {
        r.chart(kind, id);
    }
    let iops = v["jobs"][0]["read"]["iops"].as_f64().unwrap();
    r.text(&format!("<td class=\"n\">{iops:.0}</td>"));
    r.text("Raw I/O jobs");
    r.text("Complete: every part of the run finished.");
    r.text("id=\"environment\"");
    r.text(&format!(
        "Linux {}",
        v["environment"]["kernel"].as_str().unwrap()
    ));
    // The command line that ran, and the version that wrote the result.
    r.text("bench --engine null --runtime 2 --quiet --html");
    r.text(&format!("<td>{}</td>", v["tool"].as_str().unwrap()));
    // Per-second lines: one point per sample.
    let samples = v["jobs"][0]["series"].as_array().unwrap().len();
    assert!(samples >= 1);
    let series = r.dom.split("id=\"series-iops-job-0\"").nth(1).unwrap();
    // The first line of the chart (the legend's sample line comes after).
    let points = series
        .split("<polyline class=\"l0\" points=\"")
        .nth(1)
        .unwrap()
        .split('"')
        .next()
        .unwrap();
    assert_eq!(points.split_whitespace().count(), samples, "{points}");
}

#[test]
fn html_lgwr_page_breaks_commit_time_into_stacked_bars() {
    let bin = or_skip!(browser());
    let d = scratch();
    let (r, v) = run_html(
        &bin,
        d.path(),
        &[
            "lgwr",
            "--null-delay",
            "200us",
            "--sessions",
            "4",
            "--commits",
            "50",
            "--quiet",
        ],
    );
    r.offline_page();
    r.chart("stacked", "lgwr-breakdown");
    r.chart("bars", "lgwr-tps");
    r.chart("hist", "lgwr-lfs-hist");
    r.chart("pct", "lgwr-lfs-pct");
    r.text("wait for the writer");
    let tps = v["lgwr"][0]["tps"].as_f64().unwrap();
    r.text(&format!("<td class=\"n\">{tps:.0}</td>"));
    // Four segments, one per part of a commit, each with its tooltip.
    let chart = r.dom.split("id=\"lgwr-breakdown\"").nth(1).unwrap();
    let chart = chart.split("</figure>").next().unwrap();
    assert!(chart.matches("class=\"seg ").count() >= 3, "{chart}");
}

#[test]
fn html_dbwr_page_draws_the_writer_sweep() {
    let bin = or_skip!(browser());
    let d = scratch();
    let dir = d.path().join("data");
    std::fs::create_dir(&dir).unwrap();
    let (r, v) = run_html(
        &bin,
        d.path(),
        &[
            "dbwr",
            dir.to_str().unwrap(),
            "--size",
            "4m",
            "--buffers",
            "128",
            "--lists",
            "4",
            "--foregrounds",
            "2",
            "--dirty",
            "50",
            "--ops",
            "500",
            "--writers",
            "1,2",
            "--quiet",
        ],
    );
    r.offline_page();
    r.chart("bars", "dbwr-sweep-ops");
    r.chart("bars", "dbwr-sweep-waits");
    r.chart("stacked", "dbwr-shares");
    r.chart("pct", "dbwr-pw-pct");
    assert_eq!(v["dbwr"].as_array().unwrap().len(), 2);
    for x in v["dbwr"].as_array().unwrap() {
        let ops = x["foreground"]["ops_per_sec"].as_f64().unwrap();
        r.text(&format!("<td class=\"n\">{ops:.0}</td>"));
    }
    r.text("(2 writers)");
}

#[test]
fn html_read_page_puts_cold_and_warm_side_by_side_with_tiers() {
    let bin = or_skip!(browser());
    let d = scratch();
    let dir = d.path().join("data");
    std::fs::create_dir(&dir).unwrap();
    let (r, v) = run_html(
        &bin,
        d.path(),
        &[
            "read",
            dir.to_str().unwrap(),
            "--size",
            "4m",
            "--ops",
            "300",
            "--cached",
            "cold,warm",
            "--quiet",
        ],
    );
    r.offline_page();
    r.chart("hist", "read-hist");
    r.chart("stacked", "read-tiers");
    r.chart("pct", "read-pct");
    let hist = r.dom.split("id=\"read-hist\"").nth(1).unwrap();
    let hist = hist.split("</figure>").next().unwrap();
    // Both states in one chart, told apart by pattern (s0 solid, s1 hatched),
    // with the tier bands labelled.
    assert!(hist.contains("class=\"bar s0 sw\"") && hist.contains("class=\"bar s1 sw\""));
    assert!(hist.contains(">page cache</text>"), "{hist}");
    for x in v["reads"].as_array().unwrap() {
        r.text(&format!("<td>{}</td>", x["name"].as_str().unwrap()));
    }
}

#[test]
fn html_calibrate_page_shades_the_boundaries_it_found() {
    let bin = or_skip!(browser());
    let d = scratch();
    let dir = d.path().join("data");
    std::fs::create_dir(&dir).unwrap();
    let (r, _v) = run_html(
        &bin,
        d.path(),
        &[
            "calibrate",
            dir.to_str().unwrap(),
            "--size",
            "4m",
            "--samples",
            "50",
            "--runtime",
            "0.5",
            "--no-save",
            "--quiet",
        ],
    );
    r.offline_page();
    r.chart("hist", "calibrate-hist");
    r.chart("pct", "calibrate-pct");
    r.text("Tier calibration");
    r.text("class=\"tier tier0\"");
}

#[test]
fn html_load_page_on_sqlite_draws_commits_each_second() {
    let bin = or_skip!(browser());
    let d = scratch();
    let (r, v) = run_html(
        &bin,
        d.path(),
        &[
            "load",
            "--sessions",
            "2",
            "--runtime",
            "1.5",
            "--dir",
            d.path().to_str().unwrap(),
            "--quiet",
        ],
    );
    r.offline_page();
    r.chart("hist", "load-hist");
    r.chart("pct", "load-pct");
    let commits = v["load"][0]["commits"].as_u64().unwrap();
    r.text(&format!("<td class=\"n\">{commits}</td>"));
    // Per-second series in the shared shape where the result has them,
    // the older `series` otherwise.
    if v["load"][0]["per_second"].is_array() {
        r.chart("series", "load-ps-0-tps");
        assert!(!r.dom.contains("id=\"series-load-0\""));
    } else if !v["load"][0]["series"].as_array().unwrap().is_empty() {
        r.chart("series", "series-load-0");
    }
    // A result written before `per_second` existed keeps its chart of the
    // older `series`.
    let mut old = v.clone();
    old["load"][0].as_object_mut().unwrap().remove("per_second");
    let js = d.path().join("old.json");
    std::fs::write(&js, old.to_string()).unwrap();
    let page = dbio()
        .args(["report", "--from"])
        .arg(&js)
        .args(["--html", "-"])
        .succeeds();
    let page = String::from_utf8_lossy(&page.stdout);
    assert!(page.contains("id=\"series-load-0\""));
    assert!(!page.contains("id=\"load-ps-0-tps\""));
}

#[test]
fn html_awr_page_and_comparison_panels() {
    let bin = or_skip!(browser());
    let d = scratch();
    let f = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/crates/awr/tests/data/awr-19c-rac-crlf.txt"
    );
    let (r, v) = run_html(&bin, d.path(), &["awr", f]);
    r.offline_page();
    r.chart("bars", "awr-top-a");
    let first = v["top_events"][0]["name"].as_str().unwrap();
    r.text(first);
    let (r, _) = run_html(&bin, d.path(), &["awr", "--compare", f, f]);
    r.offline_page();
    r.text("id=\"panel-a\"");
    r.text("id=\"panel-b\"");
    r.chart("bars", "awr-top-b");
    // The same report twice: every event's ratio is 1.
    r.text("<td class=\"n\">1.00×</td>");
}

#[test]
fn html_tracefile_page_has_profile_histograms_timeline_and_comparison() {
    let bin = or_skip!(browser());
    let d = scratch();
    let f = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/crates/oracle/tests/data/shared-server-19c.trc"
    );
    let (r, v) = run_html(&bin, d.path(), &["tracefile", f]);
    r.offline_page();
    r.chart("bars", "profile-t");
    r.text("id=\"statements-t\"");
    r.text("Response-time profile");
    for line in v["profile"]["lines"].as_array().unwrap() {
        r.text(&format!("<td>{}</td>", line["name"].as_str().unwrap()));
    }
    if !v["io_histograms"].as_array().unwrap().is_empty() {
        r.chart("hist", "trace-hist-t-0");
    }
    if !v["timeline"]["points"].as_array().unwrap().is_empty() {
        r.chart("series", "timeline-t");
    }
    let g = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/crates/oracle/tests/data/ninei-9201.trc"
    );
    let (r, _) = run_html(&bin, d.path(), &["tracefile", "--compare", f, g]);
    r.offline_page();
    r.chart("bars", "profile-a");
    r.chart("bars", "profile-b");
    r.text("id=\"compare-events\"");
}

#[test]
fn html_watch_page_when_bpf_is_available() {
    let bin = or_skip!(browser());
    if !is_root() {
        return crate::util::skip_this_test("dbio watch needs root to load BPF programs");
    }
    let d = scratch();
    let html = d.path().join("w.html");
    let target = d.path().join("written");
    let out = dbio()
        .args(["watch", "--quiet", "--html"])
        .arg(&html)
        .args([
            "--",
            "dd",
            "if=/dev/zero",
            "bs=4k",
            "count=64",
            "oflag=dsync",
        ])
        .arg(format!("of={}", target.display()))
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    if err.contains("the kernel refused") || err.contains("no syscall tracepoint") {
        return crate::util::skip_this_test(&format!("BPF unavailable: {err}"));
    }
    assert!(out.status.success(), "{err}");
    let r = render(&bin, &html);
    r.offline_page();
    r.chart("bars", "watch-time-0");
    r.text(&target.display().to_string());
    // The block layer (issue 14): the same watch saved as JSON, so the
    // page's charts are checked against what was traced.
    let js = d.path().join("w.json");
    let out = dbio()
        .args(["watch", "--quiet", "--json"])
        .arg(&js)
        .args(["--html"])
        .arg(&html)
        .args([
            "--",
            "dd",
            "if=/dev/zero",
            "bs=4k",
            "count=64",
            "oflag=dsync",
        ])
        .arg(format!("of={}", target.display()))
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v = json(&std::fs::read(&js).unwrap());
    let w = &v["watch"][0];
    let r = render(&bin, &html);
    r.offline_page();
    let block = w["block"].as_array().map_or(0, Vec::len);
    if block == 0 {
        assert!(!r.dom.contains("id=\"watch-dev-0-0\""));
        return crate::util::skip_this_test("no block request was traced on this machine");
    }
    r.text("id=\"watch-block-0\"");
    r.chart("hist", "watch-dev-0-0");
    r.text("id=\"watch-unattributed-0\"");
    r.text("lay in no watched file's extents");
    if w["file_block"].as_array().is_some_and(|f| !f.is_empty()) {
        r.chart("paired", "watch-file-dev-0");
        r.text("device (issue to completion)");
        r.text(&format!("write {}", target.display()));
    }
}

// See: issue 14. `dbio load --predict` draws the model beside the
// measurement, residuals written, and the model's inputs as a table.
#[test]
fn html_load_predict_panel_on_sqlite() {
    let bin = or_skip!(browser());
    let d = scratch();
    let (r, v) = run_html(
        &bin,
        d.path(),
        &[
            "load",
            "--dir",
            d.path().to_str().unwrap(),
            "--sessions",
            "1",
            "--commits",
            "200",
            "--predict",
            "--quiet",
        ],
    );
    r.offline_page();
    let p = &v["load"][0]["predict"];
    assert!(p.is_object(), "no prediction in {v}");
    r.text("id=\"load-predict-0\"");
    r.chart("paired", "load-predict-bars-0");
    for f in [
        "commits per second",
        "commits per flush",
        "mean commit latency",
        "mean flush latency",
    ] {
        r.text(&format!("<title>{f}</title>"));
    }
    r.text(&format!(
        "residual {:+.1} %",
        p["tps_residual_pct"].as_f64().unwrap()
    ));
    r.text("id=\"load-predict-inputs-0\"");
    r.text(&format!("<td>{}</td>", p["protocol"].as_str().unwrap()));
    r.text(&format!("<td>{}</td>", p["method"].as_str().unwrap()));
    r.text(&format!(
        "<td>syncs per flush</td><td>{}</td>",
        p["syncs_per_flush"].as_u64().unwrap()
    ));
    r.text("<td>CPU per commit fed</td>");
    // Without --predict, no panel.
    let e = scratch();
    let (r, _) = run_html(
        &bin,
        e.path(),
        &[
            "load",
            "--dir",
            e.path().to_str().unwrap(),
            "--sessions",
            "1",
            "--commits",
            "50",
            "--quiet",
        ],
    );
    assert!(!r.dom.contains("id=\"load-predict-0\""));
}

// See: issue 14. A report beside a 10046 trace: every event of the
// result in the side-by-side table, with where it was seen.
#[test]
fn html_awr_with_trace_flags_trace_only_and_report_only_events() {
    let bin = or_skip!(browser());
    let d = scratch();
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/awr");
    let (r, v) = run_html(
        &bin,
        d.path(),
        &[
            "awr",
            &format!("{dir}/decimal-comma.txt"),
            "--with-trace",
            &format!("{dir}/with-trace.trc"),
        ],
    );
    r.offline_page();
    r.text("id=\"awr-with-trace-a\"");
    let rows = v["with_trace"]["rows"].as_array().unwrap();
    assert!(!rows.is_empty());
    let mut seen = std::collections::BTreeSet::new();
    for row in rows {
        let flag = match row["seen_in"].as_str().unwrap() {
            "both" => "both",
            "trace_only" => "trace only",
            "report_only" => "report only",
            o => panic!("unknown seen_in {o}"),
        };
        seen.insert(flag);
        r.text(&format!("<td>{}</td>", row["event"].as_str().unwrap()));
    }
    for flag in &seen {
        r.text(&format!("<td>{flag}</td>"));
    }
    if seen.contains("both") {
        r.chart("paired", "awr-with-trace-avg-a");
    }
    // The same report alone has no such section.
    let (r, _) = run_html(
        &bin,
        d.path(),
        &["awr", &format!("{dir}/decimal-comma.txt")],
    );
    assert!(!r.dom.contains("awr-with-trace-a"));
}

/// A 10046 trace whose SQL text and event name carry markup, quotes and
/// bytes that are not UTF-8, in a file whose name carries markup (the
/// command line takes UTF-8 names only: dbio refuses others in one
/// sentence, so the non-UTF-8 file name goes through `bench`'s target).
fn hostile_trace(dir: &Path) -> PathBuf {
    let path = dir.join("evil<svg onload=alert(1)>\"onload=x'.trc");
    let sql =
        b"select '<script>alert(1)</script>' \"onload=alert(2) </svg><b>x</b> \xff\xfe from dual";
    let mut t = Vec::new();
    t.extend_from_slice(
        b"Oracle Database 19c Enterprise Edition Release 19.0.0.0.0 - Production\n\n",
    );
    t.extend_from_slice(
        b"*** SESSION ID:(9.3) 2024-06-01T12:00:00.000000+00:00\n=====================\n",
    );
    t.extend_from_slice(
        format!(
            "PARSING IN CURSOR #1 len={} dep=0 uid=5 oct=3 lid=5 tim=1000 hv=3333 ad='5a1' sqlid='abc<i>d'\n",
            sql.len()
        )
        .as_bytes(),
    );
    t.extend_from_slice(sql);
    t.extend_from_slice(b"\nEND OF STMT\n");
    t.extend_from_slice(b"PARSE #1:c=0,e=120,p=0,cr=0,cu=0,mis=1,r=0,dep=0,og=4,plh=0,tim=1000\n");
    t.extend_from_slice(b"EXEC #1:c=0,e=40,p=0,cr=0,cu=0,mis=0,r=0,dep=0,og=4,plh=0,tim=1100\n");
    t.extend_from_slice(b"WAIT #1: nam='</svg><script>alert(3)</script>\"onload=\xff' ela= 900 p1=7 p2=1001 p3=8 obj#=1 tim=2000\n");
    t.extend_from_slice(b"WAIT #1: nam='db file sequential read' ela= 300 file#=7 block#=1017 blocks=1 obj#=1 tim=2400\n");
    t.extend_from_slice(
        b"FETCH #1:c=1000,e=2200,p=17,cr=20,cu=0,mis=0,r=1,dep=0,og=4,plh=0,tim=3400\n",
    );
    t.extend_from_slice(b"WAIT #1: nam='SQL*Net message from client' ela= 5000 driver id=1650815232 #bytes=1 p3=0 obj#=-1 tim=8400\n");
    std::fs::write(&path, t).unwrap();
    path
}

#[test]
fn html_keeps_markup_from_a_trace_and_a_file_name_as_text() {
    let bin = or_skip!(browser());
    let d = scratch();
    let trace = hostile_trace(d.path());
    let html = d.path().join("t.html");
    dbio()
        .arg("tracefile")
        .arg(&trace)
        .arg("--html")
        .arg(&html)
        .succeeds();
    let r = render(&bin, &html);
    r.offline_page();
    // Each element Chromium built has a name from the page's own markup:
    // no script, no element or attribute from the trace.
    for tag in r.dom.split('<').skip(1) {
        let tag = tag.split('>').next().unwrap();
        assert!(!tag.contains("onload"), "an onload attribute: <{tag}>");
    }
    assert!(!r.dom.contains("<b>x</b>") && !r.dom.contains("<i>d"));
    // The strings are in the DOM as text (serialised with < and > escaped).
    r.text("&lt;script&gt;alert(1)&lt;/script&gt;");
    r.text("\"onload=alert(2) &lt;/svg&gt;&lt;b&gt;x&lt;/b&gt; \u{fffd}");
    r.text("&lt;/svg&gt;&lt;script&gt;alert(3)&lt;/script&gt;\"onload=");
    r.text("/evil&lt;svg onload=alert(1)&gt;\"onload=x'.trc</td>");
}

#[test]
fn html_keeps_markup_and_bad_bytes_of_a_target_name_as_text() {
    use std::os::unix::ffi::OsStrExt;
    let bin = or_skip!(browser());
    let d = scratch();
    let target = d.path().join(std::ffi::OsStr::from_bytes(
        b"dir<svg onload=alert(1)>\"onload=x'\xff",
    ));
    std::fs::create_dir(&target).unwrap();
    let html = d.path().join("b.html");
    dbio()
        .arg("bench")
        .arg(&target)
        .args(["--ops", "50", "--size", "1m", "--quiet", "--html"])
        .arg(&html)
        .succeeds();
    let r = render(&bin, &html);
    r.offline_page();
    for tag in r.dom.split('<').skip(1) {
        let tag = tag.split('>').next().unwrap();
        assert!(!tag.contains("onload"), "an onload attribute: <{tag}>");
    }
    r.text("dir&lt;svg onload=alert(1)&gt;\"onload=x'\u{fffd}");
}

#[test]
fn html_from_a_saved_result_is_the_same_page_and_says_partial() {
    let bin = or_skip!(browser());
    let d = scratch();
    let js = d.path().join("r.json");
    dbio()
        .args([
            "bench",
            "--engine",
            "null",
            "--runtime",
            "1",
            "--quiet",
            "--json",
        ])
        .arg(&js)
        .succeeds();
    let mut v = json(&std::fs::read(&js).unwrap());
    v["partial"] = serde_json::json!({"kind": "signal", "signal": "SIGINT"});
    std::fs::write(&js, v.to_string()).unwrap();
    let html = d.path().join("r.html");
    dbio()
        .args(["report", "--from"])
        .arg(&js)
        .arg("--html")
        .arg(&html)
        .succeeds();
    let r = render(&bin, &html);
    r.offline_page();
    r.chart("hist", "hist-job-0");
    r.chart("series", "series-iops-job-0");
    r.text("PARTIAL RESULT: interrupted by SIGINT.");
    // The command line the result recorded, not `dbio report`'s.
    assert!(v["invocation"].as_str().unwrap().ends_with(&format!(
        "bench --engine null --runtime 1 --quiet --json {}",
        js.display()
    )));
    r.text("bench --engine null --runtime 1 --quiet --json");
    assert!(
        !r.dom.contains("report --from"),
        "the page shows dbio report's command line"
    );
    // A result written before the command line was recorded says so.
    v.as_object_mut().unwrap().remove("invocation");
    std::fs::write(&js, v.to_string()).unwrap();
    dbio()
        .args(["report", "--from"])
        .arg(&js)
        .arg("--html")
        .arg(&html)
        .succeeds();
    let page = std::fs::read_to_string(&html).unwrap();
    assert!(page.contains("not recorded in the result"));
}

/// The net-log check is not vacuous: a page that fetches is caught.
#[test]
fn html_netlog_check_sees_a_page_that_fetches() {
    let bin = or_skip!(browser());
    let d = scratch();
    let page = d.path().join("fetches.html");
    std::fs::write(
        &page,
        "<!DOCTYPE html><html><body><img src=\"http://127.0.0.1:9/x.png\"><p>fetching</p></body></html>",
    )
    .unwrap();
    let r = render(&bin, &page);
    assert_eq!(
        r.page_requests,
        ["http://127.0.0.1:9/x.png"],
        "{:?}",
        r.page_requests
    );
}

#[test]
fn html_and_json_to_the_same_file_is_refused_before_measuring() {
    let d = scratch();
    let f = d.path().join("same");
    let out = dbio()
        .args(["bench", "--engine", "null", "--runtime", "1", "--json"])
        .arg(&f)
        .arg("--html")
        .arg(&f)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("--json and --html name the same destination"),
        "{err}"
    );
    assert!(!f.exists());
}

#[test]
fn html_to_standard_output_takes_the_tables_place() {
    let out = dbio()
        .args([
            "bench", "--engine", "null", "--ops", "200", "--quiet", "--html", "-",
        ])
        .succeeds();
    let page = String::from_utf8(out.stdout).unwrap();
    assert!(
        page.starts_with("<!DOCTYPE html>\n"),
        "{}",
        &page[..page.len().min(200)]
    );
    assert!(page.trim_end().ends_with("</html>"));
    assert!(!page.contains("┌"), "the table was printed too");
    assert!(page.contains("id=\"hist-job-0\""));
}

#[test]
fn an_html_destination_that_cannot_be_written_is_refused_before_measuring() {
    let d = scratch();
    let bad = d.path().join("missing-dir").join("r.html");
    let out = dbio()
        .args([
            "bench", "--engine", "null", "--ops", "200", "--quiet", "--html",
        ])
        .arg(&bad)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("cannot write results to"), "{err}");
    assert!(out.stdout.is_empty(), "it measured before refusing");
}

/// A composite result (as `dbio check` writes one: several sections in one
/// report) gets every section's charts on one page.
#[test]
fn html_a_composite_result_renders_every_section_it_holds() {
    let bin = or_skip!(browser());
    let d = scratch();
    let data = d.path().join("data");
    std::fs::create_dir(&data).unwrap();
    let dir = data.to_str().unwrap();
    let run = |args: &[&str]| {
        let out = dbio()
            .args(args)
            .args(["--quiet", "--json", "-"])
            .succeeds();
        json(&out.stdout)
    };
    let mut all = run(&["bench", "--engine", "null", "--ops", "2000"]);
    let lgwr = run(&[
        "lgwr",
        "--null-delay",
        "100us",
        "--sessions",
        "2",
        "--commits",
        "20",
    ]);
    let read = run(&["read", dir, "--size", "2m", "--ops", "100"]);
    all["command"] = "check".into();
    all["layout"] = "summary".into();
    all["lgwr"] = lgwr["lgwr"].clone();
    all["reads"] = read["reads"].clone();
    let js = d.path().join("check.json");
    std::fs::write(&js, all.to_string()).unwrap();
    let html = d.path().join("check.html");
    dbio()
        .args(["report", "--from"])
        .arg(&js)
        .arg("--html")
        .arg(&html)
        .succeeds();
    let r = render(&bin, &html);
    r.offline_page();
    r.text("<h1>dbio check</h1>");
    r.chart("hist", "hist-job-0");
    r.chart("stacked", "lgwr-breakdown");
    r.chart("hist", "read-hist");
    for h in ["h-jobs", "h-lgwr", "h-read", "h-environment"] {
        r.text(&format!("id=\"{h}\""));
    }
}

/// Asserts the per-second series chart `id` with a line labelled by each
/// of `labels` in its legend and at least `points` points on its first line.
fn per_second_chart(r: &Rendered, id: &str, labels: &[&str], points: usize) {
    r.chart("series", id);
    let chart = r.dom.split(&format!("id=\"{id}\"")).nth(1).unwrap();
    let chart = chart.split("</figure>").next().unwrap();
    for l in labels {
        assert!(
            chart.contains(&format!(">{l}</")),
            "chart {id} lacks {l:?}: {chart}"
        );
    }
    let pts = chart
        .split("<polyline class=\"l0\" points=\"")
        .nth(1)
        .unwrap()
        .split('"')
        .next()
        .unwrap();
    assert!(pts.split_whitespace().count() >= points, "{id}: {pts}");
}

/// The names of an entry's per-second series (the test needs them: a
/// chart is drawn per series that exists).
fn series_names(entry: &serde_json::Value) -> Vec<String> {
    entry["per_second"]
        .as_array()
        .expect("per-second series in a time-based run")
        .iter()
        .map(|s| s["name"].as_str().unwrap().to_string())
        .collect()
}

// See: issue 14 (per-second series).
#[test]
fn html_lgwr_and_dbwr_pages_draw_their_per_second_series() {
    let bin = or_skip!(browser());
    let d = scratch();
    let (r, v) = run_html(
        &bin,
        d.path(),
        &[
            "lgwr",
            "--null-delay",
            "200us",
            "--sessions",
            "2",
            "--runtime",
            "2.2",
            "--quiet",
        ],
    );
    r.offline_page();
    let names = series_names(&v["lgwr"][0]);
    assert!(
        names.contains(&"log_file_sync_p99".to_string()),
        "{names:?}"
    );
    per_second_chart(&r, "lgwr-ps-0-tps", &["commits/s"], 2);
    per_second_chart(&r, "lgwr-ps-0-lfs", &["p50", "p99"], 2);
    per_second_chart(&r, "lgwr-ps-0-writes", &["writes/s"], 2);
    per_second_chart(&r, "lgwr-ps-0-cpw", &["commits per write"], 2);
    // The figures of a line are the recorded series': the tooltip's sample
    // count is the number of seconds that had a value.
    let n = v["lgwr"][0]["per_second"][0]["values"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|x| !x.is_null())
        .count();
    r.text(&format!("commits/s: {n} samples"));

    let dir = d.path().join("data");
    std::fs::create_dir(&dir).unwrap();
    let d2 = scratch();
    let (r, v) = run_html(
        &bin,
        d2.path(),
        &[
            "dbwr",
            dir.to_str().unwrap(),
            "--size",
            "4m",
            "--buffers",
            "128",
            "--foregrounds",
            "2",
            "--runtime",
            "2.2",
            "--quiet",
        ],
    );
    r.offline_page();
    assert!(!series_names(&v["dbwr"][0]).is_empty());
    per_second_chart(
        &r,
        "dbwr-ps-0-ops",
        &["foreground ops/s", "blocks written/s"],
        2,
    );
    per_second_chart(&r, "dbwr-ps-0-waits", &["free buffer waits/s"], 2);
}

// See: issue 14 (per-second series).
#[test]
fn html_read_and_load_pages_draw_their_per_second_series() {
    let bin = or_skip!(browser());
    let d = scratch();
    let dir = d.path().join("data");
    std::fs::create_dir(&dir).unwrap();
    let (r, v) = run_html(
        &bin,
        d.path(),
        &[
            "read",
            dir.to_str().unwrap(),
            "--size",
            "4m",
            "--runtime",
            "2.2",
            "--cached",
            "warm",
            "--quiet",
        ],
    );
    r.offline_page();
    let names = series_names(&v["reads"][0]);
    per_second_chart(&r, "read-ps-0-iops", &["all reads"], 2);
    per_second_chart(&r, "read-ps-0-lat", &["all p50", "all p99"], 2);
    // Each tier that had reads has its lines (warm reads: the page cache
    // at least).
    assert!(names.contains(&"page_cache_iops".to_string()), "{names:?}");
    for (key, label) in [
        ("page_cache", "page cache"),
        ("storage_cache", "storage cache"),
        ("device", "device"),
    ] {
        if names.contains(&format!("{key}_iops")) {
            per_second_chart(&r, "read-ps-0-iops", &[label], 2);
            let (p50, p99) = (format!("{label} p50"), format!("{label} p99"));
            per_second_chart(&r, "read-ps-0-lat", &[&p50, &p99], 1);
        }
    }

    let d2 = scratch();
    let (r, v) = run_html(
        &bin,
        d2.path(),
        &[
            "load",
            "--sessions",
            "2",
            "--runtime",
            "2.2",
            "--dir",
            d2.path().to_str().unwrap(),
            "--quiet",
        ],
    );
    r.offline_page();
    assert!(series_names(&v["load"][0]).contains(&"commit_p99".to_string()));
    per_second_chart(&r, "load-ps-0-tps", &["commits/s"], 2);
    per_second_chart(&r, "load-ps-0-lat", &["p50", "p99"], 2);
    // The device baseline beside the run's commit latency.
    assert!(v["load"][0]["baseline"]["before"].is_object());
    r.chart("bars", "load-baseline-0");
    r.text("storage before: write+fdatasync p99");
    r.text("<title>commit p50: ");
}

// See: issue 14 (`dbio compare`'s page).
#[test]
fn html_compare_page_draws_ratios_with_the_verdict_and_spreads() {
    let bin = or_skip!(browser());
    let d = scratch();
    let lgwr = |delay: &str, name: &str| {
        let js = d.path().join(name);
        dbio()
            .args([
                "lgwr",
                "--null-delay",
                delay,
                "--sessions",
                "2",
                "--runtime",
                "1.2",
                "--rounds",
                "2",
                "--quiet",
                "--json",
            ])
            .arg(&js)
            .succeeds();
        js.to_str().unwrap().to_string()
    };
    let (a, b) = (lgwr("200us", "a.json"), lgwr("400us", "b.json"));
    let d2 = scratch();
    let (r, v) = run_html(&bin, d2.path(), &["compare", &a, &b]);
    r.offline_page();
    // The settings that differ come first, before the charts and tables.
    let pos = |t: &str| r.dom.find(t).unwrap_or_else(|| panic!("no {t}"));
    r.text("null_delay_ns");
    assert!(pos("id=\"settings-differ\"") < pos("id=\"inputs\""));
    assert!(pos("id=\"settings-differ\"") < pos("id=\"compare-ratios\""));
    assert!(pos("id=\"compare-ratios\"") < pos("id=\"figures\""));
    r.chart("ratio", "compare-ratios");
    let ratios = r.dom.split("id=\"compare-ratios\"").nth(1).unwrap();
    let ratios = ratios.split("</figure>").next().unwrap();
    // One bar per figure with a ratio, its fill class the verdict's.
    let rows = v["rows"].as_array().unwrap();
    let with_ratio = rows.iter().filter(|x| x["ratios"][1].is_number()).count();
    assert_eq!(ratios.matches("<rect class=\"bar ").count(), with_ratio);
    let tps = rows.iter().position(|x| x["metric"] == "TPS").unwrap();
    let class = match v["rows"][tps]["verdicts"][1].as_str() {
        Some("beyond_noise") => "s1 beyond",
        Some("within_noise") => "s4 within",
        _ => "s2 noverdict",
    };
    let bar = format!("<rect class=\"bar {class} sw\"");
    let tps_bar = ratios.split("lgwr: TPS (B)</title></text>").nth(1).unwrap();
    assert!(tps_bar.starts_with(&bar), "{tps_bar}");
    let ratio = v["rows"][tps]["ratios"][1].as_f64().unwrap();
    r.text(&format!("lgwr: TPS (B): {ratio:.3}x the first input"));
    r.text("beyond the run-to-run noise (*)");
    // The rounds' spread of TPS: one whisker per input.
    let spread = format!("compare-spread-{tps}");
    r.chart("whisker", &spread);
    let w = r.dom.split(&format!("id=\"{spread}\"")).nth(1).unwrap();
    let w = w.split("</figure>").next().unwrap();
    assert_eq!(w.matches("<g class=\"spread\">").count(), 2, "{w}");
    assert!(w.contains("over the figure of each round"), "{w}");
    let n = v["rows"][tps]["spreads"][0]["n"].as_u64().unwrap();
    assert!(w.contains(&format!("n = {n})")), "{w}");
}

// See: issue 14 (`dbio load --compare`'s panel).
#[test]
fn html_load_compare_panel_on_sqlite_shows_rounds_settings_and_the_baseline() {
    let bin = or_skip!(browser());
    let d = scratch();
    let (r, v) = run_html(
        &bin,
        d.path(),
        &[
            "load",
            "--dir",
            d.path().to_str().unwrap(),
            "--sessions",
            "2",
            "--runtime",
            "0.5",
            "--compare",
            "synchronous=FULL,NORMAL",
            "--rounds",
            "2",
            "--quiet",
        ],
    );
    r.offline_page();
    let c = &v["load_compare"];
    r.text("id=\"h-load-compare\"");
    // The settings with their scope, value before and restored state.
    let s = &c["settings"][0];
    assert_eq!(s["restored"], true);
    r.text(&format!(
        "<td>synchronous</td><td>{}</td><td>{}</td><td>yes</td>",
        s["scope"].as_str().unwrap(),
        s["original"].as_str().unwrap()
    ));
    // Per configuration: median TPS with the rounds' range, p50 and p99.
    for k in c["configs"].as_array().unwrap() {
        let name = k["config"].as_str().unwrap();
        r.text(&format!("<td>{name}</td><td class=\"n\">2</td>"));
        for key in ["commit_p50_ns", "commit_p99_ns"] {
            let med = k[key]["median"].as_f64().unwrap();
            r.text(&format!("{} (", dbio_model::units::format_ns(med)));
        }
    }
    r.chart("whisker", "load-compare-tps");
    let tps = r.dom.split("id=\"load-compare-tps\"").nth(1).unwrap();
    let tps = tps.split("</figure>").next().unwrap();
    assert_eq!(tps.matches("<g class=\"spread\">").count(), 2, "{tps}");
    assert!(tps.contains(">synchronous=NORMAL</text>"), "{tps}");
    assert!(tps.contains("n = 2)"), "{tps}");
    r.chart("whisker", "load-compare-latency");
    let lat = r.dom.split("id=\"load-compare-latency\"").nth(1).unwrap();
    let lat = lat.split("</figure>").next().unwrap();
    assert_eq!(lat.matches("<g class=\"spread\">").count(), 4, "{lat}");
    assert!(lat.contains(">synchronous=FULL p99</text>"), "{lat}");
    // The device baseline beside the commit latency.
    assert!(
        c["baseline"]["before"]["latency"]["count"]
            .as_u64()
            .unwrap()
            > 0
    );
    r.chart("bars", "load-compare-baseline");
    let base = r.dom.split("id=\"load-compare-baseline\"").nth(1).unwrap();
    let base = base.split("</figure>").next().unwrap();
    assert!(
        base.contains("storage before: write+fdatasync p50"),
        "{base}"
    );
    assert!(base.contains("commit, synchronous=FULL p50"), "{base}");
    r.text("Median commit against the storage's median durable write");
}

// See: issue 14. `dbio awr A B C`: the intervals in begin order, each
// interval's 'log file sync' beside its 'log file parallel write', and
// the events per interval, a dash where a report does not list one.
#[test]
fn html_awr_trend_page_pairs_commit_waits_and_tabulates_events() {
    let bin = or_skip!(browser());
    let d = scratch();
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/awr");
    let f = |n: &str| format!("{dir}/{n}");
    let (r, v) = run_html(
        &bin,
        d.path(),
        &[
            "awr",
            &f("trend-1100.txt"),
            &f("trend-0900.txt"),
            &f("trend-1000.txt"),
        ],
    );
    r.offline_page();
    r.text("id=\"intervals\"");
    let ivs = v["intervals"].as_array().unwrap();
    assert_eq!(ivs.len(), 3);
    r.chart("paired", "trend-commit");
    for iv in ivs {
        if let Some(x) = iv["lfs_lfpw_ratio"].as_f64() {
            r.text(&format!("sync / write {x:.1}×"));
        }
        if let Some(x) = iv["log_file_parallel_write_us"].as_f64() {
            r.text(&format!(">{x:.0} µs<"));
        }
    }
    r.text("id=\"trend-events-table\"");
    let events = v["events"].as_array().unwrap();
    assert!(!events.is_empty());
    for (k, e) in events.iter().enumerate() {
        let name = e.as_str().unwrap();
        r.text(&format!("<td>{name}</td>"));
        // A report that does not list the event shows a dash, not 0.
        let missing = ivs.iter().any(|iv| {
            !iv["events"]
                .as_array()
                .unwrap()
                .iter()
                .any(|x| x["name"] == name)
        });
        let row = &r.dom[r.dom.find(&format!("<td>{name}</td>")).unwrap()..];
        let row = &row[..row.find("</tr>").unwrap()];
        assert_eq!(
            row.contains("<td class=\"n\">-</td>"),
            missing,
            "event {k} {name}: {row}"
        );
    }
    r.chart("stacked", "trend-events");
}

/// The section of chart `id` in a rendered DOM, up to its `</figure>`.
fn figure<'a>(dom: &'a str, id: &str) -> &'a str {
    let at = format!("<figure class=\"chart heat\" id=\"{id}\">");
    let from = dom
        .find(&at)
        .or_else(|| dom.find(&format!("id=\"{id}\"")))
        .unwrap_or_else(|| panic!("no figure {id} in the DOM"));
    let rest = &dom[from..];
    &rest[..rest.find("</figure>").unwrap()]
}

/// A heat map cell (`data-row`/`data-col`: its row's and column's
/// headings, here outstanding large and small I/Os) and its label.
fn heat_cell(fig: &str, row: u64, col: u64, label: &str) {
    let at = format!("data-row=\"{row}\" data-col=\"{col}\"");
    let cell = fig
        .split(&at)
        .nth(1)
        .unwrap_or_else(|| panic!("no cell {row},{col}"));
    let cell = &cell[..cell.find("</g>").unwrap()];
    assert!(
        cell.ends_with(&format!(">{label}</text>")),
        "cell {row},{col} is not labelled {label:?}: {cell}"
    );
}

// See: issue 15.
#[test]
fn html_matrix_page_draws_three_labelled_heat_maps_offline() {
    let bin = or_skip!(browser());
    let d = scratch();
    let dir = d.path().join("data");
    std::fs::create_dir(&dir).unwrap();
    let (r, v) = run_html(
        &bin,
        d.path(),
        &[
            "matrix",
            dir.to_str().unwrap(),
            "--small",
            "1,2",
            "--large",
            "0,1",
            "--runtime",
            "0.3",
            "--warmup",
            "0.05",
            "--size",
            "64m",
            "--quiet",
        ],
    );
    r.offline_page();
    r.text("Load matrix");
    for id in ["matrix-iops", "matrix-mbps", "matrix-p99"] {
        r.chart("heat", id);
        let fig = figure(&r.dom, id);
        assert!(fig.contains("<g class=\"scale\">"), "{id}: no scale legend");
        assert_eq!(
            fig.matches("<rect class=\"step\"").count(),
            5,
            "{id}: the legend's five steps"
        );
    }
    // No search, no search chart.
    assert!(!r.dom.contains("id=\"matrix-search-p99\""));
    let points = v["matrix"]["points"].as_array().unwrap();
    assert_eq!(points.len(), 4);
    let (iops, mbps, p99) = (
        figure(&r.dom, "matrix-iops"),
        figure(&r.dom, "matrix-mbps"),
        figure(&r.dom, "matrix-p99"),
    );
    // Columns: small 1, 2; rows: large 0, 1 (0 left out of the MB/s map,
    // which has one row: large 1).
    assert_eq!(iops.matches("<g class=\"cell\"").count(), 4);
    assert_eq!(p99.matches("<g class=\"cell\"").count(), 4);
    assert_eq!(mbps.matches("<g class=\"cell\"").count(), 2);
    for p in points {
        let col = p["small"].as_u64().unwrap();
        let large = p["large"].as_u64().unwrap();
        heat_cell(
            iops,
            large,
            col,
            &dbio_model::units::format_count_rate(p["small_iops"].as_f64().unwrap()),
        );
        heat_cell(
            p99,
            large,
            col,
            &dbio_model::units::format_ns(p["small_lat"]["p99_ns"].as_f64().unwrap()),
        );
        if large == 1 {
            let m = p["large_mbps"].as_f64().unwrap();
            let want = if m >= 100.0 {
                format!("{m:.0} MB/s")
            } else {
                format!("{m:.1} MB/s")
            };
            heat_cell(mbps, 1, col, &want);
        }
    }
}

/// The search on the null engine's 1 ms I/Os: a 20 ms target is met by
/// the whole ladder (4 outstanding circled; the same result cut short has
/// no answer and no circle), a 900 µs one by nothing (no
/// circle, the answer says none, the skipped points are blank cells, and
/// the finding is on the page).
#[test]
fn html_matrix_search_draws_the_target_and_marks_the_answer() {
    let bin = or_skip!(browser());
    let base = [
        "matrix",
        "--engine",
        "null",
        "--null-delay",
        "1ms",
        "--small",
        "1,2,4",
        "--large",
        "0,1",
        "--runtime",
        "0.3",
        "--warmup",
        "0.05",
        "--quiet",
        "--max-latency",
    ];
    let d = scratch();
    let mut args = base.to_vec();
    args.push("20ms");
    let (r, v) = run_html(&bin, d.path(), &args);
    r.offline_page();
    r.chart("xy", "matrix-search-p99");
    let chart = r.dom.split("id=\"matrix-search-p99\"").nth(1).unwrap();
    let chart = &chart[..chart.find("</figure>").unwrap()];
    assert!(chart.contains("<line class=\"target\""), "no target line");
    assert!(chart.contains(">p99 target: 20.0 ms</text>"), "{chart}");
    assert_eq!(chart.matches("<circle class=\"m0\"").count(), 3);
    // The circled point is the last of three (4 outstanding).
    let chosen = chart
        .split("<circle class=\"chosen\" cx=\"")
        .nth(1)
        .unwrap();
    let last = chart.split("<circle class=\"m0\" cx=\"").nth(3).unwrap();
    assert_eq!(
        chosen.split('"').next(),
        last.split('"').next(),
        "the circle is not on 4 outstanding"
    );
    let s = &v["matrix"]["search"];
    assert_eq!(s["max_iops_outstanding"], 4);
    r.text(&format!(
        "{:.0} at 4 outstanding small I/Os",
        s["max_iops"].as_f64().unwrap()
    ));
    r.text("latency at one outstanding I/O");
    r.text("max MB/s");
    // The same result saved and cut short (no answer): `dbio report` draws
    // the points, says there is no answer and circles nothing.
    let mut cut = v.clone();
    cut["matrix"]["search"] = serde_json::Value::Null;
    cut["partial"] = serde_json::json!({"kind": "signal", "signal": "SIGINT"});
    let js = d.path().join("cut.json");
    std::fs::write(&js, cut.to_string()).unwrap();
    let html = d.path().join("cut.html");
    dbio()
        .args(["report", "--from"])
        .arg(&js)
        .arg("--html")
        .arg(&html)
        .succeeds();
    let r = render(&bin, &html);
    r.offline_page();
    r.chart("xy", "matrix-search-p99");
    r.chart("heat", "matrix-iops");
    r.text("The search was cut short: it has no answer");
    assert!(!r.dom.contains("class=\"chosen\""), "a point circled");

    let d = scratch();
    let mut args = base.to_vec();
    args.push("900us");
    let (r, _v) = run_html(&bin, d.path(), &args);
    r.offline_page();
    r.chart("xy", "matrix-search-p99");
    assert!(!r.dom.contains("class=\"chosen\""), "a point circled");
    r.text("none: not even one outstanding small I/O kept its p99 under the target");
    r.text("data-rule=\"matrix.target_unmet\"");
    // 2 and 4 outstanding were skipped: blank cells that say so.
    let iops = figure(&r.dom, "matrix-iops");
    assert!(
        iops.matches(": not measured</title>").count() >= 2,
        "{iops}"
    );
}

/// See: issue 23. The check page opens with the answer, and its commit
/// rows show a commit's latency (write + sync: what a session waits for),
/// not the write's alone.
#[test]
fn html_check_page_answers_first_and_its_commit_rows_show_commit_latency() {
    let bin = or_skip!(browser());
    let d = scratch();
    let data = d.path().join("data");
    std::fs::create_dir(&data).unwrap();
    let (r, v) = run_html(
        &bin,
        d.path(),
        &[
            "check",
            "--runtime",
            "200ms",
            "--size",
            "32m",
            "--quiet",
            data.to_str().unwrap(),
        ],
    );
    r.offline_page();
    let verdict = r
        .dom
        .find("id=\"verdict\"")
        .expect("the answer on the page");
    let findings = r.dom.find("id=\"h-findings\"").expect("the findings");
    let jobs = r.dom.find("id=\"jobs-summary\"").expect("the jobs table");
    assert!(
        verdict < findings && findings < jobs,
        "the answer comes first"
    );
    let answer = v["verdict"]["answer"].as_str().unwrap();
    r.text(&answer.chars().take(30).collect::<String>());
    for j in v["jobs"].as_array().unwrap() {
        let Some(c) = j.get("commit").filter(|c| !c.is_null()) else {
            continue;
        };
        let name = j["name"].as_str().unwrap();
        let row = r
            .dom
            .split("<tr>")
            .find(|row| {
                row.contains(&format!("<td>{name}</td>")) && row.contains("commit (write + sync)")
            })
            .unwrap_or_else(|| panic!("no commit row for {name}"));
        let p50 = dbio_model::units::format_ns(
            c["percentiles"]
                .as_array()
                .unwrap()
                .iter()
                .find(|p| p["p"] == 50.0)
                .unwrap()["ns"]
                .as_f64()
                .unwrap(),
        );
        assert!(
            row.contains(&format!("<td class=\"n\">{p50}</td>")),
            "{name}: {row}"
        );
    }
}
