//! `compile`, `inspect` and `draw`.

use crate::{CompileArgs, DrawArgs, InspectArgs, ModelArgs};
use anyhow::{bail, Context, Result};
use multitrace_compiler::compile::{AutomataPolicy, CompileOptions, LocationChoice};
use multitrace_compiler::source::{check_source, compile_source, load_model, read_source};
use multitrace_compiler::syntax::parse_locations_spec;
use multitrace_runtime::artifact::encode;
use multitrace_runtime::model::{CompiledModel, ModelKind};
use multitrace_runtime::nfa::{LocationId, StateId};
use multitrace_runtime::project::NO_STATE;
use std::fmt::Write as _;
use std::path::Path;

/// Compile options from the command line.
pub fn compile_options(args: &ModelArgs, policy: AutomataPolicy) -> Result<CompileOptions> {
    let locations = if let Some(spec) = &args.locations {
        LocationChoice::Groups(parse_locations_spec(spec).map_err(anyhow::Error::msg)?)
    } else if let Some(count) = args.random_locations {
        LocationChoice::Random {
            count,
            seed: args.seed,
        }
    } else {
        LocationChoice::Default
    };
    Ok(CompileOptions {
        locations,
        state_cap: args.state_cap,
        dfa_cap: args.dfa_cap,
        area_cap: args.area_cap_mb.saturating_mul(1 << 20),
        policy,
    })
}

/// Loads a model named on the command line, printing compile notices.
pub fn load(path: &Path, args: &ModelArgs) -> Result<CompiledModel> {
    let opts = compile_options(args, AutomataPolicy::Auto)?;
    let is_artifact = path
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("mtm"));
    if let (Some(source), false) = (&args.source, is_artifact) {
        bail!(
            "--source {}: applies to a compiled model (.mtm), and {} is a source model; drop --source",
            source.display(),
            path.display()
        );
    }
    let model = load_model(path, args.signature.as_deref(), &opts)?;
    if let Some(source) = &args.source {
        check_source(path, &model, source, args.signature.as_deref())?;
    }
    if model.signature().is_some() && path.extension().is_none_or(|e| e != "mtm") {
        // Only what changes how the model is checked; `inspect` shows every notice.
        for n in model
            .stats
            .notices
            .iter()
            .filter(|n| n.contains("term-only"))
        {
            eprintln!("multitrace: note: {n}");
        }
    }
    Ok(model)
}

pub fn compile(args: CompileArgs) -> Result<u8> {
    let policy = if args.automata {
        AutomataPolicy::Require
    } else if args.term_only {
        AutomataPolicy::Never
    } else {
        AutomataPolicy::Auto
    };
    if let Some(source) = &args.model_args.source {
        bail!(
            "--source {}: applies to commands that read a compiled model (.mtm), not to compile",
            source.display()
        );
    }
    let opts = compile_options(&args.model_args, policy)?;
    let src = read_source(&args.model, args.model_args.signature.as_deref())?;
    let model = compile_source(&src, &opts)?;
    for n in &model.stats.notices {
        eprintln!("multitrace: note: {n}");
    }
    let bytes = encode(&model);
    std::fs::write(&args.output, &bytes)
        .with_context(|| format!("{}: cannot write", args.output.display()))?;
    eprintln!(
        "multitrace: wrote {} ({}, {} bytes)",
        args.output.display(),
        model.kind_name(),
        bytes.len()
    );
    Ok(0)
}

/// Loads a model to look at: a Timbuk file without `Systems` and without location options is
/// shown with one location holding every letter.
fn load_for_viewing(path: &Path, args: &ModelArgs) -> Result<CompiledModel> {
    let unpartitioned = args.source.is_none()
        && args.locations.is_none()
        && args.random_locations.is_none()
        && matches!(
            read_source(path, args.signature.as_deref()),
            Ok(multitrace_compiler::source::Source::Automaton { ref aut, .. }) if aut.systems.is_none()
        );
    if unpartitioned {
        eprintln!(
            "multitrace: note: {} has no `Systems` block and no --locations: shown with one location",
            path.display()
        );
        let opts = CompileOptions {
            locations: LocationChoice::Single,
            ..compile_options(args, AutomataPolicy::Auto)?
        };
        return Ok(compile_source(
            &read_source(path, args.signature.as_deref())?,
            &opts,
        )?);
    }
    load(path, args)
}

pub fn inspect(args: InspectArgs) -> Result<u8> {
    let model = load_for_viewing(&args.model, &args.model_args)?;
    print!("{}", describe(&model));
    Ok(0)
}

/// The text of `inspect`.
pub fn describe(m: &CompiledModel) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "kind: {}", m.kind_name());
    let _ = writeln!(s, "source: {}", m.stats.source);
    let _ = writeln!(s, "digest: {:016x}", m.digest);
    let _ = writeln!(
        s,
        "compile time: {:.3} ms",
        m.stats.compile_time_us as f64 / 1e3
    );
    let _ = writeln!(s, "alphabet: {} letters", m.alphabet.len());
    let _ = writeln!(s, "locations: {}", m.alphabet.locations());
    for k in 0..m.alphabet.locations() {
        let loc = LocationId(k as u32);
        let letters = m.alphabet.letters_of(loc);
        let mut line = format!(
            "  {}: {} letters",
            m.alphabet.location_name(loc),
            letters.len()
        );
        if m.signature().is_none() {
            let names: Vec<&str> = letters.iter().map(|&l| m.alphabet.name(l)).collect();
            let _ = write!(line, " ({})", names.join(" "));
        }
        if let Some(a) = m.automata() {
            let p = &a.projections[k];
            let mut distinct: Vec<u32> = p
                .next
                .iter()
                .zip(&p.area)
                .filter(|(t, _)| **t != NO_STATE)
                .map(|(_, a)| a.0)
                .collect();
            distinct.sort();
            distinct.dedup();
            let _ = write!(
                line,
                "; DFA {} states, {} transitions, {} distinct areas",
                p.states,
                p.transition_count(),
                distinct.len()
            );
        }
        let _ = writeln!(s, "{line}");
    }
    match &m.kind {
        ModelKind::Automata(a) => {
            let _ = writeln!(
                s,
                "NFA: {} states, {} transitions, {} initial, {} accepting",
                a.nfa.states(),
                a.nfa.transitions().len(),
                a.nfa.initial().len(),
                a.nfa.accepting_count()
            );
            let _ = writeln!(s, "areas: {} interned", a.areas.len());
        }
        ModelKind::TermOnly(why) => {
            let _ = writeln!(s, "term-only: {why}");
        }
    }
    for n in &m.stats.notices {
        let _ = writeln!(s, "note: {n}");
    }
    s
}

fn esc(s: &str) -> String {
    s.replace('\\', "\\\\").replace('"', "\\\"")
}

pub fn draw(args: DrawArgs) -> Result<u8> {
    let m = load_for_viewing(&args.model, &args.model_args)?;
    let Some(a) = m.automata() else {
        bail!("this model is term-only: it has no automata to draw");
    };
    let mut dot = String::new();
    if args.nfa {
        let _ = writeln!(dot, "digraph nfa {{\n  rankdir=LR;\n  node [shape=circle];");
        for s in 0..a.nfa.states() {
            let st = StateId(s as u32);
            let shape = if a.nfa.is_accepting(st) {
                "doublecircle"
            } else {
                "circle"
            };
            let _ = writeln!(
                dot,
                "  q{s} [label=\"{}\", shape={shape}];",
                esc(&a.nfa.state_name(st))
            );
        }
        for (i, s) in a.nfa.initial().iter().enumerate() {
            let _ = writeln!(dot, "  init{i} [shape=point];\n  init{i} -> q{};", s.0);
        }
        for t in a.nfa.transitions() {
            let _ = writeln!(
                dot,
                "  q{} -> q{} [label=\"{}\"];",
                t.from.0,
                t.to.0,
                esc(m.alphabet.name(t.letter))
            );
        }
    } else {
        let name = args.dfa.as_deref().unwrap_or_default();
        let Some(k) = m.alphabet.location_names().iter().position(|n| n == name) else {
            bail!(
                "unknown location `{name}`; locations are {}",
                m.alphabet.location_names().join(" ")
            );
        };
        let p = &a.projections[k];
        let letters = m.alphabet.letters_of(LocationId(k as u32));
        let _ = writeln!(
            dot,
            "digraph dfa {{\n  rankdir=LR;\n  init [shape=point];\n  init -> d0;"
        );
        for s in 0..p.states as usize {
            let subset: Vec<String> = p.subsets[s].iter().map(|&q| a.nfa.state_name(q)).collect();
            let shape = if p.accepting[s] {
                "doublecircle"
            } else {
                "circle"
            };
            let _ = writeln!(
                dot,
                "  d{s} [label=\"{{{}}}\", shape={shape}];",
                esc(&subset.join(","))
            );
            for (x, &letter) in letters.iter().enumerate() {
                if let Some((t, area)) = p.step(s as u32, x as u32) {
                    let _ = writeln!(
                        dot,
                        "  d{s} -> d{t} [label=\"{} / area {}\"];",
                        esc(m.alphabet.name(letter)),
                        area.0
                    );
                }
            }
        }
    }
    dot.push_str("}\n");
    std::fs::write(&args.output, &dot)
        .with_context(|| format!("{}: cannot write", args.output.display()))?;
    eprintln!("multitrace: wrote {}", args.output.display());
    let svg = args.output.with_extension("svg");
    match std::process::Command::new("dot")
        .arg("-Tsvg")
        .arg(&args.output)
        .arg("-o")
        .arg(&svg)
        .status()
    {
        Ok(st) if st.success() => eprintln!("multitrace: wrote {}", svg.display()),
        Ok(_) => eprintln!("multitrace: note: `dot` failed; only the .dot file was written"),
        Err(_) => {} // no Graphviz here: the .dot file is the result
    }
    Ok(0)
}
