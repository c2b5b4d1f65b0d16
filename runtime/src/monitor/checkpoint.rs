//! A monitor's checkpoint: the read positions of its inputs, its session's state as bytes and
//! the length of the output written, in one file replaced atomically (a restart with the
//! same `--state` goes on from the last one written, exactly).

use serde::{Deserialize, Serialize};

/// What a checkpoint of a monitor holds: read positions, the session, the output's length.
#[derive(Debug, Serialize, Deserialize)]
pub struct Checkpoint {
    /// Read positions of the followed files.
    pub positions: Vec<super::follow::Position>,
    /// [`Session::to_bytes`](super::session::Session::to_bytes).
    pub session: Vec<u8>,
    /// Bytes of records written when it was taken.
    pub output_len: u64,
}

impl Checkpoint {
    /// Writes it to `dir/checkpoint` atomically (a temporary file, synced, then renamed).
    pub fn write(&self, dir: &std::path::Path) -> std::io::Result<()> {
        use std::io::Write;
        let bytes = bincode::serde::encode_to_vec(self, bincode::config::standard())
            .map_err(std::io::Error::other)?;
        let tmp = dir.join("checkpoint.tmp");
        let mut f = std::fs::File::create(&tmp)?;
        f.write_all(&bytes)?;
        f.sync_all()?;
        std::fs::rename(&tmp, dir.join("checkpoint"))?;
        if let Ok(d) = std::fs::File::open(dir) {
            let _ = d.sync_all();
        }
        Ok(())
    }

    /// Reads `dir/checkpoint` (`Ok(None)` when there is none yet).
    pub fn read(dir: &std::path::Path) -> Result<Option<Checkpoint>, super::StateError> {
        match std::fs::read(dir.join("checkpoint")) {
            Ok(bytes) => bincode::serde::decode_from_slice(&bytes, bincode::config::standard())
                .map(|(c, _)| Some(c))
                .map_err(|e| super::StateError(e.to_string())),
            Err(_) => Ok(None),
        }
    }
}
