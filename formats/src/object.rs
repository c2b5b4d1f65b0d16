//! A JSON object read with its entries in order and duplicates kept, so that a key given
//! twice can be refused: a `serde_json` map keeps one of two entries silently. Both JSON
//! readers use it: multitrace lines for their `traces` (where anything but an object is an
//! error) and events for the whole line (where anything but an object is a refusal of its
//! own).

use serde::de::{Error, MapAccess, SeqAccess, Unexpected, Visitor};
use serde::Deserializer;
use serde_json::Value;

/// The entries of an object in order, duplicates kept.
pub(crate) type Entries = Vec<(String, Value)>;

/// The entries of the object `d` holds, an error naming `what` was expected for any other
/// value (`traces` of a multitrace line: "an object of local traces").
pub(crate) fn object<'de, D: Deserializer<'de>>(d: D) -> Result<Entries, D::Error> {
    let what = "an object of local traces";
    d.deserialize_map(Visit { what, any: false })?
        .ok_or_else(|| Error::custom(format!("expected {what}")))
}

/// The entries of the JSON value `d` holds when it is an object, `None` for any other value.
pub(crate) struct AnyValue(pub(crate) Option<Entries>);

impl<'de> serde::Deserialize<'de> for AnyValue {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let what = "a JSON value";
        d.deserialize_any(Visit { what, any: true }).map(AnyValue)
    }
}

/// Collects a map; any other value is `None` when `any`, else the error a map visitor gives.
struct Visit {
    what: &'static str,
    any: bool,
}

impl Visit {
    fn other<E: Error>(self, got: Unexpected) -> Result<Option<Entries>, E> {
        if self.any {
            Ok(None)
        } else {
            Err(E::invalid_type(got, &self))
        }
    }
}

impl<'de> Visitor<'de> for Visit {
    type Value = Option<Entries>;
    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str(self.what)
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut out = Vec::new();
        while let Some(entry) = map.next_entry()? {
            out.push(entry);
        }
        Ok(Some(out))
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut s: A) -> Result<Self::Value, A::Error> {
        if !self.any {
            return Err(A::Error::invalid_type(Unexpected::Seq, &self));
        }
        while s.next_element::<serde::de::IgnoredAny>()?.is_some() {}
        Ok(None)
    }
    fn visit_bool<E: Error>(self, v: bool) -> Result<Self::Value, E> {
        self.other(Unexpected::Bool(v))
    }
    fn visit_i64<E: Error>(self, v: i64) -> Result<Self::Value, E> {
        self.other(Unexpected::Signed(v))
    }
    fn visit_u64<E: Error>(self, v: u64) -> Result<Self::Value, E> {
        self.other(Unexpected::Unsigned(v))
    }
    fn visit_f64<E: Error>(self, v: f64) -> Result<Self::Value, E> {
        self.other(Unexpected::Float(v))
    }
    fn visit_str<E: Error>(self, v: &str) -> Result<Self::Value, E> {
        self.other(Unexpected::Str(v))
    }
    fn visit_unit<E: Error>(self) -> Result<Self::Value, E> {
        self.other(Unexpected::Unit)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(serde::Deserialize)]
    struct Line {
        #[serde(deserialize_with = "object")]
        traces: Entries,
    }

    #[test]
    fn duplicates_are_kept_and_other_values_are_told_apart() {
        let AnyValue(e) = serde_json::from_str(r#"{"a":1,"a":2,"b":[]}"#).unwrap();
        let keys: Vec<&str> = e
            .as_ref()
            .unwrap()
            .iter()
            .map(|(k, _)| k.as_str())
            .collect();
        assert_eq!(keys, ["a", "a", "b"]);
        for other in ["[1,{\"a\":2}]", "3", "-3", "2.5", "\"s\"", "null", "true"] {
            let AnyValue(e) = serde_json::from_str(other).unwrap();
            assert!(e.is_none(), "{other}");
        }
        let l: Line = serde_json::from_str(r#"{"traces":{"l":[],"l":["x"]}}"#).unwrap();
        assert_eq!(l.traces.len(), 2);
        let e = serde_json::from_str::<Line>(r#"{"traces":[1]}"#)
            .err()
            .unwrap();
        assert_eq!(
            e.to_string(),
            "invalid type: sequence, expected an object of local traces at line 1 column 10"
        );
    }
}
