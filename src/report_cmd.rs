//! `check --report FILE.html`: the HTML report of the batch
//! ([`multitrace_report::html`]): opened before the batch runs, fed every record in input
//! order, finished (failures drawn in full, file renamed into place) after it.
//!
//! SIGINT and SIGTERM while a report is written: the batch stops at its next record (the
//! records printed so far stay whole), the temporary file is removed and the command exits
//! 130; a check that does not reach its next record within 2 s is not waited for (the file
//! is removed all the same).

use crate::CheckArgs;
use anyhow::Result;
use multitrace_report::html::{ReRead, ReportOptions, ReportSetup, ReportWriter};
use multitrace_report::shown::shown_options;
use multitrace_runtime::batch::Batch;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

/// Set by SIGINT or SIGTERM while a report is written (in the signal handler itself).
static INTERRUPTED: OnceLock<Arc<AtomicBool>> = OnceLock::new();

fn flag() -> &'static Arc<AtomicBool> {
    INTERRUPTED.get_or_init(|| Arc::new(AtomicBool::new(false)))
}
/// The report's temporary file, for the signal thread to remove.
static TEMP: Mutex<Option<PathBuf>> = Mutex::new(None);

/// Whether a signal asked the batch to stop.
pub fn interrupted() -> bool {
    flag().load(Ordering::SeqCst)
}

/// Watches SIGINT and SIGTERM for the rest of the process.
/// Registered before the temporary file is created, so that no signal finds the file without
/// a handler (the thread waits 2 s before it reads [`TEMP`], which is set just after).
fn watch_signals() -> Result<()> {
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

/// Starts the report when `--report` was given.
pub fn open(args: &CheckArgs, batch: &Batch<'_>) -> Result<Option<ReportWriter>> {
    let Some(path) = &args.report else {
        return Ok(None);
    };
    let mut setup = ReportSetup::new(batch.engine().model(), &args.model.display().to_string());
    let cores = multitrace_runtime::batch::default_jobs();
    let model = args.model_args.options();
    setup.options = shown_options(batch.check_options(), args.jobs, cores, &model);
    setup.inputs = args
        .traces
        .iter()
        .map(|p| p.display().to_string())
        .collect();
    watch_signals()?;
    let w = ReportWriter::create(path, setup, ReportOptions::default())?;
    for stale in w.stale_removed() {
        eprintln!(
            "multitrace: note: removed {}, the temporary report of a run that was killed",
            stale.display()
        );
    }
    *TEMP.lock().unwrap_or_else(|e| e.into_inner()) = w.temp_path().map(Path::to_path_buf);
    Ok(Some(w))
}

/// Finishes the report (the failures shown in full are read again through `batch`).
pub fn finish(report: Option<ReportWriter>, batch: &Batch<'_>) -> Result<()> {
    let Some(report) = report else {
        return Ok(());
    };
    let stats = report.finish(&mut ReRead::new(batch))?;
    TEMP.lock().unwrap_or_else(|e| e.into_inner()).take();
    eprintln!(
        "multitrace: wrote the report {} ({} multitraces, {} of {} failures in full, {} bytes)",
        stats.path.display(),
        stats.multitraces,
        stats.full_failures,
        stats.failures,
        stats.bytes
    );
    Ok(())
}
