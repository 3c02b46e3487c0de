//! The Layer-1 keyword prefilter: which keywords of a set occur in a text,
//! ASCII-case-insensitively, in the order an overlapping Aho-Corasick scan
//! would first report them.
//!
//! Why not an Aho-Corasick automaton: `guard hook` is a new process on every
//! event, and building an automaton over the built-in detectors' ~470
//! keywords took over a millisecond, twice the cost of starting the process.
//! This index is built in microseconds, and the built-in detectors' index is
//! built by build.rs (this file is included there) and embedded as constant
//! data ([`KeywordSet::from_parts`]), so a hook builds nothing.
//!
//! Each keyword of four bytes or more is anchored on its rarest four-byte
//! window (scored by English letter frequency: `commit` on `mmit`, not on
//! the `the ` of `the pr`). The scan reads the four bytes at each position
//! as one word, folds ASCII case by setting bit 5 of each byte (a superset
//! of case-insensitive equality: a match is confirmed byte by byte after),
//! hashes it with one multiplication and tests one bit of a 64-kbit filter;
//! only the rare positions that pass look up a 12-bit bucket and compare
//! keywords. Keywords of two or three bytes (`bug`, `rm`) are found with
//! `memchr` on their first byte, one-byte ones by a plain search.

/// Filter bits (a power of two): 16 bits of hash.
const FILTER_BITS: usize = 1 << 16;
/// Buckets (a power of two): 12 bits of hash.
const BUCKETS: usize = 1 << 12;

use super::gate::BuildFnv;
use std::borrow::Cow;
use std::collections::HashMap;

/// The keywords anchored on four-byte windows: a filter bit per hash, and
/// the keyword ids grouped by bucket (the ids of bucket `b` are
/// `ids[starts[b]..starts[b + 1]]`).
#[derive(Debug, Clone)]
pub(crate) struct Anchors {
    pub(crate) filter: Cow<'static, [u64]>,
    pub(crate) starts: Cow<'static, [u32]>,
    pub(crate) ids: Cow<'static, [u32]>,
}

impl Anchors {
    /// `entries`: (hash of the anchor window, keyword id).
    fn new(entries: &[(u32, u32)]) -> Option<Anchors> {
        if entries.is_empty() {
            return None;
        }
        let mut filter = vec![0u64; FILTER_BITS / 64];
        let mut starts = vec![0u32; BUCKETS + 1];
        for &(h, _) in entries {
            let bit = filter_bit(h);
            filter[bit / 64] |= 1 << (bit % 64);
            starts[bucket(h) + 1] += 1;
        }
        for b in 0..BUCKETS {
            starts[b + 1] += starts[b];
        }
        let mut next = starts.clone();
        let mut ids = vec![0u32; entries.len()];
        for &(h, id) in entries {
            let b = bucket(h);
            ids[next[b] as usize] = id;
            next[b] += 1;
        }
        Some(Anchors {
            filter: filter.into(),
            starts: starts.into(),
            ids: ids.into(),
        })
    }

    /// Whether some anchor may have this hash (see [`folded_hash`]).
    #[inline(always)]
    fn may_hold(&self, h: u32) -> bool {
        let bit = filter_bit(h);
        self.filter[bit / 64] & (1 << (bit % 64)) != 0
    }

    /// The ids of the keywords whose anchor hashes to the bucket of `h`.
    #[inline]
    fn get(&self, h: u32) -> &[u32] {
        let b = bucket(h);
        &self.ids[self.starts[b] as usize..self.starts[b + 1] as usize]
    }
}

/// The hash of four bytes packed first-byte-lowest and case folded (bit 5
/// of each byte set).
#[inline(always)]
fn folded_hash(folded: u32) -> u32 {
    folded.wrapping_mul(0x9E37_79B1)
}

#[inline(always)]
fn filter_bit(h: u32) -> usize {
    (h >> 16) as usize
}

#[inline(always)]
fn bucket(h: u32) -> usize {
    (h >> 20) as usize
}

#[inline(always)]
fn pack(window: &[u8]) -> u32 {
    u32::from_le_bytes([window[0], window[1], window[2], window[3]])
}

/// How common the bytes of a window are in English prose, summed (see
/// [`commonness`]).
pub(crate) fn letter_cost(window: &[u8]) -> u64 {
    window.iter().map(|&b| u64::from(commonness(b))).sum()
}

/// How common a byte is in English prose (higher: more common).
#[inline]
fn commonness(b: u8) -> u32 {
    u32::from(COMMONNESS[usize::from(b.to_ascii_lowercase())])
}

const COMMONNESS: [u8; 256] = {
    let mut table = [0u8; 256];
    let ranks: [(&[u8], u8); 11] = [
        (b" ", 24),
        (b"e", 13),
        (b"t", 9),
        (b"ao", 8),
        (b"in", 7),
        (b"shr", 6),
        (b"dl", 4),
        (b"cu", 3),
        (b"mwfgyp,.", 2),
        (b"bvk", 1),
        (b"", 0),
    ];
    let mut r = 0;
    while r < ranks.len() {
        let (bytes, rank) = ranks[r];
        let mut i = 0;
        while i < bytes.len() {
            table[bytes[i] as usize] = rank;
            i += 1;
        }
        r += 1;
    }
    table
};

/// The distinct keywords of some owners' keyword lists, lowercased, in
/// order of first appearance, each with the owners that list it: what a
/// keyword index is built over (at run time by `engine::keyword_index`, at
/// build time by build.rs). Empty keywords are left out.
pub(crate) fn keyword_owners<'a, K: AsRef<str> + 'a>(
    lists: impl Iterator<Item = (usize, &'a [K])>,
) -> Vec<(String, Vec<usize>)> {
    let mut owners: Vec<(String, Vec<usize>)> = Vec::new();
    // Keyword → its place in `owners` (a linear search was quadratic in the
    // ~470 built-in keywords). Keys borrow the caller's keywords when
    // lowercasing changes nothing (nearly all).
    let mut position: HashMap<Cow<'a, str>, usize, BuildFnv> =
        HashMap::with_capacity_and_hasher(512, BuildFnv);
    for (owner, keywords) in lists {
        for kw in keywords {
            let kw = kw.as_ref();
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

/// "Not seen" in [`KeywordSet::find`]'s table of first occurrences.
const NONE: usize = usize::MAX;

/// A set of keywords, ready to search for.
#[derive(Debug, Clone)]
pub struct KeywordSet {
    /// The keywords, ASCII-lowercased, end to end in one buffer (one
    /// allocation rather than one per keyword).
    pub(crate) bytes: Cow<'static, [u8]>,
    /// Where each keyword is in `bytes`, in the caller's order (ids).
    pub(crate) spans: Cow<'static, [(u32, u32)]>,
    /// Where each keyword's anchor window starts within it.
    pub(crate) anchor_at: Cow<'static, [u32]>,
    /// Each keyword's anchor window, case folded (see [`folded_hash`]).
    pub(crate) anchor_word: Cow<'static, [u32]>,
    /// Keywords of four bytes or more, by anchor.
    pub(crate) anchors: Option<Anchors>,
    /// Ids of the keywords of one to three bytes.
    pub(crate) short: Cow<'static, [u32]>,
}

impl KeywordSet {
    /// Indexes the keywords (empty ones never match). Ids are positions in
    /// `keywords`. Each keyword is anchored on the window of its bytes that
    /// are least common in English ([`letter_cost`]).
    pub fn new<'a>(keywords: impl IntoIterator<Item = &'a str>) -> KeywordSet {
        Self::with_anchor_cost(keywords, letter_cost)
    }

    /// [`KeywordSet::new`], anchoring each keyword on the four-byte window
    /// (lowercased) of lowest `cost`: the scan stops to check a keyword at
    /// every occurrence of its anchor, so the rarer in real text, the
    /// faster. build.rs scores windows by how often they occur in English
    /// prose for the built-in detectors' indexes.
    pub(crate) fn with_anchor_cost<'a>(
        keywords: impl IntoIterator<Item = &'a str>,
        cost: impl Fn(&[u8]) -> u64,
    ) -> KeywordSet {
        let mut bytes = Vec::new();
        let mut spans = Vec::new();
        for k in keywords {
            let start = bytes.len() as u32;
            bytes.extend(k.bytes().map(|b| b.to_ascii_lowercase()));
            spans.push((start, bytes.len() as u32));
        }
        let mut anchor_at = vec![0u32; spans.len()];
        let mut anchor_word = vec![0u32; spans.len()];
        let mut entries = Vec::with_capacity(spans.len());
        let mut short = Vec::new();
        for (id, &(start, end)) in spans.iter().enumerate() {
            let kw = &bytes[start as usize..end as usize];
            match kw.len() {
                0 => {}
                1..=3 => short.push(id as u32),
                _ => {
                    let at = (0..=kw.len() - 4)
                        .min_by_key(|&i| cost(&kw[i..i + 4]))
                        .unwrap_or(0);
                    anchor_at[id] = at as u32;
                    anchor_word[id] = pack(&kw[at..at + 4]) | 0x2020_2020;
                    entries.push((folded_hash(anchor_word[id]), id as u32));
                }
            }
        }
        KeywordSet {
            bytes: bytes.into(),
            spans: spans.into(),
            anchor_at: anchor_at.into(),
            anchor_word: anchor_word.into(),
            anchors: Anchors::new(&entries),
            short: short.into(),
        }
    }

    /// A set built ahead of time (by build.rs, from [`KeywordSet::new`]'s
    /// fields), borrowing constant data: `anchors` is (filter, starts, ids).
    #[allow(dead_code)] // Not used by build.rs, which includes this file.
    pub(crate) const fn from_parts(
        bytes: &'static [u8],
        spans: &'static [(u32, u32)],
        anchor_at: &'static [u32],
        anchor_word: &'static [u32],
        anchors: Option<(&'static [u64], &'static [u32], &'static [u32])>,
        short: &'static [u32],
    ) -> KeywordSet {
        KeywordSet {
            bytes: Cow::Borrowed(bytes),
            spans: Cow::Borrowed(spans),
            anchor_at: Cow::Borrowed(anchor_at),
            anchor_word: Cow::Borrowed(anchor_word),
            anchors: match anchors {
                Some((filter, starts, ids)) => Some(Anchors {
                    filter: Cow::Borrowed(filter),
                    starts: Cow::Borrowed(starts),
                    ids: Cow::Borrowed(ids),
                }),
                None => None,
            },
            short: Cow::Borrowed(short),
        }
    }

    /// The Rust expression of this set as [`KeywordSet::from_parts`] takes
    /// it (build.rs embeds the built-in detectors' set with it).
    #[allow(dead_code)] // Used by build.rs, which includes this file.
    pub(crate) fn to_rust(&self) -> String {
        let anchors = match &self.anchors {
            Some(a) => format!("Some((&{:?}, &{:?}, &{:?}))", a.filter, a.starts, a.ids),
            None => "None".to_string(),
        };
        format!(
            "KeywordSet::from_parts(&{:?}, &{:?}, &{:?}, &{:?}, {anchors}, &{:?})",
            self.bytes, self.spans, self.anchor_at, self.anchor_word, self.short
        )
    }

    /// The ids of the keywords that occur in `text`, each once, ordered by
    /// where their first occurrence ends (longer first at the same end): the
    /// order of first report of an overlapping Aho-Corasick scan.
    pub fn find(&self, text: &str) -> Vec<usize> {
        let t = text.as_bytes();
        // Start of each keyword's first occurrence (NONE: not seen).
        let mut first: Vec<usize> = vec![NONE; self.spans.len()];
        if let Some(anchors) = &self.anchors {
            // Four windows per eight-byte read, then the rest one by one.
            let mut i = 0;
            while let Some(chunk) = t.get(i..i + 8) {
                let mut bytes = [0u8; 8];
                bytes.copy_from_slice(chunk);
                let folded = u64::from_le_bytes(bytes) | 0x2020_2020_2020_2020;
                for k in 0..4 {
                    let window = (folded >> (8 * k)) as u32;
                    let h = folded_hash(window);
                    if anchors.may_hold(h) {
                        self.check(anchors, window, t, i + k, &mut first);
                    }
                }
                i += 4;
            }
            for (at, window) in t.get(i..).unwrap_or_default().windows(4).enumerate() {
                let window = pack(window) | 0x2020_2020;
                if anchors.may_hold(folded_hash(window)) {
                    self.check(anchors, window, t, i + at, &mut first);
                }
            }
        }
        for &id in self.short.iter() {
            if let Some(start) = self.find_short(t, id as usize) {
                first[id as usize] = start;
            }
        }
        let mut hits: Vec<(usize, std::cmp::Reverse<usize>, usize)> = first
            .iter()
            .enumerate()
            .filter(|(_, &start)| start != NONE)
            .map(|(id, &start)| {
                let len = self.keyword(id).len();
                (start + len, std::cmp::Reverse(len), id)
            })
            .collect();
        hits.sort_unstable();
        hits.into_iter().map(|(_, _, id)| id).collect()
    }

    /// Records the keywords anchored on `window` (case folded, at `i`)
    /// whose occurrence it completes, unless seen before.
    #[inline(never)]
    fn check(&self, anchors: &Anchors, window: u32, t: &[u8], i: usize, first: &mut [usize]) {
        for &id in anchors.get(folded_hash(window)) {
            let id = id as usize;
            if self.anchor_word[id] != window {
                continue;
            }
            let Some(start) = i.checked_sub(self.anchor_at[id] as usize) else {
                continue;
            };
            if first[id] == NONE && starts_with_ignore_case(&t[start..], self.keyword(id)) {
                first[id] = start;
            }
        }
    }

    /// Where a keyword of one to three bytes first occurs: `memchr` finds
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

    #[inline]
    fn keyword(&self, id: usize) -> &[u8] {
        let (start, end) = self.spans[id];
        &self.bytes[start as usize..end as usize]
    }
}

#[inline]
fn starts_with_ignore_case(text: &[u8], keyword: &[u8]) -> bool {
    text.len() >= keyword.len() && text[..keyword.len()].eq_ignore_ascii_case(keyword)
}

#[cfg(test)]
mod tests {
    use super::*;
    use aho_corasick::{AhoCorasickBuilder, MatchKind};

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
        for text in texts {
            let set = KeywordSet::new(keywords.iter().copied());
            assert_eq!(set.find(text), reference(&keywords, text), "{text:?}");
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
            assert_eq!(set.find(chunk), reference(&refs, chunk), "{chunk:?}");
        }
    }

    #[test]
    fn empty_keywords_never_match() {
        let set = KeywordSet::new(["", "x"]);
        assert_eq!(set.find("x marks the spot"), vec![1]);
    }
}
