//! The search of a [`KeywordSet`] over a text: the hot loop of Layer 1,
//! run on every event.
//!
//! The loop tests every four-byte window of the text against the anchors'
//! filter (see `engine::keywords`): fold case, hash, test two bits of one
//! word. One window at a time (the scalar loop, kept for CPUs without
//! AVX2) that runs at about 1 GB/s on quiet prose on the benchmark machine
//! and 0.8–0.95 GB/s on agent prose (docs/performance.md), at the edge of
//! the 1 GB/s the prefilter is meant to reach. Where the CPU has AVX2
//! (checked at run time, once per process), eight windows are tested at
//! once: one shuffle builds them from a 16-byte load, two multiplications
//! hash them, one gather reads their filter words (ADR 0005). Both loops
//! find the same keywords; the tests run both over the same texts.

use super::keywords::{commonness, pack, Anchors, KeywordSet};

/// "Not seen" in [`KeywordSet::find`]'s table of first occurrences.
const NONE: u32 = u32::MAX;

impl KeywordSet {
    /// The ids of the keywords that occur in `text`, each once, ordered by
    /// where their first occurrence ends (longer first at the same end): the
    /// order of first report of an overlapping Aho-Corasick scan.
    pub fn find(&self, text: &str) -> Vec<usize> {
        self.find_with(text, Loop::best())
    }

    fn find_with(&self, text: &str, scan: Loop) -> Vec<usize> {
        let t = text.as_bytes();
        // Texts are far below 4 GiB (the hook reads at most a few MB);
        // anything longer is searched in its first 4 GiB.
        let t = &t[..t.len().min(NONE as usize - 1)];
        let mut seen = Seen {
            first: vec![NONE; self.spans.len()],
            found: Vec::new(),
        };
        if let Some(anchors) = &self.anchors {
            let from = match scan {
                // SAFETY: `Loop::Avx2` is only chosen where the CPU has AVX2.
                #[cfg(target_arch = "x86_64")]
                Loop::Avx2 => unsafe { self.scan_avx2(anchors, t, &mut seen) },
                _ => 0,
            };
            self.scan_scalar(anchors, t, from, &mut seen);
        }
        // A three-byte keyword that ends the text has no window.
        if let Some(start) = t.len().checked_sub(3) {
            for &id in self.three.iter() {
                if starts_with_ignore_case(&t[start..], self.keyword(id as usize)) {
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

    /// Tests the windows that start at `from` and after, one at a time
    /// (four per eight-byte read, then the rest one by one).
    fn scan_scalar(&self, anchors: &Anchors, t: &[u8], from: usize, seen: &mut Seen) {
        let mut i = from;
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

    /// Tests eight windows per step while sixteen bytes remain; returns
    /// where the scalar loop takes over.
    ///
    /// # Safety
    /// The CPU must support AVX2.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    unsafe fn scan_avx2(&self, anchors: &Anchors, t: &[u8], seen: &mut Seen) -> usize {
        use super::keywords::{FILTER_WORDS, HASH_MULTIPLIERS};
        use std::arch::x86_64::*;
        // The gather below reads any of the filter's words unchecked.
        if anchors.filter.len() != FILTER_WORDS {
            return 0;
        }
        // Window k (bytes k..k+4) in lane k; each 128-bit half shuffles its
        // own copy of the 16 loaded bytes.
        let spread = _mm256_setr_epi8(
            0, 1, 2, 3, 1, 2, 3, 4, 2, 3, 4, 5, 3, 4, 5, 6, //
            4, 5, 6, 7, 5, 6, 7, 8, 6, 7, 8, 9, 7, 8, 9, 10,
        );
        let fold = _mm256_set1_epi32(0x2020_2020);
        let first_multiplier = _mm256_set1_epi32(HASH_MULTIPLIERS[0] as i32);
        let second_multiplier = _mm256_set1_epi32(HASH_MULTIPLIERS[1] as i32);
        let low_five = _mm256_set1_epi32(31);
        let filter = anchors.filter.as_ptr().cast::<i32>();
        let mut i = 0;
        while i + 16 <= t.len() {
            // SAFETY: `i + 16 <= t.len()`: the load reads inside `t`.
            let bytes = unsafe { _mm_loadu_si128(t.as_ptr().add(i).cast()) };
            let windows = _mm256_or_si256(
                _mm256_shuffle_epi8(_mm256_broadcastsi128_si256(bytes), spread),
                fold,
            );
            // `keywords::probe`, eight windows at a time.
            let h = _mm256_mullo_epi32(windows, first_multiplier);
            let g = _mm256_mullo_epi32(windows, second_multiplier);
            // SAFETY: `h >> 21` < 2048, the filter's length in words
            // (checked above).
            let words = unsafe { _mm256_i32gather_epi32::<4>(filter, _mm256_srli_epi32::<21>(h)) };
            // Each word shifted so that one of its two bits is its sign
            // bit; both must be set.
            let first_bit = _mm256_andnot_si256(_mm256_srli_epi32::<16>(h), low_five);
            let second_bit = _mm256_andnot_si256(_mm256_srli_epi32::<27>(g), low_five);
            let tested = _mm256_and_si256(
                _mm256_sllv_epi32(words, first_bit),
                _mm256_sllv_epi32(words, second_bit),
            );
            let mut passed = _mm256_movemask_ps(_mm256_castsi256_ps(tested)) as u32;
            if passed != 0 {
                let mut lanes = [0u32; 8];
                // SAFETY: `lanes` is 32 bytes, the width of the store.
                unsafe { _mm256_storeu_si256(lanes.as_mut_ptr().cast(), windows) };
                while passed != 0 {
                    let k = passed.trailing_zeros() as usize;
                    passed &= passed - 1;
                    self.check_inline(anchors, lanes[k], t, i + k, seen);
                }
            }
            i += 8;
        }
        i
    }

    /// [`Self::check_inline`] for a window whose first filter bit is set:
    /// the scalar loop tests the second bit only here, where the compiler
    /// cannot compute it ahead for every window.
    #[inline(never)]
    fn check(&self, anchors: &Anchors, window: u32, t: &[u8], i: usize, seen: &mut Seen) {
        if anchors.may_hold(window) {
            self.check_inline(anchors, window, t, i, seen)
        }
    }

    /// Records the keywords anchored on `window` (case folded, at `i`)
    /// whose occurrence it completes, unless seen before. Inlined into the
    /// wide loop (a call there also costs a `vzeroupper`).
    #[inline(always)]
    fn check_inline(&self, anchors: &Anchors, window: u32, t: &[u8], i: usize, seen: &mut Seen) {
        for &id in anchors.get(window) {
            let id = id as usize;
            if (window ^ self.anchor_word[id]) & self.anchor_mask[id] != 0 {
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

/// Which loop tests the windows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Loop {
    Scalar,
    #[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
    Avx2,
}

impl Loop {
    /// The fastest loop this CPU runs.
    fn best() -> Loop {
        #[cfg(all(target_arch = "x86_64", not(feature = "scalar-keyword-scan")))]
        if std::arch::is_x86_feature_detected!("avx2") {
            return Loop::Avx2;
        }
        Loop::Scalar
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

    /// The loops this machine runs (the scalar one always).
    fn loops() -> Vec<Loop> {
        let mut loops = vec![Loop::Scalar];
        if Loop::best() != Loop::Scalar {
            loops.push(Loop::best());
        }
        loops
    }

    /// Asserts that every loop finds in `text` what the reference finds.
    fn assert_finds(set: &KeywordSet, keywords: &[&str], text: &str) {
        let expected = reference(keywords, text);
        for scan in loops() {
            assert_eq!(set.find_with(text, scan), expected, "{scan:?} on {text:?}");
        }
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
        let mut keywords: Vec<String> = crate::detector::load::builtins()
            .unwrap()
            .into_iter()
            .flat_map(|d| d.keywords)
            .map(|k| k.to_lowercase())
            .collect();
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

    /// A keyword at every offset of texts of every length around the wide
    /// loop's 16-byte reads: the two loops hand over at the right place,
    /// and a keyword in the last bytes (a three-byte one too) is found.
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
        /// punctuation and multi-byte characters, every loop agrees with
        /// the reference.
        #[test]
        fn every_loop_agrees_with_aho_corasick(
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
            let expected = reference(&keywords, &text);
            for scan in loops() {
                proptest::prop_assert_eq!(set.find_with(&text, scan), expected.clone());
            }
        }
    }
}
