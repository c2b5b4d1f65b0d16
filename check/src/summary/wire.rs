//! The wire format of a summary: the JSON object one `local` host writes and `central` reads
//! ([`LocalSummary`]), before any check against a model.

use multitrace_model::verdict::Mode;
use serde::{Deserialize, Serialize};

/// The `format` field of every summary.
pub const FORMAT: &str = "multitrace-local-summary";

/// The summary format version this crate writes and reads.
pub const VERSION: u32 = 1;

/// A local summary as written on disk (the wire format; see the module documentation). Read
/// one with [`read_summary`](super::read_summary), which validates it against the model.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LocalSummary {
    /// Always [`FORMAT`].
    pub format: String,
    /// Format version ([`VERSION`]).
    pub version: u32,
    /// Digest of the compiled model, as 16 hexadecimal digits.
    pub digest: String,
    /// The location's name.
    pub location: String,
    /// `"complete"` or `"prefix"`.
    pub mode: String,
    /// The local trace, as letter names.
    pub trace: Vec<String>,
    /// `"Pass"` or `"LocalError"`.
    pub verdict: String,
    /// For a LocalError: the first position (from 0) that cannot be read, or the trace length
    /// when the trace ends where it may not.
    pub position: Option<usize>,
    /// For a LocalError: the letters readable there.
    pub expected: Vec<String>,
    /// For a Pass: `Area(μi)` as hexadecimal 64-bit words, least significant transition first.
    pub area: Option<String>,
}

/// The name of a mode in summaries.
pub fn mode_name(mode: Mode) -> &'static str {
    match mode {
        Mode::Complete => "complete",
        Mode::Prefix => "prefix",
    }
}

/// Writes a summary as pretty-printed JSON followed by a newline.
pub fn write_summary(summary: &LocalSummary, out: &mut impl std::io::Write) -> std::io::Result<()> {
    serde_json::to_writer_pretty(&mut *out, summary).map_err(std::io::Error::other)?;
    out.write_all(b"\n")
}
