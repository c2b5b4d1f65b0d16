//! The text of a [`Report`] for people: the model, (a) and (b) with their counterexamples and
//! re-checks, the static analysis, the finest faithful partitions with what seed 002 derives and
//! what our conditions predict, the files written, and the local checks.

use super::central::{Central, CentralLimits, FoundBy, Searched};
use super::inclusion::{Inclusion, Shortest, Undecided};
use super::options::MAX_SHOWN;
use super::report::{Analysed, Judged, Report};
use super::search::Status;
use super::{Partition, Problem};
use crate::manifest::mode_name;
use multitrace_model::model::ModelKind;
use multitrace_model::nfa::LetterId;
use multitrace_model::verdict::{Reason, VerdictKind};
use std::fmt::Write as _;

/// "1 action", "4 actions".
fn actions(n: usize) -> String {
    format!("{n} action{}", if n == 1 { "" } else { "s" })
}

/// "1 message", "3 messages".
fn messages(n: u32) -> String {
    format!("{n} message{}", if n == 1 { "" } else { "s" })
}

/// `[A] A!ping; [B] B?ping; ...`: the local traces of `p`'s blocks, in global letters.
pub fn multitrace_line(problem: &Problem, p: &Partition, traces: &[Vec<LetterId>]) -> String {
    p.blocks()
        .iter()
        .zip(traces)
        .map(|(&b, t)| {
            let w = if t.is_empty() {
                String::new()
            } else {
                format!(" {}", problem.word(t))
            };
            format!("[{}]{w}", problem.block_name(b))
        })
        .collect::<Vec<_>>()
        .join("; ")
}

/// How short a counterexample to (a) is known to be.
fn shortest_text(s: Shortest) -> String {
    match s {
        Shortest::Overall => "shortest".into(),
        Shortest::AmongInFlight(k) => format!(
            "shortest among the traces with at most {} in flight per channel",
            messages(k)
        ),
        Shortest::NoneUpTo(n) => format!(
            "the interleaving of (b)'s counterexample; {}",
            match n {
                Some(n) => format!("none has at most {}", actions(n)),
                None => "shorter ones may exist".to_string(),
            }
        ),
    }
}

/// What a search cut short covered: every global trace of at most `complete_up_to` actions
/// (with at most `in_flight` messages in flight per channel, when that bounds it), or none.
fn searched_up_to(complete_up_to: Option<usize>, in_flight: Option<u32>) -> String {
    let bound = in_flight.map_or(String::new(), |m| {
        format!(" with at most {} in flight per channel", messages(m))
    });
    match complete_up_to {
        Some(n) => format!("the global traces of at most {}{bound}", actions(n)),
        None => "no global trace".to_string(),
    }
}

/// An undecided (a), with what was searched (`undecided: ...`).
pub fn undecided_text(problem: &Problem, u: &Undecided) -> String {
    match u {
        Undecided::States {
            limit,
            complete_up_to,
            in_flight,
        } => {
            let bound = if problem.causality().counters() > 0 {
                format!(" with at most {} in flight per channel", messages(*in_flight))
            } else {
                String::new()
            };
            format!(
                "undecided: the search reached its {limit} states (--max-states); no counterexample among the global traces of at most {complete_up_to} actions{bound}"
            )
        }
        Undecided::Memory {
            limit,
            complete_up_to,
            in_flight,
        } => {
            let bound = problem.causality().counters() > 0;
            let upto = searched_up_to(*complete_up_to, bound.then_some(*in_flight));
            format!(
                "undecided: the search reached its memory limit of {} MiB (--max-memory {}; 0: none); no counterexample among {upto}",
                limit >> 20,
                limit >> 20
            )
        }
        Undecided::Time {
            limit,
            complete_up_to,
            in_flight,
        } => {
            let bound = problem.causality().counters() > 0 && problem.exact();
            let upto = searched_up_to(*complete_up_to, bound.then_some(*in_flight));
            format!(
                "undecided: {}; no counterexample found among {upto}",
                super::deadline::limit_text(*limit, "searching (a)")
            )
        }
        Undecided::InFlight { bound, spurious } => format!(
            "undecided: no counterexample with at most {} in flight per channel (searched exhaustively, any length); beyond that bound the abstraction finds {}, which is not causally possible (raise --max-in-flight)",
            messages(*bound),
            problem.word(spurious)
        ),
        Undecided::Bounded {
            complete_up_to,
            words,
            inconclusive,
        } => {
            let upto = match complete_up_to {
                Some(n) => format!("every causal global trace of at most {} passing the local verifiers", actions(*n)),
                None => "no global trace".to_string(),
            };
            let inc = if *inconclusive > 0 {
                format!(", {inconclusive} of them Inconclusive (budget)")
            } else {
                String::new()
            };
            format!(
                "undecided: no counterexample among {upto} ({words} decided by term exploration{inc}; the global language is not regular, so longer traces are not searched: raise --max-length or --max-multitraces)"
            )
        }
    }
}

/// What the search of (b) covered.
fn searched_text(s: &Searched, limits: &CentralLimits) -> String {
    let mut t = match s.complete_up_to {
        Some(n) => format!(
            "every multitrace passing the local checks with at most {} ({} causally possible, checked centrally)",
            actions(n),
            s.multitraces
        ),
        None => "no multitrace exhaustively".to_string(),
    };
    if s.complete_up_to.unwrap_or(0) < limits.max_length && !s.all && s.time_limit.is_none() {
        let _ = write!(
            t,
            " (the search stopped at --max-multitraces {})",
            limits.max_multitraces
        );
    }
    if s.samples > 0 {
        let _ = write!(
            t,
            ", and {} random mixes of accepted runs ({} causally possible and passing the local checks, checked centrally)",
            s.samples, s.samples_checked
        );
    }
    if s.inconclusive > 0 {
        let _ = write!(t, "; {} central checks ran out of budget", s.inconclusive);
    }
    t
}

/// The status of a judged partition, against the finest faithful partitions.
fn status_text(problem: &Problem, v: &Judged, finest: &[Partition]) -> String {
    match (&v.status, &v.counterexample) {
        (Some(Status::Faithful { .. }), _) => {
            if finest.contains(&v.partition) {
                "faithful (one of the finest)".into()
            } else {
                let finer: Vec<String> = finest
                    .iter()
                    .filter(|m| m.refines(&v.partition))
                    .map(|m| problem.partition_name(m))
                    .collect();
                if finer.is_empty() {
                    "faithful".into()
                } else {
                    format!("faithful, but coarser than {}", finer.join(" and "))
                }
            }
        }
        (Some(Status::Refuted { .. }), Some(w)) => {
            let traces = problem.project(&v.partition, w);
            format!(
                "not faithful: {} (as a multitrace: {}) passes every local verifier and A rejects it (re-checked)",
                problem.word(w),
                multitrace_line(problem, &v.partition, &traces)
            )
        }
        (Some(Status::Undecided(u)), _) => undecided_text(problem, u),
        _ => "unknown".into(),
    }
}

/// `P1 | P2 | ...`, at most [`MAX_SHOWN`] of them.
fn shown_names(problem: &Problem, list: &[Partition]) -> String {
    let mut t = list
        .iter()
        .take(MAX_SHOWN)
        .map(|p| problem.partition_name(p))
        .collect::<Vec<_>>()
        .join(" | ");
    if list.len() > MAX_SHOWN {
        let _ = write!(
            t,
            " ... and {} more (the first {MAX_SHOWN} are judged below)",
            list.len() - MAX_SHOWN
        );
    }
    t
}

impl Report {
    /// The text for people, as the command prints it (ends with a newline).
    pub fn text(&self) -> String {
        report(self)
    }
}

/// The text of a report (ends with a newline).
pub fn report(r: &Report) -> String {
    match r {
        Report::NoAutomata(n) => {
            format!("{}: undecided: {}\n", n.options.model.display(), n.reason)
        }
        Report::Analysed(a) => {
            let mut s = String::new();
            header(&mut s, a);
            questions(&mut s, a);
            statics(&mut s, a);
            finest(&mut s, a);
            files_and_local(&mut s, a);
            s
        }
    }
}

/// The model, its global language and the causal restriction.
fn header(s: &mut String, a: &Analysed) {
    let problem = &a.problem;
    let kind = if problem.is_interaction() {
        "interaction"
    } else {
        "automaton"
    };
    let _ = writeln!(
        s,
        "model: {} ({kind}), {} mode",
        a.options.model.display(),
        mode_name(a.options.mode)
    );
    if let Some(aut) = problem.global().automata() {
        let _ = writeln!(
            s,
            "global traces: the model compiled with one location, an NFA of {} states and {} transitions",
            aut.nfa.states(),
            aut.nfa.transitions().len()
        );
    } else if let ModelKind::TermOnly(why) = &problem.global().kind {
        let _ = writeln!(
            s,
            "global traces: not regular ({why}); (a) is searched up to --max-length {} actions, each global trace decided by term exploration; (b) runs on the model compiled with the given locations (same multitraces); coarsenings are not searched",
            a.options.inclusion.max_length
        );
    }
    if problem.is_interaction() {
        let ch: Vec<String> = problem
            .causality()
            .channels
            .iter()
            .map(|(b, m, senders)| {
                format!(
                    "{b}?{m} after {}",
                    senders
                        .iter()
                        .map(|a| format!("{a}!{m}"))
                        .collect::<Vec<_>>()
                        .join(" or ")
                )
            })
            .collect();
        let _ = writeln!(
            s,
            "causality: a reception follows an emission of its message not yet received: {}",
            if ch.is_empty() {
                "(no constrained reception)".to_string()
            } else {
                ch.join("; ")
            }
        );
    } else {
        let _ = writeln!(
            s,
            "causality: none (the letters of a raw automaton are opaque)"
        );
    }
}

/// The given partition: (a) and (b).
fn questions(s: &mut String, a: &Analysed) {
    let (problem, main) = (&a.problem, &a.main);
    let given_how = if a.options.locations_given {
        "given"
    } else if problem.is_interaction() {
        "default: one location per lifeline"
    } else {
        "default: the Systems block"
    };
    let _ = writeln!(
        s,
        "\npartition {} ({given_how})",
        problem.partition_name(&main.partition)
    );
    match &main.inclusion {
        Inclusion::Faithful { .. } if !problem.exact() => {
            let _ = writeln!(
                s,
                "(a) global traces: faithful: the causal global traces passing every local verifier are finitely many, and term exploration accepts each"
            );
        }
        Inclusion::Faithful { in_flight } => {
            let how = match in_flight {
                Some(k) => format!(
                    " (product search with in-flight counters exact up to {k} and abstracted beyond, which only adds traces)"
                ),
                None => " (product search)".into(),
            };
            let _ = writeln!(
                s,
                "(a) global traces: faithful: no global trace of any length passes every local verifier and is rejected by A{how}"
            );
        }
        Inclusion::Counterexample(c) => {
            let traces = problem.project(&main.partition, &c.word);
            let _ = writeln!(
                s,
                "(a) global traces: not faithful\n    counterexample ({}, {}): {}\n    as a multitrace: {}",
                actions(c.word.len()),
                shortest_text(c.shortest),
                problem.word(&c.word),
                multitrace_line(problem, &main.partition, &traces)
            );
            if let Some(r) = &main.inclusion_check {
                let seen = match (r.multitrace.kind, &r.multitrace.reason) {
                    (VerdictKind::Fail, Some(reason)) => {
                        format!("the multitrace itself fails ({}), so the central step sees it", reason.name())
                    }
                    (VerdictKind::WeakPass, _) => "the multitrace itself is WeakPass (a multi-prefix of an accepted multitrace): only the global order shows the violation".to_string(),
                    (k, _) => format!(
                        "the multitrace itself is {} (another interleaving is accepted): only the global order shows the violation",
                        k.name()
                    ),
                };
                let by = if problem.exact() {
                    "AC"
                } else {
                    "term exploration"
                };
                let _ = writeln!(
                    s,
                    "    re-checked: every local verifier accepts its trace, {by} rejects the global trace; {seen}"
                );
            }
        }
        Inclusion::Undecided(u) => {
            let _ = writeln!(s, "(a) global traces: {}", undecided_text(problem, u));
        }
    }
    let limits = &a.options.central;
    match &main.central {
        Central::ProvenByInclusion => {
            let _ = writeln!(
                s,
                "(b) central step: not needed (proven by (a): a multitrace passing every local check and not accepted would interleave into a counterexample to (a))"
            );
        }
        Central::ProvenExhaustive(searched) => {
            let _ = writeln!(
                s,
                "(b) central step: not needed (proven: every local language is finite, and {} are accepted)",
                searched_text(searched, limits).replacen("every multitrace", "all multitraces", 1)
            );
        }
        Central::Counterexample(c, searched) => {
            let how = match c.found {
                FoundBy::Exhaustive => {
                    "found by the exhaustive search, so no counterexample has fewer actions"
                        .to_string()
                }
                FoundBy::Inclusion => "the multitrace of (a)'s counterexample".to_string(),
                FoundBy::Sampling(n) => {
                    format!("random mix {n}, after {}", searched_text(searched, limits))
                }
            };
            let (also, s_) = if problem.is_interaction() {
                ("AC and term exploration", "")
            } else {
                ("AC", "s")
            };
            let reason = main
                .central_check
                .as_ref()
                .and_then(|r| r.multitrace.reason.as_ref().map(Reason::name))
                .unwrap_or("?");
            let _ = writeln!(
                s,
                "(b) central step: needed\n    counterexample ({}; {how}): {}\n    re-checked: every local verifier accepts its trace; AS fails it with {reason}, {also} reject{s_} it",
                actions(c.interleaving.len()),
                multitrace_line(problem, &main.partition, &c.traces)
            );
        }
        Central::NoneFound(searched) => {
            let time = match searched.time_limit {
                Some(l) => format!("{}; ", super::deadline::limit_text(l, "searching (b)")),
                None => String::new(),
            };
            let _ = writeln!(
                s,
                "(b) central step: undecided: {time}no counterexample among {} (not a proof)",
                searched_text(searched, limits)
            );
        }
    }
    let proven = matches!(
        main.central,
        Central::ProvenByInclusion | Central::ProvenExhaustive(_)
    );
    if proven && problem.causality().counters() > 0 {
        let _ = writeln!(s, "    {CAUSALITY_ASSUMPTION}");
    }
}

/// Why `check` may still find a CentralError (or a WeakPass where `--check-local` says
/// Inconclusive) where (b) is proven: (a) and (b) range over causal multitraces only, as seed
/// 002's distribution is about what a system can produce, while `check` judges any file.
pub const CAUSALITY_ASSUMPTION: &str = "why `check` may differ: (a) and (b) assume causality (every reception follows its message's emission, as on a real network), so a multitrace with a reception whose emission is missing can still get a CentralError from `check` (in prefix mode possibly a WeakPass, where --check-local says Inconclusive)";

/// The constraints of the static analysis that apply in the mode, by family.
fn statics(s: &mut String, a: &Analysed) {
    let Some(st) = a.problem.statics() else {
        return;
    };
    let mode = a.options.mode;
    let _ = writeln!(s, "\nstatic analysis ({} mode)", mode_name(mode));
    for seed in [true, false] {
        let _ = writeln!(
            s,
            "  {}",
            if seed {
                "seed 002 (Def. 1; events are whole exchanges):"
            } else {
                "ours (events are emissions and receptions; the network orders only a reception after its emission):"
            }
        );
        let cs: Vec<_> = st
            .constraints()
            .iter()
            .filter(|c| c.rule.is_seed002() == seed && c.rule.applies(mode))
            .collect();
        if cs.is_empty() {
            let _ = writeln!(s, "    (no constraint)");
        }
        for c in cs {
            let _ = writeln!(
                s,
                "    {}: {}, {}: {}",
                c.at,
                c.construct,
                c.rule.name(),
                c.reason
            );
        }
    }
}

/// The finest faithful partitions, what was searched, and the derived partitions judged.
fn finest(s: &mut String, a: &Analysed) {
    let problem = &a.problem;
    let finest = a.finest_partitions();
    let mode = a.options.mode;
    if let Some(out) = &a.search {
        let _ = writeln!(
            s,
            "\nfinest faithful partitions (question (a), {} mode{}):",
            mode_name(mode),
            if out.complete() {
                ""
            } else {
                "; among the partitions searched"
            }
        );
        for (p, certain) in &a.finest {
            let _ = writeln!(
                s,
                "    {}{}",
                problem.partition_name(p),
                if *certain {
                    ""
                } else {
                    " (a finer partition was left undecided)"
                }
            );
        }
        if !out.complete() {
            let outside: Vec<String> = out
                .hinted_faithful
                .iter()
                .filter(|h| !finest.contains(h))
                .map(|h| problem.partition_name(h))
                .collect();
            if !outside.is_empty() {
                let _ = writeln!(
                    s,
                    "  also faithful (predicted statically, proven; beyond the levels searched, so maybe not finest): {}",
                    outside.join(" | ")
                );
            }
        }
        let extent = if out.complete() {
            format!(
                "all {} partitions of {} locations",
                out.total,
                problem.atoms()
            )
        } else {
            format!(
                "{} of the {} partitions of {} locations, complete down to {} blocks (raise --max-partitions or --max-searches)",
                out.enumerated,
                out.total,
                problem.atoms(),
                out.complete_down_to
                    .map_or("no".to_string(), |b| b.to_string())
            )
        };
        let hints = if out.hint_searches > 0 {
            format!(
                ", {} of them first on the partitions derived statically",
                out.hint_searches
            )
        } else {
            String::new()
        };
        let _ = writeln!(
            s,
            "  searched {extent} with {} product searches{hints}: {} decided by a search of their own, {} refuted by a counterexample already found, {} skipped as coarser than a faithful one{}",
            out.searches,
            out.decided,
            out.reused,
            out.skipped,
            if out.trivial > 0 {
                ", and the single location (faithful by definition)"
            } else {
                ""
            }
        );
        if let Some(d) = &a.derived {
            match &d.seed002 {
                Some(list) => {
                    let _ = writeln!(
                        s,
                        "seed 002 derives (finest partitions satisfying its conditions): {}",
                        if list.is_empty() {
                            "(none satisfiable)".to_string()
                        } else {
                            shown_names(problem, list)
                        }
                    );
                    for v in &a.seed002_judged {
                        let _ = writeln!(
                            s,
                            "    {}: {}",
                            problem.partition_name(&v.partition),
                            status_text(problem, v, &finest)
                        );
                    }
                }
                None => {
                    let _ = writeln!(
                        s,
                        "seed 002 derives: not enumerated (more than --max-partitions partitions)"
                    );
                }
            }
            match &d.ours {
                Some(list) => {
                    let agree = list.len() == finest.len()
                        && list.iter().all(|p| finest.contains(p))
                        && out.complete();
                    let _ = writeln!(
                        s,
                        "our static conditions predict: {}{}",
                        shown_names(problem, list),
                        if agree { " (confirmed)" } else { "" }
                    );
                    if !agree {
                        for v in &a.ours_judged {
                            let _ = writeln!(
                                s,
                                "    {}: {}",
                                problem.partition_name(&v.partition),
                                status_text(problem, v, &finest)
                            );
                        }
                    }
                }
                None => {
                    let _ = writeln!(s, "our static conditions: not enumerated (more than --max-partitions partitions)");
                }
            }
        }
    }
    if a.search.is_none() && !problem.exact() && !a.options.no_search {
        let _ = writeln!(
            s,
            "\nfinest faithful partitions: not searched (the global language is not regular, so only the given partition can be asked)"
        );
        if let Some(d) = &a.derived {
            if let Some(list) = &d.seed002 {
                let _ = writeln!(
                    s,
                    "seed 002 derives (not judged): {}",
                    shown_names(problem, list)
                );
            }
            if let Some(list) = &d.ours {
                let _ = writeln!(
                    s,
                    "our static conditions predict (not judged): {}",
                    shown_names(problem, list)
                );
            }
        }
    }
}

/// The files written, and the local checks with their counts.
fn files_and_local(s: &mut String, a: &Analysed) {
    if !a.written.is_empty() {
        let _ = writeln!(s, "\nfiles (each re-checked by the command shown):");
        for w in &a.written {
            let _ = writeln!(
                s,
                "  {}\n    {}\n    expect: {}",
                w.path.display(),
                w.command,
                w.expect
            );
        }
    }
    if let Some(l) = &a.local {
        let _ = writeln!(
            s,
            "\nlocal verifiers only ({}):",
            a.problem.partition_name(&a.main.partition)
        );
        for v in l {
            let _ = writeln!(s, "{}: {} ({})", v.file, v.verdict.name(), v.why);
        }
        let count = |k: VerdictKind| l.iter().filter(|v| v.verdict == k).count();
        let _ = writeln!(
            s,
            "{} multitrace{}: {} Pass, {} WeakPass, {} Fail, {} Inconclusive",
            l.len(),
            if l.len() == 1 { "" } else { "s" },
            count(VerdictKind::Pass),
            count(VerdictKind::WeakPass),
            count(VerdictKind::Fail),
            count(VerdictKind::Inconclusive)
        );
    }
}
