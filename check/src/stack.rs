//! Which threads run the recursive part of a check. Term exploration (and its diagnosis)
//! recurses in the term's semantic functions, up to
//! [`MAX_TERM_DEPTH`](super::explore::MAX_TERM_DEPTH) levels, so it needs a stack of
//! [`CHECK_STACK_SIZE`]; nothing else a check does recurses deeply (a loaded model's term is
//! rebuilt without deep recursion: its validation refuses the shapes that would).
//!
//! Invariant: a thread started with less than [`CHECK_STACK_SIZE`] that runs checks is marked
//! with [`mark_small_stack`]; on it, [`with_check_stack`] runs the recursive part on a scoped
//! thread of [`CHECK_STACK_SIZE`]. Unmarked threads (the batch's workers, the Python
//! package's, every thread started with [`CHECK_STACK_SIZE`]) run it where they are. The
//! `multitrace` command checks a compiled automata model on its main thread, marked, so that a
//! one-multitrace check starts no thread at all (0.07 ms of its start-up).

use super::explore::CHECK_STACK_SIZE;
use std::cell::Cell;

thread_local! {
    static SMALL_STACK: Cell<bool> = const { Cell::new(false) };
}

/// Marks the calling thread as having a stack smaller than [`CHECK_STACK_SIZE`] (a process's
/// main thread): the recursive part of a check then runs on a thread of its own.
pub fn mark_small_stack() {
    SMALL_STACK.set(true);
}

/// Runs `f` here, or on a new thread with [`CHECK_STACK_SIZE`] (waiting for it) when this
/// thread was marked by [`mark_small_stack`]. A panic of `f` continues on this thread (where a
/// batch turns it into the input's Error record).
pub fn with_check_stack<R: Send>(f: impl FnOnce() -> R + Send) -> R {
    if !SMALL_STACK.get() {
        return f();
    }
    std::thread::scope(|scope| {
        let spawned = std::thread::Builder::new()
            .stack_size(CHECK_STACK_SIZE)
            .spawn_scoped(scope, f);
        match spawned.map(|h| h.join()) {
            Ok(Ok(r)) => r,
            Ok(Err(panic)) => std::panic::resume_unwind(panic),
            Err(e) => panic!("cannot start a thread for term exploration: {e}"),
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The stack of the thread `f` runs on is at least `CHECK_STACK_SIZE` when the caller is
    /// marked: a recursion that needs most of it completes.
    #[test]
    fn a_marked_thread_recurses_on_a_large_stack() {
        fn deep(n: u32) -> u32 {
            // About 4 KiB per level, kept by the use after the call.
            let pad = std::hint::black_box([n as u8; 4096]);
            if n == 0 {
                return 0;
            }
            deep(n - 1) + u32::from(pad[4095] & 1)
        }
        // 8,192 levels of 4 KiB: 32 MiB, far past the 2 MiB stack of the thread below.
        let levels = 1 << 13;
        let t = std::thread::Builder::new()
            .stack_size(2 << 20)
            .spawn(move || {
                mark_small_stack();
                let here = std::thread::current().id();
                let (r, there) = with_check_stack(|| (deep(levels), std::thread::current().id()));
                (r, here != there)
            })
            .unwrap();
        let (r, moved) = t.join().unwrap();
        assert_eq!(r, levels / 2);
        assert!(moved);
    }

    #[test]
    fn an_unmarked_thread_runs_where_it_is_and_panics_come_back() {
        let here = std::thread::current().id();
        assert_eq!(with_check_stack(|| std::thread::current().id()), here);
        let t = std::thread::spawn(|| {
            mark_small_stack();
            std::panic::catch_unwind(|| with_check_stack(|| panic!("in the checking thread")))
                .is_err()
        });
        assert!(t.join().unwrap());
    }
}
