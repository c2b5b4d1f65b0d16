//! Location partitions given on the command line: `--locations 'l1,l2;l3'`, or a random
//! partition drawn from a seed.
//!
//! The random partition draws from [`multitrace_model::rng::Rng`], the workspace's one
//! generator, so a `--random-locations N --seed S` partition is the same on every version.

use multitrace_model::rng::Rng;

/// What is wrong with a `--locations` option or a random partition; the message starts with
/// `--locations:` (option errors) and says how to write it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LocationsError {
    /// The option is empty.
    Empty,
    /// A group (1-based) has no name.
    EmptyGroup {
        /// The group's number.
        group: usize,
        /// The whole option.
        spec: String,
    },
    /// A name between commas is empty.
    EmptyName {
        /// The group's number.
        group: usize,
        /// The group as written.
        text: String,
    },
    /// A name contains whitespace (names are separated by `,`).
    Whitespace {
        /// The name.
        name: String,
        /// The group's number.
        group: usize,
    },
    /// A name is listed twice.
    Duplicate {
        /// The name.
        name: String,
        /// The group where it first appears.
        first: usize,
        /// The group where it appears again.
        again: usize,
    },
    /// A random partition into no group.
    NoGroup,
    /// A random partition into more non-empty groups than items.
    TooManyGroups {
        /// The items to split.
        items: usize,
        /// The groups asked for.
        groups: usize,
    },
}

const SHAPE: &str = "groups separated by `;`, names separated by `,`, e.g. `l1,l2;l3`";

impl std::fmt::Display for LocationsError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            LocationsError::Empty => {
                write!(f, "--locations: the option is empty; expected {SHAPE}")
            }
            LocationsError::EmptyGroup { group, spec } => write!(
                f,
                "--locations: group {group} is empty in `{spec}`; expected {SHAPE}"
            ),
            LocationsError::EmptyName { group, text } => write!(
                f,
                "--locations: empty name in group {group} (`{text}`); expected {SHAPE}"
            ),
            LocationsError::Whitespace { name, group } => write!(
                f,
                "--locations: name `{name}` in group {group} contains whitespace; \
                 separate names with `,`"
            ),
            LocationsError::Duplicate { name, first, again } => {
                let where_ = if first == again {
                    format!("twice in group {again}")
                } else {
                    format!("in groups {first} and {again}")
                };
                write!(
                    f,
                    "--locations: `{name}` is listed {where_}; each name belongs to exactly one \
                     group"
                )
            }
            LocationsError::NoGroup => {
                f.write_str("cannot split into 0 groups: ask for at least one")
            }
            LocationsError::TooManyGroups { items, groups } => write!(
                f,
                "cannot split {items} item{} into {groups} non-empty groups: ask for at most {items}",
                if *items == 1 { "" } else { "s" }
            ),
        }
    }
}

impl std::error::Error for LocationsError {}

/// Reads a `--locations` option: groups separated by `;`, names in a group separated by `,`.
///
/// `"l1,l2;l3"` gives `[["l1", "l2"], ["l3"]]`. Whitespace around names is ignored. An empty
/// option, an empty group, an empty name, a name containing whitespace and a name listed twice
/// are errors ([`LocationsError`]).
pub fn parse_locations_spec(spec: &str) -> Result<Vec<Vec<String>>, LocationsError> {
    if spec.trim().is_empty() {
        return Err(LocationsError::Empty);
    }
    let mut groups: Vec<Vec<String>> = Vec::new();
    // Each name and the (1-based) group it is in, to report duplicates.
    let mut seen: Vec<(&str, usize)> = Vec::new();
    for (g, group) in spec.split(';').enumerate() {
        let number = g + 1;
        if group.trim().is_empty() {
            return Err(LocationsError::EmptyGroup {
                group: number,
                spec: spec.to_string(),
            });
        }
        let mut names = Vec::new();
        for raw in group.split(',') {
            let name = raw.trim();
            if name.is_empty() {
                return Err(LocationsError::EmptyName {
                    group: number,
                    text: group.trim().to_string(),
                });
            }
            if name.chars().any(char::is_whitespace) {
                return Err(LocationsError::Whitespace {
                    name: name.to_string(),
                    group: number,
                });
            }
            if let Some(&(_, first)) = seen.iter().find(|(n, _)| *n == name) {
                return Err(LocationsError::Duplicate {
                    name: name.to_string(),
                    first,
                    again: number,
                });
            }
            seen.push((name, number));
            names.push(name.to_string());
        }
        groups.push(names);
    }
    Ok(groups)
}

/// Assigns each of `items` items a group in `0..groups`, every group non-empty.
///
/// The result depends only on `(items, groups, seed)`: `result[i]` is the group of item `i`.
/// A random `groups` items (one per group) make every group non-empty, the others are spread
/// uniformly. Errors when `groups` is 0 or larger than `items`.
pub fn random_partition(
    items: usize,
    groups: usize,
    seed: u64,
) -> Result<Vec<usize>, LocationsError> {
    if groups == 0 {
        return Err(LocationsError::NoGroup);
    }
    if groups > items {
        return Err(LocationsError::TooManyGroups { items, groups });
    }
    let mut rng = Rng::new(seed);
    // A random permutation of the items; its first `groups` items get one group each, the
    // rest a uniform group.
    let mut order: Vec<usize> = (0..items).collect();
    rng.shuffle(&mut order);
    let mut group = vec![0; items];
    for (rank, &item) in order.iter().enumerate() {
        group[item] = if rank < groups {
            rank
        } else {
            rng.below(groups)
        };
    }
    Ok(group)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn groups(spec: &str) -> Vec<Vec<String>> {
        parse_locations_spec(spec).unwrap_or_else(|e| panic!("{e}"))
    }

    #[track_caller]
    fn assert_err(spec: &str, fragment: &str) {
        let e = parse_locations_spec(spec).unwrap_err().to_string();
        assert!(e.starts_with("--locations: "), "{e}");
        assert!(e.contains(fragment), "`{e}` lacks `{fragment}`");
    }

    #[test]
    fn specs() {
        assert_eq!(groups("l1,l2;l3"), [vec!["l1", "l2"], vec!["l3"]]);
        assert_eq!(groups(" l1 , l2 ;\tl3 "), [vec!["l1", "l2"], vec!["l3"]]);
        assert_eq!(groups("a"), [vec!["a"]]);
        assert_eq!(groups("a;b;c"), [vec!["a"], vec!["b"], vec!["c"]]);
    }

    #[test]
    fn spec_errors() {
        assert_err("", "the option is empty");
        assert_err("  ", "the option is empty");
        assert_err("l1;;l2", "group 2 is empty in `l1;;l2`");
        assert_err("l1;", "group 2 is empty");
        assert_err(";l1", "group 1 is empty");
        assert_err("l1,,l2", "empty name in group 1 (`l1,,l2`)");
        assert_err("l1;l2,", "empty name in group 2");
        assert_err("l1 l2;l3", "name `l1 l2` in group 1 contains whitespace");
        assert_err("l1,l2;l1", "`l1` is listed in groups 1 and 2");
        assert_err("l1,l1", "`l1` is listed twice in group 1");
    }

    #[test]
    fn partitions() {
        assert_eq!(
            random_partition(0, 0, 1).unwrap_err().to_string(),
            "cannot split into 0 groups: ask for at least one"
        );
        assert!(random_partition(3, 0, 1)
            .unwrap_err()
            .to_string()
            .contains("0 groups"));
        assert_eq!(
            random_partition(2, 3, 1).unwrap_err().to_string(),
            "cannot split 2 items into 3 non-empty groups: ask for at most 2"
        );
        assert!(random_partition(1, 2, 1)
            .unwrap_err()
            .to_string()
            .contains("1 item into"));
        assert_eq!(random_partition(1, 1, 7).unwrap(), [0]);
        assert_eq!(random_partition(4, 1, 7).unwrap(), [0, 0, 0, 0]);
        let mut p = random_partition(5, 5, 7).unwrap();
        p.sort();
        assert_eq!(p, [0, 1, 2, 3, 4]);
        // Deterministic per seed, and the seed matters.
        let a = random_partition(19, 3, 42).unwrap();
        assert_eq!(a, random_partition(19, 3, 42).unwrap());
        assert!((0..20u64).any(|s| random_partition(19, 3, s).unwrap() != a));
        // The same on every version (value of an independent implementation of the draws).
        assert_eq!(
            random_partition(10, 3, 42).unwrap(),
            [1, 1, 1, 1, 0, 1, 2, 0, 0, 1]
        );
    }

    proptest! {
        #[test]
        fn partitions_cover_every_group(
            items in 0usize..60,
            groups in 0usize..70,
            seed in any::<u64>(),
        ) {
            match random_partition(items, groups, seed) {
                Ok(p) => {
                    prop_assert!(groups >= 1 && groups <= items);
                    prop_assert_eq!(p.len(), items);
                    let mut count = vec![0; groups];
                    for &g in &p {
                        prop_assert!(g < groups);
                        count[g] += 1;
                    }
                    prop_assert!(count.iter().all(|&c| c > 0));
                }
                Err(_) => prop_assert!(groups == 0 || groups > items),
            }
        }

        #[test]
        fn specs_never_panic(spec in any::<String>()) {
            if let Ok(groups) = parse_locations_spec(&spec) {
                prop_assert!(!groups.is_empty());
                prop_assert!(groups.iter().all(|g| !g.is_empty()));
            }
        }

        #[test]
        fn written_specs_read_back(groups in proptest::collection::vec(
            proptest::collection::vec(0u32..1000, 1..5), 1..5)
        ) {
            // Distinct names: prefix each with its group and rank.
            let names: Vec<Vec<String>> = groups
                .iter()
                .enumerate()
                .map(|(g, ns)| {
                    ns.iter()
                        .enumerate()
                        .map(|(i, n)| format!("g{g}n{i}x{n}"))
                        .collect()
                })
                .collect();
            let spec = names.iter().map(|g| g.join(",")).collect::<Vec<_>>().join(" ; ");
            prop_assert_eq!(parse_locations_spec(&spec).unwrap(), names);
        }
    }
}
