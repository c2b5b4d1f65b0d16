//! The failures shown in full: one lane per location (the consumed part, the blocked actions
//! highlighted, long lanes shown around their interesting points) and the diagnosis.

use super::reread::LocalTraces;
use super::values::escape;
use multitrace_model::record::{BlockedRecord, Record};
use std::collections::BTreeSet;
use std::fmt::Write as _;

/// A lane longer than this is shown around its interesting points only.
const LANE_FULL: usize = 48;

/// The lanes and the diagnosis of one failure.
pub(super) fn failure_html(s: &mut String, k: usize, r: &Record, traces: Option<&LocalTraces>) {
    let _ = writeln!(
        s,
        "<article class=\"failure\" id=\"f{k}\" data-trace=\"{}\" data-reason=\"{}\">\n<h3>{} <span class=\"badge v-Fail\">Fail</span> <span class=\"muted\">{}</span></h3>",
        escape(r.name()),
        escape(r.reason.as_deref().unwrap_or("")),
        escape(r.name()),
        escape(r.reason.as_deref().unwrap_or(""))
    );
    if let Some(e) = &r.explanation {
        let _ = writeln!(s, "<p class=\"explanation\">{}</p>", escape(e));
    }
    let diagnosis = r.diagnosis.as_ref();
    // Locations: those of the traces, then any the diagnosis names besides.
    let mut locations: Vec<String> = traces
        .map(|t| t.iter().map(|(n, _)| n.clone()).collect())
        .unwrap_or_default();
    let mut seen: BTreeSet<String> = locations.iter().cloned().collect();
    if let Some(d) = diagnosis {
        for (n, _) in &d.consumed.0 {
            if seen.insert(n.clone()) {
                locations.push(n.clone());
            }
        }
    }
    if let Some(l) = &r.local_error {
        if seen.insert(l.location.clone()) {
            locations.push(l.location.clone());
        }
    }
    s.push_str("<div class=\"lanes\">\n");
    for loc in &locations {
        let actions = traces.and_then(|t| t.iter().find(|(n, _)| n == loc).map(|(_, a)| a));
        let consumed =
            diagnosis.and_then(|d| d.consumed.0.iter().find(|(n, _)| n == loc).map(|&(_, c)| c));
        let mut marks: Vec<&BlockedRecord> = diagnosis
            .map(|d| d.blocked.iter().filter(|b| &b.location == loc).collect())
            .unwrap_or_default();
        if let Some(l) = r.local_error.as_ref().filter(|b| &b.location == loc) {
            if !marks.contains(&l) {
                marks.push(l);
            }
        }
        lane_html(s, loc, actions.map(Vec::as_slice), consumed, &marks);
    }
    s.push_str("</div>\n");
    if traces.is_none() {
        s.push_str("<p class=\"muted\">The local traces could not be read again (standard input, or a file changed since): the lanes show what the diagnosis says.</p>\n");
    }
    // What the model allows where each location is blocked, and, for a LocalError, what the
    // location's local verifier allowed on its own.
    let mut rows: Vec<(&BlockedRecord, String)> = diagnosis
        .map(|d| {
            d.blocked
                .iter()
                .map(|b| (b, "the model, at the furthest consistent point".to_string()))
                .collect()
        })
        .unwrap_or_default();
    if let Some(l) = &r.local_error {
        rows.push((
            l,
            format!("{}'s local verifier, on its trace alone", l.location),
        ));
    }
    if !rows.is_empty() {
        s.push_str("<table class=\"diag\"><tr><th>location</th><th>action</th><th>found</th><th>allowed there</th><th>according to</th></tr>\n");
        for (b, source) in rows {
            let _ = writeln!(
                s,
                "<tr><td>{}</td><td>{}</td><td><code>{}</code></td><td><code>{}</code></td><td>{}</td></tr>",
                escape(&b.location),
                b.position,
                b.found.as_deref().map_or("end of its trace".to_string(), escape),
                if b.allowed.is_empty() {
                    "nothing".to_string()
                } else {
                    escape(&b.allowed.join(" "))
                },
                escape(&source)
            );
        }
        s.push_str("</table>\n");
    }
    if let Some(d) = diagnosis {
        let mut notes = Vec::new();
        if d.ended {
            notes.push("the interaction has ended at that point");
        }
        if d.partial {
            notes.push("the diagnosis is partial: its budget ran out");
        }
        if !notes.is_empty() {
            let _ = writeln!(s, "<p class=\"muted\">{}.</p>", notes.join("; "));
        }
    }
    s.push_str("</article>\n");
}

/// One lane: the location's actions (around the interesting points when long), the consumed
/// ones green, a bar where consumption stops, the blocked actions (`marks`: the diagnosis's and
/// the local verifier's) red.
fn lane_html(
    s: &mut String,
    location: &str,
    actions: Option<&[String]>,
    consumed: Option<usize>,
    marks: &[&BlockedRecord],
) {
    let _ = write!(
        s,
        "<div class=\"loc\">{}</div><div class=\"lane\" data-location=\"{}\">",
        escape(location),
        escape(location)
    );
    // Blocked positions count from 1; indices from 0.
    let marked: BTreeSet<usize> = marks.iter().map(|b| b.position - 1).collect();
    let title = |i: usize| -> String {
        let b = marks.iter().find(|b| b.position - 1 == i);
        match b {
            Some(b) if b.allowed.is_empty() => format!(
                "action {}: not allowed here; the model allows nothing",
                i + 1
            ),
            Some(b) => format!(
                "action {}: not allowed here; the model allows {}",
                i + 1,
                b.allowed.join(" ")
            ),
            None => format!("action {}", i + 1),
        }
    };
    match actions {
        Some(actions) => {
            let len = actions.len();
            let cut = consumed.unwrap_or(0).min(len);
            let mut show = vec![len <= LANE_FULL; len];
            if len > LANE_FULL {
                let mut keep = |a: usize, b: usize| {
                    for x in show.iter_mut().take(b.min(len)).skip(a) {
                        *x = true;
                    }
                };
                keep(0, 6);
                keep(cut.saturating_sub(12), cut + 12);
                for &m in &marked {
                    keep(m.saturating_sub(3), m + 4);
                }
                keep(len.saturating_sub(4), len);
            }
            if len == 0 {
                s.push_str("<span class=\"empty\">empty trace</span>");
            }
            let mut i = 0;
            while i <= len {
                if consumed.is_some() && i == cut {
                    let _ = write!(s, "<span class=\"cut\" title=\"consistent up to here: {cut} action{} consumed\"></span>", if cut == 1 { "" } else { "s" });
                }
                if i == len {
                    break;
                }
                if !show[i] {
                    let start = i;
                    while i < len && !show[i] && !(consumed.is_some() && i == cut) {
                        i += 1;
                    }
                    let _ = write!(s, "<span class=\"gap\">… {} more …</span>", i - start);
                    continue;
                }
                let class = if marked.contains(&i) {
                    "act blocked"
                } else if consumed.is_some() && i < cut {
                    "act done"
                } else {
                    "act"
                };
                let _ = write!(
                    s,
                    "<span class=\"{class}\" data-position=\"{}\" title=\"{}\">{}</span>",
                    i + 1,
                    escape(&title(i)),
                    escape(&actions[i])
                );
                i += 1;
            }
            // Blocked at the end of the trace: it cannot end there.
            for b in marks.iter().filter(|b| b.found.is_none()) {
                let _ = write!(
                    s,
                    "<span class=\"act blocked end\" data-position=\"{}\" title=\"the trace cannot end here; the model allows {}\">end of trace</span>",
                    b.position,
                    escape(&b.allowed.join(" "))
                );
            }
        }
        None => {
            // Only the diagnosis: how many were consumed, and the blocked action.
            if let Some(c) = consumed {
                if c > 0 {
                    let _ = write!(
                        s,
                        "<span class=\"act done\">{c} action{}</span>",
                        if c == 1 { "" } else { "s" }
                    );
                }
                s.push_str("<span class=\"cut\"></span>");
            }
            for b in marks {
                let _ = write!(
                    s,
                    "<span class=\"act blocked{}\" data-position=\"{}\" title=\"{}\">{}</span>",
                    if b.found.is_none() { " end" } else { "" },
                    b.position,
                    escape(&title(b.position - 1)),
                    escape(b.found.as_deref().unwrap_or("end of trace"))
                );
            }
        }
    }
    s.push_str("</div>\n");
}
