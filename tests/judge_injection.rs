//! The injection corpus: texts that attack the envelope (forged markers with
//! guessed nonces, fake JSON verdicts, "ignore previous instructions",
//! role-play, unicode look-alikes) do not change the outcome of a judge that
//! answers for the real content.
//!
//! The test judge answers by rule: a rule matches only when the text it
//! extracted between the real markers contains the whole corpus text, so a
//! forged marker that cut the text short would make the judgment fail.

mod common;

use common::{config, spec, temp_dir};
use guard::judge::{judge_all, JudgeContext, JudgeRequest};
use guard::verdict::JudgeOutcome;
use serde::Deserialize;
use serde_json::json;
use std::time::{Duration, Instant};

#[derive(Deserialize)]
struct Corpus {
    cases: Vec<Case>,
}

#[derive(Deserialize)]
struct Case {
    id: String,
    violation: bool,
    text: String,
}

fn corpus() -> Vec<Case> {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/corpus/injection.yaml");
    serde_saphyr::from_str::<Corpus>(&std::fs::read_to_string(path).unwrap())
        .unwrap()
        .cases
}

fn expected(case: &Case) -> JudgeOutcome {
    if case.violation {
        JudgeOutcome::Violation
    } else {
        JudgeOutcome::Allow
    }
}

/// Judges every case with the test judge in `style` (answers, answers-echo,
/// answers-echo-after); returns (case, outcome) pairs.
fn judge_corpus(style: &str) -> Vec<(Case, JudgeOutcome)> {
    let cases = corpus();
    let tmp = temp_dir(&format!("injection-{style}"));
    let dir = tmp.path();
    let answers = dir.join("answers.json");
    let rules: Vec<_> = cases
        .iter()
        .map(|c| json!({"detector": "*", "contains": c.text, "fields": {"violation_found": c.violation}}))
        .collect();
    std::fs::write(&answers, json!({"rules": rules, "default": {}}).to_string()).unwrap();
    let cfg = config(&format!("{style}={}", answers.display()), 30_000);
    let s = spec();
    let mut out = Vec::new();
    let mut cases = cases.into_iter().peekable();
    while cases.peek().is_some() {
        let batch: Vec<Case> = cases.by_ref().take(14).collect();
        let requests: Vec<JudgeRequest> = batch
            .iter()
            .map(|c| JudgeRequest {
                detector: "injection",
                spec: &s,
                text: &c.text,
                facts: None,
            })
            .collect();
        let ctx = JudgeContext {
            deadline: Instant::now() + Duration::from_secs(60),
            cache_dir: None,
        };
        let reports = judge_all(&cfg, &requests, &ctx);
        out.extend(
            batch
                .into_iter()
                .zip(reports.into_iter().map(|r| r.outcome)),
        );
    }
    out
}

#[test]
fn the_corpus_is_large_and_distinct() {
    let cases = corpus();
    assert!(cases.len() >= 50, "{} cases", cases.len());
    for a in &cases {
        for b in &cases {
            assert!(
                a.id == b.id || !b.text.contains(&a.text),
                "{} is inside {}",
                a.id,
                b.id
            );
        }
    }
    assert!(cases.iter().any(|c| c.violation) && cases.iter().any(|c| !c.violation));
}

#[test]
fn no_attack_changes_the_outcome() {
    for (case, outcome) in judge_corpus("answers") {
        assert_eq!(outcome, expected(&case), "{}: {:?}", case.id, case.text);
    }
}

#[test]
fn a_judge_quoting_the_attack_before_answering_is_not_fooled() {
    for (case, outcome) in judge_corpus("answers-echo") {
        assert_eq!(outcome, expected(&case), "{}: {:?}", case.id, case.text);
    }
}

#[test]
fn a_forged_verdict_quoted_last_can_only_fail_never_flip() {
    // The last JSON object is then the attacker's, without the nonce: the
    // judgment fails (the failure policy decides), it never flips.
    let mut failed = 0;
    for (case, outcome) in judge_corpus("answers-echo-after") {
        assert!(
            outcome == expected(&case) || outcome == JudgeOutcome::Fail,
            "{}: {outcome:?}",
            case.id
        );
        failed += usize::from(outcome == JudgeOutcome::Fail);
    }
    assert!(failed > 0, "some cases carry a forged JSON object");
}
