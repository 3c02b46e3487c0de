//! The commands and edits in a Codex rollout.
//!
//! Calls are `response_item` payloads: `function_call` of `exec_command`
//! (arguments `{"cmd": …}`; older versions: `shell` with an argv
//! `command`, or `shell_command`), `local_shell_call`, and the `apply_patch`
//! tool (`function_call` or `custom_tool_call`), and MCP tools that ship or
//! edit ([`crate::actions::mcp`]; a `function_call` of `name` `push_files`
//! in `namespace` `mcp__gh`). A shell command that is an
//! `apply_patch` invocation is an edit too: Codex applies the patch itself.
//! Results, seen first when reading backwards:
//! - `event_msg` `item_completed` items: `CommandExecution` (`exit_code`,
//!   `status`), `McpToolCall` (`status`) and `FileChange` (`changes`: the
//!   files, `status`); older
//!   versions: `exec_command_end` and `patch_apply_end`;
//! - the `function_call_output` text the model saw, whose header says
//!   `Process exited with code N` (or `Exit code: N`), `Process running with
//!   session ID …` (still running), or that a hook blocked the command.
//!
//! The plan tool, `update_plan` (arguments `{"plan": [{step, status}]}`,
//! the whole plan each time), gives the turn's plan
//! ([`crate::actions::plan`]).
//!
//! A sub-agent seen to finish is noted in its place; its own actions are in
//! its rollout ([`super::subagent`]).
//!
//! (Layout checked on Codex CLI 0.171.0:
//! tests/fixtures/transcripts/codex-0.171-real-actions.jsonl,
//! codex-0.171-real-subagent*.)

use super::collect::{code_after, ToolResult};
use super::turn::Turn;
use crate::actions::mcp::{self, McpTool};
use crate::actions::plan::Plan;
use crate::actions::Outcome;
use serde_json::Value;
use std::borrow::Cow;

/// Shell tools, by the name the model calls them.
const SHELL_TOOLS: &[&str] = &["exec_command", "shell", "shell_command", "container.exec"];
/// The patch tool.
const PATCH_TOOL: &str = "apply_patch";
/// The plan tool.
const PLAN_TOOL: &str = "update_plan";
/// Only this much of a result's text is searched for its status.
const HEADER_BYTES: usize = 1024;

/// Takes the actions of one record (any record that is not a message).
pub(crate) fn scan(record: &Value, turn: &mut Turn) {
    let Some(payload) = record.get("payload") else {
        return;
    };
    let kind = payload.get("type").and_then(Value::as_str).unwrap_or("");
    match record.get("type").and_then(Value::as_str) {
        Some("response_item") => response_item(kind, payload, turn),
        Some("event_msg") => event(kind, payload, turn),
        _ => {}
    }
}

fn text<'a>(value: &'a Value, key: &str) -> Option<&'a str> {
    value.get(key).and_then(Value::as_str)
}

fn response_item(kind: &str, payload: &Value, turn: &mut Turn) {
    let call_id = text(payload, "call_id");
    match kind {
        "function_call" | "custom_tool_call" => {
            let name = text(payload, "name").unwrap_or("");
            if name == PATCH_TOOL {
                let patch = payload_input(payload);
                turn.actions.edit(call_id, name, &patch_paths(&patch), None);
            } else if SHELL_TOOLS.contains(&name) {
                let arguments = text(payload, "arguments")
                    .and_then(|a| serde_json::from_str::<Value>(a).ok())
                    .unwrap_or(Value::Null);
                if let Some(command) = command_line(&arguments) {
                    shell_call(call_id, name, &command, turn);
                }
            } else if name == PLAN_TOOL {
                let arguments =
                    text(payload, "arguments").and_then(|a| serde_json::from_str::<Value>(a).ok());
                let steps = arguments.as_ref().and_then(|a| a.get("plan"));
                if let Some(plan) = Plan::from_json(name, steps, "step") {
                    turn.actions.plan.list(plan);
                }
            } else {
                // Only an edit tool's arguments are needed (its file): the
                // JSON string of every other call is left unparsed.
                let name = qualified_name(payload, name);
                let arguments = (mcp::classify(&name) == Some(McpTool::Edits))
                    .then(|| text(payload, "arguments"))
                    .flatten()
                    .and_then(|a| serde_json::from_str::<Value>(a).ok());
                turn.actions
                    .mcp_call(call_id, &name, arguments.as_ref(), None);
            }
        }
        "local_shell_call" => {
            let action = payload.get("action").unwrap_or(&Value::Null);
            if let Some(command) = command_line(action) {
                shell_call(call_id, "local_shell", &command, turn);
            }
        }
        "function_call_output" | "custom_tool_call_output" => {
            if let Some(id) = call_id {
                let output = output_text(payload.get("output"));
                turn.actions
                    .result(id, result_from_output(output).with_output(output));
            }
        }
        _ => {}
    }
}

/// A tool's name with its `namespace` in front, when the call has one
/// (an MCP call: `mcp__gh` and `push_files` give `mcp__gh__push_files`);
/// the name alone otherwise.
fn qualified_name<'a>(payload: &Value, name: &'a str) -> Cow<'a, str> {
    match text(payload, "namespace") {
        Some(namespace) => format!("{}__{name}", namespace.trim_end_matches('_')).into(),
        None => name.into(),
    }
}

/// A shell call: a command, or an edit when it runs `apply_patch`.
fn shell_call(call_id: Option<&str>, tool: &str, command: &str, turn: &mut Turn) {
    let program = command.trim_start();
    if program.starts_with("apply_patch") || program.starts_with("applypatch") {
        turn.actions
            .edit(call_id, PATCH_TOOL, &patch_paths(command), None);
    } else {
        turn.actions.command(call_id, tool, command, None);
    }
}

/// The command line of the arguments of a shell call: `cmd` or `command`, a
/// string or an argv (`["bash", "-lc", "…"]` gives the script).
fn command_line(arguments: &Value) -> Option<String> {
    let command = arguments.get("cmd").or_else(|| arguments.get("command"))?;
    match command {
        Value::String(line) => Some(line.clone()),
        Value::Array(argv) => {
            let words: Vec<&str> = argv.iter().filter_map(Value::as_str).collect();
            match words.as_slice() {
                [shell, flag, script]
                    if is_shell(shell) && flag.starts_with('-') && flag.ends_with('c') =>
                {
                    Some((*script).to_owned())
                }
                _ => Some(words.join(" ")),
            }
        }
        _ => None,
    }
}

fn is_shell(word: &str) -> bool {
    matches!(
        word.rsplit('/').next().unwrap_or(word),
        "bash" | "sh" | "zsh" | "dash"
    )
}

fn payload_input(payload: &Value) -> String {
    if let Some(input) = text(payload, "input") {
        return input.to_owned();
    }
    // A function-call patch tool has its patch among its JSON arguments.
    text(payload, "arguments")
        .and_then(|a| serde_json::from_str::<Value>(a).ok())
        .and_then(|a| a.get("input").and_then(Value::as_str).map(str::to_owned))
        .unwrap_or_default()
}

/// The files a patch names (`*** Add File: x`, `*** Update File: x`,
/// `*** Delete File: x`, `*** Move to: x`).
fn patch_paths(patch: &str) -> Vec<String> {
    const HEADERS: &[&str] = &[
        "*** Add File:",
        "*** Update File:",
        "*** Delete File:",
        "*** Move to:",
    ];
    patch
        .lines()
        .filter_map(|line| {
            let line = line.trim_start();
            HEADERS
                .iter()
                .find_map(|header| line.strip_prefix(header))
                .map(|path| path.trim().to_owned())
        })
        .filter(|path| !path.is_empty())
        .collect()
}

/// The text of a call's output: a string, or content items with text.
fn output_text(output: Option<&Value>) -> &str {
    match output {
        Some(Value::String(text)) => text,
        Some(Value::Array(items)) => items
            .iter()
            .find_map(|item| text(item, "text"))
            .unwrap_or(""),
        Some(object @ Value::Object(_)) => text(object, "content").unwrap_or(""),
        _ => "",
    }
}

/// What the header of a result text says.
fn result_from_output(output: &str) -> ToolResult {
    let header = crate::actions::head(output, HEADER_BYTES);
    if header.trim_start().starts_with('{') {
        // Older versions: {"output": "…", "metadata": {"exit_code": N}}.
        let code = serde_json::from_str::<Value>(output)
            .ok()
            .and_then(|v| v.pointer("/metadata/exit_code").and_then(Value::as_i64));
        if let Some(code) = code {
            return ToolResult::exited(code as i32);
        }
    }
    if header.contains("blocked by PreToolUse hook")
        || header.contains("rejected by user")
        || header.starts_with("aborted")
    {
        return ToolResult::of(Outcome::NotRun);
    }
    if header.contains("Process running with session ID") {
        return ToolResult::of(Outcome::Unknown);
    }
    if header.contains("apply_patch verification failed") {
        return ToolResult::of(Outcome::Failed);
    }
    for marker in ["exited with code", "Exit code:"] {
        if let Some(code) = code_after(header, marker) {
            return ToolResult::exited(code);
        }
    }
    ToolResult::of(Outcome::Unknown)
}

fn event(kind: &str, payload: &Value, turn: &mut Turn) {
    match kind {
        "item_completed" => {
            let Some(item) = payload.get("item") else {
                return;
            };
            let Some(id) = text(item, "id") else {
                return;
            };
            match text(item, "type") {
                Some("CommandExecution") => {
                    let result = match item.get("exit_code").and_then(Value::as_i64) {
                        Some(code) => ToolResult::exited(code as i32),
                        None => status_result(text(item, "status")),
                    };
                    let output = text(item, "aggregated_output").unwrap_or("");
                    turn.actions.result(id, result.with_output(output));
                }
                Some("McpToolCall") => turn.actions.result(id, status_result(text(item, "status"))),
                // A sub-agent seen to finish (`multi_agent` v1: a wait's
                // `agents_states`; v2: `SubAgentActivity` `completed`): its
                // actions, in its own rollout, came before this point.
                Some("CollabAgentToolCall") => {
                    let states = item.get("agents_states").and_then(Value::as_object);
                    for (agent, state) in states.into_iter().flatten() {
                        if state.get("completed").is_some() {
                            turn.actions.subagent(agent);
                        }
                    }
                }
                Some("SubAgentActivity") if text(item, "kind") == Some("completed") => {
                    if let Some(agent) = text(item, "agent_thread_id") {
                        turn.actions.subagent(agent);
                    }
                }
                Some("FileChange") => {
                    let mut result = status_result(text(item, "status"));
                    if let Some(changes) = item.get("changes").and_then(Value::as_object) {
                        result.paths = changes.keys().cloned().collect();
                    }
                    turn.actions.result(id, result);
                }
                _ => {}
            }
        }
        "exec_command_end" => {
            if let (Some(id), Some(code)) = (
                text(payload, "call_id"),
                payload.get("exit_code").and_then(Value::as_i64),
            ) {
                let output = text(payload, "aggregated_output").unwrap_or("");
                let result = ToolResult::exited(code as i32).with_output(output);
                turn.actions.result(id, result);
            }
        }
        "patch_apply_end" => {
            if let Some(id) = text(payload, "call_id") {
                let outcome = match payload.get("success").and_then(Value::as_bool) {
                    Some(true) => Outcome::Succeeded,
                    Some(false) => Outcome::Failed,
                    None => Outcome::Unknown,
                };
                turn.actions.result(id, ToolResult::of(outcome));
            }
        }
        _ => {}
    }
}

fn status_result(status: Option<&str>) -> ToolResult {
    ToolResult::of(match status {
        Some("completed") => Outcome::Succeeded,
        Some("failed") => Outcome::Failed,
        Some("declined") => Outcome::NotRun,
        _ => Outcome::Unknown,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn output_headers_give_the_status() {
        let exited = |text: &str| result_from_output(text);
        assert_eq!(
            exited(
                "Chunk ID: 1\nWall time: 0.1 seconds\nProcess exited with code 3\nOutput:\nboom"
            ),
            ToolResult::exited(3)
        );
        assert_eq!(
            exited("Wall time: 0.0000 seconds\nOutput:\nExit code: 0\nSuccess."),
            ToolResult::exited(0)
        );
        assert_eq!(
            exited("Command blocked by PreToolUse hook: no. Command: git push").outcome,
            Outcome::NotRun
        );
        assert_eq!(
            exited("Chunk ID: 2\nProcess running with session ID 7\nOutput:\n").outcome,
            Outcome::Unknown
        );
        assert_eq!(
            exited(r#"{"output":"x","metadata":{"exit_code":1,"duration_seconds":0.1}}"#),
            ToolResult::exited(1)
        );
        let late = format!("{}\nProcess exited with code 1", "x".repeat(2000));
        assert_eq!(exited(&late).outcome, Outcome::Unknown);
    }

    #[test]
    fn command_lines_come_from_strings_and_argvs() {
        assert_eq!(
            command_line(&json!({"cmd": "cargo test"})).as_deref(),
            Some("cargo test")
        );
        assert_eq!(
            command_line(&json!({"command": ["bash", "-lc", "git push"]})).as_deref(),
            Some("git push")
        );
        assert_eq!(
            command_line(&json!({"command": ["git", "status"]})).as_deref(),
            Some("git status")
        );
        assert_eq!(command_line(&json!({"other": 1})), None);
    }

    #[test]
    fn patches_name_their_files() {
        let patch = "apply_patch <<'EOF'\n*** Begin Patch\n*** Update File: src/a.rs\n@@\n-a\n+b\n*** Add File: b.txt\n+x\n*** End Patch\nEOF";
        assert_eq!(patch_paths(patch), vec!["src/a.rs", "b.txt"]);
    }
}
