//! Where a monitor starts: a new session, or the one its checkpoint saved (`--state DIR`),
//! and the output it appends to, cut back to the length that checkpoint recorded.
//!
//! Invariant: what was written after the last checkpoint is cut from the output, because the
//! restarted monitor writes it again from the saved read positions; so the output of a
//! monitor killed and restarted is the output of one that never stopped.

use crate::follow::Position;
use crate::session::{Checkpoint, Session, SessionOptions};
use crate::StateError;
use std::fmt;
use std::io::Write;
use std::path::{Path, PathBuf};

/// A session to drive, and where it resumes.
pub struct Start {
    /// The session (new, or as checkpointed).
    pub session: Session,
    /// The read positions of the followed sources (empty: from their starts).
    pub positions: Vec<Position>,
    /// Bytes of records the output held at the checkpoint (0 for a new session).
    pub output_len: u64,
}

/// Why the state directory cannot give a start.
#[derive(Debug)]
pub enum StartError {
    /// The directory cannot be created, or its checkpoint cannot be read.
    State {
        /// The `--state` directory.
        dir: PathBuf,
        /// What failed.
        source: Box<dyn std::error::Error + Send + Sync>,
    },
    /// The checkpoint's session was written by another version or for another model.
    Session(StateError),
}

impl fmt::Display for StartError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            StartError::State { dir, source } => write!(f, "--state {}: {source}", dir.display()),
            StartError::Session(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for StartError {}

impl Start {
    /// A new session with `opts`, or, with a state directory (created if needed), the one its
    /// checkpoint saved.
    pub fn resume(state: Option<&Path>, opts: SessionOptions) -> Result<Start, StartError> {
        let fresh = |opts| Start {
            session: Session::new(opts),
            positions: Vec::new(),
            output_len: 0,
        };
        let Some(dir) = state else {
            return Ok(fresh(opts));
        };
        let failed = |source: Box<dyn std::error::Error + Send + Sync>| StartError::State {
            dir: dir.to_path_buf(),
            source,
        };
        std::fs::create_dir_all(dir).map_err(|e| failed(e.into()))?;
        Ok(match Checkpoint::read(dir).map_err(|e| failed(e.into()))? {
            Some(c) => Start {
                session: Session::from_bytes(&c.session, opts).map_err(StartError::Session)?,
                positions: c.positions,
                output_len: c.output_len,
            },
            None => fresh(opts),
        })
    }
}

/// The output records are appended to: the file `path` (created if needed; with a state
/// directory, cut back to `output_len`, as the checkpoint left it), else standard output.
pub fn open_output(path: Option<&Path>, cut_to: Option<u64>) -> std::io::Result<Box<dyn Write>> {
    Ok(match path {
        Some(path) => {
            let f = std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(path)?;
            if let Some(len) = cut_to {
                // Drop what was written after the last checkpoint: it is written again.
                f.set_len(len)?;
            }
            Box::new(std::io::BufWriter::new(f))
        }
        None => Box::new(std::io::BufWriter::new(std::io::stdout().lock())),
    })
}
