//! `check --report FILE.html`: the HTML report of the batch
//! ([`multitrace_compiler::report`]): opened before the batch runs, fed every record in input
//! order, finished (failures drawn in full, file renamed into place) after it.

use crate::{CheckArgs, ModeArg, ProcedureArg};
use anyhow::Result;
use multitrace_compiler::report::{ReRead, ReportOptions, ReportSetup, ReportWriter};
use multitrace_runtime::batch::Batch;
use multitrace_runtime::model::CompiledModel;

/// The options of `check` shown in the report, as the user would write them.
fn shown_options(args: &CheckArgs) -> Vec<(String, String)> {
    let on_off = |off: bool| if off { "off" } else { "on" }.to_string();
    let budget = |n: u64, unit: &str| {
        if n == 0 {
            "none".to_string()
        } else {
            format!("{n}{unit}")
        }
    };
    let mut v = vec![
        (
            "mode".to_string(),
            match args.mode {
                ModeArg::Complete => "complete",
                ModeArg::Prefix => "prefix",
            }
            .to_string(),
        ),
        (
            "procedure".to_string(),
            match args.procedure {
                ProcedureArg::Auto => "auto",
                ProcedureArg::Ac => "ac",
                ProcedureArg::As => "as",
                ProcedureArg::Term => "term",
            }
            .to_string(),
        ),
        (
            "jobs".to_string(),
            args.jobs.map_or_else(
                || {
                    format!(
                        "{} (one per core)",
                        multitrace_runtime::batch::default_jobs()
                    )
                },
                |j| j.to_string(),
            ),
        ),
        ("time budget".to_string(), budget(args.timeout_ms, " ms")),
        (
            "vertex budget".to_string(),
            budget(args.max_vertices, " vertices"),
        ),
        ("partial order reduction".to_string(), on_off(args.no_por)),
        ("local analyses".to_string(), on_off(args.no_loc)),
        ("memoization".to_string(), on_off(args.no_memo)),
        (
            "diagnosis".to_string(),
            if args.no_diagnosis {
                "off".to_string()
            } else {
                format!(
                    "on (budget {})",
                    budget(args.max_diagnosis_vertices, " vertices")
                )
            },
        ),
    ];
    if args.witness {
        v.push(("witness".to_string(), "on".to_string()));
    }
    let m = &args.model_args;
    if let Some(l) = &m.locations {
        v.push(("locations".to_string(), l.clone()));
    }
    if let Some(n) = m.random_locations {
        v.push((
            "random locations".to_string(),
            format!("{n} (seed {})", m.seed),
        ));
    }
    if let Some(s) = &m.signature {
        v.push(("signature".to_string(), s.display().to_string()));
    }
    v
}

/// Starts the report when `--report` was given.
pub fn open(args: &CheckArgs, model: &CompiledModel) -> Result<Option<ReportWriter>> {
    let Some(path) = &args.report else {
        return Ok(None);
    };
    let mut setup = ReportSetup::new(model, &args.model.display().to_string());
    setup.options = shown_options(args);
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
