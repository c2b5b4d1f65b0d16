//! Reading inputs: files opened and decompressed ([`open`]), lines read with a bound and
//! streams cut into chunks of whole lines ([`lines`]), directories walked in natural order
//! ([`walk`]). Every reader of runs and events, the batch and the monitor read through here.

pub mod lines;
pub mod open;
pub mod walk;

pub use lines::{
    lines_of, read_line_bounded, split_chunk, BadText, Cut, Cutter, LineRead, CHUNK_BYTES,
    CHUNK_LINES, DEFAULT_MAX_LINE_BYTES,
};
pub use open::{content_extension, is_streamed, open_input, read_input_text, Compression};
pub use walk::{collect_traces, natural_cmp, WalkError};
