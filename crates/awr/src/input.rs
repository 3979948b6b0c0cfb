//! The report's bytes as text: decompressed, byte-order mark removed.
//!
//! Reports travel as `awrrpt_1_100_101.txt.gz` or `.xz` attachments and
//! are saved from Windows editors with a byte-order mark, or as UTF-16
//! ("Unicode" in Notepad). Each is recognised by its first bytes, not its
//! name: gzip (`1f 8b`) and xz (`fd 37 7a 58 5a 00`) decompressed as
//! `dbio tracefile` does (`dbio_oracle::input::decompress`), a UTF-8 BOM
//! dropped, UTF-16 with its BOM turned into UTF-8. The decompressed size
//! is capped: a few MB make a report, and a small bomb must not take the
//! machine's memory.

use std::borrow::Cow;
use std::io::Read;

/// The most bytes a compressed input may decompress to (the cap `dbio awr`
/// puts on an uncompressed one).
pub const MAX_UNPACKED: u64 = 256 << 20;

/// What [`unpack`] did to the input, for the report's notes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Packing {
    /// Read as given.
    Plain,
    /// gzip-compressed.
    Gzip,
    /// xz-compressed.
    Xz,
    /// UTF-16 text (little- or big-endian, with its byte-order mark).
    Utf16,
}

/// The input's text bytes, and how they were packed; or one sentence
/// saying why they cannot be read.
pub fn unpack(bytes: &[u8]) -> Result<(Cow<'_, [u8]>, Packing), String> {
    let packing = if bytes.starts_with(&[0x1f, 0x8b]) {
        Packing::Gzip
    } else if bytes.starts_with(&[0xfd, b'7', b'z', b'X', b'Z', 0x00]) {
        Packing::Xz
    } else if bytes.starts_with(&[0xff, 0xfe]) || bytes.starts_with(&[0xfe, 0xff]) {
        return Ok((Cow::Owned(utf16(bytes).into_bytes()), Packing::Utf16));
    } else {
        let text = bytes.strip_prefix(b"\xef\xbb\xbf").unwrap_or(bytes);
        return Ok((Cow::Borrowed(text), Packing::Plain));
    };
    let name = if packing == Packing::Gzip {
        "gzip"
    } else {
        "xz"
    };
    let reader = dbio_oracle::input::decompress(Box::new(std::io::Cursor::new(bytes.to_vec())))
        .map_err(|e| format!("it is {name}-compressed and does not decompress ({e})"))?;
    let mut out = Vec::new();
    reader
        .take(MAX_UNPACKED + 1)
        .read_to_end(&mut out)
        .map_err(|e| format!("it is {name}-compressed and does not decompress ({e})"))?;
    if out.len() as u64 > MAX_UNPACKED {
        return Err(format!(
            "it is {name}-compressed and decompresses to more than {} MiB, far more than any report",
            MAX_UNPACKED >> 20
        ));
    }
    // A compressed report may carry a BOM too.
    if out.starts_with(b"\xef\xbb\xbf") {
        out.drain(..3);
    }
    Ok((Cow::Owned(out), packing))
}

/// UTF-16 with its byte-order mark as a string (unpaired surrogates
/// become U+FFFD).
fn utf16(bytes: &[u8]) -> String {
    let little = bytes.starts_with(&[0xff, 0xfe]);
    let units = bytes[2..].chunks_exact(2).map(|p| {
        if little {
            u16::from_le_bytes([p[0], p[1]])
        } else {
            u16::from_be_bytes([p[0], p[1]])
        }
    });
    char::decode_utf16(units)
        .map(|c| c.unwrap_or(char::REPLACEMENT_CHARACTER))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    const TEXT: &[u8] = b"WORKLOAD REPOSITORY report for\n";

    #[test]
    fn gzip_xz_bom_and_utf16_give_the_text() {
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        gz.write_all(TEXT).unwrap();
        let gz = gz.finish().unwrap();
        assert_eq!(unpack(&gz).unwrap(), (Cow::Borrowed(TEXT), Packing::Gzip));
        let mut xz = xz2::write::XzEncoder::new(Vec::new(), 1);
        xz.write_all(TEXT).unwrap();
        let xz = xz.finish().unwrap();
        assert_eq!(unpack(&xz).unwrap().1, Packing::Xz);
        assert_eq!(&*unpack(&xz).unwrap().0, TEXT);
        let bom = [b"\xef\xbb\xbf".as_slice(), TEXT].concat();
        assert_eq!(&*unpack(&bom).unwrap().0, TEXT);
        let mut le = vec![0xff, 0xfe];
        le.extend(TEXT.iter().flat_map(|&b| [b, 0]));
        assert_eq!(unpack(&le).unwrap(), (Cow::Borrowed(TEXT), Packing::Utf16));
        let mut be = vec![0xfe, 0xff];
        be.extend(TEXT.iter().flat_map(|&b| [0, b]));
        assert_eq!(&*unpack(&be).unwrap().0, TEXT);
        assert_eq!(unpack(TEXT).unwrap(), (Cow::Borrowed(TEXT), Packing::Plain));
    }

    #[test]
    fn a_broken_stream_is_named() {
        let e = unpack(&[0x1f, 0x8b, 8, 0, 1, 2, 3]).unwrap_err();
        assert!(
            e.starts_with("it is gzip-compressed and does not decompress"),
            "{e}"
        );
    }
}
