//! The JSON object of a [`Report`]: `a` and `b` (status, counterexample with its re-check, what
//! was searched), `causality`, `static`, `search`, `seed002` and `ours`, `files`,
//! `local_checks`; letters and partitions by name.

use super::central::{Central, FoundBy, Searched};
use super::inclusion::{Inclusion, Shortest};
use super::recheck::Recheck;
use super::report::{Analysed, Analysis, Judged, Report};
use super::search::Status;
use super::text::undecided_text;
use super::{Partition, Problem};
use crate::manifest::mode_name;
use multitrace_model::nfa::LetterId;
use multitrace_model::signature::LifelineId;
use serde_json::{json, Value};

/// Letter names.
fn letters(problem: &Problem, w: &[LetterId]) -> Value {
    json!(w
        .iter()
        .map(|&x| problem.letter_name(x))
        .collect::<Vec<_>>())
}

/// `{"A": [...], "B,C": [...]}`: the local traces of `p`'s blocks.
fn multitrace(problem: &Problem, p: &Partition, traces: &[Vec<LetterId>]) -> Value {
    let mut m = serde_json::Map::new();
    for (&b, t) in p.blocks().iter().zip(traces) {
        m.insert(problem.block_name(b), letters(problem, t));
    }
    Value::Object(m)
}

/// `["A", "B,C"]`.
fn partition(problem: &Problem, p: &Partition) -> Value {
    json!(p
        .blocks()
        .iter()
        .map(|&b| problem.block_name(b))
        .collect::<Vec<_>>())
}

fn recheck(r: &Recheck) -> Value {
    json!({
        "locals_accept": r.locals_accept(),
        "global_ac": r.global.name(),
        "multitrace_as": r.multitrace.kind.name(),
        "multitrace_as_reason": r.multitrace.reason.as_ref().map(|x| x.name()),
        "multitrace_ac": r.multitrace_ac.name(),
        "multitrace_term": r.multitrace_term.map(|v| v.name()),
    })
}

fn inclusion(problem: &Problem, a: &Analysis) -> Value {
    match &a.inclusion {
        Inclusion::Faithful { in_flight } => json!({
            "status": "faithful",
            "proof": if problem.exact() {
                "every global trace, any length"
            } else {
                "the global traces passing every local verifier are finitely many, all accepted"
            },
            "in_flight_exact_up_to": in_flight,
        }),
        Inclusion::Counterexample(c) => {
            let traces = problem.project(&a.partition, &c.word);
            json!({
                "status": "counterexample",
                "counterexample": {
                    "global_trace": letters(problem, &c.word),
                    "length": c.word.len(),
                    "shortest": match c.shortest {
                        Shortest::Overall => Value::String("overall".into()),
                        Shortest::AmongInFlight(k) => json!({"among_in_flight_at_most": k}),
                        Shortest::NoneUpTo(n) => json!({"from_b_none_up_to": n}),
                    },
                    "in_flight": c.in_flight,
                    "multitrace": multitrace(problem, &a.partition, &traces),
                    "recheck": a.inclusion_check.as_ref().map(recheck),
                }
            })
        }
        Inclusion::Undecided(u) => json!({
            "status": "undecided",
            "detail": undecided_text(problem, u),
        }),
    }
}

fn searched(s: &Searched) -> Value {
    json!({
        "complete_up_to": s.complete_up_to,
        "all": s.all,
        "enumerated": s.enumerated,
        "multitraces": s.multitraces,
        "samples": s.samples,
        "samples_checked": s.samples_checked,
        "inconclusive": s.inconclusive,
        "time_limit_s": s.time_limit.map(|l| l.as_secs_f64()),
    })
}

fn central(problem: &Problem, a: &Analysis) -> Value {
    match &a.central {
        Central::ProvenByInclusion => json!({"status": "proven", "proof": "inclusion"}),
        Central::ProvenExhaustive(s) => {
            json!({"status": "proven", "proof": "exhaustive", "searched": searched(s)})
        }
        Central::Counterexample(c, s) => json!({
            "status": "counterexample",
            "counterexample": {
                "multitrace": multitrace(problem, &a.partition, &c.traces),
                "interleaving": letters(problem, &c.interleaving),
                "actions": c.interleaving.len(),
                "found_by": match c.found {
                    FoundBy::Exhaustive => "exhaustive".to_string(),
                    FoundBy::Inclusion => "inclusion".to_string(),
                    FoundBy::Sampling(n) => format!("sample {n}"),
                },
                "recheck": a.central_check.as_ref().map(recheck),
            },
            "searched": searched(s),
        }),
        Central::NoneFound(s) => json!({"status": "none-found", "searched": searched(s)}),
    }
}

/// The constraints that apply in the mode.
fn statics(a: &Analysed) -> Vec<Value> {
    let problem = &a.problem;
    let Some(st) = problem.statics() else {
        return Vec::new();
    };
    let sig = problem.global().signature();
    let name = |l: LifelineId| sig.map_or(String::new(), |s| s.lifeline_name(l).to_string());
    st.constraints()
        .iter()
        .filter(|c| c.rule.applies(a.options.mode))
        .map(|c| {
            json!({
                "family": if c.rule.is_seed002() { "seed002" } else { "ours" },
                "rule": c.rule.name(),
                "at": c.at,
                "construct": c.construct,
                "reason": c.reason,
                "options": c.options.iter().map(|&(x, y)| vec![name(x), name(y)]).collect::<Vec<_>>(),
            })
        })
        .collect()
}

fn judged(problem: &Problem, vs: &[Judged], finest: &[Partition]) -> Value {
    json!(vs
        .iter()
        .map(|v| json!({
            "partition": partition(problem, &v.partition),
            "status": match &v.status {
                Some(Status::Faithful { .. }) => "faithful",
                Some(Status::Refuted { .. }) => "counterexample",
                Some(Status::Undecided(_)) => "undecided",
                None => "unknown",
            },
            "finest": finest.contains(&v.partition),
            "counterexample": v.counterexample.as_ref().map(|w| letters(problem, w)),
        }))
        .collect::<Vec<_>>())
}

impl Report {
    /// The JSON object, as the command prints it (no final newline): pretty-printed, or one
    /// line when no automaton could be built.
    pub fn json(&self) -> String {
        report(self)
    }
}

/// The JSON text of a report, as the command prints it (no final newline).
pub fn report(r: &Report) -> String {
    match r {
        Report::NoAutomata(n) => json!({
            "model": n.options.model.display().to_string(),
            "mode": mode_name(n.options.mode),
            "status": "undecided",
            "detail": n.reason.to_string(),
        })
        .to_string(),
        Report::Analysed(a) => {
            // Pretty-printing a `Value` cannot fail (its keys are strings).
            serde_json::to_string_pretty(&analysed(a)).unwrap_or_default()
        }
    }
}

/// The JSON object of an analysis.
pub fn analysed(a: &Analysed) -> Value {
    let problem = &a.problem;
    let finest = a.finest_partitions();
    let search = a.search.as_ref().map(|out| {
        json!({
            "complete": out.complete(),
            "complete_down_to_blocks": out.complete_down_to,
            "partitions_total": out.total.to_string(),
            "enumerated": out.enumerated,
            "product_searches": out.searches,
            "product_searches_on_hints": out.hint_searches,
            "decided_by_own_search": out.decided,
            "single_location": out.trivial,
            "refuted_by_known_counterexample": out.reused,
            "skipped_coarser_than_faithful": out.skipped,
            "product_states": out.states,
            "finest_faithful": a.finest.iter().map(|(p, certain)| json!({
                "partition": partition(problem, p),
                "certain": certain,
            })).collect::<Vec<_>>(),
            "counterexamples": out.counterexamples.iter().map(|w| letters(problem, w)).collect::<Vec<_>>(),
            "hinted_faithful": out.hinted_faithful.iter().map(|p| partition(problem, p)).collect::<Vec<_>>(),
        })
    });
    json!({
        "model": a.options.model.display().to_string(),
        "mode": mode_name(a.options.mode),
        "question": a.options.question.name(),
        "exit": a.outcome.exit_code(),
        "partition": partition(problem, &a.main.partition),
        "locations": problem.locations_spec(&a.main.partition),
        "global_automaton": {
            "states": problem.global().automata().map(|x| x.nfa.states()),
            "transitions": problem.global().automata().map(|x| x.nfa.transitions().len()),
            "regular": problem.exact(),
        },
        "causality": problem.causality().channels.iter().map(|(b, m, s)| json!({
            "receiver": b, "message": m, "senders": s,
        })).collect::<Vec<_>>(),
        "a": inclusion(problem, &a.main),
        "b": central(problem, &a.main),
        "static": statics(a),
        "search": search,
        "seed002": a.derived.as_ref().map(|d| json!({
            "derived": d.seed002.as_ref().map(|_| judged(problem, &a.seed002_judged, &finest)),
            "count": d.seed002.as_ref().map(Vec::len),
        })),
        "ours": a.derived.as_ref().map(|d| json!({
            "predicted": d.ours.as_ref().map(|_| judged(problem, &a.ours_judged, &finest)),
            "count": d.ours.as_ref().map(Vec::len),
        })),
        "files": a.written.iter().map(|w| json!({
            "path": w.path.display().to_string(),
            "command": w.command,
            "expect": w.expect,
        })).collect::<Vec<_>>(),
        "local_checks": a.local.as_ref().map(|l| l.iter().map(|v| json!({
            "trace": v.file, "verdict": v.verdict.name(), "why": v.why,
        })).collect::<Vec<_>>()),
    })
}
