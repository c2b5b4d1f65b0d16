//! Readers of formats other tools write: names made from free text ([`label_name`]), XES event
//! logs and OpenTelemetry spans, turned into the events that `check --events` groups.

mod label;

pub use label::label_name;
pub mod otel;
pub mod xes;
