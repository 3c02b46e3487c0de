//! The search of a [`KeywordSet`] over a text: the hot loop of Layer 1,
//! run on every event.
//!
//! The loop tests every four-byte window of the text against the anchors'
//! filter (see the parent module): fold case, hash, test two bits of one
//! word, four windows per eight-byte read. It runs at about 1 GB/s on quiet
//! prose on the benchmark machine and 0.8–0.95 GB/s on agent prose
//! (docs/performance.md): a 4 KB turn in a few microseconds, out of the
//! ~2 ms of a whole `guard hook` process.

use super::{commonness, pack, Anchors, KeywordSet};

/// "Not seen" in [`KeywordSet::find`]'s table of first occurrences.
const NONE: u32 = u32::MAX;

impl KeywordSet {
    /// The ids of the keywords that occur in `text`, each once, ordered by
    /// where their first occurrence ends (longer first at the same end): the
    /// order of first report of an overlapping Aho-Corasick scan.
    pub fn find(&self, text: &str) -> Vec<usize> {
        let t = text.as_bytes();
        // Texts are far below 4 GiB (the hook reads at most a few MB);
        // anything longer is searched in its first 4 GiB.
        let t = &t[..t.len().min(NONE as usize - 1)];
        let mut seen = Seen {
            first: vec![NONE; self.spans.len()],
            found: Vec::new(),
        };
        if let Some(anchors) = &self.anchors {
            self.scan(anchors, t, &mut seen);
        }
        if !self.three.is_empty() {
            let lower = t.to_ascii_lowercase();
            for &id in self.three.iter() {
                if let Some(start) = memchr::memmem::find(&lower, self.keyword(id as usize)) {
                    seen.record(id as usize, start);
                }
            }
        }
        for &id in self.short.iter() {
            if let Some(start) = self.find_short(t, id as usize) {
                seen.record(id as usize, start);
            }
        }
        let mut hits: Vec<(usize, std::cmp::Reverse<usize>, usize)> = seen
            .found
            .iter()
            .map(|&id| {
                let id = id as usize;
                let len = self.keyword(id).len();
                (seen.first[id] as usize + len, std::cmp::Reverse(len), id)
            })
            .collect();
        hits.sort_unstable();
        hits.into_iter().map(|(_, _, id)| id).collect()
    }

    /// Tests every window of `t`, four per eight-byte read, then the rest
    /// one by one.
    fn scan(&self, anchors: &Anchors, t: &[u8], seen: &mut Seen) {
        let mut i = 0;
        while let Some(chunk) = t.get(i..i + 8) {
            let mut bytes = [0u8; 8];
            bytes.copy_from_slice(chunk);
            let folded = u64::from_le_bytes(bytes) | 0x2020_2020_2020_2020;
            for k in 0..4 {
                let window = (folded >> (8 * k)) as u32;
                if anchors.first_bit_set(window) {
                    self.check(anchors, window, t, i + k, seen);
                }
            }
            i += 4;
        }
        for (at, window) in t.get(i..).unwrap_or_default().windows(4).enumerate() {
            let window = pack(window) | 0x2020_2020;
            if anchors.first_bit_set(window) {
                self.check(anchors, window, t, i + at, seen);
            }
        }
    }

    /// Records the keywords anchored on `window` (case folded, at `i`)
    /// whose occurrence it completes, unless seen before; called for a
    /// window whose first filter bit is set, it tests the second bit only
    /// here, where the compiler cannot compute it ahead for every window.
    #[inline(never)]
    fn check(&self, anchors: &Anchors, window: u32, t: &[u8], i: usize, seen: &mut Seen) {
        if !anchors.may_hold(window) {
            return;
        }
        for &id in anchors.get(window) {
            let id = id as usize;
            if window != self.anchor_word[id] {
                continue;
            }
            let Some(start) = i.checked_sub(self.anchor_at[id] as usize) else {
                continue;
            };
            if seen.first[id] == NONE && starts_with_ignore_case(&t[start..], self.keyword(id)) {
                seen.record(id, start);
            }
        }
    }

    /// Where a keyword of one or two bytes first occurs: `memchr` finds
    /// its rarest byte, in either case, and the rest is compared there.
    fn find_short(&self, t: &[u8], id: usize) -> Option<usize> {
        let kw = self.keyword(id);
        let at = (0..kw.len())
            .min_by_key(|&i| commonness(kw[i]))
            .unwrap_or(0);
        let (lower, upper) = (kw[at], kw[at].to_ascii_uppercase());
        memchr::memchr2_iter(lower, upper, t)
            .filter_map(|i| i.checked_sub(at))
            .find(|&start| starts_with_ignore_case(&t[start..], kw))
    }
}

/// The keywords found so far in one search.
struct Seen {
    /// Where each keyword first occurs (NONE: not seen).
    first: Vec<u32>,
    /// The keywords seen, in the order they were found.
    found: Vec<u32>,
}

impl Seen {
    /// Records that keyword `id` occurs at `start`, unless it was seen
    /// (earlier: each loop finds occurrences in order).
    #[inline(always)]
    fn record(&mut self, id: usize, start: usize) {
        if self.first[id] == NONE {
            self.first[id] = start as u32;
            self.found.push(id as u32);
        }
    }
}

#[inline(always)]
fn starts_with_ignore_case(text: &[u8], keyword: &[u8]) -> bool {
    text.len() >= keyword.len() && text[..keyword.len()].eq_ignore_ascii_case(keyword)
}

#[cfg(test)]
mod tests {
    use super::*;
    use aho_corasick::{AhoCorasickBuilder, MatchKind};

    /// Asserts that the set finds in `text` what the reference finds.
    fn assert_finds(set: &KeywordSet, keywords: &[&str], text: &str) {
        assert_eq!(set.find(text), reference(keywords, text), "on {text:?}");
    }

    /// What the engine used before: an overlapping Aho-Corasick scan,
    /// keeping each keyword's first report.
    fn reference(keywords: &[&str], text: &str) -> Vec<usize> {
        let ac = AhoCorasickBuilder::new()
            .ascii_case_insensitive(true)
            .match_kind(MatchKind::Standard)
            .build(keywords)
            .unwrap();
        let mut out = Vec::new();
        for m in ac.find_overlapping_iter(text) {
            let id = m.pattern().as_usize();
            if !out.contains(&id) {
                out.push(id);
            }
        }
        out
    }

    #[test]
    fn finds_what_an_overlapping_aho_corasick_scan_finds_in_its_order() {
        let keywords = [
            "commit",
            "it",
            "push",
            "pull request",
            "request",
            "merg",
            "merge",
            "v2",
            "prを",
            "コミット",
            "producción",
            "a",
            "deploy",
            "loy",
            "ship it",
        ];
        let texts = [
            "",
            "no keyword at all here",
            "Shall I COMMIT and Push it?",
            "merge the Pull Request, then ship it to v2",
            "mergemerge merg",
            "rm -rf; DD if=x",
            "コミットしてprを作ります",
            "producción y PRODUCCIÓN",
            "deploy; redeploy",
            "a",
            "it",
        ];
        let set = KeywordSet::new(keywords.iter().copied());
        for text in texts {
            assert_finds(&set, &keywords, text);
        }
    }

    #[test]
    fn agrees_with_aho_corasick_on_the_builtin_keywords_over_prose() {
        let mut keywords: Vec<String> = Vec::new();
        for (_, head) in crate::builtin::detector_heads() {
            let head: serde_json::Value = serde_json::from_str(head).unwrap();
            for k in head["keywords"]
                .as_str()
                .unwrap()
                .split(crate::builtin::KEYWORD_SEPARATOR)
            {
                keywords.push(k.to_string());
            }
        }
        keywords.sort();
        keywords.dedup();
        let refs: Vec<&str> = keywords.iter().map(String::as_str).collect();
        let set = KeywordSet::new(refs.iter().copied());
        let prose = include_str!("../../tests/corpus/agent-prose.txt");
        for chunk in prose.split("\n\n").chain([prose]) {
            assert_finds(&set, &refs, chunk);
        }
    }

    #[test]
    fn empty_keywords_never_match() {
        let set = KeywordSet::new(["", "x"]);
        assert_eq!(set.find("x marks the spot"), vec![1]);
    }

    /// A keyword at every offset of texts of every length around the loop's
    /// eight-byte reads: a keyword in the last bytes (a three-byte one too)
    /// is found.
    #[test]
    fn finds_keywords_at_every_offset_and_text_length() {
        let keywords = ["deploy", "push", "fix", "rm", "ship it"];
        let set = KeywordSet::new(keywords);
        for len in 0..48usize {
            for (k, keyword) in keywords.iter().enumerate() {
                for at in 0..=len.saturating_sub(keyword.len()) {
                    let mut text = "x".repeat(len);
                    if at + keyword.len() <= len {
                        let cased = if (at + k) % 2 == 0 {
                            keyword.to_uppercase()
                        } else {
                            keyword.to_string()
                        };
                        text.replace_range(at..at + keyword.len(), &cased);
                    }
                    assert_finds(&set, &keywords, &text);
                }
            }
        }
    }

    proptest::proptest! {
        /// On texts made of keyword pieces, letters of either case,
        /// punctuation and multi-byte characters, the scan agrees with the
        /// reference.
        #[test]
        fn the_scan_agrees_with_aho_corasick(
            pieces in proptest::collection::vec(
                proptest::prop_oneof![
                    proptest::sample::select(vec![
                        "commit", "COMMIT", "push", "Pus", "ship it", "merg", "merge",
                        "v2", "rm", "コミット", "producción", "é", " ", "\n", ".",
                    ]),
                    proptest::sample::select(vec!["a", "b", "t", "it", "sh", "oy", "dep", "lo"]),
                ],
                0..80,
            ),
        ) {
            let keywords = [
                "commit", "it", "push", "merg", "merge", "v2", "rm", "deploy", "loy",
                "ship it", "コミット", "producción",
            ];
            let set = KeywordSet::new(keywords);
            let text: String = pieces.concat();
            proptest::prop_assert_eq!(set.find(&text), reference(&keywords, &text));
        }
    }
}
