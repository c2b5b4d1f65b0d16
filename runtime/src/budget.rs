//! Resource limits of a check: every procedure (and the diagnosis) counts search vertices and
//! may watch the clock; when a limit is reached the answer is Inconclusive (or a partial
//! diagnosis), never a guess.

use std::time::Duration;

/// Resource limits for one multitrace.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Budget {
    /// Most search vertices (global and local analyses together); `None` for no limit.
    pub max_vertices: Option<u64>,
    /// Most wall-clock time; `None` for no limit.
    pub timeout: Option<Duration>,
}

impl Default for Budget {
    fn default() -> Self {
        Budget {
            max_vertices: Some(5_000_000),
            timeout: None,
        }
    }
}
