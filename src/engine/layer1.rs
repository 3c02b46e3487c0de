//! Layer 1: one keyword pass over every detector's keywords ([`KeywordIndex`]),
//! then, only for detectors with a keyword hit, their signal and bypass
//! patterns (or their shell rules). Cheap, wide, for recall: a hit only
//! means "ask the judge"; a bypass is a clear allow that needs no judge.
//!
//! A pattern is compiled only where its literal gate holds on the text, as
//! a forward-only matcher ([`crate::pattern`]).

use super::keyword_index::KeywordIndex;
use crate::detector::load::{Detector, LoadedDetector};
use crate::detector::{PatternSpec, TurnEvidence};
use crate::pattern::{Gate, GateText, Matcher, TextClass};
use crate::shell::{self, ShellContext, ShellMatch};
use crate::verdict::Layer1;
use std::borrow::Cow;
use std::sync::OnceLock;

/// One pattern, compiled on first use behind its literal gate (see
/// [`crate::pattern::Gate`]): a pattern whose gate does not hold on the
/// text cannot match and is never compiled.
#[derive(Default)]
struct Gated {
    /// The literal gate, encoded.
    gate: OnceLock<Cow<'static, str>>,
    regex: OnceLock<Result<Matcher, String>>,
    /// The cheaper build for pure-ASCII text (`None`: the pattern needs
    /// the Unicode build).
    ascii: OnceLock<Option<Matcher>>,
    /// The Unicode build with ASCII word boundaries, for a text whose
    /// non-ASCII characters are no word characters.
    ascii_boundaries: OnceLock<Option<Matcher>>,
}

/// The encoded gate of a pattern: computed by build.rs for the built-in
/// patterns, here for the user's.
fn gate_of(p: &PatternSpec) -> Cow<'static, str> {
    match &p.builtin_gate {
        Some(gate) => gate.clone(),
        None => Cow::Owned(Gate::of_pattern(&p.pattern).encode()),
    }
}

/// The ASCII build of a built-in pattern. A user's pattern always takes the
/// Unicode build: that is the build whose errors and size limits `guard
/// config validate` reports, and an ASCII build could accept what it
/// refuses (`\w{1000}` is small over ASCII).
fn ascii_build_of(p: &PatternSpec) -> Option<Matcher> {
    p.builtin_gate.as_ref()?;
    Matcher::for_ascii_text(&p.pattern)
}

/// Which of a detector's pattern lists.
#[derive(Clone, Copy)]
enum List {
    Signals,
    Bypasses,
    RequestBypasses,
}

impl List {
    fn patterns(self, d: &LoadedDetector) -> &[PatternSpec] {
        match self {
            List::Signals => &d.spec.signals,
            List::Bypasses => &d.spec.bypasses,
            List::RequestBypasses => &d.spec.request_bypasses,
        }
    }

    fn name(self) -> &'static str {
        match self {
            List::Signals => "signal",
            List::Bypasses => "bypass",
            List::RequestBypasses => "request bypass",
        }
    }
}

/// One pattern to compile and run: its detector, list, place in the list,
/// spec and slot.
struct Job<'a> {
    detector: &'a str,
    list: List,
    position: usize,
    pattern: &'a PatternSpec,
    slot: &'a Gated,
}

impl Job<'_> {
    /// The pattern compiled for a text of class `class` (see
    /// [`TextClass`]): the cheaper build the text allows, else the Unicode
    /// build.
    fn compile_for(&self, class: TextClass) -> Result<&Matcher, &String> {
        let pattern = &self.pattern.pattern;
        let cheaper = match class {
            TextClass::Ascii => self.slot.ascii.get_or_init(|| ascii_build_of(self.pattern)),
            TextClass::NoWordCharBeyondAscii => self
                .slot
                .ascii_boundaries
                .get_or_init(|| Matcher::with_ascii_boundaries(pattern)),
            TextClass::Unicode => &None,
        };
        match cheaper {
            Some(m) => Ok(m),
            None => self.compile().as_ref(),
        }
    }

    /// Whether the pattern matches `text` (of class `class`); the error
    /// names the detector and pattern.
    fn run(&self, text: &str, class: TextClass) -> Result<bool, String> {
        (self.compile_for(class).map(|m| m.is_match(text))).map_err(String::clone)
    }

    fn compile(&self) -> &Result<Matcher, String> {
        self.slot.regex.get_or_init(|| {
            crate::pattern::compile(&self.pattern.pattern).map_err(|e| {
                format!(
                    "detector `{}`: {} pattern `{}` (`{}`) is invalid: {}",
                    self.detector,
                    self.list.name(),
                    self.pattern.id,
                    crate::engine::tail(&self.pattern.pattern, 80),
                    last_line(&e)
                )
            })
        })
    }
}

fn last_line(message: &str) -> &str {
    message
        .lines()
        .rev()
        .find(|l| !l.trim().is_empty())
        .unwrap_or(message)
        .trim()
}

/// One detector's patterns, each compiled on first use behind its gate, per
/// [`List`].
#[derive(Default)]
struct Compiled([OnceLock<Vec<Gated>>; 3]);

/// Which of a list's matching patterns Layer 1 looks for. Its answer (miss,
/// hit or bypass) is the same either way; only the ids it reports differ.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Matches {
    /// Every one (`guard check`, `guard eval`: each id is reported).
    All,
    /// The first, trying the shortest patterns first (`guard hook`: one
    /// signal is enough for a hit, one bypass that no action rule
    /// overrides for a bypass, and on a hit, compiling the patterns is
    /// most of the work). A user's patterns always run, so that their
    /// errors show.
    First,
}

/// The keyword index and the lazily compiled patterns of a detector set.
pub struct Layer1Index {
    /// Whether each detector's keywords are looked for.
    wanted: Vec<bool>,
    /// How many matching patterns of a list are looked for.
    pub(super) matches: Matches,
    /// The keyword index over the wanted detectors' ASCII keywords only, for
    /// a pure-ASCII text (most turns), in which no other keyword can
    /// occur: half the built-in ones are not ASCII, and indexing them is
    /// most of a miss's own work.
    ascii_keywords: OnceLock<KeywordIndex>,
    /// The keyword index over all the wanted detectors' keywords.
    all_keywords: OnceLock<KeywordIndex>,
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

impl Layer1Result {
    /// A detector no keyword hit.
    pub fn miss(index: usize) -> Layer1Result {
        Layer1Result {
            index,
            layer1: Layer1::Miss,
            keywords: Vec::new(),
            signals: Vec::new(),
            bypasses: Vec::new(),
            shell: None,
            error: None,
        }
    }
}

/// A detector whose keywords hit: its index, spec and keywords.
pub type KeywordHit<'a> = (usize, &'a LoadedDetector, Vec<String>);

impl Layer1Index {
    /// Layer 1 over the detectors for which `wanted` holds (the others
    /// find no keyword hits), looking for every matching pattern; keywords
    /// are indexed and patterns compiled later, on use.
    pub fn new(detectors: &[Detector], wanted: impl Fn(&Detector) -> bool) -> Layer1Index {
        Layer1Index {
            wanted: detectors.iter().map(wanted).collect(),
            matches: Matches::All,
            ascii_keywords: OnceLock::new(),
            all_keywords: OnceLock::new(),
            compiled: detectors.iter().map(|_| Compiled::default()).collect(),
        }
    }

    /// The pattern errors met so far (patterns are compiled on first use),
    /// each naming its detector and pattern.
    pub fn pattern_errors(&self) -> Vec<String> {
        let mut out = Vec::new();
        for c in &self.compiled {
            for gated in c.0.iter().filter_map(OnceLock::get) {
                out.extend(
                    gated
                        .iter()
                        .filter_map(|g| g.regex.get()?.as_ref().err().cloned()),
                );
            }
        }
        out
    }

    /// Which keywords of `detectors` (the list this index was built for)
    /// hit, per detector index (one pass over the text, case-folded), each
    /// detector's in the order of their first occurrence in the text.
    pub fn keyword_hits(&self, detectors: &[Detector], text: &str) -> Vec<Vec<String>> {
        let index = |ascii_only: bool| {
            KeywordIndex::new(detectors.iter().zip(&self.wanted).map(|(d, &wanted)| {
                let mut keywords = if wanted { d.keywords() } else { Vec::new() };
                keywords.retain(|k| !ascii_only || k.is_ascii());
                keywords
            }))
        };
        if text.is_ascii() {
            let keywords = self.ascii_keywords.get_or_init(|| index(true));
            keywords.hits(text, detectors.len())
        } else {
            let keywords = self.all_keywords.get_or_init(|| index(false));
            keywords.hits(&crate::pattern::fold_text(text), detectors.len())
        }
    }

    fn slots(&self, index: usize, d: &LoadedDetector, list: List) -> &[Gated] {
        self.compiled[index].0[list as usize]
            .get_or_init(|| list.patterns(d).iter().map(|_| Gated::default()).collect())
    }

    /// The patterns of `list`, as compile jobs.
    fn jobs<'a>(&'a self, index: usize, d: &'a LoadedDetector, list: List) -> Vec<Job<'a>> {
        list.patterns(d)
            .iter()
            .zip(self.slots(index, d, list))
            .enumerate()
            .map(|(position, (pattern, slot))| Job {
                detector: &d.spec.name,
                list,
                position,
                pattern,
                slot,
            })
            .collect()
    }

    /// Runs the patterns (or shell rules) of the detectors whose keywords
    /// hit: every signal that passes its gate, then the action rules (when
    /// the turn's `evidence` is known), then the bypasses of the detectors a
    /// signal or an action rule hit, then, for a hit left standing, the
    /// request bypasses on the user's `request` that started the turn (when
    /// known; their ids are reported as `request:<id>`). A detector may come
    /// with no keyword (only its action rules can then hit). Results come in
    /// the order of `hits`.
    pub fn run_hits(
        &self,
        hits: Vec<KeywordHit>,
        text: &str,
        ctx: &ShellContext,
        evidence: Option<&TurnEvidence>,
        request: Option<&str>,
    ) -> Vec<Layer1Result> {
        let mut gates = (GateText::new(text), TextClass::of(text));
        // The request's gate text, made on the first request bypass run.
        let mut request_gates = None;
        let mut results = Vec::with_capacity(hits.len());
        for (index, d, keywords) in hits {
            let mut r = Layer1Result {
                keywords,
                ..Layer1Result::miss(index)
            };
            if let Some(rules) = &d.spec.shell {
                r.shell = shell::classify(text, rules, ctx);
                if let Some(m) = &r.shell {
                    r.signals.push(m.rule_id.clone());
                    r.layer1 = Layer1::Hit;
                }
                results.push(r);
                continue;
            }
            let keyword_hit = !r.keywords.is_empty();
            if keyword_hit {
                let jobs = self.jobs(index, d, List::Signals);
                match self.run(jobs, text, &mut gates, &[]) {
                    Ok(ids) => r.signals = ids,
                    Err(e) => r.error = Some(e),
                }
            }
            let mut hit = r.error.is_some()
                || (keyword_hit && d.spec.signals.is_empty())
                || !r.signals.is_empty();
            let mut overridden = Vec::new();
            if let Some(evidence) = evidence.filter(|_| !d.spec.actions.is_empty()) {
                let lower = gates.0.folded();
                let (action_hit, o) = super::evidence::action_hits(d, evidence, lower, &mut r);
                hit |= action_hit;
                overridden = o;
            }
            if hit {
                r.layer1 = Layer1::Hit;
                let jobs = self.jobs(index, d, List::Bypasses);
                match self.run(jobs, text, &mut gates, &overridden) {
                    Ok(ids) => r.bypasses = ids,
                    Err(e) => r.error = Some(e),
                }
                // A bypass an action rule overrides is reported, but clears nothing.
                if r.bypasses.iter().any(|b| !overridden.contains(&b.as_str())) {
                    r.layer1 = Layer1::Bypass;
                }
            }
            let asks = !d.spec.request_bypasses.is_empty() && r.error.is_none();
            if let (Layer1::Hit, true, Some(request)) = (r.layer1, asks, request) {
                let gates = request_gates
                    .get_or_insert_with(|| (GateText::new(request), TextClass::of(request)));
                let jobs = self.jobs(index, d, List::RequestBypasses);
                match self.run(jobs, request, gates, &[]) {
                    Ok(ids) if !ids.is_empty() => {
                        r.bypasses
                            .extend(ids.into_iter().map(|id| format!("request:{id}")));
                        r.layer1 = Layer1::Bypass;
                    }
                    Ok(_) => {}
                    Err(e) => r.error = Some(e),
                }
            }
            results.push(r);
        }
        results
    }

    /// The ids of the jobs' patterns that match `text` (with its gate text
    /// and class), in list order: all of them, or (see [`Matches::First`])
    /// the first built-in one that `overridden` does not name, the shortest
    /// tried first, and every one of the user's (whose errors must show).
    /// A pattern is compiled only where its gate holds. The first invalid
    /// pattern met is an error naming it.
    fn run<'a>(
        &self,
        mut jobs: Vec<Job<'a>>,
        text: &str,
        (gates, class): &mut (GateText<'a>, TextClass),
        overridden: &[&str],
    ) -> Result<Vec<String>, String> {
        if self.matches == Matches::First {
            jobs.sort_by_key(|j| j.pattern.pattern.len());
        }
        let mut matched = Vec::new();
        let mut error = None;
        let mut found = false;
        for job in &jobs {
            // A user's pattern always runs: its errors are reported.
            let users = job.pattern.builtin_gate.is_none();
            if found && !users {
                continue;
            }
            if !gates.holds(job.slot.gate.get_or_init(|| gate_of(job.pattern))) {
                continue;
            }
            match job.run(text, *class) {
                Ok(true) => {
                    matched.push((job.position, job.pattern.id.clone()));
                    let counts = !overridden.contains(&job.pattern.id.as_str());
                    found |= self.matches == Matches::First && counts;
                }
                Ok(false) => {}
                Err(e) => {
                    error.get_or_insert(e);
                }
            }
        }
        matched.sort();
        error.map_or_else(|| Ok(matched.into_iter().map(|(_, id)| id).collect()), Err)
    }
}
