//! The general scan: any flat JSON object, value by value, in any order and with any blanks,
//! its run, action and order fields picked out by name.
//!
//! Invariants: it answers only when its answer is the full parser's (see the
//! [module docs](super)): strict JSON grammar, no escapes, each field once, the strings kept
//! valid UTF-8; anything else is `None`.

use super::fields::Raw;
use super::token::{int_value, same, special, text};
use crate::events::key::OrderKey;

/// One value, as the scan saw it.
pub(super) enum Val<'a> {
    Str(&'a [u8]),
    Int(&'a [u8]),
    Other,
}

pub(super) struct Cur<'a> {
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
    pub(super) fn number(&mut self) -> Option<Val<'a>> {
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

/// The general scan of any flat object (see the [module docs](super)).
pub(super) fn general<'a>(
    line: &'a [u8],
    run_f: &[u8],
    action_f: &[u8],
    order_f: &[u8],
) -> Option<Raw<'a>> {
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
