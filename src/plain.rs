//! The plain form of `check`, parsed without clap: `multitrace check MODEL TRACE...`, every
//! argument after `check` a non-empty text not starting with `-`. Building clap's parser for
//! `check`'s fifty arguments is 0.16 ms of a one-multitrace check's start-up; anything else
//! (an option, `-`, `--`, `--help`, an error, another command) goes to clap as before, so help
//! and error messages are clap's. The plain form gives exactly what clap gives for the same
//! arguments: the defaults below are clap's, and a test compares the two.

use crate::args::{ColorArg, FormatArg, ProcedureArg};
use crate::check_args::CheckArgs;
use multitrace_batch::inputs::InputArgs;
use multitrace_compiler::open::ModelOptions;
use multitrace_model::verdict::Mode;
use std::ffi::OsString;
use std::path::PathBuf;

/// The arguments of `check` when `argv` (the program's name first) has the plain form.
pub fn plain_check(argv: impl IntoIterator<Item = OsString>) -> Option<CheckArgs> {
    let mut argv = argv.into_iter().skip(1);
    if argv.next()? != "check" {
        return None;
    }
    let mut paths = Vec::new();
    for a in argv {
        let plain = a.to_str().is_some_and(|t| !t.is_empty() && !t.starts_with('-'));
        if !plain {
            return None;
        }
        paths.push(PathBuf::from(a));
    }
    if paths.len() < 2 {
        return None;
    }
    let model = paths.remove(0);
    Some(CheckArgs {
        model,
        traces: paths,
        input: InputArgs::default(),
        mode: Mode::Prefix,
        procedure: ProcedureArg::Auto,
        expect: None,
        jobs: None,
        format: FormatArg::Text,
        witness: false,
        quiet: false,
        color: ColorArg::Auto,
        no_progress: false,
        no_diagnosis: false,
        report: None,
        model_args: ModelOptions::default(),
        timeout_ms: 10_000,
        max_vertices: 5_000_000,
        max_memory: None,
        max_diagnosis_vertices: 1_000_000,
        max_line_bytes: 256 << 20,
        max_buffered_events: 10_000_000,
        no_por: false,
        no_loc: false,
        no_memo: false,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Cli, Command};
    use clap::Parser;

    fn argv(words: &[&str]) -> Vec<OsString> {
        std::iter::once("multitrace").chain(words.iter().copied()).map(OsString::from).collect()
    }

    fn clap_check(words: &[&str]) -> Option<CheckArgs> {
        match Cli::try_parse_from(argv(words)).ok()?.command {
            Command::Check(args) => Some(*args),
            _ => None,
        }
    }

    #[test]
    fn the_plain_form_is_what_clap_gives() {
        for words in [
            &["check", "m.mtm", "t.htf"][..],
            &["check", "m.hif", "a.htf", "dir", "b.jsonl", "c.mtf.gz"],
            &["check", "check", "help"],
            &["check", "model with spaces.mtm", "x=1"],
        ] {
            let plain = plain_check(argv(words));
            assert!(plain.is_some(), "{words:?}");
            assert_eq!(plain, clap_check(words), "{words:?}");
        }
    }

    #[test]
    fn anything_else_goes_to_clap() {
        for words in [
            &[][..],
            &["check"],
            &["check", "m.mtm"],
            &["check", "-q", "m.mtm", "t.htf"],
            &["check", "m.mtm", "t.htf", "--jobs", "1"],
            &["check", "m.mtm", "-"],
            &["check", "m.mtm", "--", "t.htf"],
            &["check", "m.mtm", ""],
            &["check", "--help"],
            &["--version"],
            &["inspect", "m.mtm", "t.htf"],
            &["Check", "m.mtm", "t.htf"],
        ] {
            assert!(plain_check(argv(words)).is_none(), "{words:?}");
        }
    }

    #[cfg(unix)]
    #[test]
    fn a_name_that_is_not_text_goes_to_clap() {
        use std::os::unix::ffi::OsStringExt;
        let mut a = argv(&["check", "m.mtm"]);
        a.push(OsString::from_vec(vec![b't', 0xff]));
        assert!(plain_check(a).is_none());
    }
}
