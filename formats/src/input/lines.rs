//! JSON Lines streams, cut into chunks of whole lines.
//!
//! The thread that reads a stream only cuts it ([`Cutter`]): it reads large blocks, finds the
//! line breaks (memchr), refuses a line longer than the limit before holding more of it than
//! the limit and one read, and hands out chunks of whole lines with the number of their first
//! line. The workers then validate UTF-8 and parse their chunk ([`split_chunk`]), so reading
//! is not the bottleneck of a batch and the positions of errors stay exact (file, line,
//! column).

use memchr::{memchr, memchr_iter, memrchr};
use std::io::{BufRead, Read};

/// Default longest JSON Lines line: 256 MiB.
pub const DEFAULT_MAX_LINE_BYTES: u64 = 256 << 20;

/// Most bytes in a chunk (a longer line is a chunk of its own).
pub const CHUNK_BYTES: usize = 64 << 10;

/// Most lines in a chunk: with the window of a batch, this bounds the records waiting for the
/// sink when lines are short.
pub const CHUNK_LINES: usize = 256;

/// Bytes asked of the reader at a time.
const READ_BYTES: usize = 64 << 10;

/// What [`read_line_bounded`] read.
#[derive(Debug, PartialEq, Eq)]
pub enum LineRead {
    /// End of input.
    End,
    /// A line (in the buffer, with its line break if any).
    Line,
    /// A line longer than the limit: the buffer holds its first bytes.
    TooLong,
}

/// Reads one line into `buf` (cleared first) without ever holding more than `limit` bytes
/// of it plus one read buffer.
pub fn read_line_bounded(
    reader: &mut dyn BufRead,
    buf: &mut Vec<u8>,
    limit: u64,
) -> std::io::Result<LineRead> {
    buf.clear();
    loop {
        let chunk = match reader.fill_buf() {
            Ok(c) => c,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if chunk.is_empty() {
            return Ok(if buf.is_empty() {
                LineRead::End
            } else {
                LineRead::Line
            });
        }
        let (take, done) = match chunk.iter().position(|&b| b == b'\n') {
            Some(i) => (i + 1, true),
            None => (chunk.len(), false),
        };
        buf.extend_from_slice(&chunk[..take]);
        reader.consume(take);
        let content = buf.len() - usize::from(buf.last() == Some(&b'\n'));
        let content = content - usize::from(content > 0 && buf[content - 1] == b'\r');
        if content as u64 > limit {
            return Ok(LineRead::TooLong);
        }
        if done {
            return Ok(LineRead::Line);
        }
    }
}

/// Whether a line (with its line break, if any) is longer than `limit` bytes without its
/// line break (`\n` or `\r\n`), as [`read_line_bounded`] counts.
fn too_long(line: &[u8], limit: u64) -> bool {
    let mut n = line.len() - usize::from(line.last() == Some(&b'\n'));
    n -= usize::from(n > 0 && line[n - 1] == b'\r');
    n as u64 > limit
}

/// What a [`Cutter`] hands out.
#[derive(Debug)]
pub enum Cut {
    /// Whole lines (the last one may lack its line break at the end of the input).
    Lines {
        /// The number of the first line (from 1).
        first_line: usize,
        /// The lines.
        bytes: Vec<u8>,
    },
    /// Line `line` is longer than the limit; the rest of the input is not read.
    TooLong {
        /// Its number.
        line: usize,
    },
    /// Reading failed in line `line`; the rest of the input is not read.
    Failed {
        /// The line being read.
        line: usize,
        /// Why.
        error: std::io::Error,
    },
    /// The end of the input.
    End,
}

/// Cuts a byte stream into chunks of whole lines (at most [`CHUNK_LINES`] lines, and
/// [`CHUNK_BYTES`] bytes unless one line is longer), never holding more of one line than the
/// limit and one read.
pub struct Cutter {
    reader: Box<dyn Read + Send>,
    /// Whether reads may return less than asked before the end (a pipe, a terminal): a chunk
    /// is then handed out as soon as a read ends with whole lines, so that records follow a
    /// slow writer.
    interactive: bool,
    /// Bytes read: `pending[start..]` is not handed out yet.
    pending: Vec<u8>,
    start: usize,
    /// The number of the line that starts at `start`.
    line: usize,
    /// The last read returned less than asked.
    short: bool,
    eof: bool,
    /// What comes after the lines handed out last (an error), then nothing.
    deferred: Option<Cut>,
    done: bool,
    limit: u64,
    /// Most lines and bytes in a chunk ([`CHUNK_LINES`], [`CHUNK_BYTES`]).
    chunk_lines: usize,
    chunk_bytes: usize,
}

impl Cutter {
    /// A cutter of `reader`'s lines of at most `limit` bytes; `interactive`: see the field.
    pub fn new(reader: Box<dyn Read + Send>, interactive: bool, limit: u64) -> Self {
        Cutter {
            reader,
            interactive,
            pending: Vec::new(),
            start: 0,
            line: 1,
            short: false,
            eof: false,
            deferred: None,
            done: false,
            limit,
            chunk_lines: CHUNK_LINES,
            chunk_bytes: CHUNK_BYTES,
        }
    }

    /// The same cutter with other chunk sizes (at least one line and one byte).
    pub fn with_chunks(mut self, lines: usize, bytes: usize) -> Self {
        (self.chunk_lines, self.chunk_bytes) = (lines.max(1), bytes.max(1));
        self
    }

    /// Whether nothing more can come (known without reading).
    pub fn finished(&self) -> bool {
        self.done || (self.eof && self.start == self.pending.len() && self.deferred.is_none())
    }

    /// The next chunk, error or end.
    pub fn next_cut(&mut self) -> Cut {
        if let Some(cut) = self.deferred.take() {
            return self.stop(cut);
        }
        if self.done {
            return Cut::End;
        }
        let (mut lines, mut cut, mut pos) = (0, self.start, self.start);
        loop {
            while lines < self.chunk_lines && cut - self.start < self.chunk_bytes {
                let Some(i) = memchr(b'\n', &self.pending[pos..]) else {
                    break;
                };
                let end = pos + i + 1;
                if too_long(&self.pending[cut..end], self.limit) {
                    return self.cut_before(
                        cut,
                        lines,
                        Cut::TooLong {
                            line: self.line + lines,
                        },
                    );
                }
                (lines, cut, pos) = (lines + 1, end, end);
            }
            if lines == self.chunk_lines || cut - self.start >= self.chunk_bytes {
                return self.hand_out(cut, lines);
            }
            pos = self.pending.len();
            if too_long(&self.pending[cut..], self.limit) {
                return self.cut_before(
                    cut,
                    lines,
                    Cut::TooLong {
                        line: self.line + lines,
                    },
                );
            }
            if self.eof {
                if cut < self.pending.len() {
                    // The last line, without its line break.
                    (lines, cut) = (lines + 1, self.pending.len());
                }
                if lines == 0 {
                    return self.stop(Cut::End);
                }
                return self.hand_out(cut, lines);
            }
            if lines > 0 && self.interactive && self.short {
                self.short = false;
                return self.hand_out(cut, lines);
            }
            // Read more, after moving what is not handed out to the front.
            if self.start > 0 {
                self.pending.drain(..self.start);
                (cut, pos) = (cut - self.start, pos - self.start);
                self.start = 0;
            }
            let at = self.pending.len();
            let read = if self.interactive {
                self.pending.resize(at + READ_BYTES, 0);
                let read = self.reader.read(&mut self.pending[at..]);
                self.pending.truncate(at + *read.as_ref().unwrap_or(&0));
                read
            } else {
                // A file: `read_to_end` fills the spare capacity without zeroing it first.
                self.pending.reserve(READ_BYTES);
                let read = (&mut self.reader)
                    .take(READ_BYTES as u64)
                    .read_to_end(&mut self.pending);
                if read.is_err() {
                    self.pending.truncate(at);
                }
                read
            };
            match read {
                Ok(0) => self.eof = true,
                Ok(n) => self.short = n < READ_BYTES,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(error) => {
                    let line = self.line + lines;
                    return self.cut_before(cut, lines, Cut::Failed { line, error });
                }
            }
        }
    }

    /// Hands out `pending[start..cut]`, `lines` lines.
    fn hand_out(&mut self, cut: usize, lines: usize) -> Cut {
        let bytes = self.pending[self.start..cut].to_vec();
        let first_line = self.line;
        (self.start, self.line) = (cut, self.line + lines);
        Cut::Lines { first_line, bytes }
    }

    /// Hands out the `lines` whole lines before `cut`, if any, then `then`.
    fn cut_before(&mut self, cut: usize, lines: usize, then: Cut) -> Cut {
        if lines == 0 {
            return self.stop(then);
        }
        self.deferred = Some(then);
        self.hand_out(cut, lines)
    }

    /// `last`, and nothing more.
    fn stop(&mut self, last: Cut) -> Cut {
        self.done = true;
        self.pending = Vec::new();
        self.start = 0;
        last
    }
}

/// Invalid UTF-8 in a chunk: where, and the byte.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BadText {
    /// Line number (from 1).
    pub line: usize,
    /// Column (characters, from 1).
    pub column: usize,
    /// The first invalid byte.
    pub byte: u8,
}

/// The lines of a chunk whose first line is `first_line`: the text of every line before the
/// first invalid UTF-8, as one `&str` to split ([`lines_of`]), and where that invalid UTF-8
/// is (the stream stops there).
pub fn split_chunk(bytes: &[u8], first_line: usize) -> (&str, Option<BadText>) {
    match std::str::from_utf8(bytes) {
        Ok(text) => (text, None),
        Err(e) => {
            let valid = e.valid_up_to();
            let line_start = memrchr(b'\n', &bytes[..valid]).map_or(0, |i| i + 1);
            let text = std::str::from_utf8(&bytes[..line_start]).unwrap_or_default();
            let line = first_line + memchr_iter(b'\n', &bytes[..line_start]).count();
            let column = std::str::from_utf8(&bytes[line_start..valid])
                .map_or(valid - line_start, |t| t.chars().count())
                + 1;
            let byte = bytes.get(valid).copied().unwrap_or(0);
            (text, Some(BadText { line, column, byte }))
        }
    }
}

/// The lines of `text` that are not blank, numbered from `first_line`, without their line
/// break and trailing whitespace.
pub fn lines_of(text: &str, first_line: usize) -> impl Iterator<Item = (usize, &str)> {
    text.split_inclusive('\n')
        .zip(first_line..)
        .filter(|(l, _)| !l.trim().is_empty())
        .map(|(l, n)| (n, l.trim_end()))
}

/// A reader handing out at most `step` bytes per read, like a pipe: lines cut across reads,
/// for the tests of every line reader.
#[cfg(test)]
pub(crate) struct Trickle {
    data: Vec<u8>,
    at: usize,
    step: usize,
}

#[cfg(test)]
impl Trickle {
    /// `data`, `step` bytes at a time (at least one).
    pub(crate) fn new(data: Vec<u8>, step: usize) -> Trickle {
        Trickle {
            data,
            at: 0,
            step: step.max(1),
        }
    }
}

#[cfg(test)]
impl Read for Trickle {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.step.min(buf.len()).min(self.data.len() - self.at);
        buf[..n].copy_from_slice(&self.data[self.at..self.at + n]);
        self.at += n;
        Ok(n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(data: &[u8], step: usize, limit: u64) -> Vec<(LineRead, Vec<u8>)> {
        let mut r = std::io::BufReader::with_capacity(4, Trickle::new(data.to_vec(), step));
        let mut out = Vec::new();
        let mut buf = Vec::new();
        loop {
            let read = read_line_bounded(&mut r, &mut buf, limit).unwrap();
            let stop = read != LineRead::Line;
            out.push((read, buf.clone()));
            if stop {
                return out;
            }
        }
    }

    #[test]
    fn bounded_lines_split_like_read_line_and_stop_past_the_limit() {
        let data = b"ab\r\n\ncdefg\nhi";
        for step in [1, 3, 64] {
            let got = lines(data, step, 5);
            let want: Vec<(LineRead, Vec<u8>)> = vec![
                (LineRead::Line, b"ab\r\n".to_vec()),
                (LineRead::Line, b"\n".to_vec()),
                (LineRead::Line, b"cdefg\n".to_vec()),
                (LineRead::Line, b"hi".to_vec()),
                (LineRead::End, Vec::new()),
            ];
            assert_eq!(got, want, "step {step}");
            // A limit of 4: `cdefg` is too long, and no more than the limit and one read
            // buffer is held.
            let got = lines(data, step, 4);
            assert_eq!(got.len(), 3, "step {step}");
            assert_eq!(got[2].0, LineRead::TooLong);
            assert!(got[2].1.len() <= 4 + 4 && got[2].1.starts_with(b"cde"));
        }
        // An endless line is refused after the limit, not read forever.
        let mut endless = std::io::BufReader::new(std::io::repeat(b'x'));
        let mut buf = Vec::new();
        let read = read_line_bounded(&mut endless, &mut buf, 100_000).unwrap();
        assert_eq!(read, LineRead::TooLong);
        assert!(buf.len() <= 100_000 + 8192, "{}", buf.len());
    }

    proptest::proptest! {
        /// Chunks hold whole lines, numbered from 1 without gaps, within the chunk limits
        /// (one longer line alone), and put together they are the input up to the first line
        /// longer than the limit, which is the one refused.
        #[test]
        fn chunks_are_the_input_cut_at_line_breaks_within_the_limits(
            lines in proptest::collection::vec("[a-c\\r]{0,12}", 0..60),
            last_break in proptest::bool::ANY,
            step in 1usize..40,
            interactive in proptest::bool::ANY,
            chunk_lines in 1usize..6,
            chunk_bytes in 1usize..50,
            limit in 0u64..14,
        ) {
            let mut data = lines.join("\n").into_bytes();
            if last_break && !lines.is_empty() {
                data.push(b'\n');
            }
            let reader = Trickle::new(data.clone(), step);
            let mut cutter = Cutter::new(Box::new(reader), interactive, limit)
                .with_chunks(chunk_lines, chunk_bytes);
            let (mut joined, mut next_line) = (Vec::new(), 1);
            let refused = loop {
                match cutter.next_cut() {
                    Cut::Lines { first_line, bytes } => {
                        proptest::prop_assert_eq!(first_line, next_line);
                        let n = bytes.split_inclusive(|&b| b == b'\n').count();
                        proptest::prop_assert!(n >= 1 && n <= chunk_lines);
                        proptest::prop_assert!(bytes.len() <= chunk_bytes + 13 || n == 1);
                        proptest::prop_assert!(bytes.ends_with(b"\n") || joined.len() + bytes.len() == data.len());
                        next_line += n;
                        joined.extend_from_slice(&bytes);
                    }
                    Cut::TooLong { line } => break Some(line),
                    Cut::End => break None,
                    Cut::Failed { error, .. } => panic!("{error}"),
                }
            };
            proptest::prop_assert!(cutter.finished());
            // The reference: read_line_bounded, line by line.
            let mut r = std::io::BufReader::with_capacity(3, data.as_slice());
            let (mut buf, mut want, mut line) = (Vec::new(), Vec::new(), 0);
            let want_refused = loop {
                line += 1;
                match read_line_bounded(&mut r, &mut buf, limit).unwrap() {
                    LineRead::Line => want.extend_from_slice(&buf),
                    LineRead::TooLong => break Some(line),
                    LineRead::End => break None,
                }
            };
            proptest::prop_assert_eq!(refused, want_refused);
            proptest::prop_assert_eq!(joined, want);
        }
    }
}
