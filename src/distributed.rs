//! `local` and `central`: AS split across hosts (seed 004's architecture). Each host that holds
//! a log runs `local` on its location's trace and ships the small summary; one host runs
//! `central` on all summaries. The verdicts are those of `check --procedure as`.

use crate::{FormatArg, ModeArg, ModelArgs};
use anyhow::{bail, Context, Result};
use clap::Args;
use multitrace_compiler::syntax::read_text;
use multitrace_runtime::check::explore::Budget;
use multitrace_runtime::check::semi::{central_check, local_summary, LocalSummary};
use multitrace_runtime::check::Engine;
use multitrace_runtime::nfa::LocationId;
use multitrace_runtime::syntax::{parse_htf, parse_mtf};
use multitrace_runtime::verdict::{Mode, Reason, Sym, VerdictKind};
use std::path::PathBuf;
use std::time::Duration;

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
            "unknown location `{}`; locations are {}",
            args.location,
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
    let mode = match args.mode {
        ModeArg::Complete => Mode::Complete,
        ModeArg::Prefix => Mode::Prefix,
    };
    let summary = local_summary(&model, LocationId(k as u32), &traces[k], mode)
        .map_err(anyhow::Error::msg)?;
    let json = serde_json::to_string_pretty(&summary)?;
    std::fs::write(&args.output, json + "\n")
        .with_context(|| format!("{}: cannot write", args.output.display()))?;
    eprintln!(
        "multitrace: {}: local verdict {} ({} actions)",
        args.location,
        summary.verdict,
        summary.trace.len()
    );
    Ok(0)
}

pub fn central(args: CentralArgs) -> Result<u8> {
    let model = crate::model_cmd::load(&args.model, &args.model_args)?;
    let mut summaries = Vec::new();
    for p in &args.summaries {
        let text = read_text(p)?;
        let s: LocalSummary = serde_json::from_str(&text).map_err(|e| {
            anyhow::anyhow!(
                "{}:{}:{}: not a local summary: {e}",
                p.display(),
                e.line(),
                e.column()
            )
        })?;
        summaries.push(s);
    }
    let engine = Engine::new(model);
    let Some(tables) = engine.tables() else {
        bail!("this model is term-only: distributed AS needs automata");
    };
    let budget = Budget {
        max_vertices: (args.max_vertices > 0).then_some(args.max_vertices),
        timeout: (args.timeout_ms > 0).then(|| Duration::from_millis(args.timeout_ms)),
    };
    let model = engine.model();
    let v = central_check(model, tables, &summaries, &budget, args.witness)
        .map_err(anyhow::Error::msg)?;
    let render = |s: Sym| match s {
        Sym::Letter(l) => model.alphabet.name(l).to_string(),
        Sym::Action(a) => model
            .signature()
            .map(|sig| sig.action_to_string(a))
            .unwrap_or_default(),
    };
    let names = model.alphabet.location_names().to_vec();
    match args.format {
        FormatArg::Text => {
            let why = v.explain(&render, &names);
            if why.is_empty() {
                println!("{}", v.kind);
            } else {
                println!("{} ({why})", v.kind);
            }
            if let Some(w) = &v.witness {
                let w: Vec<String> = w.iter().map(|&(_, s)| render(s)).collect();
                println!("  witness: {}", w.join(" "));
            }
        }
        FormatArg::Jsonl => {
            let location = match &v.reason {
                Some(Reason::LocalError { location, .. }) => names.get(location.index()).cloned(),
                _ => None,
            };
            let obj = serde_json::json!({
                "verdict": v.kind.name(),
                "procedure": "as",
                "reason": v.reason.as_ref().map(Reason::name),
                "location": location,
            });
            println!("{obj}");
        }
    }
    Ok(match v.kind {
        VerdictKind::Pass | VerdictKind::WeakPass => 0,
        VerdictKind::Fail => 1,
        VerdictKind::Inconclusive => 3,
    })
}
