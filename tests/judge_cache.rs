//! The verdict cache knows its judge: the same text is judged afresh after
//! the detector's prompt is edited (its version left as it was), after the
//! backend changes and after the model changes; only the same judge on the
//! same prompt and text is served from the cache.

mod common;

use common::{config, spec, temp_dir};
use guard::detector::JudgeSpec;
use guard::judge::{judge_all, JudgeConfig, JudgeContext, JudgeRequest};
use guard::verdict::{JudgeOutcome, JudgeReport};
use std::path::Path;
use std::time::{Duration, Instant};

/// One judgment of the same text, with the cache in `cache`.
fn judge(cfg: &JudgeConfig, spec: &JudgeSpec, cache: &Path) -> JudgeReport {
    let requests = [JudgeRequest {
        detector: "cache-test",
        spec,
        text: "All done. I'll push to main now.",
        facts: None,
    }];
    let ctx = JudgeContext {
        deadline: Instant::now() + Duration::from_secs(20),
        cache_dir: Some(cache),
    };
    judge_all(cfg, &requests, &ctx).remove(0)
}

/// How many times the test judge ran (it logs each prompt it reads).
fn judge_runs(log: &Path) -> usize {
    std::fs::read_to_string(log)
        .unwrap_or_default()
        .matches("=== end of prompt ===")
        .count()
}

#[test]
fn an_edited_prompt_another_backend_or_another_model_each_get_a_fresh_judgment() {
    let tmp = temp_dir("cache");
    let dir = tmp.path();
    let cache = dir.join("cache");
    let log = dir.join("judge.log");
    let mut cfg = config("ok", 20_000);
    cfg.command
        .insert(0, format!("GUARD_TEST_JUDGE_LOG={}", log.display()));
    cfg.command.insert(0, "env".into());
    cfg.cache_ttl_s = 3600;
    let s = spec();

    let first = judge(&cfg, &s, &cache);
    assert_eq!(
        (first.outcome, first.cache_hit),
        (JudgeOutcome::Allow, false)
    );
    assert_eq!(judge_runs(&log), 1);
    let again = judge(&cfg, &s, &cache);
    assert!(again.cache_hit, "the same judge, prompt and text: cached");
    assert_eq!(judge_runs(&log), 1);

    // The prompt edited, its version not bumped.
    let mut edited = s.clone();
    edited
        .prompt
        .push_str(" Count a promise to push as a violation.");
    assert_eq!(edited.version, s.version);
    let r = judge(&cfg, &edited, &cache);
    assert!(!r.cache_hit, "an edited prompt is judged afresh");
    assert_eq!(judge_runs(&log), 2);

    // Another model.
    let other_model = JudgeConfig {
        model: Some("another-model".into()),
        ..cfg.clone()
    };
    let r = judge(&other_model, &s, &cache);
    assert!(!r.cache_hit, "another model judges afresh");
    assert_eq!(judge_runs(&log), 3);

    // Another backend: `none` judges nothing, and no old verdict stands in.
    let none = JudgeConfig {
        backend: "none".into(),
        ..cfg.clone()
    };
    let r = judge(&none, &s, &cache);
    assert_eq!((r.outcome, r.cache_hit), (JudgeOutcome::Fail, false));

    // The first judge still finds its own verdicts.
    assert!(judge(&cfg, &s, &cache).cache_hit);
    assert!(judge(&cfg, &edited, &cache).cache_hit);
    assert_eq!(judge_runs(&log), 3);
}
