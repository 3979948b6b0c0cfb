//! Oracle extended SQL trace (event 10046) analysis for `dbio tracefile`.
//!
//! Kyle Hailey's parsetrc.pl showed that a latency histogram of
//! `db file sequential read` tells OS-cache reads from storage reads; tkprof,
//! mrskew and TVD$XTAT each answer other questions. This crate does all of
//! it in one streaming pass that never fails on odd input: response-time
//! profile (Millsap/Holt model, recursive calls counted once), per-event
//! statistics and power-of-two histograms equal to parsetrc's on its own
//! test traces, I/O size histograms, tier attribution, statements, objects,
//! hot blocks, the slowest waits, sessions and a timeline.
//!
//! Layers, bottom up: [`lexer`] (lines, numbers), [`record`] (one line → one
//! record; `waitline` reads runs of alike WAIT lines faster), [`header`]
//! (release, timestamps), [`events`] (what an event is),
//! [`session`] (time accounting of one database session), `parse` (the
//! per-file state machine), [`aggregate`] (tables and the final report),
//! [`input`] (files, globs, compression). The crate has no dependency on
//! dbio's I/O engine.

pub mod aggregate;
pub mod blocks;
pub mod events;
pub mod header;
pub mod input;
pub mod lexer;
mod parse;
pub mod record;
mod runs;
pub mod session;
mod waitline;

pub use aggregate::Analyzer;
pub use input::Source;

use dbio_model::trace::TraceReport;
use std::io::{self, Read};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

/// How to read `c`, `e`, `ela` and `tim`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Units {
    /// From the banner: centiseconds before 9i, else microseconds.
    #[default]
    Auto,
    /// Always microseconds.
    Microseconds,
    /// Always centiseconds (8i and earlier without a banner).
    Centiseconds,
}

/// Analysis settings.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Options {
    /// Time unit of the traces.
    pub units: Units,
    /// Waits below this (ns) count as OS page cache hits.
    pub page_cache_max_ns: u64,
    /// Waits below this (ns), and not page cache, count as storage cache.
    pub storage_cache_max_ns: u64,
    /// Where the thresholds came from, echoed in the report.
    pub thresholds_from: String,
    /// Rows kept in top-N tables (slowest waits, hot blocks).
    pub top: usize,
    /// Timeline interval in seconds; `None` picks 1 s, 1 min or 1 h by span.
    pub interval_s: Option<u64>,
    /// Database block size in bytes (for sizes shown in bytes; `--bs`).
    pub bs: u64,
    /// Keep the per-block table (one hash-table slot per block-addressed
    /// wait, prefetched a wait ahead: about 8 % of the parse time of the
    /// I/O-heavy fixture family on a loaded machine).
    pub hot_blocks: bool,
}

impl Default for Options {
    fn default() -> Self {
        Self {
            units: Units::Auto,
            page_cache_max_ns: 100_000,
            storage_cache_max_ns: 1_000_000,
            thresholds_from: "default".into(),
            top: 20,
            interval_s: None,
            bs: 8192,
            hot_blocks: true,
        }
    }
}

impl Analyzer {
    /// Reads one trace into this analyzer's tables. On a read error the
    /// lines read so far are kept and the error is returned.
    pub fn read<R: Read>(&mut self, path: &str, reader: R) -> io::Result<()> {
        parse::parse_into(self, path, reader)
    }
}

/// Analyzes one reader (convenience for tests and single streams).
pub fn analyze_reader<R: Read>(opts: &Options, path: &str, reader: R) -> io::Result<TraceReport> {
    let mut an = Analyzer::new(opts);
    an.read(path, reader)?;
    Ok(an.finish(path))
}

/// The analysis of a group of sources, and the sources that could not be
/// read (each error names its file; the report covers the others).
#[derive(Debug)]
pub struct Analysis {
    /// The report over every source that could be read (and what a source
    /// cut short by a read error held before it).
    pub report: TraceReport,
    /// One error per source that could not be read, in the order given.
    pub failed: Vec<io::Error>,
}

/// Analyzes a group of sources on up to `threads` threads (files are
/// distributed whole; one file is always read by one thread). A source that
/// cannot be opened or read is listed in [`Analysis::failed`] and the others
/// are analysed; only when no source at all could be read is the first
/// error returned.
pub fn analyze_sources(
    opts: &Options,
    sources: &[Source],
    threads: usize,
    label: &str,
) -> io::Result<Analysis> {
    let threads = threads.clamp(1, sources.len().max(1));
    let next = AtomicUsize::new(0);
    let failed: Mutex<Vec<(usize, io::Error)>> = Mutex::new(Vec::new());
    let fail = |i: usize, e: io::Error| {
        failed
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .push((i, e));
    };
    let mut parts: Vec<Analyzer> = std::thread::scope(|scope| {
        let mut handles = Vec::with_capacity(threads);
        for t in 0..threads {
            let spawned = std::thread::Builder::new()
                .name(format!("dbio-parse-{t}"))
                .spawn_scoped(scope, || {
                    let mut an = Analyzer::new(opts);
                    loop {
                        let i = next.fetch_add(1, Ordering::Relaxed);
                        let Some(src) = sources.get(i) else { break };
                        an.file_no = u32::try_from(i).unwrap_or(u32::MAX);
                        let res = input::open(src).and_then(|r| {
                            an.read(&src.name(), r).map_err(|e| {
                                io::Error::other(format!("cannot read '{}': {e}", src.name()))
                            })
                        });
                        if let Err(e) = res {
                            fail(i, e);
                        }
                    }
                    an
                });
            match spawned {
                Ok(h) => handles.push(h),
                // The threads already started share the files among
                // themselves: fewer threads, same result.
                Err(_) if t > 0 => break,
                Err(e) => {
                    // No thread at all: every source is unread.
                    next.store(sources.len(), Ordering::Relaxed);
                    fail(
                        0,
                        io::Error::new(
                            e.kind(),
                            format!("could not start thread 1 of {threads}: {e}"),
                        ),
                    );
                    break;
                }
            }
        }
        handles.into_iter().filter_map(|h| h.join().ok()).collect()
    });
    let mut failed = failed.into_inner().unwrap_or_else(|p| p.into_inner());
    failed.sort_by_key(|f| f.0);
    let mut failed: Vec<io::Error> = failed.into_iter().map(|f| f.1).collect();
    if !failed.is_empty() && failed.len() >= sources.len() {
        return Err(failed.swap_remove(0));
    }
    let mut total = parts.pop().unwrap_or_else(|| Analyzer::new(opts));
    for p in parts {
        total.merge(p);
    }
    // Threads finish files in any order: restore the order given.
    let order: Vec<String> = sources.iter().map(|s| s.name()).collect();
    let pos = |p: &str| order.iter().position(|x| x == p).unwrap_or(usize::MAX);
    total.files.sort_by_key(|f| pos(&f.path));
    total.sessions.sort_by_key(|s| pos(&s.path));
    for e in &failed {
        total
            .totals
            .note(format!("{e}; the report covers the other files"));
    }
    Ok(Analysis {
        report: total.finish(label),
        failed,
    })
}
