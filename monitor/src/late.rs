//! Why a live run's Fail may be written later than the event that made it certain
//! ([`Late`]), and how its record says so ([`LateNote`], `monitor.late`).

use serde::{Deserialize, Serialize};

/// Why a run's Fail may come later than the first event that made it certain: since event
/// `since` (from 1) the monitor could not tell at each event whether the run was still a
/// multi-prefix, so the Fail it writes may have been certain at any event from there.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Late {
    /// The first event at which the Fail may already have been certain.
    pub since: u64,
    /// What stopped the checks at each event.
    pub why: LateWhy,
}

/// What stopped a run's checks at each event ([`Late`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum LateWhy {
    /// A multi-prefix search ran out of `--max-live-vertices`.
    Search,
    /// The product of the pending events of this location, which lags behind the others,
    /// outgrew `--max-live-vertices`: the run is checked from its traces since (the local
    /// verifiers at each event, the batch check at doubling event counts and at its end).
    Product(u32),
}

impl Late {
    /// What a record's `monitor` object says of it (`locations`: the model's location names).
    pub fn note(&self, locations: &[String]) -> LateNote {
        let why = match self.why {
            LateWhy::Search => "a multi-prefix search ran out of --max-live-vertices".to_string(),
            LateWhy::Product(j) => format!(
                "location {} lags behind the others and the product of its pending events \
                 outgrew --max-live-vertices: the run was checked from its traces since",
                locations.get(j as usize).map_or("?", String::as_str)
            ),
        };
        LateNote {
            since_event: self.since,
            why,
        }
    }
}

/// A late Fail as its record's `monitor` object writes it (`"late": {...}`): the Fail may
/// have been certain from event `since_event` on; raise `--max-live-vertices` for it sooner.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct LateNote {
    /// See [`Late::since`].
    pub since_event: u64,
    /// Why.
    pub why: String,
}
