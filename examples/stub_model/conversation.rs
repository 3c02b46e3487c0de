//! Turns each wire format's request body into one flat conversation, so the
//! script and the tests reason about "what the model was shown" the same way
//! for every agent.
//!
//! Entries: `user` (a real user or hook-feedback turn), `assistant` (model
//! text), `tool_call` (model asked for a tool), `tool_result` (what came back,
//! including a hook's deny reason). System and developer prompts are left out;
//! Claude Code's `<system-reminder>` text blocks are left out too, because they
//! are not turns and would otherwise look like a new user message, except
//! those that relay a hook's feedback (`Stop hook feedback:`): since 2.1.3xx
//! Claude Code sends a blocking Stop hook's reason in one.

use serde::Serialize;
use serde_json::Value;

/// Which wire protocol a request used.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Api {
    /// Anthropic Messages (`/v1/messages`).
    Anthropic,
    /// OpenAI Responses (`/v1/responses`).
    Responses,
    /// OpenAI Chat Completions (`/v1/chat/completions`).
    Chat,
    /// Gemini (`:generateContent`, `:streamGenerateContent`).
    Gemini,
}

impl Api {
    /// The snake_case name used in scripts and logs.
    pub fn as_str(self) -> &'static str {
        match self {
            Api::Anthropic => "anthropic",
            Api::Responses => "responses",
            Api::Chat => "chat",
            Api::Gemini => "gemini",
        }
    }
}

/// Who produced one conversation entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Role {
    /// A user message, or feedback that an agent injects as one.
    User,
    /// Text the model wrote.
    Assistant,
    /// A tool call the model made (text = name and arguments).
    ToolCall,
    /// A tool's result as returned to the model.
    ToolResult,
}

/// One entry of the flattened conversation.
#[derive(Debug, Clone, Serialize)]
pub struct Entry {
    /// Who produced it.
    pub role: Role,
    /// Its text (arguments and results rendered as text).
    pub text: String,
}

fn entry(role: Role, text: impl Into<String>) -> Entry {
    Entry {
        role,
        text: text.into(),
    }
}

/// Flattens `body` as sent with `api`.
pub fn flatten(api: Api, body: &Value) -> Vec<Entry> {
    match api {
        Api::Anthropic => anthropic(body),
        Api::Responses => responses(body),
        Api::Chat => chat(body),
        Api::Gemini => gemini(body),
    }
}

/// Text of a string, or of the text parts of an array of content blocks.
fn text_of(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        Value::Array(items) => items
            .iter()
            .filter_map(|item| match item {
                Value::String(s) => Some(s.clone()),
                other => other
                    .get("text")
                    .and_then(Value::as_str)
                    .map(str::to_string),
            })
            .collect::<Vec<_>>()
            .join("\n"),
        Value::Null => String::new(),
        other => other.to_string(),
    }
}

/// A `<system-reminder>` block that is context, not a hook's feedback.
fn is_reminder(text: &str) -> bool {
    text.trim_start().starts_with("<system-reminder>") && !text.contains("hook feedback:")
}

fn anthropic(body: &Value) -> Vec<Entry> {
    let mut out = Vec::new();
    for message in body["messages"].as_array().into_iter().flatten() {
        let role = message["role"].as_str().unwrap_or("");
        let blocks: Vec<Value> = match &message["content"] {
            Value::String(s) => vec![serde_json::json!({"type": "text", "text": s})],
            Value::Array(items) => items.clone(),
            _ => Vec::new(),
        };
        let has_result = blocks.iter().any(|b| b["type"] == "tool_result");
        let mut texts = Vec::new();
        for block in &blocks {
            match block["type"].as_str().unwrap_or("") {
                "text" => {
                    let text = block["text"].as_str().unwrap_or("");
                    if !is_reminder(text) {
                        texts.push(text.to_string());
                    }
                }
                "tool_use" => out.push(entry(
                    Role::ToolCall,
                    format!(
                        "{} {}",
                        block["name"].as_str().unwrap_or(""),
                        block["input"]
                    ),
                )),
                "tool_result" => out.push(entry(Role::ToolResult, text_of(&block["content"]))),
                _ => {}
            }
        }
        let joined = texts.join("\n");
        match role {
            "user" if !has_result && !joined.is_empty() => out.push(entry(Role::User, joined)),
            "assistant" if !joined.is_empty() => out.push(entry(Role::Assistant, joined)),
            _ => {}
        }
    }
    out
}

fn responses(body: &Value) -> Vec<Entry> {
    let items = match &body["input"] {
        Value::String(s) => return vec![entry(Role::User, s.clone())],
        Value::Array(items) => items,
        _ => return Vec::new(),
    };
    let mut out = Vec::new();
    for item in items {
        let kind = item["type"].as_str().unwrap_or("message");
        match kind {
            "message" => {
                let text = text_of(&item["content"]);
                match item["role"].as_str().unwrap_or("") {
                    "user" => out.push(entry(Role::User, text)),
                    "assistant" => out.push(entry(Role::Assistant, text)),
                    _ => {}
                }
            }
            "function_call" | "custom_tool_call" | "local_shell_call" => {
                let args = item
                    .get("arguments")
                    .or_else(|| item.get("input"))
                    .or_else(|| item.get("action"));
                let args = args.map(|a| {
                    a.as_str()
                        .map(str::to_string)
                        .unwrap_or_else(|| a.to_string())
                });
                out.push(entry(
                    Role::ToolCall,
                    format!(
                        "{} {}",
                        item["name"].as_str().unwrap_or(kind),
                        args.unwrap_or_default()
                    ),
                ));
            }
            k if k.ends_with("_output") => {
                out.push(entry(Role::ToolResult, text_of(&item["output"])))
            }
            _ => {}
        }
    }
    out
}

fn chat(body: &Value) -> Vec<Entry> {
    let mut out = Vec::new();
    for message in body["messages"].as_array().into_iter().flatten() {
        let text = text_of(&message["content"]);
        match message["role"].as_str().unwrap_or("") {
            "user" => out.push(entry(Role::User, text)),
            "assistant" => {
                if !text.is_empty() {
                    out.push(entry(Role::Assistant, text));
                }
                for call in message["tool_calls"].as_array().into_iter().flatten() {
                    let function = &call["function"];
                    out.push(entry(
                        Role::ToolCall,
                        format!(
                            "{} {}",
                            function["name"].as_str().unwrap_or(""),
                            text_of(&function["arguments"])
                        ),
                    ));
                }
            }
            "tool" => out.push(entry(Role::ToolResult, text)),
            _ => {}
        }
    }
    out
}

fn gemini(body: &Value) -> Vec<Entry> {
    let mut out = Vec::new();
    for content in body["contents"].as_array().into_iter().flatten() {
        let role = content["role"].as_str().unwrap_or("user");
        let mut texts = Vec::new();
        let mut saw_result = false;
        for part in content["parts"].as_array().into_iter().flatten() {
            if let Some(text) = part["text"].as_str() {
                if part["thought"] != Value::Bool(true) {
                    texts.push(text.to_string());
                }
            } else if let Some(call) = part.get("functionCall") {
                out.push(entry(
                    Role::ToolCall,
                    format!("{} {}", call["name"].as_str().unwrap_or(""), call["args"]),
                ));
            } else if let Some(response) = part.get("functionResponse") {
                saw_result = true;
                out.push(entry(
                    Role::ToolResult,
                    gemini_response_text(&response["response"]),
                ));
            }
        }
        let joined = texts.join("\n");
        if joined.is_empty() || (saw_result && role == "user") {
            continue;
        }
        out.push(entry(
            if role == "model" {
                Role::Assistant
            } else {
                Role::User
            },
            joined,
        ));
    }
    out
}

/// A Gemini `functionResponse.response` as text: its string fields (usually
/// `output` or `error`), else the JSON.
fn gemini_response_text(response: &Value) -> String {
    let strings: Vec<&str> = response
        .as_object()
        .into_iter()
        .flatten()
        .filter_map(|(_, v)| v.as_str())
        .collect();
    if strings.is_empty() {
        response.to_string()
    } else {
        strings.join("\n")
    }
}

/// The text of the last `user` entry, or "" when there is none.
pub fn last_user_text(conversation: &[Entry]) -> &str {
    conversation
        .iter()
        .rev()
        .find(|e| e.role == Role::User)
        .map(|e| e.text.as_str())
        .unwrap_or("")
}

/// How many tool results arrived after the last `user` entry: the number of
/// tool calls of the current turn that have already been answered.
pub fn answered_calls_this_turn(conversation: &[Entry]) -> usize {
    conversation
        .iter()
        .rev()
        .take_while(|e| e.role != Role::User)
        .filter(|e| e.role == Role::ToolResult)
        .count()
}
