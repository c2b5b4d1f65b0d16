//! The user guide's examples (`docs/`, and the README's tour): every command of a `console`
//! block runs from the repository root and prints what the block shows, times and sizes masked. The
//! convention is in `docs/README.md`.

use super::*;

/// One command of a `console` block and the output shown after it.
struct Example {
    /// `FILE:LINE` of the command, for failure messages.
    at: String,
    /// The block's number in its page: commands of one block share a temporary directory.
    block: usize,
    command: String,
    shown: Vec<String>,
}

/// The Markdown files of the guide (every `.md` under `docs/`) and the README.
fn pages() -> Vec<PathBuf> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        let mut entries: Vec<_> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        entries.sort();
        for p in entries {
            if p.is_dir() {
                walk(&p, out);
            } else if p.extension().is_some_and(|e| e == "md") {
                out.push(p);
            }
        }
    }
    let mut out = vec![root().join("README.md")];
    walk(&root().join("docs"), &mut out);
    out
}

/// The commands of the `console` blocks of one page. A line starting with `$ ` that is not a
/// `multitrace` command is refused: the test would not run it.
fn examples(page: &Path) -> Vec<Example> {
    let text = std::fs::read_to_string(page).unwrap();
    let name = page.strip_prefix(root()).unwrap().display().to_string();
    let mut out: Vec<Example> = Vec::new();
    let mut in_console = false;
    let mut in_other = false;
    let mut block = 0;
    for (i, line) in text.lines().enumerate() {
        let fence = line.trim_start().starts_with("```");
        if in_console {
            if fence {
                in_console = false;
            } else if let Some(cmd) = line.strip_prefix("$ ") {
                assert!(
                    cmd.starts_with("multitrace "),
                    "{name}:{}: a console block runs only `multitrace` commands",
                    i + 1
                );
                out.push(Example {
                    at: format!("{name}:{}", i + 1),
                    block,
                    command: cmd.to_string(),
                    shown: Vec::new(),
                });
            } else {
                let last = out
                    .last_mut()
                    .unwrap_or_else(|| panic!("{name}:{}: output before any command", i + 1));
                last.shown.push(line.to_string());
            }
        } else if in_other {
            in_other = !fence;
        } else if fence {
            if line.trim_start() == "```console" {
                in_console = true;
                block += 1;
            } else {
                in_other = true;
            }
        }
    }
    out
}

/// Replaces times (`70.0 µs`, `0.401 ms`, `12.6 s`, `"time_us":176`) and sizes in bytes by `T`.
pub(crate) fn mask_times(line: &str) -> String {
    // A compiled model's size depends on the absolute path it records.
    let units = ["ns", "µs", "us", "ms", "s", "bytes"];
    let mut out = String::new();
    let mut rest = line;
    while let Some(pos) = rest.find(|c: char| c.is_ascii_digit()) {
        let (before, from) = rest.split_at(pos);
        // A number belonging to a word (`pass-0001`, `k5`) is not a time.
        let glued = before
            .chars()
            .last()
            .is_some_and(|c| c.is_alphanumeric() || c == '_' || c == '-');
        let len = from
            .find(|c: char| !(c.is_ascii_digit() || c == '.' || c == ','))
            .unwrap_or(from.len());
        let (number, after) = from.split_at(len);
        let unit = after.strip_prefix(' ').and_then(|a| {
            units.iter().find(|u| {
                a.starts_with(**u)
                    && !a[u.len()..]
                        .chars()
                        .next()
                        .is_some_and(|c| c.is_alphanumeric())
            })
        });
        out.push_str(before);
        match unit {
            Some(u) if !glued => {
                out.push('T');
                rest = &after[1 + u.len()..];
            }
            _ if before.ends_with("\"time_us\":") => {
                out.push('T');
                rest = after;
            }
            _ => {
                out.push_str(number);
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

#[test]
fn masking_replaces_times_only() {
    assert_eq!(
        mask_times("4 multitraces; total 262 µs, median 77.0 µs; 1.5 s wall"),
        "4 multitraces; total T, median T; T wall"
    );
    assert_eq!(mask_times("(automata, 2081 bytes)"), "(automata, T)");
    assert_eq!(
        mask_times("\"vertices\":3,\"time_us\":176}"),
        "\"vertices\":3,\"time_us\":T}"
    );
    assert_eq!(
        mask_times("pass-0001.htf: 2 states"),
        "pass-0001.htf: 2 states"
    );
}

#[test]
fn every_console_example_of_the_guide_prints_what_it_shows() {
    let bin_dir = Path::new(env!("CARGO_BIN_EXE_multitrace"))
        .parent()
        .unwrap()
        .to_path_buf();
    let path = format!(
        "{}:{}",
        bin_dir.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let all: Vec<(usize, Example)> = pages()
        .iter()
        .enumerate()
        .flat_map(|(n, p)| examples(p).into_iter().map(move |e| (n, e)))
        .collect();
    // The tour alone has more than ten: a guide without examples is not a passing guide.
    assert!(all.len() >= 10, "only {} examples found", all.len());
    let mut failures = Vec::new();
    let mut tmp = tempfile::tempdir().unwrap();
    let mut current = (usize::MAX, 0);
    for (page, ex) in &all {
        if (*page, ex.block) != current {
            current = (*page, ex.block);
            tmp = tempfile::tempdir().unwrap();
        }
        let tmp_prefix = format!("{}/", tmp.path().display());
        let command = ex.command.replace("/tmp/", &tmp_prefix);
        let o = Command::new("sh")
            .arg("-c")
            .arg(&command)
            .current_dir(root())
            .env("PATH", &path)
            .env("NO_COLOR", "1")
            .output()
            .unwrap();
        let printed: Vec<String> = stdout(&o)
            .replace(&tmp_prefix, "/tmp/")
            .lines()
            .map(mask_times)
            .collect();
        let shown: Vec<String> = ex.shown.iter().map(|l| mask_times(l)).collect();
        if printed != shown {
            failures.push(format!(
                "{}: `{}` printed\n{}\n(exit {:?}, stderr: {})\ninstead of\n{}",
                ex.at,
                ex.command,
                printed.join("\n"),
                o.status.code(),
                stderr(&o),
                shown.join("\n")
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}
