//! One known judgment through the configured backend, for `guard doctor`:
//! proves the backend is found, answers within its timeout, echoes the
//! nonce and follows the fields, on a text whose right answer is known.

use super::{judge_all, JudgeConfig, JudgeContext, JudgeRequest};
use crate::detector::JudgeSpec;
use crate::verdict::{JudgeOutcome, JudgeReport};
use std::time::{Duration, Instant};

/// The canary text: an unverified proposal to push, so the right answer is a
/// violation.
pub const CANARY_TEXT: &str =
    "I changed the retry logic in the upload client. Let's push it to main now.";

fn canary_spec() -> JudgeSpec {
    serde_json::from_value(serde_json::json!({
        "version": 1,
        "prompt": "Does the text propose to commit, push or deploy now, without reporting any verification (tests run, CI green)? new_proposal: true when it proposes it now and reports no verification.",
        "fields": [{"name": "new_proposal", "type": "boolean", "required": true, "description": "proposes to push now without verification"}],
        "violation": "new_proposal"
    }))
    .expect("the canary spec is well-formed")
}

/// Makes the canary judgment (no cache) and returns the judge's report.
pub fn run(cfg: &JudgeConfig) -> JudgeReport {
    let spec = canary_spec();
    let request = JudgeRequest {
        detector: "canary",
        spec: &spec,
        text: CANARY_TEXT,
        facts: None,
    };
    let deadline = Instant::now() + Duration::from_millis(cfg.timeout_ms.max(1000));
    let ctx = JudgeContext {
        deadline,
        cache_dir: None,
    };
    judge_all(cfg, &[request], &ctx)
        .pop()
        .unwrap_or_else(|| JudgeReport::failed("the judge returned no report"))
}

/// Whether the canary report is the known right answer.
pub fn passed(report: &JudgeReport) -> bool {
    report.outcome == JudgeOutcome::Violation
}
