//! WAIT lines read with a memory of the previous one.
//!
//! A trace repeats itself: thousands of consecutive WAIT lines carry the
//! same cursor, the same event name and the same parameter names in the
//! same order (`file#=`, `block#=`, `blocks=`, `obj#=`, `tim=`); only the
//! numbers change. [`record::parse_wait`] finds every one of those
//! delimiters again on every line (about 1,100 instructions a line of the
//! I/O-heavy pylatencymap fixture, half the parse time). [`WaitReader`]
//! remembers the previous line's cursor text, event name and raw key of
//! each parameter position and checks the new line against them with a
//! few word compares; where the check fails it takes the general path for
//! that piece and remembers the new text.
//!
//! The result is by construction the one [`record::parse_wait`] gives
//! (each shortcut stands for the exact search it skips: a remembered
//! text contains no byte that search stops at, so finding it in place
//! means the search would stop right after it), and a property test holds
//! the two equal on random line sequences.
//!
//! [`record::parse_wait`]: crate::record::parse_wait

use crate::lexer::{digits_exact, find_byte, parse_int_prefix, parse_u64_prefix};
use crate::record::{apply_param, param_role, param_value, parse_wait, trim_key, Role, Wait};

/// Parameter positions remembered (WAIT lines have at most 3 parameters,
/// `obj#` and `tim`; a few more for odd layouts).
const SLOTS: usize = 8;

/// Up to 16 bytes of text as two little-endian words and their masks,
/// compared in place against a line.
#[derive(Debug, Clone, Copy, Default)]
struct Pattern {
    words: [u64; 2],
    masks: [u64; 2],
    /// Bytes; 0 means nothing remembered (never matches).
    len: usize,
}

impl Pattern {
    /// `text` if it fits in 16 bytes, else the empty pattern.
    fn new(text: &[u8]) -> Self {
        if text.is_empty() || text.len() > 16 {
            return Self::default();
        }
        let mut b = [0u8; 16];
        b[..text.len()].copy_from_slice(text);
        let mut m = [0u8; 16];
        m[..text.len()].fill(0xff);
        let w =
            |x: &[u8; 16], k: usize| u64::from_le_bytes(x[8 * k..8 * k + 8].try_into().unwrap());
        Self {
            words: [w(&b, 0), w(&b, 1)],
            masks: [w(&m, 0), w(&m, 1)],
            len: text.len(),
        }
    }

    /// Whether `s[at..at + len]` is the text. Needs 8 (or, for a text over
    /// 8 bytes, 16) bytes of `s` from `at`; with fewer it answers no.
    #[inline(always)]
    fn at(&self, s: &[u8], at: usize) -> bool {
        if self.len == 0 {
            return false;
        }
        let word = |k: usize| -> Option<u64> {
            let b = s.get(at + 8 * k..at + 8 * k + 8)?;
            Some(u64::from_le_bytes(b.try_into().ok()?))
        };
        let Some(w0) = word(0) else { return false };
        if (w0 ^ self.words[0]) & self.masks[0] != 0 {
            return false;
        }
        if self.len <= 8 {
            return true;
        }
        match word(1) {
            Some(w1) => (w1 ^ self.words[1]) & self.masks[1] == 0,
            None => false,
        }
    }
}

/// One remembered parameter position: the raw key text up to and with
/// its `=`, and what the key means.
#[derive(Debug, Clone, Copy)]
struct Slot {
    key: Pattern,
    role: Role,
    /// Digits of the previous value here (0: not a plain run of 1 to 16).
    digits: usize,
}

/// Line shapes remembered: consecutive WAIT lines often alternate between
/// two events (`SQL*Net message to client` / `from client`) or cycle
/// through a few (the trctools traces have six), each with its own
/// parameter names.
pub(crate) const SHAPES: usize = 8;

/// What the last WAIT line of one event name looked like.
#[derive(Debug, Clone)]
struct Shape {
    /// ` nam='<name>'` (empty: unused).
    name_text: Vec<u8>,
    /// Its first 16 bytes (fewer when shorter) and the next 16: word
    /// compares that turn most other shapes down, and for a name text of
    /// at most 32 bytes (names up to 25 characters, most of them) answer
    /// without comparing `name_text` itself (a `memcmp` call).
    head: Pattern,
    tail: Pattern,
    slots: [Slot; SLOTS],
}

impl Default for Shape {
    fn default() -> Self {
        Self {
            name_text: Vec::new(),
            head: Pattern::default(),
            tail: Pattern::default(),
            slots: [Slot {
                key: Pattern::default(),
                role: Role::Param,
                digits: 0,
            }; SLOTS],
        }
    }
}

/// Which remembered shape a line was read with: the caller may keep
/// what it derives from the event name (its id) per shape `index`, valid
/// while `fresh` is false (the shape then still holds the name it held
/// at the last line that reported it).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ShapeUse {
    /// Shape slot, below [`SHAPES`].
    pub index: usize,
    /// The shape's name is new since the last line reported with it.
    pub fresh: bool,
}

/// Reads WAIT lines (the text after `WAIT #`) as [`parse_wait`] does,
/// faster on runs of alike lines. One per trace file; allocates only
/// when a shape takes a longer event name than it held.
#[derive(Debug, Clone, Default)]
pub struct WaitReader {
    /// Previous cursor's digits and its `:`.
    cursor_text: Pattern,
    cursor: u64,
    shapes: [Shape; SHAPES],
    /// Shape of the previous line, tried first.
    last: usize,
    /// Shape to give to the next new name (round robin).
    victim: usize,
    /// Per shape: its name changed and no line has reported it since.
    fresh: [bool; SHAPES],
}

impl WaitReader {
    /// Parses the text after `WAIT #`: the [`Wait`] and the shape it was
    /// read with (`None` for a line read by [`parse_wait`] itself). `None`
    /// where [`parse_wait`] gives `None`.
    #[cfg(test)]
    pub fn read<'a>(&mut self, rest: &'a [u8]) -> Option<(Wait<'a>, Option<ShapeUse>)> {
        let mut w = Wait::default();
        let shape = self.read_into(rest, &mut w)?;
        Some((w, shape))
    }

    /// [`WaitReader::read`] into `w` (left as it was where `None` is
    /// returned). The parser keeps the `Wait` where it is written: moving
    /// it out as a return value read its `Option` fields back as 16-byte
    /// words right after they were stored as two 8-byte halves, a
    /// store-forwarding stall that `perf annotate` showed as a tenth of
    /// the WAIT line time.
    #[inline]
    pub fn read_into<'a>(
        &mut self,
        rest: &'a [u8],
        out: &mut Wait<'a>,
    ) -> Option<Option<ShapeUse>> {
        // Cursor: the remembered digits followed by `:` mean the same
        // number (`parse_u64_prefix` stops at the `:`).
        let (cursor, n) = if self.cursor_text.at(rest, 0) {
            (self.cursor, self.cursor_text.len - 1)
        } else {
            let (c, n) = parse_u64_prefix(rest);
            if n == 0 || rest.get(n) != Some(&b':') {
                return None;
            }
            // Digits and `:`; a cursor of 16 or more digits is not kept.
            self.cursor_text = Pattern::new(&rest[..=n]);
            self.cursor = c;
            (c, n)
        };
        let s = &rest[n + 1..];
        // Event name: ` nam='<a remembered name>'` in place means
        // `parse_wait` takes the ` nam='` branch and finds the closing
        // quote right after the name (the name holds no quote).
        let held = |sh: &Shape| {
            let n = sh.name_text.len();
            sh.head.at(s, 0)
                && match n {
                    0 => false,
                    1..=16 => true,
                    17..=32 => sh.tail.at(s, 16),
                    _ => s.starts_with(&sh.name_text),
                }
        };
        let found = if held(&self.shapes[self.last]) {
            Some(self.last)
        } else {
            (0..SHAPES).find(|&j| j != self.last && held(&self.shapes[j]))
        };
        let idx = match found {
            Some(j) => j,
            None => {
                if !s.starts_with(b" nam='") {
                    // Layouts without the usual blank: the general reader.
                    *out = parse_wait(rest)?;
                    return Some(None);
                }
                let q = find_byte(s, 6, b'\'');
                if q == s.len() {
                    return None;
                }
                let j = self.victim;
                self.victim = (j + 1) % SHAPES;
                let sh = &mut self.shapes[j];
                *sh = Shape {
                    name_text: std::mem::take(&mut sh.name_text),
                    ..Shape::default()
                };
                sh.name_text.clear();
                sh.name_text.extend_from_slice(&s[..=q]);
                sh.head = Pattern::new(&s[..=q.min(15)]);
                sh.tail = Pattern::new(s.get(16..=q).unwrap_or_default());
                self.fresh[j] = true;
                j
            }
        };
        self.last = idx;
        let sh = &mut self.shapes[idx];
        let q = sh.name_text.len() - 1;
        let (name, s) = (&s[6..q], &s[q + 1..]);
        let Some(s) = s.strip_prefix(b" ela=") else {
            *out = parse_wait(rest)?;
            return Some(None);
        };
        // ` 977 `: blank, digits, blank is what `parse_int_prefix` reads as
        // 977 ending before the second blank (up to 18 digits cannot
        // overflow); anything else goes to it. (Its length varies from
        // line to line, so remembering it, as for the parameters, missed
        // more often than it hit.)
        let (ela, used) = match param_value(s, 1) {
            (Some(v), e) if s.first() == Some(&b' ') && s.get(1) != Some(&b'-') && e > 1 => (v, e),
            _ => parse_int_prefix(s)?,
        };
        let w = out;
        *w = Wait {
            cursor,
            name,
            ela,
            ..Wait::default()
        };
        // The `key=value` pairs as `parse_wait` reads them, with the key
        // of each position checked against this shape's first.
        let n = s.len();
        let mut i = used;
        let mut pos = 0;
        let mut slot = 0;
        while i < n {
            i += 1;
            let ks = i;
            let remembered = sh.slots.get(slot).filter(|sl| sl.key.at(s, ks));
            let (role, vs) = match remembered {
                Some(sl) => (sl.role, ks + sl.key.len),
                None => {
                    let eq = find_byte(s, ks, b'=');
                    if eq >= n {
                        break;
                    }
                    let role = param_role(trim_key(&s[ks..eq]));
                    if let Some(sl) = sh.slots.get_mut(slot) {
                        *sl = Slot {
                            key: Pattern::new(&s[ks..=eq]),
                            role,
                            digits: 0,
                        };
                    }
                    (role, eq + 1)
                }
            };
            let (val, e) = value(&mut sh.slots, slot, s, vs);
            slot += 1;
            i = e;
            apply_param(w, role, val, &mut pos);
        }
        let fresh = std::mem::take(&mut self.fresh[idx]);
        Some(Some(ShapeUse { index: idx, fresh }))
    }
}

/// The value of parameter position `slot` starting at `vs` and where it
/// ends, as [`param_value`] reads it. The previous line's number of digits
/// at this position is tried first ([`digits_exact`]: a value of that many
/// digits followed by a blank or the end is what `param_value` reads too);
/// then `param_value`, whose length is remembered.
#[inline(always)]
fn value(slots: &mut [Slot; SLOTS], slot: usize, s: &[u8], vs: usize) -> (Option<i64>, usize) {
    let Some(sl) = slots.get_mut(slot) else {
        return param_value(s, vs);
    };
    if sl.digits > 0 {
        if let Some(v) = digits_exact(s, vs, sl.digits, b' ') {
            return (Some(v as i64), vs + sl.digits);
        }
    }
    let (val, e) = param_value(s, vs);
    sl.digits = if val.is_some() {
        plain_digits(s, vs, e)
    } else {
        0
    };
    (val, e)
}

/// `e - vs` when `s[vs..e]` is a run of 1 to 16 digits (what
/// [`digits_exact`] can check again), else 0.
#[inline]
fn plain_digits(s: &[u8], vs: usize, e: usize) -> usize {
    let ok = (1..=16).contains(&(e.wrapping_sub(vs)))
        && s.get(vs..e)
            .is_some_and(|d| d.iter().all(u8::is_ascii_digit));
    if ok {
        e - vs
    } else {
        0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn patterns_match_in_place_only() {
        let p = Pattern::new(b"file#=");
        assert!(p.at(b" file#=7 block#=1", 1));
        assert!(!p.at(b" file#=7", 1), "fewer than 8 bytes left");
        assert!(!p.at(b" files=7 block#=1", 1));
        let p = Pattern::new(b"block cnt=");
        assert!(p.at(b"x block cnt=16 obj#=1", 2));
        assert!(!p.at(b"x block cnt=16", 2));
        assert!(!p.at(b"x block cnx=16 obj#=1", 2));
        assert!(!Pattern::new(b"").at(b"anything at all", 0));
        assert!(!Pattern::new(b"100*mode+namespace=").at(b"100*mode+namespace=1 obj#=2", 0));
    }

    #[test]
    fn reads_like_parse_wait_across_changing_lines() {
        let lines: &[&[u8]] = &[
            b"46929157733848: nam='db file sequential read' ela= 977 file#=7 block#=29618220 blocks=1 obj#=82015 tim=1377520823036634",
            b"46929157733848: nam='db file sequential read' ela= 12 file#=7 block#=2 blocks=1 obj#=-1 tim=1377520823036640",
            b"46929157733849: nam='db file sequential read' ela= 12 file#=7 block#=2 blocks=1 obj#=-1 tim=1377520823036640",
            b"4692915773384: nam='db file sequential reads' ela= 12 file#=7 block#=2 blocks=1 obj#=-1 tim=1",
            b"0: nam='SQL*Net message to client' ela= 2 driver id=1650815232 #bytes=1 p3=0 obj#=-1 tim=5",
            b"0: nam='SQL*Net message to client' ela= 2 driver id=1650815232 #bytes=1 p3=0 obj#=-1 tim=5",
            b"0: nam='SQL*Net message to client' ela= 2 driver id=x #bytes=1 p3=0 obj#=-1 tim=5",
            b"0: nam='SQL*Net message to client' ela= 2 driver  id=3 #bytes=1 p3=0 obj#=-1",
            b"1: nam='direct path read' ela=17 file number=4 first dba=1234 block cnt=16 obj#=4294967295 tim=9",
            b"1: nam='direct path read' ela= 17 file number=4 first dba=1234 block cnt=16 obj#=4294967295 tim=9",
            b"1: nam='direct path read' ela= 17 file number=4 first dba=1234 block cnt=16 obj#=4294967295 tim=9",
            b"2: nam='library cache lock' ela= 50 handle address=1 lock address=2 100*mode+namespace=-4288151550 obj#=3 tim=4",
            b"2: nam='library cache lock' ela= 50 handle address=1 lock address=2 100*mode+namespace=-4288151550 obj#=3 tim=4",
            b"3:nam='x' ela= 1 p1=1",
            b"3: nam='x' ela= 1 p1=1 p2= 7 p3=8",
            b"3: nam='x' ela= 1 p1=1 p2=7 p3=8 a=1 b=2 c=3 d=4 e=5 f=6 g=7",
            b"3: nam='x' ela= 1 p1=1 p2=7 p3=8 a=1 b=2 c=3 d=4 e=5 f=6 g=7",
            b"3: nam='x",
            b"3: nam='x' ela=",
            b"3: nam='x' ela= -",
            b"99999999999999999999: nam='x' ela= 1 tim=99999999999999999999",
            b"99999999999999999999: nam='x' ela= 1 tim=99999999999999999999",
            b": nam='x' ela= 1",
            b"5: nam='' ela= 1 =2  =3",
            b"5: nam='' ela= 1 =2  =3",
        ];
        let mut r = WaitReader::default();
        for (k, l) in lines.iter().enumerate() {
            let got = r.read(l);
            assert_eq!(
                got.map(|g| g.0),
                parse_wait(l),
                "line {k}: {}",
                String::from_utf8_lossy(l)
            );
        }
        // Shapes: a new name is fresh once, alternating names keep theirs.
        let mut r = WaitReader::default();
        let use_of = |r: &mut WaitReader, l: &[u8]| r.read(l).and_then(|g| g.1);
        let (a, b) = (lines[0], lines[4]);
        for (line, index, fresh) in [
            (a, 0, true),
            (a, 0, false),
            (b, 1, true),
            (a, 0, false),
            (b, 1, false),
        ] {
            assert_eq!(use_of(&mut r, line), Some(ShapeUse { index, fresh }));
        }
        assert_eq!(use_of(&mut r, lines[13]), None, "read by parse_wait");
    }

    /// A WAIT line (after `WAIT #`) from pieces that repeat, so runs of
    /// alike lines and small changes between them both occur.
    fn wait_line() -> impl proptest::strategy::Strategy<Value = Vec<u8>> {
        use proptest::prelude::*;
        let piece = prop_oneof![
            Just(&b" file#="[..]),
            Just(&b" block#="[..]),
            Just(&b" blocks="[..]),
            Just(&b" block cnt="[..]),
            Just(&b" obj#="[..]),
            Just(&b" tim="[..]),
            Just(&b" driver id="[..]),
            Just(&b" 100*mode+namespace="[..]),
            Just(&b"  ="[..]),
            Just(&b"="[..]),
            Just(&b" "[..]),
            Just(&b"7"[..]),
            Just(&b"-1"[..]),
            Just(&b"4294967295"[..]),
            Just(&b"1377520823036634"[..]),
            Just(&b"99999999999999999999"[..]),
            Just(&b"12ab"[..]),
            Just(&b"'"[..]),
        ];
        let head = prop_oneof![
            Just(&b"46929157733848: nam='db file sequential read' ela= "[..]),
            Just(&b"0: nam='SQL*Net message to client' ela= "[..]),
            Just(&b"0: nam='SQL*Net message from client' ela= "[..]),
            Just(&b"0: nam='a' ela= "[..]),
            Just(&b"0: nam='b' ela= "[..]),
            Just(&b"0: nam='c' ela= "[..]),
            Just(&b"46929157733848: nam='db file sequential reads' ela= "[..]),
            Just(&b"4692915773384: nam='db file sequential read' ela= "[..]),
            Just(&b"1234567890123456: nam='x' ela= "[..]),
            Just(&b"0: nam='' ela="[..]),
            Just(&b"0:nam='x' ela= "[..]),
            Just(&b"0: nam='x' ela="[..]),
            Just(&b"0: nam='x"[..]),
            Just(&b"x: nam='x' ela= 1"[..]),
        ];
        (head, prop::collection::vec(piece, 0..16))
            .prop_map(|(h, p)| [h.to_vec(), p.concat()].concat())
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(300))]
        /// Over random sequences of lines the reader gives what
        /// `parse_wait` gives for each, and a shape that is not fresh holds
        /// the name it last reported.
        #[test]
        fn the_reader_agrees_with_parse_wait(
            lines in proptest::collection::vec(wait_line(), 1..24),
            repeat in proptest::collection::vec(0usize..3, 1..24),
        ) {
            let mut r = WaitReader::default();
            let mut names: Vec<Option<Vec<u8>>> = vec![None; SHAPES];
            for (l, k) in lines.iter().zip(repeat.iter().cycle()) {
                for _ in 0..=*k {
                    let got = r.read(l);
                    let want = parse_wait(l);
                    proptest::prop_assert_eq!(got.map(|g| g.0), want);
                    if let Some((w, Some(u))) = got {
                        if !u.fresh {
                            proptest::prop_assert_eq!(Some(w.name), names[u.index].as_deref());
                        }
                        names[u.index] = Some(w.name.to_vec());
                    }
                }
            }
        }
    }
}
