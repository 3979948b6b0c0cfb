//! `dbio report --from` re-renders results saved by this release byte for
//! byte: one saved result of every kind (under `tests/fixtures/render/`,
//! made by `regenerate.sh` there) against the table, CSV and HTML it
//! rendered when it was saved. A refactoring of the report crate must keep
//! all three identical; a deliberate change of the output regenerates the
//! goldens (`bash tests/fixtures/render/regenerate.sh goldens`) and the diff
//! of the goldens shows what changed.
//!
//! Files over 32 KB are kept gzipped; `check`'s CSV (every histogram bucket
//! of its twenty jobs, about 5 MB) only as its SHA-256 and size.

use crate::util::dbio;
use sha2::{Digest, Sha256};
use std::io::Read;
use std::path::{Path, PathBuf};

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/render")
}

/// The file's bytes, `name` or `name.gz` decompressed; None when neither is there.
fn read_maybe_gz(name: &str) -> Option<Vec<u8>> {
    let plain = fixtures().join(name);
    if let Ok(bytes) = std::fs::read(&plain) {
        return Some(bytes);
    }
    let gz = std::fs::read(fixtures().join(format!("{name}.gz"))).ok()?;
    let mut out = Vec::new();
    flate2::read::GzDecoder::new(&gz[..])
        .read_to_end(&mut out)
        .expect("golden decompresses");
    Some(out)
}

/// `dbio report --from -` on the saved result, with `args` for the format.
fn render(result: &[u8], args: &[&str]) -> Vec<u8> {
    let out = dbio()
        .args(["report", "--from", "-"])
        .args(args)
        .write_stdin(result.to_vec())
        .output()
        .expect("dbio runs");
    assert!(
        out.status.success(),
        "dbio report {args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out.stdout
}

/// Panics with the first line that differs, the lines before it for
/// context, and both sizes.
fn assert_same(what: &str, got: &[u8], want: &[u8]) {
    if got == want {
        return;
    }
    let (g, w) = (String::from_utf8_lossy(got), String::from_utf8_lossy(want));
    let (gl, wl): (Vec<&str>, Vec<&str>) = (g.lines().collect(), w.lines().collect());
    let first = (0..gl.len().max(wl.len()))
        .find(|&i| gl.get(i) != wl.get(i))
        .unwrap_or(gl.len().min(wl.len()));
    let mut msg = format!(
        "{what} differs from its golden ({} bytes rendered, {} expected), first at line {}:\n",
        got.len(),
        want.len(),
        first + 1
    );
    for line in &wl[first.saturating_sub(3)..first] {
        msg += &format!("  {line}\n");
    }
    msg += &format!("- {}\n", wl.get(first).unwrap_or(&"<end of golden>"));
    msg += &format!("+ {}\n", gl.get(first).unwrap_or(&"<end of output>"));
    panic!("{msg}");
}

/// Re-renders `tests/fixtures/render/<name>.json` as a table, CSV and HTML
/// and compares each with its golden.
fn re_renders(name: &str) {
    let result = read_maybe_gz(&format!("{name}.json")).expect("saved result");
    let table = render(&result, &[]);
    let want = read_maybe_gz(&format!("{name}.table.txt")).expect("table golden");
    assert_same(&format!("{name}: table"), &table, &want);

    let csv = render(&result, &["--csv", "-"]);
    match read_maybe_gz(&format!("{name}.csv")) {
        Some(want) => assert_same(&format!("{name}: CSV"), &csv, &want),
        None => {
            let digest = std::fs::read_to_string(fixtures().join(format!("{name}.csv.sha256")))
                .expect("CSV golden or its digest");
            let got = format!("{:x} {}", Sha256::digest(&csv), csv.len());
            assert_eq!(got, digest.trim(), "{name}: CSV differs from its digest");
        }
    }

    let html = render(&result, &["--html", "-"]);
    let want = read_maybe_gz(&format!("{name}.html")).expect("HTML golden");
    assert_same(&format!("{name}: HTML"), &html, &want);
}

macro_rules! golden {
    ($($test:ident => $name:literal),* $(,)?) => {
        $(
            #[test]
            fn $test() {
                re_renders($name);
            }
        )*

        /// Every saved result in the folder has its test above.
        #[test]
        fn every_saved_result_is_checked() {
            let listed = [$($name),*];
            for entry in std::fs::read_dir(fixtures()).unwrap() {
                let file = entry.unwrap().file_name().into_string().unwrap();
                let Some(name) = file.strip_suffix(".json").or(file.strip_suffix(".json.gz")) else {
                    continue;
                };
                assert!(listed.contains(&name), "{file} has no golden test");
            }
        }
    };
}

golden! {
    awr => "awr",
    awr_compare => "awr-compare",
    awr_trend => "awr-trend",
    awr_with_trace => "awr-with-trace",
    bench => "bench",
    bench_b => "bench-b",
    bench_multi => "bench-multi",
    calibrate => "calibrate",
    check => "check",
    compare => "compare",
    dbwr => "dbwr",
    lgwr => "lgwr",
    load => "load",
    load_compare => "load-compare",
    load_predict => "load-predict",
    matrix => "matrix",
    merge => "merge",
    read => "read",
    trace => "trace",
    trace_compare => "trace-compare",
    watch => "watch",
}
