//! Parses one trace file with default options and prints the number of
//! waits: the parser alone, without the dbio binary, for profiling
//! (`cargo run --release -p dbio-oracle --example parse_file -- FILE`).

fn main() -> std::io::Result<()> {
    let path = std::env::args().nth(1).expect("usage: parse_file FILE");
    let file = std::fs::File::open(&path)?;
    let opts = dbio_oracle::Options::default();
    let report = dbio_oracle::analyze_reader(&opts, &path, file)?;
    let waits: u64 = report.events.iter().map(|e| e.count).sum();
    println!("{waits} waits");
    Ok(())
}
