//! One followed file: opened when it is a regular file, read from its position, reopened
//! from its start when another file takes its name or it is truncated.

use super::identity::{file_id, fingerprint, first_bytes, Position, HEAD};
use super::lines::{handed, Lines, Reading};
use super::rotated::{lost, Old};
use std::fs::File;
use std::io::{Seek, SeekFrom};
use std::path::PathBuf;
use std::time::{Duration, Instant};

pub(super) struct Followed {
    pub(super) pos: Position,
    pub(super) file: Option<File>,
    pub(super) partial: Vec<u8>,
    /// Read to its end (not following), or unreadable.
    pub(super) done: bool,
    /// An error reading it was reported (following: said once, and tried again at each
    /// poll, as a path may be something else for a moment).
    pub(super) reported: bool,
    /// Following, a file that gave nothing is looked at again after a while that doubles
    /// while it stays quiet, up to [`QUIET_MAX`] (a line's delay is at most that): a monitor
    /// left on a quiet directory of thousands of files does not spin.
    quiet: Duration,
    next_look: Option<Instant>,
    /// The file the name held before a rotation, read to its end first.
    pub(super) old: Option<Old>,
    /// The identity (inode, fingerprint, its length) of the last rotated file left, for
    /// the follower's set of files read to their end.
    pub(super) retired: Option<(u64, u64, u32)>,
}

/// The longest a quiet followed file waits between two looks (see [`Followed::quiet`]).
pub(super) const QUIET_MAX: Duration = Duration::from_millis(100);

impl Followed {
    pub(super) fn new(pos: Position) -> Followed {
        Followed {
            pos,
            file: None,
            partial: Vec::new(),
            done: false,
            reported: false,
            quiet: Duration::ZERO,
            next_look: None,
            old: None,
            retired: None,
        }
    }

    /// Its position, with the rotated file's while that is still read.
    pub(super) fn position(&self) -> Position {
        Position {
            rotated: self.old.as_ref().map(|o| Box::new(o.pos.clone())),
            ..self.pos.clone()
        }
    }

    /// Whether it is time to look at it again (following).
    pub(super) fn due(&self, now: Instant) -> bool {
        self.next_look.is_none_or(|t| now >= t)
    }

    /// How long after `now` its next look is (zero: at once).
    #[cfg(test)]
    pub(super) fn next_look_after(&self, now: Instant) -> Duration {
        self.next_look.map_or(Duration::ZERO, |t| t - now)
    }

    /// After a look at `now`: at once again if it `moved`, else after twice the last wait.
    pub(super) fn looked(&mut self, moved: bool, now: Instant) {
        if moved {
            self.quiet = Duration::ZERO;
            self.next_look = None;
        } else {
            self.quiet = (self.quiet * 2).clamp(Duration::from_millis(1), QUIET_MAX);
            self.next_look = Some(now + self.quiet);
        }
    }
}

pub(super) fn read_file(
    x: &mut Followed,
    budget: usize,
    follow: bool,
    spare: &mut Vec<Lines>,
    out: &mut Vec<Result<Lines, String>>,
) {
    if x.done {
        return;
    }
    let path = PathBuf::from(&x.pos.path);
    if let Some(r) = x.pos.rotated.take() {
        // A checkpoint taken while a rotated file was read: found again, read on.
        match Old::find(&path, &r, true) {
            Some(o) => x.old = Some(o),
            None => out.push(Err(lost(&x.pos.path, &r))),
        }
    }
    if let Some(o) = &mut x.old {
        // Its lines came before the new file's (which is read too, after them).
        if !o.read(&x.pos.path, budget, follow, spare, out) {
            x.retired = Some((o.pos.id, o.pos.head, o.pos.head_len));
            x.old = None;
        } else if handed(out) > budget {
            return;
        }
    }
    if x.file.is_none() {
        if let Ok(m) = std::fs::metadata(&path) {
            if !m.is_file() {
                // A FIFO's open() blocks until a writer comes (SIGTERM would wait with it),
                // and a directory or device is no log: said once, looked at again each poll.
                if !x.reported {
                    out.push(Err(format!(
                        "{}: not a regular file, not read (looked at again while following)",
                        x.pos.path
                    )));
                }
                x.reported = true;
                x.done = !follow;
                return;
            }
        }
        match File::open(&path) {
            Ok(mut f) => {
                let id = f.metadata().map(|m| file_id(&m)).unwrap_or(0);
                let len = f.metadata().map(|m| m.len()).unwrap_or(0);
                let head = (x.pos.head_len > 0)
                    .then(|| first_bytes(&path, x.pos.head_len as usize))
                    .filter(|h| h.len() == x.pos.head_len as usize)
                    .map(|h| fingerprint(&h));
                let other_head = x.pos.head_len > 0 && head != Some(x.pos.head);
                if (x.pos.id != 0 && id != x.pos.id) || len < x.pos.offset || other_head {
                    // Another file under the name (another inode, or other first bytes), or
                    // a truncated one, since the position (rotated while not read): the old
                    // file is read on first, found beside the name, or said lost; the new
                    // one is read from its start.
                    if x.old.is_none() {
                        let by_inode = id != x.pos.id;
                        match Old::find(&path, &x.pos, by_inode) {
                            Some(mut o) => {
                                o.read(&x.pos.path, budget, follow, spare, out);
                                x.old = Some(o);
                            }
                            None => out.push(Err(lost(&x.pos.path, &x.pos))),
                        }
                    }
                    x.pos.offset = 0;
                    x.pos.line = 0;
                    x.pos.head_len = 0;
                    x.partial.clear();
                }
                if x.pos.head_len < HEAD as u32 {
                    // Its first bytes, as many as it has now (more at the next opening).
                    let h = first_bytes(&path, HEAD);
                    if h.len() as u32 > x.pos.head_len {
                        x.pos.head_len = h.len() as u32;
                        x.pos.head = fingerprint(&h);
                    }
                }
                x.pos.id = id;
                if f.seek(SeekFrom::Start(x.pos.offset + x.partial.len() as u64))
                    .is_err()
                {
                    return;
                }
                x.file = Some(f);
            }
            Err(e) => {
                if !follow {
                    out.push(Err(format!("{}: cannot read: {e}", x.pos.path)));
                    x.done = true;
                }
                return;
            }
        }
    }

    let Some(f) = &mut x.file else { return };
    let mut reading = Reading {
        name: &x.pos.path,
        partial: &mut x.partial,
        line: &mut x.pos.line,
        offset: &mut x.pos.offset,
    };
    match reading.read(f, budget, spare, out) {
        Ok(got) => {
            if got.bytes {
                x.reported = false;
            }
            if got.full {
                return;
            }
        }
        Err(e) => {
            // Following, a path may be something else for a moment (a directory while a
            // tool replaces it): said once, and read again when it is a file.
            if !x.reported {
                out.push(Err(format!("{}: cannot read: {e}", x.pos.path)));
            }
            x.reported = true;
            x.file = None;
            x.done = !follow;
            return;
        }
    }
    // At the end of what the handle holds.
    if !follow {
        reading.last_line(spare, out);
        x.file = None;
        x.done = true;
        return;
    }
    // Following: a rotated name or a truncated file is reopened at the next poll (the old
    // handle was read to its end first).
    match std::fs::metadata(&path) {
        Ok(m) if file_id(&m) != x.pos.id && x.old.is_none() => {
            // Renamed away (or removed): the handle is the old file, which a writer may still
            // append to until it reopens its log; read on until it is quiet.
            if let Some(f) = x.file.take() {
                x.old = Some(Old::held(x.pos.clone(), f, std::mem::take(&mut x.partial)));
            }
            x.pos.id = 0;
            x.pos.offset = 0;
            x.pos.line = 0;
            x.pos.head_len = 0;
            // The new file at once (once: the old one is held now).
            read_file(x, budget, follow, spare, out);
        }
        Ok(m) if m.len() < x.pos.offset + x.partial.len() as u64 => {
            // Truncated in place (copytruncate): what was written after the position and
            // before the truncation is in the copy, when it is beside the name.
            if x.old.is_none() {
                x.old = Old::find(&path, &x.pos, false);
            }
            x.pos.offset = 0;
            x.pos.line = 0;
            x.pos.head_len = 0;
            x.partial.clear();
            x.file = None;
        }
        _ => {}
    }
}
