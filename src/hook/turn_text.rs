//! The text judged at a turn end: the assistant's text since the last real
//! user message, from the transcript, or the payload's own final text when
//! the transcript is missing, unreadable or lags behind the payload; and,
//! from the same read, what the turn did (`Event::actions`) and the user's
//! request that started it (`Event::prompt`, unless the payload gave it),
//! kept only when the transcript has caught up with the payload (a lagging
//! transcript's last turn may be an older one).

use crate::adapter::AdapterSpec;
use crate::event::{Event, EventKind};
use crate::transcript::{self, TranscriptError, TranscriptFormat};

/// How many bytes of the payload's text must be found in the transcript's
/// text for the transcript to count as caught up.
const CATCH_UP_PROBE: usize = 200;

/// Fills `event.text` from the transcript where that is better, and
/// `event.actions`; returns a problem worth telling the user, if any.
pub fn fill(spec: &AdapterSpec, event: &mut Event, max_bytes: usize) -> Option<String> {
    let format: TranscriptFormat = spec.transcript.as_deref()?.parse().ok()?;
    let path = event.transcript_path.clone()?;
    let payload = event
        .text
        .as_deref()
        .map(str::trim)
        .filter(|t| !t.is_empty());
    // Copilot CLI writes its transcript behind its hooks.
    transcript::wait_for_writer(format, &path, &event.raw, transcript::WRITER_WAIT);
    // A sub-agent's stop reads the sub-agent's turn.
    let subagent = (event.kind == EventKind::SubagentStop)
        .then(|| transcript::subagent_turn(format, &event.raw, &path))
        .flatten();
    let read = match subagent {
        Some(who) => transcript::last_subagent_turn(format, &path, max_bytes, who),
        None => transcript::last_turn(format, &path, max_bytes),
    };
    match read {
        Ok(turn) => {
            let caught_up = match (&turn.text, payload) {
                (_, None) => true,
                (Some(from_transcript), Some(p)) => {
                    from_transcript.contains(crate::engine::tail(p, CATCH_UP_PROBE).trim())
                }
                (None, Some(_)) => false,
            };
            if caught_up {
                if turn.text.is_some() {
                    event.text = turn.text;
                }
                event.actions = Some(turn.actions);
                if event.prompt.is_none() {
                    event.prompt = turn.prompt;
                }
            }
            None
        }
        Err(TranscriptError::Missing { .. }) if payload.is_some() => None,
        Err(e) => Some(if payload.is_some() {
            format!("{e}; judged the payload's final message instead")
        } else {
            format!("{e}; no turn text to judge")
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn stop_with(transcript: &std::path::Path, message: Option<&str>) -> (AdapterSpec, Event) {
        let spec = crate::adapter::find("claude-code").unwrap();
        let mut payload = json!({"hook_event_name": "Stop", "session_id": "s",
            "transcript_path": transcript, "stop_hook_active": false});
        if let Some(message) = message {
            payload["last_assistant_message"] = json!(message);
        }
        let event = spec.parse_payload(payload).unwrap();
        (spec, event)
    }

    fn transcript(name: &str, lines: &[serde_json::Value]) -> std::path::PathBuf {
        let path = std::env::temp_dir().join(format!(
            "guard-turn-text-{name}-{}.jsonl",
            std::process::id()
        ));
        let text: Vec<String> = lines.iter().map(|l| l.to_string()).collect();
        std::fs::write(&path, text.join("\n") + "\n").unwrap();
        path
    }

    fn turn(answer: &str) -> Vec<serde_json::Value> {
        vec![
            json!({"type": "user", "message": {"content": "fix it"}}),
            json!({"type": "assistant", "message": {"id": "m1", "content": [
                {"type": "tool_use", "id": "t1", "name": "Bash", "input": {"command": "cargo test"}}]}}),
            json!({"type": "user", "toolUseResult": {}, "message": {"content": [
                {"type": "tool_result", "tool_use_id": "t1", "content": "ok", "is_error": false}]}}),
            json!({"type": "assistant", "message": {"id": "m2", "content": [{"type": "text", "text": answer}]}}),
        ]
    }

    #[test]
    fn the_event_carries_the_turns_actions() {
        let path = transcript("actions", &turn("Tests pass."));
        let (spec, mut event) = stop_with(&path, Some("Tests pass."));
        assert_eq!(fill(&spec, &mut event, 4000), None);
        let actions = event.actions.expect("actions read");
        let commands: Vec<&str> = actions.commands().map(|c| c.command.as_str()).collect();
        assert_eq!(commands, vec!["cargo test"]);
        assert_eq!(event.text.as_deref(), Some("Tests pass."));
        assert_eq!(
            event.prompt.as_deref(),
            Some("fix it"),
            "the user's request"
        );
        let _ = std::fs::remove_file(path);
    }

    #[test]
    fn a_transcript_behind_the_payload_gives_no_actions() {
        let path = transcript("lagging", &turn("An older answer."));
        let (spec, mut event) = stop_with(&path, Some("The newest answer, not yet written."));
        assert_eq!(fill(&spec, &mut event, 4000), None);
        assert!(event.actions.is_none());
        assert_eq!(
            event.text.as_deref(),
            Some("The newest answer, not yet written.")
        );
        let _ = std::fs::remove_file(path);
    }

    #[test]
    fn copilot_agent_stop_is_read_from_its_events_file() {
        let spec = crate::adapter::find("copilot").unwrap();
        let events = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/transcripts/copilot-1.0.102-real-actions.jsonl");
        let mut event = spec
            .parse_payload(json!({"sessionId": "s", "timestamp": 1, "cwd": "/w",
                "transcriptPath": events, "stopReason": "end_turn", "stop_hook_active": false}))
            .unwrap();
        assert_eq!(fill(&spec, &mut event, 4000), None);
        assert_eq!(
            event.text.as_deref(),
            Some("E2E-ACTIONS: notes added, tests pass, committed.")
        );
        assert_eq!(event.actions.map(|a| a.actions.len()), Some(5));
    }

    #[test]
    fn an_agent_without_a_transcript_reader_keeps_text_only() {
        let spec = crate::adapter::find("cursor").unwrap();
        let mut event = spec
            .parse_payload(json!({"hook_event_name": "stop", "conversation_id": "c",
                "workspace_roots": ["/w"], "status": "completed", "transcript_path": "/nonexistent"}))
            .unwrap();
        assert_eq!(fill(&spec, &mut event, 4000), None);
        assert!(event.actions.is_none());
    }
}
