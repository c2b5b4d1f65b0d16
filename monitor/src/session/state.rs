//! The session itself ([`Session`]): its runs, its counters and clock, the runs to settle and
//! the places of their events; and the whole state as bytes ([`Session::to_bytes`],
//! [`Session::from_bytes`]), the format's version first.
//!
//! Invariant: the bytes hold every run, the counters and the places; the pending events'
//! places are empty whenever a state is written, and the options are not written.

use super::ended::Ended;
use super::options::SessionOptions;
use super::pending::{Ids, Pending, Places};
use super::runs::Runs;
use serde::{Deserialize, Serialize};

/// The first bytes of [`Session::to_bytes`], then [`STATE_FORMAT`].
const STATE_MAGIC: &[u8; 8] = b"MTSESSN\0";

/// The version of [`Session::to_bytes`]' format: 6 since a session keeps the bound of its
/// runs' last timestamps that its idle closing scans by (5: a session remembers the runs it
/// closed, and a live run why its Fail may be late; 4: a live run keeps its spans and
/// whether a correction was written; 3: a live run keeps its guess and the events its
/// product skipped; 2: runs keep their places and keys compact; a state of format 1, which
/// had no number, is refused).
const STATE_FORMAT: u32 = 6;

/// All live runs of a stream.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Session {
    /// Boxed: the map's slack (a quarter of its slots may be empty) costs a pointer per
    /// slot, not a whole run.
    pub(super) runs: Runs,
    pub(super) arrivals: u64,
    /// Largest timestamp seen (the stream's event clock).
    pub(super) clock: Option<i128>,
    /// The caller's wall clock when `clock` last moved (not kept in a state: a restart
    /// counts the idleness from its first event or call of [`Session::advance`]).
    #[serde(skip)]
    pub(super) clock_wall: Option<u64>,
    /// Runs with events fed unchecked, to settle ([`Session::settle`]).
    pub(super) dirty: Ids,
    // Empty whenever a state is written (the monitor checkpoints after `settle`; Python's
    // events are checked at once): its events' layout is not part of format 3's bytes.
    pub(super) pending: Pending,
    /// The files of the runs' places.
    pub(super) places: Places,
    /// The runs closed lately (their late events are said to be late).
    pub(super) ended: Ended,
    #[serde(skip)]
    pub(super) opts: Option<SessionOptions>,
    /// The wall clock its caller starts from (not kept in a state: a monitor's checkpoint
    /// keeps it, with the system's time, see [`Wall`](crate::checkpoint::Wall)).
    #[serde(skip)]
    pub(super) wall: u64,
    /// At most the least last timestamp of a run ([`Session::close_idle_before`] scans the
    /// runs only when the clock passes it by the idle timeout; kept in a state, so that a
    /// session read back is the one written).
    pub(super) idle_due: i128,
}

impl Session {
    /// An empty session.
    pub fn new(opts: SessionOptions) -> Session {
        Session {
            runs: Runs::default(),
            arrivals: 0,
            clock: None,
            clock_wall: None,
            dirty: Ids::default(),
            pending: Pending::default(),
            places: Places::default(),
            ended: Ended::default(),
            opts: Some(opts),
            wall: 0,
            idle_due: i128::MAX,
        }
    }

    /// The session, its caller's wall clock starting from `wall` (nanoseconds: a restored
    /// session's runs' last times are on the clock of the process that saved it).
    pub fn with_wall(mut self, wall: u64) -> Session {
        self.wall = wall;
        self
    }

    /// The wall clock its caller starts from ([`Session::with_wall`]; 0 for a new session).
    pub fn wall(&self) -> u64 {
        self.wall
    }

    pub(super) fn opts(&self) -> SessionOptions {
        self.opts.unwrap_or_default()
    }

    /// Runs known (live, or decided and waiting for their end).
    pub fn live_runs(&self) -> usize {
        self.runs.len()
    }

    /// Events arrived so far (bad events of known runs included): the arrival number of the
    /// latest (see [`Decision::arrival`](crate::decision::Decision::arrival)).
    pub fn arrivals(&self) -> u64 {
        self.arrivals
    }

    /// Bytes held by the runs' states (engine states, bookkeeping and held events).
    pub fn bytes(&self) -> usize {
        self.runs
            .iter()
            .map(|(id, l)| id.len() + l.bytes())
            .sum::<usize>()
            + self.pending.bytes()
            + self.places.bytes()
            + self.ended.bytes()
    }

    /// The whole state as bytes, the format's version first; [`Session::from_bytes`] reads
    /// it back (with the options).
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = STATE_MAGIC.to_vec();
        out.extend_from_slice(&STATE_FORMAT.to_le_bytes());
        bincode::serde::encode_into_std_write(self, &mut out, bincode::config::standard())
            .expect("a session always encodes");
        out
    }

    /// Reads a state written by [`Session::to_bytes`] of this version (another version's is
    /// refused, saying so).
    pub fn from_bytes(bytes: &[u8], opts: SessionOptions) -> Result<Session, crate::StateError> {
        let format = bytes.strip_prefix(STATE_MAGIC.as_slice()).and_then(|rest| {
            rest.first_chunk::<4>()
                .map(|v| (u32::from_le_bytes(*v), rest))
        });
        let rest = match format {
            Some((STATE_FORMAT, rest)) => &rest[4..],
            Some((v, _)) => {
                return Err(crate::StateError(format!(
                    "it is of format {v}, and this version of multitrace reads format \
                     {STATE_FORMAT} only"
                )))
            }
            None => {
                return Err(crate::StateError(format!(
                    "it is not of format {STATE_FORMAT}, the only one this version of \
                     multitrace reads (an older version wrote no format number)"
                )))
            }
        };
        let (mut s, _): (Session, usize) =
            bincode::serde::decode_from_slice(rest, bincode::config::standard())
                .map_err(|e| crate::StateError(e.to_string()))?;
        s.opts = Some(opts);
        Ok(s)
    }
}
