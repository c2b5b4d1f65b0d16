//! What `draw` writes, chosen from the output's name before any work, and the runs of
//! Graphviz's `dot` for the formats only it renders.
//!
//! Invariant: a name that cannot be written is refused here, before the model is read, with
//! the names that can; whether `dot` runs at all is the caller's decision (this module only
//! says what it would need, and runs it when asked).

use super::DrawError;
use crate::diagram::{diagram_svg, ModelDiagramError};
use multitrace_compiler::open::{diagram_text, open_for_viewing, ModelOptions, OpenError};
use std::fmt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// What is drawn.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Drawing {
    /// The NFA or a local verifier.
    Automaton,
    /// The interaction as a sequence diagram (SVG).
    Diagram,
    /// The interaction as Mermaid text.
    Mermaid,
    /// The interaction as PlantUML text.
    PlantUml,
    /// The NFA as a PNML Petri net.
    Pnml,
}

/// What `draw` writes, chosen from the output's extension.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Picture {
    /// The text of the chosen drawing (Graphviz for automata, SVG for a diagram, ...).
    Native,
    /// Automata as SVG drawn here (the layered layout; no external program).
    OwnSvg,
    /// Automata rendered by Graphviz's `dot -T<format>`.
    Graphviz(String),
}

/// Formats Graphviz renders that a user may name by extension.
pub const GRAPHVIZ_FORMATS: [&str; 10] = [
    "png", "pdf", "jpg", "jpeg", "gif", "ps", "eps", "bmp", "tiff", "webp",
];

/// Why an output cannot be drawn to, or Graphviz failed (the message says what to do).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PictureError(String);

impl fmt::Display for PictureError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for PictureError {}

/// Whether a working `dot` program is on the `PATH`.
pub fn graphviz_present() -> bool {
    Command::new("dot")
        .arg("-V")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

/// The format `output` names for `drawing` (`-` is standard output), or why it cannot be
/// written; `graphviz` says whether `dot` is present (asked only for its formats).
pub fn picture(
    output: &Path,
    drawing: Drawing,
    graphviz: impl FnOnce() -> bool,
) -> Result<Picture, PictureError> {
    let out = output.display();
    let ext = match output.extension() {
        _ if output.as_os_str() == "-" => return Ok(Picture::Native),
        None => return Ok(Picture::Native),
        Some(e) => e.to_string_lossy().to_lowercase(),
    };
    let (what, allowed): (&str, &[&str]) = match drawing {
        Drawing::Diagram => ("--diagram draws SVG", &["svg"]),
        Drawing::Mermaid => (
            "--mermaid writes Mermaid text",
            &["mmd", "mermaid", "md", "txt"],
        ),
        Drawing::PlantUml => (
            "--plantuml writes PlantUML text",
            &["puml", "plantuml", "pu", "iuml", "txt"],
        ),
        Drawing::Pnml => ("--pnml writes a PNML Petri net", &["pnml", "xml"]),
        Drawing::Automaton => {
            return match ext.as_str() {
                "dot" | "gv" => Ok(Picture::Native),
                "svg" => Ok(Picture::OwnSvg),
                e if GRAPHVIZ_FORMATS.contains(&e) => {
                    if graphviz() {
                        return Ok(Picture::Graphviz(e.to_string()));
                    }
                    Err(PictureError(format!(
                        "{out}: writing .{e} needs Graphviz's `dot` program, which was not found; \
                         name the output .svg (drawn without external programs) or .dot (Graphviz \
                         text), or install Graphviz; nothing was written"
                    )))
                }
                e => Err(PictureError(format!(
                    "{out}: cannot draw automata as .{e}; name the output .svg (drawn without \
                     external programs), .dot (Graphviz text), or, with Graphviz installed, one of \
                     .{}; nothing was written",
                    GRAPHVIZ_FORMATS.join(" .")
                ))),
            };
        }
    };
    if allowed.contains(&ext.as_str()) {
        return Ok(Picture::Native);
    }
    let convert = if drawing == Drawing::Diagram {
        " (convert the SVG afterwards, e.g. with rsvg-convert or Inkscape, for another format)"
    } else {
        ""
    };
    Err(PictureError(format!(
        "{out}: {what}, not .{ext}; name the output .{}{convert}, or - for standard output; \
         nothing was written",
        allowed.join(" or .")
    )))
}

/// Renders Graphviz text with `dot -T<format>` into `output`.
pub fn render(dot: &str, format: &str, output: &Path) -> Result<(), PictureError> {
    use std::io::Write as _;
    let mut child = Command::new("dot")
        .arg(format!("-T{format}"))
        .arg("-o")
        .arg(output)
        .stdin(Stdio::piped())
        .spawn()
        .map_err(|e| PictureError(format!("cannot run Graphviz's `dot`: {e}")))?;
    if let Some(mut stdin) = child.stdin.take() {
        stdin
            .write_all(dot.as_bytes())
            .map_err(|e| PictureError(format!("cannot give the drawing to `dot`: {e}")))?;
    }
    let status = child
        .wait()
        .map_err(|e| PictureError(format!("`dot` did not finish: {e}")))?;
    if !status.success() {
        let output = output.display();
        return Err(PictureError(format!(
            "{output}: `dot -T{format}` failed ({status})"
        )));
    }
    Ok(())
}

/// What became of the SVG rendered beside a `.dot` file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Beside {
    /// Written, at this path.
    Written(PathBuf),
    /// `dot` ran and failed.
    Failed,
    /// No `dot` program here: the `.dot` file is the result.
    NoGraphviz,
}

/// Renders the Graphviz file `dot_file` as an SVG beside it (same name, `.svg`).
pub fn render_beside(dot_file: &Path) -> Beside {
    let svg = dot_file.with_extension("svg");
    let status = Command::new("dot")
        .arg("-Tsvg")
        .arg(dot_file)
        .arg("-o")
        .arg(&svg)
        .status();
    match status {
        Ok(st) if st.success() => Beside::Written(svg),
        Ok(_) => Beside::Failed,
        Err(_) => Beside::NoGraphviz,
    }
}

/// Why a drawing cannot be made.
#[derive(Debug)]
pub enum DrawingError {
    /// The model cannot be opened.
    Open(OpenError),
    /// Its interaction cannot be drawn as a sequence diagram.
    Diagram(ModelDiagramError),
    /// Its automata cannot be drawn as asked.
    Draw(DrawError),
}

impl fmt::Display for DrawingError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DrawingError::Open(e) => e.fmt(f),
            DrawingError::Diagram(e) => e.fmt(f),
            DrawingError::Draw(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for DrawingError {}

/// The text of `drawing` of the model at `path` (opened with `opts`, its notes given to
/// `note`): the SVG of a diagram or of automata drawn here ([`Picture::OwnSvg`]), Mermaid,
/// PlantUML or PNML text, else the Graphviz text of the automata; `dfa` names the location
/// whose local verifier is drawn (`None`: the NFA).
pub fn drawing_text(
    path: &Path,
    opts: &ModelOptions,
    drawing: Drawing,
    dfa: Option<&str>,
    picture: &Picture,
    note: &mut dyn FnMut(String),
) -> Result<String, DrawingError> {
    match drawing {
        Drawing::Diagram => return diagram_svg(path, opts, note).map_err(DrawingError::Diagram),
        Drawing::Mermaid | Drawing::PlantUml => {
            let plantuml = drawing == Drawing::PlantUml;
            return diagram_text(path, opts, plantuml, note).map_err(DrawingError::Open);
        }
        Drawing::Pnml | Drawing::Automaton => {}
    }
    let m = open_for_viewing(path, opts, note).map_err(DrawingError::Open)?;
    let text = match (drawing, picture) {
        (Drawing::Pnml, _) => crate::pnml::pnml(&m),
        (_, Picture::OwnSvg) => {
            let title = match dfa {
                None => format!("{}: NFA", path.display()),
                Some(l) => format!("{}: local verifier of {l}", path.display()),
            };
            super::svg(&m, dfa, &title)
        }
        _ => super::dot(&m, dfa),
    };
    text.map_err(DrawingError::Draw)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_chosen_before_any_work() {
        let p = |name: &str, d| picture(Path::new(name), d, || false);
        assert_eq!(p("-", Drawing::Diagram), Ok(Picture::Native));
        assert_eq!(p("a.svg", Drawing::Automaton), Ok(Picture::OwnSvg));
        assert_eq!(p("a.GV", Drawing::Automaton), Ok(Picture::Native));
        assert_eq!(p("a.mmd", Drawing::Mermaid), Ok(Picture::Native));
        let no_dot = p("a.png", Drawing::Automaton).unwrap_err().to_string();
        assert!(
            no_dot.contains("needs Graphviz's `dot` program"),
            "{no_dot}"
        );
        let with_dot = picture(Path::new("a.png"), Drawing::Automaton, || true);
        assert_eq!(with_dot, Ok(Picture::Graphviz("png".into())));
        let e = p("a.png", Drawing::Diagram).unwrap_err().to_string();
        assert_eq!(
            e,
            "a.png: --diagram draws SVG, not .png; name the output .svg (convert the SVG \
             afterwards, e.g. with rsvg-convert or Inkscape, for another format), or - for \
             standard output; nothing was written"
        );
        let e = p("a.txt", Drawing::Pnml).unwrap_err().to_string();
        assert!(e.contains("name the output .pnml or .xml, or -"), "{e}");
    }
}
