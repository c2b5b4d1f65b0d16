//! Where a monitor starts: a new session, or the one its checkpoint saved (`--state DIR`),
//! and the output it appends to, cut back to the length that checkpoint recorded.
//!
//! Invariant: what was written after the last checkpoint is cut from the output, because the
//! restarted monitor writes it again from the saved read positions; so the output of a
//! monitor killed and restarted is the output of one that never stopped. Its totals start
//! from the checkpoint's, which count the records the output keeps: its exit status is that
//! of one that never stopped too.

use super::write::Totals;
use crate::follow::Follower;
use crate::session::{Checkpoint, Session, SessionOptions};
use crate::StateError;
use std::fmt;
use std::io::Write;
use std::path::{Path, PathBuf};

/// A session to drive, where it resumes, and the output it appends to.
pub struct Start {
    /// The session (new, or as checkpointed).
    pub session: Session,
    /// The sources, followed from the checkpoint's read positions (or their starts); the
    /// output and the state directory are never read from a followed directory.
    pub follower: Follower,
    /// The output at the checkpoint: its length and what its records add up to (nothing for
    /// a new session, but the length of an output that was already there); [`drive`](super::drive)
    /// goes on from them.
    pub totals: Totals,
    /// Where records go: the output file (cut back to the checkpoint's length), or standard
    /// output.
    pub out: Box<dyn Write>,
    /// The state directory's lock, held while the monitor runs (`None` without `--state`).
    pub lock: Option<std::fs::File>,
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
    /// Another monitor holds the state directory.
    Busy {
        /// The `--state` directory.
        dir: PathBuf,
        /// What its lock file says of the holder (its process id).
        holder: String,
    },
    /// The checkpoint was written for another model.
    OtherModel {
        /// The `--state` directory.
        dir: PathBuf,
        /// The digest in the checkpoint, and this model's.
        was: u64,
        /// This model's digest.
        now: u64,
    },
    /// The output is not the one the checkpoint counted.
    Output {
        /// The output file.
        path: PathBuf,
        /// What is wrong with it.
        why: String,
    },
    /// The output cannot be opened.
    Open {
        /// The output file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
}

impl fmt::Display for StartError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            StartError::State { dir, source } => write!(f, "--state {}: {source}", dir.display()),
            StartError::Session(e) => e.fmt(f),
            StartError::Busy { dir, holder } => write!(
                f,
                "--state {}: another monitor uses this state directory ({holder}); give each \
                 monitor its own --state, or stop the other one first",
                dir.display()
            ),
            StartError::OtherModel { dir, was, now } => write!(
                f,
                "--state {}: its checkpoint was written for another model (digest {was:016x}; \
                 this one is {now:016x}): give this model its own --state, or remove the \
                 checkpoint to start afresh",
                dir.display()
            ),
            StartError::Output { path, why } => write!(
                f,
                "-o {}: {why}; the checkpoint counts records this output does not hold, so \
                 going on would lose or repeat records: put the output back, or remove the \
                 checkpoint (and the output) to start afresh",
                path.display()
            ),
            StartError::Open { path, source } => write!(f, "-o {}: {source}", path.display()),
        }
    }
}

impl std::error::Error for StartError {}

impl Start {
    /// A new session with `opts`, or, with a state directory (created if needed, and locked
    /// for this process), the one its checkpoint saved for the model of digest `model`; and
    /// the output (`output`, else standard output), cut back to the checkpoint's length.
    ///
    /// Refused: a state directory another monitor holds, a checkpoint of another model, and
    /// an output shorter than the checkpoint counted or gone (never padded or cut silently:
    /// an output longer than it is cut, the records written after the checkpoint being
    /// written again). A new session appends to an output that is already there, and with a
    /// state directory is checkpointed at once (so a kill before its next checkpoint cuts the
    /// output back to what was there).
    ///
    /// `sources`: the paths to follow, whether to wait for more at their ends, and whether
    /// no path means standard input (else no source: spans received over HTTP only).
    pub fn open(
        state: Option<&Path>,
        opts: SessionOptions,
        model: u64,
        output: Option<&Path>,
        sources: (&[PathBuf], bool, bool),
    ) -> Result<Start, StartError> {
        let (checkpoint, lock) = match state {
            Some(dir) => {
                let failed = |source: Box<dyn std::error::Error + Send + Sync>| StartError::State {
                    dir: dir.to_path_buf(),
                    source,
                };
                std::fs::create_dir_all(dir).map_err(|e| failed(e.into()))?;
                let lock = lock(dir)?;
                let c = Checkpoint::read(dir).map_err(|e| failed(e.into()))?;
                if let Some(c) = &c {
                    if c.model != model {
                        return Err(StartError::OtherModel {
                            dir: dir.to_path_buf(),
                            was: c.model,
                            now: model,
                        });
                    }
                }
                (c, Some(lock))
            }
            None => (None, None),
        };
        let (session, positions, mut totals, cut) = match checkpoint {
            Some(c) => (
                Session::from_bytes(&c.session, opts)
                    .map_err(StartError::Session)?
                    .with_wall(c.wall.resumed()),
                c.positions,
                c.totals,
                true,
            ),
            None => (Session::new(opts), Vec::new(), Totals::default(), false),
        };
        let out: Box<dyn Write> = match output {
            Some(path) => {
                let open = |source| StartError::Open {
                    path: path.to_path_buf(),
                    source,
                };
                let had = std::fs::metadata(path).ok().map(|m| m.len());
                match had {
                    None if cut && totals.written > 0 => {
                        return Err(StartError::Output {
                            path: path.to_path_buf(),
                            why: format!(
                                "it is gone (moved or removed) but the checkpoint counted {} \
                                 bytes of records in it",
                                totals.written
                            ),
                        })
                    }
                    Some(len) if cut && len < totals.written => {
                        return Err(StartError::Output {
                            path: path.to_path_buf(),
                            why: format!(
                                "it holds {len} bytes but the checkpoint counted {} (it was cut \
                                 or replaced)",
                                totals.written
                            ),
                        })
                    }
                    _ => {}
                }
                let f = std::fs::OpenOptions::new()
                    .create(true)
                    .append(true)
                    .open(path)
                    .map_err(open)?;
                if cut {
                    // What was written after the checkpoint is written again.
                    f.set_len(totals.written).map_err(open)?;
                } else {
                    // A new session appends: the length counts what was there.
                    totals.written = had.unwrap_or(0);
                }
                Box::new(Named {
                    inner: std::io::BufWriter::new(f),
                    name: format!("-o {}", path.display()),
                })
            }
            None => Box::new(Named {
                inner: std::io::BufWriter::new(std::io::stdout().lock()),
                name: "standard output".into(),
            }),
        };
        if let (Some(dir), false) = (state, cut) {
            // A new state's first checkpoint, before any record: a kill before the next one
            // cuts the output back to what was there, not to nothing and not past it.
            Checkpoint {
                model,
                positions: Vec::new(),
                session: session.to_bytes(),
                totals,
                wall: crate::checkpoint::Wall::now(0),
            }
            .write(dir)
            .map_err(|e| StartError::State {
                dir: dir.to_path_buf(),
                source: e.into(),
            })?;
        }
        let stdin = [PathBuf::from("-")];
        let paths = if sources.0.is_empty() && sources.2 {
            &stdin[..]
        } else {
            sources.0
        };
        let excluded: Vec<&Path> = output.into_iter().chain(state).collect();
        let follower = Follower::new(paths, sources.1, &positions).excluding(&excluded);
        Ok(Start {
            session,
            follower,
            totals,
            out,
            lock,
        })
    }
}

/// A writer whose errors name it (`-o FILE: No space left on device (os error 28)`), as the
/// system's own do not.
struct Named<W> {
    inner: W,
    name: String,
}

impl<W: Write> Named<W> {
    fn named(&self, e: std::io::Error) -> std::io::Error {
        std::io::Error::new(e.kind(), format!("{}: {e}", self.name))
    }
}

impl<W: Write> Write for Named<W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.inner.write(buf).map_err(|e| self.named(e))
    }

    fn write_all(&mut self, buf: &[u8]) -> std::io::Result<()> {
        self.inner.write_all(buf).map_err(|e| self.named(e))
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.inner.flush().map_err(|e| self.named(e))
    }
}

/// Locks `dir/lock` for this process (an exclusive advisory lock, released when the
/// process exits, however it exits), writing its process id there for the message of a
/// second monitor.
fn lock(dir: &Path) -> Result<std::fs::File, StartError> {
    let path = dir.join("lock");
    let failed = |e: std::io::Error| StartError::State {
        dir: dir.to_path_buf(),
        source: e.into(),
    };
    let mut f = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .open(&path)
        .map_err(failed)?;
    match f.try_lock() {
        Ok(()) => {}
        Err(std::fs::TryLockError::WouldBlock) => {
            let holder = std::fs::read_to_string(&path).unwrap_or_default();
            let holder = match holder.trim() {
                "" => "its lock is held".to_string(),
                pid => format!("process {pid} holds its lock"),
            };
            return Err(StartError::Busy {
                dir: dir.to_path_buf(),
                holder,
            });
        }
        Err(std::fs::TryLockError::Error(e)) => return Err(failed(e)),
    }
    f.set_len(0).map_err(failed)?;
    writeln!(f, "{}", std::process::id()).map_err(failed)?;
    Ok(f)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::drive::{drive, DriveOptions, LineFormat};
    use crate::{Monitor, MonitorOptions};
    use std::sync::atomic::AtomicBool;

    /// Monitors `file` to its end, from the checkpoint in `state` if there is one (the output
    /// cut back to it, as `multitrace monitor` does); returns the totals of the output.
    fn monitor(m: &Monitor<'_>, file: &Path, out: &Path, state: Option<&Path>) -> Totals {
        let digest = m.engine().model().digest;
        let files = [file.to_path_buf()];
        let Start {
            mut session,
            mut follower,
            totals,
            out: mut w,
            lock: _lock,
        } = Start::open(
            state,
            SessionOptions::default(),
            digest,
            Some(out),
            (&files, false, true),
        )
        .unwrap();
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
            inbox: None,
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

    /// What a state directory refuses: a second monitor while the first holds it, a
    /// checkpoint of another model, an output cut or gone since the checkpoint; and a new
    /// state never cuts an output that is already there.
    #[test]
    fn a_state_is_refused_when_it_cannot_be_trusted() {
        let _spawning = crate::tests::SPAWNING.lock();
        let engine = crate::tests::mqtt();
        let m = Monitor::new(&engine, MonitorOptions::default()).unwrap();
        let digest = engine.model().digest;
        let d = std::env::temp_dir().join(format!("multitrace-trust-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        let (state, out, events) = (d.join("state"), d.join("out"), d.join("events.jsonl"));
        std::fs::write(&out, "kept\n").unwrap();
        std::fs::write(
            &events,
            "{\"run\":\"a\",\"action\":\"clt1!end\",\"order\":0}\n",
        )
        .unwrap();
        // A new state appends to the output there.
        let t = monitor(&m, &events, &out, Some(&state));
        let text = std::fs::read_to_string(&out).unwrap();
        assert!(
            text.starts_with("kept\n") && text.lines().count() == 2,
            "{text}"
        );
        assert_eq!(t.written, text.len() as u64);
        let files = [events.clone()];
        let open = |model| {
            let opts = SessionOptions::default();
            Start::open(Some(&state), opts, model, Some(&out), (&files, false, true))
        };
        // Held by one: the second is refused at once, naming the holder.
        let first = open(digest).unwrap_or_else(|e| panic!("{e}"));
        let e = open(digest).err().unwrap();
        assert!(matches!(e, StartError::Busy { .. }), "{e}");
        assert!(
            e.to_string().contains(&std::process::id().to_string()),
            "{e}"
        );
        drop(first);
        // Another model.
        let e = open(digest ^ 1).err().unwrap();
        assert!(matches!(e, StartError::OtherModel { .. }), "{e}");
        // The output cut, then gone.
        std::fs::write(&out, "kept\n").unwrap();
        let e = open(digest).err().unwrap();
        assert!(e.to_string().contains("checkpoint counted"), "{e}");
        std::fs::remove_file(&out).unwrap();
        let e = open(digest).err().unwrap();
        assert!(e.to_string().contains("it is gone"), "{e}");
        let _ = std::fs::remove_dir_all(&d);
    }
}
