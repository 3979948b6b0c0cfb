//! Byte-level scanning: line splitting and number parsing.
//!
//! A trace can be gigabytes long and its lines are short, so this layer works
//! on borrowed byte slices and never allocates per line: lines come out of
//! one reusable buffer ([`LineReader`]), fields are sub-slices of the line and
//! numbers are parsed in place. Nothing here panics on malformed input:
//! parsers return `None` and overflow saturates.

use std::io::{self, Read};

/// Longest line kept whole; the rest of a longer line is dropped (counted).
pub const MAX_LINE: usize = 1 << 20;

const READ_CHUNK: usize = 256 * 1024;

/// Finds the newlines. The memchr crate's AVX2 searcher held directly
/// where the CPU has AVX2: `memchr::memchr` dispatches through a function
/// pointer and sets its vectors up again on every call, which on lines of
/// 20 to 130 bytes cost about as much as the search (about 40 of the 85
/// instructions a line on the trctools fixtures, measured with callgrind).
#[derive(Clone, Copy)]
enum Newline {
    #[cfg(target_arch = "x86_64")]
    Avx2(memchr::arch::x86_64::avx2::memchr::One),
    Any,
}

impl Newline {
    fn new() -> Self {
        #[cfg(target_arch = "x86_64")]
        if let Some(one) = memchr::arch::x86_64::avx2::memchr::One::new(b'\n') {
            return Newline::Avx2(one);
        }
        Newline::Any
    }

    #[inline(always)]
    fn find(self, s: &[u8]) -> Option<usize> {
        match self {
            #[cfg(target_arch = "x86_64")]
            Newline::Avx2(one) => one.find(s),
            Newline::Any => memchr::memchr(b'\n', s),
        }
    }
}

/// Streams lines out of any reader with one reusable buffer.
///
/// Memory stays at about `MAX_LINE + READ_CHUNK` whatever the input size.
/// The trailing `\n` and a `\r` before it are removed.
pub struct LineReader<R> {
    inner: R,
    buf: Vec<u8>,
    start: usize,
    end: usize,
    eof: bool,
    newline: Newline,
    /// Dropping the rest of an over-long line until its newline.
    skipping: bool,
    /// Lines cut at [`MAX_LINE`].
    pub truncated: u64,
    /// Bytes read from `inner`.
    pub bytes: u64,
}

impl<R: Read> LineReader<R> {
    /// Wraps a reader.
    pub fn new(inner: R) -> Self {
        Self {
            inner,
            buf: vec![0; MAX_LINE + READ_CHUNK],
            start: 0,
            end: 0,
            eof: false,
            newline: Newline::new(),
            skipping: false,
            truncated: 0,
            bytes: 0,
        }
    }

    /// Calls `f` for every line, in order. Stops at end of input or at the
    /// first read error.
    pub fn for_each_line(&mut self, mut f: impl FnMut(&[u8])) -> io::Result<()> {
        loop {
            // Emit all complete lines in the buffer.
            while self.start < self.end {
                let window = &self.buf[self.start..self.end];
                match self.newline.find(window) {
                    Some(i) => {
                        let line_end = self.start + i;
                        if self.skipping {
                            self.skipping = false;
                        } else if line_end - self.start > MAX_LINE {
                            self.truncated += 1;
                            f(trim_cr(&self.buf[self.start..self.start + MAX_LINE]));
                        } else {
                            f(trim_cr(&self.buf[self.start..line_end]));
                        }
                        self.start = line_end + 1;
                    }
                    None => break,
                }
            }
            if self.eof {
                if self.start < self.end && !self.skipping {
                    f(trim_cr(&self.buf[self.start..self.end]));
                }
                self.start = self.end;
                return Ok(());
            }
            // Move the partial line to the front and refill.
            if self.start > 0 {
                self.buf.copy_within(self.start..self.end, 0);
                self.end -= self.start;
                self.start = 0;
            }
            if self.end >= MAX_LINE {
                // An over-long line: keep its first MAX_LINE bytes.
                if !self.skipping {
                    f(trim_cr(&self.buf[..MAX_LINE]));
                    self.truncated += 1;
                }
                self.skipping = true;
                self.end = 0;
            }
            let n = loop {
                match self.inner.read(&mut self.buf[self.end..]) {
                    Ok(n) => break n,
                    Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                    Err(e) => return Err(e),
                }
            };
            if n == 0 {
                self.eof = true;
            }
            self.end += n;
            self.bytes += n as u64;
        }
    }
}

fn trim_cr(line: &[u8]) -> &[u8] {
    match line.last() {
        Some(b'\r') => &line[..line.len() - 1],
        _ => line,
    }
}

/// Eight bytes of `s` from `i`, little-endian; `i + 8 <= s.len()`.
#[inline(always)]
fn load8(s: &[u8], i: usize) -> u64 {
    let mut w = [0u8; 8];
    w.copy_from_slice(&s[i..i + 8]);
    u64::from_le_bytes(w)
}

const POW10: [u64; 9] = [
    1,
    10,
    100,
    1_000,
    10_000,
    100_000,
    1_000_000,
    10_000_000,
    100_000_000,
];

/// The run of ASCII digits of `s` from `i`: its value and where it ends.
/// The value is exact up to 19 digits and wraps beyond (callers that may
/// see more re-parse with saturation).
///
/// SWAR, eight bytes at a time, no branch per digit (a byte loop's
/// `v = v * 10 + d` chain was most of the WAIT-line time): with
/// `x = bytes ^ 0x30..30` a digit byte is 0..=9, and
/// `((x + 0x76..76) | x) & 0x80..80` sets the top bit of every byte above
/// 9 (Bit Twiddling Hacks' `hasmore(x, 9)`; a carry out of a byte only
/// disturbs later bytes, so the lowest set bit still marks the first
/// non-digit). The `k` leading digits are shifted to the top of the word
/// (leading zeros) and combined pairwise by three multiplications (Lemire,
/// "Faster integer parsing", 2018: 2561 = 10·256 + 1, 6553601 = 100·65536
/// + 1, 42949672960001 = 10000·2³² + 1).
#[inline]
pub fn digits(s: &[u8], mut i: usize) -> (u64, usize) {
    const ZEROS: u64 = 0x3030_3030_3030_3030;
    const ADD: u64 = 0x7676_7676_7676_7676;
    const TOP: u64 = 0x8080_8080_8080_8080;
    let mut v: u64 = 0;
    loop {
        if i + 8 > s.len() {
            // Fewer than eight bytes left (a value at the end of a line or
            // a short field): a byte loop, no copy into a padded word.
            while i < s.len() {
                let d = s[i].wrapping_sub(b'0');
                if d > 9 {
                    break;
                }
                v = v.wrapping_mul(10).wrapping_add(d as u64);
                i += 1;
            }
            return (v, i);
        }
        let x = load8(s, i) ^ ZEROS;
        let nd = (x.wrapping_add(ADD) | x) & TOP;
        let k = if nd == 0 {
            8
        } else {
            (nd.trailing_zeros() / 8) as usize
        };
        if k == 0 {
            return (v, i);
        }
        v = v.wrapping_mul(POW10[k]).wrapping_add(combine(x, k));
        i += k;
        if k < 8 {
            return (v, i);
        }
    }
}

/// The value of the `k` (1 to 8) leading digits of `x` (eight bytes
/// little-endian, each already `^ 0x30`): see [`digits`].
#[inline(always)]
fn combine(x: u64, k: usize) -> u64 {
    let mut w = x << (64 - 8 * k as u32);
    w = (w.wrapping_mul(2561) >> 8) & 0x00FF_00FF_00FF_00FF;
    w = (w.wrapping_mul(6_553_601) >> 16) & 0x0000_FFFF_0000_FFFF;
    w.wrapping_mul(42_949_672_960_001) >> 32
}

/// The value of `s[i..i + len]` when those `len` (1 to 16) bytes are all
/// ASCII digits and the byte after them is `stop` or the end of `s`;
/// `None` otherwise, and when fewer than 8 (for `len` over 8: 16) bytes
/// of `s` start at `i`. Where it answers, [`digits`] from `i` gives the
/// same value and stops at `i + len`.
///
/// For a caller that knows the length to expect (the previous line's):
/// the end of the value then comes from `len`, checked by a branch the
/// CPU predicts, not from the position of the first non-digit, so the
/// next field's position does not wait for this field's bytes to load.
#[inline(always)]
pub fn digits_exact(s: &[u8], i: usize, len: usize, stop: u8) -> Option<u64> {
    const ZEROS: u64 = 0x3030_3030_3030_3030;
    const ADD: u64 = 0x7676_7676_7676_7676;
    const TOP: u64 = 0x8080_8080_8080_8080;
    if !(1..=16).contains(&len) || s.len() < i + len.max(8) {
        return None;
    }
    match s.get(i + len) {
        None => {}
        Some(&b) if b == stop => {}
        Some(_) => return None,
    }
    // Non-digit bytes get their top bit set (see `digits`); `want` is the
    // top bits of the bytes that must be digits in each word.
    if len == 1 {
        // One digit (file#=7, blocks=1): no word arithmetic.
        let d = s[i].wrapping_sub(b'0');
        return (d <= 9).then_some(d as u64);
    }
    let lead = len.min(8);
    let want = |k: usize| {
        if k == 8 {
            TOP
        } else {
            TOP & ((1u64 << (8 * k)) - 1)
        }
    };
    let x = load8(s, i) ^ ZEROS;
    if (x.wrapping_add(ADD) | x) & want(lead) != 0 {
        return None;
    }
    let v = combine(x, lead);
    if len <= 8 {
        return Some(v);
    }
    let rest = len - 8;
    if s.len() < i + 16 {
        return None;
    }
    let y = load8(s, i + 8) ^ ZEROS;
    if (y.wrapping_add(ADD) | y) & want(rest) != 0 {
        return None;
    }
    Some(v * POW10[rest] + combine(y, rest))
}

/// Parses a signed decimal integer at the start of `s` (after optional
/// blanks). Returns the value and the number of bytes consumed, or `None`
/// when no digit follows. Overflow saturates.
#[inline]
pub fn parse_int_prefix(s: &[u8]) -> Option<(i64, usize)> {
    let mut i = 0;
    while i < s.len() && s[i] == b' ' {
        i += 1;
    }
    let neg = i < s.len() && s[i] == b'-';
    if neg {
        i += 1;
    }
    let digits_start = i;
    let (x, end) = digits(s, i);
    if end == digits_start {
        return None;
    }
    // Up to 18 digits cannot overflow an i64; beyond, saturate.
    let v = if end - digits_start <= 18 {
        x as i64
    } else {
        s[digits_start..end].iter().fold(0i64, |v, &b| {
            v.saturating_mul(10).saturating_add((b - b'0') as i64)
        })
    };
    let i = end;
    Some((if neg { -v } else { v }, i))
}

/// Parses a whole slice as a signed integer (blanks around it allowed).
#[inline]
pub fn parse_int(s: &[u8]) -> Option<i64> {
    let (v, n) = parse_int_prefix(s)?;
    if s[n..].iter().all(|&b| b == b' ') {
        Some(v)
    } else {
        None
    }
}

/// Parses an unsigned cursor number such as the `123` of `#123:`.
#[inline]
pub fn parse_u64_prefix(s: &[u8]) -> (u64, usize) {
    let (v, end) = digits(s, 0);
    if end <= 19 {
        return (v, end);
    }
    // 19 digits cannot overflow a u64; beyond, saturate.
    let v = s[..end].iter().fold(0u64, |v, &b| {
        v.saturating_mul(10).saturating_add((b - b'0') as u64)
    });
    (v, end)
}

/// Position of the first `byte` in `s` at or after `from`, or `s.len()`.
///
/// For the short spans of a trace line (a key of 3 to 10 bytes) this beats
/// both a byte loop and memchr's call overhead: it tests 8 bytes at a time
/// with the classic SWAR zero-byte test (Mycroft's `haszero`: for
/// `t = x ^ splat(byte)`, `(t - 0x01..01) & !t & 0x80..80` is non-zero iff
/// some byte of `t` is zero, and its lowest set bit marks the first one).
#[inline]
pub fn find_byte(s: &[u8], from: usize, byte: u8) -> usize {
    const LO: u64 = 0x0101_0101_0101_0101;
    const HI: u64 = 0x8080_8080_8080_8080;
    let splat = LO.wrapping_mul(byte as u64);
    let mut i = from;
    while i + 8 <= s.len() {
        let mut w = [0u8; 8];
        w.copy_from_slice(&s[i..i + 8]);
        let t = u64::from_le_bytes(w) ^ splat;
        let z = t.wrapping_sub(LO) & !t & HI;
        if z != 0 {
            return i + (z.trailing_zeros() / 8) as usize;
        }
        i += 8;
    }
    while i < s.len() && s[i] != byte {
        i += 1;
    }
    i
}

/// Trims ASCII blanks at both ends.
#[inline]
pub fn trim(s: &[u8]) -> &[u8] {
    let mut a = 0;
    let mut b = s.len();
    while a < b && s[a].is_ascii_whitespace() {
        a += 1;
    }
    while b > a && s[b - 1].is_ascii_whitespace() {
        b -= 1;
    }
    &s[a..b]
}

/// Iterates over `key=value` pairs separated by `sep` (`,` in call lines,
/// ` ` in PARSING IN CURSOR lines). A pair without `=` yields an empty value.
pub fn pairs(s: &[u8], sep: u8) -> impl Iterator<Item = (&[u8], &[u8])> {
    s.split(move |&b| b == sep)
        .filter(|p| !p.is_empty())
        .map(|p| match memchr::memchr(b'=', p) {
            Some(i) => (trim(&p[..i]), &p[i + 1..]),
            None => (trim(p), &p[p.len()..]),
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn find_byte_agrees_with_a_scan() {
        let s = b"file#=7 block#=29618220 blocks=1 obj#=82015 tim=1377520823036634";
        for from in 0..s.len() {
            for b in [b'=', b' ', b'#', b'x', 0x80, 0] {
                let want = s[from..]
                    .iter()
                    .position(|&c| c == b)
                    .map_or(s.len(), |p| from + p);
                assert_eq!(find_byte(s, from, b), want, "{from} {b}");
            }
        }
    }

    fn lines_of(data: &[u8]) -> Vec<Vec<u8>> {
        let mut out = Vec::new();
        LineReader::new(data)
            .for_each_line(|l| out.push(l.to_vec()))
            .unwrap();
        out
    }

    #[test]
    fn splits_lines_lf_crlf_and_unterminated() {
        let l = lines_of(b"a\r\nb\n\nc");
        assert_eq!(
            l,
            vec![b"a".to_vec(), b"b".to_vec(), b"".to_vec(), b"c".to_vec()]
        );
    }

    #[test]
    fn cuts_over_long_lines() {
        let mut data = vec![b'x'; MAX_LINE + 10];
        data.extend_from_slice(b"\nnext\n");
        let mut r = LineReader::new(&data[..]);
        let mut out = Vec::new();
        r.for_each_line(|l| out.push(l.len())).unwrap();
        assert_eq!(out, vec![MAX_LINE, 4]);
        assert_eq!(r.truncated, 1);
    }

    #[test]
    fn parses_numbers() {
        assert_eq!(parse_int_prefix(b" 335 file"), Some((335, 4)));
        assert_eq!(parse_int_prefix(b"-4288151550"), Some((-4288151550, 11)));
        assert_eq!(parse_int_prefix(b"x"), None);
        assert_eq!(parse_int_prefix(b"-"), None);
        assert_eq!(parse_int(b"99999999999999999999999"), Some(i64::MAX));
        assert_eq!(parse_int(b"60 68979"), None);
        assert_eq!(parse_u64_prefix(b"139623166535832:"), (139623166535832, 15));
        assert_eq!(parse_u64_prefix(b"99999999999999999999999"), (u64::MAX, 23));
    }

    #[test]
    fn exact_length_digits_agree_with_digits() {
        let cases: &[&[u8]] = &[
            b"7 x",
            b"7",
            b"12345678 tim=1",
            b"1234567890123456",
            b"1234567890123456 ",
            b"12345678901234567",
            b"123a5678 12345678",
            b"00000000000000001 ",
            b"-1 aaaaaaaa",
            b"1 2 3 4 5 6 7 8 9",
            b"9,9,9,9,9,9",
            b"",
        ];
        for c in cases {
            for i in 0..=c.len() {
                for len in 0..=18 {
                    for stop in [b' ', b','] {
                        let (v, e) = digits(c, i);
                        let whole = e == i + len && (e == c.len() || c[e] == stop);
                        let room =
                            c.len() >= i + if len > 8 { 16 } else { 8 } && (1..=16).contains(&len);
                        let got = digits_exact(c, i, len, stop);
                        if whole && room {
                            assert_eq!(got, Some(v), "{:?} {i} {len}", String::from_utf8_lossy(c));
                        } else {
                            assert_eq!(got, None, "{:?} {i} {len}", String::from_utf8_lossy(c));
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn swar_digits_agree_with_a_byte_loop() {
        let mut cases: Vec<Vec<u8>> = Vec::new();
        let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
        for len in 0..=20 {
            for tail in [&b""[..], b" ", b"=", b"x1", b"/", b":", b"\xff9", b"\x009"] {
                x = x
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                let mut v: Vec<u8> = (0..len)
                    .map(|k| b'0' + ((x >> (k % 60)) % 10) as u8)
                    .collect();
                v.extend_from_slice(tail);
                cases.push(v);
            }
        }
        for b in 0..=255u8 {
            cases.push(vec![b'7', b, b'3']);
        }
        for c in &cases {
            for from in 0..=c.len() {
                let end = c[from..]
                    .iter()
                    .position(|b| !b.is_ascii_digit())
                    .map_or(c.len(), |p| from + p);
                let want = c[from..end].iter().fold(0u64, |v, &b| {
                    v.wrapping_mul(10).wrapping_add((b - b'0') as u64)
                });
                assert_eq!(
                    digits(c, from),
                    (want, end),
                    "{:?} from {from}",
                    String::from_utf8_lossy(c)
                );
            }
        }
    }
}
