//! `compile`, `inspect`, `verify` and `draw`: their arguments, what they write and print, and
//! their exit statuses.

use crate::args::note;
use crate::exit::print_out;
use anyhow::{Context, Result};
use clap::Args;
use multitrace_compiler::compile::AutomataPolicy;
use multitrace_compiler::open::ModelOptions;
use multitrace_compiler::open::{compile_model, open_for_viewing};
use multitrace_formats::output::{check_writable, refuse_overwrite};
use multitrace_model::artifact::encode;
use multitrace_report::view::picture::render_beside;
use multitrace_report::view::picture::{drawing_text, graphviz_present, picture, render};
use multitrace_report::view::picture::{Beside, Drawing, Picture};
use std::path::{Path, PathBuf};

#[derive(Args)]
pub struct CompileArgs {
    /// The model (.hif or .timbuk).
    model: PathBuf,
    /// Fail unless the model compiles to automata.
    #[arg(long, conflicts_with = "term_only", help_heading = "Compiling")]
    automata: bool,
    /// Store the interaction only (checked by term exploration).
    #[arg(long, help_heading = "Compiling")]
    term_only: bool,
    /// Output file (.mtm).
    #[arg(short, long, help_heading = "Output")]
    output: PathBuf,
    #[command(flatten)]
    model_args: ModelOptions,
}

#[derive(Args)]
pub struct VerifyArgs {
    /// The compiled model (.mtm).
    model: PathBuf,
    /// Source and compile options: `--source FILE` (default: the source the model records),
    /// `--signature`, and the options it was compiled with (default: its own locations and
    /// the default caps).
    #[command(flatten)]
    model_args: ModelOptions,
}

#[derive(Args)]
pub struct InspectArgs {
    /// The model (.mtm, .hif or .timbuk).
    model: PathBuf,
    #[command(flatten)]
    model_args: ModelOptions,
}

#[derive(Args)]
pub struct DrawArgs {
    /// The model (.mtm, .hif, .mmd, .md, .puml or .timbuk).
    model: PathBuf,
    /// Draw the NFA of the model.
    #[arg(long, conflicts_with_all = ["dfa", "diagram", "pnml", "mermaid", "plantuml"], required_unless_present_any = ["dfa", "diagram", "pnml", "mermaid", "plantuml"], help_heading = "Drawing")]
    nfa: bool,
    /// Draw the local verifier of this location (its name, e.g. l1 or l1,l2).
    ///
    /// The automaton that checks the location's own trace: its states are sets of states of
    /// the NFA, its transitions carry area ids.
    #[arg(long, value_name = "LOCATION", conflicts_with = "diagram", help_heading = "Drawing")]
    dfa: Option<String>,
    /// Draw the interaction as a sequence diagram (SVG, written without external programs;
    /// term-only models too).
    #[arg(long, conflicts_with = "pnml", help_heading = "Drawing")]
    diagram: bool,
    /// Write the NFA as a PNML Petri net, for process-mining tools such as pm4py.
    ///
    /// A place per state, a labelled transition per NFA transition, a silent transition from
    /// each accepting state to one final place.
    #[arg(long, conflicts_with = "dfa", help_heading = "Drawing")]
    pnml: bool,
    /// Write the interaction as a Mermaid sequenceDiagram.
    ///
    /// Weak loops, alt, opt, par and messages; other operators are refused with what to do
    /// instead.
    #[arg(long, conflicts_with_all = ["dfa", "diagram", "pnml", "plantuml"], help_heading = "Drawing")]
    mermaid: bool,
    /// Write the interaction as a PlantUML sequence diagram.
    ///
    /// As --mermaid, and messages to or from the environment cross the border.
    #[arg(long, conflicts_with_all = ["dfa", "diagram", "pnml"], help_heading = "Drawing")]
    plantuml: bool,
    /// Output file; its extension names the format: .svg (drawn without external programs),
    /// .dot (Graphviz text), .png, .pdf, ... (with Graphviz installed); `-` for standard output.
    ///
    /// --nfa and --dfa: .svg is drawn here with a layered layout; .dot or .gv is Graphviz
    /// text, with a .svg beside it when a `dot` program is present; .png, .pdf, .jpg, .gif,
    /// .ps, .eps, ... are rendered by `dot` and refused without it. --diagram writes .svg,
    /// --pnml .pnml, --mermaid .mmd, --plantuml .puml. Any other extension is refused before
    /// anything is written.
    #[arg(short, long, help_heading = "Output")]
    output: PathBuf,
    #[command(flatten)]
    model_args: ModelOptions,
}

/// Refuses an output `-o` that cannot be written or would replace the model or its signature
/// (said before any work); returns those inputs.
fn guard_output<'a>(
    output: &Path,
    model: &'a Path,
    opts: &'a ModelOptions,
) -> Result<Vec<&'a Path>> {
    check_writable(output, "-o")?;
    let inputs: Vec<&Path> = std::iter::once(model).chain(opts.signature.as_deref()).collect();
    refuse_overwrite(output, &inputs)?;
    Ok(inputs)
}

pub fn compile(args: CompileArgs) -> Result<u8> {
    let policy = if args.automata {
        AutomataPolicy::Require
    } else if args.term_only {
        AutomataPolicy::Never
    } else {
        AutomataPolicy::Auto
    };
    guard_output(&args.output, &args.model, &args.model_args)?;
    let model = compile_model(&args.model, &args.model_args, policy, &mut note)?;
    let bytes = encode(&model);
    let out = args.output.display();
    std::fs::write(&args.output, &bytes).with_context(|| format!("{out}: cannot write"))?;
    let (kind, n) = (model.kind_name(), bytes.len());
    eprintln!("multitrace: wrote {out} ({kind}, {n} bytes)");
    Ok(0)
}

pub fn inspect(args: InspectArgs) -> Result<u8> {
    let model = open_for_viewing(&args.model, &args.model_args, &mut note)?;
    print_out(&multitrace_report::view::describe(&model))?;
    Ok(0)
}

/// `verify`: 0 when the compiled model is what its source compiles to, 1 when not.
pub fn verify(args: VerifyArgs) -> Result<u8> {
    let v = multitrace_compiler::verify::verify(&args.model, &args.model_args)?;
    println!("{}", v.message(&args.model));
    Ok(u8::from(v.first_difference.is_some()))
}

/// Writes `text` to `output`, or to standard output for `-` (returns false).
fn write_output(output: &Path, text: &str) -> Result<bool> {
    if output.as_os_str() == "-" {
        print_out(text).context("standard output: cannot write")?;
        return Ok(false);
    }
    std::fs::write(output, text).with_context(|| format!("{}: cannot write", output.display()))?;
    eprintln!("multitrace: wrote {}", output.display());
    Ok(true)
}

pub fn draw(args: DrawArgs) -> Result<u8> {
    let inputs = guard_output(&args.output, &args.model, &args.model_args)?;
    let drawing = if args.diagram {
        Drawing::Diagram
    } else if args.mermaid {
        Drawing::Mermaid
    } else if args.plantuml {
        Drawing::PlantUml
    } else if args.pnml {
        Drawing::Pnml
    } else {
        Drawing::Automaton
    };
    let picture = picture(&args.output, drawing, graphviz_present)?;
    let beside_dot = drawing == Drawing::Automaton && picture == Picture::Native;
    if beside_dot {
        // The picture Graphviz writes beside the .dot file.
        refuse_overwrite(&args.output.with_extension("svg"), &inputs)?;
    }
    let dfa = if args.nfa { None } else { args.dfa.as_deref() };
    let (path, opts) = (&args.model, &args.model_args);
    let text = drawing_text(path, opts, drawing, dfa, &picture, &mut note)?;
    if let Picture::Graphviz(format) = &picture {
        render(&text, format, &args.output)?;
        eprintln!("multitrace: wrote {} (by Graphviz)", args.output.display());
        return Ok(0);
    }
    // Standard output: the drawing only (no .svg beside a .dot).
    if !write_output(&args.output, &text)? || !beside_dot {
        return Ok(0);
    }
    match render_beside(&args.output) {
        Beside::Written(svg) => eprintln!("multitrace: wrote {}", svg.display()),
        Beside::Failed => {
            eprintln!("multitrace: note: `dot` failed; only the .dot file was written")
        }
        Beside::NoGraphviz => {} // no Graphviz here: the .dot file is the result
    }
    Ok(0)
}
