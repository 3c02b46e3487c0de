//! Gemini CLI chat recordings (`~/.gemini/tmp/<project>/chats/session-*.jsonl`).
//!
//! Gemini CLI 0.61 appends one JSON record per line:
//! - a metadata record (`sessionId`, `projectHash`, …) at the top;
//! - message records `{id, timestamp, type, content, …}` with `type` one of
//!   `user`, `gemini`, `info`, `error`, `warning`; `content` is a string or a
//!   list of parts (`{text}`, `{functionCall}`, `{functionResponse}`, thought
//!   parts with `thought: true`). A message is rewritten whole, under the same
//!   `id`, when tokens or tool calls are added: the newest record of an id wins;
//! - `{"$rewindTo": id}`: the messages from `id` on were removed;
//! - `{"$set": {…}}`: metadata updates; one holding `messages` replaces the
//!   whole history recorded so far.
//!
//! Tool results are recorded as `user` messages holding only
//! `functionResponse` parts, and the history starts with an injected
//! `<session_context>` user message: neither starts a turn. Known limit: the
//! feedback of a blocking AfterAgent hook is recorded as a plain `user`
//! message with no marker, so it cannot be told from a typed prompt and counts
//! as the turn's start. Older versions wrote one pretty-printed JSON object
//! (`session-*.json`, `{…, "messages": […]}`); its messages are fed to the same
//! scanner by the driver. (Layout checked against a recording made by the
//! real Gemini CLI 0.61.0: tests/fixtures/transcripts/gemini-0.61-real-*.)
//! Commands and edits: see `gemini_actions`.

use super::gemini_actions;
use super::turn::{Flow, Turn};
use super::RecordScanner;
use serde_json::Value;
use std::collections::HashSet;

/// Reads Gemini chat records, newest first.
#[derive(Debug, Default)]
pub(crate) struct GeminiScanner {
    /// Message ids already seen (a newer record of the same id won).
    seen_ids: HashSet<String>,
    /// A `$rewindTo` seen: records are dropped up to this message id.
    rewinding_to: Option<String>,
}

impl RecordScanner for GeminiScanner {
    fn scan(&mut self, record: &Value, turn: &mut Turn) -> Flow {
        if let Some(target) = record.get("$rewindTo").and_then(Value::as_str) {
            if self.rewinding_to.is_none() {
                self.rewinding_to = Some(target.to_owned());
            }
            return Flow::Continue;
        }
        if let Some(history) = record
            .get("$set")
            .and_then(|update| update.get("messages"))
            .and_then(Value::as_array)
        {
            // A full history snapshot: older records are superseded by it.
            for message in history.iter().rev() {
                if self.scan_message(message, turn) == Flow::Stop {
                    break;
                }
            }
            return Flow::Stop;
        }
        self.scan_message(record, turn)
    }
}

impl GeminiScanner {
    fn scan_message(&mut self, record: &Value, turn: &mut Turn) -> Flow {
        let Some(id) = record.get("id").and_then(Value::as_str) else {
            return Flow::Continue;
        };
        if let Some(target) = &self.rewinding_to {
            if target == id {
                self.rewinding_to = None;
            }
            self.seen_ids.insert(id.to_owned());
            return Flow::Continue;
        }
        if !self.seen_ids.insert(id.to_owned()) {
            return Flow::Continue;
        }
        let content = record.get("content");
        match record.get("type").and_then(Value::as_str) {
            Some("gemini") => {
                turn.add_text(Some(id), reply_texts(content).into_iter());
                gemini_actions::take_calls(record, turn);
                Flow::Continue
            }
            Some("user") if is_typed_prompt(content) => Flow::Stop,
            Some("user") => {
                gemini_actions::take_responses(content, turn);
                Flow::Continue
            }
            _ => Flow::Continue,
        }
    }
}

/// The visible (non-thought) texts of a content value.
fn reply_texts(content: Option<&Value>) -> Vec<&str> {
    match content {
        Some(Value::String(text)) => vec![text.as_str()],
        Some(Value::Array(parts)) => parts
            .iter()
            .filter(|part| {
                !part
                    .get("thought")
                    .and_then(Value::as_bool)
                    .unwrap_or(false)
            })
            .filter_map(|part| match part {
                Value::String(text) => Some(text.as_str()),
                _ => part.get("text").and_then(Value::as_str),
            })
            .collect(),
        Some(part @ Value::Object(_)) => part
            .get("text")
            .and_then(Value::as_str)
            .into_iter()
            .collect(),
        _ => Vec::new(),
    }
}

/// Text prefixes of user records that the CLI injected (the session context
/// it puts first in every history).
const INJECTED_USER_PREFIXES: &[&str] = &["<session_context>"];

/// Whether a user record holds text a person typed (not only tool results or
/// injected context).
fn is_typed_prompt(content: Option<&Value>) -> bool {
    let is_tool_result = |part: &Value| part.get("functionResponse").is_some();
    let is_typed_text = |text: &&str| {
        let text = text.trim_start();
        !text.is_empty()
            && !INJECTED_USER_PREFIXES
                .iter()
                .any(|prefix| text.starts_with(prefix))
    };
    match content {
        Some(Value::Array(parts)) if parts.iter().any(is_tool_result) => false,
        Some(part @ Value::Object(_)) if is_tool_result(part) => false,
        other => reply_texts(other).iter().any(is_typed_text),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// Feeds records given oldest first, newest first to the scanner.
    fn scan_all(records: &[Value]) -> (Flow, Option<String>) {
        let (flow, turn) = super::super::scan_newest_first(&mut GeminiScanner::default(), records);
        (flow, turn.text.into_text(10_000))
    }

    #[test]
    fn reply_after_last_prompt_is_taken_and_rewrites_not_repeated() {
        let records = [
            json!({"id": "u1", "type": "user", "content": [{"text": "old prompt"}]}),
            json!({"id": "g1", "type": "gemini", "content": "old reply"}),
            json!({"id": "u2", "type": "user", "content": [{"text": "new prompt"}]}),
            json!({"id": "g2", "type": "gemini", "content": "Running tests.", "toolCalls": []}),
            json!({"id": "t1", "type": "user", "content": [{"functionResponse": {"id": "c", "name": "run_shell_command", "response": {}}}]}),
            json!({"$set": {"lastUpdated": "2026-12-02T09:05:34.977Z"}}),
            json!({"id": "g3", "type": "gemini", "content": "All green."}),
            json!({"id": "g3", "type": "gemini", "content": "All green.", "tokens": {"total": 5}}),
        ];
        assert_eq!(
            scan_all(&records),
            (Flow::Stop, Some("Running tests.\n\nAll green.".into()))
        );
    }

    #[test]
    fn thought_parts_and_info_records_are_skipped() {
        let records = [
            json!({"id": "u", "type": "user", "content": "go"}),
            json!({"id": "i", "type": "info", "content": "model switched"}),
            json!({"id": "g", "type": "gemini", "content": [{"text": "hmm", "thought": true}, {"text": "Done."}]}),
        ];
        assert_eq!(scan_all(&records).1.as_deref(), Some("Done."));
    }

    #[test]
    fn session_context_is_not_a_prompt() {
        let records = [
            json!({"$set": {"messages": [
                {"id": "c", "type": "user", "content": [{"text": "<session_context>\nThis is the Gemini CLI."}]}
            ]}}),
            json!({"id": "g", "type": "gemini", "content": "Hello."}),
        ];
        assert_eq!(scan_all(&records), (Flow::Stop, Some("Hello.".into())));
        let mut scanner = GeminiScanner::default();
        let context = json!({"id": "c", "type": "user", "content": "<session_context>x"});
        assert_eq!(scanner.scan(&context, &mut Turn::default()), Flow::Continue);
    }

    #[test]
    fn rewound_messages_are_dropped() {
        let records = [
            json!({"id": "u1", "type": "user", "content": "first"}),
            json!({"id": "g1", "type": "gemini", "content": "kept reply"}),
            json!({"id": "u2", "type": "user", "content": "rewound prompt"}),
            json!({"id": "g2", "type": "gemini", "content": "rewound reply"}),
            json!({"$rewindTo": "u2"}),
            json!({"id": "g9", "type": "gemini", "content": "after rewind"}),
        ];
        assert_eq!(
            scan_all(&records),
            (Flow::Stop, Some("kept reply\n\nafter rewind".into()))
        );
    }

    #[test]
    fn history_snapshot_replaces_older_records() {
        let records = [
            json!({"id": "u0", "type": "user", "content": "stale"}),
            json!({"id": "g0", "type": "gemini", "content": "stale reply"}),
            json!({"$set": {"messages": [
                {"id": "u1", "type": "user", "content": [{"text": "prompt"}]},
                {"id": "g1", "type": "gemini", "content": [{"text": "from snapshot"}]}
            ]}}),
            json!({"id": "g2", "type": "gemini", "content": "appended"}),
        ];
        assert_eq!(
            scan_all(&records),
            (Flow::Stop, Some("from snapshot\n\nappended".into()))
        );
    }
}
