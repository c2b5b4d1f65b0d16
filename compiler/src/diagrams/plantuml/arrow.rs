//! The syntax of a PlantUML message statement, `FROM ARROW TO [: LABEL]`, by PlantUML's own
//! arrow grammar: a left dressing (`<`, `<<`, `/`, `//`, `\`, `\\`, maybe after ` x` or ` o`),
//! a body of dashes with at most one `[style]` in it (`-[#red,bold]>`, `-[hidden]>`), a right
//! dressing (`>`, `>>`, `/`, `//`, `\`, `\\`, maybe followed by `x` or `o`; or a bare `x`/`o`).
//! `[` / `?` before the arrow and `]` / `?` after it are the border (the environment).
//!
//! Invariants: a line is message-shaped only when a participant (or the border) is followed
//! by a whole arrow with a head or a cross, so that `Scale -> B : m` is a message and
//! `else - retry` is not; the direction is PlantUML's (a left dressing without a cross makes
//! the arrow right-to-left); a cross (`x`) at the receiver's end is a lost message; crosses
//! elsewhere and two-headed arrows are errors here, never guessed.

/// One end of a message.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum End<'a> {
    /// The diagram's border: the environment.
    Border,
    /// A participant, as written.
    Named(&'a str),
}

/// A message statement, its ends in the order of the message (sender first).
#[derive(Debug)]
pub(super) struct Message<'a> {
    pub sender: End<'a>,
    pub receiver: End<'a>,
    /// The arrow as written.
    pub arrow: &'a str,
    /// The text after the first `:` outside quotes (empty without one).
    pub label: &'a str,
    /// `-[hidden]>`: laid out, not drawn.
    pub hidden: bool,
    /// A cross at the receiver's end (`->x`, `x<-`): emitted, never received.
    pub lost: bool,
}

/// Why a message-shaped statement cannot be read: the part it is about and what to do.
pub(super) struct Bad<'a> {
    pub at: &'a str,
    pub message: String,
}

/// A participant token at the start of `s`: a quoted display name or a code; the token and
/// the rest.
pub(super) fn participant_token(s: &str) -> Option<(&str, &str)> {
    if let Some(q) = s.strip_prefix('"') {
        let end = q.find('"')?;
        return Some((&q[..end], &q[end + 1..]));
    }
    let end = s
        .find(|c: char| !(c.is_alphanumeric() || c == '_' || c == '.' || c == '@'))
        .unwrap_or(s.len());
    (end > 0).then(|| (&s[..end], &s[end..]))
}

/// The arrow at the start of `s`: its length, the dressings, and the style texts.
struct Arrow<'a> {
    len: usize,
    left: &'a str,
    right: &'a str,
    styles: Vec<&'a str>,
}

/// The length of the longest of `options` that starts `s` (0 for none).
fn longest(s: &str, options: &[&str]) -> usize {
    options
        .iter()
        .filter(|o| s.starts_with(**o))
        .map(|o| o.len())
        .max()
        .unwrap_or(0)
}

/// A `[style]` at the start of `s`: its length.
fn style(s: &str) -> Option<usize> {
    let inner = s.strip_prefix('[')?;
    let first = inner.chars().next()?;
    if !(first == '#' || first.is_ascii_alphabetic()) {
        return None;
    }
    let end = inner.find(']')?;
    Some(end + 2)
}

/// An inclination `(10)` at the start of `s`: its length.
fn inclination(s: &str) -> usize {
    let Some(inner) = s.strip_prefix('(') else {
        return 0;
    };
    let digits = inner.chars().take_while(char::is_ascii_digit).count();
    if digits > 0 && inner[digits..].starts_with(')') {
        digits + 2
    } else {
        0
    }
}

/// Whether a cross or circle at `s` is a dressing: followed by a blank, the label's `:`, the
/// border or the end.
fn ends_decoration(s: &str) -> bool {
    s.chars()
        .next()
        .is_none_or(|c| c.is_whitespace() || c == ':' || c == ']' || c == '?')
}

const LEFT_HEADS: [&str; 6] = ["<<", "<", "//", "/", "\\\\", "\\"];
const RIGHT_HEADS: [&str; 6] = [">>", ">", "//", "/", "\\\\", "\\"];

/// The arrow at the start of `s` (`spaced`: a blank came before it, which a left cross or
/// circle needs).
fn arrow(s: &str, spaced: bool) -> Option<Arrow<'_>> {
    let mut i = 0;
    let mut styles = Vec::new();
    // Left dressing.
    if spaced && s.starts_with(['x', 'o']) && !s[1..].starts_with(char::is_alphanumeric) {
        i += 1;
    }
    i += inclination(&s[i..]);
    i += longest(&s[i..], &LEFT_HEADS);
    let left = &s[..i];
    // A style before the body (PlantUML wants it inside; accepted, it draws only).
    if let Some(n) = style(&s[i..]) {
        styles.push(&s[i + 1..i + n - 1]);
        i += n;
    }
    // Body: dashes, at most one style among them.
    let body_start = i;
    while i < s.len() {
        if s[i..].starts_with('-') {
            i += 1;
        } else if let Some(n) = style(&s[i..]) {
            styles.push(&s[i + 1..i + n - 1]);
            i += n;
        } else {
            break;
        }
    }
    if !s[body_start..i].contains('-') {
        return None;
    }
    // Right dressing.
    let right_start = i;
    i += longest(&s[i..], &RIGHT_HEADS);
    i += inclination(&s[i..]);
    if s[i..].starts_with(['x', 'o']) && ends_decoration(&s[i + 1..]) {
        i += 1;
    }
    let right = &s[right_start..i];
    let head = |d: &str, heads: &[&str]| heads.iter().any(|h| d.contains(h));
    let has_head = head(left, &LEFT_HEADS) || head(right, &RIGHT_HEADS);
    let crossed = left.contains(['x', 'o']) || right.contains(['x', 'o']);
    (has_head || crossed).then_some(Arrow {
        len: i,
        left,
        right,
        styles,
    })
}

/// The head of a statement (before the label's `:`) and the label.
fn split_label(s: &str) -> (&str, &str) {
    let mut quoted = false;
    let colon = s.char_indices().find(|&(_, c)| {
        quoted ^= c == '"';
        c == ':' && !quoted
    });
    match colon {
        Some((i, _)) => (&s[..i], &s[i + 1..]),
        None => (s, ""),
    }
}

/// The sender's end, the arrow and what follows it, when `head` starts like a message.
fn start(head: &str) -> Option<(End<'_>, Arrow<'_>, &str)> {
    let (from, after, spaced) = match head.strip_prefix(['[', '?']) {
        Some(rest) if !head.starts_with("[#") => (End::Border, rest, false),
        _ => {
            let (tok, rest) = participant_token(head)?;
            let trimmed = rest.trim_start();
            (End::Named(tok), trimmed, trimmed.len() < rest.len())
        }
    };
    let a = arrow(after, spaced)?;
    Some((from, a, after))
}

/// Whether `s` reads as a whole message (what a keyword line never does).
pub(super) fn is_message(s: &str) -> bool {
    matches!(message(s), Ok(Some(_)))
}

/// Reads `s` as a message; `Ok(None)` when it is not message-shaped.
pub(super) fn message(s: &str) -> Result<Option<Message<'_>>, Bad<'_>> {
    let (head, label) = split_label(s);
    let Some((first, a, after)) = start(head) else {
        return Ok(None);
    };
    let arrow_text = &after[..a.len];
    let bad = |message: String| Bad {
        at: arrow_text,
        message,
    };
    let rest = &after[a.len..];
    let (second, rest) = match rest.strip_prefix([']', '?']) {
        Some(r) => (End::Border, r),
        None => match participant_token(rest.trim_start()) {
            Some((tok, r)) => (End::Named(tok), r),
            None => return Err(bad("an arrow needs a participant (or `]`, the border) after it: write `A -> B : request`".to_string())),
        },
    };
    // Activations (`++`, `--`, `**`, `!!`), then a lifeline colour: drawing only.
    let mut trailing = rest.trim().trim_start_matches(['+', '-', '*', '!']).trim();
    if let Some(colour) = trailing.strip_prefix('#') {
        trailing = colour
            .trim_start_matches(|c: char| c.is_alphanumeric() || c == '_')
            .trim();
    }
    if !trailing.is_empty() {
        return Err(Bad {
            at: trailing,
            message: format!(
                "unexpected `{trailing}` after the message's receiver: the label comes after `:` (a message has one receiver: write one message per receiver)"
            ),
        });
    }
    let head1 = LEFT_HEADS.iter().any(|h| a.left.contains(h));
    let head2 = RIGHT_HEADS.iter().any(|h| a.right.contains(h));
    let (x1, x2) = (a.left.contains('x'), a.right.contains('x'));
    if head1 && head2 {
        return Err(bad(format!(
            "a two-headed arrow (`{arrow_text}`) is drawn as one line with a head at each end, which says neither who sends first nor whether both send: write two messages, `A -> B : request` and `B --> A : reply`"
        )));
    }
    if x1 && x2 {
        return Err(bad(format!(
            "an arrow with a cross at each end (`{arrow_text}`) has no sender: write `A ->x B : m` for a message A sends and B never receives"
        )));
    }
    // PlantUML: a left dressing other than a cross makes the arrow right-to-left.
    let reverse = !head2 && head1;
    let (sender, receiver) = if reverse {
        (second, first)
    } else {
        (first, second)
    };
    let cross_at_receiver = if reverse { x1 } else { x2 };
    if (x1 || x2) && !cross_at_receiver {
        return Err(bad(format!(
            "a cross at the sender's end of `{arrow_text}` has no meaning in an interaction: a lost message has its cross at the receiver's end, `A ->x B : m`"
        )));
    }
    let hidden = a.styles.iter().any(|st| {
        st.split([',', ';'])
            .any(|w| w.trim().eq_ignore_ascii_case("hidden"))
    });
    Ok(Some(Message {
        sender,
        receiver,
        arrow: arrow_text,
        label,
        hidden,
        lost: cross_at_receiver,
    }))
}
