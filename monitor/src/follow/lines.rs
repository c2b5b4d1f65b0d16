//! Blocks of complete lines, cut from what a source gave without a copy, their text UTF-8
//! and the lines that were not named.

/// Complete lines of one source, read at once: a round's lines are handed out in blocks, not
/// one by one, so reading copies each byte once and allocates nothing per line.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Lines {
    /// The source (a path, or `<stdin>`).
    source: String,
    /// The number of the line before the first (lines are numbered from 1).
    before: u32,
    /// The lines, each ended by a line break; as UTF-8, bytes that are not replaced as
    /// [`String::from_utf8_lossy`] replaces them (a line break is never part of a multibyte
    /// sequence, so replacing in a block is replacing in each line).
    text: String,
    /// The lines that were not UTF-8 (their numbers, in order) and why, as
    /// [`Lines::not_utf8`] says: their text is not what was written, so no event is read
    /// from them (two ids that differ in a byte replaced would be one run).
    not_utf8: Vec<(u32, String)>,
}

impl Lines {
    /// The source: a path, or `<stdin>`.
    pub fn source(&self) -> &str {
        &self.source
    }

    /// Each line's number (in its file, from 1) and its text without the line break (`\n`
    /// or `\r\n`).
    pub fn iter(&self) -> LineIter<'_> {
        LineIter {
            rest: &self.text,
            number: self.before,
        }
    }

    /// Writes the place of line `number`, `FILE:LINE`, into `at` (what it held replaced; a
    /// place of the same file before keeps its `FILE:`, only the number is written).
    #[inline]
    pub fn place(&self, number: u32, at: &mut String) {
        let keep = self.source.len() + 1;
        let same = at.len() > keep
            && at.as_bytes()[keep - 1] == b':'
            && at.as_bytes()[..keep - 1] == *self.source.as_bytes();
        if same {
            at.truncate(keep);
        } else {
            at.clear();
            at.push_str(&self.source);
            at.push(':');
        }
        push_decimal(at, number);
    }

    /// Why line `number` is not read: it is not UTF-8 (the byte and its column, as
    /// `check --events` says it); `None` for a line as written.
    #[inline]
    pub fn not_utf8(&self, number: u32) -> Option<&str> {
        if self.not_utf8.is_empty() {
            return None;
        }
        self.not_utf8
            .binary_search_by_key(&number, |(n, _)| *n)
            .ok()
            .map(|i| self.not_utf8[i].1.as_str())
    }

    /// Bytes of the lines, line breaks included.
    pub fn len(&self) -> usize {
        self.text.len()
    }

    /// Whether it holds no line.
    pub fn is_empty(&self) -> bool {
        self.text.is_empty()
    }
}

/// The lines of a [`Lines`] ([`Lines::iter`]).
pub struct LineIter<'a> {
    rest: &'a str,
    number: u32,
}

impl<'a> Iterator for LineIter<'a> {
    type Item = (u32, &'a str);

    #[inline]
    fn next(&mut self) -> Option<(u32, &'a str)> {
        let end = memchr::memchr(b'\n', self.rest.as_bytes())?;
        // A line break is ASCII: both slices are at character boundaries.
        let line = &self.rest[..end];
        self.rest = &self.rest[end + 1..];
        self.number += 1;
        Some((self.number, line.strip_suffix('\r').unwrap_or(line)))
    }
}
/// Appends `n` in decimal.
#[inline]
fn push_decimal(s: &mut String, mut n: u32) {
    let mut digits = [0u8; 10];
    let mut i = digits.len();
    loop {
        i -= 1;
        digits[i] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    // One push of the digits (ASCII), not one per character.
    s.push_str(std::str::from_utf8(&digits[i..]).expect("ASCII digits"));
}

/// Hands out the complete lines at the front of `buf` as one block (keeping the rest);
/// returns their bytes. The block takes `buf`'s bytes without a copy (`buf` takes a spare
/// block's buffer, with the rest).
pub(super) fn cut_lines(
    buf: &mut Vec<u8>,
    name: &str,
    line: &mut u32,
    spare: &mut Vec<Lines>,
    out: &mut Vec<Result<Lines, String>>,
) -> usize {
    let complete = memchr::memrchr(b'\n', buf).map_or(0, |i| i + 1);
    if complete == 0 {
        return 0;
    }
    let mut l = spare.pop().unwrap_or_default();
    l.source.clear();
    l.source.push_str(name);
    l.before = *line;
    *line += memchr::memchr_iter(b'\n', &buf[..complete]).count() as u32;
    let mut rest = std::mem::take(&mut l.text).into_bytes();
    rest.clear();
    rest.extend_from_slice(&buf[complete..]);
    buf.truncate(complete);
    let block = std::mem::replace(buf, rest);
    l.not_utf8.clear();
    l.text = match String::from_utf8(block) {
        Ok(text) => text,
        Err(e) => {
            let bytes = e.as_bytes();
            let mut number = l.before;
            for line in bytes.split_inclusive(|&b| b == b'\n') {
                number += 1;
                if let Err(e) = std::str::from_utf8(line) {
                    let why = multitrace_formats::events::not_utf8(line, e.valid_up_to());
                    l.not_utf8.push((number, why));
                }
            }
            String::from_utf8_lossy(bytes).into_owned()
        }
    };
    out.push(Ok(l));
    complete
}

/// Bytes of the lines in `out`.
pub(super) fn handed(out: &[Result<Lines, String>]) -> usize {
    out.iter().map(|l| l.as_ref().map_or(0, Lines::len)).sum()
}

/// Where a reading of one source stands: its name, the bytes past its last complete line, and
/// the number and end of that line.
pub(super) struct Reading<'a> {
    pub(super) name: &'a str,
    pub(super) partial: &'a mut Vec<u8>,
    pub(super) line: &'a mut u32,
    pub(super) offset: &'a mut u64,
}

/// What [`Reading::read`] got: whether any byte, and whether `out` is over the budget
/// (then it stopped before the end of what the handle holds).
pub(super) struct Got {
    pub(super) bytes: bool,
    pub(super) full: bool,
}

impl Reading<'_> {
    /// Reads `file` to its end, or until `out` holds about `budget` bytes, handing out its
    /// complete lines (read straight into the partial line's buffer: no zeroing, no copy,
    /// which the block then takes).
    pub(super) fn read(
        &mut self,
        file: &mut std::fs::File,
        budget: usize,
        spare: &mut Vec<Lines>,
        out: &mut Vec<Result<Lines, String>>,
    ) -> std::io::Result<Got> {
        use std::io::Read;
        let chunk = budget.clamp(4096, 1 << 20) as u64;
        let mut bytes = false;
        loop {
            if Read::by_ref(file).take(chunk).read_to_end(self.partial)? == 0 {
                return Ok(Got { bytes, full: false });
            }
            bytes = true;
            let used = cut_lines(self.partial, self.name, self.line, spare, out);
            *self.offset += used as u64;
            if handed(out) > budget {
                return Ok(Got { bytes, full: true });
            }
        }
    }

    /// At the end of the input: its last line, without a line break, is complete.
    pub(super) fn last_line(
        &mut self,
        spare: &mut Vec<Lines>,
        out: &mut Vec<Result<Lines, String>>,
    ) {
        if !self.partial.is_empty() {
            self.partial.push(b'\n');
            let used = cut_lines(self.partial, self.name, self.line, spare, out);
            *self.offset += used as u64 - 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    proptest::proptest! {
        /// Blocks of lines (ASCII, multibyte text, bytes that are not UTF-8, CRLF, a last
        /// line without its break): each complete line is handed out as the reader reads it
        /// (its text as UTF-8 with bad bytes replaced line by line, its place, its number),
        /// whether the block is all text or not, and the incomplete rest stays in the buffer.
        #[test]
        fn lines_are_cut_as_read(
            lines in proptest::collection::vec(
                proptest::collection::vec(
                    proptest::sample::select(vec![
                        &b"{\"run\":\"r1\"}"[..], b"a", b"\xc3\xa9", b"\xff", b"\r", b" ", b"\xe2\x82",
                    ]),
                    0..5,
                ),
                0..8,
            ),
            tail in proptest::sample::select(vec![&b""[..], b"{\"run\"", b"\xc3"]),
            reused in proptest::bool::ANY,
            // What the place buffer held before: another file's place, one of the same file.
            stale in proptest::sample::select(vec!["", "stale", "dir:f.jsonl:5:3", "dir:f.jsonl.old:9", "dir:f.jsonl:123456"]),
        ) {
            let lines: Vec<Vec<u8>> = lines.into_iter().map(|parts| parts.concat()).collect();
            let mut buf: Vec<u8> = Vec::new();
            for l in &lines {
                buf.extend_from_slice(l);
                buf.push(b'\n');
            }
            let complete = buf.len();
            buf.extend_from_slice(tail);
            let mut line = 6;
            // A spare block from an earlier round holds other lines.
            let mut spare = if reused {
                vec![Lines { source: "x".into(), before: 1, text: "old\n".into(), not_utf8: Vec::new() }]
            } else {
                Vec::new()
            };
            let mut out = Vec::new();
            let used = cut_lines(&mut buf, "dir:f.jsonl", &mut line, &mut spare, &mut out);
            proptest::prop_assert_eq!(used, complete);
            proptest::prop_assert_eq!(&buf[..], tail);
            // One block, or none when no line is complete.
            proptest::prop_assert_eq!(out.len(), usize::from(!lines.is_empty()));
            let got: Vec<(u32, &str)> = out
                .iter()
                .flat_map(|b| b.as_ref().expect("a block").iter())
                .collect();
            proptest::prop_assert_eq!(got.len(), lines.len());
            let mut at = String::from(stale);
            for (n, ((number, text), want)) in got.iter().zip(&lines).enumerate() {
                let want = want.strip_suffix(b"\r").unwrap_or(want);
                proptest::prop_assert_eq!(*text, &*String::from_utf8_lossy(want));
                proptest::prop_assert_eq!(*number, 7 + n as u32);
                let block = out[0].as_ref().expect("a block");
                proptest::prop_assert_eq!(block.source(), "dir:f.jsonl");
                block.place(*number, &mut at);
                proptest::prop_assert_eq!(&at, &format!("dir:f.jsonl:{}", 7 + n));
            }
            proptest::prop_assert_eq!(line, 6 + lines.len() as u32);
        }
    }
}
