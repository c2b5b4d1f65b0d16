//! The places of the events a session fed unchecked in one round
//! ([`Session::push_deferred`](super::session::Session::push_deferred)), for all its runs: one
//! arena of `FILE:LINE` texts and one linked list per run, emptied when every run is settled.
//! Per run, only a count and the index of its first event stay in its bookkeeping.

use crate::events::OrderKey;
use serde::{Deserialize, Serialize};

/// The pending events' places, for all runs.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub(super) struct Pending {
    text: String,
    events: Vec<PendingEvent>,
}

#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
struct PendingEvent {
    /// `text[from..to]` is its `FILE:LINE`.
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
pub(super) type Place = (String, OrderKey, u64);

impl Pending {
    /// Adds an event read at `at`, the last of the list starting at `head` (a new list when
    /// `None`); returns its index (the head of a new list).
    pub(super) fn add(
        &mut self,
        at: &str,
        key: OrderKey,
        number: u64,
        arrival: u64,
        head: Option<u32>,
    ) -> u32 {
        let index = self.events.len() as u32;
        let from = self.text.len() as u32;
        self.text.push_str(at);
        self.events.push(PendingEvent {
            from,
            to: self.text.len() as u32,
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
    pub(super) fn find(&self, head: Option<u32>, number: u64) -> Option<Place> {
        let mut at = head.unwrap_or(u32::MAX);
        while let Some(p) = self.events.get(at as usize) {
            if p.number == number {
                let text = self.text[p.from as usize..p.to as usize].to_string();
                return Some((text, p.key, p.arrival));
            }
            at = p.next;
        }
        None
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
