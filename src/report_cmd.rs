//! `check --report FILE.html`: the HTML report of the batch
//! ([`multitrace_report::html`]): opened before the batch runs, fed every record in input
//! order, finished (failures drawn in full, file renamed into place) after it.
//!
//! SIGINT and SIGTERM while a report is written: see [`interrupt`] (the command exits 130).

use crate::check_args::CheckArgs;
use anyhow::Result;
use multitrace_batch::Batch;
pub use multitrace_report::html::interrupt::interrupted;
use multitrace_report::html::{interrupt, ReRead, ReportOptions, ReportSetup, ReportWriter};
use multitrace_report::shown::shown_options;
use std::path::Path;

/// Starts the report when `--report` was given.
pub fn open(args: &CheckArgs, batch: &Batch<'_>) -> Result<Option<ReportWriter>> {
    let Some(path) = &args.report else {
        return Ok(None);
    };
    let mut setup = ReportSetup::new(batch.engine().model(), &args.model.display().to_string());
    let cores = multitrace_model::budget::default_jobs();
    let model = args.model_args.clone();
    setup.options = shown_options(batch.check_options(), args.jobs, cores, &model);
    setup.inputs = args.traces.iter().map(|p| p.display().to_string()).collect();
    interrupt::watch()?;
    let w = ReportWriter::create(path, setup, ReportOptions::default())?;
    for stale in w.stale_removed() {
        eprintln!(
            "multitrace: note: removed {}, the temporary report of a run that was killed",
            stale.display()
        );
    }
    interrupt::remove_on_interrupt(w.temp_path().map(Path::to_path_buf));
    Ok(Some(w))
}

/// Finishes the report (the failures shown in full are read again through `batch`).
pub fn finish(report: Option<ReportWriter>, batch: &Batch<'_>) -> Result<()> {
    let Some(report) = report else {
        return Ok(());
    };
    let stats = report.finish(&mut ReRead::new(batch))?;
    interrupt::remove_on_interrupt(None);
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
