//! `multitrace check`: loads (or compiles) the model once, then checks every multitrace file in
//! parallel and prints the results in input order.

use crate::{CheckArgs, FormatArg, ModeArg, ProcedureArg};
use anyhow::{bail, Context, Result};
use multitrace_compiler::syntax::read_text;
use multitrace_runtime::check::explore::{Budget, ExploreOptions, CHECK_STACK_SIZE};
use multitrace_runtime::check::{CheckOptions, Choice, Engine, Procedure, Scratch};
use multitrace_runtime::model::CompiledModel;
use multitrace_runtime::syntax::{parse_htf, parse_mtf};
use multitrace_runtime::verdict::{Mode, Reason, Sym, Verdict, VerdictKind};
use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// A checked multitrace: verdict, procedure, names of its components.
type Checked = (Verdict, Procedure, Vec<String>);

/// The result for one multitrace file.
struct Record {
    path: PathBuf,
    outcome: std::result::Result<Checked, String>,
    time: Duration,
}

/// Runs `check`; returns the exit status.
pub fn check(args: CheckArgs) -> Result<u8> {
    let model = crate::model_cmd::load(&args.model, &args.model_args)?;
    if let Some(false) = model.signature().map(|_| has_signature_file(&args)) {
        eprintln!(
            "multitrace: note: no signature file found for {}; lifelines and messages inferred from the interaction",
            args.model.display()
        );
    }
    let files = collect_traces(&args.traces)?;
    let budget = Budget {
        max_vertices: (args.max_vertices > 0).then_some(args.max_vertices),
        timeout: (args.timeout_ms > 0).then(|| Duration::from_millis(args.timeout_ms)),
    };
    let mode = match args.mode {
        ModeArg::Complete => Mode::Complete,
        ModeArg::Prefix => Mode::Prefix,
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
        },
        budget,
    };
    let engine = Engine::new(model);
    // A procedure that cannot run on this model is a usage error, before any trace is read.
    if let Err(e) = engine.check_letters(
        &mut engine.scratch(),
        &vec![Vec::new(); engine.model().alphabet.locations()],
        &opts,
    ) {
        bail!("{e}");
    }
    let jobs = args
        .jobs
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
        .clamp(1, 256);
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    let mut summary = Summary::default();
    run_parallel(&engine, &files, &opts, jobs, |rec| {
        summary.add(&rec);
        print_record(&mut out, &rec, engine.model(), args.format)
    })?;
    if args.format == FormatArg::Text {
        summary.print(&mut out)?;
    }
    out.flush()?;
    Ok(summary.exit_code())
}

fn has_signature_file(args: &CheckArgs) -> bool {
    args.model_args.signature.is_some()
        || args.model.extension().is_some_and(|e| e != "hif")
        || multitrace_compiler::syntax::find_signature(&args.model).is_some()
}

/// Trace files: files as given, directories searched recursively for `*.htf` and `*.mtf`
/// (sorted).
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
        } else if path.extension().is_some_and(|e| e == "htf" || e == "mtf") {
            out.push(path);
        }
    }
    Ok(())
}

/// Checks `files` on `jobs` threads, each with its own scratch state, and hands the records to
/// `sink` in input order.
fn run_parallel(
    engine: &Engine,
    files: &[PathBuf],
    opts: &CheckOptions,
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
                    let mut scratch = engine.scratch();
                    loop {
                        let i = next.fetch_add(1, Ordering::Relaxed);
                        let Some(path) = files.get(i) else { break };
                        let rec = check_one(engine, &mut scratch, path, opts);
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

fn check_one(engine: &Engine, scratch: &mut Scratch, path: &Path, opts: &CheckOptions) -> Record {
    let start = Instant::now();
    let outcome = check_file(engine, scratch, path, opts);
    Record {
        path: path.to_path_buf(),
        outcome,
        time: start.elapsed(),
    }
}

fn check_file(
    engine: &Engine,
    scratch: &mut Scratch,
    path: &Path,
    opts: &CheckOptions,
) -> std::result::Result<Checked, String> {
    let text = read_text(path).map_err(|e| e.to_string())?;
    let file = path.display().to_string();
    let model = engine.model();
    if path.extension().is_some_and(|e| e == "mtf") {
        let traces = parse_mtf(&file, &text, &model.alphabet).map_err(|e| e.to_string())?;
        let names = model.alphabet.location_names().to_vec();
        let (v, p) = engine
            .check_letters(scratch, &traces, opts)
            .map_err(|e| format!("{file}: {e}"))?;
        return Ok((v, p, names));
    }
    let Some(sig) = model.signature() else {
        return Err(format!(
            "{file}: this model is a raw automaton; give its multitraces as .mtf files"
        ));
    };
    let (mt, htf_names) = parse_htf(&file, &text, sig).map_err(|e| e.to_string())?;
    let (v, p) = engine
        .check_multitrace(scratch, &mt, opts)
        .map_err(|e| format!("{file}: {e}"))?;
    // Term exploration reports components of the file; AC/AS the model's locations.
    let names = if p == Procedure::Term {
        htf_names
    } else {
        model.alphabet.location_names().to_vec()
    };
    Ok((v, p, names))
}

/// Renders what a model expected.
fn render(model: &CompiledModel) -> impl Fn(Sym) -> String + '_ {
    move |s| match s {
        Sym::Action(a) => model
            .signature()
            .map(|sig| sig.action_to_string(a))
            .unwrap_or_default(),
        Sym::Letter(l) => model.alphabet.name(l).to_string(),
    }
}

fn print_record(
    out: &mut impl Write,
    rec: &Record,
    model: &CompiledModel,
    format: FormatArg,
) -> std::io::Result<()> {
    let path = rec.path.display().to_string();
    let render = render(model);
    match (&rec.outcome, format) {
        (Err(e), _) => {
            eprintln!("multitrace: {e}");
            Ok(())
        }
        (Ok((v, _, names)), FormatArg::Text) => {
            let why = v.explain(&render, names);
            if why.is_empty() {
                writeln!(out, "{path}: {}", v.kind)
            } else {
                writeln!(out, "{path}: {} ({why})", v.kind)
            }
        }
        (Ok((v, p, names)), FormatArg::Jsonl) => {
            let mut obj = serde_json::Map::new();
            obj.insert("trace".into(), path.into());
            obj.insert("verdict".into(), v.kind.name().into());
            obj.insert("procedure".into(), p.name().into());
            let reason = v.reason.as_ref().map(Reason::name);
            obj.insert("reason".into(), reason.into());
            let location = match &v.reason {
                Some(Reason::LocalError { location, .. }) => names.get(location.index()).cloned(),
                _ => None,
            };
            obj.insert("location".into(), location.into());
            if let Some(Reason::LocalError {
                position, expected, ..
            }) = &v.reason
            {
                obj.insert("position".into(), (*position as u64).into());
                let e: Vec<String> = expected.iter().map(|&s| render(s)).collect();
                obj.insert("expected".into(), e.into());
            }
            if let Some(f) = &v.furthest {
                obj.insert("consumed".into(), f.consumed.clone().into());
                let e: Vec<String> = f.expected.iter().map(|&s| render(s)).collect();
                obj.insert("expected".into(), e.into());
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
            Ok((v, _, _)) => *self.counts.entry(v.kind).or_default() += 1,
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
