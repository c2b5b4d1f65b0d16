//! The input of an event file in large blocks: whole lines found with memchr and handed out
//! in place (no copy, no allocation per line), the block read again only when a line goes
//! past its end.
//!
//! [`Blocks`] is also a [`BufRead`], so that every line the fast path does not take (the last
//! line without a line break, a line longer than the limit, a read error) is read by the
//! one line reader ([`crate::input::read_line_bounded`]) exactly as before: the fast path
//! never decides anything about such a line.

use memchr::memchr;
use std::io::{BufRead, Read};
use std::ops::Range;

/// Bytes read at a time (a block grows only for a line longer than it).
const BLOCK_BYTES: usize = 256 << 10;

/// A reader handing out whole lines of its block in place.
pub(super) struct Blocks {
    inner: Box<dyn BufRead + Send>,
    buf: Vec<u8>,
    /// The bytes not handed out yet: `buf[pos..end]`.
    pos: usize,
    end: usize,
    eof: bool,
    /// A read error met while looking for a line, handed to the next [`BufRead::fill_buf`].
    error: Option<std::io::Error>,
}

impl Blocks {
    pub(super) fn new(inner: Box<dyn BufRead + Send>) -> Blocks {
        Blocks {
            inner,
            buf: Vec::new(),
            pos: 0,
            end: 0,
            eof: false,
            error: None,
        }
    }

    /// The bytes of the block (a range from [`Blocks::take_line`] indexes them).
    #[inline]
    pub(super) fn block(&self) -> &[u8] {
        &self.buf
    }

    /// Reads more after `buf[pos..end]` (moved to the front first); false at the end of the
    /// input or on a read error (kept for [`BufRead::fill_buf`]).
    fn read_more(&mut self) -> bool {
        if self.eof || self.error.is_some() {
            return false;
        }
        if self.pos > 0 {
            self.buf.copy_within(self.pos..self.end, 0);
            self.end -= self.pos;
            self.pos = 0;
        }
        if self.end == self.buf.len() {
            let grown = (self.buf.len() * 2).max(BLOCK_BYTES);
            self.buf.resize(grown, 0);
        }
        loop {
            match self.inner.read(&mut self.buf[self.end..]) {
                Ok(0) => {
                    self.eof = true;
                    return false;
                }
                Ok(n) => {
                    self.end += n;
                    return true;
                }
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(e) => {
                    self.error = Some(e);
                    return false;
                }
            }
        }
    }

    /// The next line (with its `\n`) when it is whole in the input and its content (without
    /// `\n` or `\r\n`) is at most `limit` bytes, taken (the range indexes [`Blocks::block`]
    /// until the next call); `None` leaves it for [`crate::input::read_line_bounded`].
    #[inline]
    pub(super) fn take_line(&mut self, limit: u64) -> Option<Range<usize>> {
        loop {
            if let Some(i) = memchr(b'\n', &self.buf[self.pos..self.end]) {
                let line = self.pos..self.pos + i + 1;
                let content = i - usize::from(i > 0 && self.buf[line.start + i - 1] == b'\r');
                if content as u64 > limit {
                    return None;
                }
                self.pos = line.end;
                return Some(line);
            }
            // No line break yet: a line already longer than the limit is the slow path's.
            if (self.end - self.pos) as u64 > limit.saturating_add(1) || !self.read_more() {
                return None;
            }
        }
    }
}

impl Read for Blocks {
    fn read(&mut self, out: &mut [u8]) -> std::io::Result<usize> {
        let have = self.fill_buf()?;
        let n = have.len().min(out.len());
        out[..n].copy_from_slice(&have[..n]);
        self.consume(n);
        Ok(n)
    }
}

impl BufRead for Blocks {
    fn fill_buf(&mut self) -> std::io::Result<&[u8]> {
        if self.pos == self.end {
            if let Some(e) = self.error.take() {
                return Err(e);
            }
            self.pos = 0;
            self.end = 0;
            self.read_more();
            if let Some(e) = self.error.take() {
                return Err(e);
            }
        }
        Ok(&self.buf[self.pos..self.end])
    }

    fn consume(&mut self, n: usize) {
        self.pos = (self.pos + n).min(self.end);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::input::lines::Trickle;
    use crate::input::{read_line_bounded, LineRead};

    proptest::proptest! {
        /// Lines taken in place, and the rest read by the line reader, are the lines the line
        /// reader alone reads (the same bytes, the same too-long lines).
        #[test]
        fn taken_lines_are_the_line_readers_lines(
            lines in proptest::collection::vec("[a\r]{0,12}", 0..12),
            last_break in proptest::bool::ANY,
            step in 1usize..9,
            limit in 0u64..10,
            take in proptest::collection::vec(proptest::bool::ANY, 0..16),
        ) {
            let mut text = lines.join("\n");
            if last_break {
                text.push('\n');
            }
            let bytes = text.into_bytes();
            let mut want = Vec::new();
            let mut plain = std::io::BufReader::with_capacity(4, std::io::Cursor::new(bytes.clone()));
            let mut buf = Vec::new();
            loop {
                match read_line_bounded(&mut plain, &mut buf, limit).unwrap() {
                    LineRead::End => break,
                    LineRead::Line => want.push(Some(buf.clone())),
                    LineRead::TooLong => {
                        want.push(None);
                        break;
                    }
                }
            }
            let inner = std::io::BufReader::new(Trickle::new(bytes, step));
            let mut blocks = Blocks::new(Box::new(inner));
            let mut got = Vec::new();
            let mut k = 0;
            loop {
                let fast = take.get(k).copied().unwrap_or(true);
                k += 1;
                if fast {
                    if let Some(r) = blocks.take_line(limit) {
                        got.push(Some(blocks.block()[r].to_vec()));
                        continue;
                    }
                }
                match read_line_bounded(&mut blocks, &mut buf, limit).unwrap() {
                    LineRead::End => break,
                    LineRead::Line => got.push(Some(buf.clone())),
                    LineRead::TooLong => {
                        got.push(None);
                        break;
                    }
                }
            }
            proptest::prop_assert_eq!(got, want);
        }
    }
}
