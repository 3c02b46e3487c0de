//! The commands and edits in a Gemini CLI chat recording.
//!
//! A `gemini` message holds its calls in `toolCalls`: `{id, name, args,
//! result, status}`, rewritten whole under the message id as the calls run,
//! so the newest record of the message has each call with its result. The
//! shell tool is `run_shell_command` (`args.command`); its result text
//! carries `Exit Code: N` only when the status was not 0 (and `Signal: N`
//! when it was killed). Edit tools (`write_file`, `replace`, `edit`) name
//! their file in `args.file_path`; MCP tools (`mcp_<server>_<tool>`) that
//! ship or edit are kept too ([`crate::actions::mcp`]). A call `status` of `error` with the
//! result `Tool execution blocked: …` was refused by a hook; `cancelled` was
//! refused by the user. The next `user` record repeats each result as a
//! `functionResponse` part: it is kept too, for when the `gemini` record was
//! too long to be kept whole (a shell command with megabytes of output).
//!
//! The todo tool, `write_todos`, gives the turn's plan
//! ([`crate::actions::plan`]).
//!
//! A sub-agent's run is one `invoke_agent` call; its own calls are in its
//! own file, whose actions take the call's place ([`super::subagent`]).
//!
//! (Layout checked on Gemini CLI 0.61.0:
//! tests/fixtures/transcripts/gemini-0.61-real-actions.jsonl,
//! gemini-0.61-real-subagent*.)

use super::collect::{code_after, ToolResult};
use super::turn::Turn;
use crate::actions::plan::Plan;
use crate::actions::Outcome;
use serde_json::Value;

/// The shell tool.
const SHELL_TOOLS: &[&str] = &["run_shell_command"];
/// Edit tools and the argument that names their file.
const EDIT_TOOLS: &[(&str, &str)] = &[
    ("write_file", "file_path"),
    ("replace", "file_path"),
    ("edit", "file_path"),
];

/// The todo-list tool: `args.todos`, each `{description, status}`, the
/// whole list each time ([`crate::actions::plan`]).
const PLAN_TOOL: &str = "write_todos";

/// The sub-agent tool: the sub-agent's own calls are in its own file
/// ([`super::subagent`]).
const SUBAGENT_TOOL: &str = "invoke_agent";

/// The id of the sub-agent an `invoke_agent` call ran: its `agentId`, or
/// (when the call has none: `experimental.adk.agentSessionSubagentEnabled`)
/// the prefix of its activity ids (`<agentId>#<turn>-<call>`).
fn subagent_id(call: &Value) -> Option<&str> {
    call.get("agentId").and_then(Value::as_str).or_else(|| {
        let activity = call.pointer("/resultDisplay/recentActivity/0/id")?;
        activity.as_str()?.split_once('#').map(|(agent, _)| agent)
    })
}

/// The calls of a `gemini` message, newest first.
pub(crate) fn take_calls(record: &Value, turn: &mut Turn) {
    let calls = record.get("toolCalls").and_then(Value::as_array);
    for call in calls.into_iter().flatten().rev() {
        let id = call.get("id").and_then(Value::as_str);
        let name = call.get("name").and_then(Value::as_str).unwrap_or("");
        let args = call.get("args");
        let arg = |key: &str| args.and_then(|a| a.get(key)).and_then(Value::as_str);
        let inline = call_result(call, turn.is_partial());
        if name == SUBAGENT_TOOL {
            if call.get("status").and_then(Value::as_str) == Some("success") {
                if let Some(agent) = subagent_id(call) {
                    turn.actions.subagent(agent);
                }
            }
        } else if SHELL_TOOLS.contains(&name) {
            if let Some(command) = arg("command") {
                turn.actions.command(id, name, command, inline);
            }
        } else if let Some((_, key)) = EDIT_TOOLS.iter().find(|(tool, _)| *tool == name) {
            if let Some(path) = arg(key) {
                turn.actions.edit(id, name, &[path.to_owned()], inline);
            }
        } else if name == PLAN_TOOL {
            let todos = args.and_then(|a| a.get("todos"));
            if let Some(plan) = Plan::from_json(name, todos, "description") {
                turn.actions.plan.list(plan);
            }
        } else {
            turn.actions.mcp_call(id, name, args, inline);
        }
    }
}

/// The `functionResponse` parts of a `user` record (the calls' results).
pub(crate) fn take_responses(content: Option<&Value>, turn: &mut Turn) {
    let parts = match content {
        Some(Value::Array(parts)) => parts.as_slice(),
        Some(part @ Value::Object(_)) => std::slice::from_ref(part),
        _ => &[],
    };
    for part in parts {
        let Some(response) = part.get("functionResponse") else {
            continue;
        };
        if let Some(id) = response.get("id").and_then(Value::as_str) {
            let result = response_result(response.get("response"), None, turn.is_partial());
            turn.actions.result(id, result);
        }
    }
}

/// The result a call's record holds, when it has one.
fn call_result(call: &Value, partial: bool) -> Option<ToolResult> {
    let status = call.get("status").and_then(Value::as_str);
    let response = call
        .get("result")
        .and_then(Value::as_array)
        .and_then(|parts| parts.iter().find_map(|p| p.get("functionResponse")))
        .and_then(|f| f.get("response"));
    if status.is_none() && response.is_none() {
        return None;
    }
    Some(response_result(response, status, partial))
}

/// What a result says: its `error`, or the status line of its `output`; the
/// end of the output kept.
fn response_result(response: Option<&Value>, status: Option<&str>, partial: bool) -> ToolResult {
    let output = response
        .and_then(|r| r.get("output"))
        .and_then(Value::as_str);
    response_status(response, status, partial).with_output(output.unwrap_or(""))
}

/// How a result ended, by its `error` or the status lines of its `output`.
fn response_status(response: Option<&Value>, status: Option<&str>, partial: bool) -> ToolResult {
    let field = |key: &str| response.and_then(|r| r.get(key)).and_then(Value::as_str);
    if let Some(error) = field("error") {
        let refused = error.starts_with("Tool execution blocked") || status == Some("cancelled");
        return ToolResult::of(if refused {
            Outcome::NotRun
        } else {
            Outcome::Failed
        });
    }
    match status {
        Some("cancelled") => return ToolResult::of(Outcome::NotRun),
        Some("error") => return ToolResult::of(Outcome::Failed),
        Some("success") | None => {}
        Some(_) => return ToolResult::of(Outcome::Unknown),
    }
    let output = field("output").unwrap_or("");
    // The status lines follow the command's own output: the last ones count,
    // and a cut output does not have them.
    if let Some(at) = output.rfind("\nExit Code:") {
        if let Some(code) = code_after(&output[at..], "Exit Code:") {
            return ToolResult::exited(code);
        }
    }
    if output.rfind("\nSignal:").is_some() {
        return ToolResult::of(Outcome::Failed);
    }
    let ran = status == Some("success") || (!partial && output.contains("Process Group PGID"));
    ToolResult::of(if ran {
        Outcome::Succeeded
    } else {
        Outcome::Unknown
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn result(response: Value, status: Option<&str>) -> ToolResult {
        response_result(Some(&response), status, false)
    }

    #[test]
    fn results_say_how_the_command_ended() {
        let ok = json!({"output": "<untrusted_context>\nOutput: hi\nProcess Group PGID: 1\n</untrusted_context>"});
        assert_eq!(
            result(ok.clone(), Some("success")).outcome,
            Outcome::Succeeded
        );
        assert_eq!(result(ok, None).outcome, Outcome::Succeeded);
        let failed = json!({"output": "<untrusted_context>\nOutput: boom\nExit Code: 3\nProcess Group PGID: 2\n</untrusted_context>"});
        assert_eq!(result(failed, Some("success")).exit_code, Some(3));
        let killed = json!({"output": "Output: x\nSignal: 9\nProcess Group PGID: 3"});
        assert_eq!(result(killed, Some("success")).outcome, Outcome::Failed);
        let blocked = json!({"error": "Tool execution blocked: no pushes"});
        assert_eq!(result(blocked, Some("error")).outcome, Outcome::NotRun);
        let no_match = json!({"error": "Could not find an exact match for 'old_string'"});
        assert_eq!(result(no_match, Some("error")).outcome, Outcome::Failed);
        assert_eq!(
            result(json!({}), Some("executing")).outcome,
            Outcome::Unknown
        );
        assert_eq!(
            response_result(Some(&json!({"output": "Output: lots"})), None, true).outcome,
            Outcome::Unknown
        );
    }
}
