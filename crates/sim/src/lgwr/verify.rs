//! Nothing lost: after the run, every committed record is read back from
//! every member at the position the writer reported to its session, and
//! compared with what the session committed (header, checksum, payload).
//!
//! Records in a log file that the writer later reused (the group wraps
//! round-robin) were overwritten by design; they are counted, not checked.

use super::record;
use super::stats::SessionRec;
use dbio_model::lgwr::VerifyResult;
use std::os::unix::fs::FileExt;

fn note_bad(r: &mut VerifyResult, what: String) {
    r.bad += 1;
    if r.first_bad.is_none() {
        r.first_bad = Some(what);
    }
}

/// Reads back every record in `sessions`' positions. `files[file][member]`
/// are buffered read descriptors (None: the file could not be opened);
/// `uses[file]` is the file's final use count; `max_record` sizes the
/// payload patterns.
pub fn verify(
    sessions: &[SessionRec],
    files: &[Vec<Option<std::fs::File>>],
    uses: &[u32],
    seed: u64,
    max_record: u64,
) -> VerifyResult {
    let mut r = VerifyResult::default();
    let mut buf = vec![0u8; max_record as usize];
    for (idx, s) in sessions.iter().enumerate() {
        let Some(positions) = &s.positions else {
            continue;
        };
        let pattern = record::pattern(seed, idx as u32, max_record);
        for p in positions {
            if uses.get(p.file as usize) != Some(&p.gen) {
                r.overwritten += 1;
                continue;
            }
            let mut ok = true;
            for (m, f) in files[p.file as usize].iter().enumerate() {
                let dst = &mut buf[..p.len as usize];
                let res = match f {
                    Some(f) => f.read_exact_at(dst, p.offset).map_err(|e| e.to_string()),
                    None => Err("the log file could not be opened".into()),
                }
                .and_then(|_| record::check(dst, idx as u32, p.seq, p.len, &pattern));
                if let Err(e) = res {
                    ok = false;
                    note_bad(
                        &mut r,
                        format!(
                            "session {} commit {} at offset {} of log file {} member {}: {e}",
                            idx + 1,
                            p.seq,
                            p.offset,
                            p.file,
                            m
                        ),
                    );
                    break;
                }
            }
            if ok {
                r.checked += 1;
            }
        }
    }
    r
}
