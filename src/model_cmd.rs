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
use multitrace_runtime::output::{check_writable, refuse_overwrite};
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
    check_writable(&args.output, "-o")?;
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

/// What `draw` writes, chosen from the output's extension before any work.
#[derive(Debug, PartialEq, Eq)]
enum Picture {
    /// The text of the chosen drawing (Graphviz for automata, SVG for --diagram, ...).
    Native,
    /// Automata as SVG drawn here (our layered layout; no external program).
    OwnSvg,
    /// Automata rendered by Graphviz's `dot -T<format>`.
    Graphviz(String),
}

/// Formats Graphviz renders that a user may name by extension.
const GRAPHVIZ_FORMATS: [&str; 10] = [
    "png", "pdf", "jpg", "jpeg", "gif", "ps", "eps", "bmp", "tiff", "webp",
];

fn graphviz_present() -> bool {
    std::process::Command::new("dot")
        .arg("-V")
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

/// The format `-o` names, or why it cannot be written (said before anything is written).
fn picture(args: &DrawArgs) -> Result<Picture> {
    let out = args.output.display();
    let ext = match args.output.extension() {
        _ if args.output.as_os_str() == "-" => return Ok(Picture::Native),
        None => return Ok(Picture::Native),
        Some(e) => e.to_string_lossy().to_lowercase(),
    };
    let (what, allowed): (&str, &[&str]) = if args.diagram {
        ("--diagram draws SVG", &["svg"])
    } else if args.mermaid {
        (
            "--mermaid writes Mermaid text",
            &["mmd", "mermaid", "md", "txt"],
        )
    } else if args.plantuml {
        (
            "--plantuml writes PlantUML text",
            &["puml", "plantuml", "pu", "iuml", "txt"],
        )
    } else if args.pnml {
        ("--pnml writes a PNML Petri net", &["pnml", "xml"])
    } else {
        match ext.as_str() {
            "dot" | "gv" => return Ok(Picture::Native),
            "svg" => return Ok(Picture::OwnSvg),
            e if GRAPHVIZ_FORMATS.contains(&e) => {
                if graphviz_present() {
                    return Ok(Picture::Graphviz(e.to_string()));
                }
                anyhow::bail!(
                    "{out}: writing .{e} needs Graphviz's `dot` program, which was not found; \
                     name the output .svg (drawn without external programs) or .dot (Graphviz \
                     text), or install Graphviz; nothing was written"
                );
            }
            e => anyhow::bail!(
                "{out}: cannot draw automata as .{e}; name the output .svg (drawn without \
                 external programs), .dot (Graphviz text), or, with Graphviz installed, one of \
                 .{}; nothing was written",
                GRAPHVIZ_FORMATS.join(" .")
            ),
        }
    };
    if allowed.contains(&ext.as_str()) {
        return Ok(Picture::Native);
    }
    let convert = if args.diagram {
        " (convert the SVG afterwards, e.g. with rsvg-convert or Inkscape, for another format)"
    } else {
        ""
    };
    anyhow::bail!(
        "{out}: {what}, not .{ext}; name the output .{}{convert}, or - for standard output; \
         nothing was written",
        allowed.join(" or .")
    )
}

pub fn draw(args: DrawArgs) -> Result<u8> {
    check_writable(&args.output, "-o")?;
    let mut inputs = vec![args.model.as_path()];
    inputs.extend(args.model_args.signature.as_deref());
    refuse_overwrite(&args.output, &inputs)?;
    let picture = picture(&args)?;
    let beside_dot = !args.diagram && !args.pnml && !args.mermaid && !args.plantuml;
    let beside_dot = beside_dot && picture == Picture::Native;
    if beside_dot {
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
    let dfa = if args.nfa { None } else { args.dfa.as_deref() };
    match picture {
        Picture::OwnSvg => {
            let title = match dfa {
                None => format!("{}: NFA", args.model.display()),
                Some(l) => format!("{}: local verifier of {l}", args.model.display()),
            };
            write_output(
                &args.output,
                &multitrace_report::view::svg(&m, dfa, &title)?,
            )?;
            return Ok(0);
        }
        Picture::Graphviz(format) => {
            let dot = multitrace_report::view::dot(&m, dfa)?;
            return graphviz(&dot, &format, &args.output);
        }
        Picture::Native => {}
    }
    let dot = multitrace_report::view::dot(&m, dfa)?;
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

/// Renders Graphviz text with `dot -T<format>` into `output`.
fn graphviz(dot: &str, format: &str, output: &Path) -> Result<u8> {
    use std::io::Write as _;
    let mut child = std::process::Command::new("dot")
        .arg(format!("-T{format}"))
        .arg("-o")
        .arg(output)
        .stdin(std::process::Stdio::piped())
        .spawn()
        .context("cannot run Graphviz's `dot`")?;
    if let Some(mut stdin) = child.stdin.take() {
        stdin
            .write_all(dot.as_bytes())
            .context("cannot give the drawing to `dot`")?;
    }
    let status = child.wait().context("`dot` did not finish")?;
    if !status.success() {
        anyhow::bail!("{}: `dot -T{format}` failed ({status})", output.display());
    }
    eprintln!("multitrace: wrote {} (by Graphviz)", output.display());
    Ok(0)
}
