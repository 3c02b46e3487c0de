//! No silent allow on a shape guard does not know (issue 19, item 3):
//! payloads of agents that run hooks installed for another one (VS Code runs
//! Claude Code's and Copilot's, Goose and Crush send an `event` key that the
//! generic protocol also uses), and payloads no adapter reads at all. A gate
//! whose payload cannot be read gets the gate's failure policy and is logged
//! as an unknown shape, which `guard doctor` reports; any other event of an
//! unknown shape stays allowed.

mod support;

use serde_json::{json, Value};
use support::{documented, Sandbox};

/// `guard hook <agent>` with the payload: (stdout as JSON or null, exit code, stderr).
fn hook(sb: &Sandbox, agent: &str, payload: &Value) -> (Value, i32, String) {
    let a = sb.hook(agent, "judge: {backend: none}\n", payload);
    (a.json, a.code, a.stderr)
}

#[test]
fn a_destructive_command_from_vs_code_is_denied_through_claude_codes_hook() {
    // VS Code runs the hooks of ~/.claude/settings.json with its own payload
    // (camelCase hookEventName/sessionId, its own tool names).
    let sb = Sandbox::new();
    let mut pre = documented("vscode/PreToolUse.json");
    pre["tool_input"]["command"] = json!("rm -rf /");
    for agent in ["claude-code", "vscode", "copilot"] {
        let (v, code, _) = hook(&sb, agent, &pre);
        assert_eq!(code, 0, "{agent}");
        assert_eq!(
            v["hookSpecificOutput"]["permissionDecision"], "deny",
            "{agent}: {v}"
        );
    }
}

#[test]
fn vs_code_file_tools_are_canonical_tools() {
    let spec = guard::adapter::find("vscode").expect("a vscode adapter");
    for (native, canonical) in [
        ("run_in_terminal", "shell"),
        ("create_file", "file_write"),
        ("replace_string_in_file", "file_edit"),
        ("multi_replace_string_in_file", "file_edit"),
        ("read_file", "file_read"),
    ] {
        let payload = json!({"hookEventName": "PreToolUse", "sessionId": "s",
            "timestamp": "2026-02-09T10:30:00.000Z", "cwd": "/w",
            "tool_name": native, "tool_input": {}});
        let event = spec.parse_payload(payload).unwrap();
        assert_eq!(event.tool.unwrap().canonical, canonical, "{native}");
    }
}

#[test]
fn goose_and_crush_payloads_are_not_taken_for_the_generic_protocol() {
    let sb = Sandbox::new();
    for (fixture, agent, named) in [
        ("goose/PreToolUse.json", "goose", "generic"),
        ("goose/PreToolUse.json", "goose", "goose"),
        ("crush/PreToolUse.json", "crush", "generic"),
        ("crush/PreToolUse.json", "crush", "crush"),
    ] {
        let mut pre = documented(fixture);
        pre["tool_input"]["command"] = json!("rm -rf /");
        let (v, code, err) = hook(&sb, named, &pre);
        let what = format!("{agent} payload via `guard hook {named}`: {v} {code} {err}");
        match agent {
            // Goose: exit 2 with the reason on stderr, or decision block.
            "goose" => assert_eq!(v["decision"], "block", "{what}"),
            // Crush: {"decision":"deny"} (exit 0).
            _ => assert_eq!((v["decision"].as_str(), code), (Some("deny"), 0), "{what}"),
        }
    }
}

#[test]
fn a_gate_nobody_can_read_gets_the_gate_failure_policy() {
    let sb = Sandbox::new();
    // No adapter's event field, but a tool call: a gate of unknown shape.
    let unknown_gate = json!({"eventType": "beforeToolCall", "sessionKey": "k",
        "tool_name": "shell", "tool_input": {"command": "ls"}});
    let (v, code, err) = hook(&sb, "claude-code", &unknown_gate);
    assert_eq!(code, 0);
    assert_eq!(
        v["hookSpecificOutput"]["permissionDecision"], "ask",
        "the gate's failure policy (ask): {v} {err}"
    );
    assert!(err.contains("unknown"), "{err}");
    // An agent that cannot ask gets a deny.
    let (v, _, _) = hook(&sb, "codex", &unknown_gate);
    assert_eq!(v["hookSpecificOutput"]["permissionDecision"], "deny", "{v}");
    // An event the generic protocol does not have, which other agents
    // call a gate (neither Goose's nor Crush's shape: no session, no cwd).
    let (v, code, _) = hook(
        &sb,
        "generic",
        &json!({"event": "PreToolUse", "tool": "shell", "command": "ls"}),
    );
    assert_eq!((v["verdict"].as_str(), code), (Some("ask"), 2), "{v}");
    let records = sb.log_records();
    assert!(
        records
            .iter()
            .filter(|r| r["unknown_shape"] == true)
            .count()
            >= 3,
        "logged as unknown shapes: {records:?}"
    );
}

#[test]
fn a_paused_guard_allows_unknown_gates_too() {
    let sb = Sandbox::new();
    assert!(sb.run(&["pause"], b"").status.success());
    let unknown_gate = json!({"eventType": "beforeToolCall", "tool_name": "shell"});
    let (v, code, _) = hook(&sb, "claude-code", &unknown_gate);
    assert_eq!((v, code), (Value::Null, 0));
}

#[test]
fn other_events_of_an_unknown_shape_stay_allowed() {
    let sb = Sandbox::new();
    let (v, code, err) = hook(
        &sb,
        "claude-code",
        &json!({"eventType": "sessionIdle", "sessionKey": "k"}),
    );
    assert_eq!((v, code), (Value::Null, 0), "{err}");
    let (v, code, _) = hook(&sb, "cursor", &json!({"what": "ever"}));
    assert_eq!((v, code), (json!({}), 0));
}

#[test]
fn the_doctor_reports_unknown_shapes() {
    let sb = Sandbox::new();
    let unknown_gate = json!({"eventType": "beforeToolCall", "tool_name": "shell",
        "tool_input": {"command": "ls"}});
    hook(&sb, "claude-code", &unknown_gate);
    let out = sb.run(&["doctor", "--json"], b"");
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    let finding = report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["check"] == "unknown shapes" && f["agent"] == "claude-code")
        .unwrap_or_else(|| panic!("no unknown-shape finding: {report}"));
    assert_eq!(finding["status"], "warn", "{finding}");
    let message = finding["message"].as_str().unwrap();
    assert!(
        message.contains("eventType") && message.contains("gate"),
        "{message}"
    );
}
