//! Geometry of a sequence diagram: where every lifeline, arrow, label and box goes.
//!
//! Nothing here writes SVG ([`super::svg`] does): the layout is plain numbers, so that tests
//! can measure it (no two labels overlap, boxes nest, every label fits its arrow).
//!
//! - Lifelines are columns in signature order. The gap between two neighbours is wide enough
//!   for both header boxes, and widened (evenly over the gaps it spans) wherever an arrow's
//!   label needs more room between its emitter and its nearest receiver.
//! - Every element gets rows of its own, top to bottom: two elements never share a height
//!   unless one contains the other, so overlaps can only happen inside one element, where
//!   the layout keeps labels above their arrows.
//! - A box spans the lifelines its fragment involves and everything drawn inside it, plus a
//!   margin; its tag (`alt`, `loopW`, `coreg(l1,l2)`, ...) has a row of its own at its top, and
//!   operands are separated by dashed lines.
//! - Text is measured as monospace ([`CHAR_WIDTH`] per character at [`FONT_SIZE`]), which the
//!   SVG asks for.

use super::tree::{FragmentKind, Message, Node};
use multitrace_model::signature::Signature;

/// Font size of every text, in pixels.
pub const FONT_SIZE: f64 = 12.0;
/// Width reserved per character (monospace fonts advance about 0.6 em).
pub const CHAR_WIDTH: f64 = 7.5;
/// Height of a label's box.
pub const LABEL_HEIGHT: f64 = 15.0;
/// Margin around the drawing.
pub const MARGIN: f64 = 12.0;

const HEAD_HEIGHT: f64 = 28.0;
const ROW: f64 = 34.0;
const SELF_ROW: f64 = 38.0;
const EMPTY_ROW: f64 = 24.0;
const TAG_HEIGHT: f64 = 18.0;
const TAG_ROW: f64 = 26.0;
const OPERAND_GAP: f64 = 10.0;
const BOX_BOTTOM: f64 = 8.0;
const BOX_PAD: f64 = 10.0;
const LIFELINE_PAD: f64 = 16.0;
const GATE_RADIUS: f64 = 4.0;

/// An axis-aligned rectangle.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Rect {
    /// Left.
    pub x: f64,
    /// Top.
    pub y: f64,
    /// Width.
    pub w: f64,
    /// Height.
    pub h: f64,
}

impl Rect {
    /// Right edge.
    pub fn right(&self) -> f64 {
        self.x + self.w
    }

    /// Bottom edge.
    pub fn bottom(&self) -> f64 {
        self.y + self.h
    }

    /// Whether the interiors of the two rectangles meet (touching edges do not).
    pub fn overlaps(&self, o: &Rect) -> bool {
        self.x < o.right() && o.x < self.right() && self.y < o.bottom() && o.y < self.bottom()
    }

    /// Whether `o` lies inside this rectangle (edges included).
    pub fn contains(&self, o: &Rect) -> bool {
        o.x >= self.x && o.right() <= self.right() && o.y >= self.y && o.bottom() <= self.bottom()
    }

    fn shift(&mut self, dx: f64) {
        self.x += dx;
    }
}

/// A text and the box it is written in (centred).
#[derive(Clone, Debug, PartialEq)]
pub struct Label {
    /// The text.
    pub text: String,
    /// Its box.
    pub rect: Rect,
}

/// A lifeline: its column and its name boxes at the top and the bottom.
#[derive(Clone, Debug, PartialEq)]
pub struct LifelineLayout {
    /// Name.
    pub name: String,
    /// Abscissa of its column.
    pub x: f64,
    /// Name box at the top.
    pub head: Rect,
    /// Name box at the bottom.
    pub foot: Rect,
}

/// How an arrow is drawn.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ArrowKind {
    /// From one lifeline to another.
    Message,
    /// From one lifeline to several.
    Broadcast,
    /// From a lifeline to itself (a loop on its right).
    SelfMessage,
    /// From a lifeline to the environment (ends in a gate, a small disc).
    ToEnvironment,
    /// From the environment (a gate) to one or more lifelines.
    FromEnvironment,
}

/// An arrow with its label.
#[derive(Clone, Debug, PartialEq)]
pub struct Arrow {
    /// How it is drawn.
    pub kind: ArrowKind,
    /// Height of its line.
    pub y: f64,
    /// Where it starts (a lifeline, or the gate of a reception from the environment).
    pub from_x: f64,
    /// Where it ends: one abscissa per receiver, or the gate of an emission to the
    /// environment.
    pub to_x: Vec<f64>,
    /// The message name, above the line.
    pub label: Label,
    /// Bounding box of the line(s), arrowheads and gate.
    pub ink: Rect,
}

/// A combined fragment's box.
#[derive(Clone, Debug, PartialEq)]
pub struct FragmentLayout {
    /// Its tag (`alt`, `loopS`, `coreg(l1,l2)`, ...) in the top-left corner.
    pub tag: Label,
    /// The box.
    pub rect: Rect,
    /// Heights of the dashed lines between operands.
    pub separators: Vec<f64>,
    /// For a `coreg`: a band on each lifeline of its region.
    pub bands: Vec<Rect>,
    /// Nesting depth (0: outermost).
    pub depth: usize,
}

/// A whole diagram.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct Layout {
    /// Width of the drawing.
    pub width: f64,
    /// Height of the drawing.
    pub height: f64,
    /// Lifelines, left to right.
    pub lifelines: Vec<LifelineLayout>,
    /// Bottom of the head boxes, where the lifelines' lines start.
    pub lifeline_top: f64,
    /// Top of the foot boxes, where the lifelines' lines end.
    pub lifeline_bottom: f64,
    /// Boxes, outer ones before the boxes they contain.
    pub fragments: Vec<FragmentLayout>,
    /// Arrows, top to bottom.
    pub arrows: Vec<Arrow>,
    /// ∅ marks (an operand where nothing happens).
    pub empties: Vec<Label>,
}

/// Width of a text.
pub fn text_width(s: &str) -> f64 {
    s.chars().count() as f64 * CHAR_WIDTH
}

fn label_width(s: &str) -> f64 {
    text_width(s) + 6.0
}

/// The tag of a box.
pub fn fragment_tag(kind: FragmentKind, sig: &Signature) -> String {
    match kind {
        FragmentKind::Strict => "strict".into(),
        FragmentKind::Seq => "seq".into(),
        FragmentKind::Par => "par".into(),
        FragmentKind::Alt => "alt".into(),
        FragmentKind::Loop(k) => k.keyword().into(),
        FragmentKind::Coreg(s) => {
            let names: Vec<&str> = s.iter().map(|l| sig.lifeline_name(l)).collect();
            format!("coreg({})", names.join(","))
        }
    }
}

/// Extents of what was drawn: (left, right).
type Extent = Option<(f64, f64)>;

fn join(a: Extent, b: Extent) -> Extent {
    match (a, b) {
        (Some((l1, r1)), Some((l2, r2))) => Some((l1.min(l2), r1.max(r2))),
        (x, None) | (None, x) => x,
    }
}

/// Lays out the diagram of `tree` (from [`super::tree::tree`]) over the lifelines of `sig`.
pub fn layout(sig: &Signature, tree: &Node) -> Layout {
    let names = sig.lifelines();
    let n = names.len();
    let head_w: Vec<f64> = names
        .iter()
        .map(|s| (text_width(s) + 16.0).max(48.0))
        .collect();
    let mut gaps: Vec<f64> = (1..n)
        .map(|i| head_w[i - 1] / 2.0 + head_w[i] / 2.0 + 24.0)
        .collect();
    let mut needs = Vec::new();
    label_needs(sig, tree, &mut needs);
    // Narrow spans first: a wide span then only adds what its narrower parts left missing.
    needs.sort_by(|a, b| (a.1 - a.0).cmp(&(b.1 - b.0)).then(a.0.cmp(&b.0)));
    for (lo, hi, need) in needs {
        let have: f64 = gaps[lo..hi].iter().sum();
        if have < need {
            let extra = (need - have) / (hi - lo) as f64;
            for g in &mut gaps[lo..hi] {
                *g += extra;
            }
        }
    }
    let mut xs = Vec::with_capacity(n);
    let mut x = 0.0;
    for i in 0..n {
        if i > 0 {
            x += gaps[i - 1];
        }
        xs.push(x);
    }
    let top = MARGIN;
    let content_top = top + HEAD_HEIGHT + 14.0;
    let mut p = Placer {
        sig,
        xs: &xs,
        out: Layout::default(),
    };
    let hint = xs.first().copied().unwrap_or(0.0);
    let (end, extent) = p.place(tree, content_top, 0, hint);
    let mut out = p.out;
    let foot_top = end + 10.0;
    let mut extent = extent;
    for (i, name) in names.iter().enumerate() {
        let head = Rect {
            x: xs[i] - head_w[i] / 2.0,
            y: top,
            w: head_w[i],
            h: HEAD_HEIGHT,
        };
        extent = join(extent, Some((head.x, head.right())));
        out.lifelines.push(LifelineLayout {
            name: name.clone(),
            x: xs[i],
            head,
            foot: Rect {
                y: foot_top,
                ..head
            },
        });
    }
    out.lifeline_top = top + HEAD_HEIGHT;
    out.lifeline_bottom = foot_top;
    let (left, right) = extent.unwrap_or((0.0, 80.0));
    let dx = MARGIN - left;
    for l in &mut out.lifelines {
        l.x += dx;
        l.head.shift(dx);
        l.foot.shift(dx);
    }
    for f in &mut out.fragments {
        f.rect.shift(dx);
        f.tag.rect.shift(dx);
        for b in &mut f.bands {
            b.shift(dx);
        }
    }
    for a in &mut out.arrows {
        a.from_x += dx;
        for x in &mut a.to_x {
            *x += dx;
        }
        a.label.rect.shift(dx);
        a.ink.shift(dx);
    }
    for e in &mut out.empties {
        e.rect.shift(dx);
    }
    out.width = (right - left + 2.0 * MARGIN).ceil();
    out.height = (foot_top + if n > 0 { HEAD_HEIGHT } else { 0.0 } + MARGIN).ceil();
    out
}

/// The receiver nearest to the emitter (by column), where an arrow's label is written.
fn nearest(m: &Message) -> Option<usize> {
    let from = m.from?.index();
    m.to.iter()
        .map(|l| l.index())
        .filter(|&t| t != from)
        .min_by_key(|&t| (t.abs_diff(from), t))
}

/// Room the labels need between columns: (low column, high column, width).
fn label_needs(sig: &Signature, node: &Node, out: &mut Vec<(usize, usize, f64)>) {
    match node {
        Node::Empty => {}
        Node::Message(m) => {
            if let (Some(from), Some(to)) = (m.from, nearest(m)) {
                let (lo, hi) = (from.index().min(to), from.index().max(to));
                out.push((lo, hi, label_width(sig.message_name(m.message)) + 24.0));
            }
        }
        Node::Sequence(v) => v.iter().for_each(|c| label_needs(sig, c, out)),
        Node::Fragment(f) => f.operands.iter().for_each(|c| label_needs(sig, c, out)),
    }
}

struct Placer<'a> {
    sig: &'a Signature,
    xs: &'a [f64],
    out: Layout,
}

impl Placer<'_> {
    /// Places `node` from height `y`; returns where it ends and what it covers horizontally.
    /// `hint` is where a ∅ is written.
    fn place(&mut self, node: &Node, y: f64, depth: usize, hint: f64) -> (f64, Extent) {
        match node {
            Node::Empty => {
                let rect = Rect {
                    x: hint - 8.0,
                    y: y + 4.0,
                    w: 16.0,
                    h: LABEL_HEIGHT,
                };
                self.out.empties.push(Label {
                    text: "∅".into(),
                    rect,
                });
                (y + EMPTY_ROW, Some((rect.x, rect.right())))
            }
            Node::Message(m) => self.message(m, y),
            Node::Sequence(v) => {
                let mut y = y;
                let mut ext = None;
                for c in v {
                    let (end, e) = self.place(c, y, depth, hint);
                    y = end;
                    ext = join(ext, e);
                }
                (y, ext)
            }
            Node::Fragment(f) => {
                let index = self.out.fragments.len();
                let tag = fragment_tag(f.kind, self.sig);
                // Reserve the slot so that outer boxes come before inner ones.
                self.out.fragments.push(FragmentLayout {
                    tag: Label {
                        text: tag.clone(),
                        rect: Rect {
                            x: 0.0,
                            y,
                            w: label_width(&tag) + 8.0,
                            h: TAG_HEIGHT,
                        },
                    },
                    rect: Rect {
                        x: 0.0,
                        y,
                        w: 0.0,
                        h: 0.0,
                    },
                    separators: Vec::new(),
                    bands: Vec::new(),
                    depth,
                });
                let involved: Vec<f64> = f.lifelines.iter().map(|l| self.xs[l.index()]).collect();
                let inner_hint = involved.first().copied().unwrap_or(hint);
                let mut ext = involved.iter().fold(None, |e, &x| {
                    join(e, Some((x - LIFELINE_PAD, x + LIFELINE_PAD)))
                });
                let mut cy = y + TAG_ROW;
                let mut separators = Vec::new();
                for (k, op) in f.operands.iter().enumerate() {
                    if k > 0 {
                        separators.push(cy + OPERAND_GAP / 2.0);
                        cy += OPERAND_GAP;
                    }
                    let (end, e) = self.place(op, cy, depth + 1, inner_hint);
                    cy = end;
                    ext = join(ext, e);
                }
                let bottom = cy + BOX_BOTTOM;
                let (l, r) = ext.unwrap_or((hint - LIFELINE_PAD, hint + LIFELINE_PAD));
                let frag = &mut self.out.fragments[index];
                let x = l - BOX_PAD;
                let w = (r + BOX_PAD - x).max(frag.tag.rect.w + 24.0);
                frag.rect = Rect {
                    x,
                    y,
                    w,
                    h: bottom - y,
                };
                frag.tag.rect.x = x;
                frag.separators = separators;
                if let super::tree::FragmentKind::Coreg(s) = f.kind {
                    frag.bands = s
                        .iter()
                        .map(|l| Rect {
                            x: self.xs[l.index()] - 4.0,
                            y: y + TAG_HEIGHT + 2.0,
                            w: 8.0,
                            h: bottom - y - TAG_HEIGHT - 4.0,
                        })
                        .collect();
                }
                (bottom, Some((x, x + w)))
            }
        }
    }

    fn message(&mut self, m: &Message, y: f64) -> (f64, Extent) {
        let text = self.sig.message_name(m.message).to_string();
        let lw = label_width(&text);
        let line_y = y + 26.0;
        let label_at = |center: f64| Rect {
            x: center - lw / 2.0,
            y: y + 4.0,
            w: lw,
            h: LABEL_HEIGHT,
        };
        let env_len = (lw + 20.0).max(56.0);
        let arrow = match (m.from, m.to.as_slice()) {
            (Some(a), []) => {
                let x0 = self.xs[a.index()];
                let x1 = x0 + env_len;
                Arrow {
                    kind: ArrowKind::ToEnvironment,
                    y: line_y,
                    from_x: x0,
                    to_x: vec![x1],
                    label: Label {
                        text,
                        rect: label_at(x0 + env_len / 2.0),
                    },
                    ink: Rect {
                        x: x0,
                        y: line_y - GATE_RADIUS - 1.0,
                        w: env_len + GATE_RADIUS + 1.0,
                        h: 2.0 * GATE_RADIUS + 2.0,
                    },
                }
            }
            (None, to) => {
                let xs: Vec<f64> = to.iter().map(|l| self.xs[l.index()]).collect();
                let first = xs.iter().copied().fold(f64::INFINITY, f64::min);
                let last = xs.iter().copied().fold(f64::NEG_INFINITY, f64::max);
                let gate = first - env_len;
                Arrow {
                    kind: ArrowKind::FromEnvironment,
                    y: line_y,
                    from_x: gate,
                    to_x: xs,
                    label: Label {
                        text,
                        rect: label_at(gate + env_len / 2.0),
                    },
                    ink: Rect {
                        x: gate - GATE_RADIUS - 1.0,
                        y: line_y - GATE_RADIUS - 1.0,
                        w: last - gate + GATE_RADIUS + 1.0,
                        h: 2.0 * GATE_RADIUS + 2.0,
                    },
                }
            }
            (Some(a), [b]) if *b == a => {
                let x = self.xs[a.index()];
                let label = Label {
                    text,
                    rect: Rect {
                        x: x + 36.0,
                        y: y + 12.0,
                        w: lw,
                        h: LABEL_HEIGHT,
                    },
                };
                let ext = Some((x, label.rect.right()));
                self.out.arrows.push(Arrow {
                    kind: ArrowKind::SelfMessage,
                    y: y + 12.0,
                    from_x: x,
                    to_x: vec![x],
                    label,
                    ink: Rect {
                        x,
                        y: y + 10.0,
                        w: 30.0,
                        h: 20.0,
                    },
                });
                return (y + SELF_ROW, ext);
            }
            (Some(a), to) => {
                let x0 = self.xs[a.index()];
                let xs: Vec<f64> = to.iter().map(|l| self.xs[l.index()]).collect();
                let near = nearest(m).map_or(x0, |t| self.xs[t]);
                let lo = xs.iter().copied().fold(x0, f64::min);
                let hi = xs.iter().copied().fold(x0, f64::max);
                Arrow {
                    kind: if to.len() > 1 {
                        ArrowKind::Broadcast
                    } else {
                        ArrowKind::Message
                    },
                    y: line_y,
                    from_x: x0,
                    to_x: xs,
                    label: Label {
                        text,
                        rect: label_at((x0 + near) / 2.0),
                    },
                    ink: Rect {
                        x: lo,
                        y: line_y - 5.0,
                        w: hi - lo,
                        h: 10.0,
                    },
                }
            }
        };
        let ext = Some((
            arrow.ink.x.min(arrow.label.rect.x),
            arrow.ink.right().max(arrow.label.rect.right()),
        ));
        self.out.arrows.push(arrow);
        (y + ROW, ext)
    }
}
