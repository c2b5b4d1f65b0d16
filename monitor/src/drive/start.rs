//! Where a monitor starts: a new session, or the one its checkpoint saved (`--state DIR`),
//! and the output it appends to, cut back to the length that checkpoint recorded.
//!
//! Invariant: what was written after the last checkpoint is cut from the output, because the
//! restarted monitor writes it again from the saved read positions; so the output of a
//! monitor killed and restarted is the output of one that never stopped. Its totals start
//! from the checkpoint's, which count the records the output keeps: its exit status is that
//! of one that never stopped too.

use super::write::Totals;
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
    /// The output at the checkpoint: its length and what its records add up to (nothing for
    /// a new session); [`drive`](super::drive) goes on from them.
    pub totals: Totals,
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
            totals: Totals::default(),
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
                totals: c.totals,
            },
            None => fresh(opts),
        })
    }
}

/// The output records are appended to: the file `path` (created if needed; with a state
/// directory, cut back to `cut_to` ([`Totals::written`] of the checkpoint)), else standard output.
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::drive::{drive, DriveOptions, LineFormat};
    use crate::follow::Follower;
    use crate::{Monitor, MonitorOptions};
    use std::sync::atomic::AtomicBool;

    /// Monitors `file` to its end, from the checkpoint in `state` if there is one (the output
    /// cut back to it, as `multitrace monitor` does); returns the totals of the output.
    fn monitor(m: &Monitor<'_>, file: &Path, out: &Path, state: Option<&Path>) -> Totals {
        let Start {
            mut session,
            positions,
            totals,
        } = Start::resume(state, SessionOptions::default()).unwrap();
        let mut follower = Follower::new(&[file.to_path_buf()], false, &positions);
        let mut w = open_output(Some(out), state.map(|_| totals.written)).unwrap();
        let opts = DriveOptions {
            events: Default::default(),
            format: None,
            end_field: None,
            idle_timeout: None,
            otel: None,
            parents: false,
            output: LineFormat::Jsonl,
            state: state.map(Path::to_path_buf),
            checkpoint_ms: 1000,
        };
        let stop = AtomicBool::new(false);
        drive(
            m,
            &mut session,
            &mut follower,
            &mut w,
            &opts,
            &stop,
            totals,
            None,
        )
        .unwrap()
    }

    /// A stream monitored with a checkpoint up to a point, then to its end by a restart from
    /// that checkpoint: the totals (the exit status with them) and the output are those of one
    /// run over the whole stream, whether the Fail came before the restart, after it, or never.
    #[test]
    fn a_restart_counts_the_records_written_before_it() {
        let engine = crate::tests::mqtt();
        let m = Monitor::new(&engine, MonitorOptions::default()).unwrap();
        // `clt1!end` first: the run's Fail at once; `clt1!begin`: a run that may go on.
        let fail = "{\"run\":\"a\",\"action\":\"clt1!end\",\"order\":0}\n";
        let pass = "{\"run\":\"b\",\"action\":\"clt1!begin\",\"order\":0}\n";
        let other = "{\"run\":\"c\",\"action\":\"clt1!begin\",\"order\":0}\n";
        let d = std::env::temp_dir().join(format!("multitrace-restart-{}", std::process::id()));
        for (case, (before, after, code)) in [(fail, pass, 1), (pass, fail, 1), (pass, other, 0)]
            .into_iter()
            .enumerate()
        {
            let d = d.join(case.to_string());
            let _ = std::fs::remove_dir_all(&d);
            std::fs::create_dir_all(&d).unwrap();
            // One file for both (the records name it).
            let events = d.join("events.jsonl");
            std::fs::write(&events, format!("{before}{after}")).unwrap();
            let want = monitor(&m, &events, &d.join("whole.out"), None);
            assert_eq!(want.exit_code(), code, "case {case}");
            std::fs::write(&events, before).unwrap();
            let (out, state) = (d.join("restarted.out"), d.join("state"));
            let first = monitor(&m, &events, &out, Some(&state));
            std::fs::write(&events, format!("{before}{after}")).unwrap();
            let got = monitor(&m, &events, &out, Some(&state));
            assert_eq!(got, want, "case {case} (before the restart: {first:?})");
            // The same records; not in the same order, as the first part's end of input
            // closed its live runs (a kill leaves them to the checkpoint: tests/cli).
            let records = |p: &Path| {
                let text = std::fs::read_to_string(p).unwrap();
                let mut v: Vec<String> = text.lines().map(String::from).collect();
                v.sort();
                v
            };
            assert_eq!(records(&out), records(&d.join("whole.out")), "case {case}");
        }
        let _ = std::fs::remove_dir_all(&d);
    }
}
