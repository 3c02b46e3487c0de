//! Layer 1: one keyword pass over every detector's keywords ([`KeywordSet`]),
//! then, only for detectors with a keyword hit, their signal and bypass
//! patterns (or their shell rules). Cheap, wide, for recall: a hit only
//! means "ask the judge"; a bypass is a clear allow that needs no judge.

use super::keywords::KeywordSet;
use crate::detector::load::LoadedDetector;
use crate::shell::{self, ShellContext, ShellMatch};
use crate::verdict::Layer1;
use regex::{Regex, RegexBuilder, RegexSet, RegexSetBuilder};
use std::borrow::Cow;
use std::collections::HashMap;
use std::sync::OnceLock;

/// Compiled-size limit of one user pattern (regex's own limit is 10 MB).
const PATTERN_SIZE_LIMIT: usize = 1 << 20;

/// Compiled-size limit of all the signal (or bypass) patterns of one
/// detector together: many patterns cannot add up to unbounded memory.
const PATTERN_SET_SIZE_LIMIT: usize = 8 << 20;

/// Compiles one pattern the way the engine does (case-insensitive, size-limited).
pub fn compile_pattern(pattern: &str) -> Result<Regex, regex::Error> {
    RegexBuilder::new(pattern)
        .case_insensitive(true)
        .size_limit(PATTERN_SIZE_LIMIT)
        .build()
}

/// Compiles a detector's signal or bypass patterns as one set; an error
/// names the detector and the pattern at fault.
fn compile_set(
    detector: &str,
    what: &str,
    patterns: &[crate::detector::PatternSpec],
) -> Result<RegexSet, String> {
    RegexSetBuilder::new(patterns.iter().map(|p| p.pattern.as_str()))
        .case_insensitive(true)
        .size_limit(PATTERN_SET_SIZE_LIMIT)
        .build()
        .map_err(|set_error| {
            let culprit = patterns
                .iter()
                .find_map(|p| compile_pattern(&p.pattern).err().map(|e| (p, e)));
            match culprit {
                Some((p, e)) => format!(
                    "detector `{detector}`: {what} pattern `{}` (`{}`) is invalid: {}",
                    p.id,
                    crate::engine::tail(&p.pattern, 80),
                    last_line(&e.to_string())
                ),
                None => format!(
                    "detector `{detector}`: its {what} patterns together are too large: {}",
                    last_line(&set_error.to_string())
                ),
            }
        })
}

fn last_line(message: &str) -> &str {
    message
        .lines()
        .rev()
        .find(|l| !l.trim().is_empty())
        .unwrap_or(message)
        .trim()
}

/// One detector's compiled patterns, built on first use: the signals on its
/// first keyword hit, the bypasses only once a signal matched (compiling a
/// pattern set costs milliseconds, far more than running it on a turn).
#[derive(Default)]
struct Compiled {
    signals: OnceLock<Result<RegexSet, String>>,
    bypasses: OnceLock<Result<RegexSet, String>>,
}

/// The keyword index and the lazily compiled patterns of a detector set.
pub struct Layer1Index {
    keywords: KeywordSet,
    /// Pattern id in the automaton → (keyword, detectors that own it).
    owners: Vec<(String, Vec<usize>)>,
    compiled: Vec<Compiled>,
}

/// Layer 1's result for one detector.
#[derive(Debug, Clone)]
pub struct Layer1Result {
    /// Index of the detector in the engine.
    pub index: usize,
    /// Miss, hit or bypass.
    pub layer1: Layer1,
    /// Keywords that hit.
    pub keywords: Vec<String>,
    /// Ids of the signals that matched.
    pub signals: Vec<String>,
    /// Ids of the bypasses that matched.
    pub bypasses: Vec<String>,
    /// The shell rule that matched, for shell detectors.
    pub shell: Option<ShellMatch>,
    /// A pattern that failed to compile (the detector then counts as a hit).
    pub error: Option<String>,
}

impl Layer1Index {
    /// Indexes every detector's keywords (patterns are compiled later, on use).
    pub fn new(detectors: &[LoadedDetector]) -> Result<Layer1Index, String> {
        Ok(Self::from_keyword_lists(
            detectors.iter().map(|d| d.spec.keywords.as_slice()),
        ))
    }

    /// Indexes the keyword lists of detectors, one list per detector, in
    /// engine order (the hook builds it from the detectors' heads).
    pub fn from_keyword_lists<'a>(lists: impl Iterator<Item = &'a [String]>) -> Layer1Index {
        let mut owners: Vec<(String, Vec<usize>)> = Vec::new();
        let mut count = 0;
        // Keyword → its place in `owners` (a linear search was quadratic in
        // the ~470 built-in keywords, on every hook call).
        // Keys borrow the caller's keywords when lowercasing changes nothing
        // (ASCII without capitals: nearly all), saving two allocations each.
        let mut position: HashMap<Cow<'a, str>, usize> = HashMap::new();
        for (i, keywords) in lists.enumerate() {
            count += 1;
            for kw in keywords {
                let kw: Cow<'a, str> = if kw.bytes().any(|b| b.is_ascii_uppercase() || !b.is_ascii()) {
                    Cow::Owned(kw.to_lowercase())
                } else {
                    Cow::Borrowed(kw.as_str())
                };
                if kw.is_empty() {
                    continue;
                }
                match position.get(&kw) {
                    Some(&at) => {
                        let ds = &mut owners[at].1;
                        if !ds.contains(&i) {
                            ds.push(i)
                        }
                    }
                    None => {
                        owners.push((kw.to_string(), vec![i]));
                        position.insert(kw, owners.len() - 1);
                    }
                }
            }
        }
        let keywords = KeywordSet::new(owners.iter().map(|(k, _)| k.as_str()));
        let compiled = (0..count).map(|_| Compiled::default()).collect();
        Layer1Index {
            keywords,
            owners,
            compiled,
        }
    }

    /// The pattern errors met so far (patterns are compiled on first use),
    /// each naming its detector and pattern.
    pub fn pattern_errors(&self) -> Vec<String> {
        let mut out = Vec::new();
        for c in &self.compiled {
            out.extend(c.signals.get().and_then(|r| r.as_ref().err()).cloned());
            out.extend(c.bypasses.get().and_then(|r| r.as_ref().err()).cloned());
        }
        out
    }

    /// Which keywords hit, per detector index (one pass), each detector's in
    /// the order of their first occurrence in the text.
    pub fn keyword_hits(&self, text: &str, detector_count: usize) -> Vec<Vec<String>> {
        let mut hits: Vec<Vec<String>> = vec![Vec::new(); detector_count];
        for id in self.keywords.find(text) {
            let (kw, ds) = &self.owners[id];
            for &d in ds {
                hits[d].push(kw.clone());
            }
        }
        hits
    }

    /// Compiles now what [`Self::run_patterns`] will need for this text: the
    /// signal patterns, and the bypass patterns when a signal hits (the
    /// engine does this for several detectors at once, on threads).
    pub fn precompile(&self, index: usize, d: &LoadedDetector, text: &str) {
        let hit = match self.signals(index, d) {
            Ok(set) => d.spec.signals.is_empty() || set.is_match(text),
            Err(_) => true,
        };
        if hit {
            self.bypasses(index, d);
        }
    }

    fn bypasses(&self, index: usize, d: &LoadedDetector) -> &Result<RegexSet, String> {
        self.compiled[index]
            .bypasses
            .get_or_init(|| compile_set(&d.spec.name, "bypass", &d.spec.bypasses))
    }

    fn signals(&self, index: usize, d: &LoadedDetector) -> &Result<RegexSet, String> {
        self.compiled[index]
            .signals
            .get_or_init(|| compile_set(&d.spec.name, "signal", &d.spec.signals))
    }

    /// Runs a detector's patterns (or shell rules) after a keyword hit.
    pub fn run_patterns(
        &self,
        index: usize,
        d: &LoadedDetector,
        text: &str,
        keywords: Vec<String>,
        ctx: &ShellContext,
    ) -> Layer1Result {
        let mut r = Layer1Result {
            index,
            layer1: Layer1::Miss,
            keywords,
            signals: Vec::new(),
            bypasses: Vec::new(),
            shell: None,
            error: None,
        };
        if let Some(rules) = &d.spec.shell {
            r.shell = shell::classify(text, rules, ctx);
            if let Some(m) = &r.shell {
                r.signals.push(m.rule_id.clone());
                r.layer1 = Layer1::Hit;
            }
            return r;
        }
        match self.signals(index, d) {
            Ok(_) if d.spec.signals.is_empty() => {}
            Ok(set) => {
                r.signals = set
                    .matches(text)
                    .iter()
                    .map(|i| d.spec.signals[i].id.clone())
                    .collect()
            }
            Err(e) => r.error = Some(e.clone()),
        }
        let hit = r.error.is_some() || d.spec.signals.is_empty() || !r.signals.is_empty();
        if !hit {
            return r;
        }
        r.layer1 = Layer1::Hit;
        match self.bypasses(index, d) {
            Ok(set) => {
                r.bypasses = set
                    .matches(text)
                    .iter()
                    .map(|i| d.spec.bypasses[i].id.clone())
                    .collect()
            }
            Err(e) => r.error = Some(e.clone()),
        }
        if !r.bypasses.is_empty() {
            r.layer1 = Layer1::Bypass;
        }
        r
    }
}
