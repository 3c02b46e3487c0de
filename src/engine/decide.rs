//! From the detectors' reports to one verdict: each detector's message,
//! the decision an event kind can carry, and the strictest enforced
//! decision over all detectors.

use super::Layer1Result;
use crate::event::EventKind;
use crate::verdict::{Decision, DetectorReport, JudgeOutcome, JudgeReport, Verdict};

/// The message of a detector whose verdict is not allow: its `reason`
/// with the judge's own note, or the shell rule that matched.
pub(super) fn reason(template: &str, r: &Layer1Result, judge: &JudgeReport) -> String {
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
