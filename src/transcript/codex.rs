//! Codex CLI rollout files (`~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl`).
//!
//! Lines are `{"timestamp", "type", "payload"}`. Only `response_item` lines
//! whose payload is a `message` matter: `role: "assistant"` carries
//! `output_text` items, `role: "user"` carries `input_text` items. The
//! `event_msg` lines repeat the same messages for the UI and are skipped, as
//! are `session_meta`, `turn_context`, `compacted`, reasoning and tool calls.
//! A user message is the turn's start only if some of its text was typed by a
//! person: context Codex injects (`<environment_context>`, `<user_instructions>`,
//! AGENTS.md instructions) and Stop-hook feedback (`<hook_prompt …>`) are not;
//! `developer` messages are skipped. Checked against a recording of the real
//! Codex CLI 0.171.0 (tests/fixtures/transcripts/codex-0.171-real-*).
//! Commands and edits: see `codex_actions`.
//!
//! A sub-agent's rollout (`multi_agent`, read through [`super::subagent`])
//! has the same layout; its turn starts at the task its parent gave it (a
//! user message, or in `multi_agent_v2` an `agent_message` "Message Type:
//! NEW_TASK"), which is not the user's request.

use super::codex_actions;
use super::turn::{Flow, Turn};
use super::RecordScanner;
use serde_json::Value;

/// Text prefixes of user messages that Codex or a hook injected.
const INJECTED_USER_PREFIXES: &[&str] = &[
    "<environment_context>",
    "<user_instructions>",
    "<hook_prompt",
    "# AGENTS.md instructions",
    "<INSTRUCTIONS>",
    "<permissions instructions>",
    "<user_shell_command>",
    "<turn_aborted>",
    "<subagent_notification>",
];

/// Reads Codex rollout records, newest first.
#[derive(Debug, Default)]
pub(crate) struct CodexScanner {
    /// Reading a sub-agent's rollout: its prompt is its parent's task.
    subagent: bool,
}

impl CodexScanner {
    /// A scanner of a sub-agent's own rollout.
    pub(crate) fn for_subagent() -> CodexScanner {
        CodexScanner { subagent: true }
    }
}

impl RecordScanner for CodexScanner {
    fn scan(&mut self, record: &Value, turn: &mut Turn) -> Flow {
        if record.get("type").and_then(Value::as_str) != Some("response_item") {
            codex_actions::scan(record, turn);
            return Flow::Continue;
        }
        let Some(payload) = record.get("payload") else {
            return Flow::Continue;
        };
        match payload.get("type").and_then(Value::as_str) {
            Some("message") => {}
            Some("agent_message") if is_new_task(payload) => return Flow::Stop,
            _ => {
                codex_actions::scan(record, turn);
                return Flow::Continue;
            }
        }
        let items = payload.get("content").and_then(Value::as_array);
        let texts_of = |kinds: &[&str]| -> Vec<&str> {
            items
                .into_iter()
                .flatten()
                .filter(|item| {
                    item.get("type")
                        .and_then(Value::as_str)
                        .is_some_and(|kind| kinds.contains(&kind))
                })
                .filter_map(|item| item.get("text").and_then(Value::as_str))
                .collect()
        };
        match payload.get("role").and_then(Value::as_str) {
            Some("assistant") => {
                turn.add_text(None, texts_of(&["output_text", "text"]).into_iter());
                Flow::Continue
            }
            Some("user") => {
                let typed: Vec<&str> = texts_of(&["input_text", "text"])
                    .into_iter()
                    .filter(|text| is_typed_text(text))
                    .collect();
                if typed.is_empty() {
                    return Flow::Continue;
                }
                if !self.subagent {
                    turn.set_prompt(typed.into_iter());
                }
                Flow::Stop
            }
            _ => Flow::Continue,
        }
    }
}

/// Whether an `agent_message` (`multi_agent_v2`) gives its recipient a new
/// task: a sub-agent's turn starts there.
fn is_new_task(payload: &Value) -> bool {
    let first = payload.pointer("/content/0/text").and_then(Value::as_str);
    first.is_some_and(|text| text.starts_with("Message Type: NEW_TASK"))
}

/// Whether a user text was typed by a person (not injected by Codex or a hook).
fn is_typed_text(text: &str) -> bool {
    let text = text.trim_start();
    !text.is_empty()
        && !INJECTED_USER_PREFIXES
            .iter()
            .any(|prefix| text.starts_with(prefix))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn message(role: &str, kind: &str, text: &str) -> Value {
        json!({"timestamp": "2026-12-02T09:02:41.000Z", "type": "response_item",
               "payload": {"type": "message", "role": role, "content": [{"type": kind, "text": text}]}})
    }

    fn scan(record: Value) -> (Flow, Option<String>) {
        let mut turn = Turn::default();
        let flow = CodexScanner::default().scan(&record, &mut turn);
        (flow, turn.text.into_text(10_000))
    }

    #[test]
    fn assistant_output_text_is_taken() {
        assert_eq!(
            scan(message("assistant", "output_text", "Tests pass.")),
            (Flow::Continue, Some("Tests pass.".into()))
        );
    }

    #[test]
    fn typed_user_text_starts_the_turn() {
        assert_eq!(
            scan(message("user", "input_text", "add a flag")).0,
            Flow::Stop
        );
        let mut turn = Turn::default();
        CodexScanner::default().scan(&message("user", "input_text", "add a flag"), &mut turn);
        assert_eq!(turn.prompt.as_deref(), Some("add a flag"));
    }

    #[test]
    fn injected_user_messages_and_other_lines_are_skipped() {
        let hook = "<hook_prompt hook_run_id=\"stop:0:/h.json\">say PINEAPPLE</hook_prompt>";
        let cases = [
            message("user", "input_text", hook),
            message(
                "user",
                "input_text",
                "<environment_context>\n  <cwd>/w</cwd>\n</environment_context>",
            ),
            message(
                "user",
                "input_text",
                "<user_instructions>be nice</user_instructions>",
            ),
            message(
                "user",
                "input_text",
                "# AGENTS.md instructions for /w\n\nrules",
            ),
            message("developer", "input_text", "system rules"),
            json!({"type": "event_msg", "payload": {"type": "user_message", "message": "add a flag"}}),
            json!({"type": "event_msg", "payload": {"type": "agent_message", "message": "dup"}}),
            json!({"type": "response_item", "payload": {"type": "function_call_output", "call_id": "c", "output": "ok"}}),
            json!({"type": "turn_context", "payload": {"cwd": "/w"}}),
        ];
        for case in cases {
            assert_eq!(scan(case.clone()), (Flow::Continue, None), "{case}");
        }
    }
}
