//! `multitrace check`: loads (or compiles) the model once, then checks every multitrace on the
//! runtime's batch API ([`multitrace_runtime::batch`]: parallel, streamed, bounded memory,
//! records in input order) and prints the records, the summary and the `--expect` report.
//!
//! This module maps the arguments, prints and chooses the exit status; reading inputs and
//! checking them is the library's.

use crate::{CheckArgs, ColorArg, FormatArg, ModeArg, ProcedureArg};
use anyhow::{bail, Result};
use multitrace_runtime::batch::{collect_traces, Batch, BatchOptions, Outcome, RunError};
use multitrace_runtime::check::explore::{Budget, ExploreOptions};
use multitrace_runtime::check::{CheckOptions, Choice, Engine, Procedure};
use multitrace_runtime::manifest::Expectations;
use multitrace_runtime::record::Record;
use multitrace_runtime::syntax::read_text;
use multitrace_runtime::verdict::{Mode, VerdictKind};
use std::collections::BTreeMap;
use std::io::{IsTerminal, Write};
use std::path::Path;
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// Runs `check`; returns the exit status.
pub fn check(args: CheckArgs) -> Result<u8> {
    if args.jobs == Some(0) {
        bail!("--jobs 0: at least one worker thread is needed; give --jobs N with N >= 1, or leave it out for one per core");
    }
    let model = crate::model_cmd::load(&args.model, &args.model_args)?;
    let mode = match args.mode {
        ModeArg::Complete => Mode::Complete,
        ModeArg::Prefix => Mode::Prefix,
    };
    let expect = match &args.expect {
        Some(path) => Some(read_expectations(path, mode)?),
        None => None,
    };
    let files = collect_traces(&args.traces, &mut |note| {
        eprintln!("multitrace: note: {note}")
    })?;
    let budget = Budget {
        max_vertices: (args.max_vertices > 0).then_some(args.max_vertices),
        timeout: (args.timeout_ms > 0).then(|| Duration::from_millis(args.timeout_ms)),
    };
    let opts = CheckOptions {
        mode,
        choice: match args.procedure {
            ProcedureArg::Auto => Choice::Auto,
            ProcedureArg::Ac => Choice::Force(Procedure::Ac),
            ProcedureArg::As => Choice::Force(Procedure::As),
            ProcedureArg::Term => Choice::Force(Procedure::Term),
        },
        explore: ExploreOptions {
            mode,
            por: !args.no_por,
            loc: !args.no_loc,
            memo: !args.no_memo,
            budget,
            witness: args.witness,
        },
        budget,
        witness: args.witness,
        diagnosis: (!args.no_diagnosis).then_some(Budget {
            max_vertices: (args.max_diagnosis_vertices > 0).then_some(args.max_diagnosis_vertices),
            timeout: budget.timeout,
        }),
    };
    let engine = Engine::new(model);
    let jobs = args
        .jobs
        .unwrap_or_else(multitrace_runtime::batch::default_jobs);
    let options = BatchOptions {
        jobs,
        max_line_bytes: args.max_line_bytes,
        ..BatchOptions::default()
    };
    let progress = Mutex::new(
        (!args.no_progress && std::io::stderr().is_terminal()).then(|| Progress {
            last: Instant::now(),
            shown: false,
        }),
    );
    let batch = Batch::new(&engine, opts, options).with_progress(|p| {
        if let Some(bar) = progress.lock().unwrap_or_else(|e| e.into_inner()).as_mut() {
            bar.tick(p.done, p.total);
        }
    });
    // A procedure that cannot run on this model is a usage error, before any trace is read.
    if let Err(e) = batch.validate() {
        bail!("{e}");
    }
    let stdout = std::io::stdout();
    let color = match args.color {
        ColorArg::Always => true,
        ColorArg::Never => false,
        ColorArg::Auto => {
            std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty()) && stdout.is_terminal()
        }
    };
    let mut out = std::io::BufWriter::new(stdout.lock());
    let mut summary = Summary::default();
    let mut checker = expect.map(|e| Checker {
        seen: vec![false; e.rows.len()],
        expect: e,
        mismatches: 0,
        unexpected: 0,
    });
    let model_name = args.model.display().to_string();
    let mut report = crate::report_cmd::open(&args, engine.model())?;
    let sink = |done: Outcome| {
        if done.fallback && summary.fallbacks == 0 {
            eprintln!(
                "multitrace: note: {}: its components are not the locations {} was compiled with, so it is checked by term exploration (AC and AS need the compiled locations); further fallbacks are counted in the summary",
                done.record.name(),
                model_name
            );
        }
        summary.add(&done);
        if let Some(c) = &mut checker {
            c.check(&done.record);
        }
        if let Some(r) = &mut report {
            r.add(&done.record).map_err(std::io::Error::other)?;
        }
        print_record(&mut out, &done.record, args.format, args.quiet, color)
    };
    // --events: event logs grouped by run (multitrace_runtime::events), one record per run.
    let run = if args.events.is_empty() {
        batch.run(files, sink)
    } else {
        use multitrace_runtime::events::{run_events, EventFormat, EventOptions};
        let opts = EventOptions {
            run_field: args.run_field.clone(),
            action_field: args.action_field.clone(),
            order_field: args.order_field.clone(),
            format: args.events_format.as_deref().map(|f| match f {
                "csv" => EventFormat::Csv,
                _ => EventFormat::Jsonl,
            }),
            sorted: args.events_sorted,
            max_buffered_events: args.max_buffered_events,
            max_line_bytes: args.max_line_bytes,
        };
        match run_events(&batch, &args.events, &opts, sink) {
            Ok(Err(e)) => bail!("{e}"),
            Ok(Ok(_)) => Ok(()),
            Err(e) => Err(e),
        }
    };
    if let Some(p) = progress.lock().unwrap_or_else(|e| e.into_inner()).as_mut() {
        p.clear();
    }
    match run {
        Ok(()) => {}
        Err(RunError::Sink(e)) => return Err(e.into()),
        Err(e) => bail!("{e}"),
    }
    if summary.count() == 0 {
        let inputs: Vec<String> = args
            .traces
            .iter()
            .chain(&args.events)
            .map(|p| match p.to_str() {
                Some("-") => "<stdin>".to_string(),
                _ => p.display().to_string(),
            })
            .collect();
        bail!(
            "no multitraces found in {}: expected .htf or .mtf files, JSON Lines (.jsonl, `-`) with one multitrace per line, or directories holding them",
            inputs.join(", ")
        );
    }
    if args.format == FormatArg::Text {
        writeln!(out, "{}", summary.line())?;
    }
    out.flush()?;
    crate::report_cmd::finish(report, &batch)?;
    let mut code = summary.exit_code();
    if let Some(c) = &checker {
        if c.report() && code != 2 {
            code = 1;
        }
    }
    Ok(code)
}

/// Reads `--expect FILE`; rows for another mode are a usage error.
fn read_expectations(path: &Path, mode: Mode) -> Result<Expectations> {
    let text = read_text(path)?;
    let e = Expectations::parse(path, &text)?;
    if let Some(row) = e.rows.iter().find(|r| r.mode.is_some_and(|m| m != mode)) {
        let m = if mode == Mode::Complete {
            "prefix"
        } else {
            "complete"
        };
        bail!(
            "{}:{}: this expected verdict holds in {m} mode, and the check runs in the other one; add --mode {m}",
            path.display(),
            row.line
        );
    }
    Ok(e)
}

/// `--expect`: compares each record with its expected verdict.
struct Checker {
    expect: Expectations,
    seen: Vec<bool>,
    mismatches: usize,
    unexpected: usize,
}

impl Checker {
    fn check(&mut self, r: &Record) {
        let Some(i) = self.expect.find(&r.trace, r.id.as_deref()) else {
            self.unexpected += 1;
            return;
        };
        self.seen[i] = true;
        let row = &self.expect.rows[i];
        let location = r.local_error.as_ref().map(|b| b.location.as_str());
        let ok = row.verdict == r.verdict
            && row
                .reason
                .as_ref()
                .is_none_or(|x| r.reason.as_ref() == Some(x))
            && row
                .location
                .as_ref()
                .is_none_or(|x| location == Some(x.as_str()));
        if !ok {
            self.mismatches += 1;
            let want = match (&row.reason, &row.location) {
                (Some(r), Some(l)) => format!("{} ({r} at {l})", row.verdict),
                (Some(r), None) => format!("{} ({r})", row.verdict),
                _ => row.verdict.clone(),
            };
            let got = match (&r.reason, location) {
                (Some(x), Some(l)) => format!("{} ({x} at {l})", r.verdict),
                (Some(x), None) => format!("{} ({x})", r.verdict),
                _ => r.verdict.clone(),
            };
            eprintln!(
                "multitrace: MISMATCH {}: expected {want} ({}:{}), got {got}",
                r.name(),
                self.expect.dir.join("").display(),
                row.line
            );
        }
    }

    /// Prints the totals; whether anything mismatched.
    fn report(&self) -> bool {
        let missing = self.seen.iter().filter(|s| !**s).count();
        eprintln!(
            "multitrace: --expect: {} of {} checked against an expected verdict, {}{}{}",
            self.seen.len() - missing,
            plural(
                self.seen.len() - missing + self.unexpected,
                "multitrace",
                "multitraces"
            ),
            plural(self.mismatches, "mismatch", "mismatches"),
            if missing > 0 {
                format!(
                    "; {} not found among the inputs",
                    plural(missing, "expected row", "expected rows")
                )
            } else {
                String::new()
            },
            if self.unexpected > 0 {
                format!(
                    "; {} without an expected verdict",
                    plural(self.unexpected, "input", "inputs")
                )
            } else {
                String::new()
            },
        );
        self.mismatches > 0
    }
}

/// `1 multitrace`, `2 multitraces`.
fn plural(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

fn print_record(
    out: &mut impl Write,
    rec: &Record,
    format: FormatArg,
    quiet: bool,
    color: bool,
) -> std::io::Result<()> {
    let kind = rec.verdict_kind();
    if let Some(e) = &rec.error {
        // Also where scripts look for input errors (the record keeps the stream complete).
        eprintln!("multitrace: {}", e.message);
    }
    if quiet && matches!(kind, Some(VerdictKind::Pass | VerdictKind::WeakPass)) {
        return Ok(());
    }
    match format {
        FormatArg::Jsonl => writeln!(out, "{}", rec.to_json()),
        FormatArg::Text => {
            let line = rec.text_line();
            if color {
                // The verdict word only: green, yellow, red, magenta; errors bold red.
                let code = match kind {
                    Some(VerdictKind::Pass) => "32",
                    Some(VerdictKind::WeakPass) => "33",
                    Some(VerdictKind::Fail) => "31",
                    Some(VerdictKind::Inconclusive) => "35",
                    None => "1;31",
                };
                let name = rec.name();
                let rest = &line[name.len() + 2 + rec.verdict.len()..];
                writeln!(out, "{name}: \x1b[{code}m{}\x1b[0m{rest}", rec.verdict)?;
            } else {
                writeln!(out, "{line}")?;
            }
            if let Some(w) = &rec.witness {
                writeln!(out, "  witness: {}", w.join(" "))?;
            }
            Ok(())
        }
    }
}

/// A progress line on standard error (terminal only).
struct Progress {
    last: Instant,
    shown: bool,
}

impl Progress {
    fn tick(&mut self, done: usize, total: Option<usize>) {
        if self.last.elapsed() < Duration::from_millis(100) {
            return;
        }
        self.last = Instant::now();
        self.shown = true;
        let line = match total {
            Some(t) if t > 0 => {
                let filled = done * 30 / t;
                format!(
                    "[{}{}] {done}/{t}",
                    "=".repeat(filled),
                    " ".repeat(30 - filled.min(30))
                )
            }
            _ => format!("{done} checked"),
        };
        eprint!("\r{line}");
    }
    fn clear(&mut self) {
        if self.shown {
            eprint!("\r{}\r", " ".repeat(60));
        }
    }
}

/// Counts per verdict and reason, and timing.
#[derive(Default)]
struct Summary {
    counts: BTreeMap<VerdictKind, usize>,
    reasons: BTreeMap<(VerdictKind, String), usize>,
    errors: usize,
    fallbacks: usize,
    times: Vec<Duration>,
}

/// A duration with a unit that suits it, to three significant digits: `850 ns`, `12.3 µs`,
/// `4.56 ms`, `123 s`.
fn human(d: Duration) -> String {
    let ns = d.as_nanos() as f64;
    let (x, unit) = if ns < 1e3 {
        (ns, "ns")
    } else if ns < 1e6 {
        (ns / 1e3, "µs")
    } else if ns < 1e9 {
        (ns / 1e6, "ms")
    } else {
        (ns / 1e9, "s")
    };
    let decimals = if unit == "ns" || x >= 100.0 {
        0
    } else if x < 10.0 {
        2
    } else {
        1
    };
    format!("{x:.decimals$} {unit}")
}

impl Summary {
    fn count(&self) -> usize {
        self.times.len()
    }

    fn add(&mut self, done: &Outcome) {
        let rec = &done.record;
        match rec.verdict_kind() {
            Some(k) => {
                *self.counts.entry(k).or_default() += 1;
                if let Some(r) = &rec.reason {
                    *self.reasons.entry((k, r.clone())).or_default() += 1;
                }
            }
            None => self.errors += 1,
        }
        self.fallbacks += usize::from(done.fallback);
        self.times.push(Duration::from_micros(rec.time_us));
    }

    /// `10 multitraces: 4 Pass, 2 WeakPass, 4 Fail (3 CentralError, 1 LocalError); total
    /// 1.234 ms, median 141.000 µs`.
    fn line(&mut self) -> String {
        let total: Duration = self.times.iter().sum();
        self.times.sort();
        let median = self
            .times
            .get(self.times.len() / 2)
            .copied()
            .unwrap_or_default();
        let mut parts: Vec<String> = Vec::new();
        for (k, n) in &self.counts {
            let reasons: Vec<String> = self
                .reasons
                .iter()
                .filter(|((kind, _), _)| kind == k)
                .map(|((_, r), m)| format!("{m} {r}"))
                .collect();
            if reasons.is_empty() {
                parts.push(format!("{n} {k}"));
            } else {
                parts.push(format!("{n} {k} ({})", reasons.join(", ")));
            }
        }
        if self.errors > 0 {
            parts.push(format!("{} Error", self.errors));
        }
        let mut line = format!(
            "{}: {}; total {}, median {}",
            plural(self.times.len(), "multitrace", "multitraces"),
            if parts.is_empty() {
                "none".to_string()
            } else {
                parts.join(", ")
            },
            human(total),
            human(median)
        );
        if self.fallbacks > 0 {
            line.push_str(&format!(
                "; {} checked by term exploration (components are not the compiled locations)",
                self.fallbacks
            ));
        }
        line
    }

    fn exit_code(&self) -> u8 {
        let n = |k| self.counts.get(&k).copied().unwrap_or(0);
        if self.errors > 0 {
            2
        } else if n(VerdictKind::Fail) > 0 {
            1
        } else if n(VerdictKind::Inconclusive) > 0 {
            3
        } else {
            0
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_have_a_suitable_unit() {
        let h = |ns: u64| human(Duration::from_nanos(ns));
        assert_eq!(h(850), "850 ns");
        assert_eq!(h(12_345), "12.3 µs");
        assert_eq!(h(4_560_000), "4.56 ms");
        assert_eq!(h(123_000_000_000), "123 s");
        assert_eq!(h(0), "0 ns");
    }
}
