//! The pieces of JSON both scans read: the end of a string without escapes (found eight
//! bytes at a time), integers as `serde_json` reads them, and bytes as text.
//!
//! Invariants: each answers exactly what a walk byte by byte (or the parser) would; none
//! allocates.

/// An integer (strict JSON grammar, ASCII digits) as `serde_json` reads it: `i64`, else
/// `u64`, else not an integer (the parser reads it as a float).
pub(super) fn int_value(text: &[u8]) -> Option<i128> {
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
pub(super) fn text(b: &[u8]) -> Option<&str> {
    std::str::from_utf8(b).ok()
}

/// Whether two short strings are equal (a loop: no call for a few bytes).
#[inline]
pub(super) fn same(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x == y)
}

/// The place of the first byte of `b` that ends a string without escapes (a quote), or that
/// the canonical path leaves to the general scan (a backslash, a control character): eight
/// bytes at a time.
#[inline(always)]
pub(super) fn special(b: &[u8]) -> Option<usize> {
    special_in::<false>(b)
}

/// [`special`], and with `ASCII` a byte of 0x80 or more too (one pass where a check of the
/// string's bytes as text would be another).
#[inline(always)]
pub(super) fn special_in<const ASCII: bool>(b: &[u8]) -> Option<usize> {
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

#[cfg(test)]
mod tests {
    use super::*;

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
    }
}
