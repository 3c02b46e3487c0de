//! Layer 1: one keyword pass over every detector's keywords ([`KeywordIndex`]),
//! then, only for detectors with a keyword hit, their signal and bypass
//! patterns (or their shell rules). Cheap, wide, for recall: a hit only
//! means "ask the judge"; a bypass is a clear allow that needs no judge.
//!
//! A pattern is compiled only where its literal gate holds on the text, as
//! a forward-only matcher ([`crate::pattern`]).

use super::compiled_patterns::{Compiled, Gated, Job, List};
use super::keyword_index::KeywordIndex;
use crate::detector::load::{Detector, LoadedDetector};
use crate::detector::{Gate, TurnEvidence};
use crate::pattern::{GateText, TextClass};
use crate::shell::{self, ShellContext, ShellMatch};
use crate::verdict::Layer1;
use std::sync::OnceLock;
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
                out.extend(gated.iter().filter_map(|g| g.error().cloned()));
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
    /// the turn's `evidence` is known; they may read the user's `request`; a
    /// clearing rule that holds is the bypass), then the bypasses of the
    /// detectors a signal or an action rule hit, then, for a hit left
    /// standing, the request bypasses on the user's `request` that started
    /// the turn (when known; their ids are reported as `request:<id>`). A
    /// detector may come with no keyword (only its action rules can then
    /// hit). Results come in the order of `hits`.
    pub fn run_hits(
        &self,
        hits: Vec<KeywordHit>,
        text: &str,
        ctx: &ShellContext,
        evidence: Option<&TurnEvidence>,
        request: Option<&str>,
    ) -> Vec<Layer1Result> {
        let mut gates = (GateText::new(text), TextClass::of(text));
        // The request's gate text (and folded text), made on first use by an
        // action rule or a request bypass.
        let mut request_gates = None;
        let request_gates_of = |request| (GateText::new(request), TextClass::of(request));
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
            let keyword_enough = d.spec.signals.is_empty() || d.spec.gate == Gate::Keywords;
            let mut hit =
                r.error.is_some() || (keyword_hit && keyword_enough) || !r.signals.is_empty();
            let mut overridden = Vec::new();
            let mut clears = Vec::new();
            if let Some(evidence) = evidence.filter(|_| !d.spec.actions.is_empty()) {
                let request = request.map(|request| {
                    (request_gates
                        .get_or_insert_with(|| request_gates_of(request))
                        .0)
                        .folded()
                });
                let texts = (gates.0.folded(), request);
                let actions = super::evidence::action_hits(d, evidence, texts, &mut r);
                hit |= actions.hit;
                (overridden, clears) = (actions.overridden, actions.clears);
            }
            if hit && !clears.is_empty() && r.error.is_none() {
                // A bypass seen in the actions: no pattern needs to run.
                r.bypasses = clears;
                r.layer1 = Layer1::Bypass;
            } else if hit {
                r.layer1 = Layer1::Hit;
                let jobs = self.jobs(index, d, List::Bypasses);
                match self.run(jobs, text, &mut gates, &overridden) {
                    Ok(ids) => r.bypasses = ids,
                    Err(e) => r.error = Some(e),
                }
                if clears_a_hit(&r.bypasses, &overridden) {
                    r.layer1 = Layer1::Bypass;
                }
            }
            let asks = !d.spec.request_bypasses.is_empty() && r.error.is_none();
            if let (Layer1::Hit, true, Some(request)) = (r.layer1, asks, request) {
                let gates = request_gates.get_or_insert_with(|| request_gates_of(request));
                let jobs = self.jobs(index, d, List::RequestBypasses);
                match self.run(jobs, request, gates, &overridden) {
                    Ok(ids) if !ids.is_empty() => {
                        if clears_a_hit(&ids, &overridden) {
                            r.layer1 = Layer1::Bypass;
                        }
                        r.bypasses
                            .extend(ids.into_iter().map(|id| format!("request:{id}")));
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
            if !gates.holds(job.gate()) {
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

/// Whether the bypasses matched clear a hit: one an action rule overrides
/// (a text or request bypass) is reported, but clears nothing.
fn clears_a_hit(matched: &[String], overridden: &[&str]) -> bool {
    matched.iter().any(|b| !overridden.contains(&b.as_str()))
}
