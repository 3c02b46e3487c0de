//! `guard hook <agent>` end to end for the agents of issue 19 (VS Code,
//! Goose, Crush, Auggie, Devin CLI, Windsurf, Kiro, Antigravity): each one's
//! documented payload in, its own dialect out, through the real binary. The
//! test detectors (tests/support) gate shell commands with "launch" (no
//! judge: the failure policy asks, which agents that cannot ask get as a
//! deny) and block "ship it now" at turn ends.

mod support;

use serde_json::{json, Value};
use support::{repo_file, stdout, Sandbox};

const CONFIG: &str = "judge: {backend: none}\nfailure: {stop: block, subagent_stop: block}\n";

fn documented(rel: &str) -> Value {
    serde_json::from_slice(&std::fs::read(repo_file(&format!("tests/fixtures/{rel}"))).unwrap())
        .unwrap()
}

/// (stdout as JSON or null, stderr, exit code).
fn hook(sb: &Sandbox, agent: &str, payload: &Value) -> (Value, String, i32) {
    let cfg = sb.test_config(CONFIG);
    let out = sb.run(
        &["hook", agent, "--config", cfg.to_str().unwrap()],
        payload.to_string().as_bytes(),
    );
    let text = stdout(&out);
    let value = if text.trim().is_empty() {
        Value::Null
    } else {
        serde_json::from_str(&text).unwrap_or_else(|e| panic!("{agent}: {e}: {text:?}"))
    };
    let err = String::from_utf8_lossy(&out.stderr).to_string();
    (value, err, out.status.code().unwrap_or(-1))
}

fn with(mut payload: Value, path: &[&str], value: Value) -> Value {
    let mut at = &mut payload;
    for key in &path[..path.len() - 1] {
        at = &mut at[*key];
    }
    at[path[path.len() - 1]] = value;
    payload
}

#[test]
fn every_gate_needing_a_human_is_denied_where_the_agent_cannot_ask() {
    let sb = Sandbox::new();
    let launch = json!("./launch rocket");
    let goose = with(
        documented("goose/PreToolUse.json"),
        &["tool_input", "command"],
        launch.clone(),
    );
    let (v, _, code) = hook(&sb, "goose", &goose);
    assert_eq!(
        (v["decision"].as_str(), code),
        (Some("block"), 0),
        "goose: {v}"
    );

    let crush = with(
        documented("crush/PreToolUse.json"),
        &["tool_input", "command"],
        launch.clone(),
    );
    let (v, _, code) = hook(&sb, "crush", &crush);
    assert_eq!(
        (v["decision"].as_str(), code),
        (Some("deny"), 0),
        "crush: {v}"
    );

    for (agent, fixture) in [
        ("auggie", "auggie/PreToolUse.json"),
        ("devin", "devin/PreToolUse.json"),
    ] {
        let pre = with(
            documented(fixture),
            &["tool_input", "command"],
            launch.clone(),
        );
        let (v, _, code) = hook(&sb, agent, &pre);
        assert_eq!(code, 0);
        assert_eq!(
            v["hookSpecificOutput"]["permissionDecision"], "deny",
            "{agent}: {v}"
        );
    }

    let agy = with(
        documented("antigravity/PreToolUse.json"),
        &["tool_input", "CommandLine"],
        launch.clone(),
    );
    let (v, _, code) = hook(&sb, "antigravity", &agy);
    assert_eq!(
        (v["decision"].as_str(), code),
        (Some("block"), 0),
        "antigravity: {v}"
    );

    // Exit 2 with the reason on stderr, nothing on stdout.
    let cascade = with(
        documented("windsurf/pre_run_command.json"),
        &["tool_info", "command_line"],
        launch.clone(),
    );
    let kiro = with(
        documented("kiro/PreToolUse.json"),
        &["tool_input", "command"],
        launch,
    );
    for (agent, payload) in [("windsurf", cascade), ("kiro", kiro)] {
        let (v, err, code) = hook(&sb, agent, &payload);
        assert_eq!((v, code), (Value::Null, 2), "{agent}");
        assert!(
            err.contains("launch"),
            "{agent}: the reason reaches the model: {err}"
        );
    }
}

#[test]
fn vs_code_asks_and_continues_its_own_way() {
    let sb = Sandbox::new();
    let pre = with(
        documented("vscode/PreToolUse.json"),
        &["tool_input", "command"],
        json!("./launch rocket"),
    );
    let (v, _, code) = hook(&sb, "claude-code", &pre);
    assert_eq!(code, 0);
    assert_eq!(v["hookSpecificOutput"]["permissionDecision"], "ask", "{v}");
    // No text on VS Code's Stop: nothing to judge, allowed in silence.
    let (v, _, code) = hook(&sb, "claude-code", &documented("vscode/Stop.json"));
    assert_eq!((v, code), (Value::Null, 0));
}

#[test]
fn turn_ends_are_continued_where_the_agent_can_and_allowed_otherwise() {
    let sb = Sandbox::new();
    let ship = json!("Fixed. Let's ship it now.");
    let goose = with(
        documented("goose/Stop.json"),
        &["last_assistant_message"],
        ship.clone(),
    );
    let (v, _, code) = hook(&sb, "goose", &goose);
    assert_eq!(
        (v["decision"].as_str(), code),
        (Some("block"), 0),
        "goose: {v}"
    );

    let auggie = with(
        documented("auggie/Stop.json"),
        &["conversation", "agentTextResponse"],
        ship,
    );
    let (v, _, code) = hook(&sb, "auggie", &auggie);
    assert_eq!(code, 0);
    assert_eq!(v["hookSpecificOutput"]["decision"], "block", "auggie: {v}");

    // Nothing to judge: allowed in silence.
    for (agent, fixture) in [("goose", "goose/Stop.json"), ("devin", "devin/Stop.json")] {
        let (v, _, code) = hook(&sb, agent, &documented(fixture));
        assert_eq!((v, code), (Value::Null, 0), "{agent}");
    }
}
