//! The options of a batch check as a user would write them: the option table of the HTML
//! report ([`crate::html::ReportSetup::options`]), the same for every front end.

use multitrace_check::explore::Budget;
use multitrace_check::summary::mode_name;
use multitrace_check::{CheckOptions, Choice};
use multitrace_compiler::open::ModelOptions;

/// `(name, value)` rows: mode, procedure, jobs (`None`: one per core, `cores` of them),
/// budgets, the term exploration's switches, the diagnosis, and the model options given.
pub fn shown_options(
    check: &CheckOptions,
    jobs: Option<usize>,
    cores: usize,
    model: &ModelOptions,
) -> Vec<(String, String)> {
    let on_off = |on: bool| if on { "on" } else { "off" }.to_string();
    let vertices = |b: &Budget| match b.max_vertices {
        Some(n) => format!("{n} vertices"),
        None => "none".to_string(),
    };
    let mut v: Vec<(&str, String)> = vec![
        ("mode", mode_name(check.mode).to_string()),
        (
            "procedure",
            match check.choice {
                Choice::Auto => "auto",
                Choice::Force(p) => p.name(),
            }
            .to_string(),
        ),
        (
            "jobs",
            jobs.map_or_else(|| format!("{cores} (one per core)"), |j| j.to_string()),
        ),
        (
            "time budget",
            check
                .budget
                .timeout
                .map_or("none".to_string(), |t| format!("{} ms", t.as_millis())),
        ),
        ("vertex budget", vertices(&check.budget)),
        ("partial order reduction", on_off(check.explore.por)),
        ("local analyses", on_off(check.explore.loc)),
        ("memoization", on_off(check.explore.memo)),
        (
            "diagnosis",
            check.diagnosis.as_ref().map_or("off".to_string(), |b| {
                format!("on (budget {})", vertices(b))
            }),
        ),
    ];
    if check.witness {
        v.push(("witness", "on".to_string()));
    }
    if let Some(l) = &model.locations {
        v.push(("locations", l.clone()));
    }
    if let Some(n) = model.random_locations {
        v.push(("random locations", format!("{n} (seed {})", model.seed)));
    }
    if let Some(s) = &model.signature {
        v.push(("signature", s.display().to_string()));
    }
    v.into_iter().map(|(k, v)| (k.to_string(), v)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_are_shown_as_a_user_would_write_them() {
        let shown = shown_options(&CheckOptions::default(), None, 4, &ModelOptions::default());
        let get = |k: &str| shown.iter().find(|(n, _)| n == k).map(|(_, v)| v.as_str());
        assert_eq!(get("jobs"), Some("4 (one per core)"));
        assert_eq!(get("procedure"), Some("auto"));
        assert_eq!(get("partial order reduction"), Some("on"));
        assert_eq!(get("witness"), None);
    }
}
