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
        let n = body
            .iter()
            .position(|&c| c == b'"' || c == b'\\' || c < 0x20)?;
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
    let r = scan_raw(text.as_bytes(), run_f, action_f, order_f)?;
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

    proptest::proptest! {
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
