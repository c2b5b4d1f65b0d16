//! A report being written when the user interrupts a command (SIGINT, SIGTERM): the batch
//! stops at its next record (the records printed so far stay whole), the temporary file is
//! removed, and the process exits with 128 + the signal, also when a check does not reach its
//! next record within 2 s (then the file is removed all the same). For command lines: the
//! watch lasts for the rest of the process.
//!
//! Invariant: the handlers are registered before the temporary file is created ([`watch`]
//! comes before [`ReportWriter::create`](super::ReportWriter::create)), so no signal finds the
//! file without a handler; the watching thread waits 2 s before it reads the file's path,
//! which [`remove_on_interrupt`] sets just after the file is created.

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

/// Set by SIGINT or SIGTERM while a report is written (in the signal handler itself).
static INTERRUPTED: OnceLock<Arc<AtomicBool>> = OnceLock::new();

/// The report's temporary file, for the signal thread to remove.
static TEMP: Mutex<Option<PathBuf>> = Mutex::new(None);

fn flag() -> &'static Arc<AtomicBool> {
    INTERRUPTED.get_or_init(|| Arc::new(AtomicBool::new(false)))
}

/// Whether a signal asked the batch to stop.
pub fn interrupted() -> bool {
    flag().load(Ordering::SeqCst)
}

/// Watches SIGINT and SIGTERM for the rest of the process.
pub fn watch() -> std::io::Result<()> {
    use signal_hook::consts::{SIGINT, SIGTERM};
    // The flag is set by the handler, not by the thread below: a batch that reads its next
    // record just after the signal stops there (set by the thread, the flag could come after
    // the batch's last record when the machine is busy, and the report be written).
    for sig in [SIGINT, SIGTERM] {
        signal_hook::flag::register(sig, Arc::clone(flag()))?;
    }
    let mut signals = signal_hook::iterator::Signals::new([SIGINT, SIGTERM])?;
    std::thread::spawn(move || {
        if let Some(sig) = signals.forever().next() {
            std::thread::sleep(std::time::Duration::from_secs(2));
            if let Some(p) = TEMP.lock().unwrap_or_else(|e| e.into_inner()).take() {
                let _ = std::fs::remove_file(p);
            }
            std::process::exit(128 + sig);
        }
    });
    Ok(())
}

/// The temporary file a signal removes (`None`: nothing any more, the report is in place).
pub fn remove_on_interrupt(temp: Option<PathBuf>) {
    *TEMP.lock().unwrap_or_else(|e| e.into_inner()) = temp;
}
