//! The text stash: some agents send the assistant's answer in an observing
//! event and not in the turn end that guard judges (Cursor's
//! `afterAgentResponse` has `text`, its `stop` has none). The adapter's
//! `text_stash` names both; the answer is kept per session in the state
//! directory between the two, and forgotten once used, so a later turn end
//! never judges a stale answer.

use crate::adapter::AdapterSpec;
use crate::event::Event;
use crate::state::safe_name;
use std::fs;
use std::path::{Path, PathBuf};

/// Largest text kept (the tail is kept: the end of an answer is its claim).
const MAX_STASHED_BYTES: usize = 256 * 1024;

fn stash_path(state_dir: &Path, agent: &str, session: &str) -> PathBuf {
    state_dir
        .join("text")
        .join(format!("{}-{}.txt", safe_name(agent), safe_name(session)))
}

fn tail(text: &str) -> &str {
    crate::actions::tail(text, MAX_STASHED_BYTES)
}

/// Saves or fills in the event's text per the adapter's `text_stash`. Best
/// effort: an unwritable state directory only leaves the text as it was.
pub fn apply(spec: &AdapterSpec, event: &mut Event, state_dir: &Path) {
    let Some(stash) = &spec.text_stash else {
        return;
    };
    let Some(session) = event.session_id.as_deref().filter(|s| !s.is_empty()) else {
        return;
    };
    let path = stash_path(state_dir, &spec.name, session);
    if stash.save_on.contains(&event.native_event) {
        if let Some(text) = event.text.as_deref().filter(|t| !t.trim().is_empty()) {
            let _ = fs::create_dir_all(path.parent().unwrap_or(state_dir));
            let _ = fs::write(&path, tail(text));
        }
    } else if stash.use_on.contains(&event.native_event) && event.text.is_none() {
        if let Ok(text) = fs::read_to_string(&path) {
            event.text = Some(text);
            let _ = fs::remove_file(&path);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn cursor() -> AdapterSpec {
        crate::adapter::find("cursor").unwrap()
    }

    fn dir(name: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("guard-stash-{name}-{}", std::process::id()));
        let _ = fs::remove_dir_all(&d);
        d
    }

    fn event(spec: &AdapterSpec, payload: serde_json::Value) -> Event {
        spec.parse_payload(payload).unwrap()
    }

    #[test]
    fn the_answer_of_after_agent_response_reaches_the_next_stop_once() {
        let (spec, state) = (cursor(), dir("once"));
        let mut answer = event(
            &spec,
            json!({"hook_event_name": "afterAgentResponse", "conversation_id": "c1", "text": "Done, all green."}),
        );
        apply(&spec, &mut answer, &state);
        let mut stop = event(
            &spec,
            json!({"hook_event_name": "stop", "conversation_id": "c1", "status": "completed", "loop_count": 0}),
        );
        apply(&spec, &mut stop, &state);
        assert_eq!(stop.text.as_deref(), Some("Done, all green."));
        let mut next = event(
            &spec,
            json!({"hook_event_name": "stop", "conversation_id": "c1", "status": "completed", "loop_count": 1}),
        );
        apply(&spec, &mut next, &state);
        assert_eq!(next.text, None, "a used answer is forgotten");
        let _ = fs::remove_dir_all(&state);
    }

    #[test]
    fn sessions_do_not_share_answers() {
        let (spec, state) = (cursor(), dir("sessions"));
        let mut answer = event(
            &spec,
            json!({"hook_event_name": "afterAgentResponse", "conversation_id": "c1", "text": "mine"}),
        );
        apply(&spec, &mut answer, &state);
        let mut other = event(
            &spec,
            json!({"hook_event_name": "stop", "conversation_id": "c2"}),
        );
        apply(&spec, &mut other, &state);
        assert_eq!(other.text, None);
        let _ = fs::remove_dir_all(&state);
    }

    #[test]
    fn a_long_answer_keeps_its_end() {
        let long = format!("{}é the end", "x".repeat(MAX_STASHED_BYTES));
        let kept = tail(&long);
        assert!(kept.len() <= MAX_STASHED_BYTES && kept.ends_with("é the end"));
    }
}
