//! The test side of `examples/stub_model`: building the script it plays and
//! reading back, from its JSONL log, what each model request carried.

use serde::Deserialize;
use serde_json::{json, Value};
use std::path::Path;

/// One scripted model turn (see `examples/stub_model/script.rs` for the rules:
/// the first turn whose conditions match is played; tool calls first, one per
/// request, then the text).
#[derive(Debug, Clone, Default)]
pub struct Turn(serde_json::Map<String, Value>);

impl Turn {
    /// A turn that answers `text`.
    pub fn text(text: &str) -> Turn {
        let mut turn = Turn::default();
        turn.0.insert("text".into(), json!(text));
        turn
    }

    /// A turn that first runs shell `command`, then answers `text`.
    pub fn shell_then(command: &str, text: &str) -> Turn {
        Turn::text(text).set("tool", json!(command))
    }

    /// A turn that makes `calls` in order, one per model request, then answers
    /// `text`. A call is a shell command (a JSON string) or a named tool call
    /// (see [`named_call`]).
    pub fn calls_then(calls: &[Value], text: &str) -> Turn {
        Turn::text(text).set("tools", Value::Array(calls.to_vec()))
    }

    /// Only when the last user message (prompt or injected feedback) contains `needle`.
    pub fn when_last_user_contains(self, needle: &str) -> Turn {
        self.condition("last_user_contains", json!(needle))
    }

    /// Only when the last user message does not contain `needle`.
    pub fn when_last_user_lacks(self, needle: &str) -> Turn {
        self.condition("last_user_lacks", json!(needle))
    }

    /// Only when some entry of the conversation contains `needle`.
    pub fn when_conversation_contains(self, needle: &str) -> Turn {
        self.condition("conversation_contains", json!(needle))
    }

    /// Only when the raw request body contains `needle` (system prompt included).
    pub fn when_request_contains(self, needle: &str) -> Turn {
        self.condition("request_contains", json!(needle))
    }

    /// Only for requests that offer tools (`true`) or offer none (`false`).
    pub fn when_offers_tools(self, offers: bool) -> Turn {
        self.condition("offers_tools", json!(offers))
    }

    /// Waits this long before replying (a slow or hanging model).
    pub fn delay_ms(self, ms: u64) -> Turn {
        self.set("delay_ms", json!(ms))
    }

    /// Only for requests in this wire protocol (`anthropic`, `responses`, `chat`, `gemini`).
    pub fn when_api(self, api: &str) -> Turn {
        self.condition("api", json!(api))
    }

    /// After its shell calls, the turn calls tool `name` (when offered) with its
    /// text, parsed as JSON, as arguments; the text follows the tool's result.
    pub fn call_tool(self, name: &str) -> Turn {
        self.set("call_tool", json!(name))
    }

    /// Fills `$1`, `$2`, ... in the text with this regex's groups, matched on
    /// the raw request body (e.g. to echo a judge prompt's nonce).
    pub fn capture(self, regex: &str) -> Turn {
        self.set("capture", json!(regex))
    }

    /// Replies with this HTTP error status instead.
    pub fn http_status(self, status: u16) -> Turn {
        self.set("http_status", json!(status))
    }

    fn set(mut self, key: &str, value: Value) -> Turn {
        self.0.insert(key.into(), value);
        self
    }

    fn condition(mut self, key: &str, value: Value) -> Turn {
        let when = self.0.entry("when").or_insert_with(|| json!({}));
        when[key] = value;
        self
    }
}

/// A scripted call of the tool `name` (as the CLI offers it) with `input`.
pub fn named_call(name: &str, input: Value) -> Value {
    json!({"name": name, "input": input})
}

/// Writes the script made of `turns` (in priority order) to `path`.
pub fn write_script(path: &Path, turns: &[Turn]) {
    let turns: Vec<Value> = turns.iter().map(|t| Value::Object(t.0.clone())).collect();
    super::agent::write_json(path, &json!({ "turns": turns }));
}

/// Who produced one entry of a request's flattened conversation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Role {
    /// A user message, or feedback the agent injected as one.
    User,
    /// Model text.
    Assistant,
    /// A tool call by the model.
    ToolCall,
    /// A tool result sent back to the model (a hook's deny reason lands here).
    ToolResult,
}

/// One entry of a request's flattened conversation.
#[derive(Debug, Clone, Deserialize)]
pub struct Entry {
    /// Who produced it.
    pub role: Role,
    /// Its text.
    pub text: String,
}

/// One model request as the stub logged it.
#[derive(Debug, Clone, Deserialize)]
pub struct ModelCall {
    /// Order of arrival among all requests.
    pub seq: u64,
    /// Request path with query.
    pub path: String,
    /// `anthropic`, `responses`, `chat` or `gemini`.
    pub api: String,
    /// What the model had been shown.
    pub conversation: Vec<Entry>,
    /// Which script turn answered (None: no turn matched).
    pub turn: Option<usize>,
    /// What the stub replied (`{"kind": "text"|"shell"|"error", ...}`).
    pub reply: Value,
    /// The raw request body.
    pub body: Value,
}

impl ModelCall {
    /// The last user entry's text ("" when none).
    pub fn last_user(&self) -> &str {
        self.conversation
            .iter()
            .rev()
            .find(|e| e.role == Role::User)
            .map(|e| e.text.as_str())
            .unwrap_or("")
    }

    /// The last entry of the conversation.
    pub fn last(&self) -> Option<&Entry> {
        self.conversation.last()
    }

    /// Texts of all entries with `role`.
    pub fn texts(&self, role: Role) -> Vec<&str> {
        self.conversation
            .iter()
            .filter(|e| e.role == role)
            .map(|e| e.text.as_str())
            .collect()
    }

    /// A one-line-per-entry summary, for assertion messages.
    pub fn summary(&self) -> String {
        self.conversation
            .iter()
            .map(|e| {
                format!(
                    "  {:?}: {}",
                    e.role,
                    e.text
                        .chars()
                        .take(200)
                        .collect::<String>()
                        .replace('\n', "⏎")
                )
            })
            .collect::<Vec<_>>()
            .join("\n")
    }
}

/// Everything the stub logged during one run.
#[derive(Debug, Clone, Default)]
pub struct StubLog {
    /// Every logged exchange, model calls and probes alike, in log order.
    pub records: Vec<Value>,
}

impl StubLog {
    /// Reads the log (empty when the file does not exist).
    pub fn read(path: &Path) -> StubLog {
        let text = std::fs::read_to_string(path).unwrap_or_default();
        let records = text
            .lines()
            .filter(|l| !l.trim().is_empty())
            .map(|l| {
                serde_json::from_str(l).unwrap_or_else(|e| panic!("bad stub log line {l}: {e}"))
            })
            .collect();
        StubLog { records }
    }

    /// The model calls, in arrival order.
    pub fn model_calls(&self) -> Vec<ModelCall> {
        let mut calls: Vec<ModelCall> = self
            .records
            .iter()
            .filter(|r| r["model_call"] == Value::Bool(true))
            .map(|r| serde_json::from_value(r.clone()).expect("model call record"))
            .collect();
        calls.sort_by_key(|c| c.seq);
        calls
    }

    /// A readable dump of every model call, for assertion messages.
    pub fn summary(&self) -> String {
        self.model_calls()
            .iter()
            .map(|c| {
                format!(
                    "#{} {} turn={:?} reply={}\n{}",
                    c.seq,
                    c.path,
                    c.turn,
                    c.reply,
                    c.summary()
                )
            })
            .collect::<Vec<_>>()
            .join("\n")
    }
}
