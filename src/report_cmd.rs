//! `check --report FILE.html`: the HTML report of the batch
//! ([`multitrace_report::html`]): opened before the batch runs, fed every record in input
//! order, finished (failures drawn in full, file renamed into place) after it.

use crate::CheckArgs;
use anyhow::Result;
use multitrace_report::html::{ReRead, ReportOptions, ReportSetup, ReportWriter};
use multitrace_report::shown::shown_options;
use multitrace_runtime::batch::Batch;

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
    Ok(Some(ReportWriter::create(
        path,
        setup,
        ReportOptions::default(),
    )?))
}

/// Finishes the report (the failures shown in full are read again through `batch`).
pub fn finish(report: Option<ReportWriter>, batch: &Batch<'_>) -> Result<()> {
    let Some(report) = report else {
        return Ok(());
    };
    let stats = report.finish(&mut ReRead::new(batch))?;
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
