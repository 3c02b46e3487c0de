//! Tests of `claude.rs`.

use super::*;
use serde_json::json;

fn scan(record: Value) -> (Flow, Option<String>) {
    let mut turn = Turn::default();
    let flow = ClaudeScanner::default().scan(&record, &mut turn);
    (flow, turn.text.into_text(10_000))
}

#[test]
fn assistant_text_blocks_are_taken_and_others_ignored() {
    let (flow, text) = scan(
        json!({"type": "assistant", "message": {"id": "m", "content": [
            {"type": "thinking", "thinking": "secret plan"},
            {"type": "text", "text": "Done."},
            {"type": "tool_use", "id": "t", "name": "Bash", "input": {"command": "ls"}}
        ]}}),
    );
    assert_eq!(flow, Flow::Continue);
    assert_eq!(text.as_deref(), Some("Done."));
}

#[test]
fn the_typed_prompt_is_kept_without_injected_text() {
    let record = json!({"type": "user", "message": {"content": [
        {"type": "text", "text": "<system-reminder>be brief</system-reminder>"},
        {"type": "text", "text": "fix the parser, then push"}]}});
    let mut turn = Turn::default();
    assert_eq!(
        ClaudeScanner::default().scan(&record, &mut turn),
        Flow::Stop
    );
    assert_eq!(turn.prompt.as_deref(), Some("fix the parser, then push"));
    let mut long = Turn::default();
    long.set_prompt(std::iter::once("é".repeat(3000).as_str()));
    assert_eq!(
        long.prompt.map(|p| p.len()),
        Some(4096),
        "cut on a char boundary"
    );
}

#[test]
fn typed_prompts_are_turn_starts() {
    assert_eq!(
        scan(json!({"type": "user", "message": {"role": "user", "content": "fix it"}})).0,
        Flow::Stop
    );
    let blocks =
        json!({"type": "user", "message": {"content": [{"type": "text", "text": "fix it"}]}});
    assert_eq!(scan(blocks).0, Flow::Stop);
    let command =
        json!({"type": "user", "message": {"content": "<command-name>/review</command-name>"}});
    assert_eq!(scan(command).0, Flow::Stop);
}

#[test]
fn tool_results_meta_and_hook_feedback_are_not_turn_starts() {
    let cases = [
        json!({"type": "user", "message": {"content": [{"type": "tool_result", "tool_use_id": "t", "content": "ok"}]}}),
        json!({"type": "user", "toolUseResult": {"stdout": ""}, "message": {"content": [{"type": "text", "text": "x"}]}}),
        json!({"type": "user", "isMeta": true, "message": {"content": "Caveat"}}),
        json!({"type": "user", "message": {"content": [{"type": "text", "text": "Stop hook feedback:\nsay more"}]}}),
        json!({"type": "user", "message": {"content": "  <system-reminder>ctx</system-reminder>"}}),
        json!({"type": "user", "message": {"content": "[Request interrupted by user]"}}),
        json!({"type": "user", "isCompactSummary": true, "message": {"content": "This session is being continued"}}),
        json!({"type": "user", "isSidechain": true, "message": {"content": "sub-agent prompt"}}),
        json!({"type": "system", "subtype": "stop_hook_summary"}),
    ];
    for case in cases {
        assert_eq!(scan(case.clone()), (Flow::Continue, None), "{case}");
    }
}

#[test]
fn sidechain_and_api_error_assistant_lines_are_skipped() {
    let sidechain = json!({"type": "assistant", "isSidechain": true, "message": {"content": [{"type": "text", "text": "sub"}]}});
    assert_eq!(scan(sidechain).1, None);
    let api_error = json!({"type": "assistant", "isApiErrorMessage": true, "message": {"content": [{"type": "text", "text": "API Error"}]}});
    assert_eq!(scan(api_error).1, None);
}

fn actions(records: &[Value]) -> Vec<String> {
    let (_, turn) = super::super::scan_newest_first(&mut ClaudeScanner::default(), records);
    let actions = turn.actions.finish(true);
    actions
        .actions
        .iter()
        .map(|action| serde_json::to_string(action).unwrap())
        .collect()
}

fn tool_use(id: &str, name: &str, input: Value) -> Value {
    json!({"type": "assistant", "message": {"id": format!("m{id}"), "content": [
        {"type": "tool_use", "id": id, "name": name, "input": input}]}})
}

fn tool_result(id: &str, content: &str, is_error: Option<bool>) -> Value {
    let mut block = json!({"type": "tool_result", "tool_use_id": id, "content": content});
    if let Some(is_error) = is_error {
        block["is_error"] = json!(is_error);
    }
    json!({"type": "user", "toolUseResult": {}, "message": {"content": [block]}})
}

#[test]
fn commands_and_edits_pair_with_their_results() {
    let records = [
        tool_use(
            "t1",
            "Edit",
            json!({"file_path": "/w/src/a.rs", "old_string": "a", "new_string": "b"}),
        ),
        tool_result("t1", "The file /w/src/a.rs has been updated.", None),
        tool_use("t2", "Bash", json!({"command": "cargo test"})),
        tool_result("t2", "Exit code 101\ntest failed", Some(true)),
        tool_use("t3", "Bash", json!({"command": "git push"})),
        tool_result("t3", "Blocked by policy", Some(true)),
        tool_use(
            "t4",
            "Bash",
            json!({"command": "npm run dev", "run_in_background": true}),
        ),
        tool_result(
            "t4",
            "Command running in background with ID: b1",
            Some(false),
        ),
        tool_use("t5", "Read", json!({"file_path": "/w/README.md"})),
        tool_use(
            "t6",
            "Write",
            json!({"file_path": "/w/new.rs", "content": "x"}),
        ),
        tool_result(
            "t6",
            "<tool_use_error>File has not been read yet.</tool_use_error>",
            Some(true),
        ),
        tool_use("t7", "Bash", json!({"command": "echo ok"})),
        tool_result("t7", "ok", Some(false)),
    ];
    assert_eq!(
        actions(&records),
        vec![
            r#"{"type":"edit","path":"/w/src/a.rs","tool":"Edit","outcome":"succeeded"}"#,
            r#"{"type":"command","command":"cargo test","tool":"Bash","outcome":"failed","exit_code":101,"kinds":["test"]}"#,
            r#"{"type":"command","command":"git push","tool":"Bash","outcome":"not_run","kinds":["push"]}"#,
            r#"{"type":"command","command":"npm run dev","tool":"Bash","outcome":"unknown"}"#,
            r#"{"type":"edit","path":"/w/new.rs","tool":"Write","outcome":"not_run"}"#,
            r#"{"type":"command","command":"echo ok","tool":"Bash","outcome":"succeeded"}"#,
        ]
    );
}

#[test]
fn a_cut_result_tells_only_what_its_start_says() {
    assert_eq!(
        super::tool_result(None, "Exit code 2\nmore", true),
        ToolResult::exited(2)
    );
    assert_eq!(
        super::tool_result(None, "lots of output", true).outcome,
        Outcome::Unknown
    );
    assert_eq!(
        super::tool_result(None, "ok", false).outcome,
        Outcome::Succeeded
    );
}
