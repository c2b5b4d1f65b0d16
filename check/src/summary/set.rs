//! A set of summaries that fit together ([`SummarySet`]): one per location, one mode, one
//! model.

use super::error::{SummaryError, SummaryErrorKind};
use super::validate::Summary;
use multitrace_model::model::CompiledModel;
use multitrace_model::nfa::LocationId;
use multitrace_model::verdict::Mode;

/// Summaries that fit together: one per location of the model, all made in the same mode.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SummarySet {
    mode: Mode,
    digest: u64,
    by_location: Vec<Summary>,
}

impl SummarySet {
    /// Checks that `summaries` (each read against `model`) are one per location and in one
    /// mode; orders them by location.
    pub fn new(model: &CompiledModel, summaries: Vec<Summary>) -> Result<Self, SummaryError> {
        let alphabet = &model.alphabet;
        let n = alphabet.locations();
        let mut slots: Vec<Option<Summary>> = vec![None; n];
        let mut first: Option<(Mode, String)> = None;
        for s in summaries {
            s.fits(model)?;
            match &first {
                Some((mode, file)) if *mode != s.mode => {
                    let mut e = SummaryError::in_file(
                        &s.file,
                        SummaryErrorKind::ModeMismatch {
                            found: s.mode,
                            expected: *mode,
                            first: file.clone(),
                        },
                    );
                    e.field = Some("mode");
                    e.position = s.mode_at;
                    return Err(e);
                }
                Some(_) => {}
                None => first = Some((s.mode, s.file.clone())),
            }
            let k = s.location.index();
            let Some(slot) = slots.get_mut(k) else {
                return Err(SummaryError::new(SummaryErrorKind::LocationOutOfRange {
                    index: k,
                    locations: n,
                }));
            };
            if let Some(other) = slot {
                let mut e = SummaryError::in_file(
                    &s.file,
                    SummaryErrorKind::DuplicateLocation {
                        location: alphabet.location_name(s.location).to_string(),
                        first: other.file.clone(),
                    },
                );
                e.field = Some("location");
                e.position = s.location_at;
                return Err(e);
            }
            *slot = Some(s);
        }
        let read: Vec<(String, String)> = slots
            .iter()
            .flatten()
            .map(|s| {
                (
                    alphabet.location_name(s.location).to_string(),
                    s.file.clone(),
                )
            })
            .collect();
        let missing: Vec<String> = slots
            .iter()
            .enumerate()
            .filter(|(_, s)| s.is_none())
            .map(|(k, _)| alphabet.location_name(LocationId(k as u32)).to_string())
            .collect();
        if !missing.is_empty() {
            return Err(SummaryError::new(SummaryErrorKind::MissingLocations {
                missing,
                read,
            }));
        }
        Ok(SummarySet {
            mode: first.map_or(Mode::default(), |(m, _)| m),
            digest: model.digest,
            by_location: slots.into_iter().flatten().collect(),
        })
    }

    /// The mode of every summary.
    pub fn mode(&self) -> Mode {
        self.mode
    }

    /// The summaries, one per location, in location order.
    pub fn summaries(&self) -> &[Summary] {
        &self.by_location
    }

    /// Checks again that the set fits `model` (the central step runs on it).
    pub fn fits(&self, model: &CompiledModel) -> Result<(), SummaryError> {
        if self.by_location.len() != model.alphabet.locations() || self.digest != model.digest {
            return Err(SummaryError::new(SummaryErrorKind::OtherModel {
                found: self.digest,
                model: model.digest,
            }));
        }
        self.by_location.iter().try_for_each(|s| s.fits(model))
    }
}
