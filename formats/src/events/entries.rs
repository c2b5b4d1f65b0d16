//! The top-level entries of a JSON event, duplicates kept, so that a field given twice can be
//! refused (a `serde_json` map keeps the last silently).

use serde_json::Value;

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

/// The entries of a JSON value that is an object, in order, duplicates kept (`None` for any
/// other value).
pub(super) struct Entries(pub(super) Option<Vec<(String, Value)>>);

impl<'de> serde::Deserialize<'de> for Entries {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Visit;
        impl<'de> serde::de::Visitor<'de> for Visit {
            type Value = Entries;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a JSON value")
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                mut map: A,
            ) -> Result<Entries, A::Error> {
                let mut out = Vec::new();
                while let Some(entry) = map.next_entry()? {
                    out.push(entry);
                }
                Ok(Entries(Some(out)))
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(
                self,
                mut s: A,
            ) -> Result<Entries, A::Error> {
                while s.next_element::<serde::de::IgnoredAny>()?.is_some() {}
                Ok(Entries(None))
            }
            fn visit_bool<E>(self, _: bool) -> Result<Entries, E> {
                Ok(Entries(None))
            }
            fn visit_i64<E>(self, _: i64) -> Result<Entries, E> {
                Ok(Entries(None))
            }
            fn visit_u64<E>(self, _: u64) -> Result<Entries, E> {
                Ok(Entries(None))
            }
            fn visit_f64<E>(self, _: f64) -> Result<Entries, E> {
                Ok(Entries(None))
            }
            fn visit_str<E>(self, _: &str) -> Result<Entries, E> {
                Ok(Entries(None))
            }
            fn visit_unit<E>(self) -> Result<Entries, E> {
                Ok(Entries(None))
            }
        }
        d.deserialize_any(Visit)
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
