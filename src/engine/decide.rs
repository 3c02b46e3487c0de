//! From the detectors' reports to one verdict: each detector's message,
//! the decision an event kind can carry, and the strictest enforced
//! decision over all detectors.

use super::Layer1Result;
use crate::detector::DetectorSpec;
use crate::event::EventKind;
use crate::shell::ShellAction;
use crate::verdict::{Decision, DetectorReport, JudgeOutcome, JudgeReport, Layer1, Verdict};

/// The detector a report is about.
pub(super) struct Subject<'a> {
    /// Its name.
    pub name: &'a str,
    /// Whether it only logs what it would have done.
    pub shadow: bool,
    /// Its spec, when it was read.
    pub spec: Option<&'a DetectorSpec>,
}

/// One detector's decision on an event from its Layer-1 result `r` and its
/// judgment; `failure` is what a failed judgment becomes. A detector
/// `joined` to a whole-turn judgment (its Layer 1 missed) blocks only on the
/// judge's violation: a failed judgment leaves it allowed, as Layer 1 did.
pub(super) fn report(
    d: Subject,
    kind: EventKind,
    failure: Decision,
    r: Layer1Result,
    judge: JudgeReport,
    joined: bool,
) -> DetectorReport {
    let on_violation = |spec: &DetectorSpec| {
        let default = if kind.is_gate() {
            Decision::Ask
        } else {
            Decision::Block
        };
        fit(kind, spec.on_violation.unwrap_or(default))
    };
    let verdict = match (&r.layer1, &r.shell, d.spec) {
        (Layer1::Miss, _, Some(s)) if joined && judge.outcome == JudgeOutcome::Violation => {
            on_violation(s)
        }
        (Layer1::Miss | Layer1::Bypass, _, _) => Decision::Allow,
        (Layer1::Hit, _, None) => failure,
        (Layer1::Hit, Some(m), _) if m.action == ShellAction::Deny => fit(kind, Decision::Deny),
        (Layer1::Hit, Some(_), Some(s)) if s.judge.is_none() => failure,
        (Layer1::Hit, _, Some(s)) => match judge.outcome {
            JudgeOutcome::Violation => on_violation(s),
            JudgeOutcome::Allow => Decision::Allow,
            JudgeOutcome::Fail | JudgeOutcome::Skipped => failure,
        },
    };
    let reason = (verdict != Decision::Allow)
        .then(|| reason(d.spec.map_or("", |s| s.reason.as_str()), &r, &judge));
    let mut keywords = r.keywords;
    keywords.truncate(8);
    DetectorReport {
        name: d.name.to_string(),
        layer1: r.layer1,
        joined,
        keywords,
        signals: r.signals,
        bypasses: r.bypasses,
        judge,
        verdict,
        mode: d.shadow.then(|| "shadow".to_string()),
        reason,
    }
}

/// The message of a detector whose verdict is not allow: its `reason`
/// with the judge's own note, or the shell rule that matched.
fn reason(template: &str, r: &Layer1Result, judge: &JudgeReport) -> String {
    if let Some(m) = &r.shell {
        return format!("{} ({}: `{}`)", m.reason, m.rule_id, m.segment);
    }
    let judge_reason = judge
        .fields
        .get("reason")
        .and_then(|v| v.as_str())
        .unwrap_or("")
        .trim();
    let text = if judge_reason.is_empty() {
        // No note from the judge: drop the line that would carry it.
        template
            .lines()
            .filter(|l| !l.contains("{judge_reason}"))
            .collect::<Vec<_>>()
            .join("\n")
            .trim_end()
            .to_string()
    } else {
        template.replace("{judge_reason}", judge_reason)
    };
    if judge.outcome == JudgeOutcome::Violation {
        text
    } else {
        format!("{text} (the judgment failed, so the failure policy applies)")
    }
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
