//! A keyword set: which keywords of a set occur in a text,
//! ASCII-case-insensitively, in the order an overlapping Aho-Corasick scan
//! would first report them. Layer 1's keyword pass and redaction's
//! prefilter both use it.
//!
//! Why not an Aho-Corasick automaton: `guard hook` is a new process on every
//! event, and building an automaton over the built-in detectors' ~470
//! keywords took over a millisecond, twice the cost of starting the process.
//! This set is built in microseconds.
//!
//! Each keyword of four bytes or more is anchored on its rarest four-byte
//! window (scored by English letter frequency: `commit` on `mmit`, not on
//! the `the ` of `the pr`). The scan ([`scan`]) reads the four bytes at each
//! position as one word, folds ASCII case by setting bit 5 of each byte (a
//! superset of case-insensitive equality: a match is confirmed byte by byte
//! after), and tests two bits of one filter word named by two
//! multiplicative hashes ([`probe`]); only the rare positions that pass
//! look up a 12-bit bucket and compare keywords. Keywords of one or two
//! bytes (`rm`, `v2`) are found with `memchr` on their rarest byte, and
//! those of three (`git`, `fix`) with `memmem` in the text lowercased: an
//! anchor for each window a three-byte keyword can start (128 each) made
//! them most of the cost of building a set.

mod scan;

/// Filter words (a power of two): 2048 words of 32 bits, 64 kbit.
const FILTER_WORDS: usize = 1 << 11;
/// Buckets (a power of two): 12 bits of hash.
const BUCKETS: usize = 1 << 12;

/// The keywords anchored on four-byte windows: a filter that sets two bits
/// of one word per anchor (see [`probe`]), and the keyword ids grouped by
/// bucket (the ids of bucket `b` are `ids[starts[b]..starts[b + 1]]`).
#[derive(Debug, Clone)]
struct Anchors {
    filter: Vec<u32>,
    starts: Vec<u32>,
    ids: Vec<u32>,
}

impl Anchors {
    /// `entries`: (anchor window, case folded; keyword id).
    fn new(entries: &[(u32, u32)]) -> Option<Anchors> {
        if entries.is_empty() {
            return None;
        }
        let mut filter = vec![0u32; FILTER_WORDS];
        for &(window, _) in entries {
            let (word, bits) = probe(window);
            filter[word] |= bits;
        }
        // In id order: the entries come in id order, and a counting sort
        // into buckets keeps it (a comparison sort was a quarter of a
        // hook's own work).
        let mut starts = vec![0u32; BUCKETS + 1];
        for &(window, _) in entries {
            starts[bucket(window) + 1] += 1;
        }
        for b in 0..BUCKETS {
            starts[b + 1] += starts[b];
        }
        let mut next = starts.clone();
        let mut ids = vec![0u32; entries.len()];
        for &(window, id) in entries {
            let b = bucket(window);
            ids[next[b] as usize] = id;
            next[b] += 1;
        }
        Some(Anchors {
            filter,
            starts,
            ids,
        })
    }

    /// Whether some anchor may be this window (case folded).
    #[inline(always)]
    fn may_hold(&self, window: u32) -> bool {
        let (word, bits) = probe(window);
        self.filter[word] & bits == bits
    }

    /// Whether the first of the window's two bits is set: a cheaper test
    /// that passes a few times as many windows as [`Self::may_hold`].
    #[inline(always)]
    fn first_bit_set(&self, window: u32) -> bool {
        let h = window.wrapping_mul(HASH_MULTIPLIERS[0]);
        self.filter[(h >> 21) as usize] & first_bit(h) != 0
    }

    /// The ids of the keywords whose anchor window (case folded) falls in
    /// the same bucket as `window`.
    #[inline]
    fn get(&self, window: u32) -> &[u32] {
        let b = bucket(window);
        &self.ids[self.starts[b] as usize..self.starts[b + 1] as usize]
    }
}

/// The multipliers of a window's two hashes (odd, so no two windows share
/// a hash). A window is four bytes packed first-byte-lowest and case
/// folded (bit 5 of each byte set).
const HASH_MULTIPLIERS: [u32; 2] = [0x9E37_79B1, 0x85EB_CA6B];

/// Where a window's filter bits are: the word the top 11 bits of its first
/// hash name, and in it the bit that the next five name and the bit that
/// the top five bits of its second hash name. Two bits in one word: one
/// memory read per window, and a fraction of the false passes of one bit
/// (0.1–0.2% of the windows of agent prose for the turn-end anchors,
/// against about 1%).
#[inline(always)]
fn probe(window: u32) -> (usize, u32) {
    let h = window.wrapping_mul(HASH_MULTIPLIERS[0]);
    ((h >> 21) as usize, first_bit(h) | second_bit(window))
}

#[inline(always)]
fn first_bit(h: u32) -> u32 {
    1 << ((h >> 16) & 31)
}

#[inline(always)]
fn second_bit(window: u32) -> u32 {
    1 << (window.wrapping_mul(HASH_MULTIPLIERS[1]) >> 27)
}

#[inline(always)]
fn bucket(window: u32) -> usize {
    (window.wrapping_mul(HASH_MULTIPLIERS[0]) >> 20) as usize
}

#[inline(always)]
fn pack(window: &[u8]) -> u32 {
    u32::from_le_bytes([window[0], window[1], window[2], window[3]])
}

/// Where the four-byte window of `kw` (four bytes or more) whose bytes are
/// least common in English prose starts (the first such, [`commonness`]
/// summed); the sum is rolled along, one byte in and one out. A window of
/// cost 0 (bytes that are no English letter, as in most non-Latin keywords)
/// is as rare as it gets: the first one ends the search.
fn rarest_window(kw: &[u8]) -> usize {
    let mut cost: u32 = kw[..4].iter().map(|&b| commonness(b)).sum();
    let (mut at, mut best) = (0, cost);
    for i in 1..=kw.len() - 4 {
        if best == 0 {
            break;
        }
        cost = cost + commonness(kw[i + 3]) - commonness(kw[i - 1]);
        if cost < best {
            (at, best) = (i, cost);
        }
    }
    at
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

/// A set of keywords, ready to search for.
#[derive(Debug, Clone)]
pub struct KeywordSet {
    /// The keywords, ASCII-lowercased, end to end in one buffer (one
    /// allocation rather than one per keyword).
    bytes: Vec<u8>,
    /// Where each keyword is in `bytes`, in the caller's order (ids).
    spans: Vec<(u32, u32)>,
    /// Where each keyword's anchor window starts within it.
    anchor_at: Vec<u32>,
    /// Each keyword's anchor window, case folded (see [`probe`]).
    anchor_word: Vec<u32>,
    /// Keywords of four bytes or more, by anchor.
    anchors: Option<Anchors>,
    /// Ids of the keywords of one or two bytes.
    short: Vec<u32>,
    /// Ids of the keywords of three bytes.
    three: Vec<u32>,
}

impl KeywordSet {
    /// Indexes the keywords (empty ones never match). Ids are positions in
    /// `keywords`. Each keyword is anchored on the four-byte window of its
    /// bytes that are least common in English ([`rarest_window`]): the scan
    /// stops to check a keyword at every occurrence of its anchor, so the
    /// rarer in real text, the faster.
    pub fn new<'a>(keywords: impl IntoIterator<Item = &'a str>) -> KeywordSet {
        let mut bytes = Vec::new();
        let mut spans = Vec::new();
        for k in keywords {
            let start = bytes.len();
            bytes.extend_from_slice(k.as_bytes());
            bytes[start..].make_ascii_lowercase();
            spans.push((start as u32, bytes.len() as u32));
        }
        let mut anchor_at = vec![0u32; spans.len()];
        let mut anchor_word = vec![0u32; spans.len()];
        let mut entries = Vec::with_capacity(spans.len());
        let mut short = Vec::new();
        let mut three = Vec::new();
        for (id, &(start, end)) in spans.iter().enumerate() {
            let kw = &bytes[start as usize..end as usize];
            match kw.len() {
                0 => {}
                1 | 2 => short.push(id as u32),
                3 => three.push(id as u32),
                _ => {
                    let at = rarest_window(kw);
                    anchor_at[id] = at as u32;
                    anchor_word[id] = pack(&kw[at..at + 4]) | 0x2020_2020;
                    entries.push((anchor_word[id], id as u32));
                }
            }
        }
        KeywordSet {
            bytes,
            spans,
            anchor_at,
            anchor_word,
            anchors: Anchors::new(&entries),
            short,
            three,
        }
    }

    /// Keyword `id`, lowercased, as text.
    pub fn keyword_text(&self, id: usize) -> &str {
        // The keywords' bytes were valid UTF-8, and ASCII lowercasing keeps
        // them so.
        std::str::from_utf8(self.keyword(id)).unwrap_or("")
    }

    /// Keyword `id`, lowercased.
    #[inline]
    fn keyword(&self, id: usize) -> &[u8] {
        let (start, end) = self.spans[id];
        &self.bytes[start as usize..end as usize]
    }
}
