//! Reader of multitrace files (`.htf`).
//!
//! ```text
//! {
//!   [l1] l1!m1.l1?m2;
//!   [l2,l3] l2!m.l3?m;
//!   [l4]
//! }
//! ```
//!
//! Components are separated by `;` (a trailing `;` is allowed); each one lists its lifelines
//! in brackets (`[#all]` is every lifeline of the signature) followed by its local trace,
//! actions `l!m` / `l?m` joined by `.`, written as nothing when empty. Whitespace and `/* */`
//! comments may appear between any two tokens. Lifelines of the signature that no component
//! lists get an empty singleton component.

mod fast;

use super::cursor::{Cursor, Lookahead};
use super::error::ParseError;
use super::names::{describe_char, is_ident_continue, is_ident_start, name_list};
use crate::multitrace::{Component, Multitrace};
use crate::signature::{Action, ActionKind, LifelineId, LifelineSet, Signature};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Tok {
    Ident,
    /// `#all`
    All,
    LBrace,
    RBrace,
    LBracket,
    RBracket,
    Comma,
    Semi,
    Dot,
    Bang,
    Question,
    /// Any other character.
    Other(char),
    Eof,
}

/// The one-byte tokens.
fn punctuation(b: u8) -> Option<Tok> {
    Some(match b {
        b'{' => Tok::LBrace,
        b'}' => Tok::RBrace,
        b'[' => Tok::LBracket,
        b']' => Tok::RBracket,
        b',' => Tok::Comma,
        b';' => Tok::Semi,
        b'.' => Tok::Dot,
        b'!' => Tok::Bang,
        b'?' => Tok::Question,
        _ => return None,
    })
}

#[derive(Clone, Copy, Debug)]
struct Token<'a> {
    kind: Tok,
    start: usize,
    text: &'a str,
}

/// The tokens of `.htf` on the shared [`Cursor`], with one token of lookahead.
struct Lexer<'a> {
    la: Lookahead<'a, Token<'a>>,
}

impl<'a> Lexer<'a> {
    fn new(file: &'a str, text: &'a str) -> Self {
        Lexer {
            la: Lookahead::new(file, text),
        }
    }

    fn next(&mut self) -> Result<Token<'a>, ParseError> {
        self.la.next(scan)
    }

    fn peek(&mut self) -> Result<Token<'a>, ParseError> {
        self.la.peek(scan)
    }

    /// "expected WHAT, found TOKEN" (or "unexpected end of input, expected WHAT").
    fn expected(&self, tok: &Token<'_>, what: &str) -> ParseError {
        let found = match tok.kind {
            Tok::Eof => return self.la.c.expected_found(tok.start, what, None),
            Tok::Other(c) if c.is_control() || c.is_whitespace() || c == '\u{feff}' || c == '`' => {
                describe_char(c)
            }
            _ => {
                // A run of identifier characters reads better whole (`1abc`, not `1`).
                let word = self.la.c.word_at(tok.start);
                match word.get(..word.len().min(40)) {
                    Some(word) if word.len() > tok.text.len() => format!("`{word}`"),
                    _ => format!("`{}`", tok.text),
                }
            }
        };
        self.la.c.expected_found(tok.start, what, Some(&found))
    }

    fn expect(&mut self, kind: Tok, what: &str) -> Result<Token<'a>, ParseError> {
        let tok = self.next()?;
        if tok.kind == kind {
            Ok(tok)
        } else {
            Err(self.expected(&tok, what))
        }
    }

    fn error(&self, at: usize, message: impl Into<String>) -> ParseError {
        self.la.c.error(at, message)
    }
}

/// Reads one token at `c` (after whitespace and comments).
fn scan<'a>(c: &mut Cursor<'a>) -> Result<Token<'a>, ParseError> {
    c.skip_trivia()?;
    let start = c.pos();
    let kind = match c.peek_byte() {
        None => Tok::Eof,
        Some(b) if is_ident_start(b) => {
            c.take_while_ascii(is_ident_continue);
            Tok::Ident
        }
        Some(b'#') if c.starts_with("#all") && c.word_at(start + 1).len() == 3 => {
            c.eat("#all");
            Tok::All
        }
        Some(b) => match punctuation(b) {
            Some(kind) => {
                c.eat_byte(b);
                kind
            }
            None => c.bump().map_or(Tok::Eof, Tok::Other),
        },
    };
    Ok(Token {
        kind,
        start,
        text: c.since(start),
    })
}

/// Reads a multitrace (`.htf`) over the names of `sig`.
///
/// Returns the multitrace, completed with an empty singleton component for every lifeline of
/// `sig` that no component lists, and a display name per component (its lifelines joined by
/// `,`, as written). `file` names the input in errors. Never panics; every error carries the
/// line and column of the offending text.
pub fn parse_htf(
    file: &str,
    text: &str,
    sig: &Signature,
) -> Result<(Multitrace, Vec<String>), ParseError> {
    let (mt, names) = match fast::parse(text, sig) {
        Some(read) => read,
        None => parse_htf_exact(file, text, sig)?,
    };
    Ok(complete(mt, names, sig))
}

/// Adds an empty singleton component for every lifeline of `sig` that no component of `mt`
/// lists, and its display name.
fn complete(
    mut mt: Multitrace,
    mut names: Vec<String>,
    sig: &Signature,
) -> (Multitrace, Vec<String>) {
    mt.complete_with(sig.all_lifelines());
    for c in mt.components.iter().skip(names.len()) {
        names.push(
            c.lifelines
                .iter()
                .map(|l| sig.lifelines().get(l.index()).map_or("?", String::as_str))
                .collect::<Vec<_>>()
                .join(","),
        );
    }
    (mt, names)
}

/// [`parse_htf`] token by token on the [`Cursor`], before completion: every input, every
/// error with its position.
fn parse_htf_exact(
    file: &str,
    text: &str,
    sig: &Signature,
) -> Result<(Multitrace, Vec<String>), ParseError> {
    let mut lx = Lexer::new(file, text);
    let open = lx.next()?;
    match open.kind {
        Tok::LBrace => {}
        Tok::Eof => {
            return Err(lx.error(
                open.start,
                "empty file: expected a multitrace `{ [l1] l1!m1.l1?m2; [l2] ... }`",
            ))
        }
        _ => return Err(lx.expected(&open, "`{` opening the multitrace")),
    }
    let mut mt = Multitrace::default();
    let mut names: Vec<String> = Vec::new();
    // Byte offset of the `[` of each component, to point back at it.
    let mut component_at: Vec<usize> = Vec::new();
    loop {
        // A component or the closing brace (empty multitrace, or after a trailing `;`).
        let tok = lx.next()?;
        match tok.kind {
            Tok::RBrace => break,
            Tok::LBracket => {}
            _ => return Err(lx.expected(&tok, "`[` opening a component or `}`")),
        }
        let bracket = tok.start;
        let (lifelines, name) = component_lifelines(&mut lx, sig, &mt, &names, &component_at)?;
        // The local trace: nothing, or actions joined by `.`.
        let mut trace = Vec::new();
        if lx.peek()?.kind == Tok::Ident {
            loop {
                trace.push(action(&mut lx, sig, lifelines, &name)?);
                if lx.peek()?.kind == Tok::Dot {
                    lx.next()?;
                } else {
                    break;
                }
            }
        }
        mt.components.push(Component { lifelines, trace });
        names.push(name);
        component_at.push(bracket);
        let sep = lx.next()?;
        match sep.kind {
            Tok::Semi => {}
            Tok::RBrace => break,
            _ if trace_ended_early(&sep) => {
                return Err(lx.expected(&sep, "`.` and an action, `;` or `}`"))
            }
            _ => return Err(lx.expected(&sep, "`;` or `}`")),
        }
    }
    let end = lx.next()?;
    if end.kind != Tok::Eof {
        return Err(lx.expected(&end, "end of input after the closing `}`"));
    }
    Ok((mt, names))
}

/// Whether a token after a component could only have continued its trace.
fn trace_ended_early(tok: &Token<'_>) -> bool {
    matches!(tok.kind, Tok::Ident | Tok::Bang | Tok::Question)
}

/// `l1,l2]` or `#all]` after the `[` of a component: its lifelines and display name.
fn component_lifelines(
    lx: &mut Lexer<'_>,
    sig: &Signature,
    mt: &Multitrace,
    names: &[String],
    component_at: &[usize],
) -> Result<(LifelineSet, String), ParseError> {
    let taken = mt.lifelines();
    // Where lifeline `l` was listed before, for the error message (positions from a copy of
    // the cursor, which the closure keeps while `lx` moves on).
    let here = lx.la.c;
    let owner = |l: LifelineId| -> String {
        match mt.components.iter().position(|c| c.lifelines.contains(l)) {
            Some(k) => {
                let name = names.get(k).map_or("", String::as_str);
                match component_at.get(k) {
                    Some(&at) => format!("component [{name}] at {}", here.position(at)),
                    None => format!("component [{name}]"),
                }
            }
            None => "another component".to_string(),
        }
    };
    let first = lx.next()?;
    if first.kind == Tok::All {
        lx.expect(Tok::RBracket, "`]` after `#all`")?;
        let all = sig.all_lifelines();
        if all.is_empty() {
            return Err(lx.error(
                first.start,
                "`[#all]` is empty: the signature declares no lifelines",
            ));
        }
        if let Some(l) = all.inter(taken).iter().next() {
            let name = sig.lifelines().get(l.index()).map_or("?", String::as_str);
            return Err(lx.error(
                first.start,
                format!(
                    "`#all` includes lifeline `{name}`, which is already in {}",
                    owner(l)
                ),
            ));
        }
        return Ok((all, sig.lifelines().join(",")));
    }
    let mut set = LifelineSet::EMPTY;
    let mut written: Vec<&str> = Vec::new();
    let mut tok = first;
    loop {
        if tok.kind != Tok::Ident {
            let what = if written.is_empty() {
                "a lifeline name or `#all`"
            } else {
                "a lifeline name"
            };
            return Err(lx.expected(&tok, what));
        }
        let Some(l) = sig.lifeline(tok.text) else {
            return Err(lx.error(
                tok.start,
                format!(
                    "unknown lifeline `{}`; {}declared lifelines: {}",
                    tok.text,
                    crate::suggest::did_you_mean(
                        tok.text,
                        sig.lifelines().iter().map(String::as_str)
                    ),
                    name_list(sig.lifelines())
                ),
            ));
        };
        if set.contains(l) {
            return Err(lx.error(
                tok.start,
                format!("lifeline `{}` is listed twice in this component", tok.text),
            ));
        }
        if taken.contains(l) {
            return Err(lx.error(
                tok.start,
                format!(
                    "lifeline `{}` is already in {}; a lifeline belongs to one component",
                    tok.text,
                    owner(l)
                ),
            ));
        }
        set.insert(l);
        written.push(tok.text);
        let sep = lx.next()?;
        match sep.kind {
            Tok::Comma => tok = lx.next()?,
            Tok::RBracket => break,
            _ => return Err(lx.expected(&sep, "`,` or `]`")),
        }
    }
    Ok((set, written.join(",")))
}

/// One action `l!m` or `l?m` of a component over `lifelines` (display name `name`).
fn action(
    lx: &mut Lexer<'_>,
    sig: &Signature,
    lifelines: LifelineSet,
    name: &str,
) -> Result<Action, ParseError> {
    let ltok = lx.expect(Tok::Ident, "an action `l!m` or `l?m`")?;
    let ktok = lx.next()?;
    let kind = match ktok.kind {
        Tok::Bang => ActionKind::Emission,
        Tok::Question => ActionKind::Reception,
        _ => return Err(lx.expected(&ktok, &format!("`!` or `?` after lifeline `{}`", ltok.text))),
    };
    let mtok = lx.expect(Tok::Ident, "a message name")?;
    let Some(lifeline) = sig.lifeline(ltok.text) else {
        return Err(lx.error(
            ltok.start,
            format!(
                "unknown lifeline `{}`; {}declared lifelines: {}",
                ltok.text,
                crate::suggest::did_you_mean(ltok.text, sig.lifelines().iter().map(String::as_str)),
                name_list(sig.lifelines())
            ),
        ));
    };
    let Some(message) = sig.message(mtok.text) else {
        return Err(lx.error(
            mtok.start,
            format!(
                "unknown message `{}`; {}declared messages: {}",
                mtok.text,
                crate::suggest::did_you_mean(mtok.text, sig.messages().iter().map(String::as_str)),
                name_list(sig.messages())
            ),
        ));
    };
    if !lifelines.contains(lifeline) {
        return Err(lx.error(
            ltok.start,
            format!(
                "action `{}{}{}` is on lifeline {}, which is not in this component [{name}]",
                ltok.text, ktok.text, mtok.text, ltok.text
            ),
        ));
    }
    Ok(Action {
        lifeline,
        kind,
        message,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::signature::MessageId;
    use proptest::prelude::*;

    fn sig() -> Signature {
        let mut s = Signature::new();
        for l in ["l1", "l2", "l3", "l4", "l5"] {
            s.add_lifeline(l).unwrap();
        }
        for m in ["m1", "m2", "m3", "m4", "m5", "m6"] {
            s.add_message(m);
        }
        s
    }

    fn parse(text: &str) -> (Multitrace, Vec<String>) {
        parse_htf("t.htf", text, &sig()).unwrap_or_else(|e| panic!("{e}"))
    }

    fn assert_err(text: &str, line: u32, column: u32, fragment: &str) {
        let e = parse_htf("t.htf", text, &sig()).unwrap_err();
        assert_eq!((e.line, e.column), (line, column), "{e}");
        assert!(e.message.contains(fragment), "{e}");
        assert!(e
            .to_string()
            .starts_with(&format!("t.htf:{line}:{column}: ")));
    }

    fn act(l: u32, kind: ActionKind, m: u32) -> Action {
        Action {
            lifeline: LifelineId(l),
            kind,
            message: MessageId(m),
        }
    }

    fn set(ls: &[u32]) -> LifelineSet {
        ls.iter().fold(LifelineSet::EMPTY, |s, &l| {
            s.union(LifelineSet::single(LifelineId(l)))
        })
    }

    #[test]
    fn reads_a_real_sample() {
        let text = "{\n[l1] l1?m4.l1?m4;\n[l2] l2!m5.l2?m3.l2?m6;\n[l3] l3!m4.l3!m4;\n[l4] ;\n[l5] l5?m3.l5?m5\n}";
        let (mt, names) = parse(text);
        assert_eq!(names, ["l1", "l2", "l3", "l4", "l5"]);
        assert_eq!(mt.components.len(), 5);
        assert_eq!(
            mt.components[1].trace,
            vec![
                act(1, ActionKind::Emission, 4),
                act(1, ActionKind::Reception, 2),
                act(1, ActionKind::Reception, 5)
            ]
        );
        assert!(mt.components[3].trace.is_empty());
        assert_eq!(mt.len(), 2 + 3 + 2 + 2);
        // The runtime's rendering reads back to the same multitrace.
        let (again, _) = parse(&mt.to_htf(&sig()));
        assert_eq!(again, mt);
    }

    #[test]
    fn groups_comments_and_completion() {
        let text = "/* x */ { [l2, l3] l2!m1 . /* y */ l3?m1 ; [l1]\n}";
        let (mt, names) = parse(text);
        assert_eq!(names, ["l2,l3", "l1", "l4", "l5"]);
        assert_eq!(mt.components[0].lifelines, set(&[1, 2]));
        assert_eq!(
            mt.components[0].trace,
            vec![
                act(1, ActionKind::Emission, 0),
                act(2, ActionKind::Reception, 0)
            ]
        );
        assert_eq!(mt.components[2].lifelines, set(&[3]));
        assert!(mt.components[2].trace.is_empty());
        assert_eq!(mt.lifelines(), sig().all_lifelines());
        // Trailing `;`, empty multitrace.
        let (mt, names) = parse("{[l5] l5!m6;}");
        assert_eq!(names, ["l5", "l1", "l2", "l3", "l4"]);
        assert_eq!(mt.len(), 1);
        let (mt, names) = parse("{}");
        assert_eq!((mt.components.len(), names.len()), (5, 5));
    }

    #[test]
    fn all_lifelines() {
        let (mt, names) = parse("{ [#all] l1!m1.l5?m1 }");
        assert_eq!(names, ["l1,l2,l3,l4,l5"]);
        assert_eq!(mt.components.len(), 1);
        assert_eq!(mt.components[0].lifelines, sig().all_lifelines());
        assert_eq!(mt.len(), 2);
        assert_err(
            "{ [l1] ; [#all] }",
            1,
            11,
            "`#all` includes lifeline `l1`, which is already in component [l1] at 1:3",
        );
        assert_err(
            "{ [#all, l1] }",
            1,
            8,
            "expected `]` after `#all`, found `,`",
        );
        assert_err(
            "{ [#alls] }",
            1,
            4,
            "expected a lifeline name or `#all`, found `#`",
        );
        let e = parse_htf("t", "{[#all]}", &Signature::new()).unwrap_err();
        assert!(e.message.contains("`[#all]` is empty"), "{e}");
        // With no lifelines at all, `{}` is the empty multitrace.
        let (mt, names) = parse_htf("t", "{}", &Signature::new()).unwrap();
        assert!(mt.components.is_empty() && names.is_empty());
    }

    #[test]
    fn name_errors() {
        assert_err(
            "{\n[l1] l1!m1;\n[x9] }",
            3,
            2,
            "unknown lifeline `x9`; declared lifelines: l1, l2, l3, l4, l5",
        );
        assert_err(
            "{ [l1] l1!m1.l1?zz }",
            1,
            17,
            "unknown message `zz`; declared messages: m1, m2, m3",
        );
        assert_err("{ [l1] l7!m1 }", 1, 8, "unknown lifeline `l7`");
        assert_err(
            "{ [l1,l2] l1!m1.\n  l3!m2 }",
            2,
            3,
            "action `l3!m2` is on lifeline l3, which is not in this component [l1,l2]",
        );
        assert_err(
            "{ [l1] ;\n [l2, l1] }",
            2,
            7,
            "lifeline `l1` is already in component [l1] at 1:3",
        );
        assert_err("{ [l1, l1] }", 1, 8, "lifeline `l1` is listed twice");
    }

    #[test]
    fn syntax_errors() {
        assert_err("", 1, 1, "empty file");
        assert_err("  /* c */\n", 2, 1, "empty file");
        assert_err(
            "[l1] l1!m1",
            1,
            1,
            "expected `{` opening the multitrace, found `[`",
        );
        assert_err(
            "{ [l1] l1!m1",
            1,
            13,
            "unexpected end of input, expected `;` or `}`",
        );
        assert_err(
            "{ [l1] l1!m1 }\n}",
            2,
            1,
            "expected end of input after the closing `}`, found `}`",
        );
        assert_err(
            "{ [l1] l1!m1 l1?m2 }",
            1,
            14,
            "expected `.` and an action, `;` or `}`, found `l1`",
        );
        assert_err(
            "{ [l1] l1!m1. }",
            1,
            15,
            "expected an action `l!m` or `l?m`, found `}`",
        );
        assert_err(
            "{ [l1] l1 m1 }",
            1,
            11,
            "expected `!` or `?` after lifeline `l1`, found `m1`",
        );
        assert_err("{ [l1] l1! }", 1, 12, "expected a message name, found `}`");
        assert_err(
            "{ [] }",
            1,
            4,
            "expected a lifeline name or `#all`, found `]`",
        );
        assert_err("{ [l1,] }", 1, 7, "expected a lifeline name, found `]`");
        assert_err("{ [l1 l2] }", 1, 7, "expected `,` or `]`, found `l2`");
        assert_err(
            "{ l1!m1 }",
            1,
            3,
            "expected `[` opening a component or `}`, found `l1`",
        );
        assert_err(
            "{ [l1] ;; }",
            1,
            9,
            "expected `[` opening a component or `}`, found `;`",
        );
        assert_err("{ [l1] 1x }", 1, 8, "expected `;` or `}`, found `1x`");
        assert_err("{ [l1] } /*", 1, 10, "unterminated comment");
        assert_err("{ [l1] \u{7} }", 1, 8, "found character U+0007");
        assert_err("{ [l1] é }", 1, 8, "found `é`");
    }

    #[test]
    fn real_sample_files() {
        let Some(root) = crate::testdata::data("hibou-lfrem-sample", "HIBOU sample .htf files")
        else {
            return;
        };
        let Ok(dirs) = std::fs::read_dir(root.join("gen_ints")) else {
            return;
        };
        // The signature of the sample (this crate has no `.hsf` reader).
        let sig = sig();
        let mut count = 0;
        for dir in dirs.flatten() {
            let Ok(files) = std::fs::read_dir(dir.path()) else {
                continue;
            };
            for f in files.flatten() {
                let path = f.path();
                if path.extension().is_some_and(|e| e == "htf") {
                    let text = std::fs::read_to_string(&path).unwrap();
                    parse_htf(&path.display().to_string(), &text, &sig)
                        .unwrap_or_else(|e| panic!("{e}"));
                    count += 1;
                }
            }
        }
        assert!(count > 0);
    }

    const TOKENS: &[&str] = &[
        "{", "}", "[", "]", ",", ";", ".", "!", "?", "#all", "#", "l1", "l2", "l9", "m1", "zz",
        " ", "\n", "/*", "*/", "é", "\0", "1",
    ];

    proptest! {
        #[test]
        fn never_panics_on_bytes(bytes in proptest::collection::vec(any::<u8>(), 0..200)) {
            let text = String::from_utf8_lossy(&bytes);
            let _ = parse_htf("f", &text, &sig());
        }

        #[test]
        fn never_panics_on_token_soup(
            toks in proptest::collection::vec(proptest::sample::select(TOKENS), 0..80)
        ) {
            let text = toks.concat();
            let _ = parse_htf("f", &text, &sig());
            let _ = parse_htf("f", &text, &Signature::new());
        }

        #[test]
        fn well_formed_inputs_parse(
            comps in proptest::collection::vec(
                proptest::collection::vec((0u32..2, any::<bool>(), 0u32..6), 0..6),
                0..5,
            )
        ) {
            // One component per lifeline l1..lk, actions on its lifeline.
            let s = sig();
            let mut text = String::from("{");
            for (k, acts) in comps.iter().enumerate() {
                let l = &s.lifelines()[k];
                let acts: Vec<String> = acts
                    .iter()
                    .map(|&(_, e, m)| format!("{l}{}m{}", if e { '!' } else { '?' }, m + 1))
                    .collect();
                text.push_str(&format!("[{l}] {};", acts.join(".")));
            }
            text.push('}');
            let (mt, names) = parse_htf("f", &text, &s).unwrap();
            prop_assert_eq!(mt.components.len(), 5);
            prop_assert_eq!(names.len(), 5);
            prop_assert_eq!(mt.len(), comps.iter().map(Vec::len).sum::<usize>());
            // Such files take the fast path.
            prop_assert!(fast::parse(&text, &s).is_some());
        }

        #[test]
        fn fast_path_agrees_with_exact_path(
            comps in proptest::collection::vec(
                proptest::collection::vec((0u32..5, any::<bool>(), 0u32..7), 0..6),
                0..5,
            ),
            edits in proptest::collection::vec(
                (any::<usize>(), any::<u8>(), proptest::sample::select(TOKENS)),
                0..4,
            ),
            soup in proptest::collection::vec(proptest::sample::select(TOKENS), 0..60),
        ) {
            // Components of one or two lifelines; actions mostly on them, some not (`l`
            // out of the component) and some unknown (`m7`).
            let s = sig();
            let mut text = String::from("{\n");
            for (k, acts) in comps.iter().enumerate() {
                let ls = &s.lifelines()[k..(k + 1 + k % 2).min(5)];
                let acts: Vec<String> = acts
                    .iter()
                    .map(|&(l, e, m)| {
                        let l = if l < 4 { &ls[l as usize % ls.len()] } else { &s.lifelines()[0] };
                        format!("{l}{}m{}", if e { '!' } else { '?' }, m + 1)
                    })
                    .collect();
                text.push_str(&format!("[{}] {};\n", ls.join(", "), acts.join(" . ")));
            }
            text.push('}');
            let mutated = super::super::cursor::mutation::mutate(&text, &edits);
            for text in [text, mutated, soup.concat()] {
                let exact = parse_htf_exact("f", &text, &s).map(|(mt, n)| complete(mt, n, &s));
                if let Some((mt, n)) = fast::parse(&text, &s) {
                    prop_assert_eq!(Ok(complete(mt, n, &s)), exact.clone(), "{:?}", text);
                }
                prop_assert_eq!(parse_htf("f", &text, &s), exact);
            }
        }
    }
}
