//! SVG of an automaton laid out by [`super::layered`]: self-contained (one `<style>`, an
//! arrow-head marker, circles, paths and texts), deterministic, and written without any
//! external program. Every state's and transition's label is a `<text>` element.

use super::error::DrawError;
use super::graph::{automaton, Graph};
use super::layered::{layout, Point, INITIAL_ARROW};
use crate::diagram::layout::FONT_SIZE;
use crate::diagram::svg::escape;
use multitrace_model::model::CompiledModel;
use std::fmt::Write as _;

const STYLE: &str = ".mt-state{fill:#fff;stroke:#123;stroke-width:1.5}\
.mt-edge{fill:none;stroke:#123;stroke-width:1.2}\
text{font-family:monospace;font-size:12px;fill:#123;text-anchor:middle}\
.mt-label{paint-order:stroke;stroke:#fff;stroke-width:3px}";

/// SVG of the NFA (`dfa: None`) or of the local verifier of the location named `dfa`, titled
/// `title`.
pub fn svg(m: &CompiledModel, dfa: Option<&str>, title: &str) -> Result<String, DrawError> {
    Ok(graph_svg(&automaton(m, dfa)?, title))
}

fn n(x: f64) -> String {
    let r = (x * 10.0).round() / 10.0;
    if r == r.trunc() {
        format!("{}", r as i64)
    } else {
        format!("{r:.1}")
    }
}

fn pt(p: Point) -> String {
    format!("{},{}", n(p.0), n(p.1))
}

/// The SVG document of `g`.
pub fn graph_svg(g: &Graph, title: &str) -> String {
    let l = layout(g);
    let mut s = String::new();
    let _ = writeln!(
        s,
        r#"<svg xmlns="http://www.w3.org/2000/svg" class="mt-automaton" width="{w}" height="{h}" viewBox="0 0 {w} {h}">"#,
        w = n(l.width),
        h = n(l.height)
    );
    let _ = writeln!(s, "<title>{}</title>", escape(title));
    let _ = writeln!(s, "<style>{STYLE}</style>");
    s.push_str(
        "<defs><marker id=\"mt-head\" viewBox=\"0 0 10 10\" refX=\"10\" refY=\"5\" markerWidth=\"8\" markerHeight=\"8\" orient=\"auto\"><path d=\"M0,0L10,5L0,10z\" fill=\"#123\"/></marker></defs>\n",
    );
    for &i in &g.initial {
        let v = &l.nodes[i];
        let (x, y) = (v.center.0 - v.radius, v.center.1);
        let _ = writeln!(
            s,
            r#"<path class="mt-edge" d="M{} L{}" marker-end="url(#mt-head)"/>"#,
            pt((x - INITIAL_ARROW, y)),
            pt((x, y))
        );
    }
    for (e, p) in g.edges.iter().zip(&l.edges) {
        let d = if p.controls.0 == p.controls.1 {
            format!("M{} Q{} {}", pt(p.start), pt(p.controls.0), pt(p.end))
        } else {
            let (c1, c2) = p.controls;
            format!("M{} C{} {} {}", pt(p.start), pt(c1), pt(c2), pt(p.end))
        };
        let _ = writeln!(
            s,
            r#"<path class="mt-edge" d="{d}" marker-end="url(#mt-head)"/>"#
        );
        let _ = writeln!(
            s,
            r#"<text class="mt-label" x="{}" y="{}">{}</text>"#,
            n(p.label.0),
            n(p.label.1),
            escape(&e.label)
        );
    }
    for (v, p) in g.nodes.iter().zip(&l.nodes) {
        let (cx, cy) = (n(p.center.0), n(p.center.1));
        let _ = writeln!(
            s,
            r#"<circle class="mt-state" cx="{cx}" cy="{cy}" r="{}"/>"#,
            n(p.radius)
        );
        if v.accepting {
            let _ = writeln!(
                s,
                r#"<circle class="mt-state" cx="{cx}" cy="{cy}" r="{}"/>"#,
                n(p.radius - 4.0)
            );
        }
        let _ = writeln!(
            s,
            r#"<text x="{cx}" y="{}">{}</text>"#,
            n(p.center.1 + FONT_SIZE / 3.0),
            escape(&v.label)
        );
    }
    s.push_str("</svg>\n");
    s
}

#[cfg(test)]
mod tests {
    use super::super::graph::{Edge, GraphKind, Node};
    use super::*;

    fn graph(states: usize, edges: &[(usize, usize, &str)]) -> Graph {
        Graph {
            kind: GraphKind::Nfa,
            nodes: (0..states)
                .map(|i| Node {
                    label: format!("q{i}"),
                    accepting: i + 1 == states,
                })
                .collect(),
            initial: vec![0],
            edges: edges
                .iter()
                .map(|&(from, to, label)| Edge {
                    from,
                    to,
                    label: label.to_string(),
                })
                .collect(),
        }
    }

    #[test]
    fn states_never_overlap_and_everything_lies_inside_the_drawing() {
        // A diamond with a back edge, a self-loop, parallel edges and an unreachable state.
        let g = graph(
            6,
            &[
                (0, 1, "a!m"),
                (0, 2, "b?m"),
                (1, 3, "c!x"),
                (2, 3, "c!x"),
                (3, 0, "back"),
                (3, 3, "loop"),
                (1, 2, "p1"),
                (2, 1, "p2"),
                (1, 2, "p3"),
            ],
        );
        let l = layout(&g);
        for (i, a) in l.nodes.iter().enumerate() {
            assert!(a.center.0 - a.radius >= 0.0 && a.center.0 + a.radius <= l.width);
            assert!(a.center.1 - a.radius >= 0.0 && a.center.1 + a.radius <= l.height);
            for b in &l.nodes[i + 1..] {
                let d =
                    ((a.center.0 - b.center.0).powi(2) + (a.center.1 - b.center.1).powi(2)).sqrt();
                assert!(d > a.radius + b.radius, "{a:?} overlaps {b:?}");
            }
        }
        // Parallel transitions get distinct curves and label places.
        let mut labels: Vec<(i64, i64)> = l
            .edges
            .iter()
            .map(|e| (e.label.0 as i64, e.label.1 as i64))
            .collect();
        labels.sort();
        labels.dedup();
        assert_eq!(
            labels.len(),
            l.edges.len(),
            "each transition's label has its place"
        );
        for e in &l.edges {
            for p in [e.start, e.end, e.label] {
                assert!(p.0 >= 0.0 && p.0 <= l.width && p.1 >= 0.0 && p.1 <= l.height);
            }
        }
    }

    #[test]
    fn the_svg_names_every_state_and_transition_once_escaped() {
        let g = graph(2, &[(0, 1, "a<b"), (1, 1, "x&y")]);
        let s = graph_svg(&g, "t");
        for t in ["q0", "q1", "a&lt;b", "x&amp;y"] {
            assert_eq!(s.matches(&format!(">{t}</text>")).count(), 1, "{t}");
        }
        assert_eq!(s.matches("<circle").count(), 3, "q1 accepting: two circles");
        assert_eq!(graph_svg(&g, "t"), s, "deterministic");
    }
}
