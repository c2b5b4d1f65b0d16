//! Sources of a live stream, followed as they grow (`tail -F`): files (surviving rotation and
//! truncation), directories (new files picked up, in natural order) and standard input.
//!
//! Only complete lines are handed out: a line still being written (no line break yet) waits
//! for the next poll. A position ([`Position`]) is the byte offset after the last line handed
//! out and its line number, so a checkpoint restarts exactly there.

mod dirs;
mod file;
mod identity;
mod lines;
mod rotated;

pub use identity::{Position, HEAD};
pub use lines::{LineIter, Lines};
pub use rotated::DRAIN_QUIET;

use file::{read_file, Followed, QUIET_MAX};
use lines::{cut_lines, handed};
use rustc_hash::FxHashSet;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::mpsc::{Receiver, TryRecvError};
use std::time::{Duration, Instant};

/// Standard input, read by a thread.
struct Stdin {
    rx: Receiver<Vec<u8>>,
    line: u32,
    partial: Vec<u8>,
    done: bool,
}

/// Files and directories followed, and standard input.
pub struct Follower {
    files: Vec<Followed>,
    dirs: Vec<PathBuf>,
    stdin: Option<Stdin>,
    follow: bool,
    /// Blocks handed back ([`Follower::recycle`]): their buffers take the next lines, so
    /// that reading allocates nothing once they are there.
    spare: Vec<Lines>,
    /// Paths never read from a followed directory (the monitor's output and state), by
    /// their canonical form.
    excluded: Vec<PathBuf>,
    /// The paths of `files`, and those a directory holds that are never read (excluded), so
    /// that a rescan looks each name up once, not through every file.
    known: FxHashSet<String>,
    /// Directories are rescanned after a while that doubles while no new file comes, up to
    /// [`QUIET_MAX`], and at once after one came.
    scan_quiet: Duration,
    next_scan: Option<Instant>,
    /// The identities (inode, fingerprint, its length) of rotated files read to their end: a
    /// directory's new name for one of them (`NAME.1` renamed `NAME.2`) is not read again.
    retired: FxHashSet<(u64, u64, u32)>,
}

impl Follower {
    /// Follows `sources` (`-`: standard input, read by a thread); `follow`: wait for more at
    /// the end of files (else a file is read once to its end). `resume`: positions of a
    /// checkpoint.
    pub fn new(sources: &[PathBuf], follow: bool, resume: &[Position]) -> Follower {
        let mut f = Follower {
            files: Vec::new(),
            dirs: Vec::new(),
            stdin: None,
            follow,
            spare: Vec::new(),
            excluded: Vec::new(),
            known: FxHashSet::default(),
            scan_quiet: Duration::ZERO,
            next_scan: None,
            retired: FxHashSet::default(),
        };
        for s in sources {
            if s.as_os_str() == "-" {
                let (tx, rx) = std::sync::mpsc::channel();
                std::thread::spawn(move || {
                    let mut stdin = std::io::stdin().lock();
                    let mut buf = vec![0u8; 1 << 16];
                    loop {
                        match stdin.read(&mut buf) {
                            Ok(0) | Err(_) => return,
                            Ok(n) => {
                                if tx.send(buf[..n].to_vec()).is_err() {
                                    return;
                                }
                            }
                        }
                    }
                });
                f.stdin = Some(Stdin {
                    rx,
                    line: 0,
                    partial: Vec::new(),
                    done: false,
                });
            } else if s.is_dir() {
                f.dirs.push(s.clone());
            } else {
                f.add(s);
            }
        }
        for p in resume {
            // The same file named another way (relative, absolute, through a link) is the
            // same source: it goes on from its position, not from its start.
            let same = |x: &Followed| x.pos.path == p.path || same_file(&x.pos.path, &p.path);
            if let Some(x) = f.files.iter_mut().find(|x| same(x)) {
                x.pos = Position {
                    path: std::mem::take(&mut x.pos.path),
                    ..p.clone()
                };
            } else {
                f.known.insert(p.path.clone());
                f.files.push(Followed::new(p.clone()));
            }
        }
        f.scan_dirs();
        f
    }

    /// Never reads `paths` (files, or directories and what is under them) from a followed
    /// directory: the monitor's output and state, which a directory source may hold.
    pub fn excluding(mut self, paths: &[&Path]) -> Follower {
        self.excluded = paths
            .iter()
            .map(|p| std::fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf()))
            .collect();
        let excluded = self.excluded.clone();
        self.files.retain(|x| {
            let c =
                std::fs::canonicalize(&x.pos.path).unwrap_or_else(|_| x.pos.path.clone().into());
            !excluded.iter().any(|e| c.starts_with(e))
        });
        // Excluded paths stay known: a rescan passes over them without a look.
        self
    }

    fn add(&mut self, path: &Path) {
        let name = path.display().to_string();
        if self.known.insert(name.clone()) {
            self.files.push(Followed::new(Position {
                path: name,
                ..Position::default()
            }));
        }
    }

    /// The positions of every file (for a checkpoint).
    pub fn positions(&self) -> Vec<Position> {
        self.files.iter().map(Followed::position).collect()
    }

    /// Whether every source is read to its end and will not grow.
    pub fn finished(&self) -> bool {
        // Standard input ends at its end; followed files and directories never do.
        let files_done = if self.follow {
            self.files.is_empty() && self.dirs.is_empty()
        } else {
            self.files.iter().all(|x| x.done)
        };
        self.stdin.as_ref().is_none_or(|s| s.done) && files_done
    }

    /// Reads what is available, up to about `budget` bytes, and hands out complete lines, in
    /// blocks. Errors (a file that cannot be opened) are reported as `Err(message)` once.
    pub fn poll(&mut self, budget: usize, out: &mut Vec<Result<Lines, String>>) {
        if self.follow && !self.dirs.is_empty() {
            let now = Instant::now();
            if self.next_scan.is_none_or(|t| now >= t) {
                let before = self.files.len();
                self.scan_dirs();
                if self.files.len() > before {
                    self.scan_quiet = Duration::ZERO;
                    self.next_scan = None;
                } else {
                    self.scan_quiet =
                        (self.scan_quiet * 2).clamp(Duration::from_millis(1), QUIET_MAX);
                    self.next_scan = Some(now + self.scan_quiet);
                }
            }
        }
        self.read(budget, out);
    }

    /// [`Follower::poll`] without looking for new files in the directories (for more lines
    /// of the same round).
    pub fn read(&mut self, budget: usize, out: &mut Vec<Result<Lines, String>>) {
        if let Some(st) = &mut self.stdin {
            loop {
                match st.rx.try_recv() {
                    Ok(bytes) => {
                        st.partial.extend_from_slice(&bytes);
                        cut_lines(
                            &mut st.partial,
                            "<stdin>",
                            &mut st.line,
                            &mut self.spare,
                            out,
                        );
                        if handed(out) > budget {
                            break;
                        }
                    }
                    Err(TryRecvError::Empty) => break,
                    Err(TryRecvError::Disconnected) => {
                        if !st.done {
                            st.done = true;
                            if !st.partial.is_empty() {
                                st.partial.push(b'\n');
                                cut_lines(
                                    &mut st.partial,
                                    "<stdin>",
                                    &mut st.line,
                                    &mut self.spare,
                                    out,
                                );
                            }
                        }
                        break;
                    }
                }
            }
        }
        let follow = self.follow;
        let now = Instant::now();
        for x in &mut self.files {
            if follow && !x.due(now) {
                continue;
            }
            let (offset, partial, handed) = (x.pos.offset, x.partial.len(), out.len());
            read_file(x, budget, follow, &mut self.spare, out);
            if follow {
                let moved =
                    x.pos.offset != offset || x.partial.len() != partial || out.len() != handed;
                x.looked(moved, now);
            }
            if let Some(r) = x.retired.take() {
                self.retired.insert(r);
            }
        }
    }

    /// Takes back the blocks of the last [`Follower::poll`] (emptying `lines`): their
    /// buffers are reused for the next lines.
    pub fn recycle(&mut self, lines: &mut Vec<Result<Lines, String>>) {
        self.spare.extend(lines.drain(..).filter_map(Result::ok));
    }
}

/// Whether two paths name one existing file.
fn same_file(a: &str, b: &str) -> bool {
    match (std::fs::canonicalize(a), std::fs::canonicalize(b)) {
        (Ok(x), Ok(y)) => x == y,
        _ => false,
    }
}

#[cfg(test)]
mod tests;
