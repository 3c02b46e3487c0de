//! Issue 9, part 2: a panic at any stage of `guard hook` becomes the failure
//! policy of the event, in the agent's own dialect: allow when the event
//! cannot be known, the kind's policy once it is (ask, or deny where the
//! agent cannot ask, for a pre-tool call; allow for a turn end). The
//! test-only `GUARD_FAULT=<stage>` switch panics at each stage.

mod support;

use guard::adapter;
use guard::event::EventKind;
use guard::verdict::{Decision, Verdict};
use serde_json::{json, Value};
use std::process::Stdio;
use support::{fixture, stderr, stdout, Sandbox};

/// Every stage `guard hook` passes through, in order.
const STAGES: [&str; 7] = [
    "parse",
    "config",
    "transcript",
    "engine",
    "judge",
    "log",
    "render",
];

/// (agent, kind, native event, payload) for each agent and kind tested.
fn cases() -> Vec<(&'static str, EventKind, &'static str, Vec<u8>)> {
    let mut claude_pre: Value =
        serde_json::from_slice(&fixture("claude-pretooluse-stdin.json")).unwrap();
    claude_pre["tool_input"] = json!({"command": "launch the rocket"});
    let mut claude_stop: Value =
        serde_json::from_slice(&fixture("claude-stop-stdin.json")).unwrap();
    claude_stop["last_assistant_message"] = json!("Let's ship it now.");
    claude_stop["transcript_path"] = json!("/nonexistent/t.jsonl");
    let mut codex_pre: Value =
        serde_json::from_slice(&fixture("codex-pretooluse-stdin.json")).unwrap();
    codex_pre["tool_input"] = json!({"command": "launch the rocket"});
    let mut codex_stop: Value = serde_json::from_slice(&fixture("codex-stop-stdin.json")).unwrap();
    codex_stop["last_assistant_message"] = json!("Let's ship it now.");
    codex_stop["transcript_path"] = json!("/nonexistent/t.jsonl");
    let mut gemini_pre: Value =
        serde_json::from_slice(&fixture("gemini-beforetool-stdin.json")).unwrap();
    gemini_pre["tool_input"] = json!({"command": "launch the rocket"});
    let mut gemini_stop: Value =
        serde_json::from_slice(&fixture("gemini-afteragent-stdin.json")).unwrap();
    gemini_stop["prompt_response"] = json!("Let's ship it now.");
    let bytes = |v: Value| v.to_string().into_bytes();
    vec![
        (
            "gemini",
            EventKind::PreTool,
            "BeforeTool",
            bytes(gemini_pre),
        ),
        ("gemini", EventKind::Stop, "AfterAgent", bytes(gemini_stop)),
        (
            "claude-code",
            EventKind::PreTool,
            "PreToolUse",
            bytes(claude_pre),
        ),
        ("claude-code", EventKind::Stop, "Stop", bytes(claude_stop)),
        ("codex", EventKind::PreTool, "PreToolUse", bytes(codex_pre)),
        ("codex", EventKind::Stop, "Stop", bytes(codex_stop)),
        (
            "generic",
            EventKind::PreTool,
            "pre_tool",
            bytes(
                json!({"event": "pre_tool", "tool": "Bash", "command": "launch the rocket", "session_id": "g"}),
            ),
        ),
        (
            "generic",
            EventKind::Stop,
            "stop",
            bytes(json!({"event": "stop", "text": "Let's ship it now.", "session_id": "g"})),
        ),
    ]
}

/// What the agent must read when guard fails on this event: its failure
/// policy (or allow, when the event is unknown), rendered by its adapter.
fn failure_answer(agent: &str, kind: EventKind, native: &str) -> (i32, Value) {
    let spec = adapter::find(agent).unwrap();
    let decision = match kind {
        EventKind::Other => Decision::Allow,
        k if k.is_gate() => Decision::Ask,
        _ => Decision::Allow,
    };
    let verdict = if decision == Decision::Allow {
        Verdict::allow()
    } else {
        Verdict::with(decision, "REASON")
    };
    // The default config has Gemini (halting on ask when headless) deny.
    let ask_as = (agent == "gemini").then_some(Decision::Deny);
    let out = spec.render(kind, native, &verdict, ask_as);
    (out.exit, parse_stdout(&out.stdout))
}

/// The stdout as JSON, with guard's failure reason replaced by `REASON`.
fn parse_stdout(s: &str) -> Value {
    fn mask(v: &mut Value) {
        match v {
            Value::String(s) if s.starts_with("guard could not check") => *s = "REASON".to_string(),
            Value::Array(a) => a.iter_mut().for_each(mask),
            Value::Object(o) => o.values_mut().for_each(mask),
            _ => {}
        }
    }
    if s.trim().is_empty() {
        return Value::Null;
    }
    let mut v: Value = serde_json::from_str(s).unwrap_or_else(|e| panic!("stdout {s:?}: {e}"));
    mask(&mut v);
    v
}

/// Asserts that `out` is the failure-policy answer `expected` (exit code,
/// stdout as JSON) and that stderr says `says`.
fn assert_policy_answer(
    out: &std::process::Output,
    expected: (i32, Value),
    says: &str,
    what: &str,
) {
    assert_eq!(
        (out.status.code(), parse_stdout(&stdout(out))),
        (Some(expected.0), expected.1),
        "{what}: {}",
        stderr(out)
    );
    assert!(
        stderr(out).contains(says),
        "{what}: stderr says what went wrong: {}",
        stderr(out)
    );
}

#[test]
fn a_panic_at_every_stage_becomes_the_failure_policy_for_every_agent() {
    let sb = Sandbox::new();
    let cfg = sb.test_config("judge: {backend: none}\n");
    for (agent, kind, native, payload) in cases() {
        for stage in STAGES {
            let mut cmd = sb.guard(&["hook", agent, "--config", cfg.to_str().unwrap()]);
            cmd.env("GUARD_FAULT", stage);
            let out = sb.run_with(cmd, &payload);
            let what = format!("{agent} {kind} fault at {stage}");
            if stage == "transcript" && !kind.is_turn_end() {
                // No transcript is read for a tool call: no fault fires.
                assert!(out.status.code().is_some(), "{what}");
                continue;
            }
            let expected = if stage == "parse" {
                failure_answer(agent, EventKind::Other, "")
            } else {
                failure_answer(agent, kind, native)
            };
            assert_policy_answer(&out, expected, &format!("injected fault at {stage}"), &what);
        }
    }
}

#[test]
fn without_a_fault_the_same_events_are_judged_normally() {
    // The control for the test above: with no judge, a hit takes the
    // failure policy too, but through the engine (the reason says so).
    let sb = Sandbox::new();
    let cfg = sb.test_config("judge: {backend: none}\n");
    for (agent, _, _, payload) in cases() {
        let out = sb.run(
            &["hook", agent, "--config", cfg.to_str().unwrap()],
            &payload,
        );
        assert!(matches!(out.status.code(), Some(0 | 2)), "{agent}");
        assert!(!stderr(&out).contains("injected fault"), "{agent}");
    }
}

#[test]
fn a_panic_with_stdout_and_stderr_closed_still_exits_per_policy() {
    // A panic message written to a closed pipe used to panic inside the
    // panic hook, and a double panic aborts (SIGABRT, exit 134).
    let sb = Sandbox::new();
    let cfg = sb.test_config("judge: {backend: none}\n");
    for (agent, kind, native, payload) in cases() {
        for stage in ["engine", "log", "render"] {
            let mut cmd = sb.guard(&["hook", agent, "--config", cfg.to_str().unwrap()]);
            cmd.env("GUARD_FAULT", stage);
            let mut child = cmd
                .stdin(Stdio::piped())
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap();
            // Close the read ends before guard writes anything.
            drop(child.stdout.take());
            drop(child.stderr.take());
            use std::io::Write;
            let _ = child.stdin.take().unwrap().write_all(&payload);
            let status = child.wait().unwrap();
            let (exit, _) = failure_answer(agent, kind, native);
            assert_eq!(
                status.code(),
                Some(exit),
                "{agent} {kind} fault at {stage} with closed pipes: {status:?}"
            );
        }
    }
}

#[test]
fn a_hook_stuck_past_its_deadline_is_answered_by_the_watchdog() {
    // The watchdog answers at the deadline plus a 1.5 s grace, with the
    // failure policy, and ends the process (the stuck stage never returns).
    let sb = Sandbox::new();
    let cfg = sb.test_config(
        "judge: {backend: none}\ndeadline: {turn_end_ms: 200, gate_ms: 200, other_ms: 200}\n",
    );
    for (agent, kind, native, payload) in cases() {
        let mut cmd = sb.guard(&["hook", agent, "--config", cfg.to_str().unwrap()]);
        cmd.env("GUARD_FAULT", "stall:engine");
        let started = std::time::Instant::now();
        let out = sb.run_killed_after(cmd, &payload, std::time::Duration::from_secs(20));
        let took = started.elapsed();
        let what = format!("{agent} {kind} stuck in the engine");
        let expected = failure_answer(agent, kind, native);
        assert_policy_answer(&out, expected, "the deadline passed", &what);
        assert!(
            took >= std::time::Duration::from_millis(1500)
                && took < std::time::Duration::from_secs(10),
            "{what}: answered after {took:?}"
        );
    }
}
