//! The common case of [`super::parse_htf`] over bytes: blanks, punctuation and identifiers
//! only (no comments, no `#all`, ASCII), every name declared, every action on its component's
//! lifelines, no lifeline listed twice. Anything else gives `None` and the exact reader reads
//! the text again: it alone makes error messages, so they do not depend on this path.

use crate::jsonl::pack;
use multitrace_model::multitrace::{Component, Multitrace};
use multitrace_model::signature::{
    Action, ActionKind, LifelineId, LifelineSet, MessageId, Signature,
};
use multitrace_model::syntax::{is_ident_continue, is_ident_start};

/// Names already looked up in this text, by [`pack`]ed name: files repeat a few names many
/// times, and comparing integers is cheaper than hashing strings into the signature's maps.
struct Seen<T> {
    short: Vec<(u64, T)>,
}

/// Distinct names [`Seen`] keeps (a linear scan stays cheaper than hashing up to about this).
const SEEN: usize = 32;

impl<T: Copy> Seen<T> {
    fn new() -> Self {
        Seen { short: Vec::new() }
    }

    #[inline]
    fn get(&mut self, name: &str, resolve: impl FnOnce(&str) -> Option<T>) -> Option<T> {
        let Some(key) = pack(name.as_bytes()) else {
            return resolve(name);
        };
        if let Some(&(_, v)) = self.short.iter().find(|(k, _)| *k == key) {
            return Some(v);
        }
        let v = resolve(name)?;
        if self.short.len() < SEEN {
            self.short.push((key, v));
        }
        Some(v)
    }
}

/// A cursor over the bytes of the text, with the few steps the grammar needs.
struct Bytes<'a> {
    text: &'a str,
    at: usize,
}

impl<'a> Bytes<'a> {
    #[inline]
    fn peek(&self) -> Option<u8> {
        self.text.as_bytes().get(self.at).copied()
    }

    /// Skips the blanks the exact reader skips as trivia (`\n` included), but not comments.
    #[inline]
    fn blanks(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\t' | b'\n' | b'\r')) {
            self.at += 1;
        }
    }

    /// After blanks, eats `b` if it is next.
    #[inline]
    fn eat(&mut self, b: u8) -> bool {
        self.blanks();
        let hit = self.peek() == Some(b);
        self.at += usize::from(hit);
        hit
    }

    /// After blanks, an identifier `[A-Za-z_][A-Za-z0-9_]*`.
    #[inline]
    fn ident(&mut self) -> Option<&'a str> {
        self.blanks();
        let start = self.at;
        if !self.peek().is_some_and(is_ident_start) {
            return None;
        }
        self.at += 1;
        while self.peek().is_some_and(is_ident_continue) {
            self.at += 1;
        }
        // ASCII bounds: char boundaries.
        self.text.get(start..self.at)
    }
}

/// The multitrace and the display names of the components as written (the exact reader
/// completes both).
pub(super) fn parse(text: &str, sig: &Signature) -> Option<(Multitrace, Vec<String>)> {
    let mut b = Bytes { text, at: 0 };
    let mut lifelines_seen = Seen::<LifelineId>::new();
    let mut messages_seen = Seen::<MessageId>::new();
    let mut mt = Multitrace::default();
    let mut names = Vec::new();
    let mut taken = LifelineSet::EMPTY;
    if !b.eat(b'{') {
        return None;
    }
    if !b.eat(b'}') {
        loop {
            if !b.eat(b'[') {
                return None;
            }
            let mut set = LifelineSet::EMPTY;
            let mut name = String::new();
            loop {
                let written = b.ident()?;
                let l = lifelines_seen.get(written, |n| sig.lifeline(n))?;
                if set.contains(l) || taken.contains(l) {
                    return None;
                }
                set.insert(l);
                if !name.is_empty() {
                    name.push(',');
                }
                name.push_str(written);
                if b.eat(b']') {
                    break;
                }
                if !b.eat(b',') {
                    return None;
                }
            }
            taken = taken.union(set);
            let mut trace = Vec::new();
            b.blanks();
            if b.peek().is_some_and(is_ident_start) {
                // The lifeline of the previous action, whose name most actions repeat.
                let mut last: Option<(&str, LifelineId)> = None;
                loop {
                    let written = b.ident()?;
                    let lifeline = match last {
                        Some((n, l)) if n == written => l,
                        _ => {
                            let l = lifelines_seen.get(written, |n| sig.lifeline(n))?;
                            if !set.contains(l) {
                                return None;
                            }
                            last = Some((written, l));
                            l
                        }
                    };
                    b.blanks();
                    let kind = match b.peek() {
                        Some(b'!') => ActionKind::Emission,
                        Some(b'?') => ActionKind::Reception,
                        _ => return None,
                    };
                    b.at += 1;
                    let message = messages_seen.get(b.ident()?, |n| sig.message(n))?;
                    trace.push(Action {
                        lifeline,
                        kind,
                        message,
                    });
                    if !b.eat(b'.') {
                        break;
                    }
                }
            }
            mt.components.push(Component {
                lifelines: set,
                trace,
            });
            names.push(name);
            if b.eat(b'}') {
                break;
            }
            if !b.eat(b';') {
                return None;
            }
            // A trailing `;` before the closing brace.
            if b.eat(b'}') {
                break;
            }
        }
    }
    b.blanks();
    (b.at == text.len()).then_some((mt, names))
}
