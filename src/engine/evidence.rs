//! The engine's side of the turn's evidence: the action rules of one
//! detector in Layer 1, and a judgment decided again with the computed
//! fields (see `detector::evidence`).

use super::layer1::Layer1Result;
use crate::detector::load::LoadedDetector;
use crate::detector::{JudgeSpec, Rule, TurnEvidence};
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
