//! Layer 1: one aho-corasick pass over every detector's keywords, then, only
//! for detectors with a keyword hit, their signal and bypass patterns (or
//! their shell rules). Cheap, wide, for recall: a hit only means "ask the
//! judge"; a bypass is a clear allow that needs no judge.

use crate::detector::load::LoadedDetector;
use crate::shell::{self, ShellContext, ShellMatch};
use crate::verdict::Layer1;
use aho_corasick::{AhoCorasick, AhoCorasickBuilder, MatchKind};
use regex::{Regex, RegexBuilder, RegexSet, RegexSetBuilder};
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

/// One detector's compiled patterns, built on its first keyword hit.
struct Compiled {
    signals: Result<RegexSet, String>,
    bypasses: Result<RegexSet, String>,
}

/// The keyword automaton and the lazily compiled patterns of a detector set.
pub struct Layer1Index {
    automaton: Option<AhoCorasick>,
    /// Pattern id in the automaton → (keyword, detectors that own it).
    owners: Vec<(String, Vec<usize>)>,
    compiled: Vec<OnceLock<Compiled>>,
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
    /// Builds the automaton over every detector's keywords.
    pub fn new(detectors: &[LoadedDetector]) -> Result<Layer1Index, String> {
        let mut owners: Vec<(String, Vec<usize>)> = Vec::new();
        for (i, d) in detectors.iter().enumerate() {
            for kw in &d.spec.keywords {
                let kw = kw.to_lowercase();
                if kw.is_empty() {
                    continue;
                }
                match owners.iter_mut().find(|(k, _)| *k == kw) {
                    Some((_, ds)) => {
                        if !ds.contains(&i) {
                            ds.push(i)
                        }
                    }
                    None => owners.push((kw, vec![i])),
                }
            }
        }
        let automaton = if owners.is_empty() {
            None
        } else {
            Some(
                AhoCorasickBuilder::new()
                    .ascii_case_insensitive(true)
                    .match_kind(MatchKind::Standard)
                    .build(owners.iter().map(|(k, _)| k.as_str()))
                    .map_err(|e| format!("keyword automaton: {e}"))?,
            )
        };
        let compiled = detectors.iter().map(|_| OnceLock::new()).collect();
        Ok(Layer1Index {
            automaton,
            owners,
            compiled,
        })
    }

    /// The pattern errors met so far (patterns are compiled on first use),
    /// each naming its detector and pattern.
    pub fn pattern_errors(&self) -> Vec<String> {
        let mut out = Vec::new();
        for c in self.compiled.iter().filter_map(OnceLock::get) {
            out.extend(c.signals.as_ref().err().cloned());
            out.extend(c.bypasses.as_ref().err().cloned());
        }
        out
    }

    /// Which keywords hit, per detector index (one overlapping pass).
    pub fn keyword_hits(&self, text: &str, detector_count: usize) -> Vec<Vec<String>> {
        let mut hits: Vec<Vec<String>> = vec![Vec::new(); detector_count];
        let Some(ac) = &self.automaton else {
            return hits;
        };
        let mut seen = vec![false; self.owners.len()];
        for m in ac.find_overlapping_iter(text) {
            let id = m.pattern().as_usize();
            if std::mem::replace(&mut seen[id], true) {
                continue;
            }
            let (kw, ds) = &self.owners[id];
            for &d in ds {
                hits[d].push(kw.clone());
            }
        }
        hits
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
        let compiled = self.compiled[index].get_or_init(|| Compiled {
            signals: compile_set(&d.spec.name, "signal", &d.spec.signals),
            bypasses: compile_set(&d.spec.name, "bypass", &d.spec.bypasses),
        });
        match &compiled.signals {
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
        match &compiled.bypasses {
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
