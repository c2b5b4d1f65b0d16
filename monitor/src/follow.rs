//! Sources of a live stream, followed as they grow (`tail -F`): files (surviving rotation and
//! truncation), directories (new files picked up, in natural order) and standard input.
//!
//! Only complete lines are handed out: a line still being written (no line break yet) waits
//! for the next poll. A position ([`Position`]) is the byte offset after the last line handed
//! out and its line number, so a checkpoint restarts exactly there.

use multitrace_formats::input::natural_cmp;
use serde::{Deserialize, Serialize};
use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};
use std::sync::mpsc::{Receiver, TryRecvError};

/// Where reading of one file stands.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Position {
    /// The file.
    pub path: String,
    /// Bytes consumed (up to the end of the last complete line handed out).
    pub offset: u64,
    /// Lines consumed.
    pub line: u32,
    /// The file's identity (inode) when read, to notice a rotation.
    pub id: u64,
    /// A fingerprint of the file's first bytes (the first [`HEAD`], or all it had when
    /// first read): a file under the name whose first bytes differ is another file, even on
    /// the same inode (removed and created again, or copied and truncated, then grown past
    /// the offset): read from its start, never from the old offset.
    pub head: u64,
    /// How many first bytes `head` covers (0: none yet).
    pub head_len: u32,
}

/// The most first bytes of a file its fingerprint covers ([`Position::head`]).
pub const HEAD: usize = 256;

/// The fingerprint of `bytes` (FNV-1a: not for security, only to tell two files apart).
fn fingerprint(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// The first `n` bytes of the file at `path` (fewer when it is shorter).
fn first_bytes(path: &Path, n: usize) -> Vec<u8> {
    let mut buf = Vec::with_capacity(n);
    if let Ok(f) = File::open(path) {
        let _ = f.take(n as u64).read_to_end(&mut buf);
    }
    buf
}

/// Whether a file found in a followed directory is left out: hidden files (`.name`, which
/// editors and tools write beside a file), temporary names (`*.tmp`, `*.part`, `*.swp`,
/// `name~`): an atomic write's file is read once, under its final name.
fn ignored_name(path: &Path) -> bool {
    let Some(name) = path.file_name().and_then(|n| n.to_str()) else {
        return false;
    };
    name.starts_with('.')
        || name.ends_with('~')
        || [".tmp", ".part", ".swp"]
            .iter()
            .any(|s| name.to_ascii_lowercase().ends_with(s))
}

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

struct Followed {
    pos: Position,
    file: Option<File>,
    partial: Vec<u8>,
    /// Read to its end (not following), or unreadable.
    done: bool,
    /// An error reading it was reported (following: said once, and tried again at each
    /// poll, as a path may be something else for a moment).
    reported: bool,
}

/// Standard input, read by a thread.
struct Stdin {
    rx: Receiver<Vec<u8>>,
    line: u32,
    partial: Vec<u8>,
    done: bool,
}

/// Files and directories followed, and standard input.
pub struct Follower {
    files: Vec<Followed>,
    dirs: Vec<PathBuf>,
    stdin: Option<Stdin>,
    follow: bool,
    /// Blocks handed back ([`Follower::recycle`]): their buffers take the next lines, so
    /// that reading allocates nothing once they are there.
    spare: Vec<Lines>,
    /// Paths never read from a followed directory (the monitor's output and state), by
    /// their canonical form.
    excluded: Vec<PathBuf>,
}

#[cfg(unix)]
fn file_id(m: &std::fs::Metadata) -> u64 {
    use std::os::unix::fs::MetadataExt;
    m.ino()
}

#[cfg(not(unix))]
fn file_id(_: &std::fs::Metadata) -> u64 {
    0
}

impl Follower {
    /// Follows `sources` (`-`: standard input, read by a thread); `follow`: wait for more at
    /// the end of files (else a file is read once to its end). `resume`: positions of a
    /// checkpoint.
    pub fn new(sources: &[PathBuf], follow: bool, resume: &[Position]) -> Follower {
        let mut f = Follower {
            files: Vec::new(),
            dirs: Vec::new(),
            stdin: None,
            follow,
            spare: Vec::new(),
            excluded: Vec::new(),
        };
        for s in sources {
            if s.as_os_str() == "-" {
                let (tx, rx) = std::sync::mpsc::channel();
                std::thread::spawn(move || {
                    let mut stdin = std::io::stdin().lock();
                    let mut buf = vec![0u8; 1 << 16];
                    loop {
                        match stdin.read(&mut buf) {
                            Ok(0) | Err(_) => return,
                            Ok(n) => {
                                if tx.send(buf[..n].to_vec()).is_err() {
                                    return;
                                }
                            }
                        }
                    }
                });
                f.stdin = Some(Stdin {
                    rx,
                    line: 0,
                    partial: Vec::new(),
                    done: false,
                });
            } else if s.is_dir() {
                f.dirs.push(s.clone());
            } else {
                f.add(s);
            }
        }
        for p in resume {
            // The same file named another way (relative, absolute, through a link) is the
            // same source: it goes on from its position, not from its start.
            let same = |x: &Followed| x.pos.path == p.path || same_file(&x.pos.path, &p.path);
            if let Some(x) = f.files.iter_mut().find(|x| same(x)) {
                x.pos = Position {
                    path: std::mem::take(&mut x.pos.path),
                    ..p.clone()
                };
            } else {
                f.files.push(Followed {
                    pos: p.clone(),
                    file: None,
                    partial: Vec::new(),
                    done: false,
                    reported: false,
                });
            }
        }
        f.scan_dirs();
        f
    }

    /// Never reads `paths` (files, or directories and what is under them) from a followed
    /// directory: the monitor's output and state, which a directory source may hold.
    pub fn excluding(mut self, paths: &[&Path]) -> Follower {
        self.excluded = paths
            .iter()
            .map(|p| std::fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf()))
            .collect();
        let excluded = self.excluded.clone();
        self.files.retain(|x| {
            let c =
                std::fs::canonicalize(&x.pos.path).unwrap_or_else(|_| x.pos.path.clone().into());
            !excluded.iter().any(|e| c.starts_with(e))
        });
        self
    }

    fn add(&mut self, path: &Path) {
        let name = path.display().to_string();
        if self.files.iter().any(|x| x.pos.path == name) {
            return;
        }
        self.files.push(Followed {
            pos: Position {
                path: name,
                ..Position::default()
            },
            file: None,
            partial: Vec::new(),
            done: false,
            reported: false,
        });
    }

    fn scan_dirs(&mut self) {
        for d in self.dirs.clone() {
            let Ok(rd) = std::fs::read_dir(&d) else {
                continue;
            };
            let excluded = &self.excluded;
            let mut found: Vec<PathBuf> = rd
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.is_file() && !ignored_name(p))
                .filter(|p| {
                    excluded.is_empty() || {
                        let c = std::fs::canonicalize(p).unwrap_or_else(|_| p.clone());
                        !excluded.iter().any(|e| c.starts_with(e))
                    }
                })
                .collect();
            found.sort_by(|a, b| natural_cmp(&a.to_string_lossy(), &b.to_string_lossy()));
            for p in found {
                self.add(&p);
            }
        }
    }

    /// The positions of every file (for a checkpoint).
    pub fn positions(&self) -> Vec<Position> {
        self.files.iter().map(|x| x.pos.clone()).collect()
    }

    /// Whether every source is read to its end and will not grow.
    pub fn finished(&self) -> bool {
        // Standard input ends at its end; followed files and directories never do.
        let files_done = if self.follow {
            self.files.is_empty() && self.dirs.is_empty()
        } else {
            self.files.iter().all(|x| x.done)
        };
        self.stdin.as_ref().is_none_or(|s| s.done) && files_done
    }

    /// Reads what is available, up to about `budget` bytes, and hands out complete lines, in
    /// blocks. Errors (a file that cannot be opened) are reported as `Err(message)` once.
    pub fn poll(&mut self, budget: usize, out: &mut Vec<Result<Lines, String>>) {
        if self.follow {
            self.scan_dirs();
        }
        self.read(budget, out);
    }

    /// [`Follower::poll`] without looking for new files in the directories (for more lines
    /// of the same round).
    pub fn read(&mut self, budget: usize, out: &mut Vec<Result<Lines, String>>) {
        if let Some(st) = &mut self.stdin {
            loop {
                match st.rx.try_recv() {
                    Ok(bytes) => {
                        st.partial.extend_from_slice(&bytes);
                        cut_lines(
                            &mut st.partial,
                            "<stdin>",
                            &mut st.line,
                            &mut self.spare,
                            out,
                        );
                        if handed(out) > budget {
                            break;
                        }
                    }
                    Err(TryRecvError::Empty) => break,
                    Err(TryRecvError::Disconnected) => {
                        if !st.done {
                            st.done = true;
                            if !st.partial.is_empty() {
                                st.partial.push(b'\n');
                                cut_lines(
                                    &mut st.partial,
                                    "<stdin>",
                                    &mut st.line,
                                    &mut self.spare,
                                    out,
                                );
                            }
                        }
                        break;
                    }
                }
            }
        }
        let follow = self.follow;
        for x in &mut self.files {
            read_file(x, budget, follow, &mut self.spare, out);
        }
    }

    /// Takes back the blocks of the last [`Follower::poll`] (emptying `lines`): their
    /// buffers are reused for the next lines.
    pub fn recycle(&mut self, lines: &mut Vec<Result<Lines, String>>) {
        self.spare.extend(lines.drain(..).filter_map(Result::ok));
    }
}

/// Bytes of the lines in `out`.
fn handed(out: &[Result<Lines, String>]) -> usize {
    out.iter().map(|l| l.as_ref().map_or(0, Lines::len)).sum()
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
fn cut_lines(
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

fn read_file(
    x: &mut Followed,
    budget: usize,
    follow: bool,
    spare: &mut Vec<Lines>,
    out: &mut Vec<Result<Lines, String>>,
) {
    if x.done {
        return;
    }
    let path = PathBuf::from(&x.pos.path);
    if x.file.is_none() {
        if let Ok(m) = std::fs::metadata(&path) {
            if !m.is_file() {
                // A FIFO's open() blocks until a writer comes (SIGTERM would wait with it),
                // and a directory or device is no log: said once, looked at again each poll.
                if !x.reported {
                    out.push(Err(format!(
                        "{}: not a regular file, not read (looked at again while following)",
                        x.pos.path
                    )));
                }
                x.reported = true;
                x.done = !follow;
                return;
            }
        }
        match File::open(&path) {
            Ok(mut f) => {
                let id = f.metadata().map(|m| file_id(&m)).unwrap_or(0);
                let len = f.metadata().map(|m| m.len()).unwrap_or(0);
                let head = (x.pos.head_len > 0)
                    .then(|| first_bytes(&path, x.pos.head_len as usize))
                    .filter(|h| h.len() == x.pos.head_len as usize)
                    .map(|h| fingerprint(&h));
                let other_head = x.pos.head_len > 0 && head != Some(x.pos.head);
                if (x.pos.id != 0 && id != x.pos.id) || len < x.pos.offset || other_head {
                    // Another file under the name (another inode, or other first bytes), or
                    // a truncated one, since the position: read from its start.
                    x.pos.offset = 0;
                    x.pos.line = 0;
                    x.pos.head_len = 0;
                    x.partial.clear();
                }
                if x.pos.head_len < HEAD as u32 {
                    // Its first bytes, as many as it has now (more at the next opening).
                    let h = first_bytes(&path, HEAD);
                    if h.len() as u32 > x.pos.head_len {
                        x.pos.head_len = h.len() as u32;
                        x.pos.head = fingerprint(&h);
                    }
                }
                x.pos.id = id;
                if f.seek(SeekFrom::Start(x.pos.offset + x.partial.len() as u64))
                    .is_err()
                {
                    return;
                }
                x.file = Some(f);
            }
            Err(e) => {
                if !follow {
                    out.push(Err(format!("{}: cannot read: {e}", x.pos.path)));
                    x.done = true;
                }
                return;
            }
        }
    }

    let Some(f) = &mut x.file else { return };
    let chunk = budget.clamp(4096, 1 << 20) as u64;
    loop {
        // Read straight into the partial line's buffer (no zeroing, no copy), which the
        // block then takes.
        match Read::by_ref(f).take(chunk).read_to_end(&mut x.partial) {
            Ok(0) => break,
            Ok(_) => {
                x.reported = false;
                let used = cut_lines(&mut x.partial, &x.pos.path, &mut x.pos.line, spare, out);
                x.pos.offset += used as u64;
                if handed(out) > budget {
                    return;
                }
            }
            Err(e) => {
                // Following, a path may be something else for a moment (a directory while a
                // tool replaces it): said once, and read again when it is a file.
                if !x.reported {
                    out.push(Err(format!("{}: cannot read: {e}", x.pos.path)));
                }
                x.reported = true;
                x.file = None;
                x.done = !follow;
                return;
            }
        }
    }
    // At the end of what the handle holds.
    if !follow {
        if !x.partial.is_empty() {
            // The last line has no line break: it is complete at the end of the input.
            x.partial.push(b'\n');
            let used = cut_lines(&mut x.partial, &x.pos.path, &mut x.pos.line, spare, out);
            x.pos.offset += used as u64 - 1;
        }
        x.file = None;
        x.done = true;
        return;
    }
    // Following: a rotated name or a truncated file is reopened at the next poll (the old
    // handle was read to its end first).
    match std::fs::metadata(&path) {
        Ok(m) if file_id(&m) != x.pos.id || m.len() < x.pos.offset + x.partial.len() as u64 => {
            if file_id(&m) != x.pos.id {
                x.pos.id = 0;
                x.pos.offset = 0;
                x.pos.line = 0;
                x.pos.head_len = 0;
                x.partial.clear();
            }
            x.file = None;
        }
        _ => {}
    }
}

/// Whether two paths name one existing file.
fn same_file(a: &str, b: &str) -> bool {
    match (std::fs::canonicalize(a), std::fs::canonicalize(b)) {
        (Ok(x), Ok(y)) => x == y,
        _ => false,
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

    fn scratch(name: &str) -> PathBuf {
        let d =
            std::env::temp_dir().join(format!("multitrace-follow-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        d
    }

    fn read_all(f: &mut Follower) -> Vec<(String, String)> {
        let mut out = Vec::new();
        f.poll(1 << 20, &mut out);
        out.iter()
            .filter_map(|b| b.as_ref().ok())
            .flat_map(|b| {
                b.iter()
                    .map(move |(_, t)| (b.source().to_string(), t.to_string()))
            })
            .collect()
    }

    /// A followed directory: hidden and temporary names are not read (an atomic write's
    /// file counts once, under its final name), nor are the paths excluded (the monitor's
    /// output and state in it).
    #[test]
    fn a_directory_leaves_out_temporary_names_and_the_monitors_own_files() {
        let d = scratch("dir");
        for name in ["a.jsonl", "b.jsonl.tmp", ".b.jsonl", "c~", "out.jsonl"] {
            std::fs::write(d.join(name), format!("{name}\n")).unwrap();
        }
        std::fs::create_dir_all(d.join("state")).unwrap();
        std::fs::write(d.join("state").join("checkpoint"), "x\n").unwrap();
        let out = d.join("out.jsonl");
        let state = d.join("state");
        let mut f = Follower::new(std::slice::from_ref(&d), true, &[])
            .excluding(&[out.as_path(), state.as_path()]);
        let got: Vec<String> = read_all(&mut f).into_iter().map(|(_, t)| t).collect();
        assert_eq!(got, ["a.jsonl"]);
        // The temporary file renamed to its final name: read once, then.
        std::fs::rename(d.join("b.jsonl.tmp"), d.join("b.jsonl")).unwrap();
        let got: Vec<String> = read_all(&mut f).into_iter().map(|(_, t)| t).collect();
        assert_eq!(got, ["b.jsonl.tmp"]);
        let _ = std::fs::remove_dir_all(&d);
    }

    /// A restart whose file was replaced by another one, of other first bytes, at least as
    /// long (so neither a new inode nor a shorter length need tell): read from its start;
    /// the same file named another way goes on from its position.
    #[test]
    fn a_file_replaced_under_its_name_is_read_from_its_start() {
        let d = scratch("head");
        let p = d.join("events.jsonl");
        std::fs::write(&p, "one\ntwo\n").unwrap();
        let mut f = Follower::new(std::slice::from_ref(&p), false, &[]);
        assert_eq!(read_all(&mut f).len(), 2);
        let mut pos = f.positions();
        // Written again in place (as a copy-truncate then growth may leave it).
        std::fs::write(&p, "ONE\nTWO\nthree\n").unwrap();
        pos[0].id = 0;
        let mut f = Follower::new(std::slice::from_ref(&p), false, &pos);
        let got: Vec<String> = read_all(&mut f).into_iter().map(|(_, t)| t).collect();
        assert_eq!(got, ["ONE", "TWO", "three"]);
        // Named another way (through `..`): the same source, from its position.
        let pos = f.positions();
        std::fs::write(&p, "ONE\nTWO\nthree\nfour\n").unwrap();
        let other = d
            .join("..")
            .join(d.file_name().unwrap())
            .join("events.jsonl");
        let mut f = Follower::new(&[other], false, &pos);
        let got: Vec<String> = read_all(&mut f).into_iter().map(|(_, t)| t).collect();
        assert_eq!(got, ["four"]);
        let _ = std::fs::remove_dir_all(&d);
    }

    /// A followed path that is a FIFO: never opened (its open() would block), said once,
    /// and read when it is a regular file again.
    #[cfg(unix)]
    #[test]
    fn a_fifo_is_reported_once_and_not_opened() {
        let d = scratch("fifo");
        let p = d.join("events.jsonl");
        let spawning = crate::tests::SPAWNING.lock();
        let made = std::process::Command::new("mkfifo").arg(&p).status();
        drop(spawning);
        if !made.is_ok_and(|s| s.success()) {
            return;
        }
        let mut f = Follower::new(std::slice::from_ref(&p), true, &[]);
        let mut out = Vec::new();
        f.poll(1 << 20, &mut out);
        assert_eq!(out.len(), 1);
        assert!(out[0]
            .as_ref()
            .is_err_and(|e| e.contains("not a regular file")));
        out.clear();
        f.poll(1 << 20, &mut out);
        assert!(out.is_empty());
        std::fs::remove_file(&p).unwrap();
        std::fs::write(&p, "one\n").unwrap();
        let got: Vec<String> = read_all(&mut f).into_iter().map(|(_, t)| t).collect();
        assert_eq!(got, ["one"]);
        let _ = std::fs::remove_dir_all(&d);
    }
}
