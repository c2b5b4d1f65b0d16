//! SVG of a [`Layout`]: written directly (a few element kinds, one `<style>`), so that no
//! external program or large dependency is needed and the output is byte-stable for golden
//! tests.

use super::layout::{ArrowKind, Label, Layout, Rect, FONT_SIZE};
use std::fmt::Write as _;

/// Escapes text for XML content and attribute values.
pub fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            c => out.push(c),
        }
    }
    out
}

/// Numbers with at most one decimal, without a trailing `.0`.
fn n(x: f64) -> String {
    let r = (x * 10.0).round() / 10.0;
    if r == r.trunc() {
        format!("{}", r as i64)
    } else {
        format!("{r:.1}")
    }
}

fn rect(out: &mut String, class: &str, r: &Rect) {
    let _ = writeln!(
        out,
        r#"<rect class="{class}" x="{}" y="{}" width="{}" height="{}"/>"#,
        n(r.x),
        n(r.y),
        n(r.w),
        n(r.h)
    );
}

fn text(out: &mut String, class: &str, l: &Label) {
    let _ = writeln!(
        out,
        r#"<text class="{class}" x="{}" y="{}">{}</text>"#,
        n(l.rect.x + l.rect.w / 2.0),
        n(l.rect.y + l.rect.h / 2.0 + FONT_SIZE * 0.35),
        escape(&l.text)
    );
}

/// The style sheet (ids and classes are prefixed `mt-`, so that a diagram can be inlined in
/// an HTML page next to other content).
const STYLE: &str = "\
.mt-bg{fill:#fff}\
.mt-diagram text{font-family:'DejaVu Sans Mono',Menlo,Consolas,monospace;font-size:12px;text-anchor:middle;fill:#111}\
.mt-head{fill:#eef3fb;stroke:#345;stroke-width:1.2}\
.mt-life{stroke:#789;stroke-width:1;stroke-dasharray:4 3}\
.mt-frag{fill:#f4f6f8;fill-opacity:0.35;stroke:#556;stroke-width:1}\
.mt-tag{fill:#dde4ee;stroke:#556;stroke-width:1}\
.mt-tagtext{font-weight:bold}\
.mt-sep{stroke:#556;stroke-width:1;stroke-dasharray:5 3}\
.mt-band{fill:#c9d6f0;fill-opacity:0.6}\
.mt-arrow{stroke:#123;stroke-width:1.3;fill:none}\
.mt-gate{fill:#123}\
.mt-labelbg{fill:#fff;fill-opacity:0.85}\
.mt-diagram text.mt-empty{fill:#777}";

/// The SVG document of a layout (`title` becomes its `<title>`).
pub fn to_svg(l: &Layout, title: &str) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        r#"<svg xmlns="http://www.w3.org/2000/svg" class="mt-diagram" width="{w}" height="{h}" viewBox="0 0 {w} {h}">"#,
        w = n(l.width),
        h = n(l.height)
    );
    let _ = writeln!(s, "<title>{}</title>", escape(title));
    let _ = writeln!(s, "<style>{STYLE}</style>");
    s.push_str(
        "<defs><marker id=\"mt-head\" viewBox=\"0 0 10 10\" refX=\"10\" refY=\"5\" markerWidth=\"8\" markerHeight=\"8\" orient=\"auto\"><path d=\"M0,0L10,5L0,10z\" fill=\"#123\"/></marker></defs>\n",
    );
    rect(
        &mut s,
        "mt-bg",
        &Rect {
            x: 0.0,
            y: 0.0,
            w: l.width,
            h: l.height,
        },
    );
    for f in &l.fragments {
        rect(&mut s, "mt-frag", &f.rect);
        for b in &f.bands {
            rect(&mut s, "mt-band", b);
        }
    }
    for life in &l.lifelines {
        let _ = writeln!(
            s,
            r#"<line class="mt-life" x1="{x}" y1="{}" x2="{x}" y2="{}"/>"#,
            n(l.lifeline_top),
            n(l.lifeline_bottom),
            x = n(life.x)
        );
    }
    for f in &l.fragments {
        for &y in &f.separators {
            let _ = writeln!(
                s,
                r#"<line class="mt-sep" x1="{}" y1="{y}" x2="{}" y2="{y}"/>"#,
                n(f.rect.x),
                n(f.rect.right()),
                y = n(y)
            );
        }
        let t = &f.tag.rect;
        // A tag: a rectangle with its lower right corner cut, as UML draws them.
        let _ = writeln!(
            s,
            r#"<path class="mt-tag" d="M{},{}H{}V{}L{},{}H{}z"/>"#,
            n(t.x),
            n(t.y),
            n(t.right()),
            n(t.bottom() - 5.0),
            n(t.right() - 5.0),
            n(t.bottom()),
            n(t.x)
        );
        let _ = writeln!(
            s,
            r#"<text class="mt-tagtext" x="{}" y="{}">{}</text>"#,
            n(t.x + (t.w - 4.0) / 2.0),
            n(t.y + t.h / 2.0 + FONT_SIZE * 0.35),
            escape(&f.tag.text)
        );
    }
    for a in &l.arrows {
        let y = n(a.y);
        match a.kind {
            ArrowKind::SelfMessage => {
                let _ = writeln!(
                    s,
                    r#"<path class="mt-arrow" d="M{x},{y}H{r}V{b}H{x}" marker-end="url(#mt-head)"/>"#,
                    x = n(a.from_x),
                    r = n(a.from_x + 28.0),
                    b = n(a.y + 16.0)
                );
            }
            _ => {
                for &to in &a.to_x {
                    let _ = writeln!(
                        s,
                        r#"<line class="mt-arrow" x1="{}" y1="{y}" x2="{}" y2="{y}" marker-end="url(#mt-head)"/>"#,
                        n(a.from_x),
                        n(to)
                    );
                }
            }
        }
        match a.kind {
            ArrowKind::ToEnvironment => {
                let _ = writeln!(
                    s,
                    r#"<circle class="mt-gate" cx="{}" cy="{y}" r="4"/>"#,
                    n(a.to_x[0] + 4.0)
                );
            }
            ArrowKind::FromEnvironment => {
                let _ = writeln!(
                    s,
                    r#"<circle class="mt-gate" cx="{}" cy="{y}" r="4"/>"#,
                    n(a.from_x)
                );
            }
            _ => {}
        }
        rect(&mut s, "mt-labelbg", &a.label.rect);
        text(&mut s, "mt-label", &a.label);
    }
    for e in &l.empties {
        text(&mut s, "mt-empty", e);
    }
    for life in &l.lifelines {
        for r in [&life.head, &life.foot] {
            rect(&mut s, "mt-head", r);
            text(
                &mut s,
                "mt-name",
                &Label {
                    text: life.name.clone(),
                    rect: *r,
                },
            );
        }
    }
    s.push_str("</svg>\n");
    s
}
