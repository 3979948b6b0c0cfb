//! Parses trace files with default options and prints the number of
//! waits: the parser alone, without the dbio binary, for profiling
//! (`cargo run --release -p dbio-oracle --example parse_file -- FILE...`).
//! With `--dump` first it prints the whole report (`{:#?}`) instead, so
//! two builds can be compared byte for byte on the same files (the speed
//! work in `record` and `parse` must not change a single count).

fn main() -> std::io::Result<()> {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let dump = args.first().is_some_and(|a| a == "--dump");
    if dump {
        args.remove(0);
    }
    let mut opts = dbio_oracle::Options::default();
    if args.first().is_some_and(|a| a == "--no-hot-blocks") {
        args.remove(0);
        opts.hot_blocks = false;
    }
    if args.is_empty() {
        eprintln!("usage: parse_file [--dump] [--no-hot-blocks] FILE...");
        std::process::exit(2);
    }
    let sources: Vec<dbio_oracle::Source> = args
        .iter()
        .map(|a| dbio_oracle::Source::File(a.into()))
        .collect();
    let a = dbio_oracle::analyze_sources(&opts, &sources, 1, &args.join(" "))?;
    if dump {
        println!("{:#?}", a.report);
    } else {
        let waits: u64 = a.report.events.iter().map(|e| e.count).sum();
        println!("{waits} waits");
    }
    Ok(())
}
