//! "Did you mean": the closest declared name to a name that does not exist, for every
//! message that refuses an unknown lifeline, message, location or action (models, traces,
//! event logs, `--locations`). One edit distance, used everywhere.
//!
//! A suggestion is made only when it is close (at most a third of the name's length in
//! edits, at least one), and unique at that distance: a guess between two names is no help.

/// The Levenshtein distance between `a` and `b` (insertions, deletions, substitutions of
/// characters, each costing 1).
pub fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut diagonal = row[0];
        row[0] = i + 1;
        for (j, &cb) in b.iter().enumerate() {
            let above = row[j + 1];
            row[j + 1] = (diagonal + usize::from(ca != cb))
                .min(above + 1)
                .min(row[j] + 1);
            diagonal = above;
        }
    }
    row[b.len()]
}

/// The candidate closest to `name`, when it is close enough and the only one that close.
pub fn closest<'a>(name: &str, candidates: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    let limit = (name.chars().count() / 3).max(1);
    let mut best: Option<(usize, &str)> = None;
    let mut tie = false;
    for c in candidates {
        let d = edit_distance(name, c);
        match best {
            Some((b, _)) if d > b => {}
            Some((b, _)) if d == b => tie = true,
            _ => {
                best = Some((d, c));
                tie = false;
            }
        }
    }
    match best {
        Some((d, c)) if d <= limit && d > 0 && !tie => Some(c),
        _ => None,
    }
}

/// `did you mean `server`? ` to put before a list of declared names (empty when there is no
/// close name).
pub fn did_you_mean<'a>(name: &str, candidates: impl IntoIterator<Item = &'a str>) -> String {
    closest(name, candidates)
        .map(|c| format!("did you mean `{c}`? "))
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The distance against a brute-force definition: the fewest edits found by trying every
    /// deletion from either side recursively.
    fn brute(a: &[char], b: &[char]) -> usize {
        match (a, b) {
            ([], _) => b.len(),
            (_, []) => a.len(),
            ([x, ra @ ..], [y, rb @ ..]) => (brute(ra, rb) + usize::from(x != y))
                .min(brute(ra, b) + 1)
                .min(brute(a, rb) + 1),
        }
    }

    #[test]
    fn edit_distance_is_the_brute_force_one() {
        let words = [
            "", "a", "ab", "ba", "server", "sever", "sesion", "session", "µs", "s",
        ];
        for a in words {
            for b in words {
                let (ca, cb): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
                assert_eq!(edit_distance(a, b), brute(&ca, &cb), "{a} {b}");
            }
        }
    }

    #[test]
    fn suggestions_are_close_and_unique() {
        let names = ["server", "session", "client", "db"];
        assert_eq!(closest("sever", names), Some("server"));
        assert_eq!(closest("sesion", names), Some("session"));
        assert_eq!(closest("xyz", names), None);
        assert_eq!(
            closest("server", names),
            None,
            "an existing name is not a typo"
        );
        // Two names at the same distance: no guess.
        assert_eq!(closest("ab", ["ac", "ad"]), None);
        assert_eq!(did_you_mean("clinet", names), "did you mean `client`? ");
    }
}
