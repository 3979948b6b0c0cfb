//! Verifiable block contents: every change stamps the block with its
//! number, a version and a check value, at the head and again at the tail.
//!
//! The layout borrows the idea of Oracle's block header and tail check (the
//! last bytes of every block repeat part of the header's SCN, so a block
//! written only partly — a fractured block — is detected on the next read):
//! a torn write, a write to the wrong offset and a lost write all show as a
//! mismatch when the file is read back. Versions start at 0 for a block
//! that never carried a stamp (a freshly pre-written datafile), and each
//! change adds one, so after a clean shutdown the versions in the file sum
//! to the number of changes made: a lost write shows as a shortfall.
//!
//! Only 64 bytes of the 8 KiB are touched per change, so stamping costs a
//! few nanoseconds and never limits the model.

/// Block size of the model, bytes (Oracle's and PostgreSQL's default).
pub const BLOCK_SIZE: usize = 8192;

/// "DBWRSTMP": marks a block stamped by the model. A 64-bit magic makes a
/// false match in random pre-written data a 2^-64 event per block.
const MAGIC: u64 = 0x504d_5453_5257_4244;
/// Offset of the tail copy (version, check).
const TAIL: usize = BLOCK_SIZE - 16;

/// What a block read from the file holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stamp {
    /// No stamp: the block was never changed by the model (version 0).
    Unformatted,
    /// A valid stamp of this version.
    Version(u64),
}

/// Why a block's contents are wrong.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StampError {
    /// The stamp names another block (a write landed at the wrong offset).
    WrongBlock {
        /// The block number the stamp carries.
        found: u64,
    },
    /// The head's check value does not match its block and version.
    BadCheck,
    /// Head and tail disagree (a torn, partly written block).
    Fractured {
        /// Version in the head.
        head: u64,
        /// Version in the tail.
        tail: u64,
    },
}

impl std::fmt::Display for StampError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            StampError::WrongBlock { found } => write!(f, "it carries block {found}'s stamp"),
            StampError::BadCheck => write!(f, "its check value is wrong"),
            StampError::Fractured { head, tail } => write!(
                f,
                "it is fractured (version {head} at the head, {tail} at the tail)"
            ),
        }
    }
}

/// The check value of (block, version): splitmix64's finaliser over both,
/// so that any single-field change alters it.
#[inline]
fn check(block: u64, version: u64) -> u64 {
    let mut z = block ^ version.rotate_left(32) ^ MAGIC;
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

#[inline]
fn put(b: &mut [u8], at: usize, v: u64) {
    b[at..at + 8].copy_from_slice(&v.to_le_bytes());
}

#[inline]
fn get(b: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(b[at..at + 8].try_into().expect("8 bytes"))
}

/// Stamps `buf` (one block) as `block` at `version`.
#[inline]
pub fn stamp(buf: &mut [u8], block: u64, version: u64) {
    let c = check(block, version);
    put(buf, 0, MAGIC);
    put(buf, 8, block);
    put(buf, 16, version);
    put(buf, 24, c);
    put(buf, TAIL, version);
    put(buf, TAIL + 8, c);
}

/// Reads the stamp of `buf`, which should hold `block`.
pub fn read(buf: &[u8], block: u64) -> Result<Stamp, StampError> {
    if get(buf, 0) != MAGIC {
        return Ok(Stamp::Unformatted);
    }
    let found = get(buf, 8);
    let version = get(buf, 16);
    if get(buf, 24) != check(found, version) {
        return Err(StampError::BadCheck);
    }
    if found != block {
        return Err(StampError::WrongBlock { found });
    }
    let tail = get(buf, TAIL);
    if tail != version || get(buf, TAIL + 8) != check(block, version) {
        return Err(StampError::Fractured {
            head: version,
            tail,
        });
    }
    Ok(Stamp::Version(version))
}

/// The version a block holds: 0 when unformatted.
pub fn version(buf: &[u8], block: u64) -> Result<u64, StampError> {
    Ok(match read(buf, block)? {
        Stamp::Unformatted => 0,
        Stamp::Version(v) => v,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_and_every_corruption_is_named() {
        let mut b = vec![0xa5u8; BLOCK_SIZE];
        assert_eq!(read(&b, 7), Ok(Stamp::Unformatted));
        stamp(&mut b, 7, 42);
        assert_eq!(read(&b, 7), Ok(Stamp::Version(42)));
        assert_eq!(read(&b, 8), Err(StampError::WrongBlock { found: 7 }));
        let mut torn = b.clone();
        put(&mut torn, TAIL, 41);
        assert_eq!(
            read(&torn, 7),
            Err(StampError::Fractured { head: 42, tail: 41 })
        );
        let mut bad = b.clone();
        put(&mut bad, 16, 43);
        assert_eq!(read(&bad, 7), Err(StampError::BadCheck));
        // A half-written block: new head, old tail.
        let mut half = b.clone();
        stamp(&mut half, 7, 43);
        half[TAIL..].copy_from_slice(&b[TAIL..]);
        assert!(matches!(
            read(&half, 7),
            Err(StampError::Fractured { head: 43, tail: 42 })
        ));
    }
}
