//! The Layer-1 keyword prefilter: which keywords of a set occur in a text,
//! ASCII-case-insensitively, in the order an overlapping Aho-Corasick scan
//! would first report them.
//!
//! Why not an Aho-Corasick automaton: `guard hook` is a new process on every
//! event, so the prefilter is built on every call, and building an automaton
//! over the built-in detectors' ~470 keywords took over a millisecond, twice
//! the cost of starting the process. This index is built in microseconds: a
//! 64 Ki-bit filter on a hash of each keyword's first three (lowercased)
//! bytes, and the keywords sorted by that hash. The scan hashes the three
//! bytes at each position, and only where the filter's bit is set compares
//! the few candidate keywords. Keywords of one or two bytes (`rm`, `dd`) get
//! the same treatment with their own filter, keyed on their bytes.

/// Bits in the filter (a power of two).
const FILTER_BITS: usize = 1 << 16;

/// A set of keywords, ready to search for.
#[derive(Debug, Clone)]
pub struct KeywordSet {
    /// The keywords, ASCII-lowercased, in the caller's order (ids).
    keywords: Vec<Vec<u8>>,
    /// One bit per hash of a keyword's first three bytes.
    filter: Vec<u64>,
    /// (hash, keyword id) of every keyword of three bytes or more, sorted.
    by_hash: Vec<(u16, u32)>,
    /// One bit per (lowercased) two-byte keyword.
    short_filter: Vec<u64>,
    /// (two bytes, keyword id) of every two-byte keyword, sorted.
    two_byte: Vec<(u16, u32)>,
    /// (byte, keyword id) of every one-byte keyword.
    one_byte: Vec<(u8, u32)>,
}

fn hash3(a: u8, b: u8, c: u8) -> u16 {
    let word = u32::from(a.to_ascii_lowercase())
        | u32::from(b.to_ascii_lowercase()) << 8
        | u32::from(c.to_ascii_lowercase()) << 16;
    (word.wrapping_mul(0x9E37_79B1) >> 16) as u16
}

impl KeywordSet {
    /// Indexes the keywords (empty ones never match). Ids are positions in
    /// `keywords`.
    pub fn new<'a>(keywords: impl IntoIterator<Item = &'a str>) -> KeywordSet {
        let keywords: Vec<Vec<u8>> = keywords
            .into_iter()
            .map(|k| k.as_bytes().to_ascii_lowercase())
            .collect();
        let mut filter = vec![0u64; FILTER_BITS / 64];
        let mut by_hash = Vec::with_capacity(keywords.len());
        let mut short_filter = vec![0u64; FILTER_BITS / 64];
        let mut two_byte = Vec::new();
        let mut one_byte = Vec::new();
        for (id, kw) in keywords.iter().enumerate() {
            let id = id as u32;
            match kw.as_slice() {
                [] => {}
                [a] => one_byte.push((*a, id)),
                [a, b] => {
                    let key = u16::from_le_bytes([*a, *b]);
                    short_filter[usize::from(key) / 64] |= 1 << (key % 64);
                    two_byte.push((key, id));
                }
                [a, b, c, ..] => {
                    let h = hash3(*a, *b, *c);
                    filter[usize::from(h) / 64] |= 1 << (h % 64);
                    by_hash.push((h, id));
                }
            }
        }
        by_hash.sort_unstable();
        two_byte.sort_unstable();
        KeywordSet {
            keywords,
            filter,
            by_hash,
            short_filter,
            two_byte,
            one_byte,
        }
    }

    /// The ids of the keywords that occur in `text`, each once, ordered by
    /// where their first occurrence ends (longer first at the same end): the
    /// order of first report of an overlapping Aho-Corasick scan.
    pub fn find(&self, text: &str) -> Vec<usize> {
        let t = text.as_bytes();
        // Start of each keyword's first occurrence.
        let mut first: Vec<Option<usize>> = vec![None; self.keywords.len()];
        let mut found = 0;
        if t.len() >= 3 && !self.by_hash.is_empty() {
            for i in 0..=t.len() - 3 {
                let h = hash3(t[i], t[i + 1], t[i + 2]);
                if self.filter[usize::from(h) / 64] & (1 << (h % 64)) == 0 {
                    continue;
                }
                let from = self.by_hash.partition_point(|&(x, _)| x < h);
                for &(x, id) in &self.by_hash[from..] {
                    if x != h {
                        break;
                    }
                    let id = id as usize;
                    if first[id].is_none() && starts_with_ignore_case(&t[i..], &self.keywords[id]) {
                        first[id] = Some(i);
                        found += 1;
                    }
                }
                if found == self.by_hash.len() {
                    break;
                }
            }
        }
        if !self.two_byte.is_empty() {
            for i in 0..t.len().saturating_sub(1) {
                let key =
                    u16::from_le_bytes([t[i].to_ascii_lowercase(), t[i + 1].to_ascii_lowercase()]);
                if self.short_filter[usize::from(key) / 64] & (1 << (key % 64)) == 0 {
                    continue;
                }
                let from = self.two_byte.partition_point(|&(x, _)| x < key);
                for &(x, id) in &self.two_byte[from..] {
                    if x != key {
                        break;
                    }
                    first[id as usize].get_or_insert(i);
                }
            }
        }
        for &(byte, id) in &self.one_byte {
            first[id as usize] = t.iter().position(|c| c.to_ascii_lowercase() == byte);
        }
        let mut hits: Vec<(usize, std::cmp::Reverse<usize>, usize)> = first
            .iter()
            .enumerate()
            .filter_map(|(id, start)| {
                let len = self.keywords[id].len();
                start.map(|s| (s + len, std::cmp::Reverse(len), id))
            })
            .collect();
        hits.sort_unstable();
        hits.into_iter().map(|(_, _, id)| id).collect()
    }
}

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
