//! One synthetic trace per format quirk, each with numbers worked out by
//! hand. The traces are small files in `tests/data/` or inline strings.

use dbio_model::trace::{TraceReport, TraceUnits};
use dbio_oracle::{analyze_reader, Options, Units};

fn run(text: &str) -> TraceReport {
    analyze_reader(&Options::default(), "inline.trc", text.as_bytes()).unwrap()
}

fn data(name: &str) -> TraceReport {
    let path = format!("{}/tests/data/{name}", env!("CARGO_MANIFEST_DIR"));
    analyze_reader(
        &Options::default(),
        name,
        std::fs::File::open(path).unwrap(),
    )
    .unwrap()
}

fn event<'a>(r: &'a TraceReport, name: &str) -> &'a dbio_model::trace::EventStats {
    r.events
        .iter()
        .find(|e| e.name == name)
        .unwrap_or_else(|| panic!("no event {name}"))
}

#[test]
fn shared_server_sessions_keep_their_own_cursors() {
    let r = data("shared-server-19c.trc");
    let ids: Vec<&str> = r.sessions.iter().map(|s| s.id.as_str()).collect();
    assert_eq!(ids, ["101.7", "202.9"]);
    let a = &r.sessions[0];
    assert_eq!(
        (a.response_time_us, a.cpu_us, a.idle_us, a.unaccounted_us),
        (13_065, 650, 10_000, 363)
    );
    let b = &r.sessions[1];
    assert_eq!(
        (b.response_time_us, b.cpu_us, b.unaccounted_us),
        (7_500, 2_000, 1_710)
    );
    assert_eq!(r.profile.response_time_us, 20_565);
    assert_eq!(r.profile.idle_between_calls_us, 10_000);
    assert_eq!(r.profile.commits, 1);
    // Cursor #1 of session 101.7 still means its statement after 202.9 used #1.
    let s1 = r
        .statements
        .iter()
        .find(|s| s.key == "aaaaaaaaaaaaa")
        .unwrap();
    assert_eq!((s1.parses, s1.execs, s1.fetches, s1.rows), (1, 1, 2, 15));
    assert_eq!(s1.plan_hash, Some(42));
    assert_eq!(s1.text, "select * from t1");
    let s2 = r
        .statements
        .iter()
        .find(|s| s.key == "bbbbbbbbbbbbb")
        .unwrap();
    assert_eq!((s2.execs, s2.fetches, s2.wait_us), (1, 1, 3_790));
    assert_eq!(r.files[0].release.as_deref(), Some("19.14.2.0.0"));
    assert_eq!(r.files[0].skipped_lines, 0);
}

#[test]
fn multiblock_sizes_tiers_objects_and_hot_blocks() {
    let r = data("shared-server-19c.trc");
    let sizes: Vec<(&str, i64, Vec<u64>)> = r
        .size_histograms
        .iter()
        .map(|h| (h.event.as_str(), h.blocks, h.buckets.counts.clone()))
        .collect();
    let mut b16 = vec![0; 11];
    b16[7] = 1; // 90 µs
    b16[10] = 1; // 700 µs
    let mut b8 = vec![0; 13];
    b8[12] = 1; // 3,000 µs
    let mut s8 = vec![0; 12];
    s8[11] = 1; // 1,500 µs
    assert_eq!(
        sizes,
        vec![
            ("db file scattered read", 8, s8),
            ("direct path read", 8, b8),
            ("direct path read", 16, b16)
        ]
    );
    let t = r
        .tiers
        .iter()
        .find(|t| t.event == "direct path read")
        .unwrap();
    assert_eq!(
        (t.page_cache.count, t.storage_cache.count, t.device.count),
        (1, 1, 1)
    );
    assert_eq!(t.device.total_us, 3_000);
    let o = r.objects.iter().find(|o| o.obj == 5002).unwrap();
    assert_eq!((o.count, o.total_us), (3, 3_790));
    assert_eq!(r.hot_blocks.len(), 1);
    assert_eq!(
        (
            r.hot_blocks[0].file,
            r.hot_blocks[0].block,
            r.hot_blocks[0].count
        ),
        (4, 100, 2)
    );
    assert_eq!(r.slowest_waits[0].event, "SQL*Net message from client");
    assert_eq!(r.slowest_waits[0].line, 36);
    assert_eq!(r.slowest_waits[1].ela_us, 3_000);
    assert!(r.timeline.wall_clock);
    assert_eq!(r.timeline.points[0].start, "2024-03-01 10:00:00");
}

#[test]
fn nine_i_positional_parameters_without_tim() {
    let r = data("ninei-9201.trc");
    let f = &r.files[0];
    assert_eq!(f.release.as_deref(), Some("9.2.0.1.0"));
    assert_eq!(f.units, TraceUnits::Microseconds);
    let p = &r.profile;
    assert_eq!(p.calls_elapsed_us, 2_360);
    assert_eq!(p.cpu_us, 1_000);
    assert_eq!(p.waits_in_calls_us, 2_000);
    assert_eq!(p.waits_between_calls_us, 3);
    assert_eq!(p.idle_between_calls_us, 5_000);
    assert_eq!(p.response_time_us, 7_363);
    assert_eq!(p.unaccounted_us, -640);
    let s = r
        .size_histograms
        .iter()
        .find(|h| h.event == "db file scattered read")
        .unwrap();
    assert_eq!(s.blocks, 8);
    assert_eq!(s.buckets.counts[10..], [1, 1]);
    // ela= 0 (parsetrc dies on it) lands in bucket 0.
    assert_eq!(event(&r, "db file sequential read").zero_count, 1);
    assert_eq!(r.hot_files[0].file, 7);
    assert_eq!(r.hot_files[0].blocks, 17);
    assert_eq!(r.statements[0].key, "hv=3333");
    assert_eq!(f.skipped_lines, 0);
}

#[test]
fn eight_i_centiseconds_from_the_banner_or_the_option() {
    let r = data("eighti-817.trc");
    assert_eq!(r.files[0].units, TraceUnits::Centiseconds);
    assert_eq!(r.files[0].units_from, "banner");
    let e = event(&r, "db file sequential read");
    assert_eq!((e.total_us, e.min_us, e.max_us), (30_000, 10_000, 20_000));
    assert_eq!(r.profile.response_time_us, 3_050_000);
    assert_eq!(r.profile.waits_in_calls_us, 30_000);
    // Without a banner the option decides.
    let body = "WAIT #1: nam='db file sequential read' ela= 2 p1=1 p2=2 p3=1\n";
    let opts = Options {
        units: Units::Centiseconds,
        ..Options::default()
    };
    let r = analyze_reader(&opts, "x", body.as_bytes()).unwrap();
    assert_eq!(event(&r, "db file sequential read").total_us, 20_000);
    assert_eq!(r.files[0].units_from, "option");
    let r = run(body);
    assert_eq!(event(&r, "db file sequential read").total_us, 2);
}

#[test]
fn empty_and_symbolic_parameter_names_and_23c_ela() {
    let r = run("WAIT #0: nam='ADR block file read' ela= 2212  =0  =0  =0 obj#=-1 tim=100\n\
WAIT #5: nam='db file sequential read' ela=335 file#=7 block#=9 blocks=1 obj#=4294967295 tim=200\n\
WAIT #5: nam='enq: TX - row lock contention' ela= 40 name|mode=1415053318 usn<<16 | slot=1 sequence=2 obj#=77 tim=300\n");
    assert_eq!(event(&r, "ADR block file read").total_us, 2_212);
    assert_eq!(event(&r, "db file sequential read").total_us, 335);
    assert_eq!(event(&r, "enq: TX - row lock contention").count, 1);
    let objs: Vec<i64> = r.objects.iter().map(|o| o.obj).collect();
    assert_eq!(objs, [77]);
    assert_eq!(r.hot_files[0].file, 7);
}

#[test]
fn trcsess_pid_markers_split_sessions_and_tim_going_back_is_harmless() {
    let r = run("*** [ Unix process pid: 10 ]\n\
*** 2019-07-09T09:57:07.000000-07:00 (P(8))\n\
WAIT #1: nam='db file sequential read' ela= 100 file#=1 block#=1 blocks=1 obj#=1 tim=5000\n\
EXEC #1:c=10,e=200,p=0,cr=0,cu=0,mis=0,r=0,dep=0,og=1,plh=0,tim=5050\n\
*** [ Unix process pid: 20 ]\n\
*** 2019-07-09T09:57:07.100000-07:00\n\
EXEC #1:c=30,e=300,p=0,cr=0,cu=0,mis=0,r=0,dep=0,og=1,plh=0,tim=900\n\
*** [ Unix process pid: 10 ]\n\
*** 2019-07-09T09:57:08.000000-07:00\n\
EXEC #1:c=40,e=400,p=0,cr=0,cu=0,mis=0,r=0,dep=0,og=1,plh=0,tim=1005050\n");
    let ids: Vec<(&str, i64)> = r
        .sessions
        .iter()
        .map(|s| (s.id.as_str(), s.response_time_us))
        .collect();
    assert_eq!(ids, [("pid 10", 600), ("pid 20", 300)]);
    assert_eq!(r.sessions[0].clock_span_us, 1_000_000);
    assert_eq!(r.profile.response_time_us, 900);
    assert_eq!(r.files[0].skipped_lines, 0);
}

#[test]
fn continued_file_with_orphan_cursor() {
    let r = run(
        "*** TRACE CONTINUED FROM FILE /u01/diag/orcl_ora_1_old.trc ***\n\
\n\
WAIT #7: nam='db file sequential read' ela= 10 file#=1 block#=2 blocks=1 obj#=3 tim=100\n\
FETCH #7:c=5,e=20,p=1,cr=1,cu=0,mis=0,r=1,dep=0,og=1,plh=9,tim=105\n",
    );
    assert_eq!(r.files[0].continued_from, ["/u01/diag/orcl_ora_1_old.trc"]);
    let s = &r.statements[0];
    assert_eq!(
        (s.key.as_str(), s.fetches, s.rows, s.text.as_str()),
        ("cursor #7", 1, 1, "")
    );
    assert_eq!(r.profile.response_time_us, 20);
}

#[test]
fn dumps_are_skipped_with_line_numbers_and_keywords_are_anchored() {
    let text = "*** 2013-08-26 14:40:23.035\r\n\
BINDS #1:\r\n\
 Bind#0\r\n\
  kxsbbbfp=7fae3bd02fd8  bln=22  avl=02  flg=05\r\n\
*** 2013-08-26 14:40:24.000\r\n\
  value=\"WAIT #1: nam='fake' ela= 999999\"\r\n\
EXEC #1:c=0,e=50,p=0,cr=0,cu=0,mis=0,r=0,dep=0,og=1,plh=0,tim=1000\r\n\
Dump of memory from 0x00007F000 to 0x00007F100\r\n\
7F000 00000000 00000000 00000000 00000000  [................]\r\n\
Repeat 3 times\r\n\
SOME WAIT #1: nam='also fake' ela= 5\r\n\
WAIT #1: nam='db file sequential read' ela= 0 file#=1 block#=2 blocks=1 obj#=3 tim=1100\r\n\
WAIT #1: nam='direct path read temp' ela= 0 file number=201 first dba=5 block cnt=31 obj#=-1 tim=1200\r\n\
FETCH #1:c=0,e=300,p=0,cr=0,cu=0,mis=0,r=0,dep=0,og=1,plh=0,tim=1300\r\n";
    let r = run(text);
    let f = &r.files[0];
    assert_eq!(f.skipped_lines, 4);
    assert_eq!(f.skipped_line_numbers, [8, 9, 10, 11]);
    let names: Vec<&str> = r.events.iter().map(|e| e.name.as_str()).collect();
    assert!(
        !names.contains(&"fake") && !names.contains(&"also fake"),
        "{names:?}"
    );
    assert_eq!(event(&r, "db file sequential read").zero_count, 1);
    let t = r
        .size_histograms
        .iter()
        .find(|h| h.event == "direct path read temp")
        .unwrap();
    assert_eq!((t.blocks, t.buckets.counts.clone()), (31, vec![1]));
    assert_eq!(r.profile.response_time_us, 350);
}

#[test]
fn all_recursive_trace_and_orphan_parent_counted_once() {
    // Only dep=1 calls: the profile falls back to dep 1.
    let r = run("WAIT #2: nam='db file sequential read' ela= 400 file#=1 block#=1 blocks=1 obj#=1 tim=900\n\
FETCH #2:c=100,e=600,p=1,cr=1,cu=0,mis=0,r=1,dep=1,og=1,plh=1,tim=1000\n\
FETCH #2:c=100,e=500,p=0,cr=1,cu=0,mis=0,r=1,dep=1,og=1,plh=1,tim=2000\n");
    let p = &r.profile;
    assert_eq!(
        (p.top_depth, p.top_calls, p.calls_elapsed_us, p.cpu_us),
        (1, 2, 1_100, 200)
    );
    assert_eq!(p.unaccounted_us, 500);
    assert_eq!(p.response_time_us, 1_100);
    assert_eq!(p.notes.len(), 1);
    // parsetrc bug 2: an orphan dep-1 EXEC of 2 s inside a dep-0 EXEC of 5 s
    // is counted once: R = 5 s, not 7 s.
    let r = run(
        "EXEC #9:c=1000,e=2000000,p=0,cr=0,cu=0,mis=0,r=0,dep=1,og=1,plh=0,tim=4000000\n\
EXEC #8:c=3000,e=5000000,p=0,cr=0,cu=0,mis=0,r=0,dep=0,og=1,plh=0,tim=5000000\n",
    );
    assert_eq!(r.profile.response_time_us, 5_000_000);
    assert_eq!(r.profile.cpu_us, 3_000);
}

#[test]
fn lob_calls_without_cursor_are_calls() {
    let r = run(
        "LOBTMPCREATE: type=TEMPORARY LOB,bytes=0,c=30,e=31,p=0,cr=0,cu=2,tim=100\n\
WAIT #0: nam='SQL*Net message to client' ela= 1 driver id=1 #bytes=1 p3=0 obj#=-1 tim=110\n\
WAIT #0: nam='SQL*Net message from client' ela= 6000 driver id=1 #bytes=1 p3=0 obj#=-1 tim=6110\n\
LOBWRITE: type=TEMPORARY LOB,bytes=5,c=169,e=169,p=0,cr=0,cu=7,tim=6300\n",
    );
    let p = &r.profile;
    assert_eq!((p.top_calls, p.calls_elapsed_us, p.cpu_us), (2, 200, 199));
    assert_eq!(
        (p.waits_between_calls_us, p.idle_between_calls_us),
        (1, 6_000)
    );
    assert_eq!(p.response_time_us, 6_201);
    assert!(r.statements.is_empty());
}

/// One FETCH with `n` reads of 10 µs, after a 1 ms client wait.
fn long_fetch(n: i64) -> String {
    let mut t = String::from(
        "WAIT #1: nam='SQL*Net message from client' ela= 1000 driver id=1 #bytes=1 p3=0 obj#=-1 tim=1000\n",
    );
    let start = 1000;
    for i in 1..=n {
        t.push_str(&format!(
            "WAIT #1: nam='db file sequential read' ela= 10 file#=1 block#={i} blocks=1 obj#=5 tim={}\n",
            start + 10 * i
        ));
    }
    t.push_str(&format!(
        "FETCH #1:c=0,e={},p={n},cr={n},cu=0,mis=0,r=1,dep=0,og=1,plh=1,tim={}\n",
        10 * n,
        start + 10 * n
    ));
    t
}

#[test]
fn a_call_with_more_waits_than_the_pending_bound_keeps_every_wait_inside() {
    // See: issue 13 (at 65,537 waits, 32,768 were settled as between calls
    // and showed up as false unaccounted-for time).
    let n = 200_000;
    let r = run(&long_fetch(n));
    let p = &r.profile;
    assert_eq!(p.calls_elapsed_us, 10 * n);
    assert_eq!(p.waits_in_calls_us, 10 * n);
    assert_eq!(p.waits_between_calls_us, 0);
    assert_eq!(p.idle_between_calls_us, 1000);
    assert_eq!(p.unaccounted_us, 0);
    assert_eq!(p.response_time_us, 10 * n + 1000);
    let e = event(&r, "db file sequential read");
    assert_eq!(
        (e.count, e.in_calls_us, e.between_calls_us),
        (n as u64, 10 * n, 0)
    );
    // The bound that was reached is said, with what it means.
    assert!(
        p.notes
            .iter()
            .any(|n| n.contains("more than 65536 waits") && n.contains("exactly")),
        "{:?}",
        p.notes
    );
    // Below the bound nothing is said.
    assert!(run(&long_fetch(1000)).profile.notes.is_empty());
}

#[test]
fn absurd_values_are_counted_as_anomalies() {
    // See: issue 13 (negative ela, ela beyond 2^40 µs and tim beyond 64
    // bits passed silently).
    let r = run(
        "WAIT #1: nam='db file sequential read' ela= -5 file#=1 block#=1 blocks=1 obj#=5 tim=100\n\
WAIT #1: nam='db file sequential read' ela= -7 file#=1 block#=2 blocks=1 obj#=5 tim=110\n\
WAIT #1: nam='db file sequential read' ela= 99999999999999 file#=1 block#=3 blocks=1 obj#=5 tim=120\n\
FETCH #1:c=-1,e=50,p=3,cr=3,cu=0,mis=0,r=1,dep=0,og=1,plh=1,tim=99999999999999999999999\n\
FETCH #1:c=1,e=50,p=0,cr=0,cu=0,mis=0,r=1,dep=0,og=1,plh=1,tim=200\n",
    );
    let a: Vec<(&str, u64, u64)> = r.files[0]
        .anomalies
        .iter()
        .map(|a| (a.kind.as_str(), a.count, a.first_line))
        .collect();
    assert_eq!(
        a,
        [
            ("negative ela, e or c", 3, 1),
            (
                "ela, e or c beyond 2^40 µs (12.7 days), clamped there",
                1,
                3
            ),
            ("tim beyond the 64-bit range", 1, 4),
        ]
    );
    // An ordinary trace has none.
    assert!(run(&long_fetch(10)).files[0].anomalies.is_empty());
}

#[test]
fn recursive_calls_without_a_dep0_parent_are_response_time() {
    // See: issue 13. The logoff audit `update sys.aud$` runs at dep 1 after
    // the session's last dep-0 call: no parent, yet the session spent it.
    let r = run(
        "EXEC #1:c=100,e=200,p=0,cr=0,cu=0,mis=0,r=0,dep=0,og=1,plh=0,tim=1000\n\
WAIT #2: nam='db file sequential read' ela= 300 file#=1 block#=1 blocks=1 obj#=5 tim=1500\n\
EXEC #2:c=50,e=400,p=1,cr=1,cu=3,mis=0,r=1,dep=1,og=4,plh=0,tim=1600\n",
    );
    let p = &r.profile;
    assert_eq!(
        (
            p.top_calls,
            p.calls_elapsed_us,
            p.cpu_us,
            p.waits_in_calls_us
        ),
        (2, 600, 150, 300)
    );
    assert_eq!((p.response_time_us, p.unaccounted_us), (600, 150));
    // By the trace clock: 800 .. 1600.
    assert_eq!(
        (p.clock_response_time_us, p.clock_unaccounted_us),
        (800, 350)
    );
    assert!(
        p.notes
            .iter()
            .any(|n| n.contains("1 recursive call with no dep-0 parent")),
        "{:?}",
        p.notes
    );
    // A dep-1 call inside a dep-0 call is counted once, through its parent.
    let r = run(
        "WAIT #2: nam='db file sequential read' ela= 300 file#=1 block#=1 blocks=1 obj#=5 tim=1500\n\
EXEC #2:c=50,e=400,p=1,cr=1,cu=3,mis=0,r=1,dep=1,og=4,plh=0,tim=1600\n\
EXEC #1:c=100,e=1000,p=0,cr=0,cu=0,mis=0,r=0,dep=0,og=1,plh=0,tim=2000\n",
    );
    assert_eq!((r.profile.top_calls, r.profile.response_time_us), (1, 1000));
    assert!(r.profile.notes.is_empty(), "{:?}", r.profile.notes);
}

#[test]
fn a_client_wait_stays_between_calls_when_the_next_call_seems_to_start_early() {
    // See: issue 13. The FETCH's e reaches back 100 µs before the client
    // wait ended (the two clocks disagree): the wait is still between calls.
    let r = run(
        "EXEC #1:c=10,e=100,p=0,cr=0,cu=0,mis=0,r=0,dep=0,og=1,plh=0,tim=1000\n\
WAIT #1: nam='SQL*Net message from client' ela= 3990 driver id=1 #bytes=1 p3=0 obj#=-1 tim=5000\n\
FETCH #1:c=50,e=200,p=0,cr=0,cu=0,mis=0,r=1,dep=0,og=1,plh=0,tim=5100\n",
    );
    let p = &r.profile;
    assert_eq!((p.idle_between_calls_us, p.waits_in_calls_us), (3990, 0));
    assert_eq!((p.response_time_us, p.unaccounted_us), (4290, 240));
}

#[test]
fn distinct_keys_are_capped_with_an_other_row_and_a_note() {
    // See: issue 13 (memory grew by about 41 KB per distinct event name,
    // 5 KB per SESSION ID block, 2 KB per statement).
    let mut t = String::new();
    for i in 0..2000 {
        t.push_str(&format!(
            "WAIT #1: nam='event {i}' ela= 5 p1=1 p2=2 p3=3 obj#=-1 tim={}\n",
            1000 + 10 * i
        ));
    }
    t.push_str("FETCH #1:c=1,e=20005,p=0,cr=0,cu=0,mis=0,r=1,dep=0,og=1,plh=0,tim=21000\n");
    let r = run(&t);
    assert_eq!(r.events.len(), dbio_oracle::aggregate::MAX_EVENTS);
    let other = event(&r, "(other events)");
    let kept = dbio_oracle::aggregate::MAX_EVENTS as u64 - 1;
    assert_eq!(
        (other.count, other.total_us),
        (2000 - kept, 5 * (2000 - kept as i64))
    );
    assert_eq!(r.events.iter().map(|e| e.count).sum::<u64>(), 2000);
    // Every wait still counts inside the call.
    assert_eq!(r.profile.waits_in_calls_us, 10_000);
    assert!(
        r.profile
            .notes
            .iter()
            .any(|n| n.contains("distinct event names")),
        "{:?}",
        r.profile.notes
    );

    let mut t = String::new();
    for i in 0..2500 {
        t.push_str(&format!("*** SESSION ID:({i}.1) 2024-01-01 00:00:00.000\n"));
        t.push_str(&format!(
            "PARSING IN CURSOR #{i} len=8 dep=0 uid=0 oct=3 lid=0 tim=1 hv={i} ad='0' sqlid='s{i:012}'\nselect {i}\nEND OF STMT\n"
        ));
        t.push_str(&format!(
            "EXEC #{i}:c=1,e={},p=0,cr=0,cu=0,mis=0,r=0,dep=0,og=1,plh=0,tim={}\n",
            i + 1,
            10 * i + 5
        ));
    }
    let r = run(&t);
    // Sessions: 999 kept (the largest R), the rest in one row; R unchanged.
    assert_eq!(r.sessions.len(), dbio_oracle::aggregate::MAX_SESSIONS);
    let total: i64 = (1..=2500).sum();
    assert_eq!(r.profile.response_time_us, total);
    assert_eq!(
        r.sessions.iter().map(|s| s.response_time_us).sum::<i64>(),
        total
    );
    let other = r
        .sessions
        .iter()
        .find(|s| s.id == "(other sessions)")
        .unwrap();
    assert_eq!(other.calls, 2500 - 999);
    assert_eq!(
        r.sessions
            .iter()
            .filter(|s| s.id != "(other sessions)")
            .map(|s| s.response_time_us)
            .min(),
        Some(2500 - 998)
    );
    assert!(
        r.profile
            .notes
            .iter()
            .any(|n| n.contains("1501 with the least response time")),
        "{:?}",
        r.profile.notes
    );
    // Notes stay few however many sessions there are.
    assert!(r.profile.notes.len() <= dbio_oracle::aggregate::MAX_NOTES + 4);
}

#[test]
fn distinct_objects_files_and_sizes_are_capped_with_a_note() {
    // See: issue 13 (per-key state must stay proportional to the report).
    let n = dbio_oracle::aggregate::MAX_OBJECTS as i64 + 100;
    let mut t = String::new();
    for i in 0..n {
        t.push_str(&format!(
            "WAIT #1: nam='db file scattered read' ela= 5 file#={i} block#=1 blocks={} obj#={i} tim={}\n",
            i % 1000 + 1,
            1000 + 10 * i
        ));
    }
    t.push_str(&format!(
        "FETCH #1:c=1,e={},p=0,cr=0,cu=0,mis=0,r=1,dep=0,og=1,plh=0,tim={}\n",
        10 * n + 10,
        1000 + 10 * n
    ));
    let r = run(&t);
    assert_eq!(r.objects.len(), 100, "the table shows the top 5 × top");
    assert_eq!(r.hot_files.len(), dbio_oracle::aggregate::MAX_OBJECTS);
    let sizes = r
        .size_histograms
        .iter()
        .filter(|h| h.event == "db file scattered read")
        .count();
    assert_eq!(sizes, dbio_oracle::aggregate::MAX_SIZES);
    // The event itself still counts every wait.
    assert_eq!(event(&r, "db file scattered read").count, n as u64);
    let notes = r.profile.notes.join("\n");
    assert!(
        notes.contains("100 waits on the others are not in the objects table"),
        "{notes}"
    );
    assert!(
        notes.contains("100 waits on the others are not in the files table"),
        "{notes}"
    );
    assert!(notes.contains("distinct I/O sizes"), "{notes}");
}

#[test]
fn repeated_wait_lines_keep_their_event_across_binds_and_the_event_cap() {
    // WAIT lines are read with a memory of the previous one (the same
    // cursor, name and parameter names); a WAIT read inside a BINDS block
    // goes the general way, and the memory must not lend its event to
    // the next line.
    let t = "\
WAIT #1: nam='db file sequential read' ela= 10 file#=7 block#=1 blocks=1 obj#=5 tim=1000
BINDS #1:
 Bind#0
WAIT #1: nam='log file sync' ela= 20 buffer#=7 sync scn=1 p3=0 obj#=-1 tim=1100
WAIT #1: nam='db file sequential read' ela= 30 file#=7 block#=2 blocks=1 obj#=5 tim=1200
WAIT #1: nam='db file sequential read' ela= 40 file#=8 block#=3 blocks=1 obj#=6 tim=1300
FETCH #1:c=1,e=400,p=0,cr=0,cu=0,mis=0,r=1,dep=0,og=1,plh=0,tim=1400
";
    let r = run(t);
    let seq = event(&r, "db file sequential read");
    assert_eq!((seq.count, seq.total_us), (3, 80));
    let sync = event(&r, "log file sync");
    assert_eq!((sync.count, sync.total_us), (1, 20));

    // Four names fill the reader's remembered shapes; a fifth whose line
    // does not parse (ela= x) takes the first shape over, and its next
    // line must not be counted under the name that shape held.
    let mut t = String::new();
    for (k, name) in ["a", "b", "c", "d"].iter().enumerate() {
        t.push_str(&format!(
            "WAIT #1: nam='{name}' ela= 1{k} p1=1 p2=2 p3=3 obj#=-1 tim={}\n",
            1000 + k
        ));
    }
    t.push_str("WAIT #1: nam='e' ela= x p1=1 p2=2 p3=3 obj#=-1 tim=1010\n");
    t.push_str("WAIT #1: nam='e' ela= 7 p1=1 p2=2 p3=3 obj#=-1 tim=1020\n");
    let r = run(&t);
    assert_eq!((event(&r, "a").count, event(&r, "a").total_us), (1, 10));
    assert_eq!((event(&r, "e").count, event(&r, "e").total_us), (1, 7));

    // Names beyond the cap: every wait of a repeated one is counted in
    // the other-events row and in the note.
    let mut t = String::new();
    for i in 0..600 {
        for _ in 0..3 {
            t.push_str(&format!(
                "WAIT #1: nam='event {i}' ela= 5 p1=1 p2=2 p3=3 obj#=-1 tim={}\n",
                1000 + 10 * i
            ));
        }
    }
    let r = run(&t);
    let kept = dbio_oracle::aggregate::MAX_EVENTS as u64 - 1;
    let other = event(&r, "(other events)");
    assert_eq!(other.count, 3 * (600 - kept));
    assert_eq!(r.events.iter().map(|e| e.count).sum::<u64>(), 1800);
    let want = format!("{} waits of the names beyond", 3 * (600 - kept));
    assert!(
        r.profile.notes.iter().any(|n| n.contains(&want)),
        "{:?}",
        r.profile.notes
    );
}

/// One statement in three files: first at depth 1 with plan 111 and a
/// longer text, then at depth 0 with plan 222, then at depth 1 with no
/// plan (a PARSE without `plh`). Read by one thread in order it ends at
/// depth 1 (the last file's), plan 222 (the last one given), the first
/// file's text; any number of threads, however the files fall to them,
/// must report the same (it reported the depth and plan of whichever
/// thread's table was merged last).
#[test]
fn threads_report_what_one_thread_reading_the_files_in_order_does() {
    let d = tempfile::tempdir().unwrap();
    let trace = |dep: u32, plh: Option<u64>, text: &str| {
        let plh = plh.map_or_else(String::new, |p| format!(",plh={p}"));
        format!(
            "PARSING IN CURSOR #7 len={} dep={dep} uid=0 oct=3 lid=0 tim=1000 hv=1 ad='0' sqlid='ccccccccccccc'\n{text}\nEND OF STMT\nPARSE #7:c=0,e=5,p=0,cr=0,cu=0,mis=0,r=0,dep={dep},og=1,tim=1010\nEXEC #7:c=0,e=5,p=0,cr=0,cu=0,mis=0,r=0,dep={dep},og=1{plh},tim=1020\n",
            text.len()
        )
    };
    let files = [
        trace(1, Some(111), "select x from t where y = :b1"),
        trace(0, Some(222), "select x from t"),
        trace(1, None, "select"),
    ];
    let sources: Vec<dbio_oracle::Source> = files
        .iter()
        .enumerate()
        .map(|(i, t)| {
            let p = d.path().join(format!("{i}.trc"));
            std::fs::write(&p, t).unwrap();
            dbio_oracle::Source::File(p)
        })
        .collect();
    let stmt = |threads: usize| {
        let a = dbio_oracle::analyze_sources(&Options::default(), &sources, threads, "t").unwrap();
        assert!(a.failed.is_empty());
        let s = a
            .report
            .statements
            .iter()
            .find(|s| s.key == "ccccccccccccc")
            .expect("the statement")
            .clone();
        (s.depth, s.plan_hash, s.text, s.execs)
    };
    let one = stmt(1);
    assert_eq!(
        one,
        (1, Some(222), "select x from t where y = :b1".to_string(), 3)
    );
    for _ in 0..20 {
        for threads in [2, 3] {
            assert_eq!(stmt(threads), one, "{threads} threads");
        }
    }
}
