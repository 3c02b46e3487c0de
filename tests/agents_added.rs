//! `guard hook <agent>` end to end for the agents of issue 19 (VS Code,
//! Goose, Crush, Auggie, Devin CLI, Windsurf, Kiro, Antigravity, Kimi): each one's
//! documented payload in, its own dialect out, through the real binary. The
//! test detectors (tests/support) gate shell commands with "launch" (no
//! judge: the failure policy asks, which agents that cannot ask get as a
//! deny) and block "ship it now" at turn ends.

mod support;

use serde_json::{json, Value};
use support::{documented, Sandbox};

const CONFIG: &str = "judge: {backend: none}\nfailure: {stop: block, subagent_stop: block}\n";

/// (stdout as JSON or null, stderr, exit code).
fn hook(sb: &Sandbox, agent: &str, payload: &Value) -> (Value, String, i32) {
    let a = sb.hook(agent, CONFIG, payload);
    (a.json, a.stderr, a.code)
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
    // (agent, fixture, where the command is, where the answer is, the
    // answer, exit code); "" is stdout left empty (the reason on stderr).
    type Case<'a> = (&'a str, &'a str, &'a [&'a str], &'a str, &'a str, i32);
    let cases: &[Case] = &[
        (
            "goose",
            "goose/PreToolUse.json",
            &["tool_input", "command"],
            "/decision",
            "block",
            0,
        ),
        (
            "crush",
            "crush/PreToolUse.json",
            &["tool_input", "command"],
            "/decision",
            "deny",
            0,
        ),
        (
            "auggie",
            "auggie/PreToolUse.json",
            &["tool_input", "command"],
            "/hookSpecificOutput/permissionDecision",
            "deny",
            0,
        ),
        (
            "devin",
            "devin/PreToolUse.json",
            &["tool_input", "command"],
            "/hookSpecificOutput/permissionDecision",
            "deny",
            0,
        ),
        (
            "antigravity",
            "antigravity/PreToolUse.json",
            &["tool_input", "CommandLine"],
            "/decision",
            "block",
            0,
        ),
        (
            "windsurf",
            "windsurf/pre_run_command.json",
            &["tool_info", "command_line"],
            "",
            "",
            2,
        ),
        (
            "kiro",
            "kiro/PreToolUse.json",
            &["tool_input", "command"],
            "",
            "",
            2,
        ),
    ];
    for &(agent, fixture, at, pointer, answer, exit) in cases {
        let payload = with(documented(fixture), at, json!("./launch rocket"));
        let (v, err, code) = hook(&sb, agent, &payload);
        assert_eq!(code, exit, "{agent}: {v} {err}");
        if pointer.is_empty() {
            assert_eq!(v, Value::Null, "{agent}");
            assert!(
                err.contains("launch"),
                "{agent}: the reason reaches the model: {err}"
            );
        } else {
            assert_eq!(
                v.pointer(pointer).and_then(Value::as_str),
                Some(answer),
                "{agent}: {v}"
            );
        }
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

#[test]
fn the_old_copilot_vscode_name_still_answers_as_copilots_pascal_dialect() {
    let sb = Sandbox::new();
    let pre = with(
        documented("copilot-pascal/PreToolUse.json"),
        &["tool_input", "command"],
        json!("./launch rocket"),
    );
    for name in ["copilot-vscode", "copilot-pascal"] {
        let (v, _, code) = hook(&sb, name, &pre);
        assert_eq!(code, 0);
        assert_eq!(v["permissionDecision"], "ask", "{name}: {v}");
    }
}
