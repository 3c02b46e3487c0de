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
/// the distinct keywords, lowercased, in one set, and for each keyword id
/// the detectors that own it (`owners[starts[id]..starts[id + 1]]`). A few
/// flat vectors: a hook builds and drops one on every call.
pub(crate) struct KeywordIndex {
    set: KeywordSet,
    starts: Vec<u32>,
    owners: Vec<u32>,
}

impl KeywordIndex {
    /// Indexes the keyword lists of detectors, one list per detector, in
    /// order of first appearance; empty keywords are left out.
    pub fn new<'a>(lists: impl Iterator<Item = Vec<&'a str>>) -> KeywordIndex {
        let mut keywords: Vec<Cow<'a, str>> = Vec::new();
        // Keyword → its id (a linear search was quadratic in the ~660
        // built-in keywords). Keys borrow the caller's keywords when
        // lowercasing changes nothing (nearly all).
        let mut ids: HashMap<Cow<'a, str>, u32, BuildFnv> =
            HashMap::with_capacity_and_hasher(1024, BuildFnv);
        // (keyword id, owner), each pair once, owners in order.
        let mut pairs: Vec<(u32, u32)> = Vec::new();
        let mut last_owner: Vec<u32> = Vec::new();
        for (owner, list) in lists.enumerate() {
            let owner = owner as u32;
            for kw in list {
                let kw: Cow<'a, str> =
                    if kw.bytes().any(|b| b.is_ascii_uppercase() || !b.is_ascii()) {
                        Cow::Owned(kw.to_lowercase())
                    } else {
                        Cow::Borrowed(kw)
                    };
                if kw.is_empty() {
                    continue;
                }
                let id = *ids.entry(kw).or_insert_with_key(|kw| {
                    keywords.push(kw.clone());
                    last_owner.push(u32::MAX);
                    keywords.len() as u32 - 1
                });
                if last_owner[id as usize] != owner {
                    last_owner[id as usize] = owner;
                    pairs.push((id, owner));
                }
            }
        }
        // Owners grouped by keyword id, by a counting sort that keeps their
        // order.
        let mut starts = vec![0u32; keywords.len() + 1];
        for &(id, _) in &pairs {
            starts[id as usize + 1] += 1;
        }
        for i in 0..keywords.len() {
            starts[i + 1] += starts[i];
        }
        let mut next = starts.clone();
        let mut owners = vec![0u32; pairs.len()];
        for &(id, owner) in &pairs {
            owners[next[id as usize] as usize] = owner;
            next[id as usize] += 1;
        }
        let set = KeywordSet::new(keywords.iter().map(|k| k.as_ref()));
        KeywordIndex {
            set,
            starts,
            owners,
        }
    }

    /// Which keywords hit, per detector index (`detector_count` lists), each
    /// detector's in the order of their first occurrence in the text.
    pub fn hits(&self, text: &str, detector_count: usize) -> Vec<Vec<String>> {
        let mut hits: Vec<Vec<String>> = vec![Vec::new(); detector_count];
        for id in self.set.find(text) {
            let owners = &self.owners[self.starts[id] as usize..self.starts[id + 1] as usize];
            for &d in owners {
                if let Some(list) = hits.get_mut(d as usize) {
                    list.push(self.set.keyword_text(id).to_string());
                }
            }
        }
        hits
    }
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
        let index = KeywordIndex::new(lists.iter().map(|l| l.iter().map(String::as_str).collect()));
        let hits = index.hits("Deploy, then PUSH and commit.", 3);
        assert_eq!(hits[0], vec!["push", "commit"]);
        assert!(hits[1].is_empty());
        assert_eq!(hits[2], vec!["deploy", "push"]);
    }
}
