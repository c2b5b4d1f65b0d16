//! `local` and `central`: AS split across hosts (seed 004's architecture). Each host that holds
//! a log runs `local` on its location's trace and ships the small summary; one host runs
//! `central` on all summaries. The verdicts are those of `check --procedure as`.
//!
//! The summary format, its writer and its validating reader are
//! [`multitrace_runtime::summary`]; the central step is
//! [`multitrace_runtime::check::semi::central_check`].
//!
//! Exit status: `local` 0 when the local trace passes, 1 on a LocalError (the summary is
//! written all the same: `central` needs it), 2 on errors; `central` as `check` (0 Pass or
//! WeakPass, 1 Fail, 3 Inconclusive, 2 on errors, each one located message).

use crate::{FormatArg, ModeArg, ModelArgs};
use anyhow::{bail, Context, Result};
use clap::Args;
use multitrace_compiler::syntax::read_text;
use multitrace_runtime::check::explore::Budget;
use multitrace_runtime::check::semi::central_check;
use multitrace_runtime::check::{CheckOptions, Engine, Procedure};
use multitrace_runtime::model::CompiledModel;
use multitrace_runtime::nfa::{LetterId, LocationId};
use multitrace_runtime::record::{Names, Record};
use multitrace_runtime::summary::{
    local_summary, mode_name, read_summary, write_summary, Summary, SummarySet,
};
use multitrace_runtime::syntax::{parse_htf, parse_mtf};
use multitrace_runtime::verdict::{Mode, Sym, VerdictKind};
use std::io::Write as _;
use std::path::PathBuf;
use std::time::{Duration, Instant};

/// Arguments of `local`.
#[derive(Args)]
pub struct LocalArgs {
    /// The model (.mtm, .hif or .timbuk); all hosts must use the same compiled model.
    model: PathBuf,
    /// The location whose trace this host holds (its name, e.g. l1 or l1,l2).
    #[arg(long)]
    location: String,
    /// A multitrace file (.mtf or .htf) holding the location's trace.
    trace: PathBuf,
    #[command(flatten)]
    model_args: ModelArgs,
    /// Complete observation or partial observation (multi-prefixes).
    #[arg(long, value_enum, default_value = "prefix")]
    mode: ModeArg,
    /// Output file (the summary, JSON).
    #[arg(short, long)]
    output: PathBuf,
}

/// Arguments of `central`.
#[derive(Args)]
pub struct CentralArgs {
    /// The model (.mtm, .hif or .timbuk): the same as the local verifiers'.
    model: PathBuf,
    /// One summary per location, written by `local`.
    #[arg(required = true)]
    summaries: Vec<PathBuf>,
    #[command(flatten)]
    model_args: ModelArgs,
    /// Output format.
    #[arg(long, value_enum, default_value = "text")]
    format: FormatArg,
    /// For a Pass, print one accepted global interleaving.
    #[arg(long)]
    witness: bool,
    /// Product-state budget of the central search (0: none).
    #[arg(long, default_value_t = 5_000_000)]
    max_vertices: u64,
    /// Time budget in milliseconds (0: none).
    #[arg(long, default_value_t = 10_000)]
    timeout_ms: u64,
}

pub fn local(args: LocalArgs) -> Result<u8> {
    let model = crate::model_cmd::load(&args.model, &args.model_args)?;
    let Some(k) = model
        .alphabet
        .location_names()
        .iter()
        .position(|n| *n == args.location)
    else {
        bail!(
            "--location {}: not a location of {}; its locations are {}",
            args.location,
            args.model.display(),
            model.alphabet.location_names().join(" ")
        );
    };
    let text = read_text(&args.trace)?;
    let file = args.trace.display().to_string();
    let traces = if args.trace.extension().is_some_and(|e| e == "mtf") {
        parse_mtf(&file, &text, &model.alphabet)?
    } else {
        let Some(sig) = model.signature() else {
            bail!("{file}: this model is a raw automaton; give an .mtf file");
        };
        let (mt, _) = parse_htf(&file, &text, sig)?;
        model
            .letter_traces(&mt)
            .map_err(|e| anyhow::anyhow!("{file}: {e}"))?
    };
    let Some(trace) = traces.get(k) else {
        bail!("{file}: no trace for location {}", args.location);
    };
    let mode = match args.mode {
        ModeArg::Complete => Mode::Complete,
        ModeArg::Prefix => Mode::Prefix,
    };
    let summary = local_summary(&model, LocationId(k as u32), trace, mode)
        .map_err(|e| anyhow::anyhow!("{}: {e}", args.model.display()))?;
    let out = args.output.display();
    let mut bytes = Vec::new();
    write_summary(&summary, &mut bytes).with_context(|| format!("{out}: cannot write"))?;
    std::fs::write(&args.output, bytes).with_context(|| format!("{out}: cannot write"))?;
    let actions = plural(summary.trace.len(), "action");
    match summary.position {
        Some(p) => {
            let found = summary
                .trace
                .get(p)
                .map_or("the end of the trace".to_string(), |a| {
                    format!("action {} `{a}`", p + 1)
                });
            eprintln!(
                "multitrace: {}: local verdict LocalError at {found} ({actions}; its local \
                 verifier allowed {}); summary written to {out}",
                args.location,
                or_nothing(&summary.expected),
            );
            Ok(1)
        }
        None => {
            eprintln!(
                "multitrace: {}: local verdict {} ({actions}, {} mode); summary written to {out}",
                args.location,
                summary.verdict,
                mode_name(mode)
            );
            Ok(0)
        }
    }
}

pub fn central(args: CentralArgs) -> Result<u8> {
    let model = crate::model_cmd::load(&args.model, &args.model_args)?;
    let engine = Engine::new(model);
    let Some(tables) = engine.tables() else {
        bail!(
            "{}: this model is term-only: distributed AS needs automata (its local verifiers); \
             use `multitrace check --procedure term`",
            args.model.display()
        );
    };
    let model = engine.model();
    let start = Instant::now();
    let mut summaries = Vec::new();
    for p in &args.summaries {
        let text = read_text(p)?;
        let s = read_summary(&p.display().to_string(), &text, model)?;
        summaries.push(s);
    }
    let set = SummarySet::new(model, summaries)?;
    let budget = Budget {
        max_vertices: (args.max_vertices > 0).then_some(args.max_vertices),
        timeout: (args.timeout_ms > 0).then(|| Duration::from_millis(args.timeout_ms)),
    };
    // A summary is trusted only as far as its trace: its verdict and area must be what the
    // local verifier gives that trace (else it was altered, or comes from another model).
    for s in set.summaries() {
        let again = local_summary(model, s.location(), s.trace(), set.mode())?;
        if again != s.to_local(model) {
            bail!(
                "{}: its verdict or area is not what the local verifier of {} gives its own trace; the summary was altered or written for another model: run `multitrace local` again",
                s.file(),
                location_name(model, s.location())
            );
        }
    }
    let mut v = central_check(model, tables, &set, &budget, args.witness)?;
    let traces: Vec<Vec<LetterId>> = set.summaries().iter().map(|s| s.trace().to_vec()).collect();
    let opts = CheckOptions {
        mode: set.mode(),
        budget,
        ..CheckOptions::default()
    };
    engine.explain_letters(&mut engine.scratch(), &traces, &opts, &mut v)?;
    let time = start.elapsed();
    let render = |s: Sym| match s {
        Sym::Letter(l) => model
            .alphabet
            .names()
            .get(l.index())
            .cloned()
            .unwrap_or_default(),
        Sym::Action(a) => model
            .signature()
            .map(|sig| sig.action_to_string(a))
            .unwrap_or_default(),
    };
    let names = model.alphabet.location_names().to_vec();
    let trace = set
        .summaries()
        .iter()
        .map(Summary::file)
        .collect::<Vec<_>>()
        .join(",");
    let record = Record::checked(
        trace,
        None,
        &v,
        Procedure::As,
        &Names {
            render: &render,
            locations: &names,
        },
        time,
    );
    // Written at once, so that a closed standard output is an error (exit 2), not a panic.
    let mut lines: Vec<String> = Vec::new();
    match args.format {
        FormatArg::Text => {
            for s in set.summaries() {
                lines.push(input_line(model, s));
            }
            let line = record.text_line();
            // The record's line without its name: the inputs are listed above.
            lines.push(line[record.name().len() + 2..].to_string());
            if let Some(w) = &record.witness {
                lines.push(format!("  witness: {}", w.join(" ")));
            }
            let actions: usize = set.summaries().iter().map(|s| s.trace().len()).sum();
            let verdict = match &v.reason {
                Some(r) => format!("{} ({})", v.kind, r.name()),
                None => v.kind.to_string(),
            };
            lines.push(format!(
                "1 multitrace from {} ({}, {} mode): {verdict}; total {:.3} s",
                plural(set.summaries().len(), "summary"),
                plural(actions, "action"),
                mode_name(set.mode()),
                time.as_secs_f64()
            ));
        }
        FormatArg::Jsonl => {
            for s in set.summaries() {
                eprintln!("multitrace: note: {}", input_line(model, s));
            }
            lines.push(record.to_json());
        }
    }
    let mut stdout = std::io::stdout().lock();
    lines
        .iter()
        .try_for_each(|l| writeln!(stdout, "{l}"))
        .and_then(|()| stdout.flush())
        .context("standard output: cannot write")?;
    Ok(match v.kind {
        VerdictKind::Pass | VerdictKind::WeakPass => 0,
        VerdictKind::Fail => 1,
        VerdictKind::Inconclusive => 3,
    })
}

/// `location clt1: s1.json (local Pass, 3 actions)`: which summary was read for which location.
fn input_line(model: &CompiledModel, s: &Summary) -> String {
    format!(
        "location {}: {} (local {}, {})",
        location_name(model, s.location()),
        s.file(),
        s.verdict_name(),
        plural(s.trace().len(), "action")
    )
}

fn location_name(model: &CompiledModel, k: LocationId) -> String {
    model
        .alphabet
        .location_names()
        .get(k.index())
        .cloned()
        .unwrap_or_else(|| format!("#{}", k.index()))
}

/// `1 action`, `3 actions`, `1 summary`, `2 summaries`.
fn plural(n: usize, word: &str) -> String {
    match (n, word.strip_suffix('y')) {
        (1, _) => format!("1 {word}"),
        (_, Some(stem)) => format!("{n} {stem}ies"),
        (_, None) => format!("{n} {word}s"),
    }
}

/// `a, b or c`; `nothing` for none.
fn or_nothing(items: &[String]) -> String {
    match items {
        [] => "nothing".into(),
        [a] => a.clone(),
        [init @ .., last] => format!("{} or {last}", init.join(", ")),
    }
}
