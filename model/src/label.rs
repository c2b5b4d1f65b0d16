//! Names made from free text: a diagram's message labels and participants, a span's name.
//!
//! One rule everywhere, so that a label drawn in a diagram and the span name a service
//! reports give the same message: letters, digits and `_` (ASCII) are kept, every run of other
//! characters becomes one `_` between the kept parts, and a name that would start with a digit
//! gets a leading `_`. The result is an identifier of the `.hif` and `.htf` languages.

/// The name `text` gives (`POST /pay` -> `POST_pay`), `None` when it has no ASCII letter,
/// digit or `_`.
pub fn label_name(text: &str) -> Option<String> {
    let mut out = String::with_capacity(text.len());
    let mut gap = false;
    for c in text.chars() {
        if c.is_ascii_alphanumeric() || c == '_' {
            if gap && !out.is_empty() {
                out.push('_');
            }
            gap = false;
            if out.is_empty() && c.is_ascii_digit() {
                out.push('_');
            }
            out.push(c);
        } else {
            gap = true;
        }
    }
    (!out.is_empty()).then_some(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::syntax::{is_ident_continue, is_ident_start};
    use proptest::prelude::*;

    #[test]
    fn examples() {
        assert_eq!(label_name("POST /pay").as_deref(), Some("POST_pay"));
        assert_eq!(
            label_name("Hello John, how are you?").as_deref(),
            Some("Hello_John_how_are_you")
        );
        assert_eq!(label_name("  m1 ").as_deref(), Some("m1"));
        assert_eq!(label_name("200 OK").as_deref(), Some("_200_OK"));
        assert_eq!(label_name("_x__y").as_deref(), Some("_x__y"));
        assert_eq!(label_name("-> ?"), None);
        assert_eq!(label_name(""), None);
    }

    proptest! {
        /// Names are identifiers, and a name gives itself back.
        #[test]
        fn names_are_fixed_points(text in "\\PC{0,20}") {
            if let Some(n) = label_name(&text) {
                let b = n.as_bytes();
                prop_assert!(is_ident_start(b[0]));
                prop_assert!(b.iter().all(|&c| is_ident_continue(c)));
                prop_assert_eq!(label_name(&n), Some(n.clone()));
            }
        }
    }
}
