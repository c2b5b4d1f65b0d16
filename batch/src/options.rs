//! How a batch runs: its workers, the longest line it reads, how far ahead of the sink it
//! may be.

pub use multitrace_formats::input::DEFAULT_MAX_LINE_BYTES;
pub use multitrace_model::budget::default_jobs;

/// Default inputs a worker may be ahead of the sink.
pub const DEFAULT_WINDOW_PER_JOB: usize = 64;

/// Most worker threads a batch starts.
pub const MAX_JOBS: usize = 256;

/// How a batch runs (what each multitrace is asked is
/// [`CheckOptions`](multitrace_check::CheckOptions)).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BatchOptions {
    /// Worker threads (at least 1, at most [`MAX_JOBS`]).
    pub jobs: usize,
    /// Longest JSON Lines line in bytes (without its line break); a longer line is an `Error`
    /// record and the rest of its input is not read.
    pub max_line_bytes: u64,
    /// Tasks each worker may run ahead of the sink (at least 1): at most `jobs *
    /// window_per_job` tasks wait for the sink at any time, a task being one input, up to 32
    /// trace files next to each other (when there are many), or a chunk of JSON lines (at
    /// most `CHUNK_LINES` records and
    /// `CHUNK_BYTES` bytes of input, or one longer line).
    pub window_per_job: usize,
}

impl Default for BatchOptions {
    fn default() -> Self {
        BatchOptions {
            jobs: default_jobs(),
            max_line_bytes: DEFAULT_MAX_LINE_BYTES,
            window_per_job: DEFAULT_WINDOW_PER_JOB,
        }
    }
}
