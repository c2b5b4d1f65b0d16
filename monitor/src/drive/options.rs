//! What the driving loop is asked: how events are read, when runs end, how records are
//! written, where checkpoints go.

use super::write::LineFormat;
use multitrace_check::settings::Settings;
use multitrace_check::{CheckOptions, Choice};
use multitrace_formats::events::{EventFormat, EventOptions};
use multitrace_model::verdict::Mode;
use std::path::PathBuf;
use std::time::Duration;

/// The mapping of OpenTelemetry spans to events (`--otel-map`).
#[cfg(feature = "otel")]
pub type OtelMap = multitrace_formats::otel::OtelMap;
/// Without the `otel` feature no spans are read: no mapping can be given.
#[cfg(not(feature = "otel"))]
pub type OtelMap = std::convert::Infallible;

/// What the loop is asked.
pub struct DriveOptions {
    /// The fields of an event (run, action, order key).
    pub events: EventOptions,
    /// The format of every source (`None`: `.csv` files are CSV, anything else JSON Lines).
    pub format: Option<EventFormat>,
    /// A run ends after an event whose field of this name is true.
    pub end_field: Option<String>,
    /// Whether runs end after a while without events (the session's idle timeout is asked
    /// about a tenth of a second apart).
    pub idle_timeout: Option<Duration>,
    /// The sources hold OpenTelemetry spans (one OTLP JSON request per line), mapped so.
    pub otel: Option<OtelMap>,
    /// With `otel`: a service's events wait while one of its spans' parents in that service
    /// has not come (`--arrival parents`, the default with spans).
    pub parents: bool,
    /// How records are written.
    pub output: LineFormat,
    /// The checkpoint directory.
    pub state: Option<PathBuf>,
    /// Milliseconds between checkpoints.
    pub checkpoint_ms: u64,
}

/// The options of every check of a live monitor, from the numbers a front end takes (`0`: no
/// limit): one thread checks every live run, so its memory budget is the default of one
/// worker; no witnesses; a diagnosis's search has 1,000,000 vertices; every reduction of term
/// exploration on.
pub fn live_check_options(
    mode: Mode,
    choice: Choice,
    timeout_ms: u64,
    max_vertices: u64,
    diagnosis: bool,
) -> CheckOptions {
    Settings {
        mode,
        choice,
        witness: false,
        timeout_ms,
        max_vertices,
        diagnosis,
        max_diagnosis_vertices: 1_000_000,
        max_memory_mb: multitrace_model::budget::default_max_memory(1) >> 20,
        por: true,
        loc: true,
        memo: true,
    }
    .check_options()
}
