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
//! A sub-agent (the `task` tool, run `sync`) writes its records into the
//! same file, each with a top-level `agentId` (Copilot CLI 1.0.102,
//! tests/fixtures/transcripts/copilot-1.0.102-real-subagent.jsonl): its
//! tool calls are the main turn's actions, its messages are not the main
//! agent's text; a `subagentStop` reads that sub-agent's records alone
//! ([`CopilotScanner::for_agent`]).
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
    /// Reading one sub-agent's own turn: the `agentId` of its records.
    agent: Option<String>,
}

impl CopilotScanner {
    /// A scanner of sub-agent `agent_id`'s own turn: its records only,
    /// from the task its parent gave it (not the user's request).
    pub(crate) fn for_agent(agent_id: &str) -> CopilotScanner {
        CopilotScanner {
            agent: Some(agent_id.to_owned()),
            ..CopilotScanner::default()
        }
    }
}

impl RecordScanner for CopilotScanner {
    fn scan(&mut self, record: &Value, turn: &mut Turn) -> Flow {
        let kind = record.get("type").and_then(Value::as_str).unwrap_or("");
        let data = record.get("data").unwrap_or(&Value::Null);
        // A sub-agent's records carry its `agentId`, in the main file. Its
        // tool calls are the turn's; its messages are not the main agent's.
        let agent = record.get("agentId").and_then(Value::as_str);
        if let Some(wanted) = &self.agent {
            if agent != Some(wanted.as_str()) {
                return Flow::Continue;
            }
            if kind == "user.message" {
                return Flow::Stop;
            }
        } else if agent.is_some() && matches!(kind, "assistant.message" | "user.message") {
            return Flow::Continue;
        }
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
    if let Some(content) = data.pointer("/result/content").and_then(Value::as_str) {
        result = result.with_output(content);
    }
    let edits = data.get("fileEdits").and_then(Value::as_array);
    result.paths = edits
        .into_iter()
        .flatten()
        .filter_map(|edit| text(edit, "path").map(str::to_owned))
        .collect();
    result
}

#[cfg(test)]
#[path = "copilot_tests.rs"]
mod tests;
