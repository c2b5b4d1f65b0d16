//! The fast path of the XES reader: a scanner over the bytes for the usual shape of a log, which
//! hands anything else back to the full parser (quick-xml, in the parent module).
//!
//! The usual shape is what XES writers produce (OpenXES, pm4py, `multitrace gen --format xes`):
//! an optional byte order mark, `<?xml ...?>` declarations and comments before `<log>`;
//! comments, white space and elements at any depth of the log before, between and after its
//! traces; each `<trace>` a direct child of `<log>`, holding white space and elements only
//! (no comment, CDATA or processing instruction); every tag written `<name attr="value" ...>`,
//! `<name .../>` or `</name>` with names of ASCII letters, digits and `_:.-`, attributes
//! separated by white space and written `name="value"` or `name='value'` (no space around
//! `=`), never twice in one tag, values without `<`.
//!
//! Anything else makes the scanner give up ([`Next::Bail`]): a DOCTYPE, CDATA, text that is not
//! white space, a `<trace/>`, a nested `<trace>`, bytes that are not UTF-8, a value that does
//! not normalize (an unknown entity), an element missing its `key` or `value`, a trace over
//! the event cap or over [`MAX_TRACE_BYTES`], a file that ends early, a read error. The reader
//! then reads the file again with the full parser and skips the traces the scanner already
//! gave, so every error record comes from the full parser, with its message and position, and
//! each trace the scanner gives is the one the full parser gives: same events, same lines (the
//! line of the `>` that ends the event's start tag), same values (normalized by quick-xml's
//! own function whenever they hold `&`, `\t`, `\n`, `\r` or a byte that is not ASCII). The
//! unit tests check that on generated logs with random departures from the usual shape.
//!
//! Why it is faster: the bytes are read in large blocks and looked at once (memchr for `<` and
//! the end of a trace), nothing is copied but the values kept, and the usual `<date>`
//! (`YYYY-MM-DDTHH:MM:SS[.f][Z|±HH:MM]`) is read by [`parse_timestamp`], which works on the
//! bytes in 64-bit arithmetic for every format.

use super::options::{XesOptions, XesOrder};
use crate::events::{parse_timestamp, OrderKey, OrderKeyError};
use quick_xml::events::attributes::Attribute;
use quick_xml::name::QName;
use quick_xml::XmlVersion;
use std::borrow::Cow;
use std::io::Read;

/// The largest trace (in bytes) the scanner holds in memory; a larger one goes to the full
/// parser, which streams it.
pub(super) const MAX_TRACE_BYTES: usize = 64 << 20;

/// The size of the first read (the buffer grows for a trace that does not fit).
pub(super) const BLOCK: usize = 1 << 20;

/// Most attributes of one tag the scanner looks at (more: the full parser).
const MAX_ATTRS: usize = 8;

/// One event as scanned.
#[derive(Debug)]
pub(super) struct ScannedEvent<'b> {
    /// The line of the `>` ending its start tag.
    pub line: u32,
    pub action: Option<Cow<'b, str>>,
    pub lifeline: Option<Cow<'b, str>>,
    pub order: Option<Result<OrderKey, OrderKeyError>>,
}

/// One trace as scanned.
#[derive(Debug)]
pub(super) struct ScannedTrace<'b> {
    /// Its `concept:name` (the last one, as the full parser keeps).
    pub name: Option<Cow<'b, str>>,
    pub events: Vec<ScannedEvent<'b>>,
}

/// What the scanner gives next.
pub(super) enum Next<'b> {
    Trace(ScannedTrace<'b>),
    /// The end of the log, read to the end of the file.
    Done,
    /// Something outside the usual shape (or an error): the full parser takes over.
    Bail,
}

/// Why a unit could not be read from the bytes at hand.
#[derive(Debug, PartialEq, Eq)]
enum Stop {
    /// More bytes are needed.
    More,
    /// Outside the usual shape.
    Bail,
}

type Scan<T> = Result<T, Stop>;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum State {
    /// Before `<log>`.
    Prolog,
    /// Inside `<log>` (the open elements in `stack`).
    Log,
    /// After `</log>`.
    After,
}

/// The scanner of one file.
pub(super) struct Scanner {
    input: Box<dyn Read + Send>,
    buf: Vec<u8>,
    pos: usize,
    end: usize,
    eof: bool,
    /// The line of `buf[pos]`.
    line: u32,
    state: State,
    /// The open elements of the log outside traces (`log` first).
    stack: Vec<Vec<u8>>,
    started: bool,
}

/// Byte classes, looked up in [`CLASS`] by the scanner's loops (one load per byte).
const NAME: u8 = 1;
/// White space as XML has it.
const WS: u8 = 2;
/// What normalizing an attribute value may change: `&`, `\t`, `\n`, `\r`, and (to leave
/// them to quick-xml too) the bytes of characters that are not ASCII.
const SPECIAL: u8 = 4;
/// What ends a value: a quote, or `<` (outside the usual shape).
const STOP: u8 = 8;

const CLASS: [u8; 256] = {
    let mut c = [0u8; 256];
    let mut b = 0;
    while b < 256 {
        let x = b as u8;
        if x.is_ascii_alphanumeric() || matches!(x, b'_' | b':' | b'.' | b'-') {
            c[b] |= NAME;
        }
        if matches!(x, b' ' | b'\t' | b'\r' | b'\n') {
            c[b] |= WS;
        }
        if matches!(x, b'&' | b'\t' | b'\n' | b'\r') || !x.is_ascii() {
            c[b] |= SPECIAL;
        }
        if matches!(x, b'"' | b'\'' | b'<') {
            c[b] |= STOP;
        }
        b += 1;
    }
    c
};

fn is_ws(b: u8) -> bool {
    CLASS[b as usize] & WS != 0
}

fn is_name_start(b: u8) -> bool {
    b.is_ascii_alphabetic() || b == b'_' || b == b':'
}

fn newlines(s: &[u8]) -> u32 {
    // memchr's count is vectorized (a filtered count widens every byte to 64 bits).
    memchr::memchr_iter(b'\n', s).count() as u32
}

/// A tag's attribute: its name and where its value is written (between the quotes).
#[derive(Clone, Copy, Default)]
struct RawAttr<'b> {
    name: &'b [u8],
    start: usize,
    end: usize,
    /// Whether the value is ASCII without `&`, `\t`, `\n` or `\r` (normalizing it changes
    /// nothing).
    plain: bool,
}

/// A start (or empty-element) tag (filled in place: it is too large to be returned per tag).
#[derive(Default)]
struct Tag<'b> {
    name: &'b [u8],
    attrs: [RawAttr<'b>; MAX_ATTRS],
    n: usize,
    empty: bool,
    /// Just after its `>`.
    end: usize,
}

/// A name starting at `s[i]`: its end.
fn name_end(s: &[u8], i: usize) -> Scan<usize> {
    match s.get(i) {
        None => return Err(Stop::More),
        Some(&b) if !is_name_start(b) => return Err(Stop::Bail),
        _ => {}
    }
    match s[i + 1..]
        .iter()
        .position(|&b| CLASS[b as usize] & NAME == 0)
    {
        Some(n) => Ok(i + 1 + n),
        None => Err(Stop::More),
    }
}

/// The start tag at `s[i] == b'<'`, into `tag`.
fn start_tag<'b>(s: &'b [u8], i: usize, tag: &mut Tag<'b>) -> Scan<()> {
    let ne = name_end(s, i + 1)?;
    tag.name = &s[i + 1..ne];
    tag.n = 0;
    tag.empty = false;
    let mut j = ne;
    loop {
        let ws = j;
        j += s[j..]
            .iter()
            .position(|&b| !is_ws(b))
            .unwrap_or(s.len() - j);
        match s.get(j) {
            None => return Err(Stop::More),
            Some(b'>') => {
                tag.end = j + 1;
                return Ok(());
            }
            Some(b'/') => {
                return match s.get(j + 1) {
                    None => Err(Stop::More),
                    Some(b'>') => {
                        tag.empty = true;
                        tag.end = j + 2;
                        Ok(())
                    }
                    _ => Err(Stop::Bail),
                };
            }
            _ if j == ws || tag.n == MAX_ATTRS => return Err(Stop::Bail),
            _ => {}
        }
        let an = name_end(s, j)?;
        let name = &s[j..an];
        if s[an] != b'=' {
            return Err(Stop::Bail);
        }
        let q = *s.get(an + 1).ok_or(Stop::More)?;
        if q != b'"' && q != b'\'' {
            return Err(Stop::Bail);
        }
        let v = an + 2;
        // Values are short: a loop that also classifies the bytes beats memchr.
        let mut k = v;
        let mut seen = 0u8;
        loop {
            let &b = s.get(k).ok_or(Stop::More)?;
            let c = CLASS[b as usize];
            if c & STOP != 0 {
                if b == q {
                    break;
                }
                if b == b'<' {
                    return Err(Stop::Bail);
                }
            }
            seen |= c;
            k += 1;
        }
        let plain = seen & SPECIAL == 0;
        if tag.attrs[..tag.n].iter().any(|a| a.name == name) {
            return Err(Stop::Bail);
        }
        tag.attrs[tag.n] = RawAttr {
            name,
            start: v,
            end: k,
            plain,
        };
        tag.n += 1;
        j = k + 1;
    }
}

/// The end tag at `s[i..]` (`</`): its name and the index after its `>`.
fn end_tag(s: &[u8], i: usize) -> Scan<(&[u8], usize)> {
    let ne = name_end(s, i + 2)?;
    let mut j = ne;
    while j < s.len() && is_ws(s[j]) {
        j += 1;
    }
    match s.get(j) {
        None => Err(Stop::More),
        Some(b'>') => Ok((&s[i + 2..ne], j + 1)),
        _ => Err(Stop::Bail),
    }
}

/// An attribute's value in `text` (the tag's bytes, checked as UTF-8), normalized as the full
/// parser normalizes it (quick-xml's own function whenever the value holds anything it could
/// change); `Bail` if it does not normalize.
fn value<'b>(text: &'b str, a: &RawAttr<'_>) -> Scan<Cow<'b, str>> {
    let v = text.get(a.start..a.end).ok_or(Stop::Bail)?;
    if a.plain {
        return Ok(Cow::Borrowed(v));
    }
    // The normalization looks at the value only.
    let attr = Attribute {
        key: QName("value"),
        value: Cow::Borrowed(v),
    };
    attr.normalized_value(XmlVersion::Implicit1_0)
        .map_err(|_| Stop::Bail)
}

/// The `key` and `value` of an XES attribute element, every attribute checked as the full
/// parser checks them; `Bail` where the full parser reports an error.
fn key_value<'b>(text: &'b str, tag: &Tag<'_>) -> Scan<(Cow<'b, str>, Cow<'b, str>)> {
    let mut key = None;
    let mut val = None;
    for a in &tag.attrs[..tag.n] {
        let v = value(text, a)?;
        match a.name {
            b"key" => key = Some(v),
            b"value" => val = Some(v),
            _ => {}
        }
    }
    match (key, val) {
        (Some(k), Some(v)) => Ok((k, v)),
        (Some(k), None) if matches!(tag.name, b"list" | b"container") => Ok((k, Cow::Borrowed(""))),
        _ => Err(Stop::Bail),
    }
}

/// An order key's value as the full parser reads it.
pub(super) fn order_key(v: &str) -> Result<OrderKey, OrderKeyError> {
    match parse_timestamp(v.trim()) {
        Some(t) => Ok(OrderKey::Time(t)),
        None => OrderKey::parse(v),
    }
}

/// The trace whose `<trace>` tag starts `text` (checked as UTF-8 as a whole, to the first
/// `</trace>`), read to its `</trace>`: the bytes it takes, the newlines in them, and the
/// trace.
fn scan_trace<'b>(
    text: &'b str,
    line0: u32,
    opts: &XesOptions,
) -> Scan<(usize, u32, ScannedTrace<'b>)> {
    let s = text.as_bytes();
    let mut tag = Tag::default();
    start_tag(s, 0, &mut tag)?;
    if tag.name != b"trace" || tag.empty {
        return Err(Stop::Bail);
    }
    let mut i = tag.end;
    let mut counted = 0usize;
    let mut nl = 0u32;
    let mut stack: Vec<&[u8]> = Vec::new();
    let mut trace = ScannedTrace {
        name: None,
        events: Vec::new(),
    };
    let mut current: Option<ScannedEvent<'b>> = None;
    loop {
        let lt = memchr::memchr(b'<', &s[i..]).ok_or(Stop::More)?;
        if !s[i..i + lt].iter().all(|&b| is_ws(b)) {
            return Err(Stop::Bail);
        }
        i += lt;
        match s.get(i + 1) {
            None => return Err(Stop::More),
            Some(b'/') => {
                let (name, next) = end_tag(s, i)?;
                match stack.pop() {
                    None if name == b"trace" => {
                        i = next;
                        break;
                    }
                    Some(open) if open == name => {}
                    _ => return Err(Stop::Bail),
                }
                if stack.is_empty() {
                    if let Some(p) = current.take() {
                        trace.events.push(p);
                    }
                }
                i = next;
                continue;
            }
            Some(b'!' | b'?') => return Err(Stop::Bail),
            _ => {}
        }
        start_tag(s, i, &mut tag)?;
        let depth = stack.len() + 1;
        match (depth, tag.name) {
            (1, b"event") => {
                if trace.events.len() >= opts.max_trace_events {
                    return Err(Stop::Bail);
                }
                nl += newlines(&s[counted..tag.end]);
                counted = tag.end;
                current = Some(ScannedEvent {
                    line: line0 + nl,
                    action: None,
                    lifeline: None,
                    order: None,
                });
            }
            (1, _) => {
                let (k, v) = key_value(text, &tag)?;
                if k == "concept:name" {
                    trace.name = Some(v);
                }
            }
            (2, _) if current.is_some() => {
                let (k, v) = key_value(text, &tag)?;
                let p = current.as_mut().expect("an event");
                if k == opts.action_key.as_str() {
                    p.action = Some(v.clone());
                }
                if opts.lifeline_key.as_deref() == Some(&*k) {
                    p.lifeline = Some(v.clone());
                }
                if let XesOrder::Key(o) = &opts.order {
                    if *o == k {
                        p.order = Some(order_key(&v));
                    }
                }
            }
            _ => {}
        }
        if tag.empty {
            if depth == 1 {
                if let Some(p) = current.take() {
                    trace.events.push(p);
                }
            }
        } else {
            stack.push(tag.name);
        }
        i = tag.end;
    }
    nl += newlines(&s[counted..i]);
    Ok((i, nl, trace))
}

/// What the bytes at the scanner's position hold outside traces.
enum Outside {
    /// Bytes to pass over (white space, a declaration, a comment, a log-level tag).
    Skip(usize),
    /// A `<trace>` starts here.
    Trace,
    /// The end of the file, after `</log>`.
    Done,
}

impl Scanner {
    /// A scanner of `input`, a file's bytes (decompressed), whose first block is `block` bytes
    /// ([`BLOCK`]; small in tests, to cut traces across blocks).
    pub(super) fn with_block(input: Box<dyn Read + Send>, block: usize) -> Self {
        Scanner {
            input,
            buf: vec![0; block.max(16)],
            pos: 0,
            end: 0,
            eof: false,
            line: 1,
            state: State::Prolog,
            stack: Vec::new(),
            started: false,
        }
    }

    /// Reads more bytes, keeping those from `pos` on; `false` when that fails (a read error, or
    /// a unit larger than [`MAX_TRACE_BYTES`]), after which the scanner bails.
    fn refill(&mut self) -> bool {
        if self.pos > 0 {
            self.buf.copy_within(self.pos..self.end, 0);
            self.end -= self.pos;
            self.pos = 0;
        }
        if self.end == self.buf.len() {
            if self.buf.len() >= MAX_TRACE_BYTES {
                return false;
            }
            self.buf.resize(self.buf.len() * 2, 0);
        }
        loop {
            match self.input.read(&mut self.buf[self.end..]) {
                Ok(0) => self.eof = true,
                Ok(n) => self.end += n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(_) => return false,
            }
            return true;
        }
    }

    /// The unit at the position, outside traces.
    fn outside(&mut self) -> Scan<Outside> {
        let s = &self.buf[self.pos..self.end];
        let Some(&first) = s.first() else {
            return if !self.eof {
                Err(Stop::More)
            } else if self.state == State::After {
                Ok(Outside::Done)
            } else {
                Err(Stop::Bail)
            };
        };
        if is_ws(first) {
            return Ok(Outside::Skip(
                s.iter().position(|&b| !is_ws(b)).unwrap_or(s.len()),
            ));
        }
        if first != b'<' {
            return Err(Stop::Bail);
        }
        match s.get(1) {
            None => Err(Stop::More),
            Some(b'!') => {
                if s.len() < 4 {
                    return Err(Stop::More);
                }
                if &s[..4] != b"<!--" {
                    return Err(Stop::Bail);
                }
                // quick-xml ends a comment at the first `-->` after `<!--`.
                let e = memchr::memmem::find(&s[4..], b"-->").ok_or(Stop::More)?;
                std::str::from_utf8(&s[4..4 + e]).map_err(|_| Stop::Bail)?;
                Ok(Outside::Skip(4 + e + 3))
            }
            Some(b'?') => {
                if s.len() < 6 {
                    return Err(Stop::More);
                }
                if self.state != State::Prolog || &s[..5] != b"<?xml" || !is_ws(s[5]) {
                    return Err(Stop::Bail);
                }
                let e = memchr::memmem::find(&s[2..], b"?>").ok_or(Stop::More)?;
                std::str::from_utf8(&s[2..2 + e]).map_err(|_| Stop::Bail)?;
                Ok(Outside::Skip(2 + e + 2))
            }
            Some(b'/') => {
                let (name, next) = end_tag(s, 0)?;
                if self.state != State::Log || self.stack.last().map(Vec::as_slice) != Some(name) {
                    return Err(Stop::Bail);
                }
                self.stack.pop();
                if self.stack.is_empty() {
                    self.state = State::After;
                }
                Ok(Outside::Skip(next))
            }
            Some(_) => {
                let mut tag = Tag::default();
                start_tag(s, 0, &mut tag)?;
                std::str::from_utf8(&s[..tag.end]).map_err(|_| Stop::Bail)?;
                match self.state {
                    State::Prolog if tag.name == b"log" && !tag.empty => {
                        self.state = State::Log;
                    }
                    State::Log if tag.name == b"trace" => {
                        return if tag.empty || self.stack.len() != 1 {
                            Err(Stop::Bail)
                        } else {
                            Ok(Outside::Trace)
                        };
                    }
                    State::Log => {}
                    _ => return Err(Stop::Bail),
                }
                if !tag.empty {
                    self.stack.push(tag.name.to_vec());
                }
                Ok(Outside::Skip(tag.end))
            }
        }
    }

    /// The next trace, the end, or `Bail`.
    pub(super) fn next(&mut self, opts: &XesOptions) -> Next<'_> {
        if !self.started {
            self.started = true;
            while self.end < 3 && !self.eof {
                if !self.refill() {
                    return Next::Bail;
                }
            }
            if self.buf[..self.end].starts_with(&[0xef, 0xbb, 0xbf]) {
                self.pos = 3;
            }
        }
        loop {
            match self.outside() {
                Ok(Outside::Skip(n)) => {
                    self.line += newlines(&self.buf[self.pos..self.pos + n]);
                    self.pos += n;
                }
                Ok(Outside::Trace) => break,
                Ok(Outside::Done) => return Next::Done,
                Err(Stop::More) if !self.eof => {
                    // A unit cut by the block's end is read again whole (`outside` changes
                    // nothing before it has its unit).
                    if !self.refill() {
                        return Next::Bail;
                    }
                }
                Err(_) => return Next::Bail,
            }
        }
        // The trace's bytes, to the first `</trace>`, are read before it is scanned.
        let mut from = 0;
        let known = loop {
            let hay = &self.buf[self.pos + from..self.end];
            if let Some(f) = memchr::memmem::find(hay, b"</trace>") {
                break self.pos + from + f + b"</trace>".len();
            }
            if self.eof {
                return Next::Bail;
            }
            from = (self.end - self.pos).saturating_sub(7);
            if !self.refill() {
                return Next::Bail;
            }
        };
        let Ok(text) = std::str::from_utf8(&self.buf[self.pos..known]) else {
            return Next::Bail;
        };
        match scan_trace(text, self.line, opts) {
            Ok((n, nl, trace)) => {
                self.pos += n;
                self.line += nl;
                Next::Trace(trace)
            }
            Err(_) => Next::Bail,
        }
    }
}
