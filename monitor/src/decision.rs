//! What a session hands back: a run's record ready to be written ([`Decision`]), why it was
//! written then ([`Closed`]), and its two renderings (`check`'s record with a `monitor`
//! object, and a text line). Invariant: the same run fed the same events gives the same
//! `Decision`, however its events were batched, checkpointed or restored.

use super::{LiveRun, Monitor};
use multitrace_formats::events::OrderKey;
use multitrace_model::record::{ErrorRecord, Names, Record};
use multitrace_model::verdict::{Sym, Verdict, VerdictKind};
use serde::{Deserialize, Serialize};
use std::time::Duration;

/// Why a record was written.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Closed {
    /// An event decided the run (Fail or Inconclusive).
    Decided,
    /// A bad or late event: an Error record.
    Error,
    /// The run's end event.
    EndEvent,
    /// No event for the idle timeout.
    Idle,
    /// The end of the input.
    EndOfInput,
    /// The monitor was stopped (SIGINT/SIGTERM): the verdict of the run cut there.
    Stop,
    /// Closed to keep at most `--max-live-runs` runs live (the oldest idle one).
    Evicted,
}

impl Closed {
    /// The name in records.
    pub fn name(self) -> &'static str {
        match self {
            Closed::Decided => "decided",
            Closed::Error => "error",
            Closed::EndEvent => "end-event",
            Closed::Idle => "idle",
            Closed::EndOfInput => "end-of-input",
            Closed::Stop => "stop",
            Closed::Evicted => "evicted",
        }
    }
}

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
    /// What a record's `monitor` object says of it (the location named).
    pub fn note(&self, monitor: &Monitor<'_>) -> LateNote {
        let why = match self.why {
            LateWhy::Search => "a multi-prefix search ran out of --max-live-vertices".to_string(),
            LateWhy::Product(j) => format!(
                "location {} lags behind the others and the product of its pending events \
                 outgrew --max-live-vertices: the run was checked from its traces since",
                monitor
                    .engine()
                    .model()
                    .alphabet
                    .location_name(multitrace_model::nfa::LocationId(j))
            ),
        };
        LateNote {
            since_event: self.since,
            why,
        }
    }
}

/// What the record of `run`'s verdict `v` says of being late: for a Fail whose run could not
/// be checked at each event since some event, since when and why; `None` for any other.
pub(crate) fn late_note(monitor: &Monitor<'_>, v: &Verdict, run: &LiveRun) -> Option<LateNote> {
    (v.kind == VerdictKind::Fail)
        .then(|| run.late())
        .flatten()
        .map(|l| l.note(monitor))
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

/// A record ready to be written: the run, its verdict (or Error) and what decided it.
#[derive(Clone, Debug, PartialEq)]
pub struct Decision {
    /// The run id.
    pub run: String,
    /// `FILE:LINE` of its first event.
    pub first_at: String,
    /// The verdict, or the Error.
    pub verdict: Result<Verdict, ErrorRecord>,
    /// Why now.
    pub closed: Closed,
    /// `FILE:LINE` of the deciding event (the last event fed when the run ended).
    pub at: Option<String>,
    /// Its order key.
    pub order: Option<OrderKey>,
    /// Events of the run so far.
    pub events: u64,
    /// Bytes of the run's state by its content ([`LiveRun::state_bytes`](super::run::LiveRun::state_bytes)): the same however the run was fed or restored.
    pub bytes: usize,
    /// The session's arrival number of the deciding event (`u64::MAX` for a run closed by an
    /// end, a timeout, an eviction or a stop): [`Session::settle`](super::session::Session::settle)
    /// hands back a round's decisions in this order, the order of the events that decided
    /// them, as when every event is checked at once.
    pub arrival: u64,
    /// A Fail written later than the event that made it certain may have been: since when,
    /// and why (`None` for every other record).
    pub late: Option<LateNote>,
}

impl Decision {
    /// The record, with the schema of `check` (`trace` is the first event's `FILE:LINE`).
    pub fn record(&self, monitor: &Monitor<'_>) -> Record {
        let model = monitor.engine().model();
        match &self.verdict {
            Ok(v) => {
                let render = |s: Sym| model.sym_name(s);
                let names = Names {
                    render: &render,
                    locations: model.alphabet.location_names(),
                };
                Record::checked(
                    self.first_at.clone(),
                    Some(self.run.clone()),
                    v,
                    monitor.procedure(),
                    &names,
                    Duration::ZERO,
                )
            }
            Err(e) => Record::error(
                self.first_at.clone(),
                Some(self.run.clone()),
                e.clone(),
                Duration::ZERO,
            ),
        }
    }
}

impl Decision {
    /// The record as one JSON line: `check`'s record with a `monitor` object added (why it
    /// was written, whether the stop cut the run, the deciding event's `FILE:LINE` and order
    /// key, the run's events and state bytes, and for a Fail that may be late, since when and why).
    pub fn to_json(&self, record: &Record) -> String {
        let mut j = record.to_json();
        j.pop();
        let order = self.order.as_ref().map(|k| match *k {
            OrderKey::Int(i) => serde_json::Value::String(i.to_string()),
            OrderKey::Float(f) => f.into(),
            OrderKey::Time(ns) => serde_json::Value::String(format!("{ns}ns")),
        });
        // A struct, not a `json!` map, so that the keys come in this order whatever features
        // serde_json is built with (the Python package's `preserve_order` among them).
        #[derive(serde::Serialize)]
        struct Extra<'a> {
            at: &'a Option<String>,
            closed: &'static str,
            cut: bool,
            events: u64,
            order: Option<serde_json::Value>,
            state_bytes: usize,
            #[serde(skip_serializing_if = "Option::is_none")]
            late: &'a Option<LateNote>,
        }
        let extra = Extra {
            at: &self.at,
            closed: self.closed.name(),
            cut: self.closed == Closed::Stop,
            events: self.events,
            order,
            state_bytes: self.bytes,
            late: &self.late,
        };
        let extra = serde_json::to_string(&extra).expect("a record serializes");
        j.push_str(&format!(",\"monitor\":{extra}}}"));
        j
    }

    /// The record as one text line, with why it was written and where.
    pub fn text_line(&self, record: &Record) -> String {
        format!(
            "{}  [{}{}, {} events]",
            record.text_line(),
            self.closed.name(),
            self.at
                .as_ref()
                .map_or(String::new(), |a| format!(" at {a}")),
            self.events
        )
    }
}
