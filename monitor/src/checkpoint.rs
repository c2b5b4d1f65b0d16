//! A monitor's checkpoint: the read positions of its inputs, its session's state as bytes and
//! the totals of the output written (its length, its records, Fails and Errors), in one file replaced atomically (a restart with the
//! same `--state` goes on from the last one written, exactly). The file starts with
//! [`MAGIC`] and the format's version ([`FORMAT`]) and ends with a checksum (the first 8 bytes
//! of the SHA-256 of everything before it): a checkpoint of another version, or one changed
//! or cut since it was written, is refused, saying so, never read as something else; so is
//! one written for another model (its digest is in it: [`Checkpoint::model`]).

use crate::drive::Totals;
use multitrace_model::hash::checksum;
use serde::{Deserialize, Serialize};

/// The first bytes of a checkpoint file, then [`FORMAT`].
const MAGIC: &[u8; 8] = b"MTCHKPT\0";

/// The version of the checkpoint format: 8 since a position holds its rotated file's (7: the wall
/// clock; 6: it ends with a
/// checksum and names its model; 5: it holds the output's totals, not only its length; format 4: a live run keeps its local verifiers' states; 3: its guess; 2: the
/// session's runs made compact, their places and keys; format 1 had no number).
const FORMAT: u32 = 8;

/// What a checkpoint of a monitor holds: read positions, the session, the output's totals.
#[derive(Debug, Serialize, Deserialize)]
pub struct Checkpoint {
    /// The digest of the model the monitor checks (a restart with another model is refused:
    /// its runs' states would be read as states of that model).
    pub model: u64,
    /// Read positions of the followed files.
    pub positions: Vec<super::follow::Position>,
    /// [`Session::to_bytes`](super::session::Session::to_bytes).
    pub session: Vec<u8>,
    /// The output when it was taken: its length ([`Totals::written`]) and what its records
    /// add up to, so that a restart's exit status counts the records written before it.
    pub totals: Totals,
    /// The session's wall clock when it was taken: a restart's clock goes on from it, the
    /// time it was down added, so that a wall-clock `--idle-timeout` counts across restarts.
    pub wall: Wall,
}

/// A session's wall clock (nanoseconds since its first start, the times of its runs' last
/// events) and the system's time (nanoseconds since the Unix epoch) at one moment.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Wall {
    /// The session's clock.
    pub session: u64,
    /// The system's clock.
    pub unix: u64,
}

impl Wall {
    /// The session's clock `session` now.
    pub fn now(session: u64) -> Wall {
        let unix = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos() as u64);
        Wall { session, unix }
    }

    /// The session's clock now, after a stop: where it was, plus the time since (none if the
    /// system's clock went back).
    pub fn resumed(&self) -> u64 {
        let now = Wall::now(0).unix;
        self.session + now.saturating_sub(self.unix)
    }
}

impl Checkpoint {
    /// Writes it to `dir/checkpoint` atomically (a temporary file, synced, then renamed).
    /// The temporary file is made new (`O_EXCL`, and `O_NOFOLLOW` on Unix): a file or link
    /// planted at its name is removed first, never written through.
    pub fn write(&self, dir: &std::path::Path) -> std::io::Result<()> {
        use std::io::Write;
        let mut bytes = MAGIC.to_vec();
        bytes.extend_from_slice(&FORMAT.to_le_bytes());
        bincode::serde::encode_into_std_write(self, &mut bytes, bincode::config::standard())
            .map_err(std::io::Error::other)?;
        let sum = checksum(&bytes);
        bytes.extend_from_slice(&sum);
        let tmp = dir.join("checkpoint.tmp");
        // (Removing a symbolic link removes the link, not its target.)
        match std::fs::remove_file(&tmp) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => return Err(e),
            _ => {}
        }
        let mut o = std::fs::OpenOptions::new();
        o.write(true).create_new(true);
        #[cfg(unix)]
        {
            use std::os::unix::fs::OpenOptionsExt;
            o.custom_flags(libc::O_NOFOLLOW);
        }
        let mut f = o.open(&tmp)?;
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
            None if bytes.is_empty() => {
                return Err(refuse(
                    "an empty checkpoint (a file left by something else than the monitor, \
                     whose checkpoints are never empty)"
                        .into(),
                ))
            }
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
        let damaged = || {
            super::StateError(format!(
                "{}: the checkpoint's checksum does not match its bytes: it was changed, cut or \
                 damaged since it was written (remove it to start afresh; the output then \
                 starts again from the sources' beginnings)",
                path.display()
            ))
        };
        let Some(body_len) = bytes.len().checked_sub(8).filter(|&n| n >= MAGIC.len() + 4) else {
            return Err(damaged());
        };
        let (body, sum) = bytes.split_at(body_len);
        if checksum(body) != sum {
            return Err(damaged());
        }
        bincode::serde::decode_from_slice(&body[MAGIC.len() + 4..], bincode::config::standard())
            .map(|(c, _)| Some(c))
            .map_err(|_| damaged())
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
            model: 7,
            positions: Vec::new(),
            session: vec![1, 2, 3],
            totals: Totals {
                records: 3,
                fails: 1,
                bad: false,
                written: 42,
            },
            wall: Wall {
                session: 5,
                unix: 9,
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

    /// A restart's wall clock goes on from the checkpoint's, the time it was down added (a
    /// wall-clock idle timeout counts across restarts), and never goes back.
    #[test]
    fn the_wall_clock_goes_on_across_a_restart() {
        let taken = Wall::now(7_000_000_000);
        let down = Wall {
            unix: taken.unix - 3_000_000_000,
            ..taken
        };
        assert!(down.resumed() >= 10_000_000_000, "{}", down.resumed());
        let ahead = Wall {
            unix: taken.unix + 3_000_000_000_000,
            ..taken
        };
        assert_eq!(ahead.resumed(), 7_000_000_000);
        let d = dir("wall");
        Checkpoint {
            wall: taken,
            ..sample()
        }
        .write(&d)
        .unwrap();
        assert_eq!(Checkpoint::read(&d).unwrap().unwrap().wall, taken);
        let _ = std::fs::remove_dir_all(&d);
    }

    /// Every byte flipped, and every cut, is refused (a checksum mismatch, or the header's
    /// own refusal), never read as another checkpoint; a link planted at the temporary
    /// file's name is replaced, not written through.
    #[test]
    fn a_damaged_checkpoint_is_refused() {
        let d = dir("damaged");
        sample().write(&d).unwrap();
        let good = std::fs::read(d.join("checkpoint")).unwrap();
        for i in 0..good.len() {
            let mut bad = good.clone();
            bad[i] ^= 0x10;
            std::fs::write(d.join("checkpoint"), &bad).unwrap();
            assert!(Checkpoint::read(&d).is_err(), "byte {i} flipped");
            std::fs::write(d.join("checkpoint"), &good[..i]).unwrap();
            assert!(Checkpoint::read(&d).is_err(), "cut at {i}");
        }
        #[cfg(unix)]
        {
            let target = d.join("target");
            std::fs::write(&target, b"keep").unwrap();
            std::os::unix::fs::symlink(&target, d.join("checkpoint.tmp")).unwrap();
            sample().write(&d).unwrap();
            assert_eq!(std::fs::read(&target).unwrap(), b"keep");
            assert_eq!(Checkpoint::read(&d).unwrap().unwrap().model, 7);
        }
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
