//! Where the fields of a summary's JSON text stand, to locate an error in a field that parsed
//! but does not validate. Scans bytes only; never decodes or fails.

/// Where the top-level fields of a JSON object start (byte offsets), and the items of those
/// that are arrays: enough to locate an error in a field that parsed but does not validate.
#[derive(Default)]
pub(super) struct Spans {
    fields: Vec<FieldSpan>,
}

pub(super) struct FieldSpan {
    key: String,
    value: usize,
    end: usize,
    items: Vec<usize>,
}

impl Spans {
    /// Scans `text`; stops quietly where it is not JSON (only well-formed parts are located).
    pub(super) fn of(text: &str) -> Spans {
        let mut s = Scanner {
            b: text.as_bytes(),
            i: 0,
        };
        let mut fields = Vec::new();
        s.ws();
        if !s.eat(b'{') {
            return Spans { fields };
        }
        loop {
            s.ws();
            let key_start = s.i;
            if s.peek() != Some(b'"') || !s.string() {
                break;
            }
            let key = text
                .get(key_start..s.i)
                .and_then(|raw| serde_json::from_str::<String>(raw).ok())
                .unwrap_or_default();
            s.ws();
            if !s.eat(b':') {
                break;
            }
            s.ws();
            let value = s.i;
            let mut items = Vec::new();
            let ok = if s.peek() == Some(b'[') {
                s.i += 1;
                s.ws();
                if s.eat(b']') {
                    true
                } else {
                    loop {
                        s.ws();
                        items.push(s.i);
                        if !s.value() {
                            break false;
                        }
                        s.ws();
                        if s.eat(b']') {
                            break true;
                        }
                        if !s.eat(b',') {
                            break false;
                        }
                    }
                }
            } else {
                s.value()
            };
            fields.push(FieldSpan {
                key,
                value,
                end: s.i,
                items,
            });
            s.ws();
            if !ok || !s.eat(b',') {
                break;
            }
        }
        Spans { fields }
    }

    fn get(&self, key: &str) -> Option<&FieldSpan> {
        self.fields.iter().find(|f| f.key == key)
    }

    /// Where the value of `key` starts.
    pub(super) fn value(&self, key: &str) -> Option<usize> {
        self.get(key).map(|f| f.value)
    }

    /// Where item `index` of the array `key` starts (else the array).
    pub(super) fn item(&self, key: &str, index: usize) -> Option<usize> {
        let f = self.get(key)?;
        Some(f.items.get(index).copied().unwrap_or(f.value))
    }

    /// Where character `index` of the string value of `key` is, when the string has no
    /// escapes (else where the string starts).
    pub(super) fn char_in_string(&self, text: &str, key: &str, index: usize) -> Option<usize> {
        let f = self.get(key)?;
        let raw = text.get(f.value + 1..f.end.saturating_sub(1))?;
        if !text.get(f.value..).is_some_and(|t| t.starts_with('"')) || raw.contains('\\') {
            return Some(f.value);
        }
        Some(
            raw.char_indices()
                .nth(index)
                .map_or(f.value, |(i, _)| f.value + 1 + i),
        )
    }

    /// The field whose value holds byte `offset`.
    pub(super) fn field_at(&self, offset: usize) -> Option<&'static str> {
        let f = self
            .fields
            .iter()
            .find(|f| f.value <= offset && offset <= f.end)?;
        FIELDS.iter().copied().find(|&k| k == f.key)
    }
}

/// The fields of a summary, in the order written.
pub(super) const FIELDS: [&str; 10] = [
    "format", "version", "digest", "location", "mode", "trace", "verdict", "position", "expected",
    "area",
];

/// A cursor over JSON bytes that skips values without decoding them.
struct Scanner<'a> {
    b: &'a [u8],
    i: usize,
}

impl Scanner<'_> {
    fn peek(&self) -> Option<u8> {
        self.b.get(self.i).copied()
    }
    fn eat(&mut self, c: u8) -> bool {
        if self.peek() == Some(c) {
            self.i += 1;
            true
        } else {
            false
        }
    }
    fn ws(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\t' | b'\r' | b'\n')) {
            self.i += 1;
        }
    }
    /// A string starting at the cursor (on its `"`); false when it does not end.
    fn string(&mut self) -> bool {
        self.i += 1;
        loop {
            match self.peek() {
                None => return false,
                Some(b'\\') => self.i += 2,
                Some(b'"') => {
                    self.i += 1;
                    return true;
                }
                Some(_) => self.i += 1,
            }
        }
    }
    /// Any value; false when it does not end.
    pub(super) fn value(&mut self) -> bool {
        match self.peek() {
            None => false,
            Some(b'"') => self.string(),
            Some(b'{' | b'[') => {
                let mut depth = 0usize;
                loop {
                    match self.peek() {
                        None => return false,
                        Some(b'"') => {
                            if !self.string() {
                                return false;
                            }
                            continue;
                        }
                        Some(b'{' | b'[') => depth += 1,
                        Some(b'}' | b']') => {
                            depth = depth.saturating_sub(1);
                            if depth == 0 {
                                self.i += 1;
                                return true;
                            }
                        }
                        Some(_) => {}
                    }
                    self.i += 1;
                }
            }
            Some(_) => {
                let start = self.i;
                while !matches!(
                    self.peek(),
                    None | Some(b',' | b'}' | b']' | b' ' | b'\t' | b'\r' | b'\n')
                ) {
                    self.i += 1;
                }
                self.i > start
            }
        }
    }
}
