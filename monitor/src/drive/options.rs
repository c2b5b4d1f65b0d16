//! What the driving loop is asked: how events are read, when runs end, how records are
//! written, where checkpoints go.

use super::write::LineFormat;
use multitrace_check::settings::Settings;
use multitrace_check::{CheckOptions, Choice};
use multitrace_formats::events::{EventFormat, EventOptions};
use multitrace_model::verdict::Mode;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// The mapping of OpenTelemetry spans to events (`--otel-map`).
#[cfg(feature = "otel")]
pub type OtelMap = multitrace_formats::otel::OtelMap;
/// Without the `otel` feature no spans are read: no mapping can be given.
#[cfg(not(feature = "otel"))]
pub type OtelMap = std::convert::Infallible;

/// Why the mapping of spans cannot be had.
#[derive(Debug)]
pub enum OtelMapError {
    /// Spans asked of a build without the `otel` feature.
    NotBuilt,
    /// The mapping file cannot be read or parsed.
    Read(multitrace_model::syntax::ModelError),
}

impl std::fmt::Display for OtelMapError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            OtelMapError::NotBuilt => f.write_str(
                "--otel: this build of multitrace lacks OpenTelemetry support (the `otel` cargo feature); rebuild with default features (`cargo install multitrace`) or `--features otel`",
            ),
            OtelMapError::Read(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for OtelMapError {}

/// The mapping of spans when the sources hold spans (`spans`: `--otel`, `--otlp-http` or
/// `--otlp-grpc`): the default rules, or those of the mapping file `file` (`--otel-map`);
/// `None` otherwise.
pub fn otel_map(spans: bool, file: Option<&Path>) -> Result<Option<OtelMap>, OtelMapError> {
    #[cfg(feature = "otel")]
    {
        let read = |f| multitrace_formats::otel::read_otel_map(f).map_err(OtelMapError::Read);
        spans.then(|| read(file)).transpose()
    }
    #[cfg(not(feature = "otel"))]
    {
        let _ = file;
        if spans {
            Err(OtelMapError::NotBuilt)
        } else {
            Ok(None)
        }
    }
}

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
    /// Requests of spans received (`--otlp-http`, `--otlp-grpc`; with `otel`'s mapping):
    /// checked as lines are, the loop runs until stopped, then closes it and drains what it
    /// acknowledged.
    pub inbox: Option<crate::receive::Inbox>,
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
