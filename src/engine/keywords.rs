//! The Layer-1 keyword prefilter: which keywords of a set occur in a text,
//! ASCII-case-insensitively, in the order an overlapping Aho-Corasick scan
//! would first report them.
//!
//! Why not an Aho-Corasick automaton: `guard hook` is a new process on every
//! event, so the prefilter is built on every call, and building an automaton
//! over the built-in detectors' ~470 keywords took over a millisecond, twice
//! the cost of starting the process. This index is built in microseconds:
//! the keywords bucketed by a 12-bit hash of their first three (lowercased)
//! bytes. The scan hashes the three bytes at each position and compares the
//! keywords of that bucket, if any. Keywords of one or two bytes (`rm`, `dd`)
//! are bucketed the same way on their bytes.

/// Buckets (a power of two): 12 bits of hash.
const BUCKETS: usize = 1 << 12;

/// Keyword ids grouped by bucket: the ids of bucket `b` are
/// `ids[starts[b]..starts[b + 1]]`.
#[derive(Debug, Clone)]
struct Buckets {
    starts: Vec<u32>,
    ids: Vec<u32>,
}

impl Buckets {
    fn new(entries: &[(usize, u32)]) -> Buckets {
        let mut starts = vec![0u32; BUCKETS + 1];
        for &(b, _) in entries {
            starts[b + 1] += 1;
        }
        for b in 0..BUCKETS {
            starts[b + 1] += starts[b];
        }
        let mut next = starts.clone();
        let mut ids = vec![0u32; entries.len()];
        for &(b, id) in entries {
            ids[next[b] as usize] = id;
            next[b] += 1;
        }
        Buckets { starts, ids }
    }

    #[inline]
    fn get(&self, bucket: usize) -> &[u32] {
        &self.ids[self.starts[bucket] as usize..self.starts[bucket + 1] as usize]
    }
}

/// A set of keywords, ready to search for.
#[derive(Debug, Clone)]
pub struct KeywordSet {
    /// The keywords, ASCII-lowercased, end to end in one buffer (one
    /// allocation rather than one per keyword).
    bytes: Vec<u8>,
    /// Where each keyword is in `bytes`, in the caller's order (ids).
    spans: Vec<(u32, u32)>,
    /// Keywords of three bytes or more, by the hash of their first three.
    long: Buckets,
    /// Whether there is any keyword of three bytes or more.
    has_long: bool,
    /// Two-byte keywords, by the hash of their bytes.
    two_byte: Buckets,
    /// Whether there is any two-byte keyword.
    has_two_byte: bool,
    /// (byte, keyword id) of every one-byte keyword.
    one_byte: Vec<(u8, u32)>,
}

#[inline]
fn bucket(a: u8, b: u8, c: u8) -> usize {
    let word = u32::from(a.to_ascii_lowercase())
        | u32::from(b.to_ascii_lowercase()) << 8
        | u32::from(c.to_ascii_lowercase()) << 16;
    (word.wrapping_mul(0x9E37_79B1) >> 20) as usize
}

impl KeywordSet {
    /// Indexes the keywords (empty ones never match). Ids are positions in
    /// `keywords`.
    pub fn new<'a>(keywords: impl IntoIterator<Item = &'a str>) -> KeywordSet {
        let mut bytes = Vec::new();
        let mut spans = Vec::new();
        for k in keywords {
            let start = bytes.len() as u32;
            bytes.extend(k.bytes().map(|b| b.to_ascii_lowercase()));
            spans.push((start, bytes.len() as u32));
        }
        let mut long = Vec::with_capacity(spans.len());
        let mut two_byte = Vec::new();
        let mut one_byte = Vec::new();
        for (id, &(start, end)) in spans.iter().enumerate() {
            let id = id as u32;
            match &bytes[start as usize..end as usize] {
                [] => {}
                [a] => one_byte.push((*a, id)),
                [a, b] => two_byte.push((bucket(*a, *b, 0), id)),
                [a, b, c, ..] => long.push((bucket(*a, *b, *c), id)),
            }
        }
        KeywordSet {
            bytes,
            spans,
            has_long: !long.is_empty(),
            long: Buckets::new(&long),
            has_two_byte: !two_byte.is_empty(),
            two_byte: Buckets::new(&two_byte),
            one_byte,
        }
    }

    /// The ids of the keywords that occur in `text`, each once, ordered by
    /// where their first occurrence ends (longer first at the same end): the
    /// order of first report of an overlapping Aho-Corasick scan.
    pub fn find(&self, text: &str) -> Vec<usize> {
        let t = text.as_bytes();
        // Start of each keyword's first occurrence.
        let mut first: Vec<Option<usize>> = vec![None; self.spans.len()];
        if self.has_long && t.len() >= 3 {
            for i in 0..=t.len() - 3 {
                for &id in self.long.get(bucket(t[i], t[i + 1], t[i + 2])) {
                    let id = id as usize;
                    if first[id].is_none() && starts_with_ignore_case(&t[i..], self.keyword(id)) {
                        first[id] = Some(i);
                    }
                }
            }
        }
        if self.has_two_byte && t.len() >= 2 {
            for i in 0..=t.len() - 2 {
                for &id in self.two_byte.get(bucket(t[i], t[i + 1], 0)) {
                    let id = id as usize;
                    if first[id].is_none() && starts_with_ignore_case(&t[i..], self.keyword(id)) {
                        first[id] = Some(i);
                    }
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
                let len = self.keyword(id).len();
                start.map(|s| (s + len, std::cmp::Reverse(len), id))
            })
            .collect();
        hits.sort_unstable();
        hits.into_iter().map(|(_, _, id)| id).collect()
    }
}

impl KeywordSet {
    #[inline]
    fn keyword(&self, id: usize) -> &[u8] {
        let (start, end) = self.spans[id];
        &self.bytes[start as usize..end as usize]
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
            "mergemerge merg", "rm -rf; DD if=x",
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
