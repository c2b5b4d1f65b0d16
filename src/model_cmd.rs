//! `compile`, `inspect` and `draw`, and [`load`]: the MODEL of every command (stale compiled
//! models, options that cannot apply, the names inferred without a signature file).

use crate::{CompileArgs, DrawArgs, InspectArgs, ModelArgs};
use anyhow::{bail, Context, Result};
use multitrace_compiler::compile::{AutomataPolicy, CompileOptions, LocationChoice};
use multitrace_compiler::source::{
    check_recorded_source, check_source, compile_source, load_artifact, read_source, record_source,
    Freshness, Source, SourceError,
};
use multitrace_compiler::syntax::parse_locations_spec;
use multitrace_runtime::artifact::encode;
use multitrace_runtime::model::CompiledModel;
use std::io::Write as _;
use std::path::Path;

/// Compile options from the command line (the caps' defaults are the compiler's).
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
    let defaults = CompileOptions::default();
    Ok(CompileOptions {
        locations,
        state_cap: args.state_cap.unwrap_or(defaults.state_cap),
        dfa_cap: args.dfa_cap.unwrap_or(defaults.dfa_cap),
        area_cap: args
            .area_cap_mb
            .map_or(defaults.area_cap, |mb| mb.saturating_mul(1 << 20)),
        policy,
    })
}

/// Whether `path` names a compiled model (`.mtm`, any case).
fn is_artifact(path: &Path) -> bool {
    path.extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("mtm"))
}

/// Refuses the model options that only apply when compiling, given with a compiled model:
/// each is named, with why and how to apply it (compile the source again).
fn refuse_compile_options(path: &Path, args: &ModelArgs) -> Result<()> {
    let quote = |s: &str| {
        if !s.is_empty()
            && s.chars()
                .all(|c| c.is_ascii_alphanumeric() || "/._-,".contains(c))
        {
            s.to_string()
        } else {
            format!("'{}'", s.replace('\'', "'\\''"))
        }
    };
    let mut given: Vec<(&str, String)> = Vec::new();
    if let Some(spec) = &args.locations {
        given.push(("--locations", quote(spec)));
    }
    if let Some(n) = args.random_locations {
        given.push(("--random-locations", format!("{n} --seed {}", args.seed)));
    }
    if let (Some(sig), None) = (&args.signature, &args.source) {
        given.push(("--signature", quote(&sig.display().to_string())));
    }
    for (option, value) in [
        ("--state-cap", args.state_cap),
        ("--dfa-cap", args.dfa_cap),
        ("--area-cap-mb", args.area_cap_mb),
    ] {
        if let Some(v) = value {
            given.push((option, v.to_string()));
        }
    }
    if given.is_empty() {
        return Ok(());
    }
    let names: Vec<&str> = given.iter().map(|(o, _)| *o).collect();
    let (verb, them) = if given.len() == 1 {
        ("does", "it")
    } else {
        ("do", "them")
    };
    let with: Vec<String> = given.iter().map(|(o, v)| format!("{o} {v}")).collect();
    let signature = if names.contains(&"--signature") {
        "; with a compiled model, --signature only names the signature of the --source given"
    } else {
        ""
    };
    bail!(
        "{}: {verb} not apply to the compiled model {} (its locations, signature and caps were fixed when it was compiled){signature}; drop {them}, or compile the source again with {them}: `multitrace compile SOURCE {} -o {}`",
        names.join(", "),
        path.display(),
        with.join(" "),
        path.display(),
    )
}

/// Prints the names inferred for an interaction read without a signature file, so that a
/// typo (which becomes one more lifeline or message) can be seen.
fn note_inferred_names(path: &Path, src: &Source, model: &CompiledModel) {
    let Source::Interaction(m) = src else { return };
    if m.signature_file.is_some() {
        return;
    }
    let Some(sig) = model.signature() else { return };
    let list = |names: &[String], one: &str, many: &str| {
        let mut sorted: Vec<&str> = names.iter().map(String::as_str).collect();
        sorted.sort_unstable();
        format!(
            "{} {} ({})",
            sorted.len(),
            if sorted.len() == 1 { one } else { many },
            sorted.join(", ")
        )
    };
    eprintln!(
        "multitrace: note: no signature file for {}; inferred {} and {} from the interaction; a typo shows up here as an extra name",
        path.display(),
        list(sig.lifelines(), "lifeline", "lifelines"),
        list(sig.messages(), "message", "messages"),
    );
}

/// Loads a compiled model and compares it with its source: the one named by `--source`, else
/// the one it records (refused when that source has changed since, unless `--allow-stale`).
fn load_compiled(path: &Path, args: &ModelArgs) -> Result<CompiledModel> {
    refuse_compile_options(path, args)?;
    let model = load_artifact(path)?;
    if let Some(source) = &args.source {
        check_source(path, &model, source, args.signature.as_deref())?;
        return Ok(model);
    }
    match check_recorded_source(path, &model) {
        Freshness::Fresh { .. } | Freshness::Gone => {}
        Freshness::Stale(m) if !args.allow_stale => return Err(SourceError::Stale(m).into()),
        Freshness::Stale(m) => eprintln!(
            "multitrace: note: {}: used as it is (--allow-stale), although its source {}{} has changed since it was compiled; `{}` rebuilds it",
            m.artifact,
            m.source,
            m.with_signature(),
            m.recompile
        ),
        Freshness::NotFound { recorded, tried } => eprintln!(
            "multitrace: note: {}: not compared with its source: it records `{recorded}`, a relative path found at none of {}; give --source FILE to compare, or compile it again to record an absolute path",
            path.display(),
            tried
                .iter()
                .map(|p| p.display().to_string())
                .collect::<Vec<_>>()
                .join(", ")
        ),
        Freshness::Unchecked { recorded, reason } => eprintln!(
            "multitrace: note: {}: not compared with its source `{recorded}`: {reason}",
            path.display()
        ),
    }
    Ok(model)
}

/// Loads a model named on the command line, printing compile notices.
///
/// A compiled model (`.mtm`) refuses the options that only apply when compiling and is
/// compared with its source ([`load_compiled`]); a source model (`.hif`, `.timbuk`) is
/// compiled in memory, with a note listing the names inferred for an interaction without a
/// signature file.
pub fn load(path: &Path, args: &ModelArgs) -> Result<CompiledModel> {
    if is_artifact(path) {
        return load_compiled(path, args);
    }
    for (given, option) in [
        (args.source.is_some(), "--source"),
        (args.allow_stale, "--allow-stale"),
    ] {
        if given {
            bail!(
                "{option}: applies to a compiled model (.mtm), and {} is a source model; drop {option}",
                path.display()
            );
        }
    }
    let opts = compile_options(args, AutomataPolicy::Auto)?;
    let src = read_source(path, args.signature.as_deref())?;
    let model = compile_source(&src, &opts)?;
    note_inferred_names(path, &src, &model);
    // Only what changes how the model is checked; `inspect` shows every notice.
    for n in model
        .stats
        .notices
        .iter()
        .filter(|n| n.contains("term-only"))
    {
        eprintln!("multitrace: note: {n}");
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
    for (given, option) in [
        (args.model_args.source.is_some(), "--source"),
        (args.model_args.allow_stale, "--allow-stale"),
    ] {
        if given {
            bail!(
                "{option}: applies to commands that read a compiled model (.mtm), not to compile"
            );
        }
    }
    let opts = compile_options(&args.model_args, policy)?;
    let src = read_source(&args.model, args.model_args.signature.as_deref())?;
    let mut model = compile_source(&src, &opts)?;
    note_inferred_names(&args.model, &src, &model);
    for n in &model.stats.notices {
        eprintln!("multitrace: note: {n}");
    }
    // Absolute paths, so that any later use can compare the model with its source.
    model.stats.source = record_source(&args.model, args.model_args.signature.as_deref());
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
    let unpartitioned = !is_artifact(path)
        && args.source.is_none()
        && !args.allow_stale
        && args.locations.is_none()
        && args.random_locations.is_none()
        && matches!(
            read_source(path, args.signature.as_deref()),
            Ok(Source::Automaton { ref aut, .. }) if aut.systems.is_none()
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
    print!("{}", multitrace_compiler::view::describe(&model));
    Ok(0)
}

/// Writes `text` to `output`, or to standard output for `-`.
fn write_output(output: &Path, text: &str) -> Result<()> {
    if output.as_os_str() == "-" {
        let mut out = std::io::stdout().lock();
        return out
            .write_all(text.as_bytes())
            .and_then(|()| out.flush())
            .context("standard output: cannot write");
    }
    std::fs::write(output, text).with_context(|| format!("{}: cannot write", output.display()))?;
    eprintln!("multitrace: wrote {}", output.display());
    Ok(())
}

/// `draw --diagram`: the interaction as a sequence diagram. A source interaction is drawn as
/// read (not compiled); a compiled model from the interaction it keeps.
fn draw_diagram(args: &DrawArgs) -> Result<()> {
    let title = args.model.display().to_string();
    let svg = if is_artifact(&args.model) {
        multitrace_compiler::diagram::model_svg(&load(&args.model, &args.model_args)?, &title)?
    } else {
        match read_source(&args.model, args.model_args.signature.as_deref())? {
            Source::Interaction(m) => multitrace_compiler::diagram::interaction_svg(
                &m.signature,
                &m.store,
                m.root,
                &title,
            )?,
            Source::Automaton { .. } => {
                return Err(multitrace_compiler::diagram::DiagramError::NotAnInteraction.into())
            }
        }
    };
    write_output(&args.output, &svg)
}

pub fn draw(args: DrawArgs) -> Result<u8> {
    if args.diagram {
        draw_diagram(&args)?;
        return Ok(0);
    }
    let m = load_for_viewing(&args.model, &args.model_args)?;
    let dot =
        multitrace_compiler::view::dot(&m, if args.nfa { None } else { args.dfa.as_deref() })?;
    if args.output.as_os_str() == "-" {
        // Standard output: the Graphviz text only (no .svg).
        let mut out = std::io::stdout().lock();
        out.write_all(dot.as_bytes())
            .and_then(|()| out.flush())
            .context("standard output: cannot write")?;
        return Ok(0);
    }
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
