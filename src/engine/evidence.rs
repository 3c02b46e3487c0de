//! The engine's side of the turn's evidence: the action rules of one
//! detector in Layer 1, and a judgment decided again with the computed
//! fields (see `detector::evidence`).

use super::layer1::Layer1Result;
use crate::detector::evidence::RequestUnknown;
use crate::detector::load::{DetectorError, LoadedDetector, LoadedHead};
use crate::detector::VerificationSource;
use crate::detector::{ActionRule, JudgeSpec, Rule, RuleKeywords, TurnEvidence};
use crate::event::Event;
use crate::pattern::{fold_text, GateText};
use crate::verdict::{JudgeOutcome, JudgeReport};

/// What a detector's action rules made of its Layer-1 result.
pub(super) struct ActionHits<'a> {
    /// Whether a rule that makes a hit held.
    pub hit: bool,
    /// The bypass ids those rules override.
    pub overridden: Vec<&'a str>,
    /// The rules with `clears: true` that held, as `action:<id>`.
    pub clears: Vec<String>,
}

/// Applies a detector's action rules to its Layer-1 result: each rule that
/// makes a hit and holds is added to the signals as `action:<id>`; the
/// clearing rules that hold are returned apart. `texts`: the case-folded
/// text and user's request (when known).
pub(super) fn action_hits<'a>(
    d: &'a LoadedDetector,
    evidence: &TurnEvidence,
    texts: (&str, Option<&str>),
    r: &mut Layer1Result,
) -> ActionHits<'a> {
    // A rule's hit counts as a signal for the rules after it (`with_signal`).
    let mut signal_hit = !r.signals.is_empty();
    let mut out = ActionHits {
        hit: false,
        overridden: Vec::new(),
        clears: Vec::new(),
    };
    let source = d
        .spec
        .judge
        .as_ref()
        .map(|j| j.verification)
        .unwrap_or_default();
    for rule in &d.spec.actions {
        if !rule.hits(evidence, texts, signal_hit, source) {
            continue;
        }
        if rule.clears {
            out.clears.push(format!("action:{}", rule.id));
            continue;
        }
        r.signals.push(format!("action:{}", rule.id));
        out.overridden
            .extend(rule.overrides.iter().map(String::as_str));
        out.hit = true;
        signal_hit = true;
    }
    out
}

/// The hook's first look at a turn with actions: whether a detector known
/// by its head has an action rule that makes a hit (no `with_signal`, no
/// `clears`) and hits, so that it must be read (see `Engine::read_hits`).
/// A rule's conditions are checked on the head; only where they hold are
/// its keyword lists read ([`LoadedHead::action_keywords`]). The text and
/// the request are folded once, as Layer 1 folds them, and a list that
/// several detectors share (`same_as`) is looked for once. (A head does not
/// know its detector's verification source: `observed` holds at least as
/// often, and reading a detector never changes an answer.)
pub(super) struct HeadRules<'a> {
    evidence: TurnEvidence,
    event: &'a Event,
    text: &'a str,
    folded: Option<(GateText<'static>, Option<String>)>,
    shown: Vec<(RuleKeywords, RequestUnknown, bool)>,
}

impl<'a> HeadRules<'a> {
    /// For the event's `evidence` and its subject `text`.
    pub fn new(evidence: TurnEvidence, event: &'a Event, text: &'a str) -> HeadRules<'a> {
        HeadRules {
            evidence,
            event,
            text,
            folded: None,
            shown: Vec::new(),
        }
    }

    /// Whether one of `head`'s rules that make a hit hits.
    pub fn hit(&mut self, head: &LoadedHead) -> Result<bool, DetectorError> {
        let holds = |r: &ActionRule| {
            !r.clears
                && !r.with_signal
                && r.conditions_hold(&self.evidence, VerificationSource::Observed)
        };
        if !head.head.actions.iter().any(holds) {
            return Ok(false);
        }
        let lists = head.action_keywords()?;
        let (event, text) = (self.event, self.text);
        let (text, request) = self.folded.get_or_insert_with(|| {
            let request = super::request_read(event).map(|r| fold_text(&r));
            (GateText::new(text), request)
        });
        for (rule, lists) in head.head.actions.iter().zip(lists) {
            if !holds(rule) {
                continue;
            }
            let unknown = rule.request_unknown;
            let seen = (self.shown.iter()).find(|(l, u, _)| *l == lists && *u == unknown);
            let shown = match seen {
                Some(&(_, _, shown)) => shown,
                None => {
                    let shown = rule.texts_show_lists(&lists, text, request.as_deref());
                    self.shown.push((lists, unknown, shown));
                    shown
                }
            };
            if shown {
                return Ok(true);
            }
        }
        Ok(false)
    }
}

/// A judgment decided again with the detector's computed fields set from
/// the turn's actions (see `detector::evidence`): unknown ones (no actions,
/// a turn read in part, `verification: reported`) are absent, so the rule's
/// `??` falls back to the judge's fields. A failed judgment stays failed.
pub(super) fn with_computed(
    mut report: JudgeReport,
    spec: &JudgeSpec,
    evidence: Option<&TurnEvidence>,
) -> JudgeReport {
    if !matches!(
        report.outcome,
        JudgeOutcome::Violation | JudgeOutcome::Allow
    ) {
        return report;
    }
    let Ok(rule) = Rule::parse(&spec.violation) else {
        return report;
    };
    crate::detector::evidence::set_computed(
        &mut report.fields,
        &spec.computed,
        evidence,
        spec.verification,
    );
    report.outcome = if rule.eval(&report.fields) {
        JudgeOutcome::Violation
    } else {
        JudgeOutcome::Allow
    };
    report
}
