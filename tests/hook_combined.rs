//! One judgment per turn, on the hook path: when `ship-now` and `ship-check`
//! both hit on one stop event, the test judge is run once with a combined
//! envelope, each detector's rule decides its own section, a missing section
//! fails that detector alone, a wrong nonce fails both, and
//! `judge.combine: false` brings back one call per detector.

mod support;

use serde_json::{json, Value};
use std::path::Path;
use support::{Sandbox, StopRun};

const TEXT: &str = "Done. Ship it now.";

fn run(sb: &Sandbox, cfg: &Path, session: &str) -> StopRun {
    sb.stop_run(cfg, session, TEXT)
}

/// An answers file for the test judge: per detector, the fields it answers.
fn answers(sb: &Sandbox, ship_now: Value, ship_check: Value) -> String {
    let p = sb.write(
        "combined-answers.json",
        &json!({"rules": [
            {"detector": "ship-now", "contains": "", "fields": ship_now},
            {"detector": "ship-check", "contains": "", "fields": ship_check},
        ]})
        .to_string(),
    );
    format!("answers={}", p.display())
}

fn sorted(mut v: Vec<String>) -> Vec<String> {
    v.sort();
    v
}

#[test]
fn two_hits_make_one_call_and_each_rule_decides_its_own_section() {
    let sb = Sandbox::new();
    let mode = answers(
        &sb,
        json!({"new_proposal": true, "reason": "proposes to ship"}),
        json!({"unverified": false, "reason": "tests were run"}),
    );
    let cfg = sb.two_judged_config(&mode, true, "");
    let r = run(&sb, &cfg, "one");
    assert_eq!(r.calls.len(), 1, "one judge call for both: {:?}", r.calls);
    assert_eq!(
        sorted(r.calls[0].split(',').map(str::to_string).collect()),
        ["ship-check", "ship-now"],
        "GUARD_DETECTOR lists both"
    );
    assert_eq!(r.answer["decision"], "block");
    let reason = r.answer["reason"].as_str().unwrap();
    assert!(reason.contains("[ship-now]") && reason.contains("proposes to ship"));
    assert!(!reason.contains("[ship-check]"), "{reason}");
    let (now, check) = (r.detector("ship-now"), r.detector("ship-check"));
    assert_eq!(now["judge"]["outcome"], "violation");
    assert_eq!(check["judge"]["outcome"], "allow");
    assert_eq!(check["judge"]["fields"]["reason"], "tests were run");
    assert_eq!(now["judge"]["shared_with"], json!(["ship-check"]));
    assert_eq!(check["judge"]["shared_with"], json!(["ship-now"]));

    // The other way round: ship-check's own rule blocks, ship-now allows.
    let mode = answers(
        &sb,
        json!({"new_proposal": false}),
        json!({"unverified": true, "reason": "nothing was run"}),
    );
    let cfg = sb.two_judged_config(&mode, true, "");
    let r = run(&sb, &cfg, "two");
    assert_eq!(r.calls.len(), 1);
    let reason = r.answer["reason"].as_str().unwrap();
    assert!(reason.contains("[ship-check]") && !reason.contains("[ship-now]"));
    assert_eq!(r.detector("ship-now")["judge"]["outcome"], "allow");
    assert_eq!(r.detector("ship-check")["judge"]["outcome"], "violation");
}

#[test]
fn a_missing_section_fails_only_its_detector() {
    let sb = Sandbox::new();
    let mode = answers(
        &sb,
        json!({"new_proposal": true, "reason": "proposes to ship"}),
        json!({"__omit": true}),
    );
    let cfg = sb.two_judged_config(&mode, true, "");
    let r = run(&sb, &cfg, "missing");
    assert_eq!(r.calls.len(), 1);
    // ship-now decides normally; ship-check fails open (a turn end).
    assert_eq!(r.answer["decision"], "block");
    let check = r.detector("ship-check");
    assert_eq!(check["judge"]["outcome"], "fail");
    assert_eq!(check["verdict"], "allow");
    assert!(check["judge"]["error"]
        .as_str()
        .unwrap()
        .contains("no section for `ship-check`"));
    assert_eq!(r.detector("ship-now")["judge"]["outcome"], "violation");

    // The section of the violating detector missing: nothing blocks.
    let mode = answers(&sb, json!({"__omit": true}), json!({"unverified": false}));
    let cfg = sb.two_judged_config(&mode, true, "");
    let r = run(&sb, &cfg, "missing2");
    assert_eq!(
        r.answer,
        Value::Null,
        "ship-now fails open, ship-check allows"
    );
    assert_eq!(r.detector("ship-now")["judge"]["outcome"], "fail");
    assert_eq!(r.detector("ship-check")["judge"]["outcome"], "allow");
}

#[test]
fn a_wrong_nonce_fails_every_section() {
    let sb = Sandbox::new();
    // Fail closed on turn ends, so a failure shows as a block.
    let cfg = sb.two_judged_config("wrongnonce", true, "failure: {stop: block}\n");
    let r = run(&sb, &cfg, "nonce");
    assert_eq!(r.calls.len(), 1);
    for name in ["ship-now", "ship-check"] {
        let d = r.detector(name);
        assert_eq!(d["judge"]["outcome"], "fail", "{d}");
        assert_eq!(d["judge"]["nonce_ok"], false, "{d}");
        assert_eq!(d["verdict"], "block", "{d}");
    }
}

#[test]
fn combine_false_makes_one_call_per_detector() {
    let sb = Sandbox::new();
    let mode = answers(
        &sb,
        json!({"new_proposal": true}),
        json!({"unverified": false}),
    );
    let cfg = sb.two_judged_config(&mode, false, "");
    let r = run(&sb, &cfg, "apart");
    assert_eq!(sorted(r.calls.clone()), ["ship-check", "ship-now"]);
    assert_eq!(r.answer["decision"], "block");
    assert_eq!(r.detector("ship-now")["judge"]["outcome"], "violation");
    assert_eq!(r.detector("ship-check")["judge"]["outcome"], "allow");
    assert!(r.detector("ship-now")["judge"].get("shared_with").is_none());
}
