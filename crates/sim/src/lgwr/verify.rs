//! Nothing lost: after the run, every committed record still in the log
//! files is read back from every member and compared with what its
//! session committed (header, checksum, payload).
//!
//! Verification runs in constant memory, however long the run: a session
//! keeps, per log file, only the span of sequence numbers it committed to
//! the file's latest use ([`Spans`](super::stats::Spans)), not one entry
//! per commit (that grew by about 30 B a commit, 150 MB in a 30 s run).
//! Since a session commits in order and the writer fills a file from offset
//! 0 with whole records packed back to back, each write padded to the redo
//! block, the verifier walks each file from the start: a record header
//! gives its length and the next record starts right after it; padding (or
//! anything that is not a record header) is skipped to the next block
//! boundary, where every write starts. Each record of an expected span must
//! appear, in order, and match on every member; one that does not appear is
//! counted bad ("missing"), as is one whose bytes differ.
//!
//! Payload patterns are regenerated per session; sessions are checked in
//! groups whose patterns fit in [`PATTERN_BUDGET`], one pass over the files
//! per group, so memory stays bounded with thousands of sessions too.
//!
//! Records in a log file that the writer later reused (the group wraps
//! round-robin) were overwritten by design; they are counted, not checked.

use super::config::{round_up, HEADER_BYTES};
use super::record::{self, MAGIC, PATTERN_WINDOW};
use super::stats::{SessionRec, Span};
use dbio_model::lgwr::VerifyResult;
use std::fs::File;
use std::os::unix::fs::FileExt;

/// Memory for the payload patterns of one group of sessions.
pub const PATTERN_BUDGET: usize = 64 << 20;
/// Bytes read from a log file at a time.
const WINDOW: usize = 1 << 20;

fn note_bad(r: &mut VerifyResult, n: u64, what: impl FnOnce() -> String) {
    if n == 0 {
        return;
    }
    r.bad += n;
    if r.first_bad.is_none() {
        r.first_bad = Some(what());
    }
}

/// A sliding read window over one member of a log file.
struct Reader<'a> {
    file: Option<&'a File>,
    len: u64,
    base: u64,
    buf: Vec<u8>,
}

impl<'a> Reader<'a> {
    fn new(file: &'a Option<File>) -> Reader<'a> {
        let file = file.as_ref();
        let len = file.and_then(|f| f.metadata().ok()).map_or(0, |m| m.len());
        Reader {
            file,
            len,
            base: 0,
            buf: Vec::new(),
        }
    }

    /// The bytes `[off, off + n)`, or why they cannot be read.
    fn get(&mut self, off: u64, n: usize) -> Result<&[u8], String> {
        let Some(f) = self.file else {
            return Err("the log file could not be opened".into());
        };
        if off + n as u64 > self.len {
            return Err(format!(
                "only {} of {n} bytes could be read",
                self.len.saturating_sub(off)
            ));
        }
        if off < self.base || off + n as u64 > self.base + self.buf.len() as u64 {
            let want = (n.max(WINDOW) as u64).min(self.len - off) as usize;
            self.buf.resize(want, 0);
            f.read_exact_at(&mut self.buf, off)
                .map_err(|e| e.to_string())?;
            self.base = off;
        }
        let at = (off - self.base) as usize;
        Ok(&self.buf[at..at + n])
    }
}

/// Session, sequence number and length from a header that looks like a
/// record of one of `sessions` sessions no longer than `max_record`.
fn parse_header(b: &[u8], sessions: usize, max_record: u64) -> Option<(u32, u64, u32)> {
    let u32_at = |o: usize| u32::from_le_bytes(b[o..o + 4].try_into().expect("4 bytes"));
    if u32_at(0) != MAGIC {
        return None;
    }
    let s = u32_at(4);
    let seq = u64::from_le_bytes(b[8..16].try_into().expect("8 bytes"));
    let len = u32_at(16);
    let plausible = (s as usize) < sessions
        && seq > 0
        && u64::from(len) >= HEADER_BYTES
        && u64::from(len) <= max_record;
    plausible.then_some((s, seq, len))
}

/// Whether `b` is an intact record (header and checksum), whoever's.
fn intact(b: &[u8], s: u32, seq: u64, len: u32) -> bool {
    let hl = HEADER_BYTES as usize;
    let sum = u64::from_le_bytes(b[24..32].try_into().expect("8 bytes"));
    sum == record::checksum(s, seq, len, &b[hl..len as usize])
}

/// Reads back every record that `sessions` committed to the latest use of
/// each log file. `files[file][member]` are read descriptors (None: the
/// file could not be opened); `uses[file]` is the file's final use count;
/// `max_record` sizes the payload patterns; `block` is the redo block every
/// write starts on.
pub fn verify(
    sessions: &[SessionRec],
    files: &[Vec<Option<File>>],
    uses: &[u32],
    seed: u64,
    max_record: u64,
    block: u64,
) -> VerifyResult {
    let mut r = VerifyResult::default();
    let n = sessions.len();
    // The span each session has to find in each file, None when none.
    let expected = |s: usize, f: usize| -> Option<Span> {
        let sp = sessions[s].spans.as_ref()?.per_file.get(f).copied()?;
        (!sp.is_empty() && uses.get(f) == Some(&sp.gen)).then_some(sp)
    };
    for (s, rec) in sessions.iter().enumerate() {
        let Some(spans) = &rec.spans else { continue };
        r.overwritten += spans.overwritten;
        for (f, sp) in spans.per_file.iter().enumerate() {
            if expected(s, f).is_none() {
                r.overwritten += sp.len();
            }
        }
    }
    let pattern_len = PATTERN_WINDOW + max_record as usize;
    let group = (PATTERN_BUDGET / pattern_len).max(1);
    let mut next = vec![0u64; n];
    for g0 in (0..n).step_by(group) {
        let g = g0..(g0 + group).min(n);
        let mut patterns: Vec<Option<Vec<u8>>> = vec![None; g.len()];
        for (f, members) in files.iter().enumerate() {
            let mut remaining = 0u64;
            for s in g.clone() {
                next[s] = 0;
                if let Some(sp) = expected(s, f) {
                    next[s] = sp.first;
                    remaining += sp.len();
                    if patterns[s - g0].is_none() {
                        patterns[s - g0] = Some(record::pattern(seed, s as u32, max_record));
                    }
                }
            }
            if remaining == 0 {
                continue;
            }
            let mut readers: Vec<Reader> = members.iter().map(Reader::new).collect();
            let end = readers.iter().map(|x| x.len).max().unwrap_or(0);
            let mut o = 0u64;
            while o + HEADER_BYTES <= end && remaining > 0 {
                let hdr = readers.iter_mut().find_map(|x| {
                    x.get(o, HEADER_BYTES as usize)
                        .ok()
                        .and_then(|b| parse_header(b, n, max_record))
                });
                let Some((s, seq, len)) = hdr else {
                    // Padding, or a damaged header: writes start on blocks.
                    o = round_up(o + 1, block);
                    continue;
                };
                let sp = if g.contains(&(s as usize)) {
                    expected(s as usize, f)
                } else {
                    None
                };
                let wanted = sp.is_some_and(|sp| seq >= next[s as usize] && seq <= sp.last);
                if !wanted {
                    // Another group's record, or one this run does not
                    // vouch for (never posted): step over it when intact.
                    let ok = readers
                        .iter_mut()
                        .any(|x| x.get(o, len as usize).is_ok_and(|b| intact(b, s, seq, len)));
                    o = if ok {
                        o + u64::from(len)
                    } else {
                        round_up(o + 1, block)
                    };
                    continue;
                }
                let si = s as usize;
                let skipped = seq - next[si];
                let first_missing = next[si];
                note_bad(&mut r, skipped, || {
                    format!(
                        "session {} commit {first_missing} is missing from log file {f}: the next record found at offset {o} is its commit {seq}",
                        si + 1
                    )
                });
                let pattern = patterns[si - g0].as_deref().expect("made above");
                let mut ok = true;
                for (m, x) in readers.iter_mut().enumerate() {
                    let res = x
                        .get(o, len as usize)
                        .and_then(|b| record::check(b, s, seq, len, pattern));
                    if let Err(e) = res {
                        ok = false;
                        note_bad(&mut r, 1, || {
                            format!(
                                "session {} commit {seq} at offset {o} of log file {f} member {m}: {e}",
                                si + 1
                            )
                        });
                        break;
                    }
                }
                if ok {
                    r.checked += 1;
                }
                remaining -= skipped + 1;
                next[si] = seq + 1;
                o += u64::from(len);
            }
            // What was never found.
            for s in g.clone() {
                let Some(sp) = expected(s, f) else { continue };
                if next[s] <= sp.last {
                    let (from, to) = (next[s], sp.last);
                    note_bad(&mut r, to - from + 1, || {
                        format!(
                            "session {} commits {from} to {to} are missing from log file {f}",
                            s + 1
                        )
                    });
                }
            }
        }
    }
    r
}
