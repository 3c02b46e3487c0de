//! The engine: runs every detector that applies to an event through Layer 1
//! and, where a signal hit and no bypass did, through the judge (Layer 2),
//! then combines the detectors' decisions into one verdict.

pub mod ascii_hir;
#[cfg(test)]
mod fast_path_tests;
pub mod gate;
mod keyword_index;
mod keyword_scan;
mod keywords;
mod layer1;
mod matcher;

pub use keywords::KeywordSet;
pub use layer1::{compile_pattern, Layer1Index, Layer1Result};
pub use matcher::{Matcher, TextClass};

use crate::config::{Config, Mode};
use crate::detector::load::LoadedDetector;
use crate::event::{Event, EventKind};
use crate::judge::{self, JudgeContext, JudgeRequest};
use crate::shell::{ShellAction, ShellContext};
use crate::verdict::{Decision, DetectorReport, JudgeOutcome, JudgeReport, Layer1, Verdict};
use std::path::Path;
use std::time::Instant;

/// The detectors of one config, ready to run.
pub struct Engine {
    detectors: Vec<LoadedDetector>,
    index: Layer1Index,
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
pub fn tail(text: &str, max: usize) -> &str {
    if text.len() <= max {
        return text;
    }
    let mut start = text.len() - max;
    while !text.is_char_boundary(start) {
        start += 1;
    }
    &text[start..]
}

impl Engine {
    /// Builds the keyword automaton over the detectors.
    pub fn new(detectors: Vec<LoadedDetector>) -> Result<Engine, String> {
        let index = Layer1Index::new(&detectors)?;
        Ok(Engine { detectors, index })
    }

    /// The detectors, in engine order.
    pub fn detectors(&self) -> &[LoadedDetector] {
        &self.detectors
    }

    /// Builds an engine over detectors whose keyword index is already built
    /// (from their heads, in the same order, by [`Layer1Index::for_event`]).
    pub fn with_index(detectors: Vec<LoadedDetector>, index: Layer1Index) -> Engine {
        Engine { detectors, index }
    }

    /// Whether a detector applies to an event (its kind, and its tools).
    pub fn applies(d: &LoadedDetector, event: &Event) -> bool {
        applies_to(&d.spec.events, &d.spec.tools, event)
    }

    /// The text the detectors look at: the subject, its tail for turn ends.
    pub fn subject(event: &Event, config: &Config) -> String {
        let s = event.subject();
        if event.kind.is_turn_end() {
            tail(&s, config.text.max_bytes).to_string()
        } else {
            s
        }
    }

    /// The keywords of each detector found in `text`, in engine order.
    pub fn keyword_hits(&self, text: &str) -> Vec<Vec<String>> {
        self.index.keyword_hits(text, self.detectors.len())
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
        for (i, (d, kws)) in self.detectors.iter().zip(keyword_hits).enumerate() {
            if !Self::applies(d, event) {
                continue;
            }
            if kws.is_empty() {
                out.push(Layer1Result::miss(i));
            } else {
                hits.push((i, d, kws));
            }
        }
        if !hits.is_empty() {
            out.extend(self.index.run_hits(hits, text, shell));
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
        let needs_judge = |r: &Layer1Result| {
            let d = &self.detectors[r.index];
            r.layer1 == Layer1::Hit
                && d.spec.judge.is_some()
                && r.shell
                    .as_ref()
                    .is_none_or(|m| m.action == ShellAction::Ask)
        };
        let pending: Vec<&Layer1Result> = results.iter().filter(|r| needs_judge(r)).collect();
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
            let requests: Vec<JudgeRequest> = pending
                .iter()
                .zip(&texts)
                .filter_map(|(r, text)| {
                    let d = &self.detectors[r.index];
                    d.spec.judge.as_ref().map(|spec| JudgeRequest {
                        detector: &d.spec.name,
                        spec,
                        text,
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
        let mut detectors = Vec::new();
        for r in results {
            let judge = if needs_judge(&r) && opts.use_judge {
                reports
                    .next()
                    .unwrap_or_else(|| JudgeReport::failed("the judge returned no report"))
            } else {
                JudgeReport::skipped()
            };
            detectors.push(self.report(event.kind, config, r, judge));
        }
        combine(detectors)
    }

    fn report(
        &self,
        kind: EventKind,
        config: &Config,
        r: Layer1Result,
        judge: JudgeReport,
    ) -> DetectorReport {
        let d = &self.detectors[r.index];
        let on_violation = fit(
            kind,
            d.spec.on_violation.unwrap_or(if kind.is_gate() {
                Decision::Ask
            } else {
                Decision::Block
            }),
        );
        let failure = fit(kind, config.failure_for(kind));
        let verdict = match (&r.layer1, &r.shell) {
            (Layer1::Miss | Layer1::Bypass, _) => Decision::Allow,
            (Layer1::Hit, Some(m)) if m.action == ShellAction::Deny => fit(kind, Decision::Deny),
            (Layer1::Hit, Some(_)) if d.spec.judge.is_none() => failure,
            (Layer1::Hit, _) => match judge.outcome {
                JudgeOutcome::Violation => on_violation,
                JudgeOutcome::Allow => Decision::Allow,
                JudgeOutcome::Fail | JudgeOutcome::Skipped => failure,
            },
        };
        let reason = (verdict != Decision::Allow).then(|| {
            let judge_reason = judge
                .fields
                .get("reason")
                .and_then(|v| v.as_str())
                .unwrap_or("")
                .trim()
                .to_string();
            let mut text = if judge_reason.is_empty() {
                // No note from the judge: drop the line that would carry it.
                d.spec
                    .reason
                    .lines()
                    .filter(|l| !l.contains("{judge_reason}"))
                    .collect::<Vec<_>>()
                    .join("\n")
                    .trim_end()
                    .to_string()
            } else {
                d.spec.reason.replace("{judge_reason}", &judge_reason)
            };
            if let Some(m) = &r.shell {
                text = format!("{} ({}: `{}`)", m.reason, m.rule_id, m.segment);
            } else if judge.outcome != JudgeOutcome::Violation && verdict != Decision::Allow {
                text = format!("{text} (the judgment failed, so the failure policy applies)");
            }
            text
        });
        let mut keywords = r.keywords;
        keywords.truncate(8);
        DetectorReport {
            name: d.spec.name.clone(),
            layer1: r.layer1,
            keywords,
            signals: r.signals,
            bypasses: r.bypasses,
            judge,
            verdict,
            mode: (d.mode == Mode::Shadow).then(|| "shadow".to_string()),
            reason,
        }
    }
}

/// Whether a detector of these event kinds and tools applies to an event.
pub fn applies_to(events: &[EventKind], tools: &[String], event: &Event) -> bool {
    if !events.contains(&event.kind) {
        return false;
    }
    if tools.is_empty() {
        return true;
    }
    event
        .tool
        .as_ref()
        .is_some_and(|t| tools.contains(&t.canonical))
}

/// The verdict when no keyword of any applicable detector hit: what
/// [`Engine::evaluate`] gives then, without reading the detectors' patterns
/// (the hook's fast path). `detectors` are the applicable ones, in order.
pub fn all_miss_verdict<'a>(detectors: impl IntoIterator<Item = (&'a str, Mode)>) -> Verdict {
    combine(
        detectors
            .into_iter()
            .map(|(name, mode)| DetectorReport {
                name: name.to_string(),
                layer1: Layer1::Miss,
                keywords: Vec::new(),
                signals: Vec::new(),
                bypasses: Vec::new(),
                judge: JudgeReport::skipped(),
                verdict: Decision::Allow,
                mode: (mode == Mode::Shadow).then(|| "shadow".to_string()),
                reason: None,
            })
            .collect(),
    )
}

/// Maps a decision to one the event kind can carry: turn ends block, gates
/// deny or ask.
pub fn fit(kind: EventKind, d: Decision) -> Decision {
    match (kind.is_gate(), d) {
        (_, Decision::Allow) => Decision::Allow,
        (true, Decision::Block) => Decision::Deny,
        (true, other) => other,
        (false, _) => Decision::Block,
    }
}

/// The strictest enforced detector decides; shadow detectors only report.
pub fn combine(detectors: Vec<DetectorReport>) -> Verdict {
    let enforced = || {
        detectors
            .iter()
            .filter(|d| d.mode.is_none() && d.verdict != Decision::Allow)
    };
    let decision = enforced()
        .map(|d| d.verdict)
        .max_by_key(|d| d.severity())
        .unwrap_or(Decision::Allow);
    let reason = (decision != Decision::Allow).then(|| {
        enforced()
            .map(|d| {
                format!(
                    "guard [{}]: {}",
                    d.name,
                    d.reason.clone().unwrap_or_default()
                )
            })
            .collect::<Vec<_>>()
            .join("\n\n")
    });
    Verdict {
        decision,
        reason,
        system_message: None,
        detectors,
    }
}
