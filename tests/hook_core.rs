//! The hook path's promises: it never crashes on bad input, applies the
//! failure policy per kind, honours the recursion guard and the loop guard,
//! and logs every decision.

mod support;

use serde_json::{json, Value};
use support::{fixture, stderr, stdout, Sandbox};

fn stop_payload(session: &str, prompt_id: &str, active: bool, text: &str) -> Vec<u8> {
    json!({
        "session_id": session, "transcript_path": "/nonexistent/t.jsonl", "cwd": "/tmp",
        "prompt_id": prompt_id, "permission_mode": "default", "hook_event_name": "Stop",
        "stop_hook_active": active, "last_assistant_message": text
    })
    .to_string()
    .into_bytes()
}

fn pre_tool_payload(command: &str) -> Vec<u8> {
    json!({
        "session_id": "s1", "transcript_path": "/nonexistent/t.jsonl", "cwd": "/tmp",
        "prompt_id": "p1", "permission_mode": "default", "hook_event_name": "PreToolUse",
        "tool_name": "Bash", "tool_input": {"command": command}, "tool_use_id": "t1"
    })
    .to_string()
    .into_bytes()
}

#[test]
fn bad_stdin_exits_zero_without_output_and_says_why() {
    let sb = Sandbox::new();
    for (agent, input) in [
        ("claude-code", &b""[..]),
        ("claude-code", b"{\"session_id\": \"x\", \"hook_event_na"),
        ("codex", b"not json at all"),
        ("codex", b"[1,2,3]"),
        ("claude-code", b"{}"),
        ("claude-code", &[0xff, 0xfe, 0x00, 0x10][..]),
    ] {
        let out = sb.run(&["hook", agent], input);
        assert_eq!(
            out.status.code(),
            Some(0),
            "{agent} {input:?}: {}",
            stderr(&out)
        );
        assert_eq!(stdout(&out), "", "{agent} {input:?}");
        assert!(
            stderr(&out).contains("guard:"),
            "a person reading stderr learns why: {}",
            stderr(&out)
        );
    }
}

#[test]
fn captured_payloads_are_allowed_silently_when_nothing_hits() {
    let sb = Sandbox::new();
    for (agent, f) in [
        ("claude-code", "claude-stop-stdin.json"),
        ("claude-code", "claude-pretooluse-stdin.json"),
        ("claude-code", "claude-posttooluse-stdin.json"),
        ("codex", "codex-stop-stdin.json"),
        ("codex", "codex-pretooluse-stdin.json"),
        ("codex", "codex-posttooluse-stdin.json"),
    ] {
        let out = sb.run(&["hook", agent], &fixture(f));
        assert_eq!(out.status.code(), Some(0), "{f}");
        assert_eq!(stdout(&out), "", "{f}: {}", stderr(&out));
    }
    let recs = sb.log_records();
    assert_eq!(recs.len(), 6, "one log line per decision");
    assert!(recs.iter().all(|r| r["verdict"] == "allow"));
    assert_eq!(recs[0]["event"], "stop");
    assert_eq!(recs[0]["agent"], "claude-code");
    assert_eq!(recs[4]["event"], "pre_tool");
}

#[test]
fn agent_is_detected_from_the_payload_shape() {
    let sb = Sandbox::new();
    // Codex payload sent to `guard hook` without an agent, and to the wrong agent.
    for args in [vec!["hook"], vec!["hook", "claude-code"]] {
        let _ = sb.run(&args, &fixture("codex-stop-stdin.json"));
    }
    let _ = sb.run(&["hook"], &fixture("claude-stop-stdin.json"));
    let recs = sb.log_records();
    assert_eq!(recs[0]["agent"], "codex");
    assert_eq!(recs[1]["agent"], "codex");
    assert!(recs[1]["agent_mismatch"]
        .as_str()
        .unwrap()
        .contains("codex"));
    assert_eq!(recs[2]["agent"], "claude-code");
}

#[test]
fn failure_policy_turn_end_allows_when_the_judge_fails() {
    let sb = Sandbox::new();
    let cfg = sb.test_config("judge: {backend: command, command: [\"false\"]}\n");
    let out = sb.run(
        &["hook", "claude-code", "--config", cfg.to_str().unwrap()],
        &stop_payload("s", "p", false, "Done. Let's ship it now."),
    );
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(stdout(&out), "", "{}", stderr(&out));
    let rec = sb.log_records().pop().unwrap();
    let d = rec["detectors"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["name"] == "ship-now")
        .unwrap()
        .clone();
    assert_eq!(d["layer1"], "hit");
    assert_eq!(d["judge"]["outcome"], "fail");
    assert_eq!(rec["verdict"], "allow");
}

#[test]
fn failure_policy_gate_asks_or_denies_per_agent() {
    let sb = Sandbox::new();
    let cfg = sb.test_config("judge: {backend: none}\n");
    let cfg = cfg.to_str().unwrap();
    // Claude Code can ask.
    let out = sb.run(
        &["hook", "claude-code", "--config", cfg],
        &pre_tool_payload("./launch rocket"),
    );
    let v: Value = serde_json::from_str(&stdout(&out)).expect("JSON on stdout");
    assert_eq!(v["hookSpecificOutput"]["permissionDecision"], "ask");
    assert_eq!(v["hookSpecificOutput"]["hookEventName"], "PreToolUse");
    assert!(!v["hookSpecificOutput"]["permissionDecisionReason"]
        .as_str()
        .unwrap()
        .is_empty());
    assert_eq!(out.status.code(), Some(0));
    // Codex cannot: ask is written as deny with a reason.
    let mut codex: Value = serde_json::from_slice(&fixture("codex-pretooluse-stdin.json")).unwrap();
    codex["tool_input"]["command"] = json!("./launch rocket");
    let out = sb.run(
        &["hook", "codex", "--config", cfg],
        codex.to_string().as_bytes(),
    );
    let v: Value = serde_json::from_str(&stdout(&out)).expect("JSON on stdout");
    assert_eq!(v["hookSpecificOutput"]["permissionDecision"], "deny");
    assert!(!v["hookSpecificOutput"]["permissionDecisionReason"]
        .as_str()
        .unwrap()
        .is_empty());
    assert_eq!(
        v.as_object().unwrap().len(),
        1,
        "no fields Codex does not know"
    );
    // The policy is config: failure.pre_tool: deny.
    let cfg2 = sb.test_config("judge: {backend: none}\nfailure: {pre_tool: deny}\n");
    let out = sb.run(
        &["hook", "claude-code", "--config", cfg2.to_str().unwrap()],
        &pre_tool_payload("./launch rocket"),
    );
    let v: Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(v["hookSpecificOutput"]["permissionDecision"], "deny");
}

#[test]
fn recursion_guard_allows_at_once() {
    let sb = Sandbox::new();
    let cfg = sb.test_config("judge: {backend: none}\nfailure: {stop: block, pre_tool: deny}\n");
    let mut cmd = sb.guard(&["hook", "claude-code", "--config", cfg.to_str().unwrap()]);
    cmd.env("GUARD_JUDGE_ACTIVE", "1");
    let out = sb.run_with(cmd, &pre_tool_payload("./launch rocket"));
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(stdout(&out), "");
    assert!(sb.log_records().is_empty(), "does nothing else: no log");
    // Without the variable the same call is denied.
    let out = sb.run(
        &["hook", "claude-code", "--config", cfg.to_str().unwrap()],
        &pre_tool_payload("./launch rocket"),
    );
    assert!(stdout(&out).contains("deny"));
}

#[test]
fn loop_guard_releases_after_max_blocks_and_counts_per_turn() {
    let sb = Sandbox::new();
    let cfg = sb.test_config(
        "judge: {backend: none}\nfailure: {stop: block}\nloop_guard: {max_blocks: 2}\n",
    );
    let cfg = cfg.to_str().unwrap();
    let text = "Let's ship it now.";
    let run = |prompt: &str, active: bool| -> Value {
        let out = sb.run(
            &["hook", "claude-code", "--config", cfg],
            &stop_payload("sess-1", prompt, active, text),
        );
        assert_eq!(out.status.code(), Some(0));
        let s = stdout(&out);
        if s.is_empty() {
            Value::Null
        } else {
            serde_json::from_str(&s).unwrap()
        }
    };
    assert_eq!(run("p1", false)["decision"], "block");
    // The flag is seen false on every call in some Claude Code versions: the
    // same prompt id still counts as the same turn.
    assert_eq!(run("p1", false)["decision"], "block");
    let released = run("p1", true);
    assert!(
        released.get("decision").is_none(),
        "third consecutive block is released: {released}"
    );
    assert!(released["systemMessage"]
        .as_str()
        .unwrap()
        .contains("2 consecutive blocks"));
    // A new user prompt starts the count again.
    assert_eq!(run("p2", false)["decision"], "block");
    assert_eq!(run("p3", false)["decision"], "block");
    assert_eq!(run("p4", false)["decision"], "block");
}

/// Copilot CLI 1.0.102 gives a sub-agent whose `subagentStop` was blocked
/// another turn with the reason, then fires `subagentStop` again with
/// `stop_hook_active: true` (captured), with no cap of its own (a hook that
/// always blocks made 348 re-turns in 180 s): the loop guard ends it.
#[test]
fn the_loop_guard_ends_a_copilot_subagent_blocked_again_and_again() {
    let sb = Sandbox::new();
    let cfg = sb.test_config(
        "judge: {backend: none}\nfailure: {subagent_stop: block}\nloop_guard: {max_blocks: 2}\n",
    );
    let payload = |name: &str| {
        let mut p: Value = serde_json::from_slice(&support::fixture(name)).unwrap();
        // One session (the two captures come from two runs of the rig).
        p["sessionId"] = "copilot-main-session".into();
        p["response"] = "Ship it now.".into();
        p.as_object_mut().unwrap().remove("transcriptPath");
        serde_json::to_vec(&p).unwrap()
    };
    let run = |name: &str| -> Value {
        let out = sb.run(
            &["hook", "copilot", "--config", cfg.to_str().unwrap()],
            &payload(name),
        );
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        serde_json::from_str(&stdout(&out)).unwrap_or(Value::Null)
    };
    assert_eq!(
        run("copilot-1.0.102-subagentstop-stdin.json")["decision"],
        "block"
    );
    let again = "copilot-1.0.102-subagentstop-after-block-stdin.json";
    assert_eq!(run(again)["decision"], "block");
    let released = run(again);
    assert_ne!(released["decision"], "block", "released: {released}");
}

#[test]
fn the_flag_alone_never_turns_a_block_into_an_allow() {
    let sb = Sandbox::new();
    let cfg = sb.test_config("judge: {backend: none}\nfailure: {stop: block}\n");
    let out = sb.run(
        &["hook", "claude-code", "--config", cfg.to_str().unwrap()],
        &stop_payload("sess-2", "p1", true, "ship it now"),
    );
    let v: Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(v["decision"], "block");
    assert!(v["reason"].as_str().unwrap().contains("ship-now"));
}

#[test]
fn broken_config_applies_the_failure_policy_and_reports_it() {
    let sb = Sandbox::new();
    let bad = sb.write("bad.yaml", "judge:\n  backend: none\n  timeout_ms: [1, 2\n");
    let out = sb.run(
        &["hook", "claude-code", "--config", bad.to_str().unwrap()],
        &pre_tool_payload("ls"),
    );
    assert_eq!(out.status.code(), Some(0));
    let v: Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(
        v["hookSpecificOutput"]["permissionDecision"], "ask",
        "a gate fails safe"
    );
    assert!(stderr(&out).contains("bad.yaml:"), "{}", stderr(&out));
    let out = sb.run(
        &["hook", "claude-code", "--config", bad.to_str().unwrap()],
        &stop_payload("s", "p", false, "hi"),
    );
    assert_eq!(stdout(&out), "", "a turn end fails open");
    let out = sb.run(
        &["config", "validate", "--config", bad.to_str().unwrap()],
        b"",
    );
    assert_ne!(out.status.code(), Some(0));
    assert!(
        stderr(&out).contains("bad.yaml:3:"),
        "file, line and column: {}",
        stderr(&out)
    );
}

#[test]
fn generic_protocol_verdicts_and_exit_codes() {
    let sb = Sandbox::new();
    let cfg = sb.test_config("judge: {backend: none}\nfailure: {stop: block, pre_tool: deny}\n");
    let cfg = cfg.to_str().unwrap();
    let out = sb.run(
        &["hook", "generic", "--config", cfg],
        br#"{"event":"stop","text":"all good","session_id":"g"}"#,
    );
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(
        serde_json::from_str::<Value>(&stdout(&out)).unwrap(),
        json!({"verdict": "allow", "detectors": []})
    );
    let out = sb.run(
        &["hook", "generic", "--config", cfg],
        br#"{"event":"stop","text":"ship it now","session_id":"g"}"#,
    );
    assert_eq!(out.status.code(), Some(2));
    let v: Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(v["verdict"], "block");
    assert_eq!(v["detectors"], json!(["ship-now"]));
    let out = sb.run(
        &["hook", "generic", "--config", cfg],
        br#"{"event":"pre_tool","tool":"Bash","command":"./launch x"}"#,
    );
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        serde_json::from_str::<Value>(&stdout(&out)).unwrap()["verdict"],
        "deny"
    );
}

#[test]
fn check_json_lists_every_applicable_detector() {
    let sb = Sandbox::new();
    let cfg = sb.test_config("judge: {backend: none}\n");
    let out = sb.run(
        &[
            "check",
            "--config",
            cfg.to_str().unwrap(),
            "--json",
            "--no-judge",
            "--text",
            "ok, all tests pass, ship it now",
        ],
        b"",
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let v: Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(v["event"], "stop");
    let ship = v["detectors"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["name"] == "ship-now")
        .unwrap()
        .clone();
    assert_eq!(ship["layer1"], "bypass");
    assert_eq!(ship["judge"]["outcome"], "skipped");
    assert!(
        v["detectors"]
            .as_array()
            .unwrap()
            .iter()
            .all(|d| d["name"] != "launch"),
        "launch does not apply to stop"
    );
    let out = sb.run(
        &[
            "check",
            "--config",
            cfg.to_str().unwrap(),
            "--json",
            "--no-judge",
            "--command",
            "launch now",
        ],
        b"",
    );
    let v: Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(v["event"], "pre_tool");
    assert_eq!(v["verdict"], "ask");
}

#[test]
fn check_reads_a_turn_end_payloads_transcript_as_the_hook_does() {
    let sb = Sandbox::new();
    // The user reported a crash, the agent changed code and says only that
    // it is done: the evidence, not the words, sends it to the judge.
    let lines = [
        json!({"type": "user", "message": {"role": "user", "content": "the importer crashes on empty files"}}),
        json!({"type": "assistant", "message": {"id": "m1", "role": "assistant", "content": [
            {"type": "tool_use", "id": "t1", "name": "Edit", "input": {"file_path": "/w/importer.py", "old_string": "a", "new_string": "b"}}]}}),
        json!({"type": "user", "message": {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1", "content": "ok"}]}}),
        json!({"type": "assistant", "message": {"id": "m2", "role": "assistant", "content": [{"type": "text", "text": "Done ✅"}]}}),
    ];
    let transcript = sb.write(
        "t.jsonl",
        &lines
            .iter()
            .map(|l| l.to_string() + "\n")
            .collect::<String>(),
    );
    let shallow = |transcript: &str| {
        let mut payload: Value =
            serde_json::from_slice(&stop_payload("s-c", "p", false, "Done ✅")).unwrap();
        payload["transcript_path"] = json!(transcript);
        let input = sb.write("payload.json", &payload.to_string());
        let out = sb.run(
            &[
                "check",
                "--json",
                "--no-judge",
                "--input",
                input.to_str().unwrap(),
            ],
            b"",
        );
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        let v: Value = serde_json::from_str(&stdout(&out)).unwrap();
        v["detectors"]
            .as_array()
            .unwrap()
            .iter()
            .find(|d| d["name"] == "shallow-bugfix")
            .unwrap()
            .clone()
    };
    let read = shallow(transcript.to_str().unwrap());
    assert_eq!(read["layer1"], "hit", "{read}");
    assert!(
        read["signals"]
            .to_string()
            .contains("action:defect-reported-code-changed-done-claimed"),
        "{read}"
    );
    assert_eq!(
        shallow("/nonexistent/t.jsonl")["layer1"],
        "miss",
        "text alone"
    );
}

#[test]
fn injected_panics_follow_the_failure_policy() {
    let sb = Sandbox::new();
    let cfg = sb.test_config("judge: {backend: none}\n");
    for stage in ["config", "engine", "judge", "log", "render"] {
        let mut cmd = sb.guard(&["hook", "claude-code", "--config", cfg.to_str().unwrap()]);
        cmd.env("GUARD_FAULT", stage);
        let out = sb.run_with(cmd, &pre_tool_payload("ls"));
        assert_eq!(out.status.code(), Some(0), "{stage}");
        let v: Value = serde_json::from_str(&stdout(&out)).unwrap_or(Value::Null);
        assert_eq!(
            v["hookSpecificOutput"]["permissionDecision"], "ask",
            "{stage}: a known pre-tool call fails safe"
        );
        let mut cmd = sb.guard(&["hook", "claude-code", "--config", cfg.to_str().unwrap()]);
        cmd.env("GUARD_FAULT", stage);
        let out = sb.run_with(cmd, &stop_payload("s", "p", false, "ship it now"));
        assert_eq!(
            (out.status.code(), stdout(&out)),
            (Some(0), String::new()),
            "{stage}: a turn end fails open"
        );
    }
    let mut cmd = sb.guard(&["hook", "codex"]);
    cmd.env("GUARD_FAULT", "parse");
    let out = sb.run_with(cmd, &fixture("codex-pretooluse-stdin.json"));
    assert_eq!(
        (out.status.code(), stdout(&out)),
        (Some(0), String::new()),
        "an unknown event is allowed"
    );
}

#[test]
fn turn_end_text_comes_from_the_transcript_and_survives_hostile_paths() {
    let sb = Sandbox::new();
    let cfg = sb.test_config("judge: {backend: none}\nfailure: {stop: block}\n");
    let cfg = cfg.to_str().unwrap();
    // The proposal is in an earlier assistant message of the turn; the
    // payload only carries the last one.
    let lines = [
        json!({"type": "user", "uuid": "u1", "message": {"role": "user", "content": "please finish the release"}}),
        json!({"type": "assistant", "uuid": "a1", "message": {"id": "m1", "role": "assistant", "content": [{"type": "text", "text": "Build is done. Let's ship it now."}]}}),
        json!({"type": "assistant", "uuid": "a2", "message": {"id": "m2", "role": "assistant", "content": [{"type": "text", "text": "Anything else?"}]}}),
    ];
    let transcript = sb.write(
        "t.jsonl",
        &lines
            .iter()
            .map(|l| l.to_string() + "\n")
            .collect::<String>(),
    );
    let mut payload: Value =
        serde_json::from_slice(&stop_payload("s-t", "p", false, "Anything else?")).unwrap();
    payload["transcript_path"] = json!(transcript);
    let out = sb.run(
        &["hook", "claude-code", "--config", cfg],
        payload.to_string().as_bytes(),
    );
    assert!(
        stdout(&out).contains("\"block\""),
        "judged the whole turn from the transcript: {} {}",
        stdout(&out),
        stderr(&out)
    );

    // A FIFO, /dev/zero or a directory as transcript: answered at once, per policy, with the problem on stderr.
    let fifo = sb.path().join("fifo");
    let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
    for path in [
        fifo.to_str().unwrap(),
        "/dev/zero",
        sb.path().to_str().unwrap(),
    ] {
        payload["transcript_path"] = json!(path);
        payload["session_id"] = json!(path);
        payload["last_assistant_message"] = json!("ship it now");
        let out = sb.run(
            &["hook", "claude-code", "--config", cfg],
            payload.to_string().as_bytes(),
        );
        assert_eq!(out.status.code(), Some(0));
        assert!(
            stdout(&out).contains("\"block\""),
            "{path}: falls back to the payload's text"
        );
        assert!(
            stderr(&out).contains("not a regular file"),
            "{path}: {}",
            stderr(&out)
        );
    }
}

#[test]
fn a_broken_config_still_honours_the_built_in_agent_overrides() {
    let sb = Sandbox::new();
    let bad = sb.write("bad.yaml", "judge: [\n");
    let payload = json!({"session_id": "g", "cwd": "/tmp", "hook_event_name": "BeforeTool", "timestamp": "2026-12-02T09:06:00.145Z",
                         "tool_name": "run_shell_command", "tool_input": {"command": "ls"}});
    let out = sb.run(
        &["hook", "gemini", "--config", bad.to_str().unwrap()],
        payload.to_string().as_bytes(),
    );
    assert_eq!(out.status.code(), Some(0));
    let v: Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(
        v["decision"], "deny",
        "Gemini halts on ask in headless runs: the built-in config writes deny"
    );
}
