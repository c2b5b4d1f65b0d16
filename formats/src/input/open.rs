//! Opening inputs: compressed files read transparently.
//!
//! A name ending in `.gz` (gzip, several members allowed) or `.zst` (Zstandard) is
//! decompressed while it is read, and what it holds is told by the extension before
//! (`trace.htf.gz`, `runs.jsonl.zst`). A compressed trace file has the same size limit as a
//! plain one, on its decompressed text.

use multitrace_model::syntax::{read_text, text_of_bytes, ModelError, MAX_TEXT_BYTES};
use std::io::Read;
use std::path::Path;

/// The compression of a file, told by its last extension.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Compression {
    /// `.gz`.
    Gzip,
    /// `.zst`.
    Zstd,
}

impl Compression {
    /// The compression of `path`, if its name ends in `.gz` or `.zst`.
    pub fn of(path: &Path) -> Option<Self> {
        match path.extension()?.to_str()? {
            "gz" => Some(Compression::Gzip),
            "zst" => Some(Compression::Zstd),
            _ => None,
        }
    }
}

/// The extension that says what `path` holds: its last one, or the one before `.gz`/`.zst`
/// (`htf` for `a.htf.gz`).
pub fn content_extension(path: &Path) -> Option<&str> {
    match Compression::of(path) {
        Some(_) => Path::new(path.file_stem()?).extension()?.to_str(),
        None => path.extension()?.to_str(),
    }
}

/// Whether a path is read as JSON Lines: `-` (standard input) or a `.jsonl` file.
/// Compressed JSON Lines (`.jsonl.gz`, `.jsonl.zst`) are streams too.
pub fn is_streamed(path: &Path) -> bool {
    path.as_os_str() == "-" || content_extension(path) == Some("jsonl")
}

/// Opens `path` for reading, decompressing it when its name says it is compressed.
pub fn open_input(path: &Path) -> std::io::Result<Box<dyn Read + Send>> {
    let file = std::fs::File::open(path)?;
    Ok(match Compression::of(path) {
        None => Box::new(file),
        Some(Compression::Gzip) => Box::new(flate2::read::MultiGzDecoder::new(
            std::io::BufReader::new(file),
        )),
        Some(Compression::Zstd) => Box::new(zstd::stream::read::Decoder::new(file)?),
    })
}

/// The text of a trace file, decompressed when its name says it is compressed, with the
/// limits and checks of [`read_text`] (size, UTF-8).
pub fn read_input_text(path: &Path) -> Result<String, ModelError> {
    if Compression::of(path).is_none() {
        return read_text(path);
    }
    let io = |e: std::io::Error| ModelError::Io {
        path: path.to_path_buf(),
        message: format!("cannot decompress: {e}"),
    };
    let mut bytes = Vec::new();
    open_input(path)
        .map_err(io)?
        .take(MAX_TEXT_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(io)?;
    if bytes.len() as u64 > MAX_TEXT_BYTES {
        return Err(ModelError::Io {
            path: path.to_path_buf(),
            message: format!(
                "larger than {MAX_TEXT_BYTES} bytes once decompressed, the largest text input multitrace reads; split it"
            ),
        });
    }
    text_of_bytes(&path.display().to_string(), bytes).map_err(ModelError::Parse)
}
