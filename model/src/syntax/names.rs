//! How every reader (here and in the compiler's model readers) names what it found in error
//! messages, and which bytes make an identifier, so that all messages read alike.

/// Whether `b` may start an identifier (`[A-Za-z_]`).
pub fn is_ident_start(b: u8) -> bool {
    b.is_ascii_alphabetic() || b == b'_'
}

/// Whether `b` may continue an identifier (`[A-Za-z0-9_]`).
pub fn is_ident_continue(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

/// `` `c` `` for a visible character, `character U+XXXX` for a control, blank or invisible
/// one (a byte-order mark), `a backquote` for the quote itself.
pub fn describe_char(c: char) -> String {
    if c.is_control() || c.is_whitespace() || c == '\u{feff}' {
        format!("character U+{:04X}", c as u32)
    } else if c == '`' {
        "a backquote".to_string()
    } else {
        format!("`{c}`")
    }
}

/// `` `word` `` for a word found in the text, shortened to its first 40 characters and `...`
/// when longer, so that a runaway token does not flood a message.
pub fn quote_word(word: &str) -> String {
    match word.char_indices().nth(40) {
        Some((cut, _)) => format!("`{}...`", word.get(..cut).unwrap_or(word)),
        None => format!("`{word}`"),
    }
}

/// "a, b, c" for hints such as "declared: ...": at most 30 names, then the total; "none" for
/// no name.
pub fn name_list<S: AsRef<str>>(names: impl IntoIterator<Item = S>) -> String {
    let mut total = 0usize;
    let mut out = String::new();
    for name in names {
        if total < 30 {
            if total > 0 {
                out.push_str(", ");
            }
            out.push_str(name.as_ref());
        }
        total += 1;
    }
    if total == 0 {
        return "none".to_string();
    }
    if total > 30 {
        out.push_str(&format!(", ... ({total} in all)"));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lists_are_truncated_with_their_total() {
        assert_eq!(name_list(Vec::<String>::new()), "none");
        assert_eq!(name_list(["a", "b"]), "a, b");
        let many: Vec<String> = (0..31).map(|i| format!("n{i}")).collect();
        let s = name_list(&many);
        assert!(s.starts_with("n0, n1,"), "{s}");
        assert!(s.ends_with("n29, ... (31 in all)"), "{s}");
    }

    #[test]
    fn long_words_are_shortened() {
        assert_eq!(quote_word("ab"), "`ab`");
        assert_eq!(quote_word(&"é".repeat(40)), format!("`{}`", "é".repeat(40)));
        assert_eq!(
            quote_word(&"é".repeat(41)),
            format!("`{}...`", "é".repeat(40))
        );
        assert_eq!(quote_word(""), "``");
    }

    #[test]
    fn characters_are_described_visibly() {
        assert_eq!(describe_char('x'), "`x`");
        assert_eq!(describe_char('`'), "a backquote");
        assert_eq!(describe_char('\u{1}'), "character U+0001");
        assert_eq!(describe_char('\u{feff}'), "character U+FEFF");
        assert_eq!(describe_char(' '), "character U+0020");
        assert!(is_ident_start(b'_') && !is_ident_start(b'1') && is_ident_continue(b'1'));
    }
}
