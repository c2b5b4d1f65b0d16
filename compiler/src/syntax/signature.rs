//! Reader of signature files (`.hsf`).
//!
//! ```text
//! @lifeline{ l1; l2; l3 }
//! @message{ m1; m2 }
//! ```
//!
//! Sections come in any order, names are separated by `;` (a trailing `;` is allowed),
//! identifiers are `[A-Za-z_][A-Za-z0-9_]*`, whitespace and `/* */` comments may appear
//! anywhere between tokens. A name declared twice is an error, as is any other section
//! (`@gate`, `@analyze_option`, ...) and more than [`MAX_LIFELINES`] lifelines.
//!
//! [`MAX_LIFELINES`]: multitrace_model::signature::MAX_LIFELINES

use multitrace_model::signature::Signature;
use multitrace_model::syntax::hibou::{self, Dialect, Tok, Token};
use multitrace_model::syntax::{Cursor, ParseError};

/// `.hsf`'s HIBOU tokens: `@name` besides the shared ones.
struct Hsf;

impl Dialect for Hsf {
    const SECTION: bool = true;

    /// What is at the token, as the [`Cursor`] describes it (a run of identifier characters
    /// whole, shortened after 40).
    fn expected(c: &Cursor<'_>, tok: &Token<'_>, what: &str) -> ParseError {
        c.expected(tok.start, what)
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Section {
    Lifeline,
    Message,
}

impl Section {
    fn noun(self) -> &'static str {
        match self {
            Section::Lifeline => "lifeline",
            Section::Message => "message",
        }
    }
}

/// Reads a signature (`.hsf`): the lifelines and messages of a model, in declaration order.
///
/// `file` names the input in errors. Never panics; every error carries the line and column of
/// the offending text.
pub fn parse_signature(file: &str, text: &str) -> Result<Signature, ParseError> {
    let mut lx = hibou::Lexer::<Hsf>::new(file, text);
    let mut sig = Signature::new();
    // Byte offset of each declaration, indexed by id, to point back at the first one.
    let mut lifeline_at: Vec<usize> = Vec::new();
    let mut message_at: Vec<usize> = Vec::new();
    loop {
        let head = lx.next()?;
        let section = match (head.kind, head.text) {
            (Tok::Eof, _) => return Ok(sig),
            (Tok::Section, "@lifeline") => Section::Lifeline,
            (Tok::Section, "@message") => Section::Message,
            (Tok::Section, other) => {
                return Err(lx.error(
                    head.start,
                    format!(
                        "unsupported section `{other}`: a signature only has `@lifeline{{...}}` \
                         and `@message{{...}}`"
                    ),
                ))
            }
            // `@` and no name right after it.
            (Tok::Other('@'), _) => {
                return Err(lx
                    .cursor()
                    .expected(head.start + 1, "a section name after `@`"))
            }
            _ => return Err(lx.expected(&head, "a section `@lifeline{` or `@message{`")),
        };
        lx.expect(Tok::LBrace, &format!("`{{` after `@{}`", section.noun()))?;
        // Names separated by `;`, an optional trailing `;`, then `}`.
        loop {
            let tok = lx.next()?;
            let (name_at, name) = match tok.kind {
                Tok::RBrace => break,
                Tok::Ident => (tok.start, tok.text),
                _ => return Err(lx.expected(&tok, &format!("a {} name or `}}`", section.noun()))),
            };
            let c = lx.cursor();
            match section {
                Section::Lifeline => {
                    if let Some(id) = sig.lifeline(name) {
                        return Err(duplicate(
                            c,
                            name_at,
                            "lifeline",
                            name,
                            &lifeline_at,
                            id.index(),
                        ));
                    }
                    sig.add_lifeline(name)
                        .map_err(|e| c.error(name_at, format!("lifeline `{name}`: {e}")))?;
                    lifeline_at.push(name_at);
                }
                Section::Message => {
                    if let Some(id) = sig.message(name) {
                        return Err(duplicate(
                            c,
                            name_at,
                            "message",
                            name,
                            &message_at,
                            id.index(),
                        ));
                    }
                    sig.add_message(name);
                    message_at.push(name_at);
                }
            }
            let sep = lx.next()?;
            match sep.kind {
                Tok::RBrace => break,
                Tok::Semi => {}
                _ => return Err(lx.expected(&sep, "`;` or `}`")),
            }
        }
    }
}

fn duplicate(
    c: &Cursor<'_>,
    at: usize,
    noun: &str,
    name: &str,
    first_at: &[usize],
    index: usize,
) -> ParseError {
    let first = match first_at.get(index) {
        Some(&p) => format!(" (first declared at {})", c.position(p)),
        None => String::new(),
    };
    c.error(at, format!("duplicate {noun} `{name}`{first}"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use multitrace_model::signature::MAX_LIFELINES;
    use proptest::prelude::*;

    fn err(text: &str) -> ParseError {
        parse_signature("s.hsf", text).unwrap_err()
    }

    fn assert_err(text: &str, line: u32, column: u32, fragment: &str) {
        let e = err(text);
        assert_eq!((e.line, e.column), (line, column), "{e}");
        assert!(e.message.contains(fragment), "{e}");
        assert!(e
            .to_string()
            .starts_with(&format!("s.hsf:{line}:{column}: ")));
    }

    #[test]
    fn reads_the_real_sample() {
        let text = "@lifeline{\n    l1;l2;l3;l4;l5\n}\n@message{\n    m1;m2;m3;m4;m5;m6\n}";
        let sig = parse_signature("s.hsf", text).unwrap();
        assert_eq!(sig.lifelines(), ["l1", "l2", "l3", "l4", "l5"]);
        assert_eq!(sig.messages(), ["m1", "m2", "m3", "m4", "m5", "m6"]);
    }

    #[test]
    fn any_order_comments_trailing_semicolons_and_empty_sections() {
        let text = "/* sig */ @message { b ; a ; } /* c */\n@lifeline{x_1;/*y*/_Y;}@message{}";
        let sig = parse_signature("s.hsf", text).unwrap();
        assert_eq!(sig.lifelines(), ["x_1", "_Y"]);
        assert_eq!(sig.messages(), ["b", "a"]);
        let empty = parse_signature("s.hsf", "  /* nothing */ \n").unwrap();
        assert!(empty.lifelines().is_empty() && empty.messages().is_empty());
        // The same name may be a lifeline and a message.
        let sig = parse_signature("s.hsf", "@lifeline{a}@message{a}").unwrap();
        assert_eq!((sig.lifelines().len(), sig.messages().len()), (1, 1));
    }

    #[test]
    fn duplicates_are_errors() {
        assert_err(
            "@lifeline{\n  l1; l2;\n  l1 }",
            3,
            3,
            "duplicate lifeline `l1` (first declared at 2:3)",
        );
        assert_err("@message{m}\n@message{m}", 2, 10, "duplicate message `m`");
    }

    #[test]
    fn unsupported_sections_are_named() {
        assert_err(
            "@lifeline{a}\n@gate{g}",
            2,
            1,
            "unsupported section `@gate`",
        );
        assert_err(
            "@analyze_option{ strategy = DFS; }",
            1,
            1,
            "unsupported section `@analyze_option`",
        );
        assert_err(
            "@ lifeline{a}",
            1,
            2,
            "expected a section name after `@`, found character U+0020",
        );
        assert_err(
            "lifeline{a}",
            1,
            1,
            "expected a section `@lifeline{` or `@message{`, found `lifeline`",
        );
    }

    #[test]
    fn syntax_errors_have_positions() {
        assert_err("@lifeline{a b}", 1, 13, "expected `;` or `}`, found `b`");
        assert_err(
            "@lifeline{a;;}",
            1,
            13,
            "expected a lifeline name or `}`, found `;`",
        );
        assert_err(
            "@lifeline{1a}",
            1,
            11,
            "expected a lifeline name or `}`, found `1a`",
        );
        assert_err(
            "@lifeline a",
            1,
            11,
            "expected `{` after `@lifeline`, found `a`",
        );
        assert_err(
            "@message{a;\n",
            2,
            1,
            "unexpected end of input, expected a message name or `}`",
        );
        assert_err(
            "@message{a",
            1,
            11,
            "unexpected end of input, expected `;` or `}`",
        );
        assert_err("@message{a}\n/* open", 2, 1, "unterminated comment");
        assert_err("@message{é}", 1, 10, "found `é`");
    }

    #[test]
    fn too_many_lifelines() {
        let names: Vec<String> = (0..=MAX_LIFELINES).map(|i| format!("l{i}")).collect();
        let text = format!("@lifeline{{{}}}", names.join(";"));
        let e = err(&text);
        assert!(
            e.message.contains("lifeline `l64`: too many lifelines"),
            "{e}"
        );
        let ok = format!("@lifeline{{{}}}", names[..MAX_LIFELINES].join(";"));
        assert_eq!(
            parse_signature("s", &ok).unwrap().lifelines().len(),
            MAX_LIFELINES
        );
    }

    #[test]
    fn real_sample_files() {
        let Some(path) = multitrace_model::testdata::data(
            "hibou-lfrem-sample/signature.hsf",
            "the HIBOU sample's signature",
        ) else {
            return;
        };
        let Ok(text) = std::fs::read_to_string(path) else {
            return;
        };
        let sig = parse_signature("signature.hsf", &text).unwrap();
        assert_eq!(sig.lifelines().len(), 5);
    }

    const TOKENS: &[&str] = &[
        "@lifeline",
        "@message",
        "@gate",
        "@",
        "{",
        "}",
        ";",
        "l1",
        "m1",
        "a",
        " ",
        "\n",
        "/*",
        "*/",
        "é",
        "\0",
        "1",
    ];

    proptest! {
        #[test]
        fn never_panics_on_bytes(bytes in proptest::collection::vec(any::<u8>(), 0..200)) {
            let text = String::from_utf8_lossy(&bytes);
            let _ = parse_signature("f", &text);
        }

        #[test]
        fn never_panics_on_token_soup(
            toks in proptest::collection::vec(proptest::sample::select(TOKENS), 0..60)
        ) {
            let text = toks.concat();
            let _ = parse_signature("f", &text);
        }
    }
}
