//! The canonical path: the events as `gen` and most loggers write them,
//! `{"RUN":"r","ACTION":"a","ORDER":1}` exactly, matched piece by piece against the heads
//! prepared from the field names ([`FlatFields`], or on the stack for short names).
//!
//! Invariants: whenever it answers, its answer is the general scan's (the same checks of the
//! same values); any other shape is `None`, left to the general scan; names that need an
//! escape, or the same name twice, never take this path.

use super::fields::Raw;
use super::token::{int_value, same, special, special_in, text};
use crate::events::key::OrderKey;

/// The field names the canonical path takes from [`scan_raw`]'s names hold at most three
/// times this many bytes together (longer ones: only with [`FlatFields`]).
///
/// [`scan_raw`]: super::line::scan_raw
pub(super) const MAX_NAME: usize = 32;

/// The three field names of events, prepared once for the scan: what the canonical path
/// matches before each value (`{"RUN":"`, `","ACTION":"`, `","ORDER":`).
#[derive(Clone, Debug)]
pub struct FlatFields {
    pub(super) run: String,
    pub(super) action: String,
    pub(super) order: String,
    /// `None` when the canonical path cannot take these names ([`Heads::on_stack`]).
    pub(super) heads: Option<OwnedHeads>,
}

#[derive(Clone, Debug)]
pub(super) struct OwnedHeads {
    bytes: Box<[u8]>,
    /// Where the second and third heads start in `bytes`.
    at: [usize; 2],
}

impl OwnedHeads {
    pub(super) fn view(&self) -> Heads<'_> {
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
pub(super) struct Heads<'a> {
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
    pub(super) fn on_stack(buf: &'a mut [u8], r: &[u8], a: &[u8], o: &[u8]) -> Option<Heads<'a>> {
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

/// The events as `gen` and most loggers write them, `{"RUN":"r","ACTION":"a","ORDER":1}`
/// exactly (no blank, these fields in this order, the run id a string, the order key an
/// integer), read by matching the line piece by piece. `None` for any other line, which
/// [`general`] then reads; when it answers, its answer is the general scan's (the same checks
/// of the same values).
///
/// [`general`]: super::general::general
#[inline]
pub(super) fn canonical<'a>(line: &'a [u8], heads: &Heads<'_>) -> Option<Raw<'a>> {
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
///
/// [`Cur::number`]: super::general::Cur::number
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::events::scan::general::general;
    use crate::events::scan::line::{scan_raw, scan_raw_with};

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
    }
}
