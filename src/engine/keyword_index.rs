//! Which detectors' keywords occur in a text: one [`KeywordSet`] pass over
//! the keywords of all detectors, each hit credited to the detectors that
//! own the keyword. The index is built on every hook call, over the
//! detectors that apply to the event (a turn end does not look for the
//! shell keywords of a pre-tool detector): anchoring the ~1,300 built-in
//! keywords of the turn-end detectors is a few hundred microseconds.

use crate::keywords::KeywordSet;

/// A keyword index over a list of detectors (by their index in the list):
/// every detector's keywords, case-folded, in one set, and for each keyword
/// id the detector that owns it.
pub(crate) struct KeywordIndex {
    set: KeywordSet,
    owners: Vec<u32>,
}

impl KeywordIndex {
    /// Indexes the keyword lists of detectors, one list per detector;
    /// empty keywords are left out. A keyword two detectors share is in the
    /// set twice, once for each: deduplicating ~1,300 keywords on every
    /// hook call cost more than scanning for a few twice.
    pub fn new<'a>(lists: impl Iterator<Item = Vec<&'a str>>) -> KeywordIndex {
        let mut keywords: Vec<&'a str> = Vec::new();
        let mut owners: Vec<u32> = Vec::new();
        for (owner, list) in lists.enumerate() {
            // Case-folded already (`detector::Head`).
            for kw in list.into_iter().filter(|k| !k.is_empty()) {
                keywords.push(kw);
                owners.push(owner as u32);
            }
        }
        let set = KeywordSet::new(keywords);
        KeywordIndex { set, owners }
    }

    /// Which keywords hit, per detector index (`detector_count` lists), each
    /// detector's once, in the order of their first occurrence in the text.
    pub fn hits(&self, text: &str, detector_count: usize) -> Vec<Vec<String>> {
        let mut hits: Vec<Vec<String>> = vec![Vec::new(); detector_count];
        for id in self.set.find(text) {
            let keyword = self.set.keyword_text(id);
            if let Some(list) = hits.get_mut(self.owners[id] as usize) {
                if !list.iter().any(|k| k == keyword) {
                    list.push(keyword.to_string());
                }
            }
        }
        hits
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
