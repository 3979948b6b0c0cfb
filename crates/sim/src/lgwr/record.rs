//! The redo record a commit writes: a 32-byte header that a reader
//! recognises without any index, followed by a payload.
//!
//! Header (little endian): magic `REDO` (u32), session id (u32), sequence
//! number of the commit within its session (u64, from 1), record length
//! including the header (u32), reserved (u32, 0), checksum (u64) over the
//! payload seeded with session, sequence and length, so a record moved,
//! truncated or mixed with another one fails the check.
//!
//! The payload is a slice of a per-session random pattern at an offset
//! derived from the sequence number: the verifier regenerates it and
//! compares byte for byte, and storage that compresses or deduplicates
//! cannot shortcut the writes. Building a record costs one checksum pass
//! over the payload (four independent multiply lanes, well under a
//! nanosecond per byte) and no allocation.

use super::config::HEADER_BYTES;

/// `REDO` in little endian.
pub const MAGIC: u32 = u32::from_le_bytes(*b"REDO");
/// Length of the pattern window payloads start in.
pub const PATTERN_WINDOW: usize = 64 * 1024;

/// A session's payload pattern: `PATTERN_WINDOW + max_record` random bytes.
pub fn pattern(seed: u64, session: u32, max_record: u64) -> Vec<u8> {
    let mut rng = fastrand::Rng::with_seed(seed ^ (u64::from(session) << 32) ^ 0x9e37_79b9);
    let mut v = vec![0u8; PATTERN_WINDOW + max_record as usize];
    for c in v.chunks_mut(8) {
        let x = rng.u64(..).to_le_bytes();
        c.copy_from_slice(&x[..c.len()]);
    }
    v
}

/// Where in the pattern the payload of commit `seq` starts.
#[inline]
pub fn pattern_offset(seq: u64) -> usize {
    (seq.wrapping_mul(4093) % PATTERN_WINDOW as u64) as usize
}

const K: u64 = 0x9E37_79B9_7F4A_7C15;

/// Checksum of a payload, seeded with the record's identity.
#[inline]
pub fn checksum(session: u32, seq: u64, len: u32, payload: &[u8]) -> u64 {
    let seed = ((u64::from(session) << 32) | u64::from(len)) ^ seq.wrapping_mul(K);
    let mut lanes = [seed, seed ^ 1, seed ^ 2, seed ^ 3];
    let mut chunks = payload.chunks_exact(32);
    for c in &mut chunks {
        for (i, lane) in lanes.iter_mut().enumerate() {
            let w = u64::from_le_bytes(c[i * 8..i * 8 + 8].try_into().expect("8 bytes"));
            *lane = (*lane ^ w).wrapping_mul(K).rotate_left(29);
        }
    }
    let mut h =
        lanes[0] ^ lanes[1].rotate_left(7) ^ lanes[2].rotate_left(13) ^ lanes[3].rotate_left(19);
    for &b in chunks.remainder() {
        h = (h ^ u64::from(b)).wrapping_mul(K);
    }
    h ^ (h >> 31)
}

/// Builds the header of a record of `len` bytes (header included).
#[inline]
pub fn header(session: u32, seq: u64, len: u32, payload: &[u8]) -> [u8; HEADER_BYTES as usize] {
    let mut h = [0u8; HEADER_BYTES as usize];
    h[0..4].copy_from_slice(&MAGIC.to_le_bytes());
    h[4..8].copy_from_slice(&session.to_le_bytes());
    h[8..16].copy_from_slice(&seq.to_le_bytes());
    h[16..20].copy_from_slice(&len.to_le_bytes());
    h[24..32].copy_from_slice(&checksum(session, seq, len, payload).to_le_bytes());
    h
}

/// Checks bytes read back against the record that should be there.
pub fn check(bytes: &[u8], session: u32, seq: u64, len: u32, pattern: &[u8]) -> Result<(), String> {
    let hl = HEADER_BYTES as usize;
    if bytes.len() < len as usize || (len as usize) < hl {
        return Err(format!("only {} of {len} bytes could be read", bytes.len()));
    }
    let u32_at = |o: usize| u32::from_le_bytes(bytes[o..o + 4].try_into().expect("4 bytes"));
    let u64_at = |o: usize| u64::from_le_bytes(bytes[o..o + 8].try_into().expect("8 bytes"));
    if u32_at(0) != MAGIC {
        return Err("no redo record header (magic REDO missing)".into());
    }
    let (s, q, l) = (u32_at(4), u64_at(8), u32_at(16));
    if (s, q, l) != (session, seq, len) {
        return Err(format!(
            "the header names session {s} commit {q} of {l} B instead of session {session} commit {seq} of {len} B"
        ));
    }
    let payload = &bytes[hl..len as usize];
    if u64_at(24) != checksum(session, seq, len, payload) {
        return Err("the checksum does not match the payload".into());
    }
    let off = pattern_offset(seq);
    if payload != &pattern[off..off + payload.len()] {
        return Err("the payload differs from what the session committed".into());
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_and_corruption() {
        let p = pattern(7, 3, 4096);
        let seq = 42;
        let len = 1000u32;
        let off = pattern_offset(seq);
        let payload = &p[off..off + len as usize - 32];
        let mut rec = header(3, seq, len, payload).to_vec();
        rec.extend_from_slice(payload);
        assert_eq!(check(&rec, 3, seq, len, &p), Ok(()));
        assert!(check(&rec, 3, seq + 1, len, &p)
            .unwrap_err()
            .contains("instead of"));
        let mut bad = rec.clone();
        bad[500] ^= 1;
        assert!(check(&bad, 3, seq, len, &p)
            .unwrap_err()
            .contains("checksum"));
        let zeros = vec![0u8; 1000];
        assert!(check(&zeros, 3, seq, len, &p)
            .unwrap_err()
            .contains("magic"));
    }
}
