//! The built-in turn-end detectors end to end through `guard hook`: the
//! design article's four look-alikes are allowed (by a bypass or by the
//! judge), a real unverified proposal is blocked, and the commit rule reads
//! missing fields toward a violation.

mod support;

use serde_json::{json, Value};
use support::{stdout, test_judge, Sandbox};

/// A config with the built-in detectors and the test judge answering from `answers`.
fn config(sb: &Sandbox, answers: &str, extra: &str) -> String {
    let judge = format!(
        "judge: {{backend: command, command: [{:?}, {:?}], timeout_ms: 5000, cache_ttl_s: 0}}\n{extra}",
        test_judge().display().to_string(),
        answers
    );
    sb.write("builtin.yaml", &judge).display().to_string()
}

fn stop(session: &str, text: &str) -> Vec<u8> {
    json!({"session_id": session, "cwd": "/tmp", "prompt_id": session, "hook_event_name": "Stop",
           "stop_hook_active": false, "last_assistant_message": text})
    .to_string()
    .into_bytes()
}

#[test]
fn the_four_look_alikes_are_allowed_even_by_a_judge_that_always_cries_wolf() {
    let sb = Sandbox::new();
    // The worst judge: every detector, every text, a violation.
    let answers = sb.answers(&[(
        "*",
        "",
        json!({"new_proposal": true, "verification_reported": false, "retraction_or_quote": false}),
    )]);
    let cfg = config(&sb, &answers, "");
    for (i, text) in [
        "Committed as 3f9a2c1",
        "Q1: commit / Q2: new branch",
        "I'll commit after the tests pass",
        "All tests PASS — shall I commit?",
    ]
    .into_iter()
    .enumerate()
    {
        let out = sb.run(
            &["hook", "claude-code", "--config", &cfg],
            &stop(&format!("l{i}"), text),
        );
        assert_eq!(
            stdout(&out),
            "",
            "{text:?} must be allowed without asking the judge"
        );
    }
    // The same judge on a real unverified proposal blocks it.
    let out = sb.run(
        &["hook", "claude-code", "--config", &cfg],
        &stop("real", "Refactor done. Let's commit and push to main."),
    );
    let v: Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(v["decision"], "block");
    assert!(v["reason"]
        .as_str()
        .unwrap()
        .contains("commit-before-verification"));
}

#[test]
fn the_commit_rule_reads_the_judges_fields() {
    let sb = Sandbox::new();
    let text = "Refactor done. Let's commit and push to main.";
    let cases = [
        (
            json!({"new_proposal": true, "verification_reported": false, "direction_query": false, "future_step_description": false}),
            "block",
        ),
        (json!({"new_proposal": true}), "block"),
        (
            json!({"new_proposal": true, "verification_reported": null}),
            "block",
        ),
        (
            json!({"new_proposal": true, "verification_reported": true}),
            "allow",
        ),
        (
            json!({"new_proposal": true, "direction_query": true}),
            "allow",
        ),
        (
            json!({"new_proposal": true, "future_step_description": true}),
            "allow",
        ),
        (json!({"new_proposal": false}), "allow"),
        // A required field missing: a failed judgment, which a turn end allows.
        (json!({"verification_reported": false}), "allow"),
        // A wrong type: failed too.
        (json!({"new_proposal": "yes"}), "allow"),
    ];
    for (i, (fields, expected)) in cases.into_iter().enumerate() {
        let answers = sb.answers(&[
            ("commit-before-verification", "", fields.clone()),
            ("*", "", json!({"new_proposal": false})),
        ]);
        let cfg = config(&sb, &answers, "");
        let out = sb.run(
            &["hook", "claude-code", "--config", &cfg],
            &stop(&format!("c{i}"), text),
        );
        let got = if stdout(&out).is_empty() {
            "allow"
        } else {
            "block"
        };
        assert_eq!(got, expected, "{fields}");
    }
    let outcomes: Vec<String> = sb
        .log_records()
        .iter()
        .map(|r| {
            r["detectors"]
                .as_array()
                .unwrap()
                .iter()
                .find(|d| d["name"] == "commit-before-verification")
                .unwrap()["judge"]["outcome"]
                .as_str()
                .unwrap()
                .to_string()
        })
        .collect();
    assert_eq!(outcomes[7], "fail");
    assert_eq!(outcomes[8], "fail");
}

fn pre_tool(agent_cwd: &str, command: &str) -> Vec<u8> {
    json!({"session_id": "s", "cwd": agent_cwd, "prompt_id": "p", "hook_event_name": "PreToolUse",
           "tool_name": "Bash", "tool_input": {"command": command}})
    .to_string()
    .into_bytes()
}

#[test]
fn dangerous_commands_deny_without_a_judge_and_ask_with_one() {
    let sb = Sandbox::new();
    let judge_log = sb.path().join("judge.log");
    let answers = sb.answers(&[(
        "dangerous-command",
        "publish",
        json!({"dangerous": true, "reason": "publishes to the public registry"}),
    )]);
    let cfg = config(&sb, &answers, "");
    let run = |command: &str| {
        let mut cmd = sb.guard(&["hook", "claude-code", "--config", &cfg]);
        cmd.env("GUARD_TEST_JUDGE_LOG", &judge_log);
        let out = sb.run_with(cmd, &pre_tool("/tmp", command));
        let s = stdout(&out);
        if s.is_empty() {
            ("allow".to_string(), String::new())
        } else {
            let v: Value = serde_json::from_str(&s).unwrap();
            let h = &v["hookSpecificOutput"];
            (
                h["permissionDecision"].as_str().unwrap().to_string(),
                h["permissionDecisionReason"].as_str().unwrap().to_string(),
            )
        }
    };
    let (d, reason) = run("git push --force origin main");
    assert_eq!(d, "deny");
    assert!(reason.contains("dangerous-command"), "{reason}");
    assert!(!judge_log.exists(), "a clear deny needs no judge");
    assert_eq!(run("sudo rm -fr --no-preserve-root /").0, "deny");
    assert_eq!(
        run("echo 'git push --force origin main' >> notes.md").0,
        "allow",
        "dangerous text as data"
    );
    let (d, reason) = run("npm publish --access public");
    assert_eq!(d, "ask");
    assert!(
        reason.contains("package-publish") || reason.contains("publish"),
        "{reason}"
    );
    let judged = std::fs::read_to_string(&judge_log).unwrap();
    assert!(
        judged.contains("Flagged by rule `"),
        "the judge sees the rule and its concern"
    );
    // The judge finds this ask-rule hit harmless here (its default answer): allowed.
    assert_eq!(
        run("docker system prune -f").0,
        "allow",
        "judge said not dangerous"
    );
}
