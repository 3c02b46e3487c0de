//! Tests of `copilot.rs`.

use super::*;
use serde_json::json;

/// Events written one a line: the `type`, then the `data` as JSON.
fn events(lines: &str) -> Vec<Value> {
    lines
        .lines()
        .map(|line| {
            let (kind, data) = line.trim().split_once(' ').unwrap();
            let data: Value = serde_json::from_str(data).unwrap();
            json!({"type": kind, "data": data, "id": "e", "timestamp": "2026-12-03T18:43:34.577Z"})
        })
        .collect()
}

fn read(events: &[Value]) -> (Flow, Option<String>, Vec<String>) {
    let (flow, turn, _) = read_with_prompt(events);
    (flow, turn.0, turn.1)
}

/// The flow, the turn's text and actions, and its request.
fn read_with_prompt(events: &[Value]) -> (Flow, (Option<String>, Vec<String>), Option<String>) {
    let (flow, turn) = super::super::scan_newest_first(&mut CopilotScanner::default(), events);
    let prompt = turn.prompt.clone();
    let actions = turn.actions.finish(true);
    let summary = actions
        .actions
        .iter()
        .map(|a| serde_json::to_string(a).unwrap())
        .collect();
    (flow, (turn.text.into_text(1000), summary), prompt)
}

#[test]
fn a_turn_reads_back_to_its_prompt_across_hook_feedback() {
    let events = events(
        r#"user.message {"content": "old prompt"}
            assistant.message {"messageId": "m0", "content": "OLD TURN"}
            user.message {"content": "run it", "delivery": "idle"}
            tool.execution_start {"toolCallId": "c1", "toolName": "bash", "arguments": {"command": "cargo test", "description": "test"}}
            tool.execution_complete {"toolCallId": "c1", "success": true, "shellExecution": {"exitCode": 101}, "result": {"content": "failed"}}
            assistant.message {"messageId": "m1", "content": "Tests fail."}
            hook.end {"hookType": "agentStop", "success": true, "output": {"decision": "block", "reason": "say more"}}
            user.message {"content": "say more", "delivery": "queued"}
            assistant.message {"messageId": "m2", "content": "One test fails."}"#,
    );
    let (flow, (text, actions), prompt) = read_with_prompt(&events);
    assert_eq!(flow, Flow::Stop);
    assert_eq!(text.as_deref(), Some("Tests fail.\n\nOne test fails."));
    // The hook's feedback ("say more") is not the request.
    assert_eq!(prompt.as_deref(), Some("run it"));
    assert_eq!(
        actions,
        vec![
            r#"{"type":"command","command":"cargo test","tool":"bash","outcome":"failed","exit_code":101,"kinds":["test"]}"#
        ]
    );
}

#[test]
fn refusals_edits_and_background_commands() {
    let events = events(
        r#"user.message {"content": "go"}
            tool.execution_start {"toolCallId": "c1", "toolName": "create", "arguments": {"path": "/w/a.txt", "file_text": "x"}}
            tool.execution_complete {"toolCallId": "c1", "success": true, "fileEdits": [{"path": "/w/a.txt", "kind": "create"}]}
            tool.execution_start {"toolCallId": "c2", "toolName": "apply_patch", "arguments": {"input": "*** Begin Patch"}}
            tool.execution_complete {"toolCallId": "c2", "success": true, "fileEdits": [{"path": "/w/b.rs", "kind": "edit"}]}
            tool.execution_start {"toolCallId": "c3", "toolName": "bash", "arguments": {"command": "git push"}}
            tool.execution_complete {"toolCallId": "c3", "success": false, "error": {"message": "Denied by preToolUse hook: no", "code": "denied"}}
            tool.execution_start {"toolCallId": "c4", "toolName": "bash", "arguments": {"command": "npm run dev", "mode": "async"}}
            tool.execution_complete {"toolCallId": "c4", "success": true, "result": {"content": "<shellId: 1 started>"}}
            tool.execution_start {"toolCallId": "c5", "toolName": "edit", "arguments": {"path": "/w/a.txt", "old_str": "q", "new_str": "r"}}
            tool.execution_complete {"toolCallId": "c5", "success": false, "error": {"message": "No match found", "code": "failure"}}
            tool.execution_start {"toolCallId": "c6", "toolName": "view", "arguments": {"path": "/w/a.txt"}}"#,
    );
    let (_, _, actions) = read(&events);
    assert_eq!(
        actions,
        vec![
            r#"{"type":"edit","path":"/w/a.txt","tool":"create","outcome":"succeeded"}"#,
            r#"{"type":"edit","path":"/w/b.rs","tool":"apply_patch","outcome":"succeeded"}"#,
            r#"{"type":"command","command":"git push","tool":"bash","outcome":"not_run","kinds":["push"]}"#,
            r#"{"type":"command","command":"npm run dev","tool":"bash","outcome":"unknown"}"#,
            r#"{"type":"edit","path":"/w/a.txt","tool":"edit","outcome":"failed"}"#,
        ]
    );
}

#[test]
fn injected_messages_are_not_prompts() {
    let events = events(
        r#"session.start {"sessionId": "s", "copilotVersion": "1.0.102"}
            user.message {"content": "real prompt"}
            assistant.message {"messageId": "m1", "content": "First."}
            user.message {"content": "skill text", "source": "skill-pdf"}
            assistant.message {"messageId": "m2", "content": "Second."}"#,
    );
    let (flow, text, _) = read(&events);
    assert_eq!(flow, Flow::Stop);
    assert_eq!(text.as_deref(), Some("First.\n\nSecond."));
}

fn user(id: &str, text: &str) -> Value {
    json!({"type": "user.message", "id": id, "data": {"content": text}})
}

fn assistant(id: &str, text: &str) -> Value {
    json!({"type": "assistant.message", "id": id, "data": {"messageId": id, "content": text}})
}

#[test]
fn the_feedbacks_own_prompt_hooks_come_between_the_block_and_the_feedback() {
    let events = events(
        r#"assistant.message {"messageId": "a1", "content": "OLD TURN"}
            user.message {"content": "fix it"}
            assistant.message {"messageId": "a2", "content": "Fixed. Pushing now."}
            hook.end {"hookType": "agentStop", "success": true, "output": {"decision": "block", "reason": "verify first"}}
            hook.start {"hookType": "userPromptSubmitted"}
            hook.end {"hookType": "userPromptSubmitted"}
            user.message {"content": "guard: verify first"}
            assistant.message {"messageId": "a3", "content": "Tests pass."}"#,
    );
    let (flow, text, _) = read(&events);
    assert_eq!(flow, Flow::Stop);
    assert_eq!(text.as_deref(), Some("Fixed. Pushing now.\n\nTests pass."));
}

#[test]
fn the_writer_has_caught_up_once_the_file_ends_with_the_hook_start() {
    let dir = std::env::temp_dir().join(format!("guard-copilot-tail-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("events.jsonl");
    let start = |stamp: u64| json!({"type": "hook.start", "data": {"hookType": "agentStop", "input": {"timestamp": stamp}}});
    let lines = |records: &[Value]| records.iter().map(|r| format!("{r}\n")).collect::<String>();
    let payload = json!({"timestamp": 2, "stopReason": "end_turn"});
    std::fs::write(&path, lines(&[user("u", "fix it")])).unwrap();
    assert!(!writer_caught_up(&path, &payload));
    // The hook before this one (a block) is the last record written.
    std::fs::write(&path, lines(&[user("u", "fix it"), start(1)])).unwrap();
    assert!(!writer_caught_up(&path, &payload));
    assert!(writer_caught_up(&path, &json!({})));
    std::fs::write(
        &path,
        lines(&[user("u", "fix it"), assistant("a", "Done."), start(2)]),
    )
    .unwrap();
    assert!(writer_caught_up(&path, &payload));
    assert!(!writer_caught_up(&dir.join("missing.jsonl"), &payload));
    assert!(
        writer_caught_up(&dir, &payload),
        "a directory is the reader's to refuse"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}
