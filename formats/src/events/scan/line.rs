//! The entry points of the scan: a line tried on the canonical path, else on the general
//! scan, and its fields given as text.
//!
//! Invariants: an answer is the full parser's (see the [module docs](super)); a line given as
//! `&str` is sliced at its fields' places, not checked again; a line given as bytes has its
//! run id and action checked as UTF-8 ([`scan_bytes`]) or its action left as bytes
//! ([`scan_raw`]).

use super::canonical::{canonical, FlatFields, Heads, MAX_NAME};
use super::fields::{Raw, Scanned};
use super::general::general;
use super::token::text;

/// The fields of a flat JSON event line, when the fast path can give exactly the full
/// parser's answer (see the [module docs](super)); `None` otherwise.
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
pub(crate) fn scan_raw<'a>(
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
pub(crate) fn scan_raw_with<'a>(line: &'a [u8], f: &FlatFields) -> Option<Raw<'a>> {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::events::{jsonl_event_full, EventOptions};

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
