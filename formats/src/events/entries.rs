//! Where a JSON event's fields are written in its text: the column of a field given twice, and
//! the integer literals serde_json would round (the entries themselves: [`crate::object`]).

pub(super) fn json_str(s: &str) -> String {
    serde_json::to_string(s).unwrap_or_default()
}

/// ` at column N` of the second place `"key":` is written, when it is found as written.
pub(super) fn duplicate_column(text: &str, key: &str) -> String {
    let quoted = json_str(key);
    let at: Vec<usize> = text
        .match_indices(quoted.as_str())
        .filter(|(i, _)| text[i + quoted.len()..].trim_start().starts_with(':'))
        .map(|(i, _)| i)
        .collect();
    match at.get(1) {
        Some(i) => format!(" at column {}", text[..*i].chars().count() + 1),
        None => String::new(),
    }
}

/// The integer literal written as the value of `"key":` in `text` (its first place written so),
/// when the value is an integer literal: serde_json reads one beyond `u64` as an `f64`,
/// rounded, so run ids and order keys that large are taken from the text, exactly.
pub(super) fn raw_integer<'a>(text: &'a str, key: &str) -> Option<&'a str> {
    let quoted = json_str(key);
    text.match_indices(quoted.as_str()).find_map(|(i, _)| {
        let rest = text[i + quoted.len()..].trim_start().strip_prefix(':')?;
        let rest = rest.trim_start();
        let end = rest
            .find(|c: char| !(c.is_ascii_digit() || c == '-'))
            .unwrap_or(rest.len());
        let lit = &rest[..end];
        let digits = lit.strip_prefix('-').unwrap_or(lit);
        let next = rest[end..].chars().next();
        (!digits.is_empty()
            && digits.bytes().all(|b| b.is_ascii_digit())
            && !matches!(next, Some('.' | 'e' | 'E')))
        .then_some(lit)
    })
}
