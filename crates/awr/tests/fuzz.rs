//! The parser never panics: truncated, interleaved, binary and enormous
//! inputs give a result or one sentence.

use proptest::prelude::*;

fn fixture_or_synthetic() -> Vec<u8> {
    let p =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/awr-19c-rac-crlf.txt");
    std::fs::read(p).unwrap()
}

fn check(b: &[u8]) {
    match dbio_awr::parse(b, "x") {
        Ok(mut r) => dbio_awr::derive::derive(&mut r, &Default::default()),
        Err(e) => assert!(!e.0.is_empty() && !e.0.contains('\n'), "{e}"),
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn any_prefix_or_cut_never_panics(cut in 0usize..6000, len in 0usize..6000) {
        let b = fixture_or_synthetic();
        let s = cut.min(b.len());
        let e = (s + len).min(b.len());
        check(&b[..e]);
        check(&b[s..e]);
    }

    #[test]
    fn arbitrary_bytes_after_a_heading_never_panic(tail in proptest::collection::vec(any::<u8>(), 0..2000)) {
        let mut b = b"WORKLOAD REPOSITORY report for\n".to_vec();
        b.extend_from_slice(&tail);
        check(&b);
        let mut h = b"<html>WORKLOAD REPOSITORY report for<table><tr><th>Event".to_vec();
        h.extend_from_slice(&tail);
        check(&h);
    }

    #[test]
    fn interleaved_lines_never_panic(seed in any::<u64>()) {
        let b = fixture_or_synthetic();
        let text = String::from_utf8_lossy(&b).into_owned();
        let mut lines: Vec<&str> = text.lines().collect();
        let n = lines.len();
        let mut x = seed;
        for i in 0..n {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            lines.swap(i, (x >> 33) as usize % n);
        }
        check(lines.join("\n").as_bytes());
    }
}

#[test]
fn binary_and_empty_inputs_are_refused_in_one_sentence() {
    let e = dbio_awr::parse(&[0u8, 1, 2, 255], "b").unwrap_err();
    assert_eq!(
        e.0,
        "b is not an AWR or Statspack report: it is binary data, not a text or HTML report"
    );
    assert!(dbio_awr::parse(b"", "e").unwrap_err().0.contains("empty"));
}

#[test]
fn an_enormous_line_and_deep_markup_do_not_panic() {
    let mut b = b"STATSPACK report for\n".to_vec();
    b.extend(std::iter::repeat_n(b'-', 3_000_000));
    b.extend_from_slice(b" -\n");
    b.extend(std::iter::repeat_n(b'9', 1_000_000));
    check(&b);
    let mut h = b"<html>WORKLOAD REPOSITORY report for".to_vec();
    for _ in 0..100_000 {
        h.extend_from_slice(b"<table><tr><td>&amp;&#99999999;&#x;");
    }
    check(&h);
}
