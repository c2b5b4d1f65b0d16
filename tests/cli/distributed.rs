//! `local` and `central`: distributed AS reproduces `check --procedure as`; altered summaries
//! are refused.

use super::*;

#[test]
fn local_and_central_reproduce_check_as() {
    let d = scratch("distributed");
    let model = "fixtures/seed004-fig3/model.timbuk";
    // The same record as `check` writes, but where the multitrace was read and the time.
    let verdict = |o: &Output| -> Vec<String> {
        let v: serde_json::Value = serde_json::from_str(stdout(o).lines().next().unwrap()).unwrap();
        [
            "schema",
            "verdict",
            "procedure",
            "reason",
            "explanation",
            "local_error",
            "diagnosis",
            "budget",
            "error",
        ]
        .iter()
        .map(|k| v[k].to_string())
        .collect()
    };
    let mut compared = 0;
    for mode in ["complete", "prefix"] {
        for entry in std::fs::read_dir(root().join("fixtures/seed004-fig3/traces")).unwrap() {
            let trace = entry.unwrap().path();
            let t = trace.to_str().unwrap();
            let mut summaries = Vec::new();
            for l in ["l1", "l2", "l3"] {
                let out = d.join(format!("{l}.json"));
                let o = run(&[
                    "local",
                    model,
                    "--location",
                    l,
                    t,
                    "--mode",
                    mode,
                    "-o",
                    out.to_str().unwrap(),
                ]);
                // 0 when the local trace passes, 1 on a LocalError.
                assert!(matches!(o.status.code(), Some(0 | 1)), "{}", stderr(&o));
                summaries.push(out.to_str().unwrap().to_string());
            }
            let mut args = vec!["central", model, "--format", "jsonl"];
            args.extend(summaries.iter().map(String::as_str));
            let central = run(&args);
            let check = run(&[
                "check",
                model,
                t,
                "--procedure",
                "as",
                "--mode",
                mode,
                "--format",
                "jsonl",
            ]);
            assert_eq!(central.status.code(), check.status.code());
            assert_eq!(verdict(&central), verdict(&check), "{t} {mode}");
            compared += 1;
        }
    }
    assert_eq!(compared, 16);
    // A missing location is an error, not a verdict.
    let o = run(&["central", model, d.join("l1.json").to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("no summary for location(s) l2, l3"),
        "{}",
        stderr(&o)
    );
}

/// A summary is trusted only as far as its trace: an altered area is refused, not used.
#[test]
fn central_refuses_a_summary_whose_area_does_not_match_its_trace() {
    let d = scratch("tampered");
    let model = "fixtures/seed004-fig3/model.timbuk";
    let trace = "fixtures/seed004-fig3/traces/pass.mtf";
    let mut files = Vec::new();
    for l in ["l1", "l2", "l3"] {
        let out = d.join(format!("{l}.json"));
        let o = run(&[
            "local",
            model,
            "--location",
            l,
            trace,
            "-o",
            out.to_str().unwrap(),
        ]);
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
        files.push(out);
    }
    let args = |files: &[PathBuf]| {
        let mut a = vec!["central".to_string(), model.to_string()];
        a.extend(files.iter().map(|f| f.display().to_string()));
        a
    };
    let o = bin()
        .current_dir(root())
        .args(args(&files))
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    // Clear every bit of l2's area but keep the summary well formed.
    let text = std::fs::read_to_string(&files[1]).unwrap();
    let v: serde_json::Value = serde_json::from_str(&text).unwrap();
    let area = v["area"].as_str().unwrap();
    let zero: String = area
        .chars()
        .map(|c| if c.is_ascii_hexdigit() { '0' } else { c })
        .collect();
    std::fs::write(&files[1], text.replace(area, &zero)).unwrap();
    let o = bin()
        .current_dir(root())
        .args(args(&files))
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2), "{}", stdout(&o));
    assert!(
        stderr(&o).contains("l2.json") && stderr(&o).contains("altered"),
        "{}",
        stderr(&o)
    );
}
