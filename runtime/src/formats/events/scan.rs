//! The fast path of JSON Lines events: a flat object scanned in place, as bytes, its fields
//! borrowed from the line (no `serde_json::Value`, no allocation, no UTF-8 check of the
//! line: only the strings kept are checked).
//!
//! Exactness: [`scan_bytes`] answers only when its answer is the one the full parser
//! ([`super::read::jsonl_event_full`] of the line read as UTF-8, invalid bytes replaced by
//! U+FFFD as the reader does) would give: the line is one flat JSON object whose values are
//! strings without escapes, integers, `true`, `false` or `null`, the run, action and order
//! fields each appear once, the run id is a string or an integer (of `i64`/`u64`), the action a
//! string and the order key an integer (of `i64`/`u64`) or a string that reads as a key; the
//! strings kept (run, action, order) and any key that is not ASCII are valid UTF-8. Anything
//! else (escapes, nesting, floats, duplicates, a missing field, a bad value) returns `None`,
//! and the caller falls back to the full parser, which also words the error.
//!
//! Why the line is not checked as UTF-8: the structure of a JSON line is ASCII, and an invalid
//! byte (never ASCII) becomes U+FFFD (never ASCII either) when the reader replaces it, so a
//! byte that is not UTF-8 changes the event only inside a string; the ignored strings do not
//! matter, and the kept ones are checked.

use super::key::OrderKey;

/// The fields of an event, borrowed from its line.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Scanned<'a> {
    /// The run id as the full parser gives it (a string's contents, an integer as written).
    pub run: &'a str,
    /// The action.
    pub action: &'a str,
    /// The order key.
    pub order: OrderKey,
}

/// One value, as the scan saw it.
enum Val<'a> {
    Str(&'a [u8]),
    Int(&'a [u8]),
    Other,
}

struct Cur<'a> {
    b: &'a [u8],
    i: usize,
}

impl<'a> Cur<'a> {
    #[inline]
    fn ws(&mut self) {
        // Most lines have no blanks: one test, then the loop.
        if let Some(b' ' | b'\t' | b'\n' | b'\r') = self.b.get(self.i) {
            let rest = &self.b[self.i..];
            let n = rest
                .iter()
                .position(|c| !matches!(c, b' ' | b'\t' | b'\n' | b'\r'))
                .unwrap_or(rest.len());
            self.i += n;
        }
    }

    #[inline]
    fn peek(&self) -> Option<u8> {
        self.b.get(self.i).copied()
    }

    #[inline]
    fn eat(&mut self, c: u8) -> Option<()> {
        (self.peek()? == c).then(|| self.i += 1)
    }

    /// A string without escapes or control characters (its contents, as bytes).
    #[inline]
    fn string(&mut self) -> Option<&'a [u8]> {
        let rest = self.b.get(self.i..)?;
        let (&b'"', body) = rest.split_first()? else {
            return None;
        };
        let n = special(body)?;
        if body[n] != b'"' {
            return None;
        }
        self.i += n + 2;
        Some(&body[..n])
    }

    /// A JSON number (strict grammar); `Int` when it has no fraction or exponent.
    fn number(&mut self) -> Option<Val<'a>> {
        let start = self.i;
        if self.peek() == Some(b'-') {
            self.i += 1;
        }
        let digits = |c: &mut Cur<'_>| {
            let from = c.i;
            while c.peek().is_some_and(|d| d.is_ascii_digit()) {
                c.i += 1;
            }
            c.i - from
        };
        let first = self.peek()?;
        let n = digits(self);
        if n == 0 || (first == b'0' && n > 1) {
            return None;
        }
        let mut int = true;
        if self.peek() == Some(b'.') {
            self.i += 1;
            if digits(self) == 0 {
                return None;
            }
            int = false;
        }
        if matches!(self.peek(), Some(b'e' | b'E')) {
            self.i += 1;
            if matches!(self.peek(), Some(b'+' | b'-')) {
                self.i += 1;
            }
            if digits(self) == 0 {
                return None;
            }
            int = false;
        }
        let text = &self.b[start..self.i];
        // `-0` reads as the integer 0 and is written back as `0`: leave it to the parser.
        Some(if int && text != b"-0" {
            Val::Int(text)
        } else {
            Val::Other
        })
    }

    fn word(&mut self, w: &[u8]) -> Option<Val<'a>> {
        self.b[self.i..].starts_with(w).then(|| {
            self.i += w.len();
            Val::Other
        })
    }

    #[inline]
    fn value(&mut self) -> Option<Val<'a>> {
        match self.peek()? {
            b'"' => self.string().map(Val::Str),
            b't' => self.word(b"true"),
            b'f' => self.word(b"false"),
            b'n' => self.word(b"null"),
            b'-' | b'0'..=b'9' => self.number(),
            _ => None,
        }
    }
}

/// An integer (strict JSON grammar, ASCII digits) as `serde_json` reads it: `i64`, else
/// `u64`, else not an integer (the parser reads it as a float).
fn int_value(text: &[u8]) -> Option<i128> {
    let (neg, digits) = match text.split_first() {
        Some((b'-', rest)) => (true, rest),
        _ => (false, text),
    };
    // 20 digits hold every u64; more never fit.
    if digits.is_empty() || digits.len() > 20 {
        return None;
    }
    if digits.len() <= 18 {
        // Fits an `i64` whatever its digits (most order keys): no wide arithmetic.
        let v = digits
            .iter()
            .fold(0i64, |v, &d| v * 10 + i64::from(d - b'0'));
        return Some(i128::from(if neg { -v } else { v }));
    }
    let mut v: i128 = 0;
    for &d in digits {
        v = v * 10 + i128::from(d - b'0');
    }
    let v = if neg { -v } else { v };
    let fits = i64::try_from(v).is_ok() || u64::try_from(v).is_ok();
    fits.then_some(v)
}

/// Bytes as text when they are valid UTF-8.
#[inline]
fn text(b: &[u8]) -> Option<&str> {
    std::str::from_utf8(b).ok()
}

/// Whether two short strings are equal (a loop: no call for a few bytes).
#[inline]
fn same(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x == y)
}

/// The fields of an event as [`scan_raw`] reads them: the run id (valid UTF-8) and the
/// action (bytes as written, not checked: an action that names a letter is valid, and one that
/// does not is an unknown action, worded from its bytes as the reader replaces them).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct Raw<'a> {
    pub run: &'a [u8],
    pub action: &'a [u8],
    pub order: OrderKey,
}

/// The fields of a flat JSON event line, when the fast path can give exactly the full
/// parser's answer (see the module docs); `None` otherwise.
pub fn scan_flat<'a>(
    text: &'a str,
    run_f: &str,
    action_f: &str,
    order_f: &str,
) -> Option<Scanned<'a>> {
    in_text(text, scan_raw(text.as_bytes(), run_f, action_f, order_f)?)
}

/// [`scan_flat`] with the field names prepared once (what a reader of many lines uses).
pub fn scan_flat_with<'a>(text: &'a str, fields: &FlatFields) -> Option<Scanned<'a>> {
    in_text(text, scan_raw_with(text.as_bytes(), fields)?)
}

/// The fields of `r`, scanned from `text`, as text.
#[inline(always)]
fn in_text<'a>(text: &'a str, r: Raw<'a>) -> Option<Scanned<'a>> {
    // The fields of text are text: sliced at their places (quotes are ASCII, so these are
    // character boundaries), not checked again.
    let at = |b: &[u8]| {
        let from = b.as_ptr() as usize - text.as_ptr() as usize;
        text.get(from..from + b.len())
    };
    Some(Scanned {
        run: at(r.run)?,
        action: at(r.action)?,
        order: r.order,
    })
}

/// [`scan_flat`] of a line as read (bytes, not checked as UTF-8; no line break).
pub fn scan_bytes<'a>(
    line: &'a [u8],
    run_f: &str,
    action_f: &str,
    order_f: &str,
) -> Option<Scanned<'a>> {
    let r = scan_raw(line, run_f, action_f, order_f)?;
    Some(Scanned {
        run: text(r.run)?,
        action: text(r.action)?,
        order: r.order,
    })
}

/// [`scan_bytes`] with the action left as bytes (see [`Raw`]).
#[inline]
pub(super) fn scan_raw<'a>(
    line: &'a [u8],
    run_f: &str,
    action_f: &str,
    order_f: &str,
) -> Option<Raw<'a>> {
    let (run_f, action_f, order_f) = (run_f.as_bytes(), action_f.as_bytes(), order_f.as_bytes());
    let mut buf = [0u8; 3 * MAX_NAME + 14];
    match Heads::on_stack(&mut buf, run_f, action_f, order_f) {
        Some(heads) => canonical(line, &heads),
        None => None,
    }
    .or_else(|| general(line, run_f, action_f, order_f))
}

/// [`scan_raw`] with the field names prepared once ([`FlatFields`]).
#[inline]
pub(super) fn scan_raw_with<'a>(line: &'a [u8], f: &FlatFields) -> Option<Raw<'a>> {
    match &f.heads {
        Some(h) => canonical(line, &h.view()),
        None => None,
    }
    .or_else(|| {
        general(
            line,
            f.run.as_bytes(),
            f.action.as_bytes(),
            f.order.as_bytes(),
        )
    })
}

/// The field names the canonical path takes from [`scan_raw`]'s names hold at most three
/// times this many bytes together (longer ones: only with [`FlatFields`]).
const MAX_NAME: usize = 32;

/// The three field names of events, prepared once for the scan: what the canonical path
/// matches before each value (`{"RUN":"`, `","ACTION":"`, `","ORDER":`).
#[derive(Clone, Debug)]
pub struct FlatFields {
    run: String,
    action: String,
    order: String,
    /// `None` when the canonical path cannot take these names ([`Heads::on_stack`]).
    heads: Option<OwnedHeads>,
}

#[derive(Clone, Debug)]
struct OwnedHeads {
    bytes: Box<[u8]>,
    /// Where the second and third heads start in `bytes`.
    at: [usize; 2],
}

impl OwnedHeads {
    fn view(&self) -> Heads<'_> {
        let (a, rest) = self.bytes.split_at(self.at[0]);
        let (b, c) = rest.split_at(self.at[1] - self.at[0]);
        Heads {
            run: a,
            action: b,
            order: c,
        }
    }
}

impl FlatFields {
    /// The names of the run, action and order fields.
    pub fn new(run: &str, action: &str, order: &str) -> FlatFields {
        let (r, a, o) = (run.as_bytes(), action.as_bytes(), order.as_bytes());
        let heads = Heads::usable(r, a, o).then(|| {
            let mut bytes = vec![0u8; Heads::len(r, a, o)];
            let [x, y, _] = Heads::write(&mut bytes, r, a, o);
            OwnedHeads {
                bytes: bytes.into(),
                at: [x, y],
            }
        });
        FlatFields {
            run: run.to_string(),
            action: action.to_string(),
            order: order.to_string(),
            heads,
        }
    }
}

/// What the canonical path matches before each value.
struct Heads<'a> {
    run: &'a [u8],
    action: &'a [u8],
    order: &'a [u8],
}

impl<'a> Heads<'a> {
    /// Whether the canonical path can take these names: none needs an escape (no quote,
    /// backslash or control character: their bytes in a line are then their bytes as JSON
    /// strings), and they are three different names.
    fn usable(r: &[u8], a: &[u8], o: &[u8]) -> bool {
        let plain = |f: &[u8]| special(f).is_none();
        !same(r, a) && !same(r, o) && !same(a, o) && plain(r) && plain(a) && plain(o)
    }

    /// Writes the three heads into `buf`, one after the other (`{"` RUN `":"`, `,"` ACTION
    /// `":"`, `,"` ORDER `":`; a string's closing quote is read with the string), and gives
    /// the ends of the first two and of the last.
    fn write(buf: &mut [u8], r: &[u8], a: &[u8], o: &[u8]) -> [usize; 3] {
        let mut i = 0;
        let mut put = |x: &[u8]| {
            buf[i..i + x.len()].copy_from_slice(x);
            i += x.len();
            i
        };
        put(b"{\"");
        put(r);
        let run = put(b"\":\"");
        put(b",\"");
        put(a);
        let action = put(b"\":\"");
        put(b",\"");
        put(o);
        [run, action, put(b"\":")]
    }

    /// Bytes [`Heads::write`] needs.
    fn len(r: &[u8], a: &[u8], o: &[u8]) -> usize {
        r.len() + a.len() + o.len() + 14
    }

    /// The heads written into `buf` (when the names are usable and short enough).
    fn on_stack(buf: &'a mut [u8], r: &[u8], a: &[u8], o: &[u8]) -> Option<Heads<'a>> {
        if Heads::len(r, a, o) > buf.len() || !Heads::usable(r, a, o) {
            return None;
        }
        let [x, y, z] = Heads::write(buf, r, a, o);
        Some(Heads {
            run: &buf[..x],
            action: &buf[x..y],
            order: &buf[y..z],
        })
    }
}

/// Whether `b` holds `lit` at `i`; moves past it. Short literals (those of most field names)
/// are compared as two overlapping words.
#[inline(always)]
fn lit(b: &[u8], i: &mut usize, lit: &[u8]) -> bool {
    let Some(x) = b.get(*i..*i + lit.len()) else {
        return false;
    };
    let n = lit.len();
    let equal = if (8..=16).contains(&n) {
        let word = |s: &[u8], at: usize| u64::from_le_bytes(s[at..at + 8].try_into().expect("8"));
        word(x, 0) == word(lit, 0) && word(x, n - 8) == word(lit, n - 8)
    } else {
        x == lit
    };
    *i += n;
    equal
}

/// The place of the first byte of `b` that ends a string without escapes (a quote), or that
/// the canonical path leaves to the general scan (a backslash, a control character): eight
/// bytes at a time.
#[inline(always)]
fn special(b: &[u8]) -> Option<usize> {
    special_in::<false>(b)
}

/// [`special`], and with `ASCII` a byte of 0x80 or more too (one pass where a check of the
/// string's bytes as text would be another).
#[inline(always)]
fn special_in<const ASCII: bool>(b: &[u8]) -> Option<usize> {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let mut i = 0;
    while i + 8 <= b.len() {
        let x = u64::from_le_bytes(b[i..i + 8].try_into().expect("8 bytes"));
        // Bytes equal to a quote or a backslash (zero after the xor), or below 0x20. Each
        // test flags its lowest matching byte exactly (a borrow only runs upwards, from a
        // flagged byte), so the lowest flag of the three is the first such byte; a byte of
        // 0x80 or more flags itself.
        let q = x ^ (ONES * u64::from(b'"'));
        let s = x ^ (ONES * u64::from(b'\\'));
        let high = if ASCII { x } else { 0 };
        let m = ((q.wrapping_sub(ONES) & !q)
            | (s.wrapping_sub(ONES) & !s)
            | (x.wrapping_sub(ONES * 0x20) & !x)
            | high)
            & HIGH;
        if m != 0 {
            return Some(i + (m.trailing_zeros() / 8) as usize);
        }
        i += 8;
    }
    b[i..]
        .iter()
        .position(|&c| c == b'"' || c == b'\\' || c < 0x20 || (ASCII && c >= 0x80))
        .map(|p| i + p)
}

/// The events as `gen` and most loggers write them, `{"RUN":"r","ACTION":"a","ORDER":1}`
/// exactly (no blank, these fields in this order, the run id a string, the order key an
/// integer), read by matching the line piece by piece. `None` for any other line, which
/// [`general`] then reads; when it answers, its answer is the general scan's (the same checks
/// of the same values).
#[inline]
fn canonical<'a>(line: &'a [u8], heads: &Heads<'_>) -> Option<Raw<'a>> {
    let mut i = 0;
    if !lit(line, &mut i, heads.run) {
        return None;
    }
    // An ASCII run id (nearly all) is read in the same pass as its end; any other is checked
    // as text.
    let (run, ascii) = match string_at_in::<true>(line, &mut i) {
        Some(run) => (run, true),
        None => (string_at(line, &mut i)?, false),
    };
    if !lit(line, &mut i, heads.action) {
        return None;
    }
    let action = string_at(line, &mut i)?;
    if !lit(line, &mut i, heads.order) {
        return None;
    }
    // The integer is all that is left but the closing brace, which ends the line (anything
    // else: the general scan).
    let (&last, body) = line.split_last()?;
    if last != b'}' {
        return None;
    }
    let order = json_int(body.get(i..)?)?;
    if !ascii && text(run).is_none() {
        return None;
    }
    Some(Raw {
        run,
        action,
        order: OrderKey::Int(order),
    })
}

/// A string without escapes at `i` (its opening quote read), up to its closing quote; moves
/// past that quote.
#[inline(always)]
fn string_at<'a>(line: &'a [u8], i: &mut usize) -> Option<&'a [u8]> {
    string_at_in::<false>(line, i)
}

/// [`string_at`]; with `ASCII`, `None` also for a string with a byte of 0x80 or more (then
/// `i` is left as it was).
#[inline(always)]
fn string_at_in<'a, const ASCII: bool>(line: &'a [u8], i: &mut usize) -> Option<&'a [u8]> {
    let body = line.get(*i..)?;
    let n = special_in::<ASCII>(body)?;
    if body[n] != b'"' {
        return None;
    }
    *i += n + 1;
    Some(&body[..n])
}

/// `t` as an integer as [`Cur::number`] reads one (`-`, then digits without a leading zero;
/// not `-0`), when it is all of `t` and fits an `i64` or a `u64`.
#[inline(always)]
fn json_int(t: &[u8]) -> Option<i128> {
    let (neg, digits) = match t.split_first() {
        Some((b'-', rest)) => (true, rest),
        _ => (false, t),
    };
    let (&first, _) = digits.split_first()?;
    // A leading zero only alone, and never negative (`-0` reads as a float).
    if first == b'0' && (digits.len() > 1 || neg) {
        return None;
    }
    if digits.len() <= 18 {
        // Fits an `i64` (most order keys): read and checked in one pass.
        let mut v = 0i64;
        for &c in digits {
            let d = c.wrapping_sub(b'0');
            if d > 9 {
                return None;
            }
            v = v * 10 + i64::from(d);
        }
        return Some(i128::from(if neg { -v } else { v }));
    }
    if !digits.iter().all(u8::is_ascii_digit) {
        return None;
    }
    int_value(t)
}

/// The general scan of any flat object (see the module docs).
fn general<'a>(line: &'a [u8], run_f: &[u8], action_f: &[u8], order_f: &[u8]) -> Option<Raw<'a>> {
    let mut c = Cur { b: line, i: 0 };
    c.ws();
    c.eat(b'{')?;
    let (mut run, mut action, mut order) = (None, None, None);
    c.ws();
    if c.peek()? != b'}' {
        loop {
            c.ws();
            let key = c.string()?;
            // A key not UTF-8 could equal a field's name once its bytes are replaced.
            if !key.is_ascii() && text(key).is_none() {
                return None;
            }
            c.ws();
            c.eat(b':')?;
            c.ws();
            let v = c.value()?;
            let slot = if same(key, run_f) {
                &mut run
            } else if same(key, action_f) {
                &mut action
            } else if same(key, order_f) {
                &mut order
            } else {
                c.ws();
                if c.eat(b',').is_some() {
                    continue;
                }
                break;
            };
            if slot.is_some() {
                // A field given twice: the parser keeps the last one; leave it to it.
                return None;
            }
            *slot = Some(v);
            c.ws();
            if c.eat(b',').is_none() {
                break;
            }
        }
    }
    c.eat(b'}')?;
    c.ws();
    if c.i != line.len() {
        return None;
    }
    let run = match run? {
        // Run ids are told apart by their bytes: they must be the text's.
        Val::Str(s) => (s.is_ascii() || text(s).is_some()).then_some(s)?,
        // An integer as written is the parser's `to_string` of it (strict grammar, no `-0`).
        Val::Int(s) => {
            int_value(s)?;
            s
        }
        Val::Other => return None,
    };
    let Val::Str(action) = action? else {
        return None;
    };
    let order = match order? {
        Val::Int(t) => OrderKey::Int(int_value(t)?),
        Val::Str(s) => OrderKey::parse(text(s)?).ok()?,
        Val::Other => return None,
    };
    Some(Raw { run, action, order })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::events::{jsonl_event_full, EventOptions};

    /// Whenever the scan answers, it is the full parser's answer.
    fn agrees(line: &str) -> bool {
        let opts = EventOptions::default();
        let fast = scan_flat(line, "run", "action", "order");
        let (run, body) = jsonl_event_full(line, &opts);
        match fast {
            None => false,
            Some(s) => {
                assert_eq!(Some(s.run.to_string()), run, "{line}");
                let (a, k) = body.expect("the parser reads it too");
                assert_eq!(s.action, a, "{line}");
                assert_eq!(s.order, k, "{line}");
                true
            }
        }
    }

    #[test]
    fn scans_plain_events_as_the_parser_reads_them() {
        for line in [
            r#"{"run":"r1","action":"a!m","order":3}"#,
            r#" { "order" : -7 , "action":"b?m", "run": 12, "x": [1] } "#,
            r#"{"run":"r1","action":"a!m","order":"2024-05-01T12:00:00Z","y":null}"#,
            r#"{"run":"é","action":"a!m","order":18446744073709551615,"z":1.5e3,"t":true}"#,
            r#"{"run":"r","action":"a","order":"1.5"}"#,
        ] {
            assert!(agrees(line) || line.contains('['), "{line}");
        }
    }

    #[test]
    fn leaves_the_unusual_to_the_parser() {
        for line in [
            r#"{"run":"r\"1","action":"a","order":1}"#,
            r#"{"run":"r","action":"a","order":1.5}"#,
            r#"{"run":"r","action":"a","order":-0}"#,
            r#"{"run":"r","action":"a","order":01}"#,
            r#"{"run":"r","run":"s","action":"a","order":1}"#,
            r#"{"run":true,"action":"a","order":1}"#,
            r#"{"run":"r","action":"a"}"#,
            r#"{"run":"r","action":"a","order":1} x"#,
            r#"{"run":"r","action":"a","order":1,}"#,
            r#"{"run":"r","action":"a","order":"soon"}"#,
            r#"{"run":"r","action":"a","order":1e2}"#,
            r#"{"run":"r","action":"a","order":1,"o":{"a":1}}"#,
            r#"{"run":"r","action":"a","order":170141183460469231731687303715884105728}"#,
            "[1]",
            "",
        ] {
            assert_eq!(scan_flat(line, "run", "action", "order"), None, "{line}");
        }
    }

    /// The canonical path with these names, as [`FlatFields`] prepares them.
    fn canonical<'a>(line: &'a [u8], r: &[u8], a: &[u8], o: &[u8]) -> Option<Raw<'a>> {
        let text = |b: &[u8]| String::from_utf8(b.to_vec()).expect("names are text");
        let f = FlatFields::new(&text(r), &text(a), &text(o));
        let fast = super::canonical(line, &f.heads.as_ref()?.view());
        // Prepared on the stack, the same heads (when the names are short enough).
        let mut buf = [0u8; 3 * MAX_NAME + 14];
        if let Some(h) = Heads::on_stack(&mut buf, r, a, o) {
            assert_eq!(super::canonical(line, &h), fast);
        }
        fast
    }

    /// The lines `gen` writes take the canonical path; lines of another shape do not.
    #[test]
    fn the_usual_lines_take_the_canonical_path() {
        let (r, a, o) = (&b"run"[..], &b"action"[..], &b"order"[..]);
        for line in [
            &br#"{"run":"r745","action":"clt1!begin","order":0}"#[..],
            br#"{"run":"","action":"","order":-12}"#,
            b"{\"run\":\"\xc3\xa9\",\"action\":\"a\",\"order\":18446744073709551615}",
        ] {
            let fast = canonical(line, r, a, o);
            assert!(fast.is_some(), "{}", String::from_utf8_lossy(line));
            assert_eq!(fast, general(line, r, a, o));
        }
        for line in [
            &br#"{"run": "r","action":"a","order":0}"#[..],
            br#"{"action":"a","run":"r","order":0}"#,
            br#"{"run":"r","action":"a","order":"0"}"#,
            br#"{"run":7,"action":"a","order":0}"#,
            br#"{"run":"r","action":"a","order":0} "#,
        ] {
            assert_eq!(canonical(line, r, a, o), None);
            assert!(general(line, r, a, o).is_some());
        }
        // Names that need escapes, or the same name twice: never the canonical path.
        assert!(FlatFields::new("r", "r", "order").heads.is_none());
        assert!(FlatFields::new("a\"b", "action", "order").heads.is_none());
        assert!(FlatFields::new("a\\b", "action", "order").heads.is_none());
        // Long names: prepared ones only.
        let long = "n".repeat(120);
        let line = format!(r#"{{"{long}":"x","action":"y","order":1}}"#);
        let f = FlatFields::new(&long, "action", "order");
        assert!(super::canonical(line.as_bytes(), &f.heads.as_ref().unwrap().view()).is_some());
        let mut buf = [0u8; 3 * MAX_NAME + 14];
        assert!(Heads::on_stack(&mut buf, long.as_bytes(), a, o).is_none());
        assert_eq!(
            scan_raw_with(line.as_bytes(), &f),
            scan_raw(line.as_bytes(), &long, "action", "order")
        );
    }

    proptest::proptest! {
        /// Eight bytes at a time, the first quote, backslash or control byte is the one a
        /// walk byte by byte finds.
        #[test]
        fn the_special_byte_is_the_first_one(
            b in proptest::collection::vec(
                proptest::prop_oneof![
                    proptest::sample::select(vec![b'"', b'\\', 0u8, 0x1f, 0x20, 0x21, 0x7f, 0x80, 0xff, 0x5c, 0x22, 0xa2, 0xdc]),
                    proptest::num::u8::ANY,
                    0x20u8..0x7f,
                ],
                0..40,
            ),
        ) {
            let want = b.iter().position(|&c| c == b'"' || c == b'\\' || c < 0x20);
            proptest::prop_assert_eq!(special(&b), want);
        }

        /// Integers of 1 to 22 digits, signed or not: the value `serde_json` reads (an
        /// `i64`, else a `u64`), by the short path up to 18 digits and the wide one after.
        #[test]
        fn integers_read_as_the_parser_reads_them(
            neg in proptest::bool::ANY,
            // JSON's grammar: no leading zero (the scan never reads one into a value).
            digits in "0|[1-9][0-9]{0,21}",
        ) {
            let text = format!("{}{digits}", if neg { "-" } else { "" });
            let want = text
                .parse::<i128>()
                .ok()
                .filter(|v| i64::try_from(*v).is_ok() || u64::try_from(*v).is_ok());
            proptest::prop_assert_eq!(int_value(text.as_bytes()), want);
        }

        /// Lines of the canonical shape and near it (other names, escapes, control and
        /// non-UTF-8 bytes, numbers of every form, something after): whenever the canonical
        /// path answers, the general scan gives the same answer.
        #[test]
        fn the_canonical_path_is_the_general_scan(
            names in proptest::sample::subsequence(vec!["run", "action", "order", "x", "a\"b", "run"], 3),
            shuffle in proptest::bool::ANY,
            run in proptest::sample::select(vec![
                "\"r1\"", "\"\"", "\"r\\\"1\"", "\"a\u{1}b\"", "\"\u{e9}\"", "12", "\"r1",
            ]),
            action in proptest::sample::select(vec!["\"a!m\"", "\"\"", "\"x\\y\"", "3", "\"b?m"]),
            order in proptest::sample::select(vec![
                "0", "7", "-3", "-0", "01", "1.5", "1e3", "-", "", "99999999999999999999",
                "18446744073709551615", "-9223372036854775808", "\"4\"",
                "999999999999999999", "-999999999999999999", "1234567890123456789", "1a", "-1/",
            ]),
            tail in proptest::sample::select(vec!["}", "} ", "}}", ",}", "", "}x"]),
            bad in proptest::option::of(0usize..60),
        ) {
            let mut names = names;
            if shuffle {
                names.rotate_left(1);
            }
            let mut line = format!(
                "{{\"{}\":{run},\"{}\":{action},\"{}\":{order}{tail}",
                names[0], names[1], names[2]
            )
            .into_bytes();
            if let Some(at) = bad.filter(|&at| at < line.len()) {
                // A byte that is not UTF-8, somewhere.
                line[at] = 0xff;
            }
            let (r, a, o) = ("run".as_bytes(), "action".as_bytes(), "order".as_bytes());
            if let Some(fast) = canonical(&line, r, a, o) {
                proptest::prop_assert_eq!(Some(fast), general(&line, r, a, o));
            }
        }

        /// Lines built from JSON-ish pieces (some malformed): whenever the scan answers, the
        /// full parser reads the same event.
        #[test]
        fn the_scan_never_disagrees_with_the_parser(
            parts in proptest::collection::vec(
                (
                    proptest::sample::select(vec!["run", "action", "order", "x", "r\\u0075n"]),
                    proptest::sample::select(vec![
                        "\"a!m\"", "12", "-3", "-0", "1.5", "1e3", "true", "null", "\"7\"",
                        "\"2024-05-01T12:00:00Z\"", "\"x\\\"y\"", "[1]", "{}", "0012",
                        "99999999999999999999", "\"\"", " \"b?m\" ",
                    ]),
                ),
                0..6,
            ),
            sep in proptest::sample::select(vec![",", " , ", ",,"]),
            tail in proptest::sample::select(vec!["", " ", "x", ","]),
        ) {
            let body: Vec<String> = parts.iter().map(|(k, v)| format!("\"{k}\":{v}")).collect();
            let line = format!("{{{}}}{tail}", body.join(sep));
            if let Some(fast) = scan_flat(&line, "run", "action", "order") {
                let (run, parsed) = jsonl_event_full(&line, &EventOptions::default());
                let (a, k) = parsed.expect("the parser reads what the scan read");
                proptest::prop_assert_eq!(Some(fast.run.to_string()), run);
                proptest::prop_assert_eq!(fast.action, a.as_str());
                proptest::prop_assert_eq!(fast.order, k);
            }
        }
    }
}
