//! Reading a whole input, bounded: the cap is checked on a regular file's
//! size before anything is read, and counted while reading a stream (a
//! pipe, a descriptor), so `/dev/fd/N` fed from `/dev/zero` ends at the cap
//! instead of at the end of memory.

use crate::Input;
use std::io::{self, Read};

/// Why a whole input could not be read.
#[derive(Debug)]
pub enum ReadError {
    /// The input holds more than the cap.
    TooLarge,
    /// Memory for it could not be reserved (the bytes asked for).
    NoMemory(u64),
    /// The read failed.
    Io(io::Error),
}

/// How much a stream is read at once (bytes).
const CHUNK: usize = 64 << 10;

/// Reads all of `input`, at most `cap` bytes. The buffer is reserved with
/// [`crate::alloc::try_reserve`]: the whole file at once when its size is
/// known, in growing steps from a stream.
pub fn read_capped(input: &Input, cap: u64) -> Result<Vec<u8>, ReadError> {
    if input.len.is_some_and(|l| l > cap) {
        return Err(ReadError::TooLarge);
    }
    let mut buf: Vec<u8> = Vec::new();
    if let Some(len) = input.len {
        // One byte more, so that reaching the end takes no reallocation.
        let want = usize::try_from(len + 1).map_err(|_| ReadError::NoMemory(len + 1))?;
        crate::alloc::try_reserve(&mut buf, want).map_err(|_| ReadError::NoMemory(len + 1))?;
    }
    // One byte past the cap tells "exactly the cap" from "more".
    let mut r = (&input.file).take(cap + 1);
    let mut chunk = vec![0u8; CHUNK];
    loop {
        let n = match r.read(&mut chunk) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(ReadError::Io(e)),
        };
        crate::alloc::try_reserve(&mut buf, n)
            .map_err(|_| ReadError::NoMemory(((buf.len() + n) as u64).saturating_mul(2)))?;
        buf.extend_from_slice(&chunk[..n]);
    }
    if buf.len() as u64 > cap {
        return Err(ReadError::TooLarge);
    }
    Ok(buf)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    #[test]
    fn a_file_above_the_cap_is_refused_before_reading() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("big.json");
        let f = std::fs::File::create(&p).unwrap();
        f.set_len(1 << 40).unwrap(); // sparse: a TiB that is never read
        let i = crate::open(&p).unwrap();
        assert!(matches!(read_capped(&i, 1 << 20), Err(ReadError::TooLarge)));
        std::fs::write(&p, b"0123456789").unwrap();
        let i = crate::open(&p).unwrap();
        assert_eq!(read_capped(&i, 10).unwrap(), b"0123456789");
        let i = crate::open(&p).unwrap();
        assert!(matches!(read_capped(&i, 9), Err(ReadError::TooLarge)));
    }

    #[test]
    fn a_stream_is_counted_to_the_cap() {
        // /dev/zero through a descriptor the process holds, as a shell's
        // `<(cat /dev/zero)` would give it: read up to the cap, then refused.
        let z = std::fs::File::open("/dev/zero").unwrap();
        let name = format!("/proc/self/fd/{}", std::os::fd::AsRawFd::as_raw_fd(&z));
        let i = crate::open(Path::new(&name)).unwrap();
        assert_eq!(i.origin, crate::Origin::Descriptor);
        assert!(matches!(read_capped(&i, 1 << 20), Err(ReadError::TooLarge)));
    }
}
