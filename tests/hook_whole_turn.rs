//! Whole-turn judgment (`judge.whole_turn`), on the hook path: once one
//! detector's Layer 1 hits on a turn end, the turn-end detectors whose
//! Layer 1 missed are judged in the same call and block on the judge's
//! violation alone; one a bypass cleared is not asked; a turn no detector hit
//! makes no call; `whole_turn: false` judges the hits only. With the built-in
//! detectors (read on demand by the hook), a hit on one asks about all five.

mod support;

use serde_json::{json, Value};
use std::path::PathBuf;
use support::{test_judge, Sandbox, SHIP_NOW, TEST_DETECTORS};

/// A turn-end detector the texts below miss (no "later") unless they say
/// it, and bypass when the user asked for it.
const LEFT_OUT: &str = r#"
name: left-out
events: [stop, subagent_stop]
keywords: [later]
signals:
  - {id: later, pattern: 'later'}
bypasses:
  - {id: as-asked, pattern: 'as you asked'}
judge:
  prompt: Does the text leave part of the work for later without approval?
  fields:
    - {name: deferred, type: boolean, required: true}
  violation: deferred
on_violation: block
reason: "Do the whole task. {judge_reason}"
"#;

/// `ship-now` and `left-out`, judged by the test judge answering from
/// `answers` (per detector), with `judge` settings added and `extra` YAML.
fn config(sb: &Sandbox, answers: Value, judge: &str, extra: &str) -> PathBuf {
    let dir = sb.path().join("detectors");
    sb.write("detectors/ship-now.yaml", SHIP_NOW);
    sb.write("detectors/left-out.yaml", LEFT_OUT);
    let detectors = TEST_DETECTORS
        .replace("  launch:\n    file: DIR/launch.yaml\n", "")
        .replace(
            "detectors:\n",
            "detectors:\n  left-out:\n    file: DIR/left-out.yaml\n",
        )
        .replace("DIR", &dir.display().to_string());
    let file = sb.write("answers.json", &json!({ "rules": answers }).to_string());
    let judge = format!(
        "judge: {{backend: command, command: [{:?}, {:?}], timeout_ms: 2000, cache_ttl_s: 0{judge}}}\ndeadline: {{turn_end_ms: 3000}}\n{extra}",
        test_judge().display().to_string(),
        format!("answers={}", file.display())
    );
    sb.write("test-config.yaml", &format!("{detectors}\n{judge}"))
}

#[test]
fn a_detector_layer_1_missed_is_judged_with_the_turn_and_blocks_on_a_violation() {
    let sb = Sandbox::new();
    let cfg = config(
        &sb,
        json!([
            {"detector": "ship-now", "fields": {"new_proposal": false}},
            {"detector": "left-out", "fields": {"deferred": true, "reason": "the docs were dropped"}},
        ]),
        "",
        "",
    );
    let r = sb.stop_run(&cfg, "joined", "Done, the docs are out. Ship it now?");
    assert_eq!(r.one_call(), ["left-out", "ship-now"]);
    assert_eq!(r.answer["decision"], "block", "{}", r.answer);
    let reason = r.answer["reason"].as_str().unwrap();
    assert!(reason.contains("[left-out]") && reason.contains("the docs were dropped"));
    let left_out = r.detector("left-out");
    assert_eq!(left_out["layer1"], "miss");
    assert_eq!(left_out["joined"], true);
    assert_eq!(left_out["judge"]["shared_with"], json!(["ship-now"]));
    assert_eq!(r.detector("ship-now")["layer1"], "hit");
    assert!(r.detector("ship-now").get("joined").is_none());

    // The judge allows it: nothing blocks.
    let cfg = config(
        &sb,
        json!([{"detector": "*", "fields": {"new_proposal": false, "deferred": false}}]),
        "",
        "",
    );
    let r = sb.stop_run(&cfg, "joined-allow", "Done. Ship it now?");
    assert_eq!(r.one_call(), ["left-out", "ship-now"]);
    assert_eq!(r.answer, Value::Null);
}

#[test]
fn a_joined_detector_whose_judgment_fails_stays_allowed() {
    let sb = Sandbox::new();
    // Turn ends fail closed here, so a failure of a detector that hit blocks;
    // one that only joined the judgment allows, as its Layer 1 did.
    let cfg = config(
        &sb,
        json!([
            {"detector": "ship-now", "fields": {"new_proposal": false}},
            {"detector": "left-out", "fields": {"__omit": true}},
        ]),
        "",
        "failure: {stop: block}\n",
    );
    let r = sb.stop_run(&cfg, "failed", "Done. Ship it now?");
    assert_eq!(r.one_call(), ["left-out", "ship-now"]);
    let left_out = r.detector("left-out");
    assert_eq!(left_out["judge"]["outcome"], "fail");
    assert_eq!(left_out["verdict"], "allow");
    assert_eq!(r.answer, Value::Null, "nothing blocks");
}

#[test]
fn a_bypassed_detector_is_not_asked_and_no_hit_makes_no_call() {
    let sb = Sandbox::new();
    let cfg = config(
        &sb,
        json!([{"detector": "*", "fields": {"new_proposal": true, "deferred": true}}]),
        "",
        "",
    );
    let r = sb.stop_run(
        &cfg,
        "bypassed",
        "Docs come later, as you asked. Ship it now?",
    );
    assert_eq!(r.one_call(), ["ship-now"]);
    assert_eq!(r.detector("left-out")["layer1"], "bypass");
    assert_eq!(r.detector("left-out")["verdict"], "allow");

    let r = sb.stop_run(&cfg, "quiet", "Done, the parser handles tabs now.");
    assert!(r.calls.is_empty(), "no hit, no call: {:?}", r.calls);
    assert_eq!(r.answer, Value::Null);
}

#[test]
fn whole_turn_false_judges_only_the_detectors_that_hit() {
    let sb = Sandbox::new();
    let cfg = config(
        &sb,
        json!([{"detector": "*", "fields": {"new_proposal": false, "deferred": true}}]),
        ", whole_turn: false",
        "",
    );
    let r = sb.stop_run(&cfg, "apart", "Done. Ship it now?");
    assert_eq!(r.one_call(), ["ship-now"]);
    assert!(r.detector("left-out").get("joined").is_none());
    assert_eq!(r.answer, Value::Null);
}

#[test]
fn a_hit_on_one_builtin_detector_asks_about_every_turn_end_detector() {
    let sb = Sandbox::new();
    let file = sb.write(
        "answers.json",
        &json!({"rules": [], "default": {}}).to_string(),
    );
    let cfg = sb.write(
        "builtin.yaml",
        &format!(
            "judge: {{backend: command, command: [{:?}, {:?}], timeout_ms: 2000, cache_ttl_s: 0}}\n",
            test_judge().display().to_string(),
            format!("answers={}", file.display())
        ),
    );
    // A commit proposal, with no word of the other four detectors.
    let r = sb.stop_run(&cfg, "builtin", "Shall I commit and push this?");
    assert_eq!(
        r.one_call(),
        [
            "bugfix-without-reproduction",
            "commit-before-verification",
            "scope-change",
            "scope-check",
            "shallow-bugfix"
        ]
    );
    assert_eq!(r.detector("commit-before-verification")["layer1"], "hit");
    for name in ["scope-change", "shallow-bugfix"] {
        assert_eq!(r.detector(name)["joined"], true, "{name}");
    }
}
