//! GitHub Copilot CLI session events
//! (`~/.copilot/session-state/<session>/events.jsonl`, the `transcriptPath`
//! of its `agentStop` hook).
//!
//! Each line is an event `{type, data, id, timestamp, parentId}`:
//! - `user.message` (`data.content`): the user's prompt (the turn's
//!   request, `Turn::prompt`); one with a `data.source` was injected (a
//!   skill, another agent) and is not;
//! - `assistant.message` (`data.content`, `data.messageId`): the reply text;
//! - `tool.execution_start` (`toolCallId`, `toolName`, `arguments`; an MCP
//!   tool's also `mcpServerName` and `mcpToolName`) and
//!   `tool.execution_complete` (`toolCallId`, `success`, `error.code`:
//!   `denied` when a hook or a rule refused it, `shellExecution.exitCode`,
//!   `fileEdits[].path`);
//! - `hook.start` / `hook.end` (`hookType`, `output`), and many more
//!   (`session.*`, `assistant.turn_*`, usage records) that are skipped.
//!
//! When an `agentStop` hook blocks, Copilot records the hook's `hook.end`
//! (`output.decision: "block"`) and then the reason as a plain
//! `user.message`: a user message right after a blocking stop hook is that
//! feedback, which neither starts the turn nor adds text. Shell tools:
//! `bash`, `powershell` (`arguments.command`; `mode: "async"` or `detach`
//! runs in the background, outcome unknown); edit tools: `create`, `edit`,
//! and any tool whose completion lists `fileEdits`; MCP tools that ship,
//! check or edit ([`crate::actions::mcp`], as `mcp__<server>__<tool>`). Layout checked on the
//! real Copilot CLI 1.0.102 (BYOK, offline against the stub model;
//! tests/fixtures/transcripts/copilot-1.0.102-real-actions.jsonl). Only the
//! records of the prompt hooks the feedback itself fired
//! (`userPromptSubmitted`) may come between the blocking hook and its
//! feedback.
//!
//! Copilot writes this file about 100 ms behind: when an agentStop hook
//! starts, the turn's last records are not in it yet. They are once the
//! file ends with that hook's own `hook.start` record (its `data.input` is
//! the payload, so its `timestamp` is the payload's), which
//! [`writer_caught_up`] looks for.

use super::collect::{code_after, ToolResult};
use super::turn::{Flow, Turn};
use super::RecordScanner;
use crate::actions::Outcome;
use serde_json::Value;
use std::io::{Read, Seek, SeekFrom};
use std::path::Path;

/// Shell tools.
const SHELL_TOOLS: &[&str] = &["bash", "powershell"];
/// Edit tools and the argument that names their file.
const EDIT_TOOLS: &[(&str, &str)] = &[("create", "path"), ("edit", "path"), ("write", "path")];

/// How much of the file's end is read to find its last record.
const TAIL_BYTES: u64 = 64 * 1024;

/// Whether the file at `path` ends with the `hook.start` record of the
/// turn-end hook whose payload is `payload` (told by its `timestamp`; any
/// turn-end hook's when the payload has none), i.e. Copilot has written
/// everything up to the hook that is running now. A file not there yet is
/// not caught up (Copilot creates it on its first write); other unreadable
/// files are (the reader then reports them).
pub(crate) fn writer_caught_up(path: &Path, payload: &Value) -> bool {
    let (mut file, metadata) = match super::open::open_regular_file(path) {
        Ok(opened) => opened,
        Err(super::TranscriptError::Missing { .. }) => return false,
        Err(_) => return true,
    };
    let start = metadata.len().saturating_sub(TAIL_BYTES);
    let mut tail = Vec::new();
    if file.seek(SeekFrom::Start(start)).is_err()
        || file.take(TAIL_BYTES).read_to_end(&mut tail).is_err()
    {
        return true;
    }
    let last = tail
        .split(|b| *b == b'\n')
        .rev()
        .find(|line| !line.iter().all(u8::is_ascii_whitespace));
    let stamp = payload.get("timestamp");
    last.and_then(super::reader::parse_object)
        .is_some_and(|record| {
            let input = record.get("data").and_then(|d| d.get("input"));
            record.get("type").and_then(Value::as_str) == Some("hook.start")
                && matches!(hook_type(&record), Some("agentStop" | "subagentStop"))
                && stamp.is_none_or(|s| input.and_then(|i| i.get("timestamp")) == Some(s))
        })
}

/// Reads Copilot CLI events, newest first.
#[derive(Debug, Default)]
pub(crate) struct CopilotScanner {
    /// A prompt was just seen: the turn's start, unless the next (older)
    /// event is the stop hook whose feedback it is.
    pending_prompt: bool,
}

impl RecordScanner for CopilotScanner {
    fn scan(&mut self, record: &Value, turn: &mut Turn) -> Flow {
        let kind = record.get("type").and_then(Value::as_str).unwrap_or("");
        let data = record.get("data").unwrap_or(&Value::Null);
        if self.pending_prompt && is_prompt_hook_record(kind, data) {
            // The feedback's own prompt hook: look further back.
            return Flow::Continue;
        }
        if std::mem::take(&mut self.pending_prompt) {
            if is_blocking_stop_hook(kind, data) {
                // That message was the hook's feedback, not the request.
                turn.prompt = None;
                return Flow::Continue;
            }
            return Flow::Stop;
        }
        match kind {
            "assistant.message" => {
                let key = text(data, "messageId");
                turn.add_text(key, text(data, "content").into_iter());
            }
            "user.message" if is_typed_prompt(data) => {
                self.pending_prompt = true;
                turn.set_prompt(text(data, "content").into_iter());
            }
            "tool.execution_complete" => {
                if let Some(id) = text(data, "toolCallId") {
                    turn.actions.result(id, completion(data));
                }
            }
            "tool.execution_start" => take_call(data, turn),
            _ => {}
        }
        Flow::Continue
    }
}

fn text<'a>(value: &'a Value, key: &str) -> Option<&'a str> {
    value.get(key).and_then(Value::as_str)
}

fn is_typed_prompt(data: &Value) -> bool {
    let typed = text(data, "content").is_some_and(|content| !content.trim().is_empty());
    typed && text(data, "source").is_none_or(str::is_empty)
}

fn hook_type(record: &Value) -> Option<&str> {
    record
        .get("data")
        .and_then(|d| d.get("hookType"))
        .and_then(Value::as_str)
}

/// A `hook.start` or `hook.end` of a hook that a user message fires.
fn is_prompt_hook_record(kind: &str, data: &Value) -> bool {
    matches!(kind, "hook.start" | "hook.end")
        && text(data, "hookType").is_some_and(|t| t.starts_with("userPrompt"))
}

fn is_blocking_stop_hook(kind: &str, data: &Value) -> bool {
    kind == "hook.end"
        && matches!(text(data, "hookType"), Some("agentStop" | "subagentStop"))
        && data
            .get("output")
            .and_then(|output| text(output, "decision"))
            == Some("block")
}

fn take_call(data: &Value, turn: &mut Turn) {
    let id = text(data, "toolCallId");
    let name = text(data, "toolName").unwrap_or("");
    let arguments = data.get("arguments").unwrap_or(&Value::Null);
    if SHELL_TOOLS.contains(&name) {
        let Some(command) = text(arguments, "command") else {
            return;
        };
        let background = text(arguments, "mode") == Some("async")
            || arguments.get("detach").and_then(Value::as_bool) == Some(true);
        if background {
            if let Some(id) = id {
                turn.actions.forget_result(id);
            }
        }
        turn.actions.command(id, name, command, None);
        return;
    }
    // An MCP tool names its server and its own name apart (`toolName` is
    // `gh-push_files`): kept under the name the other agents give it.
    if let (Some(server), Some(tool)) = (text(data, "mcpServerName"), text(data, "mcpToolName")) {
        let name = format!("mcp__{server}__{tool}");
        turn.actions.mcp_call(id, &name, Some(arguments), None);
        return;
    }
    let named_path = EDIT_TOOLS
        .iter()
        .find(|(tool, _)| *tool == name)
        .and_then(|(_, key)| text(arguments, key));
    let reported = id.is_some_and(|id| turn.actions.has_changed_files(id));
    if named_path.is_some() || reported {
        let paths: Vec<String> = named_path.map(str::to_owned).into_iter().collect();
        turn.actions.edit(id, name, &paths, None);
    }
}

/// What a `tool.execution_complete` says.
fn completion(data: &Value) -> ToolResult {
    let error = data.get("error");
    let denied = error.is_some_and(|e| {
        text(e, "code") == Some("denied")
            || text(e, "message").is_some_and(|m| m.starts_with("Denied by"))
    });
    let mut result = if denied {
        ToolResult::of(Outcome::NotRun)
    } else if let Some(code) = data
        .pointer("/shellExecution/exitCode")
        .and_then(Value::as_i64)
    {
        ToolResult::exited(code as i32)
    } else if let Some(code) = data
        .pointer("/result/content")
        .and_then(Value::as_str)
        .and_then(|content| {
            let at = content.rfind("completed with exit code")?;
            code_after(&content[at..], "exit code")
        })
    {
        ToolResult::exited(code)
    } else {
        match data.get("success").and_then(Value::as_bool) {
            Some(true) => ToolResult::of(Outcome::Succeeded),
            Some(false) => ToolResult::of(Outcome::Failed),
            None => ToolResult::of(Outcome::Unknown),
        }
    };
    let edits = data.get("fileEdits").and_then(Value::as_array);
    result.paths = edits
        .into_iter()
        .flatten()
        .filter_map(|edit| text(edit, "path").map(str::to_owned))
        .collect();
    result
}

#[cfg(test)]
mod tests {
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
        let lines =
            |records: &[Value]| records.iter().map(|r| format!("{r}\n")).collect::<String>();
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
}
