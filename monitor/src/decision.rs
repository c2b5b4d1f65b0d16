//! What a session hands back: a run's record ready to be written ([`Decision`]), why it was
//! written then ([`Closed`]), and its two renderings (`check`'s record with a `monitor`
//! object, and a text line). Invariant: the same run fed the same events gives the same
//! `Decision`, however its events were batched, checkpointed or restored.

use super::late::LateNote;
use super::Monitor;
use multitrace_formats::events::OrderKey;
use multitrace_model::record::{ErrorRecord, Names, Record};
use multitrace_model::verdict::{Sym, Verdict};
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
    /// end, a timeout, an eviction or a stop, and for a late event of a closed run): [`Session::settle`](super::session::Session::settle)
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
