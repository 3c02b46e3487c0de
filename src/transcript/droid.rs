//! Factory Droid sessions (`~/.factory/sessions/<project>/<session>.jsonl`,
//! the `transcript_path` of its hook payloads).
//!
//! One record per line. Messages are `{"type": "message", "id", "parentId",
//! "message": {"role", "content": [blocks]}}` with Claude-style blocks
//! (`text`, `tool_use`, `tool_result`); other types (`session_start`,
//! `agent_turn_outcome`, …) are ignored. Each hook run is recorded as a user
//! message with `visibility: "user_only"`, `hookEventName`, and for turn-end
//! hooks `hookParentId` (the assistant message it judged). Injected context
//! (`<system-reminder>`) comes as user text too. Droid's Stop payloads carry
//! no text, so this file is where guard reads the turn.
//!
//! A blocking Stop hook's reason is recorded as a plain user text message
//! whose `parentId` is the judged assistant message, right after the hook's
//! own record naming that message in `hookParentId` (only records of the
//! message's own UserPromptSubmit hooks may come between): such a message is
//! hook feedback, neither the turn's start nor text. Records are read newest
//! first, so a user text is only known to start the turn when the record
//! before it is read; its typed text is the turn's request (`Turn::prompt`)
//! until then. (Layout checked against the real droid 0.225:
//! tests/fixtures/transcripts/droid-0.225.1-real-*.)

use super::turn::{Flow, Turn};
use super::RecordScanner;
use serde_json::Value;

/// Reads Droid session records, newest first.
#[derive(Debug, Default)]
pub(crate) struct DroidScanner {
    /// A user text message was just read: its `parentId` (empty when it has
    /// none). The next record tells whether it was hook feedback.
    pending_user: Option<String>,
}

impl RecordScanner for DroidScanner {
    fn scan(&mut self, record: &Value, turn: &mut Turn) -> Flow {
        if let Some(parent) = self.pending_user.take() {
            if hook_event(record) == Some("UserPromptSubmit") {
                // The message's own prompt hook: look further back.
                self.pending_user = Some(parent);
                return Flow::Continue;
            }
            if !is_turn_end_hook_run(record, &parent) {
                return Flow::Stop;
            }
            // That message was a blocking hook's feedback, not the request.
            turn.prompt = None;
        }
        if record.get("type").and_then(Value::as_str) != Some("message") {
            return Flow::Continue;
        }
        let Some(message) = record.get("message") else {
            return Flow::Continue;
        };
        let blocks = message
            .get("content")
            .and_then(Value::as_array)
            .map(Vec::as_slice)
            .unwrap_or_default();
        let texts = || {
            blocks
                .iter()
                .filter(|b| b.get("type").and_then(Value::as_str) == Some("text"))
                .filter_map(|b| b.get("text").and_then(Value::as_str))
        };
        match message.get("role").and_then(Value::as_str) {
            Some("assistant") => {
                let key = record.get("id").and_then(Value::as_str);
                turn.add_text(key, texts().collect::<Vec<_>>().into_iter());
            }
            Some("user") if is_typed(message, blocks) => {
                let parent = record.get("parentId").and_then(Value::as_str);
                self.pending_user = Some(parent.unwrap_or_default().to_owned());
                let typed = |t: &&str| !t.trim_start().starts_with("<system-reminder>");
                turn.set_prompt(texts().filter(typed).collect::<Vec<_>>().into_iter());
            }
            _ => {}
        }
        Flow::Continue
    }
}

/// A user message with text that a person may have typed: not a hook run,
/// a tool result or injected context.
fn is_typed(message: &Value, blocks: &[Value]) -> bool {
    if message.get("visibility").is_some() || message.get("hookEventName").is_some() {
        return false;
    }
    let mut typed = false;
    for block in blocks {
        match block.get("type").and_then(Value::as_str) {
            Some("tool_result") => return false,
            Some("text") => {
                let text = block.get("text").and_then(Value::as_str).unwrap_or("");
                let text = text.trim_start();
                typed |= !text.is_empty() && !text.starts_with("<system-reminder>");
            }
            Some("image") => typed = true,
            _ => {}
        }
    }
    typed
}

/// The event of a hook run's record.
fn hook_event(record: &Value) -> Option<&str> {
    record
        .get("message")
        .and_then(|m| m.get("hookEventName"))
        .and_then(Value::as_str)
}

/// Whether `record` is a Stop or SubagentStop hook's run that judged the
/// assistant message with id `id` and blocked it (exit 2, or
/// `{"decision":"block"}` on stdout).
fn is_turn_end_hook_run(record: &Value, id: &str) -> bool {
    let message = record.get("message");
    let field = |key: &str| message.and_then(|m| m.get(key)).and_then(Value::as_str);
    let blocked = |result: &Value| {
        result.get("exitCode").and_then(Value::as_i64) == Some(2)
            || result
                .get("stdout")
                .and_then(Value::as_str)
                .and_then(|out| serde_json::from_str::<Value>(out.trim()).ok())
                .is_some_and(|answer| {
                    answer.get("decision").and_then(Value::as_str) == Some("block")
                })
    };
    let results = message
        .and_then(|m| m.get("hookResults"))
        .and_then(Value::as_array);
    !id.is_empty()
        && field("hookParentId") == Some(id)
        && matches!(field("hookEventName"), Some("Stop" | "SubagentStop"))
        && results.is_some_and(|r| r.iter().any(blocked))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn read(records: &[Value]) -> Option<String> {
        read_with_prompt(records).0
    }

    /// The turn's text and its request.
    fn read_with_prompt(records: &[Value]) -> (Option<String>, Option<String>) {
        let mut scanner = DroidScanner::default();
        let mut turn = Turn::default();
        for record in records.iter().rev() {
            if scanner.scan(record, &mut turn) == Flow::Stop {
                break;
            }
        }
        (turn.text.into_text(10_000), turn.prompt)
    }

    fn message(id: &str, parent: &str, role: &str, content: Value) -> Value {
        json!({"type": "message", "id": id, "parentId": parent,
               "message": {"role": role, "content": content}})
    }

    fn text(id: &str, parent: &str, role: &str, text: &str) -> Value {
        message(id, parent, role, json!([{"type": "text", "text": text}]))
    }

    fn stop_hook(parent: &str, stdout: &str) -> Value {
        json!({"type": "message", "id": "h", "message": {"role": "user", "content": [],
               "visibility": "user_only", "hookEventName": "Stop", "hookParentId": parent,
               "hookResults": [{"exitCode": 0, "stdout": stdout, "stderr": ""}]}})
    }

    #[test]
    fn the_turn_runs_from_the_typed_prompt_through_hook_feedback() {
        let records = [
            text(
                "ctx",
                "",
                "user",
                "<system-reminder>tools</system-reminder>",
            ),
            text("u0", "ctx", "user", "older prompt"),
            text("a0", "u0", "assistant", "OLD TURN"),
            text("u1", "a0", "user", "fix it"),
            message(
                "a1",
                "u1",
                "assistant",
                json!([{"type": "tool_use", "id": "t", "name": "Execute", "input": {}}]),
            ),
            message(
                "r1",
                "a1",
                "user",
                json!([{"type": "tool_result", "tool_use_id": "t", "content": "ok"}]),
            ),
            text("a2", "r1", "assistant", "Fixed. Pushing now."),
            stop_hook("a2", "{\"decision\":\"block\",\"reason\":\"verify\"}\n"),
            text("u2", "a2", "user", "guard: verify first"),
            text("a3", "u2", "assistant", "Tests pass."),
            json!({"type": "agent_turn_outcome", "reason": "completed"}),
        ];
        let (text, prompt) = read_with_prompt(&records);
        assert_eq!(text.as_deref(), Some("Fixed. Pushing now.\n\nTests pass."));
        // The hook's feedback ("guard: verify first") is not the request.
        assert_eq!(prompt.as_deref(), Some("fix it"));
    }

    #[test]
    fn a_prompt_after_an_answer_starts_a_new_turn() {
        let records = [
            text("a0", "u0", "assistant", "OLD TURN"),
            // The Stop hook allowed the old turn's end.
            stop_hook("a0", ""),
            text("u1", "a0", "user", "next task"),
            text("a1", "u1", "assistant", "Done."),
        ];
        assert_eq!(read(&records).as_deref(), Some("Done."));
    }
}
