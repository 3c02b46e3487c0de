//! The redaction corpus: realistic fake secrets in many formats never survive
//! `redact` and never reach the judge's stdin, each is reported under its
//! type, and ordinary agent prose passes unchanged.

mod common;

use common::{config, spec, temp_dir};
use guard::judge::{judge_all, JudgeContext, JudgeRequest};
use guard::redact::redact;
use serde::Deserialize;
use std::collections::BTreeSet;
use std::time::{Duration, Instant};

#[derive(Deserialize)]
struct Corpus {
    secrets: Vec<Entry>,
}

#[derive(Deserialize)]
struct Entry {
    kind: String,
    secret: String,
    text: String,
}

fn corpus() -> Vec<Entry> {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/corpus/secrets.yaml");
    let text = std::fs::read_to_string(path).unwrap();
    serde_saphyr::from_str::<Corpus>(&text).unwrap().secrets
}

#[test]
fn the_corpus_is_large_and_varied() {
    let entries = corpus();
    let kinds: BTreeSet<&str> = entries.iter().map(|e| e.kind.as_str()).collect();
    assert!(entries.len() >= 100, "{} secrets", entries.len());
    assert!(kinds.len() >= 15, "{} formats: {kinds:?}", kinds.len());
    for e in &entries {
        assert!(
            e.text.contains(&e.secret),
            "the secret must be in its text: {}",
            e.text
        );
    }
}

#[test]
fn no_secret_survives_and_each_is_typed() {
    for e in corpus() {
        let r = redact(&e.text);
        assert!(
            !r.text.contains(&e.secret),
            "{} survived in {:?}",
            e.kind,
            r.text
        );
        let placeholder = format!("[REDACTED:{}]", e.kind);
        assert!(
            r.text.contains(&placeholder),
            "{} expected in {:?}",
            placeholder,
            r.text
        );
        assert!(
            r.counts.get(e.kind.as_str()).copied().unwrap_or(0) >= 1,
            "{}: {:?}",
            e.kind,
            r.counts
        );
    }
}

#[test]
fn all_secrets_in_one_text_are_counted_per_type() {
    let entries = corpus();
    let joined: String = entries
        .iter()
        .map(|e| e.text.as_str())
        .collect::<Vec<_>>()
        .join("\n\n");
    let r = redact(&joined);
    for e in &entries {
        assert!(!r.text.contains(&e.secret), "{} survived", e.kind);
    }
    assert!(
        r.total() >= entries.len(),
        "{} of {}",
        r.total(),
        entries.len()
    );
}

#[test]
fn no_secret_reaches_the_judge() {
    let entries = corpus();
    let tmp = temp_dir("redaction-log");
    let dir = tmp.path();
    let log = dir.join("stdin.log");
    let mut cfg = config("ok", 20_000);
    cfg.command
        .insert(0, format!("GUARD_TEST_JUDGE_LOG={}", log.display()));
    cfg.command.insert(0, "env".into());
    let s = spec();
    for batch in entries.chunks(20) {
        let requests: Vec<JudgeRequest> = batch
            .iter()
            .map(|e| JudgeRequest {
                detector: "redaction",
                spec: &s,
                text: &e.text,
                facts: None,
            })
            .collect();
        let ctx = JudgeContext {
            deadline: Instant::now() + Duration::from_secs(30),
            cache_dir: None,
        };
        let reports = judge_all(&cfg, &requests, &ctx);
        for (e, report) in batch.iter().zip(&reports) {
            assert!(
                report.redactions.get(&e.kind).copied().unwrap_or(0) >= 1,
                "{}: {:?}",
                e.kind,
                report.redactions
            );
            let logged = serde_json::to_string(report).unwrap();
            assert!(!logged.contains(&e.secret), "{} in the report", e.kind);
        }
    }
    let seen = std::fs::read_to_string(&log).unwrap();
    assert_eq!(
        seen.matches("=== end of prompt ===").count(),
        entries.len(),
        "every judgment reached the judge"
    );
    for e in &entries {
        assert!(!seen.contains(&e.secret), "{} reached the judge", e.kind);
    }
}

#[test]
fn agent_prose_passes_unchanged() {
    let prose = include_str!("corpus/agent-prose.txt");
    assert!(prose.split_whitespace().count() >= 300);
    let r = redact(prose);
    assert!(r.counts.is_empty(), "false positives: {:?}", r.counts);
    assert_eq!(r.text, prose);
}
