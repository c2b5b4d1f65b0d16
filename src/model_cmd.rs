//! `compile`, `inspect` and `draw`, and [`load`]: the MODEL of every command, opened by
//! [`multitrace_compiler::open`] (stale compiled models, options that cannot apply, the names
//! inferred without a signature file), its notes printed.

use crate::{CompileArgs, DrawArgs, InspectArgs, ModelArgs, VerifyArgs};
use anyhow::{Context, Result};
use multitrace_compiler::compile::AutomataPolicy;
use multitrace_compiler::open::{compile_model, diagram_text, open_for_viewing, open_model};
use multitrace_report::diagram::diagram_svg;
use multitrace_runtime::artifact::encode;
use multitrace_runtime::model::CompiledModel;
use multitrace_runtime::output::refuse_overwrite;
use std::path::Path;

fn note(n: String) {
    eprintln!("multitrace: note: {n}");
}

/// Loads a model named on the command line, printing its notes.
pub fn load(path: &Path, args: &ModelArgs) -> Result<CompiledModel> {
    Ok(open_model(path, &args.options(), &mut note)?)
}

pub fn compile(args: CompileArgs) -> Result<u8> {
    let policy = if args.automata {
        AutomataPolicy::Require
    } else if args.term_only {
        AutomataPolicy::Never
    } else {
        AutomataPolicy::Auto
    };
    let mut inputs = vec![args.model.as_path()];
    inputs.extend(args.model_args.signature.as_deref());
    refuse_overwrite(&args.output, &inputs)?;
    let model = compile_model(&args.model, &args.model_args.options(), policy, &mut note)?;
    let bytes = encode(&model);
    let out = args.output.display();
    std::fs::write(&args.output, &bytes).with_context(|| format!("{out}: cannot write"))?;
    let (kind, n) = (model.kind_name(), bytes.len());
    eprintln!("multitrace: wrote {out} ({kind}, {n} bytes)");
    Ok(0)
}

pub fn inspect(args: InspectArgs) -> Result<u8> {
    let model = open_for_viewing(&args.model, &args.model_args.options(), &mut note)?;
    crate::print_out(&multitrace_report::view::describe(&model))?;
    Ok(0)
}

/// `verify`: 0 when the compiled model is what its source compiles to, 1 when not.
pub fn verify(args: VerifyArgs) -> Result<u8> {
    let v = multitrace_compiler::verify::verify(&args.model, &args.model_args.options())?;
    let (model, source) = (args.model.display(), v.source.display());
    match v.first_difference {
        None => {
            println!(
                "{model}: verified: identical to what {source} compiles to ({} bytes)",
                v.artifact_bytes
            );
            Ok(0)
        }
        Some(at) => {
            println!(
                "{model}: differs from what {source} compiles to (first difference at byte {at}; \
                 {} bytes against {}): stale, compiled with other options, or altered; \
                 `multitrace compile {source} -o {model}` rebuilds it",
                v.artifact_bytes, v.rebuilt_bytes
            );
            Ok(1)
        }
    }
}

/// Writes `text` to `output`, or to standard output for `-` (returns false).
fn write_output(output: &Path, text: &str) -> Result<bool> {
    if output.as_os_str() == "-" {
        crate::print_out(text).context("standard output: cannot write")?;
        return Ok(false);
    }
    std::fs::write(output, text).with_context(|| format!("{}: cannot write", output.display()))?;
    eprintln!("multitrace: wrote {}", output.display());
    Ok(true)
}

pub fn draw(args: DrawArgs) -> Result<u8> {
    let mut inputs = vec![args.model.as_path()];
    inputs.extend(args.model_args.signature.as_deref());
    refuse_overwrite(&args.output, &inputs)?;
    if !args.diagram && !args.pnml {
        // The picture Graphviz writes beside the .dot file.
        refuse_overwrite(&args.output.with_extension("svg"), &inputs)?;
    }
    let opts = args.model_args.options();
    if args.diagram {
        write_output(&args.output, &diagram_svg(&args.model, &opts, &mut note)?)?;
        return Ok(0);
    }
    if args.mermaid || args.plantuml {
        let text = diagram_text(&args.model, &opts, args.plantuml, &mut note)?;
        write_output(&args.output, &text)?;
        return Ok(0);
    }
    let m = open_for_viewing(&args.model, &opts, &mut note)?;
    if args.pnml {
        write_output(&args.output, &multitrace_report::pnml::pnml(&m)?)?;
        return Ok(0);
    }
    let dot = multitrace_report::view::dot(&m, if args.nfa { None } else { args.dfa.as_deref() })?;
    // Standard output: the Graphviz text only (no .svg).
    if !write_output(&args.output, &dot)? {
        return Ok(0);
    }
    let svg = args.output.with_extension("svg");
    let dot = std::process::Command::new("dot")
        .arg("-Tsvg")
        .arg(&args.output)
        .arg("-o")
        .arg(&svg)
        .status();
    match dot {
        Ok(st) if st.success() => eprintln!("multitrace: wrote {}", svg.display()),
        Ok(_) => eprintln!("multitrace: note: `dot` failed; only the .dot file was written"),
        Err(_) => {} // no Graphviz here: the .dot file is the result
    }
    Ok(0)
}
