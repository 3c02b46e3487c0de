//! The verdict: what guard decided about one event, and why.
//!
//! Adapters render a [`Verdict`] in their agent's dialect; the decision log
//! and `guard check --json` serialize it as is.

use serde::Serialize;
use serde_json::{Map, Value};

/// The decision for one event.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Decision {
    /// Let it happen.
    Allow,
    /// Turn end: do not end the turn; send the reason back to the model.
    Block,
    /// Gate: refuse the tool call; the reason goes to the model.
    Deny,
    /// Gate: ask the human (rendered as deny where the agent cannot ask).
    Ask,
}

impl Decision {
    /// The lowercase name used in logs and output.
    pub fn as_str(self) -> &'static str {
        match self {
            Decision::Allow => "allow",
            Decision::Block => "block",
            Decision::Deny => "deny",
            Decision::Ask => "ask",
        }
    }

    /// Parses a lowercase decision name.
    pub fn parse(s: &str) -> Option<Decision> {
        match s {
            "allow" => Some(Decision::Allow),
            "block" => Some(Decision::Block),
            "deny" => Some(Decision::Deny),
            "ask" => Some(Decision::Ask),
            _ => None,
        }
    }

    /// How strict a decision is, to combine several detectors (the strictest wins).
    pub fn severity(self) -> u8 {
        match self {
            Decision::Allow => 0,
            Decision::Ask => 1,
            Decision::Block => 2,
            Decision::Deny => 3,
        }
    }
}

/// What Layer 1 saw for one detector.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Layer1 {
    /// No keyword, or no signal pattern, matched.
    Miss,
    /// A signal matched and no bypass did.
    Hit,
    /// A signal matched, and so did a bypass: a clear allow.
    Bypass,
}

/// What the judge (Layer 2) concluded for one detector.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum JudgeOutcome {
    /// The decision rule says the text breaks the detector's rule.
    Violation,
    /// The decision rule says it does not.
    Allow,
    /// No usable judgment (timeout, crash, bad answer, no judge).
    Fail,
    /// The judge was not asked (Layer-1 miss or bypass, `--no-judge`, or a
    /// deterministic rule decided).
    Skipped,
}

/// The judge's part of a detector report.
#[derive(Debug, Clone, Serialize)]
pub struct JudgeReport {
    /// The outcome after the decision rule.
    pub outcome: JudgeOutcome,
    /// The fields the judge returned (empty when it was not asked or failed).
    pub fields: Map<String, Value>,
    /// Why the judgment failed, when it did.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// The backend that answered.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub backend: Option<String>,
    /// Wall time of the judgment, in milliseconds.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub latency_ms: Option<u64>,
    /// The answer came from the verdict cache.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub cache_hit: bool,
    /// The model asked, when the backend takes one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// Whether the answer echoed the envelope's nonce (absent when no answer
    /// was read).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub nonce_ok: Option<bool>,
    /// The judge's raw answer, redacted and cut to a few kilobytes.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub answer: Option<String>,
    /// How many secrets of each type were redacted from the judged text.
    #[serde(skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub redactions: std::collections::BTreeMap<String, usize>,
    /// The other detectors judged in the same call (one envelope, one
    /// answer with a section each); empty when this judgment was alone.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub shared_with: Vec<String>,
}

impl JudgeReport {
    /// A report for a judge that was not asked.
    pub fn skipped() -> JudgeReport {
        JudgeReport {
            outcome: JudgeOutcome::Skipped,
            fields: Map::new(),
            error: None,
            backend: None,
            latency_ms: None,
            cache_hit: false,
            model: None,
            nonce_ok: None,
            answer: None,
            redactions: std::collections::BTreeMap::new(),
            shared_with: Vec::new(),
        }
    }

    /// A failed judgment with its reason.
    pub fn failed(error: impl Into<String>) -> JudgeReport {
        JudgeReport {
            outcome: JudgeOutcome::Fail,
            error: Some(error.into()),
            ..JudgeReport::skipped()
        }
    }
}

/// The signal a Layer-1 hit is counted under when its report names none (a
/// keyword hit under `gate: keywords`), in the per-signal figures of
/// `guard eval` and `guard stats`.
pub const NO_SIGNAL: &str = "(no signal)";

/// What one detector decided about one event.
#[derive(Debug, Clone, Serialize)]
pub struct DetectorReport {
    /// The detector's name.
    pub name: String,
    /// Layer 1's result.
    pub layer1: Layer1,
    /// Judged with the turn although its Layer 1 missed: another detector
    /// hit on the same turn end (`judge.whole_turn`).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub joined: bool,
    /// The keywords that hit (lowercased).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub keywords: Vec<String>,
    /// The ids of the signal patterns that matched.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub signals: Vec<String>,
    /// The ids of the bypass patterns that matched.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub bypasses: Vec<String>,
    /// The judge's part.
    pub judge: JudgeReport,
    /// This detector's decision.
    pub verdict: Decision,
    /// `shadow` when the detector only logs what it would have done.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mode: Option<String>,
    /// The message for the agent when the detector blocks, denies or asks.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

/// The final decision for one event.
#[derive(Debug, Clone, Serialize)]
pub struct Verdict {
    /// The decision.
    pub decision: Decision,
    /// The message for the model (and the user) when not allowed.
    pub reason: Option<String>,
    /// A message for the user only (rendered as `systemMessage` where the
    /// agent has one), e.g. when the loop guard lets a turn end.
    pub system_message: Option<String>,
    /// Every detector that applied to the event.
    pub detectors: Vec<DetectorReport>,
}

impl Verdict {
    /// An allow with no detectors and no message.
    pub fn allow() -> Verdict {
        Verdict {
            decision: Decision::Allow,
            reason: None,
            system_message: None,
            detectors: Vec::new(),
        }
    }

    /// A verdict with a decision and a reason, and no detector reports.
    pub fn with(decision: Decision, reason: impl Into<String>) -> Verdict {
        Verdict {
            decision,
            reason: Some(reason.into()),
            system_message: None,
            detectors: Vec::new(),
        }
    }
}
