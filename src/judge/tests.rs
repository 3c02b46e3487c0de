//! Unit tests of the judge's orchestration: config, backends by name, cache.

use super::*;
use serde_json::json;
use std::time::Duration;

fn spec() -> JudgeSpec {
    serde_json::from_value(json!({
        "prompt": "Does the agent propose a commit?",
        "fields": [{"name": "new_proposal", "type": "boolean", "required": true}],
        "violation": "new_proposal"
    }))
    .unwrap()
}

/// A `command` judge written in sh: reads the nonce from the end marker and
/// answers `new_proposal: <value>`; counts its calls in `counter`.
fn sh_judge(value: &str, counter: &Path) -> JudgeConfig {
    let script = format!(
        "echo x >> '{}'; nonce=$(grep -- '--- text-end ' | tail -n1 | cut -d' ' -f3); \
         printf '{{\"new_proposal\": %s, \"nonce\": \"%s\", \"reason\": \"sh says so\"}}' {value} \"$nonce\"",
        counter.display()
    );
    JudgeConfig {
        backend: "command".into(),
        command: vec!["sh".into(), "-c".into(), script],
        ..JudgeConfig::default()
    }
}

fn temp(name: &str) -> std::path::PathBuf {
    let d = std::env::temp_dir().join(format!("guard-judge-unit-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

#[test]
fn config_defaults_and_unknown_fields() {
    let cfg: JudgeConfig =
        serde_json::from_value(json!({"backend": "command", "command": ["j"]})).unwrap();
    assert_eq!(cfg.timeout_ms, JudgeConfig::default().timeout_ms);
    assert_eq!(cfg.command, vec!["j".to_string()]);
    assert!(serde_json::from_value::<JudgeConfig>(json!({"bakend": "none"})).is_err());
    assert_eq!(JudgeConfig::default().backend, "auto");
}

#[test]
fn explicit_backends_resolve_to_themselves() {
    for b in ["none", "command", "codex", "claude", "gemini", "http"] {
        assert_eq!(
            resolve_backend(&JudgeConfig {
                backend: b.into(),
                ..JudgeConfig::default()
            }),
            b
        );
    }
    let auto = resolve_backend(&JudgeConfig::default());
    assert!(["codex", "claude", "gemini", "none"].contains(&auto.as_str()));
}

#[test]
fn none_backend_fails_every_request() {
    let s = spec();
    let cfg = JudgeConfig {
        backend: "none".into(),
        ..JudgeConfig::default()
    };
    let reqs = [
        JudgeRequest {
            detector: "d",
            spec: &s,
            text: "t",
            facts: None,
        },
        JudgeRequest {
            detector: "e",
            spec: &s,
            text: "u",
            facts: None,
        },
    ];
    let ctx = JudgeContext {
        deadline: Instant::now() + Duration::from_secs(5),
        cache_dir: None,
    };
    let reports = judge_all(&cfg, &reqs, &ctx);
    assert_eq!(reports.len(), 2);
    assert!(reports
        .iter()
        .all(|r| r.outcome == JudgeOutcome::Fail && r.backend.as_deref() == Some("none")));
}

#[test]
fn command_judge_verdicts_in_order_and_cached() {
    let dir = temp("cache");
    let counter = dir.join("calls");
    let s = spec();
    let yes = sh_judge("true", &counter);
    let ctx = JudgeContext {
        deadline: Instant::now() + Duration::from_secs(20),
        cache_dir: Some(&dir),
    };
    let reqs = [JudgeRequest {
        detector: "d",
        spec: &s,
        text: "I'll commit now.",
        facts: None,
    }];

    let first = judge_all(&yes, &reqs, &ctx);
    assert_eq!(first[0].outcome, JudgeOutcome::Violation);
    assert!(!first[0].cache_hit);
    assert_eq!(first[0].nonce_ok, Some(true));
    assert_eq!(first[0].fields.get("reason"), Some(&json!("sh says so")));
    assert!(first[0]
        .answer
        .as_deref()
        .unwrap_or("")
        .contains("new_proposal"));

    let second = judge_all(&yes, &reqs, &ctx);
    assert_eq!(second[0].outcome, JudgeOutcome::Violation);
    assert!(second[0].cache_hit);
    let calls = std::fs::read_to_string(&counter).unwrap();
    assert_eq!(calls.lines().count(), 1, "a cache hit costs no call");

    let no = sh_judge("false", &counter);
    let other = [JudgeRequest {
        detector: "d",
        spec: &s,
        text: "All tests passed.",
        facts: None,
    }];
    assert_eq!(judge_all(&no, &other, &ctx)[0].outcome, JudgeOutcome::Allow);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn failures_are_not_cached() {
    let dir = temp("nocache");
    let s = spec();
    let broken = JudgeConfig {
        backend: "command".into(),
        command: vec!["false".into()],
        ..JudgeConfig::default()
    };
    let ctx = JudgeContext {
        deadline: Instant::now() + Duration::from_secs(10),
        cache_dir: Some(&dir),
    };
    let reqs = [JudgeRequest {
        detector: "d",
        spec: &s,
        text: "x",
        facts: None,
    }];
    assert_eq!(
        judge_all(&broken, &reqs, &ctx)[0].outcome,
        JudgeOutcome::Fail
    );
    let second = judge_all(&broken, &reqs, &ctx);
    assert_eq!(second[0].outcome, JudgeOutcome::Fail);
    assert!(!second[0].cache_hit);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn secrets_are_redacted_before_the_judge_and_counted() {
    let dir = temp("redact");
    let log = dir.join("stdin");
    let s = spec();
    let cfg = JudgeConfig {
        backend: "command".into(),
        command: vec![
            "sh".into(),
            "-c".into(),
            format!("cat > '{}'; echo nothing", log.display()),
        ],
        ..JudgeConfig::default()
    };
    let ctx = JudgeContext {
        deadline: Instant::now() + Duration::from_secs(10),
        cache_dir: None,
    };
    let secret = "ghp_Zx9Qw8Er7Ty6Ui5Op4As3Df2Gh1Jk0Lz9Xc8";
    let text = format!("pushing with {secret}");
    let reqs = [JudgeRequest {
        detector: "d",
        spec: &s,
        text: &text,
        facts: None,
    }];
    let report = &judge_all(&cfg, &reqs, &ctx)[0];
    let seen = std::fs::read_to_string(&log).unwrap();
    assert!(!seen.contains(secret));
    assert!(seen.contains("[REDACTED:github-token]"));
    assert_eq!(report.redactions.get("github-token"), Some(&1));
    assert_eq!(report.outcome, JudgeOutcome::Fail);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_passed_deadline_fails_at_once() {
    let s = spec();
    let cfg = JudgeConfig {
        backend: "command".into(),
        command: vec!["sleep".into(), "10".into()],
        ..JudgeConfig::default()
    };
    let ctx = JudgeContext {
        deadline: Instant::now(),
        cache_dir: None,
    };
    let reqs = [JudgeRequest {
        detector: "d",
        spec: &s,
        text: "x",
        facts: None,
    }];
    let r = &judge_all(&cfg, &reqs, &ctx)[0];
    assert_eq!(r.outcome, JudgeOutcome::Fail);
    assert!(r.error.as_deref().unwrap_or("").contains("no time left"));
}

#[test]
fn only_requests_on_the_same_text_with_usable_names_share_a_call() {
    let s = spec();
    let req = |detector, text| JudgeRequest {
        detector,
        spec: &s,
        text,
        facts: None,
    };
    let requests = [
        req("a", "same"),
        req("b", "other"),
        req("c", "same"),
        req("nonce", "same"),
        req("a", "same"),
        req("d", "same"),
    ];
    let redacted: Vec<Redacted> = requests.iter().map(|r| redact(r.text)).collect();
    let all: Vec<usize> = (0..requests.len()).collect();
    assert_eq!(
        group(true, &requests, &redacted, &all),
        vec![vec![0, 2, 5], vec![1], vec![3], vec![4]]
    );
    assert_eq!(
        group(true, &requests, &redacted, &[1, 2, 5]),
        vec![vec![1], vec![2, 5]]
    );
    assert_eq!(
        group(false, &requests, &redacted, &[0, 2]),
        vec![vec![0], vec![2]]
    );
}

#[test]
fn requests_with_other_facts_do_not_share_a_call() {
    let s = spec();
    let req = |detector, facts| JudgeRequest {
        detector,
        spec: &s,
        text: "same",
        facts,
    };
    let requests = [
        req("a", Some("ran x")),
        req("b", Some("ran y")),
        req("c", Some("ran x")),
    ];
    let redacted: Vec<Redacted> = requests.iter().map(|r| redact(r.text)).collect();
    assert_eq!(
        group(true, &requests, &redacted, &[0, 1, 2]),
        vec![vec![0, 2], vec![1]]
    );
}
