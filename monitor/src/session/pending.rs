//! The places of the events a session fed unchecked in one round
//! ([`Session::push_deferred`](super::state::Session::push_deferred)), for all its runs: one
//! arena of `FILE:LINE` texts and one linked list per run, emptied when every run is settled.
//! Per run, only a count and the index of its first event stay in its bookkeeping.
//!
//! Also the places a run keeps (its first event's, its latest's): [`Place`], a file of the
//! session's [`Places`] (each file kept once, for the session's life) and a line number.

use super::event::At;
use multitrace_formats::events::intern::same_bytes;
use multitrace_formats::events::OrderKey;
use serde::{Deserialize, Serialize};

/// The pending events' places, for all runs.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub(super) struct Pending {
    text: String,
    events: Vec<PendingEvent>,
}

#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
struct PendingEvent {
    /// Line `from` of [`Places`]' file `file`; when `file` is `u32::MAX`, a place of another
    /// form, `text[from..to]`.
    file: u32,
    from: u32,
    to: u32,
    key: OrderKey,
    /// Its event number in its run, and its arrival number.
    number: u64,
    arrival: u64,
    /// The next pending event of the same run (`u32::MAX`: none).
    next: u32,
    /// The last pending event of the run (kept on its first only).
    last: u32,
}

/// Where a pending event was read: `FILE:LINE`, its order key and its arrival number.
pub(super) type Found = (String, OrderKey, u64);

impl Pending {
    /// Adds an event read at `at`, the last of the list starting at `head` (a new list when
    /// `None`); returns its index (the head of a new list).
    pub(super) fn add(
        &mut self,
        places: &mut Places,
        at: At<'_>,
        key: OrderKey,
        number: u64,
        arrival: u64,
        head: Option<u32>,
    ) -> u32 {
        let index = self.events.len() as u32;
        let (file, from, to) = match at {
            // A file's line: its file's index and the number, no text.
            At::Line { file, line } => (places.file(file), line, 0),
            At::Text(t) => {
                let from = self.text.len() as u32;
                self.text.push_str(t);
                (u32::MAX, from, self.text.len() as u32)
            }
        };
        self.events.push(PendingEvent {
            file,
            from,
            to,
            key,
            number,
            arrival,
            next: u32::MAX,
            last: index,
        });
        if let Some(head) = head {
            let head = head as usize;
            let tail = self.events[head].last as usize;
            self.events[tail].next = index;
            self.events[head].last = index;
        }
        index
    }

    /// The place of event `number` of the list starting at `head` (`None`: no list).
    pub(super) fn find(&self, places: &Places, head: Option<u32>, number: u64) -> Option<Found> {
        let mut at = head.unwrap_or(u32::MAX);
        while let Some(p) = self.events.get(at as usize) {
            if p.number == number {
                let text = match p.file {
                    u32::MAX => self.text[p.from as usize..p.to as usize].to_string(),
                    file => places.text(&Place::Line {
                        file,
                        line: u64::from(p.from),
                    }),
                };
                return Some((text, p.key, p.arrival));
            }
            at = p.next;
        }
        None
    }

    /// The place and key of the last event of the list starting at `head`.
    pub(super) fn last(&self, places: &mut Places, head: u32) -> Option<(Place, OrderKey)> {
        let tail = self.events.get(head as usize)?.last;
        let p = self.events.get(tail as usize)?;
        let place = match p.file {
            u32::MAX => places.place(&self.text[p.from as usize..p.to as usize]),
            file => Place::Line {
                file,
                line: u64::from(p.from),
            },
        };
        Some((place, p.key))
    }

    /// Forgets every list (every run is settled).
    pub(super) fn clear(&mut self) {
        self.text.clear();
        self.events.clear();
    }

    /// Bytes held.
    pub(super) fn bytes(&self) -> usize {
        self.text.capacity() + self.events.capacity() * std::mem::size_of::<PendingEvent>()
    }
}

/// Where an event was read, as a run keeps it: `FILE:LINE` as the index of `FILE` in the
/// session's [`Places`] and the line number (16 bytes and no allocation per run, where a
/// `String` took 24 and a heap block of its own); any other text is kept as it is.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub(super) enum Place {
    /// `FILE:LINE`: `FILE` is [`Places`]' text `file`, `LINE` written in decimal without
    /// leading zeros (so that the text is given back exactly).
    Line { file: u32, line: u64 },
    /// A place of another form, as given (boxed: a thin pointer keeps a place at 16 bytes,
    /// where a `String` would make every place 32).
    #[allow(clippy::box_collection)]
    Text(Box<String>),
}

/// The `FILE` parts of the places of a session's runs, each kept once (a session reads a few
/// files, each with many runs).
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub(super) struct Places {
    texts: Vec<Box<str>>,
    #[serde(skip)]
    index: rustc_hash::FxHashMap<Box<str>, u32>,
    /// The text found last (events come in runs of lines of one file).
    #[serde(skip)]
    last: Option<u32>,
}

impl PartialEq for Places {
    fn eq(&self, other: &Self) -> bool {
        self.texts == other.texts
    }
}

impl Places {
    /// The place `at`: a file's line by its file's index, without text.
    pub(super) fn place_at(&mut self, at: At<'_>) -> Place {
        match at {
            At::Line { file, line } => Place::Line {
                file: self.file(file),
                line: u64::from(line),
            },
            At::Text(t) => self.place(t),
        }
    }

    /// The index of `file` (kept from now on).
    #[inline]
    pub(super) fn file(&mut self, file: &str) -> u32 {
        // Most places are of the file of the place before (a followed file's lines): that
        // comparison inlined in the event's path, the rest a call.
        if let Some(i) = self.last {
            // (Word by word: a path of 27 bytes cost a call to `memcmp` per event.)
            if same_bytes(self.texts[i as usize].as_bytes(), file.as_bytes()) {
                return i;
            }
        }
        self.file_found(file)
    }

    /// [`Places::file`] past its first comparison.
    #[inline(never)]
    fn file_found(&mut self, file: &str) -> u32 {
        if self.index.len() != self.texts.len() {
            // Read back from bytes: the index is rebuilt.
            self.index = (0..self.texts.len() as u32)
                .map(|i| (self.texts[i as usize].clone(), i))
                .collect();
        }
        let i = match self.index.get(file) {
            Some(&i) => i,
            None => {
                let i = self.texts.len() as u32;
                self.texts.push(file.into());
                self.index.insert(file.into(), i);
                i
            }
        };
        self.last = Some(i);
        i
    }

    /// File `i`'s name (an index [`Places::file`] gave).
    pub(super) fn file_name(&self, i: u32) -> &str {
        &self.texts[i as usize]
    }

    /// Forgets every file.
    pub(super) fn clear(&mut self) {
        self.texts.clear();
        self.index.clear();
        self.last = None;
    }

    /// The place `at`.
    pub(super) fn place(&mut self, at: &str) -> Place {
        // Most places are of the file of the place before (a followed file's lines).
        if let Some(i) = self.last {
            let file = &self.texts[i as usize];
            if let Some(line) = at
                .strip_prefix(&**file)
                .and_then(|rest| rest.strip_prefix(':'))
                .and_then(line_number)
            {
                return Place::Line { file: i, line };
            }
        }
        let Some((file, line)) = at
            .rsplit_once(':')
            .and_then(|(f, l)| line_number(l).map(|l| (f, l)))
        else {
            return Place::Text(Box::new(at.to_string()));
        };
        Place::Line {
            file: self.file(file),
            line,
        }
    }

    /// The text of `place`, as it was given.
    pub(super) fn text(&self, place: &Place) -> String {
        match place {
            Place::Line { file, line } => format!("{}:{line}", self.texts[*file as usize]),
            Place::Text(t) => t.to_string(),
        }
    }

    /// Bytes held.
    pub(super) fn bytes(&self) -> usize {
        self.texts.iter().map(|t| 2 * t.len() + 48).sum()
    }
}

/// `text` as a line number written in decimal without leading zeros (given back exactly).
fn line_number(text: &str) -> Option<u64> {
    let b = text.as_bytes();
    if b.is_empty() || (b[0] == b'0' && b.len() > 1) {
        return None;
    }
    b.iter().try_fold(0u64, |n, &c| {
        if c.is_ascii_digit() {
            n.checked_mul(10)?.checked_add(u64::from(c - b'0'))
        } else {
            None
        }
    })
}

impl Place {
    /// Bytes held beside the run's own.
    pub(super) fn bytes(&self) -> usize {
        match self {
            Place::Line { .. } => 0,
            Place::Text(t) => 24 + t.capacity(),
        }
    }
}

/// The ids of the runs to settle this round, in the order they were first fed (grouped: of
/// their first events), in one
/// buffer (an id a `String` of its own cost an allocation and a free per run and round: on
/// 100,000 interleaved runs nearly one per event). Serialized as the list of ids.
#[derive(Clone, Debug, Default, PartialEq)]
pub(super) struct Ids {
    text: String,
    /// Where each id ends in `text`.
    ends: Vec<u32>,
}

impl Ids {
    /// Appends `id`.
    #[inline]
    pub(super) fn push(&mut self, id: &str) {
        self.text.push_str(id);
        self.ends.push(self.text.len() as u32);
    }

    /// Whether none is held.
    pub(super) fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }

    /// Forgets every id (keeps the buffers).
    pub(super) fn clear(&mut self) {
        self.text.clear();
        self.ends.clear();
    }

    /// The ids, in order.
    pub(super) fn iter(&self) -> impl Iterator<Item = &str> {
        let starts = std::iter::once(0).chain(self.ends.iter().copied());
        starts
            .zip(&self.ends)
            .map(|(a, &b)| &self.text[a as usize..b as usize])
    }
}

impl Serialize for Ids {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(self.iter())
    }
}

impl<'de> Deserialize<'de> for Ids {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Ids, D::Error> {
        let mut ids = Ids::default();
        for id in Vec::<String>::deserialize(d)? {
            ids.push(&id);
        }
        Ok(ids)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The ids come back in order, empty ones and non-ASCII ones included, and their bytes
    /// are those of the list of strings they replaced (the state's format is unchanged).
    #[test]
    fn ids_are_a_list_of_strings() {
        let list = [
            "r1",
            "",
            "é·x",
            "r1",
            "a much longer run id than the others",
        ];
        let mut ids = Ids::default();
        assert!(ids.is_empty());
        for id in list {
            ids.push(id);
        }
        assert!(!ids.is_empty());
        assert_eq!(ids.iter().collect::<Vec<_>>(), list);
        let config = bincode::config::standard();
        let bytes = bincode::serde::encode_to_vec(&ids, config).expect("encodes");
        let strings: Vec<String> = list.iter().map(|s| s.to_string()).collect();
        assert_eq!(
            bytes,
            bincode::serde::encode_to_vec(&strings, config).expect("encodes")
        );
        let back: Ids = bincode::serde::decode_from_slice(&bytes, config)
            .expect("decodes")
            .0;
        assert_eq!(back, ids);
        ids.clear();
        assert!(ids.is_empty() && ids.iter().next().is_none());
        let none = bincode::serde::encode_to_vec(&ids, config).expect("encodes");
        assert_eq!(
            none,
            bincode::serde::encode_to_vec(Vec::<String>::new(), config).unwrap()
        );
    }

    /// A place gives back its text exactly, whatever its form; the files are kept once.
    #[test]
    fn places_give_back_their_text() {
        let mut p = Places::default();
        let texts = [
            "a.jsonl:1",
            "a.jsonl:0",
            "a.jsonl:007",
            "a.jsonl:",
            "a.jsonl:12x",
            "no line",
            "dir:x/b.jsonl:18446744073709551615",
            "dir:x/b.jsonl:99999999999999999999",
            ":5",
            "a.jsonl:123456",
            "<stdin>:3",
        ];
        let places: Vec<Place> = texts.iter().map(|t| p.place(t)).collect();
        for (t, place) in texts.iter().zip(&places) {
            assert_eq!(p.text(place), *t);
        }
        assert!(matches!(places[2], Place::Text(_)), "{:?}", places[2]);
        assert!(matches!(places[9], Place::Line { file: 0, .. }));
        // Read back from bytes, the index is rebuilt: the same file, the same number.
        let bytes = bincode::serde::encode_to_vec(&p, bincode::config::standard()).unwrap();
        let (mut q, _): (Places, usize) =
            bincode::serde::decode_from_slice(&bytes, bincode::config::standard()).unwrap();
        assert_eq!(q.place("dir:x/b.jsonl:4"), p.place("dir:x/b.jsonl:4"));
        assert_eq!(q.texts.len(), 4, "{:?}", q.texts);
    }

    /// Files of 0 to 24 bytes (of equal lengths, differing in one byte anywhere, with NUL
    /// bytes), asked in a random order: each file has one index, the same as a map from names
    /// gives, whatever the name asked before (the last name is compared word by word).
    #[test]
    fn a_file_has_one_index() {
        let mut rng = multitrace_model::rng::Rng::new(5);
        let mut names: Vec<String> = Vec::new();
        for len in [0, 1, 7, 8, 9, 15, 16, 17, 24, 27, 33] {
            let base: String = (0..len)
                .map(|i| char::from(b'a' + (i % 26) as u8))
                .collect();
            names.push(base.clone());
            for at in 0..len {
                let mut b = base.clone().into_bytes();
                b[at] = if at % 2 == 0 { b'Z' } else { 0 };
                names.push(String::from_utf8(b).unwrap());
            }
        }
        let mut p = Places::default();
        let mut want = std::collections::HashMap::new();
        for _ in 0..5000 {
            let name = &names[rng.below(names.len())];
            let next = want.len() as u32;
            let i = *want.entry(name.clone()).or_insert(next);
            assert_eq!(p.file(name), i, "{name:?}");
            assert_eq!(&*p.texts[i as usize], name.as_str());
        }
        assert_eq!(want.len(), names.len());
    }
}
