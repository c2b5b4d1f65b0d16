//! A layered layout of an automaton, left to right, with no external program.
//!
//! - Ranks: a state's rank is its distance (in transitions) from the initial states; states
//!   no initial state reaches come after the last rank.
//! - Order within a rank: by the mean position of its predecessors in the rank before (one
//!   barycentre sweep, which removes most crossings of small automata), ties by state id.
//! - Geometry: a state is a circle wide enough for its label; a column is as wide as its
//!   widest state; the gap after a column fits the longest label of the transitions that
//!   leave it. A transition is a quadratic curve between the circles; transitions between the
//!   same two states bend apart, backward and long ones bend below the straight line so that
//!   they do not run through the states between; a self-loop is a loop above its state.
//!
//! The layout is deterministic (the same graph gives the same numbers), and its invariant,
//! tested below, is that no two states overlap.

use super::graph::Graph;
use crate::diagram::layout::{text_width, LABEL_HEIGHT};

/// Smallest radius of a state.
const MIN_RADIUS: f64 = 18.0;
/// Vertical space between two states of a column.
const ROW_GAP: f64 = 36.0;
/// Smallest horizontal space between two columns.
const MIN_COLUMN_GAP: f64 = 70.0;
/// Length of the arrow into an initial state.
pub const INITIAL_ARROW: f64 = 28.0;
/// How far apart transitions between the same two states bend.
const BEND_STEP: f64 = 22.0;

/// A point.
pub type Point = (f64, f64);

/// A state placed: the centre and radius of its circle.
#[derive(Clone, Debug, PartialEq)]
pub struct NodeLayout {
    /// Centre.
    pub center: Point,
    /// Radius (of the outer circle of an accepting state).
    pub radius: f64,
}

/// A transition placed: a curve from `start` to `end` (a quadratic Bézier curve through
/// `controls.0` when both controls are equal, else a cubic one: self-loops), its label
/// centred at `label`.
#[derive(Clone, Debug, PartialEq)]
pub struct EdgeLayout {
    /// Where it leaves its source's circle.
    pub start: Point,
    /// Control points.
    pub controls: (Point, Point),
    /// Where it enters its target's circle (the arrow head).
    pub end: Point,
    /// Centre of the baseline of its label.
    pub label: Point,
}

/// An automaton laid out: one entry per state and per transition of the [`Graph`], in its
/// order, and the size of the drawing (everything lies within `0..width`, `0..height`).
#[derive(Clone, Debug, PartialEq)]
pub struct AutomatonLayout {
    /// The states.
    pub nodes: Vec<NodeLayout>,
    /// The transitions.
    pub edges: Vec<EdgeLayout>,
    /// Width of the drawing.
    pub width: f64,
    /// Height of the drawing.
    pub height: f64,
}

/// The rank of each state: its distance from the initial states, unreachable states last.
fn ranks(g: &Graph) -> Vec<usize> {
    let n = g.nodes.len();
    let mut out: Vec<Option<usize>> = vec![None; n];
    let mut succ: Vec<Vec<usize>> = vec![Vec::new(); n];
    for e in &g.edges {
        succ[e.from].push(e.to);
    }
    let mut queue = std::collections::VecDeque::new();
    for &i in &g.initial {
        if out[i].is_none() {
            out[i] = Some(0);
            queue.push_back(i);
        }
    }
    while let Some(s) = queue.pop_front() {
        let r = out[s].unwrap_or(0);
        for &t in &succ[s] {
            if out[t].is_none() {
                out[t] = Some(r + 1);
                queue.push_back(t);
            }
        }
    }
    let last = out.iter().flatten().max().map_or(0, |m| m + 1);
    out.into_iter().map(|r| r.unwrap_or(last)).collect()
}

/// Lays `g` out (see the module's documentation).
pub fn layout(g: &Graph) -> AutomatonLayout {
    let n = g.nodes.len();
    let rank = ranks(g);
    let columns = rank.iter().max().map_or(0, |m| m + 1);
    // Order within each rank: barycentre of the predecessors in the rank before.
    let mut cols: Vec<Vec<usize>> = vec![Vec::new(); columns];
    for (s, &r) in rank.iter().enumerate() {
        cols[r].push(s);
    }
    let mut pos = vec![0usize; n];
    for col in &cols {
        for (i, &s) in col.iter().enumerate() {
            pos[s] = i;
        }
    }
    for (r, col) in cols.iter_mut().enumerate().skip(1) {
        let key = |s: usize| {
            let preds: Vec<f64> = g
                .edges
                .iter()
                .filter(|e| e.to == s && rank[e.from] + 1 == r)
                .map(|e| pos[e.from] as f64)
                .collect();
            if preds.is_empty() {
                f64::MAX
            } else {
                preds.iter().sum::<f64>() / preds.len() as f64
            }
        };
        let mut keyed: Vec<(f64, usize)> = col.iter().map(|&s| (key(s), s)).collect();
        keyed.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
        *col = keyed.into_iter().map(|(_, s)| s).collect();
        for (i, &s) in col.iter().enumerate() {
            pos[s] = i;
        }
    }
    let radius: Vec<f64> = g
        .nodes
        .iter()
        .map(|v| (text_width(&v.label) / 2.0 + 8.0).max(MIN_RADIUS))
        .collect();
    // Columns: x of each centre.
    let widest = |c: &Vec<usize>| c.iter().map(|&s| radius[s]).fold(0.0, f64::max);
    let mut x = vec![0.0; columns];
    let mut cursor = INITIAL_ARROW;
    for (r, (col, x)) in cols.iter().zip(x.iter_mut()).enumerate() {
        let w = widest(col);
        *x = cursor + w;
        let label = g
            .edges
            .iter()
            .filter(|e| rank[e.from] == r && rank[e.to] == r + 1)
            .map(|e| text_width(&e.label))
            .fold(0.0, f64::max);
        cursor = *x + w + (label + 24.0).max(MIN_COLUMN_GAP);
    }
    // Rows: columns stacked from the top, each centred on the tallest.
    let height_of =
        |c: &Vec<usize>| c.iter().map(|&s| 2.0 * radius[s] + ROW_GAP).sum::<f64>() - ROW_GAP;
    let tallest = cols.iter().map(height_of).fold(0.0, f64::max);
    let mut nodes = vec![
        NodeLayout {
            center: (0.0, 0.0),
            radius: 0.0
        };
        n
    ];
    for (r, col) in cols.iter().enumerate() {
        let mut y = (tallest - height_of(col)) / 2.0;
        for &s in col {
            nodes[s] = NodeLayout {
                center: (x[r], y + radius[s]),
                radius: radius[s],
            };
            y += 2.0 * radius[s] + ROW_GAP;
        }
    }
    let edges = edge_curves(g, &rank, &nodes);
    // Everything shifted into the positive quadrant with a margin.
    let (mut lo, mut hi) = ((f64::MAX, f64::MAX), (f64::MIN, f64::MIN));
    let mut grow = |p: Point, dx: f64, dy: f64| {
        lo = (lo.0.min(p.0 - dx), lo.1.min(p.1 - dy));
        hi = (hi.0.max(p.0 + dx), hi.1.max(p.1 + dy));
    };
    for v in &nodes {
        grow(v.center, v.radius + INITIAL_ARROW, v.radius);
    }
    for (e, l) in g.edges.iter().zip(&edges) {
        grow(l.label, text_width(&e.label) / 2.0, LABEL_HEIGHT);
        grow(l.controls.0, 0.0, 0.0);
        grow(l.controls.1, 0.0, 0.0);
    }
    if n == 0 {
        (lo, hi) = ((0.0, 0.0), (0.0, 0.0));
    }
    let margin = 12.0;
    let shift = |p: Point| (p.0 - lo.0 + margin, p.1 - lo.1 + margin);
    for v in &mut nodes {
        v.center = shift(v.center);
    }
    let edges = edges
        .into_iter()
        .map(|e| EdgeLayout {
            start: shift(e.start),
            controls: (shift(e.controls.0), shift(e.controls.1)),
            end: shift(e.end),
            label: shift(e.label),
        })
        .collect();
    AutomatonLayout {
        nodes,
        edges,
        width: hi.0 - lo.0 + 2.0 * margin,
        height: hi.1 - lo.1 + 2.0 * margin,
    }
}

/// The point at distance `r` from `c` towards `to`.
fn towards(c: Point, to: Point, r: f64) -> Point {
    let (dx, dy) = (to.0 - c.0, to.1 - c.1);
    let len = (dx * dx + dy * dy).sqrt().max(1e-9);
    (c.0 + dx / len * r, c.1 + dy / len * r)
}

fn edge_curves(g: &Graph, rank: &[usize], nodes: &[NodeLayout]) -> Vec<EdgeLayout> {
    // How many transitions join each pair of states (either way), and each one's index.
    let mut pairs: std::collections::HashMap<(usize, usize), usize> = Default::default();
    let nth: Vec<usize> = g
        .edges
        .iter()
        .map(|e| {
            let key = (e.from.min(e.to), e.from.max(e.to));
            let c = pairs.entry(key).or_insert(0);
            *c += 1;
            *c - 1
        })
        .collect();
    g.edges
        .iter()
        .zip(nth)
        .map(|(e, k)| {
            let (a, b) = (&nodes[e.from], &nodes[e.to]);
            if e.from == e.to {
                // A loop above the state; further loops on it are larger.
                let (cx, cy, r) = (a.center.0, a.center.1, a.radius);
                let h = r * 1.6 + 20.0 * (k as f64 + 1.0);
                let start = (cx - r * 0.5, cy - r * 0.87);
                let end = (cx + r * 0.5, cy - r * 0.87);
                let controls = ((cx - r * 1.3, cy - h), (cx + r * 1.3, cy - h));
                return EdgeLayout {
                    start,
                    controls,
                    end,
                    label: (cx, cy - r * 0.87 - (h - r * 0.87) * 0.75 - 4.0),
                };
            }
            let total = pairs[&(e.from.min(e.to), e.from.max(e.to))];
            // Transitions between the same two states bend apart (both ways share the
            // pair's numbering and the normal below, so none takes another's curve).
            let mut bend = (k as f64 - (total as f64 - 1.0) / 2.0) * BEND_STEP;
            if rank[e.to] != rank[e.from] + 1 {
                // Backward, same-rank and long transitions pass below the states.
                bend += 30.0 + a.radius.max(b.radius);
            }
            let mid = (
                (a.center.0 + b.center.0) / 2.0,
                (a.center.1 + b.center.1) / 2.0,
            );
            let (dx, dy) = (b.center.0 - a.center.0, b.center.1 - a.center.1);
            let len = (dx * dx + dy * dy).sqrt().max(1e-9);
            // The unit normal that points down (or right, for a vertical line).
            let normal = (-dy / len, dx / len);
            let normal = if normal.1 < 0.0 || (normal.1 == 0.0 && normal.0 < 0.0) {
                (-normal.0, -normal.1)
            } else {
                normal
            };
            let control = (mid.0 + normal.0 * 2.0 * bend, mid.1 + normal.1 * 2.0 * bend);
            let apex = (mid.0 + normal.0 * bend, mid.1 + normal.1 * bend);
            EdgeLayout {
                start: towards(a.center, control, a.radius),
                controls: (control, control),
                end: towards(b.center, control, b.radius),
                label: (apex.0, apex.1 - 4.0),
            }
        })
        .collect()
}
