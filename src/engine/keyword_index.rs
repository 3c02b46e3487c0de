//! Which detectors' keywords occur in a text: one [`KeywordSet`] pass over
//! the keywords of all detectors, each hit credited to the detectors that
//! own the keyword.
//!
//! The built-in detectors' indexes are built by build.rs and embedded, one
//! per set of event kinds ([`crate::builtin::BUILTIN_KEYWORD_INDEXES`]):
//! building an index on every hook call (lowercasing, deduplicating and
//! anchoring ~470 keywords) cost more than the scan of a 4 KB text, and a
//! turn end need not look for the shell keywords of a pre-tool detector.
//! An index over other keyword lists (a user's detector file, a config's
//! extra keywords) is built at run time.

use super::gate::BuildFnv;
use super::keywords::{keyword_owners, letter_cost, pack, KeywordSet};
use crate::builtin::{BuiltinKeywordIndex, BUILTIN_KEYWORD_INDEXES, DETECTOR_HEADS};
use crate::event::EventKind;
use std::collections::HashSet;

/// A keyword index over a list of detectors (by their index in the list):
/// the keyword set, and keyword id → the keyword and the detectors that
/// own it.
pub(crate) enum KeywordIndex {
    /// Built at run time: owners are detector indexes.
    Listed {
        set: Box<KeywordSet>,
        owners: Vec<(String, Vec<usize>)>,
    },
    /// An embedded index: owners are positions in
    /// [`crate::builtin::DETECTOR_HEADS`], mapped to detector indexes by
    /// `detector_at` (`None`: not in the list).
    Builtin {
        index: &'static BuiltinKeywordIndex,
        detector_at: Vec<Option<usize>>,
    },
}

impl KeywordIndex {
    /// Indexes the keyword lists of detectors, one list per detector.
    pub fn from_keyword_lists<'a, K: AsRef<str> + 'a>(
        lists: impl Iterator<Item = &'a [K]>,
    ) -> KeywordIndex {
        let owners = keyword_owners(lists.enumerate());
        // Anchors that build.rs found rare in English prose come first:
        // anchored by letter frequency alone, the built-in keywords made an
        // index built here scan quiet prose at 0.71 GB/s, against 1.06 for
        // the embedded one (docs/performance.md).
        let rare: HashSet<u32, BuildFnv> = BUILTIN_KEYWORD_INDEXES
            .iter()
            .flat_map(|i| i.set.anchor_words())
            .collect();
        let set = KeywordSet::with_anchor_cost(owners.iter().map(|(k, _)| k.as_str()), |w| {
            let unvetted = !rare.contains(&(pack(w) | 0x2020_2020));
            u64::from(unvetted) << 32 | letter_cost(w)
        });
        KeywordIndex::Listed {
            set: Box::new(set),
            owners,
        }
    }

    /// The embedded index for events of `kind`, over detectors given as
    /// (position in [`crate::builtin::DETECTOR_HEADS`] when it is a
    /// built-in detector with its built-in keywords, whether it applies to
    /// the event). Hits are found only for the detectors that apply. `None`
    /// when one that applies is not such a built-in detector.
    pub fn builtin(
        kind: EventKind,
        detectors: impl Iterator<Item = (Option<usize>, bool)>,
    ) -> Option<KeywordIndex> {
        let mut detector_at = vec![None; DETECTOR_HEADS.len()];
        for (i, (position, applies)) in detectors.enumerate() {
            if applies {
                *detector_at.get_mut(position?)? = Some(i);
            }
        }
        // No embedded index: no built-in detector applies to `kind`.
        static NONE: BuiltinKeywordIndex = BuiltinKeywordIndex {
            kinds: &[],
            set: KeywordSet::from_parts(&[], &[], (&[], &[], &[]), None, &[], &[]),
            owners: &[],
        };
        let index = BUILTIN_KEYWORD_INDEXES
            .iter()
            .find(|i| i.kinds.contains(&kind))
            .unwrap_or(&NONE);
        Some(KeywordIndex::Builtin { index, detector_at })
    }

    /// Which keywords hit, per detector index (`detector_count` lists), each
    /// detector's in the order of their first occurrence in the text.
    pub fn hits(&self, text: &str, detector_count: usize) -> Vec<Vec<String>> {
        let mut hits: Vec<Vec<String>> = vec![Vec::new(); detector_count];
        match self {
            KeywordIndex::Listed { set, owners } => {
                for id in set.find(text) {
                    let (kw, ds) = &owners[id];
                    for &d in ds {
                        hits[d].push(kw.clone());
                    }
                }
            }
            KeywordIndex::Builtin { index, detector_at } => {
                for id in index.set.find(text) {
                    let (kw, positions) = index.owners[id];
                    for &p in positions {
                        if let Some(Some(d)) = detector_at.get(usize::from(p)) {
                            if let Some(list) = hits.get_mut(*d) {
                                list.push(kw.to_string());
                            }
                        }
                    }
                }
            }
        }
        hits
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// For every event kind, the embedded index finds what an index built
    /// from the keywords of the built-in detectors that apply finds, for
    /// any subset of them in any order.
    #[test]
    fn the_embedded_indexes_are_the_ones_built_at_run_time() {
        let prose = include_str!("../../tests/corpus/agent-prose.txt");
        let commands = include_str!("../../tests/corpus/pre-tool.yaml");
        let extra = "COMMIT and push; コミット, producción; rm -rf / && git push --force";
        let texts: Vec<&str> = prose
            .split("\n\n")
            .chain(commands.lines())
            .chain([prose, extra])
            .collect();
        let all: Vec<usize> = (0..DETECTOR_HEADS.len()).collect();
        let mut reversed_subset: Vec<usize> = all.iter().copied().step_by(2).collect();
        reversed_subset.reverse();
        for kind in EventKind::ALL {
            for positions in [&all, &reversed_subset] {
                let lists: Vec<&[&str]> = positions
                    .iter()
                    .map(|&p| {
                        let head = &DETECTOR_HEADS[p];
                        if head.events.contains(&kind) {
                            head.keywords
                        } else {
                            &[]
                        }
                    })
                    .collect();
                let built = KeywordIndex::from_keyword_lists(lists.iter().copied());
                let embedded = KeywordIndex::builtin(
                    kind,
                    positions
                        .iter()
                        .map(|&p| (Some(p), DETECTOR_HEADS[p].events.contains(&kind))),
                )
                .unwrap();
                for text in &texts {
                    assert_eq!(
                        embedded.hits(text, positions.len()),
                        built.hits(text, positions.len()),
                        "{kind:?}: {text:?}"
                    );
                }
            }
        }
    }

    #[test]
    fn a_detector_that_is_not_built_in_takes_the_index_built_at_run_time() {
        let applies = (0..DETECTOR_HEADS.len())
            .find(|&p| DETECTOR_HEADS[p].events.contains(&EventKind::Stop))
            .unwrap();
        let detectors = [(Some(applies), true), (None, true)];
        assert!(KeywordIndex::builtin(EventKind::Stop, detectors.into_iter()).is_none());
        // One that does not apply to the event does not need the index.
        let detectors = [(Some(applies), true), (None, false)];
        assert!(KeywordIndex::builtin(EventKind::Stop, detectors.into_iter()).is_some());
    }
}
