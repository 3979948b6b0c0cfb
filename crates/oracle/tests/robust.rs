//! Property test: no input makes the parser panic, and the counts the
//! lexer and the aggregation keep separately agree (wait lines against
//! events, histograms against events). Inputs are random bytes, and
//! real-looking trace lines cut, spliced and corrupted at random. Bounded:
//! a few thousand cases, seconds in a debug build.
//!
//! The profile's lines are not summed here: 'unaccounted-for' is computed
//! as the remainder, so they add up to R by construction. The profile is
//! checked against independent figures instead: parsetrc's output for the
//! real traces (fixtures.rs) and hand-computed values (quirks.rs).

use dbio_oracle::{analyze_reader, Options};
use proptest::prelude::*;

const TEMPLATES: &[&str] = &[
    "PARSING IN CURSOR #140472196921016 len=391 dep=0 uid=120 oct=47 lid=120 tim=664029098820 hv=1220421353 ad='a313b4b0' sqlid='9x825n14bw9r9'",
    "select count(*) from t",
    "END OF STMT",
    "PARSE #140472196921016:c=2431,e=3192,p=0,cr=3,cu=0,mis=1,r=0,dep=0,og=1,plh=2910648220,tim=664029098900",
    "EXEC #140472196921016:c=10,e=20,p=0,cr=0,cu=0,mis=0,r=0,dep=1,og=1,plh=0,tim=664029099000",
    "FETCH #140472196921016:c=100,e=900,p=1,cr=5,cu=0,mis=0,r=10,dep=0,og=1,plh=42,tim=664029100000",
    "CLOSE #140472196921016:c=0,e=10,dep=0,type=1,tim=664028828663",
    "WAIT #140472196921016: nam='db file sequential read' ela= 335 file#=414 block#=3286763 blocks=1 obj#=89440 tim=664029099500",
    "WAIT #1: nam='direct path read' ela=17 file number=4 first dba=1234 block cnt=16 obj#=4294967295 tim=9",
    "WAIT #0: nam='ADR block file read' ela= 2212  =0  =0  =0 obj#=-1 tim=100",
    "WAIT #3: nam='db file scattered read' ela= 12 p1=5 p2=99 p3=8",
    "LOBWRITE: type=TEMPORARY LOB,bytes=5,c=169,e=169,p=0,cr=0,cu=7,tim=42",
    "XCTEND rlbk=0, rd_only=1, tim=5",
    "ERROR #1:err=1403 tim=7",
    "STAT #140472196919200 id=1 cnt=1 pid=0 pos=1 obj=22 op='TABLE ACCESS BY INDEX ROWID USER$ (cr=2 pr=0 pw=0 str=1 time=60 us cost=1 size=160 card=1)'",
    "BINDS #1:",
    " Bind#0",
    "  value=\"x\"",
    "*** 2019-07-09T09:57:07.703476-07:00 (EXAMPLESPDB(8))",
    "*** 2013-08-26 14:40:23.035",
    "*** SESSION ID:(504.46635) 2019-07-09T09:57:07.703508-07:00",
    "*** [ Unix process pid: 9850 ]",
    "*** TRACE CONTINUED FROM FILE /x.trc ***",
    "=====================",
    "PARSE ERROR #1:len=5 dep=0 uid=1 oct=3 lid=1 tim=1 err=942",
    "Oracle8i Enterprise Edition Release 8.1.7.4.0 - Production",
    "Dump of memory from 0x00007F000 to 0x00007F100",
    "",
];

fn mutated_line() -> impl Strategy<Value = Vec<u8>> {
    (
        0..TEMPLATES.len(),
        prop::collection::vec((any::<u16>(), any::<u8>(), 0u8..4), 0..4),
    )
        .prop_map(|(i, edits)| {
            let mut l = TEMPLATES[i].as_bytes().to_vec();
            for (pos, byte, op) in edits {
                let p = if l.is_empty() {
                    0
                } else {
                    pos as usize % (l.len() + 1)
                };
                match op {
                    0 => l.truncate(p),
                    1 => l.insert(p, byte),
                    2 if p < l.len() => l[p] = byte,
                    _ => {
                        // Replace a digit run with a huge or negative number.
                        let n = if byte % 2 == 0 {
                            "99999999999999999999999"
                        } else {
                            "-7"
                        };
                        l.splice(p..p, n.bytes());
                    }
                }
            }
            l
        })
}

fn any_line() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        6 => mutated_line(),
        1 => prop::collection::vec(any::<u8>(), 0..200),
        1 => (0..TEMPLATES.len()).prop_map(|i| TEMPLATES[i].as_bytes().to_vec()),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 3000, max_shrink_iters: 2000, ..ProptestConfig::default() })]

    #[test]
    fn never_panics_and_the_counts_agree(lines in prop::collection::vec(any_line(), 0..60), crlf in any::<bool>()) {
        let mut text = Vec::new();
        for l in &lines {
            text.extend_from_slice(l);
            if crlf { text.push(b'\r'); }
            text.push(b'\n');
        }
        let r = analyze_reader(&Options::default(), "fuzz", &text[..]).unwrap();
        let waits: u64 = r.events.iter().map(|e| e.count).sum();
        prop_assert_eq!(waits, r.files[0].wait_lines);
        for h in &r.io_histograms {
            let e = r.events.iter().find(|e| e.name == h.event).unwrap();
            prop_assert_eq!(h.buckets.total(), e.count);
        }
    }
}
