//! Which detectors' keywords occur in a text: one [`KeywordSet`] pass over
//! the keywords of all detectors, each hit credited to the detectors that
//! own the keyword. The index is built on every hook call, over the
//! detectors that apply to the event (a turn end does not look for the
//! shell keywords of a pre-tool detector): lowercasing, deduplicating and
//! anchoring the built-in detectors' ~470 keywords takes tens of
//! microseconds.

use crate::keywords::KeywordSet;
use std::borrow::Cow;
use std::collections::HashMap;

/// A keyword index over a list of detectors (by their index in the list):
/// the keyword set, and keyword id → the keyword and the detectors that
/// own it.
pub(crate) struct KeywordIndex {
    set: KeywordSet,
    owners: Vec<(String, Vec<usize>)>,
}

impl KeywordIndex {
    /// Indexes the keyword lists of detectors, one list per detector.
    pub fn new<'a>(lists: impl Iterator<Item = &'a [String]>) -> KeywordIndex {
        let owners = keyword_owners(lists.enumerate());
        let set = KeywordSet::new(owners.iter().map(|(k, _)| k.as_str()));
        KeywordIndex { set, owners }
    }

    /// Which keywords hit, per detector index (`detector_count` lists), each
    /// detector's in the order of their first occurrence in the text.
    pub fn hits(&self, text: &str, detector_count: usize) -> Vec<Vec<String>> {
        let mut hits: Vec<Vec<String>> = vec![Vec::new(); detector_count];
        for id in self.set.find(text) {
            let (kw, ds) = &self.owners[id];
            for &d in ds {
                if let Some(list) = hits.get_mut(d) {
                    list.push(kw.clone());
                }
            }
        }
        hits
    }
}

/// The distinct keywords of some owners' keyword lists, lowercased, in
/// order of first appearance, each with the owners that list it. Empty
/// keywords are left out.
fn keyword_owners<'a>(
    lists: impl Iterator<Item = (usize, &'a [String])>,
) -> Vec<(String, Vec<usize>)> {
    let mut owners: Vec<(String, Vec<usize>)> = Vec::new();
    // Keyword → its place in `owners` (a linear search was quadratic in the
    // ~470 built-in keywords). Keys borrow the caller's keywords when
    // lowercasing changes nothing (nearly all).
    let mut position: HashMap<Cow<'a, str>, usize, BuildFnv> =
        HashMap::with_capacity_and_hasher(512, BuildFnv);
    for (owner, keywords) in lists {
        for kw in keywords {
            let kw: Cow<'a, str> = if kw.bytes().any(|b| b.is_ascii_uppercase() || !b.is_ascii()) {
                Cow::Owned(kw.to_lowercase())
            } else {
                Cow::Borrowed(kw)
            };
            if kw.is_empty() {
                continue;
            }
            match position.get(&kw) {
                Some(&at) => {
                    let ds = &mut owners[at].1;
                    if !ds.contains(&owner) {
                        ds.push(owner)
                    }
                }
                None => {
                    owners.push((kw.to_string(), vec![owner]));
                    position.insert(kw, owners.len() - 1);
                }
            }
        }
    }
    owners
}

/// FNV-1a, for a map of short keys that no attacker chooses (the detectors'
/// keywords), where SipHash's flood resistance costs more than the rest of
/// a lookup.
#[derive(Default, Clone, Copy)]
struct BuildFnv;

/// The state of an FNV-1a hash.
struct Fnv(u64);

impl std::hash::BuildHasher for BuildFnv {
    type Hasher = Fnv;
    fn build_hasher(&self) -> Fnv {
        Fnv(0xcbf2_9ce4_8422_2325)
    }
}

impl std::hash::Hasher for Fnv {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0 ^ u64::from(b)).wrapping_mul(0x100_0000_01b3);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_hit_goes_to_every_detector_that_owns_the_keyword() {
        let lists: Vec<Vec<String>> = vec![
            vec!["Commit".into(), "push".into()],
            vec![],
            vec!["push".into(), "deploy".into(), "".into()],
        ];
        let index = KeywordIndex::new(lists.iter().map(Vec::as_slice));
        let hits = index.hits("Deploy, then PUSH and commit.", 3);
        assert_eq!(hits[0], vec!["push", "commit"]);
        assert!(hits[1].is_empty());
        assert_eq!(hits[2], vec!["deploy", "push"]);
    }
}
