//! A monitor's checkpoint: the read positions of its inputs, its session's state as bytes and
//! the totals of the output written (its length, its records, Fails and Errors), in one file replaced atomically (a restart with the
//! same `--state` goes on from the last one written, exactly). The file starts with
//! [`MAGIC`] and the format's version ([`FORMAT`]): a checkpoint of another version is refused,
//! saying so, never read as something else.

use crate::drive::Totals;
use serde::{Deserialize, Serialize};

/// The first bytes of a checkpoint file, then [`FORMAT`].
const MAGIC: &[u8; 8] = b"MTCHKPT\0";

/// The version of the checkpoint format: 5 since it holds the output's totals, not only its
/// length (format 4: a live run keeps its local verifiers' states; 3: its guess; 2: the
/// session's runs made compact, their places and keys; format 1 had no number).
const FORMAT: u32 = 5;

/// What a checkpoint of a monitor holds: read positions, the session, the output's totals.
#[derive(Debug, Serialize, Deserialize)]
pub struct Checkpoint {
    /// Read positions of the followed files.
    pub positions: Vec<super::follow::Position>,
    /// [`Session::to_bytes`](super::session::Session::to_bytes).
    pub session: Vec<u8>,
    /// The output when it was taken: its length ([`Totals::written`]) and what its records
    /// add up to, so that a restart's exit status counts the records written before it.
    pub totals: Totals,
}

impl Checkpoint {
    /// Writes it to `dir/checkpoint` atomically (a temporary file, synced, then renamed).
    pub fn write(&self, dir: &std::path::Path) -> std::io::Result<()> {
        use std::io::Write;
        let mut bytes = MAGIC.to_vec();
        bytes.extend_from_slice(&FORMAT.to_le_bytes());
        bincode::serde::encode_into_std_write(self, &mut bytes, bincode::config::standard())
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

    /// Reads `dir/checkpoint` (`Ok(None)` when there is none yet); a checkpoint of another
    /// format is refused, saying which.
    pub fn read(dir: &std::path::Path) -> Result<Option<Checkpoint>, super::StateError> {
        let path = dir.join("checkpoint");
        let Ok(bytes) = std::fs::read(&path) else {
            return Ok(None);
        };
        let refuse = |what: String| {
            super::StateError(format!(
                "{}: {what}; this version of multitrace reads checkpoint format {FORMAT} only \
                 (remove the file to start afresh, or go on with the version that wrote it)",
                path.display()
            ))
        };
        let rest = match bytes.strip_prefix(MAGIC.as_slice()) {
            Some(rest) => rest,
            None => {
                return Err(refuse(
                    "a checkpoint without a format number: format 1, of an older version".into(),
                ))
            }
        };
        match rest.first_chunk::<4>().map(|v| u32::from_le_bytes(*v)) {
            Some(FORMAT) => {}
            Some(v) => return Err(refuse(format!("a checkpoint of format {v}"))),
            None => return Err(refuse("truncated".into())),
        }
        bincode::serde::decode_from_slice(&rest[4..], bincode::config::standard())
            .map(|(c, _)| Some(c))
            .map_err(|e| super::StateError(format!("{}: {e}", path.display())))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dir(name: &str) -> std::path::PathBuf {
        let d = std::env::temp_dir().join(format!(
            "multitrace-checkpoint-{name}-{}",
            std::process::id()
        ));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        d
    }

    fn sample() -> Checkpoint {
        Checkpoint {
            positions: Vec::new(),
            session: vec![1, 2, 3],
            totals: Totals {
                records: 3,
                fails: 1,
                bad: false,
                written: 42,
            },
        }
    }

    #[test]
    fn a_checkpoint_reads_back() {
        let d = dir("back");
        assert!(Checkpoint::read(&d).unwrap().is_none());
        sample().write(&d).unwrap();
        let c = Checkpoint::read(&d).unwrap().unwrap();
        assert_eq!((c.session, c.totals), (vec![1, 2, 3], sample().totals));
        let _ = std::fs::remove_dir_all(&d);
    }

    /// A checkpoint of format 1 (the bytes alone, as the version before wrote them) or of
    /// another number (the previous one too) is refused, saying which format this version reads.
    #[test]
    fn a_checkpoint_of_another_format_is_refused_saying_so() {
        let d = dir("old");
        let old = bincode::serde::encode_to_vec(sample(), bincode::config::standard()).unwrap();
        std::fs::write(d.join("checkpoint"), old).unwrap();
        let e = Checkpoint::read(&d).unwrap_err().to_string();
        assert!(
            e.contains("format 1") && e.contains(&format!("reads checkpoint format {FORMAT}")),
            "{e}"
        );
        // The previous format (an output's length without its totals) and a later one.
        for v in [FORMAT - 1, FORMAT + 1] {
            let mut other = MAGIC.to_vec();
            other.extend_from_slice(&v.to_le_bytes());
            std::fs::write(d.join("checkpoint"), other).unwrap();
            let e = Checkpoint::read(&d).unwrap_err().to_string();
            assert!(e.contains(&format!("a checkpoint of format {v}")), "{e}");
        }
        let _ = std::fs::remove_dir_all(&d);
    }
}
