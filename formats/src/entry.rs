//! Multitraces held in memory, as a front end gives them to a batch: by names or by letters.

use multitrace_model::nfa::LetterId;
use multitrace_model::record::Record;

/// A multitrace held in memory: its local traces by location name.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Item {
    /// Its name in the record (`trace`): where it came from.
    pub trace: String,
    /// Its id in the record, if any.
    pub id: Option<String>,
    /// Local traces by location name, each a list of letter names (for an interaction, actions
    /// such as `l1!m1`); a location not listed has an empty local trace.
    ///
    /// The names are the model's locations; for an interaction model they may also be other
    /// groups of lifelines (`l1,l2` for two co-localized lifelines, as `.htf` components name
    /// them), in which case the multitrace is checked by term exploration like such an `.htf`
    /// file.
    pub traces: Vec<(String, Vec<String>)>,
}

/// A multitrace held in memory with its letters already resolved: one local trace per
/// location of the model, in location order (what a front end builds when it looks names up
/// itself, e.g. the Python package with a dict of the model's names).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Letters {
    /// Its name in the record (`trace`).
    pub trace: String,
    /// Its id in the record, if any.
    pub id: Option<String>,
    /// One local trace per location; each letter must be one of that location's letters.
    pub letters: Vec<Vec<LetterId>>,
}

/// An in-memory multitrace: by names ([`Item`]) or by letters ([`Letters`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Entry {
    /// Local traces by location and letter names.
    Names(Item),
    /// Local traces as letters, in location order.
    Letters(Letters),
}

impl From<Item> for Entry {
    fn from(item: Item) -> Self {
        Entry::Names(item)
    }
}

impl From<Letters> for Entry {
    fn from(letters: Letters) -> Self {
        Entry::Letters(letters)
    }
}

/// A whole run of an event log, ready to check: its local traces as letters (each sorted by
/// order key, equal keys in input order) and the order its events arrived in.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct OfflineRun {
    /// `FILE:LINE` of its first event (the record's `trace`).
    pub trace: String,
    /// The run id (the record's `id`).
    pub id: Option<String>,
    /// One local trace per location of the model, in location order.
    pub letters: Vec<Vec<LetterId>>,
    /// The location of each event, in the order the events arrived (its `n` first entries name
    /// the cut of the first `n` events).
    pub arrivals: Vec<u32>,
}

/// What the offline path hands a batch, in order: a run to check, or a record already
/// decided (a run with a bad event, an event without a run, a file that cannot be read).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum OfflineOut {
    /// A run to check.
    Run(OfflineRun),
    /// A record written as it is.
    Record(Box<Record>),
}
