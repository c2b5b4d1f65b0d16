//! `multitrace check`: reads the model once, then checks every multitrace file in parallel and
//! prints the results in input order.

use crate::{CheckArgs, FormatArg, ModeArg};
use anyhow::{bail, Context, Result};
use multitrace_compiler::syntax::{read_interaction, read_text, InteractionModel};
use multitrace_runtime::check::explore::{explore, Budget, ExploreOptions, CHECK_STACK_SIZE};
use multitrace_runtime::syntax::parse_htf;
use multitrace_runtime::verdict::{render_with_signature, Mode, Reason, Verdict, VerdictKind};
use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// The result for one multitrace file.
struct Record {
    path: PathBuf,
    outcome: std::result::Result<(Verdict, Vec<String>), String>,
    time: Duration,
}

/// Runs `check`; returns the exit status.
pub fn check(args: CheckArgs) -> Result<u8> {
    let model = read_interaction(&args.model, args.signature.as_deref())?;
    if model.signature_file.is_none() {
        eprintln!(
            "multitrace: note: no signature file found for {}; lifelines and messages inferred from the interaction",
            args.model.display()
        );
    }
    let files = collect_traces(&args.traces)?;
    let opts = ExploreOptions {
        mode: match args.mode {
            ModeArg::Complete => Mode::Complete,
            ModeArg::Prefix => Mode::Prefix,
        },
        por: !args.no_por,
        loc: !args.no_loc,
        memo: !args.no_memo,
        budget: Budget {
            max_vertices: (args.max_vertices > 0).then_some(args.max_vertices),
            timeout: (args.timeout_ms > 0).then(|| Duration::from_millis(args.timeout_ms)),
        },
    };
    let jobs = args
        .jobs
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
        .clamp(1, 256);
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    let mut summary = Summary::default();
    run_parallel(&model, &files, &opts, jobs, |rec| {
        summary.add(&rec);
        print_record(&mut out, &rec, &model, args.format)
    })?;
    if args.format == FormatArg::Text {
        summary.print(&mut out)?;
    }
    out.flush()?;
    Ok(summary.exit_code())
}

/// Trace files: files as given, directories searched recursively for `*.htf` (sorted).
fn collect_traces(paths: &[PathBuf]) -> Result<Vec<PathBuf>> {
    let mut files = Vec::new();
    for p in paths {
        if p.is_dir() {
            let mut found = Vec::new();
            walk(p, &mut found)?;
            found.sort();
            files.extend(found);
        } else if p.exists() {
            files.push(p.clone());
        } else {
            bail!("{}: no such file or directory", p.display());
        }
    }
    Ok(files)
}

fn walk(dir: &Path, out: &mut Vec<PathBuf>) -> Result<()> {
    let entries = std::fs::read_dir(dir)
        .with_context(|| format!("{}: cannot read directory", dir.display()))?;
    for entry in entries {
        let path = entry?.path();
        if path.is_dir() {
            walk(&path, out)?;
        } else if path.extension().is_some_and(|e| e == "htf") {
            out.push(path);
        }
    }
    Ok(())
}

/// Checks `files` on `jobs` threads, each with its own copy of the term store, and hands the
/// records to `sink` in input order.
fn run_parallel(
    model: &InteractionModel,
    files: &[PathBuf],
    opts: &ExploreOptions,
    jobs: usize,
    mut sink: impl FnMut(Record) -> std::io::Result<()>,
) -> Result<()> {
    let next = AtomicUsize::new(0);
    // Bounded so that a slow consumer holds back the workers instead of buffering results.
    let (tx, rx) = mpsc::sync_channel::<(usize, Record)>(jobs * 16);
    std::thread::scope(|scope| -> Result<()> {
        for _ in 0..jobs.min(files.len().max(1)) {
            let tx = tx.clone();
            let next = &next;
            std::thread::Builder::new()
                .stack_size(CHECK_STACK_SIZE)
                .spawn_scoped(scope, move || {
                    let mut store = model.store.clone();
                    loop {
                        let i = next.fetch_add(1, Ordering::Relaxed);
                        let Some(path) = files.get(i) else { break };
                        let rec = check_one(model, &mut store, path, opts);
                        if tx.send((i, rec)).is_err() {
                            break;
                        }
                    }
                })
                .context("cannot start a worker thread")?;
        }
        drop(tx);
        let mut pending = BTreeMap::new();
        let mut expected = 0;
        for (i, rec) in rx {
            pending.insert(i, rec);
            while let Some(rec) = pending.remove(&expected) {
                sink(rec)?;
                expected += 1;
            }
        }
        Ok(())
    })
}

fn check_one(
    model: &InteractionModel,
    store: &mut multitrace_runtime::term::TermStore,
    path: &Path,
    opts: &ExploreOptions,
) -> Record {
    let start = Instant::now();
    let outcome = read_text(path)
        .map_err(|e| e.to_string())
        .and_then(|text| {
            parse_htf(&path.display().to_string(), &text, &model.signature)
                .map_err(|e| e.to_string())
        })
        .map(|(mt, names)| (explore(store, model.root, &mt, opts), names));
    Record {
        path: path.to_path_buf(),
        outcome,
        time: start.elapsed(),
    }
}

fn print_record(
    out: &mut impl Write,
    rec: &Record,
    model: &InteractionModel,
    format: FormatArg,
) -> std::io::Result<()> {
    let path = rec.path.display().to_string();
    match (&rec.outcome, format) {
        (Err(e), _) => {
            eprintln!("multitrace: {e}");
            Ok(())
        }
        (Ok((v, names)), FormatArg::Text) => {
            let why = v.explain(&render_with_signature(&model.signature), names);
            if why.is_empty() {
                writeln!(out, "{path}: {}", v.kind)
            } else {
                writeln!(out, "{path}: {} ({why})", v.kind)
            }
        }
        (Ok((v, names)), FormatArg::Jsonl) => {
            let mut obj = serde_json::Map::new();
            obj.insert("trace".into(), path.into());
            obj.insert("verdict".into(), v.kind.name().into());
            obj.insert("procedure".into(), "term".into());
            let reason = v.reason.as_ref().map(Reason::name);
            obj.insert("reason".into(), reason.into());
            let location = match &v.reason {
                Some(Reason::LocalError { location, .. }) => names.get(location.index()).cloned(),
                _ => None,
            };
            obj.insert("location".into(), location.into());
            if let Some(f) = &v.furthest {
                obj.insert("consumed".into(), f.consumed.clone().into());
                let expected: Vec<String> = f
                    .expected
                    .iter()
                    .map(|&a| render_with_signature(&model.signature)(a))
                    .collect();
                obj.insert("expected".into(), expected.into());
            }
            obj.insert("vertices".into(), v.vertices.into());
            obj.insert("time_us".into(), (rec.time.as_micros() as u64).into());
            writeln!(out, "{}", serde_json::Value::Object(obj))
        }
    }
}

/// Counts per verdict and timing.
#[derive(Default)]
struct Summary {
    counts: BTreeMap<VerdictKind, usize>,
    errors: usize,
    times: Vec<Duration>,
}

impl Summary {
    fn add(&mut self, rec: &Record) {
        match &rec.outcome {
            Ok((v, _)) => *self.counts.entry(v.kind).or_default() += 1,
            Err(_) => self.errors += 1,
        }
        self.times.push(rec.time);
    }

    fn print(&mut self, out: &mut impl Write) -> std::io::Result<()> {
        let total: Duration = self.times.iter().sum();
        self.times.sort();
        let median = self
            .times
            .get(self.times.len() / 2)
            .copied()
            .unwrap_or_default();
        let mut parts: Vec<String> = self
            .counts
            .iter()
            .map(|(k, n)| format!("{n} {k}"))
            .collect();
        if self.errors > 0 {
            parts.push(format!("{} input errors", self.errors));
        }
        writeln!(
            out,
            "{} multitraces: {}; total {:.3} s, median {:.3} ms",
            self.times.len(),
            if parts.is_empty() {
                "none".to_string()
            } else {
                parts.join(", ")
            },
            total.as_secs_f64(),
            median.as_secs_f64() * 1e3
        )
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
