//! How values are written in the page: escaped text, JSON inside a script element, numbers
//! with thousands separators, durations.

use crate::diagram;

/// Escapes text for HTML content and attribute values.
pub fn escape(s: &str) -> String {
    diagram::svg::escape(s)
}

/// JSON for a `<script type="application/json">` element: `<` never appears raw, so the text
/// cannot close the element.
pub(super) fn script_json(v: &str) -> String {
    serde_json::to_string(v)
        .unwrap_or_else(|_| "\"\"".into())
        .replace('<', "\\u003c")
}

/// `1,234,567`.
pub fn thousands(n: usize) -> String {
    let digits = n.to_string();
    let head = match digits.len() % 3 {
        0 => 3.min(digits.len()),
        r => r,
    };
    let mut out = digits[..head].to_string();
    for group in digits.as_bytes()[head..].chunks(3) {
        out.push(',');
        out.extend(group.iter().map(|&b| b as char));
    }
    out
}

/// `850 µs`, `4.56 ms`, `1.23 s`.
pub(super) fn human_us(us: u64) -> String {
    if us < 1_000 {
        format!("{us} µs")
    } else if us < 1_000_000 {
        let ms = us as f64 / 1e3;
        if ms < 10.0 {
            format!("{ms:.2} ms")
        } else {
            format!("{ms:.1} ms")
        }
    } else {
        format!("{:.2} s", us as f64 / 1e6)
    }
}
