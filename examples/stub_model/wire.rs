//! Renders a chosen reply in each wire protocol, as one JSON body or as a
//! server-sent-events stream, with just the fields the real CLIs read.
//!
//! Shell tool calls use the CLI's own shell tool, the first of
//! [`SHELL_TOOLS`] that the request offers (`Bash` for Claude Code,
//! `exec_command` for Codex, `run_shell_command` for Gemini CLI and Qwen
//! Code, `bash` for Copilot CLI, `Execute` for Factory Droid, `run_commands`
//! for Cline), with the arguments that tool requires; other tool calls use
//! the name the script gives.

use crate::conversation::Api;
use crate::script::Reply;
use serde_json::{json, Value};
use std::sync::atomic::{AtomicU64, Ordering};

static NEXT_ID: AtomicU64 = AtomicU64::new(1);

fn fresh_id(prefix: &str) -> String {
    format!(
        "{prefix}_stub{:04}",
        NEXT_ID.fetch_add(1, Ordering::Relaxed)
    )
}

fn now_secs() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0)
}

/// A reply ready to be written.
pub enum Wire {
    /// One JSON body.
    Json(Value),
    /// SSE events: optional event name and JSON data (a JSON string is sent
    /// raw, for the chat stream's `[DONE]`).
    Sse(Vec<(Option<String>, Value)>),
}

/// The shell tools the stub knows, in the order it prefers them when a
/// request offers several.
pub const SHELL_TOOLS: [&str; 7] = [
    "Bash",
    "exec_command",
    "run_shell_command",
    "bash",
    "Execute",
    "run_commands",
    "shell",
];

/// The shell tool call for `command`: the first of [`SHELL_TOOLS`] that is
/// `offered`, else `default`, with the arguments that tool requires.
fn shell_call(command: &str, offered: &[String], default: &'static str) -> (&'static str, Value) {
    let name = SHELL_TOOLS
        .into_iter()
        .find(|tool| offered.iter().any(|o| o == tool))
        .unwrap_or(default);
    let arguments = match name {
        "exec_command" => json!({"cmd": command}),
        "shell" => json!({"command": command}),
        "run_commands" => json!({"commands": [command]}),
        // Droid requires a 3-8 word summary and a risk level.
        "Execute" => json!({"command": command, "summary": "Run the requested shell command",
            "riskLevel": "medium", "riskLevelReason": "It may write files in the project."}),
        _ => json!({"command": command, "description": "Run a shell command"}),
    };
    (name, arguments)
}

/// Renders `reply` for `api`; `model` echoes the requested model name and
/// `offered` names the tools the request offers.
pub fn render(api: Api, reply: &Reply, model: &str, stream: bool, offered: &[String]) -> Wire {
    let reply = match reply {
        Reply::Shell(command) => {
            let default = match api {
                Api::Anthropic => "Bash",
                Api::Responses => "exec_command",
                Api::Chat => "shell",
                Api::Gemini => "run_shell_command",
            };
            let (name, input) = shell_call(command, offered, default);
            Reply::Tool {
                name: name.to_string(),
                input,
            }
        }
        other => other.clone(),
    };
    match api {
        Api::Anthropic => anthropic(&reply, model, stream),
        Api::Responses => responses(&reply, model, stream),
        Api::Chat => chat(&reply, model, stream),
        Api::Gemini => gemini(&reply, stream),
    }
}

fn named(name: &str, data: Value) -> (Option<String>, Value) {
    (Some(name.to_string()), data)
}

fn anthropic(reply: &Reply, model: &str, stream: bool) -> Wire {
    let usage = json!({"input_tokens": 10, "output_tokens": 5,
                       "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0});
    let (block, stop) = match reply {
        Reply::Tool { name, input } => (
            json!({"type": "tool_use", "id": fresh_id("toolu"), "name": name, "input": input}),
            "tool_use",
        ),
        _ => (json!({"type": "text", "text": text_of(reply)}), "end_turn"),
    };
    let id = fresh_id("msg");
    if !stream {
        return Wire::Json(
            json!({"id": id, "type": "message", "role": "assistant", "model": model,
            "content": [block], "stop_reason": stop, "stop_sequence": null, "usage": usage}),
        );
    }
    let (start_block, delta) = if block["type"] == "tool_use" {
        let mut start = block.clone();
        start["input"] = json!({});
        (
            start,
            json!({"type": "input_json_delta", "partial_json": block["input"].to_string()}),
        )
    } else {
        (
            json!({"type": "text", "text": ""}),
            json!({"type": "text_delta", "text": block["text"]}),
        )
    };
    let mut first_usage = usage.clone();
    first_usage["output_tokens"] = json!(1);
    Wire::Sse(vec![
        named(
            "message_start",
            json!({"type": "message_start", "message": {"id": id, "type": "message",
            "role": "assistant", "model": model, "content": [], "stop_reason": null,
            "stop_sequence": null, "usage": first_usage}}),
        ),
        named(
            "content_block_start",
            json!({"type": "content_block_start", "index": 0, "content_block": start_block}),
        ),
        named("ping", json!({"type": "ping"})),
        named(
            "content_block_delta",
            json!({"type": "content_block_delta", "index": 0, "delta": delta}),
        ),
        named(
            "content_block_stop",
            json!({"type": "content_block_stop", "index": 0}),
        ),
        named(
            "message_delta",
            json!({"type": "message_delta",
            "delta": {"stop_reason": stop, "stop_sequence": null}, "usage": {"output_tokens": 5}}),
        ),
        named("message_stop", json!({"type": "message_stop"})),
    ])
}

fn text_of(reply: &Reply) -> String {
    match reply {
        Reply::Text(text) => text.clone(),
        Reply::Shell(command) => command.clone(),
        Reply::Tool { input, .. } => input.to_string(),
        Reply::Error(status) => format!("stub error {status}"),
    }
}

fn responses(reply: &Reply, model: &str, stream: bool) -> Wire {
    let item = match reply {
        Reply::Tool { name, input } => json!({"type": "function_call", "id": fresh_id("fc"),
            "call_id": fresh_id("call"), "name": name, "status": "completed", "arguments": input.to_string()}),
        _ => {
            json!({"type": "message", "id": fresh_id("msg"), "role": "assistant", "status": "completed",
            "content": [{"type": "output_text", "text": text_of(reply), "annotations": []}]})
        }
    };
    let usage = json!({"input_tokens": 10, "input_tokens_details": {"cached_tokens": 0},
        "output_tokens": 5, "output_tokens_details": {"reasoning_tokens": 0}, "total_tokens": 15});
    let done = json!({"id": fresh_id("resp"), "object": "response", "created_at": now_secs(),
        "status": "completed", "model": model, "output": [item], "usage": usage});
    if !stream {
        return Wire::Json(done);
    }
    let mut pending = done.clone();
    pending["status"] = json!("in_progress");
    pending["output"] = json!([]);
    pending["usage"] = Value::Null;
    let mut added = item.clone();
    added["status"] = json!("in_progress");
    let mut events = vec![
        named(
            "response.created",
            json!({"type": "response.created", "response": pending}),
        ),
        named(
            "response.in_progress",
            json!({"type": "response.in_progress", "response": pending}),
        ),
    ];
    let item_id = item["id"].clone();
    if item["type"] == "message" {
        added["content"] = json!([]);
        events.push(named(
            "response.output_item.added",
            json!({"type": "response.output_item.added", "output_index": 0, "item": added}),
        ));
        let text = item["content"][0]["text"].clone();
        let at = json!({"item_id": item_id, "output_index": 0, "content_index": 0});
        let with = |kind: &str, extra: Value| {
            let mut event = at.clone();
            event["type"] = json!(kind);
            for (k, v) in extra.as_object().into_iter().flatten() {
                event[k] = v.clone();
            }
            named(kind, event)
        };
        events.push(with(
            "response.content_part.added",
            json!({"part": {"type": "output_text", "text": "", "annotations": []}}),
        ));
        events.push(with("response.output_text.delta", json!({"delta": text})));
        events.push(with("response.output_text.done", json!({"text": text})));
        events.push(with(
            "response.content_part.done",
            json!({"part": item["content"][0]}),
        ));
    } else {
        events.push(named(
            "response.output_item.added",
            json!({"type": "response.output_item.added", "output_index": 0, "item": added}),
        ));
        events.push(named(
            "response.function_call_arguments.done",
            json!({"type": "response.function_call_arguments.done",
            "item_id": item_id, "output_index": 0, "arguments": item["arguments"]}),
        ));
    }
    events.push(named(
        "response.output_item.done",
        json!({"type": "response.output_item.done", "output_index": 0, "item": item}),
    ));
    events.push(named(
        "response.completed",
        json!({"type": "response.completed", "response": done}),
    ));
    for (number, (_, data)) in events.iter_mut().enumerate() {
        data["sequence_number"] = json!(number);
    }
    Wire::Sse(events)
}

fn chat(reply: &Reply, model: &str, stream: bool) -> Wire {
    let (message, finish) = match reply {
        Reply::Tool { name, input } => (
            json!({"role": "assistant", "content": null, "tool_calls": [{"index": 0, "id": fresh_id("call"),
                "type": "function", "function": {"name": name, "arguments": input.to_string()}}]}),
            "tool_calls",
        ),
        _ => (
            json!({"role": "assistant", "content": text_of(reply)}),
            "stop",
        ),
    };
    let usage = json!({"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15});
    let id = fresh_id("chatcmpl");
    if !stream {
        return Wire::Json(
            json!({"id": id, "object": "chat.completion", "created": now_secs(), "model": model,
            "usage": usage, "choices": [{"index": 0, "message": message, "finish_reason": finish}]}),
        );
    }
    let chunk = |choice: Value, usage: Value| {
        (
            None,
            json!({"id": id, "object": "chat.completion.chunk", "created": now_secs(), "model": model,
            "choices": [choice], "usage": usage}),
        )
    };
    Wire::Sse(vec![
        chunk(
            json!({"index": 0, "delta": message, "finish_reason": null}),
            Value::Null,
        ),
        chunk(
            json!({"index": 0, "delta": {}, "finish_reason": finish}),
            usage,
        ),
        (None, Value::String("[DONE]".to_string())),
    ])
}

fn gemini(reply: &Reply, stream: bool) -> Wire {
    let part = match reply {
        Reply::Tool { name, input } => json!({"functionCall": {"name": name, "args": input}}),
        _ => json!({"text": text_of(reply)}),
    };
    let body = json!({"candidates": [{"content": {"role": "model", "parts": [part]}, "finishReason": "STOP", "index": 0}],
        "usageMetadata": {"promptTokenCount": 10, "candidatesTokenCount": 5, "totalTokenCount": 15},
        "modelVersion": "stub-model", "responseId": fresh_id("gem")});
    if stream {
        Wire::Sse(vec![(None, body)])
    } else {
        Wire::Json(body)
    }
}
