//! `guard hook <agent>` end to end for the agents added as data (Gemini,
//! Cursor, Copilot, Droid, Qwen Code): a documented or captured payload in,
//! the agent's own dialect out, through the real binary, config and engine.
//! The test detectors (tests/support) block "ship it now" at turn ends and
//! gate shell commands with "launch"; with no judge, the failure policy
//! decides (turn ends: block, pre_tool: the default ask).

mod support;

use serde_json::{json, Value};
use support::{fixture, repo_file, stdout, Sandbox};

const CONFIG: &str = "judge: {backend: none}\nfailure: {stop: block, subagent_stop: block}\n";

fn documented(rel: &str) -> Value {
    serde_json::from_slice(&std::fs::read(repo_file(&format!("tests/fixtures/{rel}"))).unwrap())
        .unwrap()
}

fn hook(sb: &Sandbox, agent: &str, payload: &Value) -> (Value, i32) {
    let cfg = sb.test_config(CONFIG);
    let out = sb.run(
        &["hook", agent, "--config", cfg.to_str().unwrap()],
        payload.to_string().as_bytes(),
    );
    let text = stdout(&out);
    let value = if text.is_empty() {
        Value::Null
    } else {
        serde_json::from_str(&text).unwrap_or_else(|e| panic!("{agent}: {e}: {text:?}"))
    };
    (value, out.status.code().unwrap_or(-1))
}

#[test]
fn gemini_retries_a_blocked_answer_and_never_asks_in_a_headless_run() {
    let sb = Sandbox::new();
    let mut after: Value =
        serde_json::from_slice(&fixture("gemini-afteragent-stdin.json")).unwrap();
    after["prompt_response"] = json!("Fixed. Let's ship it now.");
    let (v, code) = hook(&sb, "gemini", &after);
    assert_eq!((v["decision"].as_str(), code), (Some("deny"), 0), "{v}");
    assert!(v["reason"].as_str().is_some_and(|r| !r.is_empty()));

    let (v, code) = hook(
        &sb,
        "gemini",
        &serde_json::from_slice(&fixture("gemini-afteragent-stdin.json")).unwrap(),
    );
    assert_eq!((v, code), (json!({}), 0), "allow is an empty object");

    let mut before: Value =
        serde_json::from_slice(&fixture("gemini-beforetool-stdin.json")).unwrap();
    before["tool_input"]["command"] = json!("./launch rocket");
    let (v, code) = hook(&sb, "gemini", &before);
    assert_eq!(
        (v["decision"].as_str(), code),
        (Some("deny"), 0),
        "agents.gemini.ask_as: deny in the default config: {v}"
    );
}

#[test]
fn cursor_continues_with_a_followup_judged_on_the_stashed_answer() {
    let sb = Sandbox::new();
    let mut answer = documented("cursor/afterAgentResponse.json");
    answer["conversation_id"] = json!("cdefee2d-2727-4b73-bf77-d9d830f31d2a");
    answer["text"] = json!("Everything is fixed, ship it now.");
    let (v, code) = hook(&sb, "cursor", &answer);
    assert_eq!((v, code), (json!({}), 0));
    let (v, code) = hook(&sb, "cursor", &documented("cursor/stop.json"));
    assert_eq!(code, 0);
    assert!(
        v["followup_message"]
            .as_str()
            .is_some_and(|m| !m.is_empty()),
        "{v}"
    );
    assert_eq!(v.as_object().unwrap().len(), 1);
    let (v, _) = hook(&sb, "cursor", &documented("cursor/stop.json"));
    assert_eq!(v, json!({}), "the answer was used once");
}

#[test]
fn cursor_asks_on_shell_hooks_and_denies_on_pre_tool_use() {
    let sb = Sandbox::new();
    let mut shell = documented("cursor/beforeShellExecution.json");
    shell["command"] = json!("./launch rocket");
    let (v, code) = hook(&sb, "cursor", &shell);
    assert_eq!((v["permission"].as_str(), code), (Some("ask"), 0), "{v}");
    assert!(v["agent_message"].as_str().is_some_and(|m| !m.is_empty()));

    let mut pre = documented("cursor/preToolUse.json");
    pre["tool_input"]["command"] = json!("./launch rocket");
    let (v, _) = hook(&sb, "cursor", &pre);
    assert_eq!(v["permission"], "deny", "ask is ignored on preToolUse: {v}");

    let (v, code) = hook(&sb, "cursor", &documented("cursor/beforeMCPExecution.json"));
    assert_eq!((v, code), (json!({"permission": "allow"}), 0));
}

#[test]
fn copilot_camel_case_payloads_are_gated_and_continued() {
    let sb = Sandbox::new();
    let mut pre = documented("copilot/preToolUse.json");
    pre["toolArgs"] = json!("{\"command\":\"./launch rocket\"}");
    let (v, code) = hook(&sb, "copilot", &pre);
    assert_eq!(
        (v["permissionDecision"].as_str(), code),
        (Some("ask"), 0),
        "{v}"
    );

    let mut sub = documented("copilot/subagentStop.json");
    sub["response"] = json!("Done; ship it now.");
    let (v, code) = hook(&sb, "copilot", &sub);
    assert_eq!((v["decision"].as_str(), code), (Some("block"), 0), "{v}");

    let (v, code) = hook(&sb, "copilot", &documented("copilot/agentStop.json"));
    assert_eq!(
        (v, code),
        (json!({}), 0),
        "no text to judge on agentStop: allowed"
    );
}

#[test]
fn a_copilot_payload_sent_to_a_claude_hook_is_answered_as_copilot() {
    let sb = Sandbox::new();
    let mut pre = documented("copilot-pascal/PreToolUse.json");
    pre["tool_input"]["command"] = json!("./launch rocket");
    let (v, code) = hook(&sb, "claude-code", &pre);
    assert_eq!(code, 0);
    assert_eq!(v["permissionDecision"], "ask", "{v}");
    assert_eq!(v["hookSpecificOutput"]["permissionDecision"], "ask");
}

#[test]
fn droid_and_qwen_gate_their_own_shell_tools() {
    let sb = Sandbox::new();
    let mut droid = documented("droid/PreToolUse.json");
    droid["tool_input"]["command"] = json!("./launch rocket");
    let mut qwen = documented("qwen/PreToolUse.json");
    qwen["tool_input"]["command"] = json!("./launch rocket");
    // Droid asks as deny (config.yaml): `droid exec` runs a tool its hook
    // answers "ask" for (seen on droid 0.225 in tests/e2e_guard.rs).
    for (agent, payload, decision) in [("droid", droid, "deny"), ("qwen", qwen, "ask")] {
        let (v, code) = hook(&sb, agent, &payload);
        assert_eq!(code, 0);
        assert_eq!(
            v["hookSpecificOutput"]["permissionDecision"], decision,
            "{agent}: {v}"
        );
    }
    let (v, code) = hook(&sb, "qwen", &documented("qwen/Stop.json"));
    assert_eq!((v, code), (Value::Null, 0), "nothing hits: silent allow");
}
