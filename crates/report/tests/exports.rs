//! Every exported number checked against the model it came from.
//!
//! Each model is built with a different value in every numeric field
//! (filled in through its serde form, so a field added later gets one too),
//! then rendered to JSON and CSV. A column that reads the wrong field (p90
//! for p99), computes a rate from the wrong count (bytes per second from
//! operations) or changes the unit (µs for ns, KiB for bytes) then shows a
//! value that is not the source's, and the comparison names it.

use dbio_model::calibrate::{Boundary, Calibration, TierMeasurement};
use dbio_model::dbwr::DbwrResult;
use dbio_model::lgwr::{LgwrResult, SessionLine};
use dbio_model::read::{ReadGroup, ReadResult, TierAttribution, UsedBoundary};
use dbio_model::trace::{
    BlockHotSpot, EventStats, FileHotSpot, IoHistogram, ObjectStats, SessionProfile, SizeHistogram,
    SlowWait, StatementStats, TierRow, TimelinePoint, TraceFileInfo, TraceReport,
};
use dbio_model::Outcome;
use dbio_model::{
    CpuUsage, Durability, EngineKind, JobConfig, JobResult, LatencySummary, OpStats, Pattern,
    Prepare, RunReport, REPORTED_PERCENTILES,
};
use dbio_report::Exporter;
use serde::{de::DeserializeOwned, Serialize};
use serde_json::{json, Value};

/// Gives every number under `v` its own value, counting up from `*next`.
/// Percentile levels (`p`) and a few fields whose type or meaning limits
/// them keep theirs. Empty latency summaries get their six percentiles.
fn distinct(v: &mut Value, key: &str, next: &mut u64) {
    match v {
        Value::Number(n) => {
            if key.ends_with("_pct") {
                // u8 percentages.
                *n = (1 + *next % 99).into();
                *next += 7;
            } else if !matches!(key, "p" | "schema_version" | "version") {
                // Integers stay integers; floats get a fraction so that a
                // float printed as an integer would show.
                *n = if n.is_f64() {
                    serde_json::Number::from_f64(*next as f64 + 0.5).unwrap()
                } else {
                    (*next).into()
                };
                *next += 7;
            }
        }
        Value::Array(a) => a.iter_mut().for_each(|x| distinct(x, key, next)),
        Value::Object(m) => {
            if m.contains_key("percentiles") && m.contains_key("log2_us") {
                m.insert(
                    "percentiles".into(),
                    REPORTED_PERCENTILES
                        .iter()
                        .map(|&p| json!({"p": p, "ns": 0}))
                        .collect(),
                );
                m.insert("log2_us".into(), json!({"counts": [0, 0, 0]}));
            }
            for (k, x) in m.iter_mut() {
                distinct(x, k, next);
            }
        }
        _ => {}
    }
}

/// `x` with distinct numbers everywhere, starting at `from`.
fn with_distinct<T: Serialize + DeserializeOwned>(x: T, from: u64) -> T {
    let mut v = serde_json::to_value(&x).unwrap();
    let mut next = from;
    distinct(&mut v, "", &mut next);
    serde_json::from_value(v).expect("the model reads back its own JSON")
}

fn lat(from: u64) -> LatencySummary {
    with_distinct(LatencySummary::default(), from)
}

fn op_stats(from: u64, runtime_ns: u64) -> OpStats {
    // The rates are what the recorder derives (ops and bytes over the
    // runtime), so CSV and JSON agree when both use the model's numbers.
    let ops = from * 3;
    let bytes = ops * 8192;
    let secs = runtime_ns as f64 / 1e9;
    let mut lat = lat(from + 1);
    lat.count = ops;
    OpStats {
        ops,
        bytes,
        iops: ops as f64 / secs,
        bytes_per_sec: bytes as f64 / secs,
        slat: self::lat(from + 1000),
        clat: self::lat(from + 2000),
        lat,
    }
}

fn job() -> JobResult {
    let runtime_ns = 2_500_000_000;
    JobResult {
        name: "job-a".into(),
        job: JobConfig {
            engine: EngineKind::Psync,
            rw: Pattern::Randrw,
            read_pct: 70,
            bs: 8192,
            iodepth: 3,
            iodepth_batch: 2,
            direct: true,
            sync: Durability::Fdatasync,
            threads: 5,
            size: 123 << 20,
            prepare: Prepare::Prewrite,
            runtime_ns: Some(2_500_000_000),
            ops_limit: None,
            warmup_ns: 750_000_000,
            rate_iops: Some(999),
            seed: 41,
            null_delay_ns: 0,
        },
        target: "/data/t".into(),
        runtime_ns,
        read: Some(op_stats(10_000, runtime_ns)),
        write: Some(op_stats(20_000, runtime_ns)),
        sync: Some(lat(30_000)),
        commit: Some(lat(40_000)),
        cpu: CpuUsage {
            user_ns: 11,
            system_ns: 13,
            voluntary_cs: 17,
            involuntary_cs: 19,
            per_io_ns: 23.5,
            utilisation: 0.29,
        },
        device: None,
        cached_before: None,
        cached_after: None,
        series: Vec::new(),
        started_at_unix_ns: None,
        stripe: None,
        block_device: false,
    }
}

fn report(jobs: Vec<JobResult>) -> RunReport {
    RunReport {
        schema_version: dbio_model::SCHEMA_VERSION,
        tool: "dbio test".into(),
        command: "bench".into(),
        started_at_unix: 1_700_000_000,
        jobs,
        ..RunReport::default()
    }
}

fn parse_csv(text: &str) -> (Vec<String>, Vec<Vec<String>>) {
    let mut r = csv::Reader::from_reader(text.as_bytes());
    let header = r.headers().unwrap().iter().map(String::from).collect();
    let rows = r
        .records()
        .map(|x| x.unwrap().iter().map(String::from).collect())
        .collect();
    (header, rows)
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-9 * a.abs().max(b.abs()).max(1.0)
}

#[test]
fn bench_csv_columns_are_the_models_fields_in_their_units() {
    let r = report(vec![job()]);
    let j = &r.jobs[0];
    let (header, rows) = parse_csv(&dbio_report::export::csv::run(&r).unwrap());
    let col = |row: &Vec<String>, name: &str| -> String {
        let i = header
            .iter()
            .position(|h| h == name)
            .unwrap_or_else(|| panic!("no column {name} in {header:?}"));
        row[i].clone()
    };
    let num = |row: &Vec<String>, name: &str| -> f64 { col(row, name).parse().unwrap() };
    assert_eq!(
        rows.iter().map(|r| col(r, "op")).collect::<Vec<_>>(),
        ["read", "write", "sync", "commit"]
    );
    let w = j.write.as_ref().unwrap();
    let secs = j.runtime_ns as f64 / 1e9;
    // (latency, ops, bytes, ops/s, bytes/s) each row must show.
    let expected: [(&LatencySummary, u64, u64, f64, f64); 4] = {
        let rd = j.read.as_ref().unwrap();
        let sy = j.sync.as_ref().unwrap();
        let cm = j.commit.as_ref().unwrap();
        [
            (&rd.lat, rd.ops, rd.bytes, rd.iops, rd.bytes_per_sec),
            (&w.lat, w.ops, w.bytes, w.iops, w.bytes_per_sec),
            (sy, sy.count, 0, sy.count as f64 / secs, 0.0),
            (
                cm,
                cm.count,
                w.bytes,
                cm.count as f64 / secs,
                w.bytes as f64 / secs,
            ),
        ]
    };
    for (row, (l, ops, bytes, ops_s, bytes_s)) in rows.iter().zip(expected) {
        let op = col(row, "op");
        assert_eq!(col(row, "job"), "job-a");
        assert_eq!(num(row, "ops"), ops as f64, "{op} ops");
        assert_eq!(num(row, "bytes"), bytes as f64, "{op} bytes");
        assert!(close(num(row, "ops_per_sec"), ops_s), "{op} ops/s");
        assert!(close(num(row, "bytes_per_sec"), bytes_s), "{op} bytes/s");
        assert!(close(num(row, "mean_ns"), l.mean_ns), "{op} mean");
        assert!(close(num(row, "stdev_ns"), l.stdev_ns), "{op} stdev");
        assert_eq!(num(row, "min_ns"), l.min_ns as f64, "{op} min");
        assert_eq!(num(row, "max_ns"), l.max_ns as f64, "{op} max");
        for (name, p) in [
            ("p50_ns", 50.0),
            ("p90_ns", 90.0),
            ("p99_ns", 99.0),
            ("p99_9_ns", 99.9),
            ("p99_99_ns", 99.99),
        ] {
            assert_eq!(
                num(row, name),
                l.percentile_ns(p).unwrap() as f64,
                "{op} {name}"
            );
        }
        assert!(close(num(row, "cpu_per_op_ns"), j.cpu.per_io_ns));
        assert_eq!(col(row, "partial"), "false");
    }
    // Every column was checked above.
    assert_eq!(header.len(), 17, "{header:?}");
    // The values really differ, so a swap could not go unseen.
    let l = &w.lat;
    let ps: Vec<u64> = l.percentiles.iter().map(|p| p.ns).collect();
    let mut uniq = ps.clone();
    uniq.sort();
    uniq.dedup();
    assert_eq!(uniq.len(), ps.len(), "{ps:?}");
    assert_ne!(w.bytes_per_sec, w.iops);
}

#[test]
fn bench_json_holds_every_field_under_its_documented_name() {
    let r = report(vec![job()]);
    let text = dbio_report::to_json(&Outcome::Run(r.clone())).unwrap();
    assert_eq!(
        dbio_report::from_json(&text).unwrap(),
        Outcome::Run(r.clone())
    );
    let v: Value = serde_json::from_str(&text).unwrap();
    let j = &r.jobs[0];
    let w = j.write.as_ref().unwrap();
    let jw = &v["jobs"][0]["write"];
    assert_eq!(v["jobs"][0]["runtime_ns"], json!(j.runtime_ns));
    assert_eq!(jw["ops"], json!(w.ops));
    assert_eq!(jw["bytes"], json!(w.bytes));
    assert_eq!(jw["iops"].as_f64().unwrap(), w.iops);
    assert_eq!(jw["bytes_per_sec"].as_f64().unwrap(), w.bytes_per_sec);
    for (i, p) in REPORTED_PERCENTILES.iter().enumerate() {
        assert_eq!(jw["lat"]["percentiles"][i]["p"].as_f64().unwrap(), *p);
        assert_eq!(
            jw["lat"]["percentiles"][i]["ns"],
            json!(w.lat.percentile_ns(*p).unwrap())
        );
    }
    assert_eq!(jw["lat"]["mean_ns"].as_f64().unwrap(), w.lat.mean_ns);
    assert_eq!(jw["clat"]["min_ns"], json!(w.clat.min_ns));
    assert_eq!(v["jobs"][0]["job"]["bs"], json!(8192));
    assert_eq!(v["jobs"][0]["job"]["size"], json!(123u64 << 20));
    assert_eq!(v["jobs"][0]["cpu"]["per_io_ns"].as_f64().unwrap(), 23.5);
    assert_eq!(
        v["jobs"][0]["sync"]["max_ns"],
        json!(j.sync.as_ref().unwrap().max_ns)
    );
    assert_eq!(
        v["jobs"][0]["commit"]["count"],
        json!(j.commit.as_ref().unwrap().count)
    );
}

/// The value at a CSV `metric` path (`a.b.2.c`) inside `v`.
fn at_path<'a>(v: &'a Value, path: &str) -> Option<&'a Value> {
    path.split('.').try_fold(v, |v, k| match v {
        Value::Array(a) => a.get(k.parse::<usize>().ok()?),
        Value::Object(m) => m.get(k),
        _ => None,
    })
}

/// Leaves the long-form CSV must carry: numbers, booleans, strings but the name.
fn leaves(v: &Value, path: &str, out: &mut Vec<String>) {
    let join = |k: &str| {
        if path.is_empty() {
            k.to_string()
        } else {
            format!("{path}.{k}")
        }
    };
    match v {
        Value::Number(_) | Value::Bool(_) => out.push(path.to_string()),
        Value::String(_) if path != "name" => out.push(path.to_string()),
        Value::Array(a) => a
            .iter()
            .enumerate()
            .for_each(|(i, x)| leaves(x, &join(&i.to_string()), out)),
        Value::Object(m) => m.iter().for_each(|(k, x)| leaves(x, &join(k), out)),
        _ => {}
    }
}

fn sections_report() -> RunReport {
    let lgwr = LgwrResult {
        name: "lgwr-a".into(),
        sessions: vec![SessionLine::default(), SessionLine::default()],
        ..LgwrResult::default()
    };
    // Both boundaries present, with their fits, so every number of the
    // attribution is exported too.
    let used = || UsedBoundary {
        ns: Some(0),
        fit: Some(Boundary::default()),
        ..UsedBoundary::default()
    };
    let read = ReadResult {
        name: "read-a".into(),
        by_kind: vec![ReadGroup::default()],
        by_size: vec![ReadGroup::default(), ReadGroup::default()],
        attribution: Some(TierAttribution {
            page_cache_max: used(),
            storage_cache_max: used(),
            direct: true,
            rereads: Some(LatencySummary::default()),
        }),
        ..ReadResult::default()
    };
    let dbwr = DbwrResult {
        name: "dbwr-a".into(),
        ..DbwrResult::default()
    };
    let cal = Calibration {
        name: "cal-a".into(),
        page_cache: Some(TierMeasurement::default()),
        storage_cache: Some(TierMeasurement::default()),
        device: Some(TierMeasurement::default()),
        ..Calibration::default()
    };
    RunReport {
        lgwr: vec![with_distinct(lgwr, 100_001)],
        reads: vec![with_distinct(read, 200_001)],
        dbwr: vec![with_distinct(dbwr, 300_001)],
        calibration: Some(with_distinct(cal, 400_001)),
        ..report(vec![job()])
    }
}

#[test]
fn long_csv_has_every_model_number_at_its_json_path() {
    let r = sections_report();
    let (header, rows) = parse_csv(&dbio_report::export::csv::run(&r).unwrap());
    assert_eq!(header, ["section", "name", "metric", "value"]);
    let entries: Vec<(&str, Value)> = r
        .jobs
        .iter()
        .map(|x| ("job", serde_json::to_value(x).unwrap()))
        .chain(
            r.lgwr
                .iter()
                .map(|x| ("lgwr", serde_json::to_value(x).unwrap())),
        )
        .chain(
            r.reads
                .iter()
                .map(|x| ("read", serde_json::to_value(x).unwrap())),
        )
        .chain(
            r.dbwr
                .iter()
                .map(|x| ("dbwr", serde_json::to_value(x).unwrap())),
        )
        .chain(
            r.calibration
                .iter()
                .map(|x| ("calibrate", serde_json::to_value(x).unwrap())),
        )
        .collect();
    let mut seen = 0;
    for (section, v) in &entries {
        let name = v["name"].as_str().unwrap();
        let mine: Vec<&Vec<String>> = rows
            .iter()
            .filter(|x| x[0] == *section && x[1] == name)
            .collect();
        let mut want = Vec::new();
        leaves(v, "", &mut want);
        assert!(want.len() > 30, "{section}: only {} leaves", want.len());
        let got: Vec<&str> = mine.iter().map(|x| x[2].as_str()).collect();
        assert_eq!(got, want, "{section} {name}: metrics");
        for x in &mine {
            let src = at_path(v, &x[2]).unwrap();
            let shown = match src {
                Value::String(s) => s.clone(),
                other => other.to_string(),
            };
            assert_eq!(x[3], shown, "{section} {name} {}", x[2]);
        }
        seen += mine.len();
    }
    assert_eq!(seen, rows.len(), "rows that belong to no entry");
    // A few paths by name, so that a renamed or rescaled field shows too.
    let l = &r.lgwr[0];
    let find = |section: &str, metric: &str| -> String {
        rows.iter()
            .find(|x| x[0] == section && x[2] == metric)
            .unwrap_or_else(|| panic!("no {section} {metric}"))[3]
            .clone()
    };
    assert_eq!(
        find("lgwr", "log_file_sync.percentiles.1.ns"),
        l.log_file_sync.percentile_ns(90.0).unwrap().to_string()
    );
    assert_eq!(
        find("lgwr", "log_file_sync.percentiles.2.ns"),
        l.log_file_sync.percentile_ns(99.0).unwrap().to_string()
    );
    assert_eq!(
        find("lgwr", "writer.written_bytes"),
        l.writer.written_bytes.to_string()
    );
    assert_eq!(find("read", "bytes"), r.reads[0].bytes.to_string());
    assert_eq!(find("dbwr", "runtime_ns"), r.dbwr[0].runtime_ns.to_string());
    // JSON carries the same model back unchanged.
    let text = dbio_report::to_json(&Outcome::Run(r.clone())).unwrap();
    assert_eq!(dbio_report::from_json(&text).unwrap(), Outcome::Run(r));
}

fn trace_model() -> TraceReport {
    let mut t = TraceReport {
        label: "x.trc".into(),
        files: vec![TraceFileInfo {
            path: "/t/x.trc".into(),
            ..TraceFileInfo::default()
        }],
        events: vec![
            EventStats {
                name: "db file sequential read".into(),
                io: true,
                ..EventStats::default()
            },
            EventStats {
                name: "log file sync".into(),
                ..EventStats::default()
            },
        ],
        io_histograms: vec![IoHistogram {
            event: "db file sequential read".into(),
            ..IoHistogram::default()
        }],
        size_histograms: vec![SizeHistogram {
            event: "db file scattered read".into(),
            ..SizeHistogram::default()
        }],
        tiers: vec![TierRow {
            event: "db file sequential read".into(),
            ..TierRow::default()
        }],
        statements: vec![StatementStats {
            key: "sql_id abc".into(),
            ..StatementStats::default()
        }],
        objects: vec![ObjectStats::default()],
        hot_files: vec![FileHotSpot::default()],
        hot_blocks: vec![BlockHotSpot::default()],
        slowest_waits: vec![SlowWait {
            path: "/t/x.trc".into(),
            ..SlowWait::default()
        }],
        sessions: vec![SessionProfile {
            path: "/t/x.trc".into(),
            id: "12.34".into(),
            ..SessionProfile::default()
        }],
        ..TraceReport::default()
    };
    t.profile.lines = vec![serde_json::from_value(json!({
        "name": "CPU", "kind": "cpu", "count": 0, "total_us": 0, "share": 0.0
    }))
    .unwrap()];
    t.timeline.points = vec![TimelinePoint {
        start: "10:00:00".into(),
        ..TimelinePoint::default()
    }];
    let mut t = with_distinct(t, 500_001);
    for h in &mut t.io_histograms {
        h.buckets.counts = vec![3, 0, 5, 7];
    }
    for h in &mut t.size_histograms {
        h.buckets.counts = vec![11, 13, 0, 17];
    }
    t
}

/// The JSON object a trace CSV row describes, found by its item label.
fn trace_source<'a>(t: &'a Value, section: &str, item: &str) -> Option<Value> {
    let by = |list: &'a Value, key: &str| -> Option<&'a Value> {
        list.as_array()?.iter().find(|x| match &x[key] {
            Value::String(s) => s == item,
            other => other.as_i64().is_some() && other.as_i64() == item.parse().ok(),
        })
    };
    Some(match section {
        "input" => by(&t["files"], "path")?.clone(),
        "profile" if item == "total" => t["profile"].clone(),
        "profile" => by(&t["profile"]["lines"], "name")?.clone(),
        "event" => by(&t["events"], "name")?.clone(),
        "statement" => by(&t["statements"], "key")?.clone(),
        "object" => by(&t["objects"], "obj")?.clone(),
        "file" => by(&t["hot_files"], "file")?.clone(),
        "timeline" => by(&t["timeline"]["points"], "start")?.clone(),
        "block" => t["hot_blocks"]
            .as_array()?
            .iter()
            .find(|b| format!("{}/{}", b["file"], b["block"]) == item)?
            .clone(),
        "slow_wait" => t["slowest_waits"]
            .as_array()?
            .iter()
            .find(|w| format!("{}:{}", w["path"].as_str().unwrap(), w["line"]) == item)?
            .clone(),
        "session" => t["sessions"]
            .as_array()?
            .iter()
            .find(|s| {
                format!(
                    "{} {}",
                    s["path"].as_str().unwrap(),
                    s["id"].as_str().unwrap()
                ) == item
            })?
            .clone(),
        "tier" => {
            let row = t["tiers"].as_array()?.iter().find_map(|r| {
                let rest = item.strip_prefix(r["event"].as_str()?)?.strip_prefix(' ')?;
                Some(r[rest].clone())
            })?;
            row
        }
        "histogram" | "size_histogram" => {
            let list = if section == "histogram" {
                &t["io_histograms"]
            } else {
                &t["size_histograms"]
            };
            list.as_array()?.iter().find_map(|h| {
                let mut rest = item.strip_prefix(h["event"].as_str()?)?.strip_prefix(' ')?;
                if section == "size_histogram" {
                    rest = rest.strip_prefix(&format!("{} blocks ", h["blocks"]))?;
                }
                let counts = h["buckets"]["counts"].as_array()?;
                let i = (0..counts.len()).find(|&i| dbio_model::Log2Buckets::label(i) == rest)?;
                Some(json!({ "count": counts[i] }))
            })?
        }
        _ => return None,
    })
}

#[test]
fn trace_csv_rows_are_the_reports_fields() {
    let t = trace_model();
    let v = serde_json::to_value(&t).unwrap();
    let text = dbio_report::CsvExporter
        .export(&Outcome::Trace(t.clone()))
        .unwrap();
    let (header, parsed) = parse_csv(&text);
    assert_eq!(header, ["group", "section", "item", "metric", "value"]);
    assert_eq!(
        parsed.len(),
        dbio_report::sections::trace::csv::trace_rows(&t)
            .unwrap()
            .len()
    );
    let mut sections = std::collections::BTreeSet::new();
    for x in &parsed {
        let (group, section, item, metric, value) = (&x[0], &x[1], &x[2], &x[3], &x[4]);
        assert_eq!(group, "x.trc");
        let src = trace_source(&v, section, item)
            .unwrap_or_else(|| panic!("{section} row for {item:?} matches nothing in the report"));
        let want = at_path(&src, metric)
            .unwrap_or_else(|| panic!("{section} {item}: no {metric} in the report"));
        let ok = match want {
            Value::Number(n) => value
                .parse::<f64>()
                .is_ok_and(|got| (got - n.as_f64().unwrap()).abs() < 1e-3),
            Value::Bool(b) => *value == b.to_string(),
            Value::String(s) => value == s,
            _ => false,
        };
        assert!(ok, "{section} {item} {metric}: CSV {value}, report {want}");
        sections.insert(section.clone());
    }
    // Every kind of row was there to be checked.
    assert_eq!(sections.len(), 13, "{sections:?}");
    // Every field of an event but its name, which is the item.
    let fields = v["events"][0].as_object().unwrap().len() - 1;
    let events: Vec<_> = parsed.iter().filter(|x| x[1] == "event").collect();
    assert_eq!(events.len(), 2 * fields);
}
