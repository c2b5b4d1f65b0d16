//! `partition`: which participants must be monitored together (seed 002).
//!
//! For the given (or default) partition: question (a), global traces, with the shortest
//! counterexample and the bound it holds under; question (b), the central step, with what was
//! searched; then the static analysis (seed 002's conditions and ours, with positions), the
//! finest faithful partitions, and seed 002's derivation compared with them. Every
//! counterexample printed is re-checked by the runtime's own procedures; `-o DIR` writes them as
//! files `check` accepts, with the command that re-checks each. `--check-local` runs only the
//! local verifiers on multitraces, with a verdict only where it is never a guess.
//!
//! Exit status: 0 faithful (question (a), or (b) with `--question b`), 1 counterexample, 3
//! undecided within the bounds, 2 usage or input errors. With `--check-local`, the status of the
//! local checks: 1 when one fails, 3 when one is undecided, else 0.

use crate::ModeArg;
use anyhow::{bail, Context, Result};
use clap::{Args, ValueEnum};
use multitrace_compiler::compile::{CompileOptions, LocationChoice};
use multitrace_compiler::generate::{render_htf, render_mtf};
use multitrace_compiler::partition::central::{self, Central, CentralLimits, FoundBy, Searched};
use multitrace_compiler::partition::inclusion::{
    self, GlobalCounterexample, Inclusion, InclusionLimits, Shortest, Undecided,
};
use multitrace_compiler::partition::recheck::{recheck, Recheck};
use multitrace_compiler::partition::search::{self, SearchLimits, SearchOutcome, Status};
use multitrace_compiler::partition::{Analyzer, Partition, PartitionError, Problem};
use multitrace_compiler::source::{read_source, Source};
use multitrace_compiler::syntax::{parse_locations_spec, read_text};
use multitrace_runtime::check::semi::{local_check, LocalOutcome};
use multitrace_runtime::check::Engine;
use multitrace_runtime::model::CompiledModel;
use multitrace_runtime::nfa::LetterId;
use multitrace_runtime::signature::LifelineId;
use multitrace_runtime::verdict::{Mode, Reason, VerdictKind};
use serde_json::{json, Value};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// Which question decides the exit status.
#[derive(Clone, Copy, ValueEnum, PartialEq, Eq)]
pub enum QuestionArg {
    /// (a) global traces: can a violation escape every local verifier?
    A,
    /// (b) multitraces: is the central step needed?
    B,
}

/// Output format.
#[derive(Clone, Copy, ValueEnum, PartialEq, Eq)]
pub enum PartitionFormat {
    /// Text for people.
    Text,
    /// One JSON object.
    Json,
}

#[derive(Args)]
pub struct PartitionArgs {
    /// The model: an interaction (.hif) or a Timbuk automaton (.timbuk). A compiled model
    /// (.mtm) is refused: other partitions are compiled from the source.
    model: PathBuf,
    /// Signature file (.hsf); default as for the other commands.
    #[arg(long)]
    signature: Option<PathBuf>,
    /// The partition to analyze: groups of lifelines (interactions) or letters (Timbuk), e.g.
    /// 'A;B,C;D'. Default: one location per lifeline, or the Timbuk file's Systems block.
    /// Coarsenings are searched from it.
    #[arg(long)]
    locations: Option<String>,
    /// Complete observation or partial observation (multi-prefixes).
    #[arg(long, value_enum, default_value = "prefix")]
    mode: ModeArg,
    /// The question that decides the exit status.
    #[arg(long, value_enum, default_value = "a")]
    question: QuestionArg,
    /// (b): multitraces of at most N actions are searched exhaustively.
    #[arg(long, value_name = "N", default_value_t = 8)]
    max_length: usize,
    /// (b): most multitraces checked by the exhaustive search.
    #[arg(long, value_name = "N", default_value_t = 200_000)]
    max_multitraces: u64,
    /// (b): random mixes of accepted runs tried after the exhaustive search.
    #[arg(long, value_name = "N", default_value_t = 2_000)]
    samples: u64,
    /// Seed of the random mixes.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// (a): largest number of messages in flight per channel counted exactly (beyond it the
    /// counter is abstracted: a proof still holds for every trace).
    #[arg(long, value_name = "K", default_value_t = 3)]
    max_in_flight: u32,
    /// (a): most product states per search.
    #[arg(long, value_name = "N", default_value_t = 1_000_000)]
    max_states: usize,
    /// Finest faithful partitions: most partitions enumerated (B(10) = 115,975).
    #[arg(long, value_name = "N", default_value_t = 200_000)]
    max_partitions: usize,
    /// Finest faithful partitions: most product searches.
    #[arg(long, value_name = "N", default_value_t = 2_000)]
    max_searches: usize,
    /// Analyze the given partition only (no search of the finest faithful partitions).
    #[arg(long)]
    no_search: bool,
    /// Write the counterexamples into DIR as files `check` accepts.
    #[arg(short, long, value_name = "DIR")]
    output: Option<PathBuf>,
    /// Output format.
    #[arg(long, value_enum, default_value = "text")]
    format: PartitionFormat,
    /// Check these multitraces (.htf, .mtf or directories) with the local verifiers of the
    /// partition only: a LocalError is a Fail, and "every local check passes" is a Pass (or
    /// WeakPass) only where (b) is proven; otherwise the verdict says why it is undecided.
    #[arg(long, value_name = "TRACES", num_args = 1..)]
    check_local: Vec<PathBuf>,
    /// Largest NFA synthesized from an interaction. [default: 200000]
    #[arg(long, value_name = "N")]
    state_cap: Option<usize>,
    /// Largest local verifier (DFA states per location). [default: 200000]
    #[arg(long, value_name = "N")]
    dfa_cap: Option<usize>,
    /// Largest table of areas of the local verifiers, in MiB. [default: 256]
    #[arg(long, value_name = "MIB")]
    area_cap_mb: Option<usize>,
}

/// "1 action", "4 actions".
fn actions(n: usize) -> String {
    format!("{n} action{}", if n == 1 { "" } else { "s" })
}

/// "1 message", "3 messages".
fn messages(n: u32) -> String {
    format!("{n} message{}", if n == 1 { "" } else { "s" })
}

fn mode_of(m: ModeArg) -> Mode {
    match m {
        ModeArg::Complete => Mode::Complete,
        ModeArg::Prefix => Mode::Prefix,
    }
}

fn mode_name(m: Mode) -> &'static str {
    match m {
        Mode::Complete => "complete",
        Mode::Prefix => "prefix",
    }
}

/// Quotes a shell word when needed.
fn quote(s: &str) -> String {
    if !s.is_empty()
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || "/._-,=".contains(c))
    {
        s.to_string()
    } else {
        format!("'{}'", s.replace('\'', "'\\''"))
    }
}

/// Everything computed for one partition and mode: (a), its re-check, (b) and its re-check.
struct Analysis {
    partition: Partition,
    model: CompiledModel,
    inclusion: Inclusion,
    inclusion_check: Option<Recheck>,
    central: Central,
    central_check: Option<Recheck>,
}

struct Ctx<'a> {
    args: &'a PartitionArgs,
    mode: Mode,
    inclusion_limits: InclusionLimits,
    central_limits: CentralLimits,
}

fn analyze(
    an: &mut Analyzer<'_>,
    problem: &Problem,
    p: &Partition,
    mode: Mode,
    ctx: &Ctx<'_>,
) -> Result<Analysis> {
    let model = problem.compile(p)?;
    let (incl, _) = inclusion::check(an, p, mode, &ctx.inclusion_limits);
    let inclusion_check = match &incl {
        Inclusion::Counterexample(c) => {
            let r = recheck(problem, &model, p, &c.word, mode)?;
            if !r.confirms_inclusion() {
                bail!(
                    "internal error: the counterexample {} to (a) for {} is not confirmed by the runtime ({r:?}); please report it",
                    problem.word(&c.word),
                    problem.partition_name(p)
                );
            }
            Some(r)
        }
        _ => None,
    };
    let engine = Engine::new(model.clone());
    let cen = central::check(an, p, mode, &incl, &engine, &ctx.central_limits)?;
    let central_check = match &cen {
        Central::Counterexample(c, _) => {
            let r = recheck(problem, &model, p, &c.interleaving, mode)?;
            if !r.confirms_central() || !r.confirms_inclusion() {
                bail!(
                    "internal error: the counterexample {} to (b) for {} is not confirmed by the runtime ({r:?}); please report it",
                    problem.word(&c.interleaving),
                    problem.partition_name(p)
                );
            }
            Some(r)
        }
        _ => None,
    };
    // A counterexample to (b) interleaves into one to (a) (proven in `central`): it settles an
    // undecided (a).
    let (incl, inclusion_check) = match (&incl, &cen) {
        (Inclusion::Undecided(u), Central::Counterexample(c, _)) => (
            Inclusion::Counterexample(GlobalCounterexample::from_central(
                u,
                &c.interleaving,
                problem.causality(),
            )),
            central_check.clone(),
        ),
        _ => (incl, inclusion_check),
    };
    Ok(Analysis {
        partition: p.clone(),
        model,
        inclusion: incl,
        inclusion_check,
        central: cen,
        central_check,
    })
}

/// `[A] A!ping; [B] B?ping; ...`, local traces in global letters.
fn multitrace_line(problem: &Problem, p: &Partition, traces: &[Vec<LetterId>]) -> String {
    p.blocks()
        .iter()
        .zip(traces)
        .map(|(&b, t)| {
            let w = if t.is_empty() {
                String::new()
            } else {
                format!(" {}", problem.word(t))
            };
            format!("[{}]{w}", problem.block_name(b))
        })
        .collect::<Vec<_>>()
        .join("; ")
}

fn letters_json(problem: &Problem, w: &[LetterId]) -> Value {
    json!(w
        .iter()
        .map(|&x| problem.letter_name(x))
        .collect::<Vec<_>>())
}

fn multitrace_json(problem: &Problem, p: &Partition, traces: &[Vec<LetterId>]) -> Value {
    let mut m = serde_json::Map::new();
    for (&b, t) in p.blocks().iter().zip(traces) {
        m.insert(problem.block_name(b), letters_json(problem, t));
    }
    Value::Object(m)
}

fn partition_json(problem: &Problem, p: &Partition) -> Value {
    json!(p
        .blocks()
        .iter()
        .map(|&b| problem.block_name(b))
        .collect::<Vec<_>>())
}

fn recheck_json(r: &Recheck) -> Value {
    json!({
        "locals_accept": r.locals_accept(),
        "global_ac": r.global.name(),
        "multitrace_as": r.multitrace.kind.name(),
        "multitrace_as_reason": r.multitrace.reason.as_ref().map(|x| x.name()),
        "multitrace_ac": r.multitrace_ac.name(),
        "multitrace_term": r.multitrace_term.map(|v| v.name()),
    })
}

fn shortest_text(s: Shortest) -> String {
    match s {
        Shortest::Overall => "shortest".into(),
        Shortest::AmongInFlight(k) => format!(
            "shortest among the traces with at most {} in flight per channel",
            messages(k)
        ),
        Shortest::NoneUpTo(n) => format!(
            "the interleaving of (b)'s counterexample; {}",
            match n {
                Some(n) => format!("none has at most {}", actions(n)),
                None => "shorter ones may exist".to_string(),
            }
        ),
    }
}

fn undecided_text(problem: &Problem, u: &Undecided) -> String {
    match u {
        Undecided::States {
            limit,
            complete_up_to,
            in_flight,
        } => {
            let bound = if problem.causality().counters() > 0 {
                format!(" with at most {} in flight per channel", messages(*in_flight))
            } else {
                String::new()
            };
            format!(
                "undecided: the search reached its {limit} states (--max-states); no counterexample among the global traces of at most {complete_up_to} actions{bound}"
            )
        }
        Undecided::InFlight { bound, spurious } => format!(
            "undecided: no counterexample with at most {} in flight per channel (searched exhaustively, any length); beyond that bound the abstraction finds {}, which is not causally possible (raise --max-in-flight)",
            messages(*bound),
            problem.word(spurious)
        ),
        Undecided::Bounded {
            complete_up_to,
            words,
            inconclusive,
        } => {
            let upto = match complete_up_to {
                Some(n) => format!("every causal global trace of at most {} passing the local verifiers", actions(*n)),
                None => "no global trace".to_string(),
            };
            let inc = if *inconclusive > 0 {
                format!(", {inconclusive} of them Inconclusive (budget)")
            } else {
                String::new()
            };
            format!(
                "undecided: no counterexample among {upto} ({words} decided by term exploration{inc}; the global language is not regular, so longer traces are not searched: raise --max-length or --max-multitraces)"
            )
        }
    }
}

fn inclusion_json(problem: &Problem, a: &Analysis) -> Value {
    match &a.inclusion {
        Inclusion::Faithful { in_flight } => json!({
            "status": "faithful",
            "proof": if problem.exact() {
                "every global trace, any length"
            } else {
                "the global traces passing every local verifier are finitely many, all accepted"
            },
            "in_flight_exact_up_to": in_flight,
        }),
        Inclusion::Counterexample(c) => {
            let traces = problem.project(&a.partition, &c.word);
            json!({
                "status": "counterexample",
                "counterexample": {
                    "global_trace": letters_json(problem, &c.word),
                    "length": c.word.len(),
                    "shortest": match c.shortest {
                        Shortest::Overall => Value::String("overall".into()),
                        Shortest::AmongInFlight(k) => json!({"among_in_flight_at_most": k}),
                        Shortest::NoneUpTo(n) => json!({"from_b_none_up_to": n}),
                    },
                    "in_flight": c.in_flight,
                    "multitrace": multitrace_json(problem, &a.partition, &traces),
                    "recheck": a.inclusion_check.as_ref().map(recheck_json),
                }
            })
        }
        Inclusion::Undecided(u) => json!({
            "status": "undecided",
            "detail": undecided_text(problem, u),
        }),
    }
}

fn searched_text(s: &Searched, limits: &CentralLimits) -> String {
    let mut t = match s.complete_up_to {
        Some(n) => format!(
            "every multitrace passing the local checks with at most {} ({} causally possible, checked centrally)",
            actions(n),
            s.multitraces
        ),
        None => "no multitrace exhaustively".to_string(),
    };
    if s.complete_up_to.unwrap_or(0) < limits.max_length && !s.all {
        let _ = write!(
            t,
            " (the search stopped at --max-multitraces {})",
            limits.max_multitraces
        );
    }
    if s.samples > 0 {
        let _ = write!(
            t,
            ", and {} random mixes of accepted runs ({} causally possible and passing the local checks, checked centrally)",
            s.samples, s.samples_checked
        );
    }
    if s.inconclusive > 0 {
        let _ = write!(t, "; {} central checks ran out of budget", s.inconclusive);
    }
    t
}

fn searched_json(s: &Searched) -> Value {
    json!({
        "complete_up_to": s.complete_up_to,
        "all": s.all,
        "enumerated": s.enumerated,
        "multitraces": s.multitraces,
        "samples": s.samples,
        "samples_checked": s.samples_checked,
        "inconclusive": s.inconclusive,
    })
}

fn central_json(problem: &Problem, a: &Analysis) -> Value {
    match &a.central {
        Central::ProvenByInclusion => json!({"status": "proven", "proof": "inclusion"}),
        Central::ProvenExhaustive(s) => {
            json!({"status": "proven", "proof": "exhaustive", "searched": searched_json(s)})
        }
        Central::Counterexample(c, s) => json!({
            "status": "counterexample",
            "counterexample": {
                "multitrace": multitrace_json(problem, &a.partition, &c.traces),
                "interleaving": letters_json(problem, &c.interleaving),
                "actions": c.interleaving.len(),
                "found_by": match c.found {
                    FoundBy::Exhaustive => "exhaustive".to_string(),
                    FoundBy::Inclusion => "inclusion".to_string(),
                    FoundBy::Sampling(n) => format!("sample {n}"),
                },
                "recheck": a.central_check.as_ref().map(recheck_json),
            },
            "searched": searched_json(s),
        }),
        Central::NoneFound(s) => json!({"status": "none-found", "searched": searched_json(s)}),
    }
}

/// A file written for a counterexample, with the command that re-checks it.
struct Written {
    path: PathBuf,
    command: String,
    expect: String,
}

fn model_command(args: &PartitionArgs, mode: Mode) -> String {
    let mut c = format!(
        "multitrace check {}",
        quote(&args.model.display().to_string())
    );
    if let Some(s) = &args.signature {
        let _ = write!(c, " --signature {}", quote(&s.display().to_string()));
    }
    let _ = write!(c, " --mode {}", mode_name(mode));
    c
}

/// The text of a multitrace file of `model` (`.htf` for interactions, `.mtf` otherwise).
fn render(problem: &Problem, model: &CompiledModel, traces: &[Vec<LetterId>]) -> Result<String> {
    let t: Vec<Vec<LetterId>> = traces
        .iter()
        .map(|t| problem.translate(model, t))
        .collect::<Result<_, _>>()?;
    Ok(match render_htf(model, &t) {
        Some(s) => s,
        None => render_mtf(model, &t),
    })
}

fn write_files(problem: &Problem, a: &Analysis, ctx: &Ctx<'_>) -> Result<Vec<Written>> {
    let Some(dir) = &ctx.args.output else {
        return Ok(Vec::new());
    };
    std::fs::create_dir_all(dir).with_context(|| format!("{}: cannot create", dir.display()))?;
    let ext = if problem.is_interaction() {
        "htf"
    } else {
        "mtf"
    };
    let spec = problem.locations_spec(&a.partition);
    let base = model_command(ctx.args, ctx.mode);
    let mut out = Vec::new();
    let mut write = |name: &str, text: String, command: String, expect: String| -> Result<()> {
        let path = dir.join(format!("{name}.{ext}"));
        std::fs::write(&path, text).with_context(|| format!("{}: cannot write", path.display()))?;
        out.push(Written {
            command: format!("{command} {}", quote(&path.display().to_string())),
            path,
            expect,
        });
        Ok(())
    };
    if let Inclusion::Counterexample(c) = &a.inclusion {
        let single = Partition::single(problem.atoms());
        // One location holding everything (the model compiled with it may be term-only).
        let one = if problem.is_interaction() {
            problem.global().clone()
        } else {
            problem.compile(&single)?
        };
        let procedure = if problem.exact() { "ac" } else { "term" };
        write(
            "a-global",
            render(problem, &one, std::slice::from_ref(&c.word))?,
            format!(
                "{base} --locations {} --procedure {procedure}",
                quote(&problem.locations_spec(&single))
            ),
            "Fail: A rejects the global trace".into(),
        )?;
        let traces = problem.project(&a.partition, &c.word);
        let verdict = a
            .inclusion_check
            .as_ref()
            .map(|r| r.multitrace.kind.name())
            .unwrap_or("?");
        write(
            "a-multitrace",
            render(problem, &a.model, &traces)?,
            format!("{base} --locations {} --procedure as", quote(&spec)),
            format!("{verdict}, not a LocalError: every local verifier accepts its trace"),
        )?;
    }
    if let Central::Counterexample(c, _) = &a.central {
        write(
            "b-multitrace",
            render(problem, &a.model, &c.traces)?,
            format!("{base} --locations {} --procedure as", quote(&spec)),
            "Fail (InterError or CentralError): every local verifier accepts its trace, the central step rejects the multitrace".into(),
        )?;
    }
    Ok(out)
}

/// What the search says of a partition named by seed 002 or by our static conditions, with a
/// re-checked counterexample when it is refuted.
struct Verdict {
    partition: Partition,
    status: Option<Status>,
    counterexample: Option<Vec<LetterId>>,
}

fn judge(
    an: &mut Analyzer<'_>,
    problem: &Problem,
    outcome: &SearchOutcome,
    p: &Partition,
    ctx: &Ctx<'_>,
) -> Result<Verdict> {
    let mode = ctx.mode;
    let mut status = outcome.status_of(p, &mut |q, w| an.locally_accepted(q, w, mode));
    if status.is_none() {
        // Not met by the search (stopped early): decide it now.
        status = Some(
            match inclusion::check(an, p, mode, &ctx.inclusion_limits).0 {
                Inclusion::Faithful { in_flight } => Status::Faithful { in_flight },
                Inclusion::Counterexample(_) => Status::Refuted {
                    index: usize::MAX,
                    reused: false,
                },
                Inclusion::Undecided(u) => Status::Undecided(u),
            },
        );
    }
    let counterexample = match &status {
        Some(Status::Refuted { index, .. }) => {
            let w = match outcome.counterexamples.get(*index) {
                Some(w) => w.clone(),
                None => match inclusion::check(an, p, mode, &ctx.inclusion_limits).0 {
                    Inclusion::Counterexample(c) => c.word,
                    _ => bail!("internal error: a counterexample vanished"),
                },
            };
            let model = problem.compile(p)?;
            let r = recheck(problem, &model, p, &w, mode)?;
            if !r.confirms_inclusion() {
                bail!(
                    "internal error: the counterexample {} for {} is not confirmed by the runtime; please report it",
                    problem.word(&w),
                    problem.partition_name(p)
                );
            }
            Some(w)
        }
        _ => None,
    };
    Ok(Verdict {
        partition: p.clone(),
        status,
        counterexample,
    })
}

fn status_text(problem: &Problem, v: &Verdict, minimal: &[Partition]) -> String {
    match (&v.status, &v.counterexample) {
        (Some(Status::Faithful { .. }), _) => {
            if minimal.contains(&v.partition) {
                "faithful (one of the finest)".into()
            } else {
                let finer: Vec<String> = minimal
                    .iter()
                    .filter(|m| m.refines(&v.partition))
                    .map(|m| problem.partition_name(m))
                    .collect();
                if finer.is_empty() {
                    "faithful".into()
                } else {
                    format!("faithful, but coarser than {}", finer.join(" and "))
                }
            }
        }
        (Some(Status::Refuted { .. }), Some(w)) => {
            let traces = problem.project(&v.partition, w);
            format!(
                "not faithful: {} (as a multitrace: {}) passes every local verifier and A rejects it (re-checked)",
                problem.word(w),
                multitrace_line(problem, &v.partition, &traces)
            )
        }
        (Some(Status::Undecided(u)), _) => undecided_text(problem, u),
        _ => "unknown".into(),
    }
}

/// Most partitions derived from the static conditions that are shown and judged (each
/// refuted one costs a compilation to re-check its counterexample).
const MAX_SHOWN: usize = 24;

/// `P1 | P2 | ...`, at most [`MAX_SHOWN`] of them.
fn shown_names(problem: &Problem, list: &[Partition]) -> String {
    let mut t = list
        .iter()
        .take(MAX_SHOWN)
        .map(|p| problem.partition_name(p))
        .collect::<Vec<_>>()
        .join(" | ");
    if list.len() > MAX_SHOWN {
        let _ = write!(
            t,
            " ... and {} more (the first {MAX_SHOWN} are judged below)",
            list.len() - MAX_SHOWN
        );
    }
    t
}

/// Multitrace files under `paths` (directories searched recursively, sorted).
fn trace_files(paths: &[PathBuf]) -> Result<Vec<PathBuf>> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) -> Result<()> {
        let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
            .with_context(|| format!("{}: cannot read", dir.display()))?
            .filter_map(|e| e.ok().map(|e| e.path()))
            .collect();
        entries.sort();
        for p in entries {
            if p.is_dir() {
                walk(&p, out)?;
            } else if matches!(p.extension().and_then(|e| e.to_str()), Some("htf" | "mtf")) {
                out.push(p);
            }
        }
        Ok(())
    }
    let mut out = Vec::new();
    for p in paths {
        if p.is_dir() {
            walk(p, &mut out)?;
        } else {
            out.push(p.clone());
        }
    }
    if out.is_empty() {
        bail!("--check-local: no multitrace files (.htf, .mtf) found");
    }
    Ok(out)
}

/// One multitrace checked by the local verifiers only.
struct LocalVerdict {
    file: String,
    verdict: &'static str,
    why: String,
}

/// Whether (b) is proven by an analysis.
fn proven(c: &Central) -> bool {
    matches!(c, Central::ProvenByInclusion | Central::ProvenExhaustive(_))
}

fn check_local(
    problem: &Problem,
    main: &Analysis,
    complete: Option<&Analysis>,
    mode: Mode,
    files: &[PathBuf],
) -> Result<Vec<LocalVerdict>> {
    let model = &main.model;
    let automata = model
        .automata()
        .context("the partition's model has no automata")?;
    let name = problem.partition_name(&main.partition);
    let mut out = Vec::new();
    for f in files {
        let text = read_text(f)?;
        let file = f.display().to_string();
        let traces = match model.signature() {
            Some(sig) => {
                let (mt, _) = multitrace_runtime::syntax::parse_htf(&file, &text, sig)?;
                model.letter_traces(&mt).map_err(|e| {
                    anyhow::anyhow!("{file}: {e} (give the multitrace with the locations {name})")
                })?
            }
            None => multitrace_runtime::syntax::parse_mtf(&file, &text, &model.alphabet)?,
        };
        let mut area = vec![0u64; automata.areas.words()];
        let mut seen = Vec::new();
        let mut passes = |m: Mode| -> Option<(usize, usize, Vec<LetterId>)> {
            for (k, (t, dfa)) in traces.iter().zip(&automata.projections).enumerate() {
                if let LocalOutcome::Error { position, expected } =
                    local_check(automata, dfa, &model.alphabet, t, m, &mut area, &mut seen)
                {
                    return Some((k, position, expected));
                }
            }
            None
        };
        if let Some((k, position, expected)) = passes(mode) {
            let loc = model
                .alphabet
                .location_name(multitrace_runtime::nfa::LocationId(k as u32));
            let allowed: Vec<&str> = expected.iter().map(|&l| model.alphabet.name(l)).collect();
            let allowed = if allowed.is_empty() {
                "nothing".to_string()
            } else {
                allowed.join(" or ")
            };
            let why = match traces[k].get(position) {
                Some(&l) => format!(
                    "LocalError: {loc} action {} '{}' is not allowed by {loc}'s local verifier, which allows {allowed} there",
                    position + 1,
                    model.alphabet.name(l)
                ),
                None => format!(
                    "LocalError: {loc}'s trace cannot end after action {position}: {loc}'s local verifier allows {allowed} there"
                ),
            };
            out.push(LocalVerdict {
                file,
                verdict: "Fail",
                why,
            });
            continue;
        }
        // Every local check passes. Causally possible? (global letters, by name)
        let global: Vec<Vec<LetterId>> = traces
            .iter()
            .map(|t| {
                t.iter()
                    .map(|&l| {
                        problem
                            .analysis()
                            .alphabet
                            .letter(model.alphabet.name(l))
                            .context("letter missing from the analysed model")
                    })
                    .collect::<Result<Vec<_>>>()
            })
            .collect::<Result<_>>()?;
        if problem.causality().interleave(&global).is_none() {
            out.push(LocalVerdict {
                file,
                verdict: "Inconclusive",
                why: "every local check passes, but no interleaving has each reception after its emission: the local verifiers' guarantee covers only what the network can produce; run the central step".into(),
            });
            continue;
        }
        let complete_ok = mode == Mode::Complete || passes(Mode::Complete).is_none();
        let (verdict, why) = match mode {
            Mode::Complete if proven(&main.central) => (
                "Pass",
                format!("every local check passes, and the central step is proven unnecessary for {name} in complete mode"),
            ),
            Mode::Complete => (
                "Inconclusive",
                format!("every local check passes, but the central step is not proven unnecessary for {name} in complete mode: run it"),
            ),
            _ => {
                let complete_proven = complete.is_some_and(|c| proven(&c.central));
                if complete_ok && complete_proven {
                    (
                        "Pass",
                        format!("every local check passes in complete mode, and the central step is proven unnecessary for {name} in complete mode"),
                    )
                } else if !complete_ok && proven(&main.central) {
                    (
                        "WeakPass",
                        format!("every local check passes in prefix mode (not in complete mode), and the central step is proven unnecessary for {name} in prefix mode"),
                    )
                } else if proven(&main.central) {
                    (
                        "Inconclusive",
                        format!("a multi-prefix of an accepted multitrace (proven for {name} in prefix mode); whether it is accepted needs the central step"),
                    )
                } else {
                    (
                        "Inconclusive",
                        format!("every local check passes, but the central step is not proven unnecessary for {name} in prefix mode: run it"),
                    )
                }
            }
        };
        out.push(LocalVerdict { file, verdict, why });
    }
    Ok(out)
}

fn exit_code(question: QuestionArg, a: &Analysis) -> u8 {
    match question {
        QuestionArg::A => match a.inclusion {
            Inclusion::Faithful { .. } => 0,
            Inclusion::Counterexample(_) => 1,
            Inclusion::Undecided(_) => 3,
        },
        QuestionArg::B => match a.central {
            Central::ProvenByInclusion | Central::ProvenExhaustive(_) => 0,
            Central::Counterexample(..) => 1,
            Central::NoneFound(_) => 3,
        },
    }
}

pub fn partition(args: PartitionArgs) -> Result<u8> {
    if args
        .model
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("mtm"))
    {
        bail!(
            "{}: partition needs the source model (.hif or .timbuk), since it compiles the model with other locations; give the interaction or Timbuk file this compiled model was compiled from (`multitrace inspect` shows it as `source:`)",
            args.model.display()
        );
    }
    let mode = mode_of(args.mode);
    let defaults = CompileOptions::default();
    let options = CompileOptions {
        state_cap: args.state_cap.unwrap_or(defaults.state_cap),
        dfa_cap: args.dfa_cap.unwrap_or(defaults.dfa_cap),
        area_cap: args
            .area_cap_mb
            .map_or(defaults.area_cap, |mb| mb.saturating_mul(1 << 20)),
        ..defaults
    };
    let given = match &args.locations {
        Some(spec) => {
            LocationChoice::Groups(parse_locations_spec(spec).map_err(anyhow::Error::msg)?)
        }
        None => LocationChoice::Default,
    };
    let source = read_source(&args.model, args.signature.as_deref())?;
    if let Source::Interaction(m) = &source {
        if m.signature_file.is_none() {
            let mut l: Vec<&str> = m.signature.lifelines().iter().map(String::as_str).collect();
            let mut ms: Vec<&str> = m.signature.messages().iter().map(String::as_str).collect();
            l.sort_unstable();
            ms.sort_unstable();
            eprintln!(
                "multitrace: note: no signature file for {}; inferred lifelines ({}) and messages ({}) from the interaction; a typo shows up here as an extra name",
                args.model.display(),
                l.join(", "),
                ms.join(", ")
            );
        }
    }
    let ctx = Ctx {
        args: &args,
        mode,
        inclusion_limits: InclusionLimits {
            max_states: args.max_states,
            max_in_flight: args.max_in_flight,
            max_length: args.max_length,
            max_words: args.max_multitraces,
        },
        central_limits: CentralLimits {
            max_length: args.max_length,
            max_multitraces: args.max_multitraces,
            samples: args.samples,
            seed: args.seed,
        },
    };
    let problem = match Problem::new(source, given, &options, None) {
        Ok(p) => p,
        Err(e @ PartitionError::NotAutomata { .. }) => {
            // The question cannot be answered on automata: undecided, not a usage error.
            if args.format == PartitionFormat::Json {
                println!(
                    "{}",
                    json!({"model": args.model.display().to_string(), "mode": mode_name(mode), "status": "undecided", "detail": e.to_string()})
                );
            } else {
                println!("{}: undecided: {e}", args.model.display());
            }
            return Ok(3);
        }
        Err(e) => return Err(e.into()),
    };
    let mut an = Analyzer::new(&problem);
    let given_p = Partition::finest(problem.atoms());
    let main = analyze(&mut an, &problem, &given_p, mode, &ctx)?;
    let other = if !args.check_local.is_empty() && mode == Mode::Prefix {
        Some(analyze(&mut an, &problem, &given_p, Mode::Complete, &ctx)?)
    } else {
        None
    };
    let written = write_files(&problem, &main, &ctx)?;

    // The finest faithful partitions, guided by seed 002's derivation and our static
    // prediction (decided first: their counterexamples are re-used, and the coarsenings of a
    // faithful one skipped).
    let atom_of = |l: LifelineId| problem.atom_of_lifeline(l.index()).unwrap_or(0);
    let cap = args.max_partitions.saturating_mul(10);
    let derived = problem.statics().map(|st| {
        (
            st.minimal_partitions(true, mode, problem.atoms(), &atom_of, cap),
            st.minimal_partitions(false, mode, problem.atoms(), &atom_of, cap),
        )
    });
    let hints: Vec<Partition> = derived
        .iter()
        .flat_map(|(seed, ours)| {
            let ours = ours.iter().flatten().take(MAX_SHOWN);
            ours.chain(seed.iter().flatten().take(MAX_SHOWN)).cloned()
        })
        .collect();
    let search = (!args.no_search && problem.exact()).then(|| {
        search::finest_faithful(
            &mut an,
            mode,
            &SearchLimits {
                max_partitions: args.max_partitions,
                max_searches: args.max_searches,
            },
            &ctx.inclusion_limits,
            Some(&main.inclusion),
            &hints,
        )
    });
    let mut minimal: Vec<(Partition, bool)> = Vec::new();
    let mut seed_verdicts = Vec::new();
    let mut ours_verdicts = Vec::new();
    if let Some(out) = &search {
        minimal = out
            .minimal()
            .into_iter()
            .map(|(i, certain)| (out.records[i].partition.clone(), certain))
            .collect();
        if let Some((seed, ours)) = &derived {
            for p in seed.iter().flatten().take(MAX_SHOWN) {
                seed_verdicts.push(judge(&mut an, &problem, out, p, &ctx)?);
            }
            for p in ours.iter().flatten().take(MAX_SHOWN) {
                ours_verdicts.push(judge(&mut an, &problem, out, p, &ctx)?);
            }
        }
    }
    let minimal_parts: Vec<Partition> = minimal.iter().map(|(p, _)| p.clone()).collect();
    let locals = if args.check_local.is_empty() {
        None
    } else {
        let files = trace_files(&args.check_local)?;
        Some(check_local(&problem, &main, other.as_ref(), mode, &files)?)
    };

    let code = match &locals {
        Some(l) if l.iter().any(|v| v.verdict == "Fail") => 1,
        Some(l) if l.iter().any(|v| v.verdict == "Inconclusive") => 3,
        Some(_) => 0,
        None => exit_code(args.question, &main),
    };

    if args.format == PartitionFormat::Json {
        let statics: Vec<Value> = problem
            .statics()
            .map(|st| {
                st.constraints()
                    .iter()
                    .filter(|c| c.rule.applies(mode))
                    .map(|c| {
                        let sig = problem.global().signature();
                        let name = |l: LifelineId| {
                            sig.map_or(String::new(), |s| s.lifeline_name(l).to_string())
                        };
                        json!({
                            "family": if c.rule.is_seed002() { "seed002" } else { "ours" },
                            "rule": c.rule.name(),
                            "at": c.at,
                            "construct": c.construct,
                            "reason": c.reason,
                            "options": c.options.iter().map(|&(a, b)| vec![name(a), name(b)]).collect::<Vec<_>>(),
                        })
                    })
                    .collect()
            })
            .unwrap_or_default();
        let verdicts = |vs: &[Verdict]| -> Value {
            json!(vs
                .iter()
                .map(|v| json!({
                    "partition": partition_json(&problem, &v.partition),
                    "status": match &v.status {
                        Some(Status::Faithful { .. }) => "faithful",
                        Some(Status::Refuted { .. }) => "counterexample",
                        Some(Status::Undecided(_)) => "undecided",
                        None => "unknown",
                    },
                    "finest": minimal_parts.contains(&v.partition),
                    "counterexample": v.counterexample.as_ref().map(|w| letters_json(&problem, w)),
                }))
                .collect::<Vec<_>>())
        };
        let search_json = search.as_ref().map(|out| {
            json!({
                "complete": out.complete(),
                "complete_down_to_blocks": out.complete_down_to,
                "partitions_total": out.total.to_string(),
                "enumerated": out.enumerated,
                "product_searches": out.searches,
                "product_searches_on_hints": out.hint_searches,
                "decided_by_own_search": out.decided,
                "single_location": out.trivial,
                "refuted_by_known_counterexample": out.reused,
                "skipped_coarser_than_faithful": out.skipped,
                "product_states": out.states,
                "finest_faithful": minimal.iter().map(|(p, certain)| json!({
                    "partition": partition_json(&problem, p),
                    "certain": certain,
                })).collect::<Vec<_>>(),
                "counterexamples": out.counterexamples.iter().map(|w| letters_json(&problem, w)).collect::<Vec<_>>(),
                "hinted_faithful": out.hinted_faithful.iter().map(|p| partition_json(&problem, p)).collect::<Vec<_>>(),
            })
        });
        let v = json!({
            "model": args.model.display().to_string(),
            "mode": mode_name(mode),
            "question": match args.question { QuestionArg::A => "a", QuestionArg::B => "b" },
            "exit": code,
            "partition": partition_json(&problem, &main.partition),
            "locations": problem.locations_spec(&main.partition),
            "global_automaton": {
                "states": problem.global().automata().map(|a| a.nfa.states()),
                "transitions": problem.global().automata().map(|a| a.nfa.transitions().len()),
                "regular": problem.exact(),
            },
            "causality": problem.causality().channels.iter().map(|(b, m, s)| json!({
                "receiver": b, "message": m, "senders": s,
            })).collect::<Vec<_>>(),
            "a": inclusion_json(&problem, &main),
            "b": central_json(&problem, &main),
            "static": statics,
            "search": search_json,
            "seed002": derived.as_ref().map(|(seed, _)| json!({
                "derived": seed.as_ref().map(|_| verdicts(&seed_verdicts)),
                "count": seed.as_ref().map(Vec::len),
            })),
            "ours": derived.as_ref().map(|(_, ours)| json!({
                "predicted": ours.as_ref().map(|_| verdicts(&ours_verdicts)),
                "count": ours.as_ref().map(Vec::len),
            })),
            "files": written.iter().map(|w| json!({
                "path": w.path.display().to_string(),
                "command": w.command,
                "expect": w.expect,
            })).collect::<Vec<_>>(),
            "local_checks": locals.as_ref().map(|l| l.iter().map(|v| json!({
                "trace": v.file, "verdict": v.verdict, "why": v.why,
            })).collect::<Vec<_>>()),
        });
        println!("{}", serde_json::to_string_pretty(&v)?);
        return Ok(code);
    }

    // Text.
    let mut s = String::new();
    let kind = if problem.is_interaction() {
        "interaction"
    } else {
        "automaton"
    };
    let _ = writeln!(
        s,
        "model: {} ({kind}), {} mode",
        args.model.display(),
        mode_name(mode)
    );
    if let Some(a) = problem.global().automata() {
        let _ = writeln!(
            s,
            "global traces: the model compiled with one location, an NFA of {} states and {} transitions",
            a.nfa.states(),
            a.nfa.transitions().len()
        );
    } else if let multitrace_runtime::model::ModelKind::TermOnly(why) = &problem.global().kind {
        let _ = writeln!(
            s,
            "global traces: not regular ({why}); (a) is searched up to --max-length {} actions, each global trace decided by term exploration; (b) runs on the model compiled with the given locations (same multitraces); coarsenings are not searched",
            ctx.inclusion_limits.max_length
        );
    }
    if problem.is_interaction() {
        let ch: Vec<String> = problem
            .causality()
            .channels
            .iter()
            .map(|(b, m, senders)| {
                format!(
                    "{b}?{m} after {}",
                    senders
                        .iter()
                        .map(|a| format!("{a}!{m}"))
                        .collect::<Vec<_>>()
                        .join(" or ")
                )
            })
            .collect();
        let _ = writeln!(
            s,
            "causality: a reception follows an emission of its message not yet received: {}",
            if ch.is_empty() {
                "(no constrained reception)".to_string()
            } else {
                ch.join("; ")
            }
        );
    } else {
        let _ = writeln!(
            s,
            "causality: none (the letters of a raw automaton are opaque)"
        );
    }
    let given_how = if args.locations.is_some() {
        "given"
    } else if problem.is_interaction() {
        "default: one location per lifeline"
    } else {
        "default: the Systems block"
    };
    let _ = writeln!(
        s,
        "\npartition {} ({given_how})",
        problem.partition_name(&main.partition)
    );
    match &main.inclusion {
        Inclusion::Faithful { .. } if !problem.exact() => {
            let _ = writeln!(
                s,
                "(a) global traces: faithful: the causal global traces passing every local verifier are finitely many, and term exploration accepts each"
            );
        }
        Inclusion::Faithful { in_flight } => {
            let how = match in_flight {
                Some(k) => format!(
                    " (product search with in-flight counters exact up to {k} and abstracted beyond, which only adds traces)"
                ),
                None => " (product search)".into(),
            };
            let _ = writeln!(
                s,
                "(a) global traces: faithful: no global trace of any length passes every local verifier and is rejected by A{how}"
            );
        }
        Inclusion::Counterexample(c) => {
            let traces = problem.project(&main.partition, &c.word);
            let _ = writeln!(
                s,
                "(a) global traces: not faithful\n    counterexample ({}, {}): {}\n    as a multitrace: {}",
                actions(c.word.len()),
                shortest_text(c.shortest),
                problem.word(&c.word),
                multitrace_line(&problem, &main.partition, &traces)
            );
            if let Some(r) = &main.inclusion_check {
                let seen = match (r.multitrace.kind, &r.multitrace.reason) {
                    (VerdictKind::Fail, Some(reason)) => {
                        format!("the multitrace itself fails ({}), so the central step sees it", reason.name())
                    }
                    (VerdictKind::WeakPass, _) => "the multitrace itself is WeakPass (a multi-prefix of an accepted multitrace): only the global order shows the violation".to_string(),
                    (k, _) => format!(
                        "the multitrace itself is {} (another interleaving is accepted): only the global order shows the violation",
                        k.name()
                    ),
                };
                let by = if problem.exact() {
                    "AC"
                } else {
                    "term exploration"
                };
                let _ = writeln!(
                    s,
                    "    re-checked: every local verifier accepts its trace, {by} rejects the global trace; {seen}"
                );
            }
        }
        Inclusion::Undecided(u) => {
            let _ = writeln!(s, "(a) global traces: {}", undecided_text(&problem, u));
        }
    }
    match &main.central {
        Central::ProvenByInclusion => {
            let _ = writeln!(
                s,
                "(b) central step: not needed (proven by (a): a multitrace passing every local check and not accepted would interleave into a counterexample to (a))"
            );
        }
        Central::ProvenExhaustive(searched) => {
            let _ = writeln!(
                s,
                "(b) central step: not needed (proven: every local language is finite, and {} are accepted)",
                searched_text(searched, &ctx.central_limits).replacen("every multitrace", "all multitraces", 1)
            );
        }
        Central::Counterexample(c, searched) => {
            let how = match c.found {
                FoundBy::Exhaustive => {
                    "found by the exhaustive search, so no counterexample has fewer actions"
                        .to_string()
                }
                FoundBy::Inclusion => "the multitrace of (a)'s counterexample".to_string(),
                FoundBy::Sampling(n) => format!(
                    "random mix {n}, after {}",
                    searched_text(searched, &ctx.central_limits)
                ),
            };
            let (also, s_) = if problem.is_interaction() {
                ("AC and term exploration", "")
            } else {
                ("AC", "s")
            };
            let reason = main
                .central_check
                .as_ref()
                .and_then(|r| r.multitrace.reason.as_ref().map(Reason::name))
                .unwrap_or("?");
            let _ = writeln!(
                s,
                "(b) central step: needed\n    counterexample ({}; {how}): {}\n    re-checked: every local verifier accepts its trace; AS fails it with {reason}, {also} reject{s_} it",
                actions(c.interleaving.len()),
                multitrace_line(&problem, &main.partition, &c.traces)
            );
        }
        Central::NoneFound(searched) => {
            let _ = writeln!(
                s,
                "(b) central step: undecided: no counterexample among {} (not a proof)",
                searched_text(searched, &ctx.central_limits)
            );
        }
    }
    if let Some(st) = problem.statics() {
        let _ = writeln!(s, "\nstatic analysis ({} mode)", mode_name(mode));
        for seed in [true, false] {
            let _ = writeln!(
                s,
                "  {}",
                if seed {
                    "seed 002 (Def. 1; events are whole exchanges):"
                } else {
                    "ours (events are emissions and receptions; the network orders only a reception after its emission):"
                }
            );
            let cs: Vec<_> = st
                .constraints()
                .iter()
                .filter(|c| c.rule.is_seed002() == seed && c.rule.applies(mode))
                .collect();
            if cs.is_empty() {
                let _ = writeln!(s, "    (no constraint)");
            }
            for c in cs {
                let _ = writeln!(
                    s,
                    "    {}: {}, {}: {}",
                    c.at,
                    c.construct,
                    c.rule.name(),
                    c.reason
                );
            }
        }
    }
    if let Some(out) = &search {
        let _ = writeln!(
            s,
            "\nfinest faithful partitions (question (a), {} mode{}):",
            mode_name(mode),
            if out.complete() {
                ""
            } else {
                "; among the partitions searched"
            }
        );
        for (p, certain) in &minimal {
            let _ = writeln!(
                s,
                "    {}{}",
                problem.partition_name(p),
                if *certain {
                    ""
                } else {
                    " (a finer partition was left undecided)"
                }
            );
        }
        if !out.complete() {
            let outside: Vec<String> = out
                .hinted_faithful
                .iter()
                .filter(|h| !minimal_parts.contains(h))
                .map(|h| problem.partition_name(h))
                .collect();
            if !outside.is_empty() {
                let _ = writeln!(
                    s,
                    "  also faithful (predicted statically, proven; beyond the levels searched, so maybe not finest): {}",
                    outside.join(" | ")
                );
            }
        }
        let extent = if out.complete() {
            format!(
                "all {} partitions of {} locations",
                out.total,
                problem.atoms()
            )
        } else {
            format!(
                "{} of the {} partitions of {} locations, complete down to {} blocks (raise --max-partitions or --max-searches)",
                out.enumerated,
                out.total,
                problem.atoms(),
                out.complete_down_to
                    .map_or("no".to_string(), |b| b.to_string())
            )
        };
        let hints = if out.hint_searches > 0 {
            format!(
                ", {} of them first on the partitions derived statically",
                out.hint_searches
            )
        } else {
            String::new()
        };
        let _ = writeln!(
            s,
            "  searched {extent} with {} product searches{hints}: {} decided by a search of their own, {} refuted by a counterexample already found, {} skipped as coarser than a faithful one{}",
            out.searches,
            out.decided,
            out.reused,
            out.skipped,
            if out.trivial > 0 {
                ", and the single location (faithful by definition)"
            } else {
                ""
            }
        );
        if let Some((seed, ours)) = &derived {
            match seed {
                Some(list) => {
                    let _ = writeln!(
                        s,
                        "seed 002 derives (finest partitions satisfying its conditions): {}",
                        if list.is_empty() {
                            "(none satisfiable)".to_string()
                        } else {
                            shown_names(&problem, list)
                        }
                    );
                    for v in &seed_verdicts {
                        let _ = writeln!(
                            s,
                            "    {}: {}",
                            problem.partition_name(&v.partition),
                            status_text(&problem, v, &minimal_parts)
                        );
                    }
                }
                None => {
                    let _ = writeln!(
                        s,
                        "seed 002 derives: not enumerated (more than --max-partitions partitions)"
                    );
                }
            }
            match ours {
                Some(list) => {
                    let agree = list.len() == minimal_parts.len()
                        && list.iter().all(|p| minimal_parts.contains(p))
                        && out.complete();
                    let _ = writeln!(
                        s,
                        "our static conditions predict: {}{}",
                        shown_names(&problem, list),
                        if agree { " (confirmed)" } else { "" }
                    );
                    if !agree {
                        for v in &ours_verdicts {
                            let _ = writeln!(
                                s,
                                "    {}: {}",
                                problem.partition_name(&v.partition),
                                status_text(&problem, v, &minimal_parts)
                            );
                        }
                    }
                }
                None => {
                    let _ = writeln!(s, "our static conditions: not enumerated (more than --max-partitions partitions)");
                }
            }
        }
    }
    if search.is_none() && !problem.exact() && !args.no_search {
        let _ = writeln!(
            s,
            "\nfinest faithful partitions: not searched (the global language is not regular, so only the given partition can be asked)"
        );
        if let Some((seed, ours)) = &derived {
            if let Some(list) = seed {
                let _ = writeln!(
                    s,
                    "seed 002 derives (not judged): {}",
                    shown_names(&problem, list)
                );
            }
            if let Some(list) = ours {
                let _ = writeln!(
                    s,
                    "our static conditions predict (not judged): {}",
                    shown_names(&problem, list)
                );
            }
        }
    }
    if !written.is_empty() {
        let _ = writeln!(s, "\nfiles (each re-checked by the command shown):");
        for w in &written {
            let _ = writeln!(
                s,
                "  {}\n    {}\n    expect: {}",
                w.path.display(),
                w.command,
                w.expect
            );
        }
    }
    if let Some(l) = &locals {
        let _ = writeln!(
            s,
            "\nlocal verifiers only ({}):",
            problem.partition_name(&main.partition)
        );
        for v in l {
            let _ = writeln!(s, "{}: {} ({})", v.file, v.verdict, v.why);
        }
        let count = |name: &str| l.iter().filter(|v| v.verdict == name).count();
        let _ = writeln!(
            s,
            "{} multitrace{}: {} Pass, {} WeakPass, {} Fail, {} Inconclusive",
            l.len(),
            if l.len() == 1 { "" } else { "s" },
            count("Pass"),
            count("WeakPass"),
            count("Fail"),
            count("Inconclusive")
        );
    }
    print!("{s}");
    Ok(code)
}
