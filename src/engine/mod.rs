//! The engine: runs every detector that applies to an event through Layer 1
//! and, where a signal hit and no bypass did, through the judge (Layer 2),
//! then combines the detectors' decisions into one verdict.

mod compiled_patterns;
mod decide;
mod evidence;
#[cfg(test)]
mod fast_path_tests;
mod han_variants;
mod keyword_index;
mod layer1;
mod soft_wraps;

pub use decide::{combine, fit};
use evidence::with_computed;
pub use layer1::{Layer1Index, Layer1Result, Matches};

use crate::config::{Config, Mode};
use crate::detector::load::{Detector, DetectorError, LoadedDetector, LoadedHead};
use crate::detector::{JudgeSpec, TurnEvidence};
use crate::event::Event;
use crate::judge::{self, JudgeContext, JudgeRequest};
use crate::shell::{ShellAction, ShellContext};
use crate::verdict::{JudgeReport, Layer1, Verdict};
use std::path::Path;
use std::time::Instant;

/// The detectors of one config, ready to run.
pub struct Engine {
    detectors: Vec<Detector>,
    index: Layer1Index,
    /// Built for one event that carries the turn's actions ([`Self::of_heads`]):
    /// what they show. A detector with a rule whose conditions hold on it is
    /// read whatever its keywords.
    evidence: Option<TurnEvidence>,
}

/// How one evaluation runs.
pub struct EvalOptions<'a> {
    /// Ask the judge on hits (`false` for `--no-judge`).
    pub use_judge: bool,
    /// When the whole hook must have answered.
    pub deadline: Instant,
    /// The verdict cache's directory.
    pub cache_dir: Option<&'a Path>,
    /// Where a shell command runs.
    pub shell: ShellContext,
}

/// Keeps the last `max` bytes of `text`, cut at a character boundary.
pub use crate::actions::tail;

impl Engine {
    /// An engine over detectors read in full.
    pub fn new(detectors: Vec<LoadedDetector>) -> Result<Engine, String> {
        let detectors: Vec<Detector> = detectors.into_iter().map(Detector::Full).collect();
        let index = Layer1Index::new(&detectors, |_| true);
        Ok(Engine {
            detectors,
            index,
            evidence: None,
        })
    }

    /// An engine over detectors known by their heads, for one event: only
    /// the detectors that apply to it find keyword hits. Before Layer 1's
    /// patterns run, [`Self::read_hits`] reads the detectors whose keywords
    /// hit (`guard hook` reads no more of a detector than it uses).
    pub fn of_heads(heads: Vec<LoadedHead>, event: &Event) -> Engine {
        let detectors: Vec<Detector> = heads.into_iter().map(Detector::Head).collect();
        let index = Layer1Index::new(&detectors, |d| d.applies(event));
        Engine {
            detectors,
            index,
            // No action, no rule can hold: the common miss reads no more.
            evidence: (event.actions.as_ref())
                .filter(|a| !a.actions.is_empty())
                .map(TurnEvidence::of),
        }
    }

    /// The engine with Layer 1 looking for the first matching pattern of a
    /// list only ([`Matches::First`]): the same answers, fewer patterns
    /// compiled, one id reported per list (`guard hook`).
    pub fn first_matches(mut self) -> Engine {
        self.index.matches = Matches::First;
        self
    }

    /// Reads in full every detector with a keyword hit in `keyword_hits`
    /// (from [`Self::keyword_hits`] on `text`, the event's subject), and
    /// every detector with an action rule that hits without one (see
    /// [`evidence::HeadRules`]); the others stay heads.
    pub fn read_hits(
        self,
        event: &Event,
        text: &str,
        keyword_hits: &[Vec<String>],
    ) -> Result<Engine, DetectorError> {
        let mut rules = self
            .evidence
            .map(|ev| evidence::HeadRules::new(ev, event, text));
        let mut detectors = Vec::with_capacity(self.detectors.len());
        for (i, d) in self.detectors.into_iter().enumerate() {
            let read = match (&d, &mut rules) {
                _ if keyword_hits.get(i).is_some_and(|k| !k.is_empty()) => true,
                (Detector::Head(head), Some(rules)) => rules.hit(head)?,
                _ => false,
            };
            detectors.push(if read { d.read()? } else { d });
        }
        Ok(Engine {
            detectors,
            index: self.index,
            evidence: self.evidence,
        })
    }

    /// The detectors read in full, in engine order.
    pub fn detectors(&self) -> impl Iterator<Item = &LoadedDetector> {
        self.detectors.iter().filter_map(Detector::full)
    }

    /// The text the detectors look at: the subject; for turn ends, its tail
    /// with the soft line breaks of wrapped prose joined
    /// ([`soft_wraps::join_soft_wraps`]) and Traditional Chinese read in
    /// Simplified characters ([`han_variants::simplify`]).
    pub fn subject(event: &Event, config: &Config) -> String {
        let s = event.subject();
        if event.kind.is_turn_end() {
            let joined = soft_wraps::join_soft_wraps(tail(&s, config.text.max_bytes));
            match han_variants::simplify(&joined) {
                std::borrow::Cow::Owned(simplified) => simplified,
                std::borrow::Cow::Borrowed(_) => joined.into_owned(),
            }
        } else {
            s
        }
    }

    /// The keywords of each detector found in `text`, in engine order.
    pub fn keyword_hits(&self, text: &str) -> Vec<Vec<String>> {
        self.index.keyword_hits(&self.detectors, text)
    }

    /// Layer 1 for every detector that applies to the event, in engine order.
    pub fn layer1(&self, event: &Event, text: &str, shell: &ShellContext) -> Vec<Layer1Result> {
        self.layer1_hits(event, text, shell, self.keyword_hits(text))
    }

    /// [`Self::layer1`] with the keyword pass already done.
    fn layer1_hits(
        &self,
        event: &Event,
        text: &str,
        shell: &ShellContext,
        keyword_hits: Vec<Vec<String>>,
    ) -> Vec<Layer1Result> {
        let mut out = Vec::new();
        let mut hits = Vec::new();
        // Computed (once) only for an event with actions and a detector
        // with rules, unless `of_heads` did already.
        let mut evidence = self.evidence;
        for (i, (d, keywords)) in self.detectors.iter().zip(keyword_hits).enumerate() {
            if !d.applies(event) {
                continue;
            }
            let with_rules = d.full().filter(|f| !f.spec.actions.is_empty());
            if let (Some(_), Some(actions), None) = (with_rules, &event.actions, &evidence) {
                evidence = Some(TurnEvidence::of(actions));
            }
            match d.full() {
                Some(full) if keywords.is_empty() && with_rules.is_some() && evidence.is_some() => {
                    hits.push((i, full, keywords))
                }
                _ if keywords.is_empty() => out.push(Layer1Result::miss(i)),
                Some(full) => hits.push((i, full, keywords)),
                // Only reached when a caller skipped `read_hits`.
                None => out.push(Layer1Result {
                    layer1: Layer1::Hit,
                    keywords,
                    error: Some(format!("detector `{}` was not read", d.name())),
                    ..Layer1Result::miss(i)
                }),
            }
        }
        if !hits.is_empty() {
            let request = request_read(event);
            out.extend(self.index.run_hits(
                hits,
                text,
                shell,
                evidence.as_ref(),
                request.as_deref(),
            ));
            out.sort_by_key(|r| r.index);
        }
        out
    }

    /// Invalid or oversized patterns met by the evaluations so far, each
    /// naming its detector and pattern (such a detector counts as a hit).
    pub fn pattern_errors(&self) -> Vec<String> {
        self.index.pattern_errors()
    }

    /// Layer 1, then the judge where needed, then the combined verdict.
    pub fn evaluate(&self, event: &Event, config: &Config, opts: &EvalOptions) -> Verdict {
        let text = Self::subject(event, config);
        let keyword_hits = self.keyword_hits(&text);
        self.evaluate_hits(event, config, opts, &text, keyword_hits)
    }

    /// [`Self::evaluate`] on the event's subject `text` (see
    /// [`Self::subject`]) whose keyword hits are already known (from
    /// [`Self::keyword_hits`], or the hook's own pass over the same index).
    pub fn evaluate_hits(
        &self,
        event: &Event,
        config: &Config,
        opts: &EvalOptions,
        text: &str,
        keyword_hits: Vec<Vec<String>>,
    ) -> Verdict {
        let results = self.layer1_hits(event, text, &opts.shell, keyword_hits);
        let hit = |r: &Layer1Result| {
            r.layer1 == Layer1::Hit
                && self.judge_spec(r.index).is_some()
                && r.shell
                    .as_ref()
                    .is_none_or(|m| m.action == ShellAction::Ask)
        };
        // Whole-turn judgment (`judge.whole_turn`): a turn end that goes to
        // the judge is asked, in the same call, about the turn-end detectors
        // whose Layer 1 missed (not those a bypass cleared). The call is made
        // anyway; a violation one detector's words missed is seen where
        // another's hit.
        let whole_turn = config.judge.whole_turn
            && config.judge.combine
            && event.kind.is_turn_end()
            && results.iter().any(hit);
        let reads: Vec<(usize, LoadedDetector)> = if whole_turn {
            self.read_missed(&results)
        } else {
            Vec::new()
        };
        let full = |i: usize| {
            self.detectors[i]
                .full()
                .or_else(|| reads.iter().find(|(j, _)| *j == i).map(|(_, d)| d))
        };
        let spec_of = |i: usize| full(i).and_then(|d| d.spec.judge.as_ref());
        let joined =
            |r: &Layer1Result| whole_turn && r.layer1 == Layer1::Miss && spec_of(r.index).is_some();
        let judged = |r: &Layer1Result| hit(r) || joined(r);
        let pending: Vec<&Layer1Result> = results.iter().filter(|r| judged(r)).collect();
        let mut reports: Vec<JudgeReport> = Vec::new();
        if opts.use_judge && !pending.is_empty() {
            // A shell rule's ask reaches the judge with the rule and its concern.
            let texts: Vec<String> = pending
                .iter()
                .map(|r| match &r.shell {
                    Some(m) => format!(
                        "Command: {text}\nFlagged by rule `{}`: {}\nMatched part: {}",
                        m.rule_id, m.reason, m.segment
                    ),
                    None => text.to_string(),
                })
                .collect();
            // guard's own account of the turn, for turn ends: the user's
            // request and the actions, where known.
            let facts = event
                .kind
                .is_turn_end()
                .then(|| turn_facts(event))
                .flatten();
            let requests: Vec<JudgeRequest> = pending
                .iter()
                .zip(&texts)
                .filter_map(|(r, text)| {
                    spec_of(r.index).map(|spec| JudgeRequest {
                        detector: self.detectors[r.index].name(),
                        spec,
                        text,
                        facts: facts.as_deref(),
                    })
                })
                .collect();
            let ctx = JudgeContext {
                deadline: opts.deadline,
                cache_dir: opts.cache_dir,
            };
            reports = judge::judge_all(&config.judge, &requests, &ctx);
        }
        let mut reports = reports.into_iter();
        // The turn's evidence for computed fields: read once, when needed.
        let mut evidence: Option<Option<TurnEvidence>> = None;
        let failure = fit(event.kind, config.failure_for(event.kind));
        let mut detectors = Vec::new();
        for r in results {
            let is_joined = joined(&r);
            let judge = if judged(&r) && opts.use_judge {
                let report = reports
                    .next()
                    .unwrap_or_else(|| JudgeReport::failed("the judge returned no report"));
                match spec_of(r.index) {
                    Some(spec) if !spec.computed.is_empty() => {
                        let evidence = *evidence.get_or_insert_with(|| {
                            self.evidence
                                .or_else(|| event.actions.as_ref().map(TurnEvidence::of))
                        });
                        with_computed(report, spec, evidence.as_ref())
                    }
                    _ => report,
                }
            } else {
                JudgeReport::skipped()
            };
            detectors.push(decide::report(
                detector_of(&self.detectors[r.index], full(r.index)),
                event.kind,
                failure,
                r,
                judge,
                is_joined,
            ));
        }
        combine(detectors)
    }

    /// The judge section of detector `index`, when it is read and has one.
    fn judge_spec(&self, index: usize) -> Option<&JudgeSpec> {
        self.detectors[index].full()?.spec.judge.as_ref()
    }

    /// What a judgment reads of the detectors Layer 1 missed that are
    /// known by their heads only (for a whole-turn judgment); one that
    /// cannot be read is left out.
    fn read_missed(&self, results: &[Layer1Result]) -> Vec<(usize, LoadedDetector)> {
        results
            .iter()
            .filter(|r| r.layer1 == Layer1::Miss)
            .filter_map(|r| match &self.detectors[r.index] {
                Detector::Head(h) => h.judgment_part().ok().map(|d| (r.index, d)),
                Detector::Full(_) => None,
            })
            .collect()
    }
}

/// What a detector's report needs of it: its name, mode and, when read,
/// its spec.
fn detector_of<'a>(d: &'a Detector, full: Option<&'a LoadedDetector>) -> decide::Subject<'a> {
    decide::Subject {
        name: d.name(),
        shadow: d.mode() == Mode::Shadow,
        spec: full.map(|f| &f.spec),
    }
}

/// guard's facts block of a turn end, as the judge is shown it: the user's
/// request that started it and what it did, each when known.
pub fn turn_facts(event: &Event) -> Option<String> {
    let request = event
        .prompt
        .as_deref()
        .map(crate::actions::facts::render_request);
    let actions = event.actions.as_ref().map(crate::actions::facts::render);
    match (request, actions) {
        (Some(r), Some(a)) => Some(format!("{r}\n\n{a}")),
        (r, a) => r.or(a),
    }
}

/// The user's request as Layer 1 reads it, on a turn end where it is known:
/// like the text, Traditional Chinese in Simplified characters.
fn request_read(event: &Event) -> Option<std::borrow::Cow<'_, str>> {
    (event.prompt.as_deref())
        .filter(|_| event.kind.is_turn_end())
        .map(han_variants::simplify)
}
