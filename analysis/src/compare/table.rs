//! The Markdown table of a comparison, in the shape of seed 004's Table 1, and its JSON rows.
//!
//! Invariants: one table row per set, in the comparison's order; times with 4 significant
//! digits in plain decimal notation (`-` for a procedure that did not run); the ratio AS/AC
//! with 2 decimals from 0.1 up, 4 significant digits below.

use super::Comparison;
use multitrace_model::verdict::Procedure;
use std::fmt::Write as _;

impl Comparison {
    /// The rows as one JSON array (`compare --format json`): per set, the model (`model`, as
    /// the user named it), the sizes, the category, lengths and count, the total time of each
    /// procedure, the setup time, the ratio AS/AC, the per-multitrace medians, the verdict
    /// counts and the findings. A procedure that did not run is `null`.
    pub fn json(&self, model: &str) -> serde_json::Value {
        let (ac, as_, term) = (Procedure::Ac, Procedure::As, Procedure::Term);
        let rows = self.rows.iter().map(|r| {
            serde_json::json!({
                "model": model,
                "states": self.states,
                "transitions": self.transitions,
                "category": r.category,
                "length_min": r.len_min,
                "length_max": r.len_max,
                "count": r.count,
                "runs": self.runs,
                "ac_s": r.total(ac),
                "as_s": r.total(as_),
                "term_s": r.total(term),
                "setup_s": self.setup,
                "as_over_ac": r.as_over_ac(),
                "ac_median_per_mt_s": r.per_multitrace(ac),
                "as_median_per_mt_s": r.per_multitrace(as_),
                "term_median_per_mt_s": r.per_multitrace(term),
                "verdicts": r.verdicts,
                "disagreements": r.disagreements,
                "manifest_mismatches": r.mismatches,
                "inconclusive": r.inconclusive,
            })
        });
        serde_json::Value::Array(rows.collect())
    }

    /// The Markdown table (a row per set, `model_label` in the first column) and a line per
    /// set with its verdicts.
    pub fn markdown(&self, model_label: &str) -> String {
        let with_term = self.with_term();
        let mut s = String::new();
        let term_h = if with_term { " term |" } else { "" };
        let term_r = if with_term { "---|" } else { "" };
        let _ = writeln!(
            s,
            "| model (states, transitions) | category | length | #MT | AC | AS |{term_h} setup | AS/AC |"
        );
        let _ = writeln!(s, "|---|---|---|---|---|---|{term_r}---|---|");
        for r in &self.rows {
            let term = if with_term {
                format!(" {} |", secs(r.total[2]))
            } else {
                String::new()
            };
            let _ = writeln!(
                s,
                "| {model_label} | {} | [{}-{}] | {} | {} | {} |{term} {} | {} |",
                r.category,
                r.len_min,
                r.len_max,
                r.count,
                secs(r.total[0]),
                secs(r.total[1]),
                secs(Some(self.setup)),
                r.as_over_ac().map_or_else(
                    || "-".into(),
                    |x| if x >= 0.1 { format!("{x:.2}") } else { sig4(x) }
                ),
            );
        }
        let _ = writeln!(
            s,
            "\nTimes: total over the set, median of {} run(s), in the units of `check`'s summary; setup: building the local verifiers.",
            self.runs
        );
        for r in &self.rows {
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
}

/// `x` with 4 significant digits, in plain decimal notation.
fn sig4(x: f64) -> String {
    if x <= 0.0 || !x.is_finite() {
        return format!("{x}");
    }
    let decimals = (3 - x.log10().floor() as i32).clamp(0, 12) as usize;
    format!("{x:.decimals$}")
}

/// Seconds as `check` prints a time (`12.3 µs`, `4.56 ms`): one time format for every command.
fn secs(x: Option<f64>) -> String {
    x.map_or_else(
        || "-".into(),
        |x| match std::time::Duration::try_from_secs_f64(x) {
            Ok(d) => multitrace_model::tally::human(d),
            Err(_) => format!("{x} s"),
        },
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn significant_digits() {
        assert_eq!(sig4(0.00012345), "0.0001234");
        assert_eq!(sig4(1.5), "1.500");
        assert_eq!(sig4(12345.0), "12345");
        assert_eq!(sig4(0.0), "0");
        assert_eq!(secs(None), "-");
        assert_eq!(secs(Some(0.25)), "250 ms");
        assert_eq!(secs(Some(0.00005151)), "51.5 µs");
    }
}
