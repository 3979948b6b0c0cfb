//! Times `dbio_awr::parse` + `derive` alone on one file (for
//! `scripts/bench-awr`): `cargo run --release -p dbio-awr --example
//! parse_time FILE [RUNS]`. Prints the best wall time of RUNS.

fn main() {
    let mut args = std::env::args().skip(1);
    let Some(path) = args.next() else {
        eprintln!("usage: parse_time FILE [RUNS]");
        std::process::exit(2);
    };
    let runs: usize = args.next().and_then(|r| r.parse().ok()).unwrap_or(5);
    let bytes = match std::fs::read(&path) {
        Ok(b) => b,
        Err(e) => {
            eprintln!("cannot read {path}: {e}");
            std::process::exit(2);
        }
    };
    let mut best = f64::INFINITY;
    let mut events = 0;
    for _ in 0..runs.max(1) {
        let t0 = std::time::Instant::now();
        match dbio_awr::parse(&bytes, &path) {
            Ok(mut r) => {
                dbio_awr::derive::derive(&mut r, &Default::default());
                events = r.foreground_events.len() + r.background_events.len();
            }
            Err(e) => {
                eprintln!("{e}");
                std::process::exit(2);
            }
        }
        best = best.min(t0.elapsed().as_secs_f64());
    }
    println!(
        "parse+derive: {} bytes in {:.1} ms ({:.0} MB/s), {events} wait event rows",
        bytes.len(),
        best * 1e3,
        bytes.len() as f64 / best / 1e6
    );
}
