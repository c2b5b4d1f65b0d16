//! Notes that keep a user from being misled: files a directory held that were not read, an
//! empty local trace in `local`.

use super::*;

#[test]
fn files_of_other_extensions_are_named_when_skipped() {
    let d = scratch("skipped");
    for f in [
        "a.htf",
        "b.txt",
        "c.htf.bak",
        "d.log",
        "e.csv",
        ".hidden",
        "manifest.tsv",
    ] {
        let src = root().join("fixtures/seed004-mqtt/traces/example1.htf");
        std::fs::copy(src, d.join(f)).unwrap();
    }
    let o = run(&[
        "check",
        "fixtures/seed004-mqtt/model.hif",
        d.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let err = stderr(&o);
    assert!(
        err.contains(&format!(
            "note: {}: 4 files skipped (b.txt, c.htf.bak, d.log, ...): only .htf, .mtf and .jsonl files (also compressed: .gz, .zst) are read",
            d.display()
        )),
        "{err}"
    );
    assert!(
        !err.contains("hidden") && !err.contains("manifest"),
        "{err}"
    );
    // A directory of trace files only: no note.
    let o = run(&[
        "check",
        "fixtures/seed004-mqtt/model.hif",
        "fixtures/seed004-mqtt/traces",
    ]);
    assert!(!stderr(&o).contains("skipped"), "{}", stderr(&o));
}

#[test]
fn local_notes_an_empty_trace() {
    let d = scratch("local-empty");
    let out = d.join("db.json");
    let local = |trace: &str| {
        run(&[
            "local",
            "fixtures/tour/model.hif",
            "--location",
            "db",
            trace,
            "-o",
            out.to_str().unwrap(),
        ])
    };
    let o = local("fixtures/tour/traces/cut_short.htf");
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(
        stderr(&o).contains(
            "note: fixtures/tour/traces/cut_short.htf holds no action of db (no component for db, or an empty one)"
        ),
        "{}",
        stderr(&o)
    );
    let o = local("fixtures/tour/traces/ok.htf");
    assert!(!stderr(&o).contains("holds no action"), "{}", stderr(&o));
}

/// A WeakPass says which locations look cut short and what each could still do, the same for
/// every procedure; the summary reminds that prefix mode is the default.
#[test]
fn a_weak_pass_says_what_is_missing() {
    let mut lines = Vec::new();
    for p in ["as", "ac", "term"] {
        let o = run(&[
            "check",
            "fixtures/seed004-mqtt/model.hif",
            "fixtures/seed004-mqtt/traces/end_not_observed_on_clt1.htf",
            "-p",
            p,
        ]);
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
        let out = stdout(&o);
        lines.push(out.lines().next().unwrap().to_string());
        assert!(
            out.contains("; WeakPass: the beginning of an accepted run (prefix mode, the default; --mode complete asks for whole runs)"),
            "{out}"
        );
    }
    assert!(lines.windows(2).all(|w| w[0] == w[1]), "{lines:#?}");
    assert_eq!(
        lines[0],
        "fixtures/seed004-mqtt/traces/end_not_observed_on_clt1.htf: WeakPass: looks cut short: clt1 could still do clt1!end"
    );
}

/// A name that does not exist gets the closest declared one, in traces, models and
/// `--locations`; an error listing declared names says which signature file declared them.
#[test]
fn unknown_names_get_a_suggestion_and_the_signature_is_named() {
    let d = scratch("typos");
    let trace = d.join("typo.htf");
    std::fs::write(
        &trace,
        "{ [client] client!request; [sever] server?request; [db] }\n",
    )
    .unwrap();
    let o = run(&["check", "fixtures/tour/model.hif", trace.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    let out = stdout(&o);
    assert!(
        out.contains("unknown lifeline `sever`; did you mean `server`? declared lifelines: client, server, db"),
        "{out}"
    );
    assert!(
        stderr(&o).contains("note: the declared names are those of the signature fixtures/tour/signature.hsf, found beside fixtures/tour/model.hif"),
        "{}",
        stderr(&o)
    );
    let msg = d.join("msg.htf");
    std::fs::write(&msg, "{ [client] client!reqest }\n").unwrap();
    let o = run(&["check", "fixtures/tour/model.hif", msg.to_str().unwrap()]);
    assert!(
        stdout(&o).contains("did you mean `request`?"),
        "{}",
        stdout(&o)
    );
    // A model with a typo.
    std::fs::create_dir_all(d.join("m")).unwrap();
    std::fs::copy(
        root().join("fixtures/tour/signature.hsf"),
        d.join("m/signature.hsf"),
    )
    .unwrap();
    std::fs::write(d.join("m/model.hif"), "seq(client -- request -> sevrer)\n").unwrap();
    let o = run(&["inspect", d.join("m/model.hif").to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("did you mean `server`?"),
        "{}",
        stderr(&o)
    );
    // --locations.
    let o = run(&[
        "check",
        "fixtures/tour/model.hif",
        "fixtures/tour/traces/ok.htf",
        "--locations",
        "client;sevrer;db",
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("did you mean `server`?"),
        "{}",
        stderr(&o)
    );
}
