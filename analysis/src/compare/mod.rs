//! The comparison harness of `multitrace compare`: AC, AS (and term exploration) timed on
//! sets of multitraces, in the shape of seed 004's Table 1.
//!
//! [`read_sets`] reads the sets of directories: with a `manifest.tsv` (written by
//! [`crate::generate::write_set`]), one set per category of the manifest, each multitrace with
//! the verdict the manifest records; without one, every `.htf`, `.mtf` and `.jsonl` file of
//! the directory and its subdirectories (found by `check`'s walk, compressed files included)
//! as one set named after it, with the walk's notes in [`Comparison::notes`]. [`compare`] runs the procedures and returns a
//! [`Comparison`]: one [`Row`] per set with its times, verdict counts and [`Finding`]s.
//! Nothing is printed here: the command line prints the findings, the table
//! ([`Comparison::markdown`]) or JSON, and chooses the exit status.
//!
//! Invariants:
//!
//! - **One thread, alternating order**: every multitrace is checked by each procedure `runs`
//!   times; odd runs reverse the order of the procedures, so that none always runs on a warm
//!   cache. Checks are bounded by vertices only ([`CompareOptions::max_vertices`]).
//! - **Medians**: a set's time per procedure is the median over the runs of the total over the
//!   set; the time per multitrace is the median over all runs and multitraces; the setup (the
//!   local verifiers `Proj(A, Σi)` with their areas, all locations) is the median of `runs`
//!   builds.
//! - **Verdicts of the first run**: a *disagreement* is two procedures with different definite
//!   verdicts on a multitrace (Inconclusive agrees with everything); a *mismatch* is a definite
//!   AS verdict, or its reason, other than the manifest's (only when checked in the manifest's
//!   mode). Either makes [`Comparison::problems`] positive.
//! - **Order**: sets of a manifest in the order of [`Kind::ALL`](crate::generate::Kind::ALL)
//!   (seed 004's first), other categories after, in the order they first appear; multitraces
//!   in manifest order, or in `check`'s (natural) order in a directory without a manifest.
//! - **Progress**: [`compare_with`] reports one unit per check (multitraces × procedures ×
//!   runs, the total known once the sets are read) to a [`ProgressFn`], outside the timed
//!   intervals.
//!
//! Modules: `sets` (reading the sets), `table` (the Markdown table), this driver (timing and
//! comparing).

mod error;
mod job;
mod sets;
mod table;
#[cfg(test)]
mod tests;

pub use error::CompareError;
pub use sets::{read_sets, read_sets_noted, Item, Set};

use crate::generate::reason_label;
use crate::progress::{ProgressFn, Reporter};
use multitrace_check::explore::Budget;
use multitrace_check::{CheckOptions, Choice, Engine};
use multitrace_compiler::project::project_all;
use multitrace_model::model::CompiledModel;
use multitrace_model::verdict::Procedure;
use multitrace_model::verdict::{Mode, Verdict, VerdictKind};
use std::collections::BTreeMap;
use std::fmt;
use std::path::PathBuf;
use std::time::Instant;

/// How to compare.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CompareOptions {
    /// Runs per multitrace and procedure (at least 1); times are medians over the runs.
    pub runs: usize,
    /// Also time term exploration (ignored when the model has no interaction).
    pub with_term: bool,
    /// Check every multitrace in this mode (default: the manifest's, else complete).
    pub mode: Option<Mode>,
    /// Search-vertex budget per check (`None`: none).
    pub max_vertices: Option<u64>,
}

impl Default for CompareOptions {
    fn default() -> Self {
        CompareOptions {
            runs: 3,
            with_term: false,
            mode: None,
            max_vertices: Budget::default().max_vertices,
        }
    }
}

/// A multitrace on which the procedures, or AS and the manifest, disagree.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Finding {
    /// Two procedures gave different definite verdicts.
    Disagreement {
        /// The multitrace.
        item: String,
        /// The mode it was checked in.
        mode: Mode,
        /// Every procedure's verdict, as `Pass` or `Fail/LocalError(l2)`.
        verdicts: Vec<(Procedure, String)>,
    },
    /// AS gave a definite verdict (or reason) other than the manifest's.
    Mismatch {
        /// The multitrace.
        item: String,
        /// The manifest's verdict.
        expected: VerdictKind,
        /// The manifest's reason (`-` for none).
        expected_reason: String,
        /// AS's verdict.
        got: VerdictKind,
        /// AS's reason (`-` for none).
        got_reason: String,
    },
}

impl fmt::Display for Finding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Finding::Disagreement {
                item,
                mode,
                verdicts,
            } => {
                let all: Vec<String> = verdicts
                    .iter()
                    .map(|(p, v)| format!("{} {v}", p.name().to_uppercase()))
                    .collect();
                write!(
                    f,
                    "DISAGREEMENT ({} mode) on {item}: {}",
                    mode_name(*mode),
                    all.join(", ")
                )
            }
            Finding::Mismatch {
                item,
                expected,
                expected_reason,
                got,
                got_reason,
            } => write!(
                f,
                "MISMATCH with the manifest on {item}: manifest {expected} ({expected_reason}), AS {got} ({got_reason})"
            ),
        }
    }
}

/// The measurements of one set.
#[derive(Clone, Debug, PartialEq)]
pub struct Row {
    /// The set's category.
    pub category: String,
    /// Its number of multitraces.
    pub count: usize,
    /// The shortest multitrace (actions).
    pub len_min: usize,
    /// The longest multitrace (actions).
    pub len_max: usize,
    /// Median over the runs of the total time on the set in seconds, indexed by
    /// `Procedure as usize` (AC, AS, term); `None` for a procedure not run.
    pub total: [Option<f64>; 3],
    /// Median time per multitrace over all runs in seconds, indexed like `total`.
    pub per_mt: [Option<f64>; 3],
    /// AS verdicts (`Pass`, `Fail/LocalError(l2)`, ...), counted.
    pub verdicts: BTreeMap<String, usize>,
    /// Multitraces with a [`Finding::Disagreement`].
    pub disagreements: usize,
    /// Multitraces with a [`Finding::Mismatch`].
    pub mismatches: usize,
    /// Multitraces on which some procedure was Inconclusive.
    pub inconclusive: usize,
    /// The disagreements and mismatches, in the order of the set.
    pub findings: Vec<Finding>,
}

impl Row {
    /// The total time of `p` on the set (median over the runs), if it ran.
    pub fn total(&self, p: Procedure) -> Option<f64> {
        self.total[p as usize]
    }

    /// The median time of `p` per multitrace, if it ran.
    pub fn per_multitrace(&self, p: Procedure) -> Option<f64> {
        self.per_mt[p as usize]
    }

    /// AS time over AC time on the set (`None` when AC took no time).
    pub fn as_over_ac(&self) -> Option<f64> {
        ratio(self.total[1], self.total[0])
    }
}

/// The result of a comparison.
#[derive(Clone, Debug, PartialEq)]
pub struct Comparison {
    /// States of the model's NFA.
    pub states: usize,
    /// Transitions of the model's NFA.
    pub transitions: usize,
    /// Time to build the local verifiers in seconds (median of `runs`).
    pub setup: f64,
    /// Runs per multitrace and procedure.
    pub runs: usize,
    /// The procedures run: AC, AS, and term exploration when asked and possible.
    pub procedures: Vec<Procedure>,
    /// One row per set.
    pub rows: Vec<Row>,
    /// The notes of the directory walks (files skipped, and why), for the skin to show.
    pub notes: Vec<String>,
}

impl Comparison {
    /// Whether term exploration was timed.
    pub fn with_term(&self) -> bool {
        self.procedures.contains(&Procedure::Term)
    }

    /// Multitraces with a disagreement or a mismatch, over all sets.
    pub fn problems(&self) -> usize {
        self.rows
            .iter()
            .map(|r| r.disagreements + r.mismatches)
            .sum()
    }

    /// Whether some check was Inconclusive.
    pub fn inconclusive(&self) -> bool {
        self.rows.iter().any(|r| r.inconclusive > 0)
    }
}

/// Reads the sets of `dirs` and compares the procedures on them with `engine`'s model.
pub fn compare(
    engine: &Engine,
    dirs: &[PathBuf],
    opts: &CompareOptions,
) -> Result<Comparison, CompareError> {
    compare_with(engine, dirs, opts, None)
}

/// [`compare`], reporting the checks done to `progress`.
pub fn compare_with(
    engine: &Engine,
    dirs: &[PathBuf],
    opts: &CompareOptions,
    progress: Option<ProgressFn>,
) -> Result<Comparison, CompareError> {
    if engine.model().automata().is_none() {
        return Err(CompareError::TermOnly);
    }
    let (sets, notes) = read_sets_noted(engine, dirs, opts.mode)?;
    let mut c = compare_sets_with(engine, &sets, opts, progress)?;
    c.notes = notes;
    Ok(c)
}

/// Compares the procedures on `sets` (read by [`read_sets`]) with `engine`'s model.
pub fn compare_sets(
    engine: &Engine,
    sets: &[Set],
    opts: &CompareOptions,
) -> Result<Comparison, CompareError> {
    compare_sets_with(engine, sets, opts, None)
}

/// [`compare_sets`], reporting the checks done to `progress`.
pub fn compare_sets_with(
    engine: &Engine,
    sets: &[Set],
    opts: &CompareOptions,
    progress: Option<ProgressFn>,
) -> Result<Comparison, CompareError> {
    let model = engine.model();
    let automata = model.automata().ok_or(CompareError::TermOnly)?;
    let runs = opts.runs.max(1);
    let mut procedures = vec![Procedure::Ac, Procedure::As];
    if opts.with_term && model.term().is_some() {
        procedures.push(Procedure::Term);
    }
    // Setup: building the local verifiers Proj(A, Σi) with their areas.
    let mut setup: Vec<f64> = (0..runs)
        .map(|_| {
            let t = Instant::now();
            let r = project_all(&automata.nfa, &model.alphabet, usize::MAX, usize::MAX);
            let dt = t.elapsed().as_secs_f64();
            drop(r);
            dt
        })
        .collect();
    let budget = Budget {
        max_vertices: opts.max_vertices,
        timeout: None,
        ..Budget::default()
    };
    let checks: usize = sets.iter().map(|s| s.items.len()).sum::<usize>() * procedures.len() * runs;
    let mut reporter = Reporter::new(progress, "checks", Some(checks as u64));
    let mut done = 0u64;
    let mut rows = Vec::with_capacity(sets.len());
    for set in sets {
        rows.push(measure(engine, set, &procedures, runs, budget, &mut |n| {
            done += n;
            reporter.tick(done);
        })?);
    }
    reporter.finish(done);
    Ok(Comparison {
        states: automata.nfa.states(),
        transitions: automata.nfa.transitions().len(),
        setup: median(&mut setup),
        runs,
        procedures,
        rows,
        notes: Vec::new(),
    })
}

/// Times `procs` on one set and compares their verdicts.
fn measure(
    engine: &Engine,
    set: &Set,
    procs: &[Procedure],
    runs: usize,
    budget: Budget,
    checked: &mut dyn FnMut(u64),
) -> Result<Row, CompareError> {
    let model = engine.model();
    let mut scratch = engine.scratch();
    let n = set.items.len();
    let mut totals: Vec<Vec<f64>> = vec![Vec::new(); 3];
    let mut per_mt: Vec<Vec<f64>> = vec![Vec::new(); 3];
    let mut verdicts: Vec<[Option<Verdict>; 3]> = vec![[None, None, None]; n];
    for run in 0..runs {
        let mut sums = [0.0f64; 3];
        for (i, item) in set.items.iter().enumerate() {
            // Alternate the order so that neither procedure always runs on a warm cache.
            let mut order = procs.to_vec();
            if run % 2 == 1 {
                order.reverse();
            }
            for &p in &order {
                // The procedures alone, as seed 004's Table 1 times them: a Fail's diagnosis
                // (the same queries whatever the procedure) would hide their difference.
                let opts = CheckOptions {
                    mode: item.mode,
                    choice: Choice::Force(p),
                    budget,
                    diagnosis: None,
                    ..CheckOptions::default()
                };
                let t = Instant::now();
                let (v, _) = engine
                    .check_letters(&mut scratch, &item.traces, &opts)
                    .map_err(|error| CompareError::Check {
                        item: item.name.clone(),
                        error,
                    })?;
                let dt = t.elapsed().as_secs_f64();
                checked(1);
                let slot = p as usize;
                sums[slot] += dt;
                per_mt[slot].push(dt);
                if run == 0 {
                    verdicts[i][slot] = Some(v);
                }
            }
        }
        for &p in procs {
            totals[p as usize].push(sums[p as usize]);
        }
    }
    let mut row = Row {
        category: set.category.clone(),
        count: n,
        len_min: set.items.iter().map(Item::len).min().unwrap_or(0),
        len_max: set.items.iter().map(Item::len).max().unwrap_or(0),
        total: [None; 3],
        per_mt: [None; 3],
        verdicts: BTreeMap::new(),
        disagreements: 0,
        mismatches: 0,
        inconclusive: 0,
        findings: Vec::new(),
    };
    for &p in procs {
        row.total[p as usize] = Some(median(&mut totals[p as usize]));
        row.per_mt[p as usize] = Some(median(&mut per_mt[p as usize]));
    }
    for (item, vs) in set.items.iter().zip(&verdicts) {
        let as_v = vs[Procedure::As as usize].as_ref().expect("AS ran");
        *row.verdicts.entry(label(model, as_v)).or_default() += 1;
        let got: Vec<(Procedure, &Verdict)> = procs
            .iter()
            .filter_map(|&p| vs[p as usize].as_ref().map(|v| (p, v)))
            .collect();
        if got.iter().any(|(_, v)| v.kind == VerdictKind::Inconclusive) {
            row.inconclusive += 1;
        }
        let definite: Vec<&(Procedure, &Verdict)> = got
            .iter()
            .filter(|(_, v)| v.kind != VerdictKind::Inconclusive)
            .collect();
        if definite.windows(2).any(|w| w[0].1.kind != w[1].1.kind) {
            row.disagreements += 1;
            row.findings.push(Finding::Disagreement {
                item: item.name.clone(),
                mode: item.mode,
                verdicts: got.iter().map(|(p, v)| (*p, label(model, v))).collect(),
            });
        }
        if let Some(expected) = &item.expected {
            let got_reason = reason_label(model, as_v);
            if as_v.kind != VerdictKind::Inconclusive
                && (as_v.kind != expected.verdict || got_reason != expected.reason_label())
            {
                row.mismatches += 1;
                row.findings.push(Finding::Mismatch {
                    item: item.name.clone(),
                    expected: expected.verdict,
                    expected_reason: expected.reason_label().to_string(),
                    got: as_v.kind,
                    got_reason,
                });
            }
        }
    }
    Ok(row)
}

/// `Pass`, `WeakPass`, `Inconclusive`, or `Fail/REASON` with the reason as the manifest
/// writes it.
fn label(model: &CompiledModel, v: &Verdict) -> String {
    match v.kind {
        VerdictKind::Fail => format!("Fail/{}", reason_label(model, v)),
        k => k.name().to_string(),
    }
}

fn mode_name(m: Mode) -> &'static str {
    crate::manifest::mode_name(m)
}

/// The median (the mean of the two middle values for an even count; 0 for none).
fn median(v: &mut [f64]) -> f64 {
    if v.is_empty() {
        return 0.0;
    }
    v.sort_by(f64::total_cmp);
    let n = v.len();
    if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    }
}

fn ratio(a: Option<f64>, b: Option<f64>) -> Option<f64> {
    match (a, b) {
        (Some(a), Some(b)) if b > 0.0 => Some(a / b),
        _ => None,
    }
}
