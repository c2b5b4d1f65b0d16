//! Order keys: integers, other numbers, RFC 3339 timestamps.

use serde_json::Value;
use std::fmt;

/// An order key within a location.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub enum OrderKey {
    /// An integer.
    Int(i128),
    /// A number that is not an integer.
    Float(f64),
    /// A timestamp, in nanoseconds since 1970-01-01T00:00:00Z.
    Time(i128),
}

impl OrderKey {
    /// Whether two keys can be compared (numbers with numbers, timestamps with timestamps).
    pub fn comparable(&self, other: &OrderKey) -> bool {
        matches!(self, OrderKey::Time(_)) == matches!(other, OrderKey::Time(_))
    }

    /// Total order among comparable keys (a timestamp sorts after every number).
    pub fn cmp_key(&self, other: &OrderKey) -> std::cmp::Ordering {
        use OrderKey::*;
        match (self, other) {
            (Int(a), Int(b)) | (Time(a), Time(b)) => a.cmp(b),
            (Float(a), Float(b)) => a.total_cmp(b),
            (Int(a), Float(b)) => (*a as f64).total_cmp(b),
            (Float(a), Int(b)) => a.total_cmp(&(*b as f64)),
            (Time(_), _) => std::cmp::Ordering::Greater,
            (_, Time(_)) => std::cmp::Ordering::Less,
        }
    }

    /// Parses a key written as text: an integer, a number, or an RFC 3339 timestamp.
    pub fn parse(text: &str) -> Result<OrderKey, OrderKeyError> {
        let t = text.trim();
        if let Ok(i) = t.parse::<i128>() {
            return Ok(OrderKey::Int(i));
        }
        if let Ok(f) = t.parse::<f64>() {
            if f.is_finite() {
                return Ok(OrderKey::Float(f));
            }
        }
        parse_timestamp(t)
            .map(OrderKey::Time)
            .ok_or_else(|| OrderKeyError::Text {
                text: t.to_string(),
            })
    }

    pub(super) fn of_json(v: &Value) -> Result<OrderKey, OrderKeyError> {
        match v {
            Value::Number(n) => {
                if let Some(i) = n.as_i64() {
                    Ok(OrderKey::Int(i.into()))
                } else if let Some(u) = n.as_u64() {
                    Ok(OrderKey::Int(u.into()))
                } else {
                    Ok(OrderKey::Float(n.as_f64().unwrap_or(f64::NAN)))
                }
            }
            Value::String(s) => OrderKey::parse(s),
            other => Err(OrderKeyError::Type {
                value: other.to_string(),
            }),
        }
    }
}

/// Why a value is not an order key.
#[derive(Clone, Debug, PartialEq)]
pub enum OrderKeyError {
    /// Text that is neither a number nor an RFC 3339 timestamp.
    Text {
        /// The text, trimmed.
        text: String,
    },
    /// A value that is neither a number nor text (a JSON `true`, `null`, array or object, or
    /// such a value of a column), as written.
    Type {
        /// The value.
        value: String,
    },
    /// A number that is not finite (infinite or NaN).
    NotFinite {
        /// The number.
        value: f64,
    },
}

impl fmt::Display for OrderKeyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            OrderKeyError::Text { text } => write!(
                f,
                "order key {text:?} is neither a number nor an RFC 3339 timestamp (such as 2024-05-01T12:00:00.5Z)"
            ),
            OrderKeyError::Type { value } => write!(
                f,
                "order key {value} is neither a number nor an RFC 3339 timestamp"
            ),
            OrderKeyError::NotFinite { value } => {
                write!(f, "order key {value} is not a finite number")
            }
        }
    }
}

impl std::error::Error for OrderKeyError {}

/// `YYYY-MM-DD[T ]HH:MM:SS[.fraction][Z|±HH:MM]` in nanoseconds since the epoch (no zone: UTC).
/// A fraction's digits past the ninth are read (they must be digits) but not kept.
///
/// Every event log's timestamps go through here (JSON Lines, CSV, XES, spans), so it reads
/// the bytes directly, in 64-bit arithmetic (a 4-digit year's seconds fit; 128-bit
/// multiplication and division are slow), widening only the result.
pub fn parse_timestamp(s: &str) -> Option<i128> {
    let b = s.as_bytes();
    // The value of a run of ASCII digits (at most 9 here: no overflow).
    let num = |r: std::ops::Range<usize>| -> Option<i64> {
        let mut v: i64 = 0;
        for &c in b.get(r)? {
            let d = c.wrapping_sub(b'0');
            if d > 9 {
                return None;
            }
            v = v * 10 + i64::from(d);
        }
        Some(v)
    };
    if b.len() < 19 || b[4] != b'-' || b[7] != b'-' || b[13] != b':' || b[16] != b':' {
        return None;
    }
    if !matches!(b[10], b'T' | b't' | b' ') {
        return None;
    }
    let (y, mo, d) = (num(0..4)?, num(5..7)?, num(8..10)?);
    let (h, mi, sec) = (num(11..13)?, num(14..16)?, num(17..19)?);
    if !(1..=12).contains(&mo) || !(1..=31).contains(&d) || h > 23 || mi > 59 || sec > 60 {
        return None;
    }
    let mut i = 19;
    let mut nanos: i64 = 0;
    if b.get(i) == Some(&b'.') {
        i += 1;
        let start = i;
        while i < b.len() && b[i].is_ascii_digit() {
            i += 1;
        }
        if i == start {
            return None;
        }
        let kept = (i - start).min(9);
        nanos = num(start..start + kept)? * 10i64.pow(9 - kept as u32);
    }
    let offset: i64 = match b.get(i) {
        None => 0,
        Some(b'Z' | b'z') if i + 1 == b.len() => 0,
        Some(&sign @ (b'+' | b'-')) if i + 6 == b.len() && b[i + 3] == b':' => {
            let (oh, om) = (num(i + 1..i + 3)?, num(i + 4..i + 6)?);
            let o = oh * 3600 + om * 60;
            if sign == b'+' {
                o
            } else {
                -o
            }
        }
        _ => return None,
    };
    // Days from civil (Howard Hinnant's algorithm).
    let y = if mo <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (mo + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    let days = era * 146_097 + doe - 719_468;
    let secs = days * 86_400 + h * 3600 + mi * 60 + sec - offset;
    Some(i128::from(secs) * 1_000_000_000 + i128::from(nanos))
}
