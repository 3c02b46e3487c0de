//! Secret redaction: what guard does to any text before it reaches a judge,
//! the decision log or guard's own stderr.
//!
//! An agent's turn often quotes `.env` files, tokens or private keys; none of
//! that may leave guard. Redaction replaces each secret with a typed
//! placeholder (`[REDACTED:github-token]`) and counts the secrets per type, so
//! the decision log can say what was hidden without showing it.
//!
//! Speed matters because this runs on every judged text: one case-insensitive
//! keyword pass over all rules' keywords selects the rules worth running, and
//! only those rules' regexes run (each compiled once, on first use). False
//! positives are costly too (a judge that sees `[REDACTED]` instead of prose
//! judges worse), so key-named values must look random and placeholders such
//! as `${VAR}`, `<your-key>` or `xxxx` are left alone.

mod rules;

use crate::keywords::KeywordSet;
use regex::Regex;
use rules::{Check, SecretRule, RULES};
use std::collections::BTreeMap;
use std::sync::OnceLock;

/// A text with its secrets replaced.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Redacted {
    /// The text, each secret replaced by `[REDACTED:<type>]`.
    pub text: String,
    /// How many secrets of each type were replaced.
    pub counts: BTreeMap<&'static str, usize>,
}

impl Redacted {
    /// The number of secrets replaced, all types together.
    pub fn total(&self) -> usize {
        self.counts.values().sum()
    }
}

/// The minimum Shannon entropy, in bits per character, of a value found by
/// its key name (`password=...`) for it to count as a secret.
const ENTROPY_FLOOR: f64 = 3.0;

/// Replaces every secret in `text` with a typed placeholder.
pub fn redact(text: &str) -> Redacted {
    let mut spans: Vec<Span> = Vec::new();
    for rule_index in rules_worth_running(text) {
        let rule = &RULES[rule_index];
        let Some(regex) = compiled(rule_index) else {
            continue;
        };
        for caps in regex.captures_iter(text) {
            let Some(m) = caps
                .name("secret")
                .or_else(|| caps.name("secret2"))
                .or_else(|| caps.get(0))
            else {
                continue;
            };
            if is_secret(rule, m.as_str()) {
                spans.push(Span {
                    start: m.start(),
                    end: m.end(),
                    rule: rule_index,
                });
            }
        }
    }
    replace_spans(text, spans)
}

/// A secret found in the text.
struct Span {
    start: usize,
    end: usize,
    rule: usize,
}

/// Replaces the spans (merging overlaps: the earliest span, then the most
/// specific rule, names the placeholder).
fn replace_spans(text: &str, mut spans: Vec<Span>) -> Redacted {
    let mut counts = BTreeMap::new();
    if spans.is_empty() {
        return Redacted {
            text: text.to_string(),
            counts,
        };
    }
    spans.sort_by_key(|s| (s.start, s.rule));
    let mut merged: Vec<Span> = Vec::with_capacity(spans.len());
    for span in spans {
        match merged.last_mut() {
            Some(last) if span.start < last.end => last.end = last.end.max(span.end),
            _ => merged.push(span),
        }
    }
    let mut out = String::with_capacity(text.len());
    let mut cursor = 0;
    for span in &merged {
        let kind = RULES[span.rule].kind;
        out.push_str(&text[cursor..span.start]);
        out.push_str("[REDACTED:");
        out.push_str(kind);
        out.push(']');
        cursor = span.end;
        *counts.entry(kind).or_insert(0) += 1;
    }
    out.push_str(&text[cursor..]);
    Redacted { text: out, counts }
}

/// The rules' keywords (case-insensitive, the scanner Layer 1 uses: it
/// builds in microseconds, and a process runs it on one text) and, for each
/// keyword, the rule it belongs to.
fn keyword_index() -> &'static (KeywordSet, Vec<usize>) {
    static INDEX: OnceLock<(KeywordSet, Vec<usize>)> = OnceLock::new();
    INDEX.get_or_init(|| {
        let mut keywords = Vec::new();
        let mut owners = Vec::new();
        for (i, rule) in RULES.iter().enumerate() {
            for k in rule.keywords {
                keywords.push(*k);
                owners.push(i);
            }
        }
        (KeywordSet::new(keywords), owners)
    })
}

/// The indexes of the rules whose keywords occur in `text`, in rule order.
fn rules_worth_running(text: &str) -> Vec<usize> {
    let (keywords, owners) = keyword_index();
    let mut wanted = vec![false; RULES.len()];
    for id in keywords.find(text) {
        if let Some(&owner) = owners.get(id) {
            wanted[owner] = true;
        }
    }
    (0..RULES.len()).filter(|&i| wanted[i]).collect()
}

/// The compiled regex of a rule (compiled on first use, then kept).
fn compiled(rule_index: usize) -> Option<&'static Regex> {
    static CACHE: OnceLock<Vec<OnceLock<Option<Regex>>>> = OnceLock::new();
    let cache = CACHE.get_or_init(|| RULES.iter().map(|_| OnceLock::new()).collect());
    cache
        .get(rule_index)?
        .get_or_init(|| Regex::new(RULES[rule_index].pattern).ok())
        .as_ref()
}

/// Whether a candidate the rule's regex found is a real secret rather than a
/// placeholder or an ordinary word.
fn is_secret(rule: &SecretRule, candidate: &str) -> bool {
    if looks_like_placeholder(candidate) {
        return false;
    }
    match rule.check {
        Check::Prefixed => true,
        Check::PrefixedWithDigit => candidate.bytes().any(|b| b.is_ascii_digit()),
        Check::Generic => looks_random(candidate),
    }
}

/// Placeholders and documentation values: `xxxx`, `<your-key>`, `${VAR}`,
/// `changeme`, a value made of one repeated character.
fn looks_like_placeholder(candidate: &str) -> bool {
    let lower = candidate.to_ascii_lowercase();
    const MARKERS: [&str; 12] = [
        "xxxx",
        "****",
        "....",
        "<",
        "${",
        "{{",
        "your-",
        "your_",
        "placeholder",
        "changeme",
        "example",
        "redacted",
    ];
    if MARKERS.iter().any(|m| lower.contains(m)) {
        return true;
    }
    let significant: Vec<char> = lower
        .chars()
        .filter(|c| c.is_ascii_alphanumeric())
        .collect();
    match significant.first() {
        Some(first) => significant.iter().all(|c| c == first),
        None => true,
    }
}

/// A value found by its key name counts when it is long, varied and mixes
/// character classes (so `compute_token` or `required` stay, `hX9#kq2Lw` goes).
fn looks_random(value: &str) -> bool {
    if value.len() < 8 || shannon_entropy(value) < ENTROPY_FLOOR {
        return false;
    }
    let lower = value.bytes().any(|b| b.is_ascii_lowercase());
    let upper = value.bytes().any(|b| b.is_ascii_uppercase());
    let digit = value.bytes().any(|b| b.is_ascii_digit());
    let symbol = value
        .bytes()
        .any(|b| !b.is_ascii_alphanumeric() && !matches!(b, b'_' | b'-' | b'.'));
    [lower, upper, digit, symbol].iter().filter(|&&c| c).count() >= 2
}

/// Shannon entropy in bits per character.
fn shannon_entropy(value: &str) -> f64 {
    let mut counts = [0usize; 256];
    for b in value.bytes() {
        counts[b as usize] += 1;
    }
    let len = value.len() as f64;
    counts
        .iter()
        .filter(|&&c| c > 0)
        .map(|&c| {
            let p = c as f64 / len;
            -p * log2(p)
        })
        .sum()
}

/// `log2` of a positive finite number, to within 1e-12, without libm:
/// `f64::log2` is the binary's only libm symbol, and loading libm.so costs
/// every hook process about 0.1 ms (docs/performance.md).
fn log2(x: f64) -> f64 {
    debug_assert!(x > 0.0 && x.is_finite());
    // x = m * 2^e with m in [1, 2) (subnormals do not occur: p >= 1/len).
    let bits = x.to_bits();
    let exponent = ((bits >> 52) & 0x7ff) as i64 - 1023;
    let mantissa = f64::from_bits((bits & 0x000f_ffff_ffff_ffff) | (1023u64 << 52));
    // ln m = 2 atanh(z), z = (m - 1) / (m + 1) in [0, 1/3): the odd series
    // z + z^3/3 + z^5/5 + ... is below 1e-13 after 13 terms.
    let z = (mantissa - 1.0) / (mantissa + 1.0);
    let z2 = z * z;
    let mut term = z;
    let mut sum = 0.0;
    for k in 0..14 {
        sum += term / f64::from(2 * k + 1);
        term *= z2;
    }
    exponent as f64 + 2.0 * sum * std::f64::consts::LOG2_E
}

#[cfg(test)]
mod tests;
