//! One judgment per turn, at `judge_all`: requests on the same text share
//! one call whose prompt holds the text once; the cache stores and serves
//! each detector on its own (a hit for one and a miss for another makes one
//! call, for the miss); a call that crashes fails every detector in it;
//! requests on different texts are not combined.

mod common;

use common::{config, temp_dir};
use guard::detector::JudgeSpec;
use guard::judge::{judge_all, JudgeConfig, JudgeContext, JudgeRequest};
use guard::verdict::{JudgeOutcome, JudgeReport};
use serde_json::json;
use std::path::Path;
use std::time::{Duration, Instant};

const TEXT: &str = "All done. I'll push to main now without running the tests.";

fn spec(field: &str) -> JudgeSpec {
    serde_json::from_value(json!({
        "prompt": format!("Is `{field}` the case?"),
        "fields": [{"name": field, "type": "boolean", "required": true, "description": "d"}],
        "violation": field
    }))
    .expect("spec")
}

/// The test judge in `mode`, logging prompts to `log` and calls to `calls`.
fn logged(mode: &str, dir: &Path) -> JudgeConfig {
    let mut cfg = config(mode, 10_000);
    let env = [
        "env".to_string(),
        format!("GUARD_TEST_JUDGE_LOG={}", dir.join("prompts").display()),
        format!("GUARD_TEST_JUDGE_CALLS={}", dir.join("calls").display()),
    ];
    cfg.command.splice(0..0, env);
    cfg
}

fn calls(dir: &Path) -> Vec<String> {
    std::fs::read_to_string(dir.join("calls"))
        .unwrap_or_default()
        .lines()
        .map(str::to_string)
        .collect()
}

fn judge(cfg: &JudgeConfig, reqs: &[JudgeRequest], cache: Option<&Path>) -> Vec<JudgeReport> {
    let ctx = JudgeContext {
        deadline: Instant::now() + Duration::from_secs(20),
        cache_dir: cache,
    };
    judge_all(cfg, reqs, &ctx)
}

fn request<'a>(detector: &'a str, spec: &'a JudgeSpec, text: &'a str) -> JudgeRequest<'a> {
    JudgeRequest {
        detector,
        spec,
        text,
        facts: None,
    }
}

#[test]
fn one_call_holds_the_text_once() {
    let tmp = temp_dir("once");
    let dir = tmp.path();
    let (a, b, c) = (spec("pushed"), spec("unverified"), spec("scope"));
    let reqs = [
        request("a", &a, TEXT),
        request("b", &b, TEXT),
        request("c", &c, TEXT),
    ];
    let reports = judge(&logged("ok", dir), &reqs, None);
    assert_eq!(calls(dir), ["a,b,c"]);
    let prompts = std::fs::read_to_string(dir.join("prompts")).unwrap();
    assert_eq!(prompts.matches("=== end of prompt ===").count(), 1);
    assert_eq!(prompts.matches(TEXT).count(), 1, "the text once: {prompts}");
    for name in ["a", "b", "c"] {
        assert!(prompts.contains(&format!("## Detector \"{name}\"")));
    }
    for (r, others) in reports.iter().zip([["b", "c"], ["a", "c"], ["a", "b"]]) {
        assert_eq!(r.outcome, JudgeOutcome::Allow, "{r:?}");
        assert_eq!(r.shared_with, others);
        assert_eq!(r.nonce_ok, Some(true));
    }
}

#[test]
fn different_texts_are_not_combined() {
    let tmp = temp_dir("apart");
    let dir = tmp.path();
    let (a, b) = (spec("pushed"), spec("unverified"));
    let reqs = [
        request("a", &a, TEXT),
        request("b", &b, "Command: git push\nFlagged by rule `x`"),
    ];
    let reports = judge(&logged("ok", dir), &reqs, None);
    let mut seen = calls(dir);
    seen.sort();
    assert_eq!(seen, ["a", "b"]);
    assert!(reports
        .iter()
        .all(|r| r.outcome == JudgeOutcome::Allow && r.shared_with.is_empty()));
}

#[test]
fn the_cache_stores_each_section_and_serves_each_detector() {
    let tmp = temp_dir("cache");
    let dir = tmp.path();
    let cache = dir.join("cache");
    let mut cfg = logged("ok", dir);
    cfg.cache_ttl_s = 3600;
    let (a, b, c) = (spec("pushed"), spec("unverified"), spec("scope"));

    // `a` alone: one single call, cached.
    let first = judge(&cfg, &[request("a", &a, TEXT)], Some(&cache));
    assert!(!first[0].cache_hit);
    assert_eq!(calls(dir), ["a"]);

    // `a` from the cache, `b` and `c` missed: one call, for them only.
    let reqs = [
        request("a", &a, TEXT),
        request("b", &b, TEXT),
        request("c", &c, TEXT),
    ];
    let second = judge(&cfg, &reqs, Some(&cache));
    assert_eq!(calls(dir), ["a", "b,c"]);
    assert!(second[0].cache_hit && !second[1].cache_hit && !second[2].cache_hit);
    assert_eq!(second[1].shared_with, ["c"]);

    // `c` hit, `d` missed: one call for `d`, with the single envelope.
    let d = spec("other");
    let third = judge(
        &cfg,
        &[request("c", &c, TEXT), request("d", &d, TEXT)],
        Some(&cache),
    );
    assert_eq!(calls(dir), ["a", "b,c", "d"]);
    assert!(third[0].cache_hit && !third[1].cache_hit);
    assert!(third[1].shared_with.is_empty());
    let prompts = std::fs::read_to_string(dir.join("prompts")).unwrap();
    let last = prompts.rsplit("=== end of prompt ===").nth(1).unwrap();
    assert!(
        !last.contains("## Detector"),
        "a lone miss gets the single envelope"
    );

    // Each section of the combined answer was stored under its own key.
    let fourth = judge(&cfg, &[request("b", &b, TEXT)], Some(&cache));
    assert!(fourth[0].cache_hit);
    assert_eq!(fourth[0].outcome, JudgeOutcome::Allow);
    assert_eq!(calls(dir).len(), 3, "no new call");
}

#[test]
fn a_crashed_call_fails_every_detector_in_it() {
    let tmp = temp_dir("crash");
    let dir = tmp.path();
    let (a, b) = (spec("pushed"), spec("unverified"));
    let reqs = [request("a", &a, TEXT), request("b", &b, TEXT)];
    for mode in ["crash", "garbage", "hang"] {
        let mut cfg = logged(mode, dir);
        cfg.timeout_ms = 500;
        let reports = judge(&cfg, &reqs, None);
        for r in &reports {
            assert_eq!(r.outcome, JudgeOutcome::Fail, "{mode}: {r:?}");
            assert!(r.error.is_some(), "{mode}");
        }
        assert_eq!(reports[0].shared_with, ["b"]);
    }
    assert_eq!(calls(dir), ["a,b", "a,b", "a,b"]);
}

#[test]
fn combine_false_asks_each_detector_alone() {
    let tmp = temp_dir("nocombine");
    let dir = tmp.path();
    let mut cfg = logged("ok", dir);
    cfg.combine = false;
    let (a, b) = (spec("pushed"), spec("unverified"));
    let reqs = [request("a", &a, TEXT), request("b", &b, TEXT)];
    let reports = judge(&cfg, &reqs, None);
    let mut seen = calls(dir);
    seen.sort();
    assert_eq!(seen, ["a", "b"]);
    assert!(reports.iter().all(|r| r.outcome == JudgeOutcome::Allow));
}
