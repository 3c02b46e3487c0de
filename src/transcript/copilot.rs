//! GitHub Copilot CLI session events
//! (`~/.copilot/session-state/<session>/events.jsonl`, the `transcriptPath`
//! of its hook payloads).
//!
//! One event per line, `{type, data, id, parentId, timestamp}`:
//! `user.message` (`data.content`, the text as typed), `assistant.message`
//! (`data.content`, the model's text, empty when it only calls tools, and
//! `data.messageId`), `tool.execution_*`, `hook.start` / `hook.end`
//! (`data.hookType`), `assistant.turn_*`, `session.*`. agentStop payloads
//! carry no text, so this file is where guard reads the turn.
//!
//! A blocking agentStop hook's reason is recorded as a plain `user.message`
//! right after the `hook.end` of that agentStop (or subagentStop) hook,
//! whose `data.output.decision` is `block` (only the records of the prompt
//! hooks that the message itself fired, `userPromptSubmitted`, come
//! between): such a message is hook feedback, neither the turn's start nor
//! text. Records are read newest first, so a `user.message` is only known to
//! start the turn when the records before it are read. (Layout checked against the
//! real Copilot CLI 1.0.102: tests/fixtures/transcripts/copilot-1.0.102-real-*.)
//!
//! Copilot writes this file about 100 ms behind: when an agentStop hook
//! starts, the turn's last records are not in it yet. They are once the
//! file ends with that hook's own `hook.start` record (its `data.input` is
//! the payload, so its `timestamp` is the payload's), which
//! [`writer_caught_up`] looks for.

use super::turn::{Flow, TurnText};
use super::RecordScanner;
use serde_json::Value;
use std::io::{Read, Seek, SeekFrom};
use std::path::Path;

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

/// Reads Copilot CLI session events, newest first.
#[derive(Debug, Default)]
pub(crate) struct CopilotScanner {
    /// A `user.message` was read and the records before it do not yet tell
    /// whether it was hook feedback.
    pending_user: bool,
}

impl RecordScanner for CopilotScanner {
    fn scan(&mut self, record: &Value, turn: &mut TurnText) -> Flow {
        if self.pending_user {
            if is_prompt_hook_record(record) {
                return Flow::Continue;
            }
            if !is_blocking_turn_end_hook_end(record) {
                return Flow::Stop;
            }
            self.pending_user = false;
        }
        let data = record.get("data");
        let text = |key: &str| data.and_then(|d| d.get(key)).and_then(Value::as_str);
        match record.get("type").and_then(Value::as_str) {
            Some("assistant.message") => {
                if let Some(content) = text("content") {
                    turn.add_record(text("messageId"), std::iter::once(content));
                }
            }
            Some("user.message") => self.pending_user = true,
            _ => {}
        }
        Flow::Continue
    }
}

fn hook_type(record: &Value) -> Option<&str> {
    record
        .get("data")
        .and_then(|d| d.get("hookType"))
        .and_then(Value::as_str)
}

/// A `hook.start` or `hook.end` of a hook that a user message fires.
fn is_prompt_hook_record(record: &Value) -> bool {
    let kind = record.get("type").and_then(Value::as_str);
    matches!(kind, Some("hook.start" | "hook.end"))
        && hook_type(record).is_some_and(|t| t.starts_with("userPrompt"))
}

/// The `hook.end` of a turn-end hook that blocked (`output.decision: block`).
fn is_blocking_turn_end_hook_end(record: &Value) -> bool {
    let decision = record
        .get("data")
        .and_then(|d| d.get("output"))
        .and_then(|o| o.get("decision"))
        .and_then(Value::as_str);
    record.get("type").and_then(Value::as_str) == Some("hook.end")
        && matches!(hook_type(record), Some("agentStop" | "subagentStop"))
        && decision == Some("block")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// Feeds `records` newest first, as the reader does, up to the turn start.
    fn read(records: &[Value]) -> (Vec<Flow>, Option<String>) {
        let mut scanner = CopilotScanner::default();
        let mut turn = TurnText::default();
        let mut flows = Vec::new();
        for record in records.iter().rev() {
            flows.push(scanner.scan(record, &mut turn));
            if flows.last() == Some(&Flow::Stop) {
                break;
            }
        }
        (flows, turn.into_text(10_000))
    }

    fn user(id: &str, text: &str) -> Value {
        json!({"type": "user.message", "id": id, "data": {"content": text}})
    }

    fn assistant(id: &str, text: &str) -> Value {
        json!({"type": "assistant.message", "id": id, "data": {"messageId": id, "content": text}})
    }

    fn hook_end(hook_type: &str, output: Value) -> Value {
        json!({"type": "hook.end", "data": {"hookType": hook_type, "success": true, "output": output}})
    }

    fn block() -> Value {
        json!({"decision": "block", "reason": "verify first"})
    }

    #[test]
    fn the_turn_runs_from_the_typed_prompt_through_hook_feedback() {
        let records = [
            user("u0", "older prompt"),
            assistant("a0", "OLD TURN"),
            hook_end("agentStop", Value::Null),
            user("u1", "fix it"),
            assistant("a1", ""),
            json!({"type": "tool.execution_complete", "id": "t", "data": {"success": true}}),
            assistant("a2", "Fixed. Pushing now."),
            hook_end("agentStop", block()),
            json!({"type": "hook.start", "data": {"hookType": "userPromptSubmitted"}}),
            hook_end("userPromptSubmitted", Value::Null),
            user("u2", "guard: verify first"),
            assistant("a3", "Tests pass."),
        ];
        let (flows, text) = read(&records);
        assert_eq!(text.as_deref(), Some("Fixed. Pushing now.\n\nTests pass."));
        assert_eq!(flows.last(), Some(&Flow::Stop), "{flows:?}");
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

    #[test]
    fn a_user_message_after_another_hook_starts_the_turn() {
        let records = [
            assistant("a0", "OLD TURN"),
            hook_end("preToolUse", block()),
            user("u1", "new prompt"),
            assistant("a1", "Answer."),
        ];
        assert_eq!(read(&records).1.as_deref(), Some("Answer."));
    }
}
