//! `gen` and `compare`.
//!
//! `gen` writes checked multitraces of one category (see `multitrace_compiler::generate`) as
//! `KIND-0001.htf|mtf` files or one `KIND.jsonl`, and records each one's verdict in the
//! directory's `manifest.tsv` (rows of other categories are kept, so several categories can
//! share a directory). `--seed` seeds both the generation and `--random-locations`.
//!
//! `compare` runs AC and AS (and term exploration) on generated sets and prints a table shaped
//! like seed 004's Table 1.

use crate::{ModeArg, ModelArgs};
use anyhow::{bail, Context, Result};
use clap::{Args, ValueEnum};
use multitrace_compiler::generate::{
    generate, reason_label, render_htf, render_mtf, GenError, GenOptions, Generation, Kind,
};
use multitrace_compiler::project::project_all;
use multitrace_compiler::syntax::read_text;
use multitrace_runtime::check::explore::Budget;
use multitrace_runtime::check::{CheckOptions, Choice, Engine, Procedure};
use multitrace_runtime::model::CompiledModel;
use multitrace_runtime::nfa::LetterId;
use multitrace_runtime::syntax::{parse_htf, parse_jsonl_line, parse_mtf, NameIndex};
use multitrace_runtime::verdict::{Mode, Verdict, VerdictKind};
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::time::Instant;

/// Category of generated multitraces.
#[derive(Clone, Copy, ValueEnum)]
pub enum KindArg {
    /// Accepted runs of the NFA projected on the locations (Pass, complete mode).
    Pass,
    /// A correct multitrace with local mutations (AS: LocalError, complete mode).
    LocalError,
    /// Local traces mixed from correct multitraces (AS: InterError, complete mode).
    InterError,
    /// A cycle iterated a different number of times per location (AS: CentralError, complete
    /// mode).
    CentralError,
    /// Local traces mixed from correct multitraces (AS: CentralError, complete mode).
    CentralErrorMixed,
    /// A multi-prefix of an accepted multitrace (WeakPass, prefix mode).
    Prefix,
    /// A multi-prefix with a random action inserted (any verdict, prefix mode).
    Noise,
    /// A multi-prefix with two actions of a local trace swapped (any verdict, prefix mode).
    SwapActions,
    /// A multi-prefix with one local trace from another multi-prefix (any verdict).
    SwapComponents,
}

impl KindArg {
    fn kind(self) -> Kind {
        match self {
            KindArg::Pass => Kind::Pass,
            KindArg::LocalError => Kind::LocalError,
            KindArg::InterError => Kind::InterError,
            KindArg::CentralError => Kind::CentralError,
            KindArg::CentralErrorMixed => Kind::CentralErrorMixed,
            KindArg::Prefix => Kind::Prefix,
            KindArg::Noise => Kind::Noise,
            KindArg::SwapActions => Kind::SwapActions,
            KindArg::SwapComponents => Kind::SwapComponents,
        }
    }
}

/// File format of generated multitraces.
#[derive(Clone, Copy, ValueEnum, PartialEq, Eq)]
pub enum GenFormat {
    /// HIBOU `.htf`, one component per location (interaction models only).
    Htf,
    /// Seed 004's `.mtf`, one line per location.
    Mtf,
    /// One `KIND.jsonl` file, one multitrace per line.
    Jsonl,
}

/// Arguments of `gen`.
#[derive(Args)]
#[command(
    after_help = "--seed S seeds the generation as well as --random-locations. The same model, options and seed give byte-identical files."
)]
pub struct GenArgs {
    /// The model: an interaction (.hif), a Timbuk automaton (.timbuk) or a compiled model (.mtm).
    model: PathBuf,
    #[command(flatten)]
    model_args: ModelArgs,
    /// Category of the multitraces.
    #[arg(long, value_enum)]
    kind: KindArg,
    /// Number of multitraces.
    #[arg(long, default_value_t = 100)]
    count: usize,
    /// Total length (actions over all locations): MIN..MAX, both included, or N.
    #[arg(long, default_value = "10..20", value_parser = parse_range)]
    length: (usize, usize),
    /// Output directory (created if needed).
    #[arg(short, long)]
    output: PathBuf,
    /// File format (default: htf for interactions, mtf for raw automata).
    #[arg(long, value_enum)]
    format: Option<GenFormat>,
    /// Most candidates to build and check (default: 100 per multitrace + 1000).
    #[arg(long)]
    max_attempts: Option<usize>,
    /// Search-vertex budget per check (0: none); an Inconclusive candidate is never kept.
    #[arg(long, default_value_t = 5_000_000)]
    max_vertices: u64,
    /// Write what was produced when fewer than --count multitraces could be (default: error).
    #[arg(long)]
    allow_fewer: bool,
}

/// Output format of `compare`.
#[derive(Clone, Copy, ValueEnum, PartialEq, Eq)]
pub enum CompareFormat {
    /// A Markdown table and notes.
    Text,
    /// One JSON array of rows.
    Json,
}

/// Arguments of `compare`.
#[derive(Args)]
pub struct CompareArgs {
    /// The model the sets were generated for (with the same location options).
    model: PathBuf,
    /// Directories of multitraces: generated sets (with a manifest.tsv) or any directory of
    /// .htf, .mtf and .jsonl files.
    #[arg(required = true)]
    dirs: Vec<PathBuf>,
    #[command(flatten)]
    model_args: ModelArgs,
    /// Runs per multitrace and procedure; times are medians over the runs.
    #[arg(long, default_value_t = 3)]
    runs: usize,
    /// Output format.
    #[arg(long, value_enum, default_value = "text")]
    format: CompareFormat,
    /// Also time term exploration (interaction models).
    #[arg(long)]
    with_term: bool,
    /// Check every multitrace in this mode (default: the manifest's mode, else complete).
    #[arg(long, value_enum)]
    mode: Option<ModeArg>,
    /// Search-vertex budget per check (0: none).
    #[arg(long, default_value_t = 5_000_000)]
    max_vertices: u64,
}

/// `MIN..MAX` (or `MIN..=MAX`, or `N`) as an inclusive range.
fn parse_range(s: &str) -> std::result::Result<(usize, usize), String> {
    let num = |t: &str| {
        t.trim()
            .parse::<usize>()
            .map_err(|_| format!("`{t}` is not a length; expected MIN..MAX, e.g. 200..250"))
    };
    let (lo, hi) = match s.split_once("..") {
        Some((a, b)) => (num(a)?, num(b.strip_prefix('=').unwrap_or(b))?),
        None => (num(s)?, num(s)?),
    };
    if lo > hi {
        return Err(format!("empty range {lo}..{hi}"));
    }
    Ok((lo, hi))
}

fn mode_name(m: Mode) -> &'static str {
    match m {
        Mode::Complete => "complete",
        Mode::Prefix => "prefix",
    }
}

const MANIFEST: &str = "manifest.tsv";
const MANIFEST_HEADER: &str = "file\tkind\tlength\tverdict\treason\tmode";

/// Runs `gen`; returns the exit status.
pub fn gen(args: GenArgs) -> Result<u8> {
    let model = crate::model_cmd::load(&args.model, &args.model_args)?;
    let interaction = model.signature().is_some();
    let format = args.format.unwrap_or(if interaction {
        GenFormat::Htf
    } else {
        GenFormat::Mtf
    });
    if format == GenFormat::Htf && !interaction {
        bail!("--format htf needs an interaction model; this model is a raw automaton: use mtf or jsonl");
    }
    let kind = args.kind.kind();
    let (min_len, max_len) = args.length;
    let opts = GenOptions {
        max_attempts: args.max_attempts,
        max_vertices: (args.max_vertices > 0).then_some(args.max_vertices),
        ..GenOptions::new(kind, args.count, min_len, max_len, args.model_args.seed)
    };
    let engine = Engine::new(model);
    let generation = match generate(&engine, &opts) {
        Ok(g) => g,
        Err(GenError::Shortfall {
            kind,
            wanted,
            partial,
        }) if args.allow_fewer => {
            eprintln!(
                "multitrace: warning: {}",
                GenError::Shortfall {
                    kind,
                    wanted,
                    partial: partial.clone()
                }
            );
            *partial
        }
        Err(e) => bail!("{e}"),
    };
    write_set(&engine, &generation, kind, format, &args.output)?;
    eprintln!(
        "multitrace: wrote {} `{kind}` multitraces to {} ({} candidates; rejected: {})",
        generation.items.len(),
        args.output.display(),
        generation.attempts,
        generation.rejected_summary()
    );
    Ok(0)
}

/// The file name of item `i` (from 0).
fn item_name(kind: Kind, i: usize) -> String {
    format!("{kind}-{:04}", i + 1)
}

/// Whether `name` is a file `gen` writes for `kind` (`KIND-0001.htf`, `KIND.jsonl`).
fn is_generated_file(name: &str, kind: Kind) -> bool {
    if name == format!("{kind}.jsonl") {
        return true;
    }
    let Some(rest) = name.strip_prefix(&format!("{kind}-")) else {
        return false;
    };
    let Some((num, ext)) = rest.split_once('.') else {
        return false;
    };
    !num.is_empty() && num.bytes().all(|b| b.is_ascii_digit()) && (ext == "htf" || ext == "mtf")
}

/// One JSON Lines line: `{"id": ..., "traces": {"l1": [...], ...}}`, locations in order.
fn jsonl_line(model: &CompiledModel, id: &str, traces: &[Vec<LetterId>]) -> String {
    let q = |s: &str| serde_json::Value::from(s).to_string();
    let mut s = format!("{{\"id\": {}, \"traces\": {{", q(id));
    for (k, name) in model.alphabet.location_names().iter().enumerate() {
        if k > 0 {
            s.push_str(", ");
        }
        let letters: Vec<String> = traces[k]
            .iter()
            .map(|&l| q(model.alphabet.name(l)))
            .collect();
        let _ = write!(s, "{}: [{}]", q(name), letters.join(", "));
    }
    s.push_str("}}\n");
    s
}

/// Writes the files of a generated set and merges its rows into the manifest.
fn write_set(
    engine: &Engine,
    generation: &Generation,
    kind: Kind,
    format: GenFormat,
    dir: &Path,
) -> Result<()> {
    let model = engine.model();
    std::fs::create_dir_all(dir).with_context(|| format!("{}: cannot create", dir.display()))?;
    // Files of an earlier run of this kind would mix with this one: remove them.
    for entry in
        std::fs::read_dir(dir).with_context(|| format!("{}: cannot read", dir.display()))?
    {
        let path = entry?.path();
        let name = path.file_name().map(|n| n.to_string_lossy().into_owned());
        if name.is_some_and(|n| is_generated_file(&n, kind)) && path.is_file() {
            std::fs::remove_file(&path)
                .with_context(|| format!("{}: cannot remove", path.display()))?;
        }
    }
    let mut rows: Vec<String> = Vec::new();
    let mut jsonl = String::new();
    for (i, item) in generation.items.iter().enumerate() {
        let name = item_name(kind, i);
        let file = match format {
            GenFormat::Htf | GenFormat::Mtf => {
                let (file, text) = if format == GenFormat::Htf {
                    (
                        format!("{name}.htf"),
                        render_htf(model, &item.traces).expect("interaction model"),
                    )
                } else {
                    (format!("{name}.mtf"), render_mtf(model, &item.traces))
                };
                let path = dir.join(&file);
                std::fs::write(&path, text)
                    .with_context(|| format!("{}: cannot write", path.display()))?;
                file
            }
            GenFormat::Jsonl => {
                jsonl.push_str(&jsonl_line(model, &name, &item.traces));
                format!("{kind}.jsonl#{name}")
            }
        };
        rows.push(format!(
            "{file}\t{kind}\t{}\t{}\t{}\t{}",
            item.len(),
            item.verdict.kind.name(),
            reason_label(model, &item.verdict),
            mode_name(item.mode)
        ));
    }
    if format == GenFormat::Jsonl {
        let path = dir.join(format!("{kind}.jsonl"));
        std::fs::write(&path, jsonl)
            .with_context(|| format!("{}: cannot write", path.display()))?;
    }
    // Keep the rows of other kinds.
    let manifest = dir.join(MANIFEST);
    if manifest.exists() {
        let text = read_text(&manifest)?;
        for line in text.lines().skip(1) {
            if line.split('\t').nth(1).is_some_and(|k| k != kind.name()) {
                rows.push(line.to_string());
            }
        }
    }
    rows.sort();
    let mut text = String::from(MANIFEST_HEADER);
    text.push('\n');
    for r in rows {
        text.push_str(&r);
        text.push('\n');
    }
    std::fs::write(&manifest, text)
        .with_context(|| format!("{}: cannot write", manifest.display()))?;
    Ok(())
}

/// A multitrace to compare on.
struct Item {
    name: String,
    traces: Vec<Vec<LetterId>>,
    mode: Mode,
    /// The manifest's verdict and reason.
    expected: Option<(String, String)>,
}

/// A set of multitraces (one category of one directory).
struct Set {
    category: String,
    items: Vec<Item>,
}

/// Reads one multitrace file (or `FILE.jsonl#ID`) as letters.
struct Reader<'a> {
    model: &'a CompiledModel,
    names: NameIndex,
    jsonl: BTreeMap<PathBuf, BTreeMap<String, Vec<Vec<LetterId>>>>,
}

impl Reader<'_> {
    fn read(&mut self, path: &Path) -> Result<Vec<Vec<LetterId>>> {
        let file = path.display().to_string();
        let text = read_text(path)?;
        let model = self.model;
        match path.extension().and_then(|e| e.to_str()) {
            Some("mtf") => Ok(parse_mtf(&file, &text, &model.alphabet)?),
            Some("htf") => {
                let Some(sig) = model.signature() else {
                    bail!("{file}: this model is a raw automaton; give .mtf or .jsonl multitraces");
                };
                let (mt, _) = parse_htf(&file, &text, sig)?;
                model
                    .letter_traces(&mt)
                    .map_err(|e| anyhow::anyhow!("{file}: {e}"))
            }
            _ => bail!("{file}: expected a .htf, .mtf or .jsonl file"),
        }
    }

    fn jsonl(&mut self, path: &Path) -> Result<&BTreeMap<String, Vec<Vec<LetterId>>>> {
        if !self.jsonl.contains_key(path) {
            let file = path.display().to_string();
            let text = read_text(path)?;
            let mut lines = BTreeMap::new();
            for (i, line) in text.lines().enumerate() {
                if line.trim().is_empty() {
                    continue;
                }
                let (id, traces) =
                    parse_jsonl_line(&file, i + 1, line, &self.model.alphabet, &self.names)?;
                lines.insert(id, traces);
            }
            self.jsonl.insert(path.to_path_buf(), lines);
        }
        Ok(&self.jsonl[path])
    }
}

/// The sets of one directory: one per category of its manifest, else the directory itself.
fn read_sets(reader: &mut Reader, dir: &Path, mode: Option<Mode>) -> Result<Vec<Set>> {
    let manifest = dir.join(MANIFEST);
    let dir_name = dir.file_name().map_or_else(
        || dir.display().to_string(),
        |n| n.to_string_lossy().into_owned(),
    );
    if manifest.is_file() {
        let text = read_text(&manifest)?;
        let mut sets: Vec<Set> = Vec::new();
        for (i, line) in text.lines().enumerate().skip(1) {
            if line.trim().is_empty() {
                continue;
            }
            let cols: Vec<&str> = line.split('\t').collect();
            let [file, kind, _len, verdict, reason, row_mode] = cols[..] else {
                bail!(
                    "{}:{}: expected 6 tab-separated columns ({})",
                    manifest.display(),
                    i + 1,
                    MANIFEST_HEADER.replace('\t', ", ")
                );
            };
            let item_mode = mode.unwrap_or(if row_mode == "prefix" {
                Mode::Prefix
            } else {
                Mode::Complete
            });
            let traces = match file.split_once('#') {
                Some((f, id)) => {
                    let path = dir.join(f);
                    reader.jsonl(&path)?.get(id).cloned().with_context(|| {
                        format!("{}: no multitrace with id `{id}`", path.display())
                    })?
                }
                None => reader.read(&dir.join(file))?,
            };
            let item = Item {
                name: format!("{}/{file}", dir.display()),
                traces,
                mode: item_mode,
                // A manifest verdict holds for the manifest's mode only.
                expected: (mode.is_none() || mode == Some(item_mode))
                    .then(|| (verdict.to_string(), reason.to_string())),
            };
            match sets.iter_mut().find(|s| s.category == kind) {
                Some(s) => s.items.push(item),
                None => sets.push(Set {
                    category: kind.to_string(),
                    items: vec![item],
                }),
            }
        }
        // Categories in the order of `Kind::ALL` (seed 004's first), others after.
        sets.sort_by_key(|s| Kind::from_name(&s.category).map_or(usize::MAX, |k| k as usize));
        return Ok(sets);
    }
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .with_context(|| format!("{}: cannot read directory", dir.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            p.is_file()
                && p.extension()
                    .is_some_and(|e| e == "htf" || e == "mtf" || e == "jsonl")
        })
        .collect();
    files.sort();
    let mode = mode.unwrap_or(Mode::Complete);
    let mut items = Vec::new();
    for f in files {
        if f.extension().is_some_and(|e| e == "jsonl") {
            for (id, traces) in reader.jsonl(&f)? {
                items.push(Item {
                    name: format!("{}#{id}", f.display()),
                    traces: traces.clone(),
                    mode,
                    expected: None,
                });
            }
        } else {
            items.push(Item {
                name: f.display().to_string(),
                traces: reader.read(&f)?,
                mode,
                expected: None,
            });
        }
    }
    Ok(vec![Set {
        category: dir_name,
        items,
    }])
}

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

/// Measurements of one set.
struct Row {
    category: String,
    count: usize,
    len_min: usize,
    len_max: usize,
    /// Median over the runs of the total time on the set, per procedure (AC, AS, term).
    total: [Option<f64>; 3],
    /// Median time per multitrace over all runs, per procedure.
    per_mt: [Option<f64>; 3],
    /// AS verdicts (with reasons), counted.
    verdicts: BTreeMap<String, usize>,
    disagreements: usize,
    mismatches: usize,
    inconclusive: usize,
}

fn label(model: &CompiledModel, v: &Verdict) -> String {
    match v.kind {
        VerdictKind::Fail => format!("Fail/{}", reason_label(model, v)),
        k => k.name().to_string(),
    }
}

/// Runs `compare`; returns the exit status.
pub fn compare(args: CompareArgs) -> Result<u8> {
    let model = crate::model_cmd::load(&args.model, &args.model_args)?;
    let Some(automata) = model.automata() else {
        bail!("compare runs AC and AS, which need automata; this model is term-only");
    };
    let runs = args.runs.max(1);
    let with_term = args.with_term && model.term().is_some();
    if args.with_term && !with_term {
        eprintln!("multitrace: note: the model has no interaction: --with-term ignored");
    }
    let (states, transitions) = (automata.nfa.states(), automata.nfa.transitions().len());
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
    let setup = median(&mut setup);
    let mode = args.mode.map(|m| match m {
        ModeArg::Complete => Mode::Complete,
        ModeArg::Prefix => Mode::Prefix,
    });
    let mut reader = Reader {
        model: &model,
        names: NameIndex::new(&model.alphabet),
        jsonl: BTreeMap::new(),
    };
    let mut sets = Vec::new();
    for dir in &args.dirs {
        sets.extend(read_sets(&mut reader, dir, mode)?);
    }
    let model_label = format!(
        "{} ({states}, {transitions})",
        args.model
            .file_stem()
            .map_or_else(String::new, |s| s.to_string_lossy().into_owned())
    );
    let engine = Engine::new(model.clone());
    let mut scratch = engine.scratch();
    let budget = Budget {
        max_vertices: (args.max_vertices > 0).then_some(args.max_vertices),
        timeout: None,
    };
    let procs: Vec<Procedure> = if with_term {
        vec![Procedure::Ac, Procedure::As, Procedure::Term]
    } else {
        vec![Procedure::Ac, Procedure::As]
    };
    let mut rows = Vec::new();
    let mut problems = 0usize;
    for set in &sets {
        let n = set.items.len();
        let mut totals: Vec<Vec<f64>> = vec![Vec::new(); 3];
        let mut per_mt: Vec<Vec<f64>> = vec![Vec::new(); 3];
        let mut verdicts: Vec<[Option<Verdict>; 3]> = vec![[None, None, None]; n];
        for run in 0..runs {
            let mut sums = [0.0f64; 3];
            for (i, item) in set.items.iter().enumerate() {
                // Alternate the order so that neither procedure always runs on a warm cache.
                let mut order = procs.clone();
                if run % 2 == 1 {
                    order.reverse();
                }
                for &p in &order {
                    let opts = CheckOptions {
                        mode: item.mode,
                        choice: Choice::Force(p),
                        budget,
                        ..CheckOptions::default()
                    };
                    let t = Instant::now();
                    let (v, _) = engine
                        .check_letters(&mut scratch, &item.traces, &opts)
                        .map_err(|e| anyhow::anyhow!("{}: {e}", item.name))?;
                    let dt = t.elapsed().as_secs_f64();
                    let slot = p as usize;
                    sums[slot] += dt;
                    per_mt[slot].push(dt);
                    if run == 0 {
                        verdicts[i][slot] = Some(v);
                    }
                }
            }
            for &p in &procs {
                totals[p as usize].push(sums[p as usize]);
            }
        }
        let mut row = Row {
            category: set.category.clone(),
            count: n,
            len_min: set
                .items
                .iter()
                .map(|it| len(&it.traces))
                .min()
                .unwrap_or(0),
            len_max: set
                .items
                .iter()
                .map(|it| len(&it.traces))
                .max()
                .unwrap_or(0),
            total: [None; 3],
            per_mt: [None; 3],
            verdicts: BTreeMap::new(),
            disagreements: 0,
            mismatches: 0,
            inconclusive: 0,
        };
        for &p in &procs {
            row.total[p as usize] = Some(median(&mut totals[p as usize]));
            row.per_mt[p as usize] = Some(median(&mut per_mt[p as usize]));
        }
        for (item, vs) in set.items.iter().zip(&verdicts) {
            let as_v = vs[Procedure::As as usize].as_ref().expect("AS ran");
            *row.verdicts.entry(label(&model, as_v)).or_default() += 1;
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
                let all: Vec<String> = got
                    .iter()
                    .map(|(p, v)| format!("{} {}", p.name().to_uppercase(), label(&model, v)))
                    .collect();
                eprintln!(
                    "multitrace: DISAGREEMENT ({} mode) on {}: {}",
                    mode_name(item.mode),
                    item.name,
                    all.join(", ")
                );
            }
            if let Some((verdict, reason)) = &item.expected {
                if as_v.kind != VerdictKind::Inconclusive
                    && (as_v.kind.name() != verdict || &reason_label(&model, as_v) != reason)
                {
                    row.mismatches += 1;
                    eprintln!(
                        "multitrace: MISMATCH with the manifest on {}: manifest {verdict} ({reason}), AS {} ({})",
                        item.name,
                        as_v.kind.name(),
                        reason_label(&model, as_v)
                    );
                }
            }
        }
        problems += row.disagreements + row.mismatches;
        rows.push(row);
    }
    match args.format {
        CompareFormat::Text => print!(
            "{}",
            text_table(&model_label, &rows, setup, with_term, runs)
        ),
        CompareFormat::Json => {
            let arr: Vec<serde_json::Value> = rows
                .iter()
                .map(|r| {
                    serde_json::json!({
                        "model": args.model.display().to_string(),
                        "states": states,
                        "transitions": transitions,
                        "category": r.category,
                        "length_min": r.len_min,
                        "length_max": r.len_max,
                        "count": r.count,
                        "runs": runs,
                        "ac_s": r.total[0],
                        "as_s": r.total[1],
                        "term_s": r.total[2],
                        "setup_s": setup,
                        "as_over_ac": ratio(r.total[1], r.total[0]),
                        "ac_median_per_mt_s": r.per_mt[0],
                        "as_median_per_mt_s": r.per_mt[1],
                        "term_median_per_mt_s": r.per_mt[2],
                        "verdicts": r.verdicts,
                        "disagreements": r.disagreements,
                        "manifest_mismatches": r.mismatches,
                        "inconclusive": r.inconclusive,
                    })
                })
                .collect();
            println!("{}", serde_json::Value::Array(arr));
        }
    }
    if problems > 0 {
        eprintln!(
            "multitrace: {problems} multitrace(s) with disagreeing verdicts (see above): the procedures are inconsistent"
        );
        return Ok(1);
    }
    if rows.iter().any(|r| r.inconclusive > 0) {
        return Ok(3);
    }
    Ok(0)
}

fn len(traces: &[Vec<LetterId>]) -> usize {
    traces.iter().map(Vec::len).sum()
}

fn ratio(a: Option<f64>, b: Option<f64>) -> Option<f64> {
    match (a, b) {
        (Some(a), Some(b)) if b > 0.0 => Some(a / b),
        _ => None,
    }
}

/// `x` with 4 significant digits, in plain decimal notation.
fn sig4(x: f64) -> String {
    if x <= 0.0 || !x.is_finite() {
        return format!("{x}");
    }
    let decimals = (3 - x.log10().floor() as i32).clamp(0, 12) as usize;
    format!("{x:.decimals$}")
}

fn secs(x: Option<f64>) -> String {
    x.map_or_else(|| "-".into(), sig4)
}

/// The Markdown table of `compare` and a line per set with the verdicts.
fn text_table(model: &str, rows: &[Row], setup: f64, with_term: bool, runs: usize) -> String {
    let mut s = String::new();
    let term_h = if with_term { " term (s) |" } else { "" };
    let term_r = if with_term { "---|" } else { "" };
    let _ = writeln!(
        s,
        "| model (states, transitions) | category | length | #MT | AC (s) | AS (s) |{term_h} setup (s) | AS/AC |"
    );
    let _ = writeln!(s, "|---|---|---|---|---|---|{term_r}---|---|");
    for r in rows {
        let term = if with_term {
            format!(" {} |", secs(r.total[2]))
        } else {
            String::new()
        };
        let _ = writeln!(
            s,
            "| {model} | {} | [{}-{}] | {} | {} | {} |{term} {} | {} |",
            r.category,
            r.len_min,
            r.len_max,
            r.count,
            secs(r.total[0]),
            secs(r.total[1]),
            sig4(setup),
            ratio(r.total[1], r.total[0]).map_or_else(
                || "-".into(),
                |x| {
                    if x >= 0.1 {
                        format!("{x:.2}")
                    } else {
                        sig4(x)
                    }
                }
            ),
        );
    }
    let _ = writeln!(
        s,
        "\nTimes: total over the set, median of {runs} run(s); setup: building the local verifiers Proj(A, Σi)."
    );
    for r in rows {
        let v: Vec<String> = r.verdicts.iter().map(|(k, n)| format!("{n} {k}")).collect();
        let mut notes = String::new();
        if r.disagreements > 0 {
            let _ = write!(notes, "; {} DISAGREEMENTS", r.disagreements);
        }
        if r.mismatches > 0 {
            let _ = write!(notes, "; {} manifest mismatches", r.mismatches);
        }
        if r.inconclusive > 0 {
            let _ = write!(notes, "; {} inconclusive", r.inconclusive);
        }
        let _ = writeln!(
            s,
            "{}: AS verdicts {}; AC and AS agree on {}{notes}",
            r.category,
            v.join(", "),
            if r.disagreements == 0 {
                "all".to_string()
            } else {
                format!("{} of {}", r.count - r.disagreements, r.count)
            }
        );
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    fn root() -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).to_path_buf()
    }

    fn scratch(name: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("multitrace-gen-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        d
    }

    fn run(args: &[&str]) -> Result<u8> {
        let mut argv = vec!["multitrace".to_string()];
        argv.extend(args.iter().map(|a| a.to_string()));
        match crate::Cli::try_parse_from(argv).expect("arguments") {
            crate::Cli {
                command: crate::Command::Gen(a),
            } => gen(a),
            crate::Cli {
                command: crate::Command::Compare(a),
            } => compare(a),
            _ => unreachable!(),
        }
    }

    fn files(dir: &Path) -> BTreeMap<String, Vec<u8>> {
        std::fs::read_dir(dir)
            .unwrap()
            .map(|e| {
                let p = e.unwrap().path();
                (
                    p.file_name().unwrap().to_string_lossy().into_owned(),
                    std::fs::read(&p).unwrap(),
                )
            })
            .collect()
    }

    fn gen_into(model: &str, dir: &Path, kind: &str, format: &str, seed: &str) {
        let model = root().join(model);
        let code = run(&[
            "gen",
            model.to_str().unwrap(),
            "--kind",
            kind,
            "--count",
            "12",
            "--length",
            "6..30",
            "--seed",
            seed,
            "--format",
            format,
            "-o",
            dir.to_str().unwrap(),
        ])
        .unwrap();
        assert_eq!(code, 0);
    }

    #[test]
    fn same_seed_gives_byte_identical_files() {
        for (model, format) in [
            ("fixtures/seed004-fig3/model.timbuk", "mtf"),
            ("fixtures/seed004-mqtt/model.hif", "htf"),
            ("fixtures/seed004-mqtt/model.hif", "jsonl"),
        ] {
            let (a, b, c) = (
                scratch(&format!("a-{format}")),
                scratch(&format!("b-{format}")),
                scratch(&format!("c-{format}")),
            );
            for kind in ["pass", "central-error", "swap-actions"] {
                gen_into(model, &a, kind, format, "7");
                gen_into(model, &b, kind, format, "7");
                gen_into(model, &c, kind, format, "8");
            }
            let (fa, fb, fc) = (files(&a), files(&b), files(&c));
            assert_eq!(fa, fb, "{model} {format}");
            assert_ne!(fa, fc, "{model} {format}: another seed, other multitraces");
            let manifest = String::from_utf8(fa["manifest.tsv"].clone()).unwrap();
            assert!(manifest.starts_with(MANIFEST_HEADER));
            // 3 kinds of 12 multitraces share the directory.
            assert_eq!(manifest.lines().count(), 1 + 36, "{manifest}");
            if format != "jsonl" {
                assert!(fa.contains_key(&format!("central-error-0012.{format}")));
            }
            // Regenerating a kind with fewer multitraces leaves no stale file behind.
            let model_path = root().join(model);
            run(&[
                "gen",
                model_path.to_str().unwrap(),
                "--kind",
                "pass",
                "--count",
                "2",
                "--length",
                "6..30",
                "-o",
                a.to_str().unwrap(),
                "--format",
                format,
            ])
            .unwrap();
            let m = std::fs::read_to_string(a.join("manifest.tsv")).unwrap();
            assert_eq!(m.lines().count(), 1 + 26);
            if format != "jsonl" {
                assert!(!a.join(format!("pass-0003.{format}")).exists());
            }
            // compare reads the set back; AC and AS agree and match the manifest.
            let code = run(&[
                "compare",
                model_path.to_str().unwrap(),
                a.to_str().unwrap(),
                "--runs",
                "1",
                "--with-term",
            ])
            .unwrap();
            assert_eq!(code, 0);
            for d in [a, b, c] {
                let _ = std::fs::remove_dir_all(d);
            }
        }
    }

    #[test]
    fn compare_flags_a_verdict_that_contradicts_the_manifest() {
        let dir = scratch("mismatch");
        gen_into(
            "fixtures/seed004-fig3/model.timbuk",
            &dir,
            "pass",
            "mtf",
            "3",
        );
        let model = root().join("fixtures/seed004-fig3/model.timbuk");
        let args = [
            "compare",
            model.to_str().unwrap(),
            dir.to_str().unwrap(),
            "--runs",
            "2",
            "--format",
            "json",
        ];
        assert_eq!(run(&args).unwrap(), 0);
        let manifest = dir.join(MANIFEST);
        let text = std::fs::read_to_string(&manifest).unwrap();
        std::fs::write(&manifest, text.replacen("\tPass\t", "\tFail\t", 1)).unwrap();
        assert_eq!(run(&args).unwrap(), 1);
        // Without a manifest the directory is one set named after it, checked in complete mode.
        std::fs::remove_file(&manifest).unwrap();
        assert_eq!(run(&args).unwrap(), 0);
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn ranges_and_file_names() {
        assert_eq!(parse_range("200..250"), Ok((200, 250)));
        assert_eq!(parse_range("3..=4"), Ok((3, 4)));
        assert_eq!(parse_range("7"), Ok((7, 7)));
        assert!(parse_range("5..4").is_err());
        assert!(parse_range("a..4").is_err());
        assert!(is_generated_file("pass-0001.mtf", Kind::Pass));
        assert!(is_generated_file("pass.jsonl", Kind::Pass));
        assert!(!is_generated_file("pass-0001.txt", Kind::Pass));
        assert!(!is_generated_file("prefix-0001.htf", Kind::Pass));
        assert!(!is_generated_file("manifest.tsv", Kind::Pass));
    }

    #[test]
    fn impossible_categories_are_errors_naming_them() {
        let dir = scratch("impossible");
        let model = root().join("fixtures/seed004-fig3/model.timbuk");
        let err = run(&[
            "gen",
            model.to_str().unwrap(),
            "--kind",
            "pass",
            "--count",
            "3",
            "--length",
            "3",
            "-o",
            dir.to_str().unwrap(),
        ])
        .unwrap_err()
        .to_string();
        assert!(err.contains("cannot generate `pass`"), "{err}");
        assert!(!dir.exists());
    }
}
