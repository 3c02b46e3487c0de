//! Telling the agent from the payload's shape, for `guard hook` without an
//! agent name and for agents that run hooks installed for another (Cursor
//! and Copilot run hooks from Claude Code's settings).

use super::parse::{native_event, shape_matches};
use super::Detection;
use serde_json::Value;

/// The adapter whose detection rules match the payload, by priority; the
/// lowest-priority adapter without rules (Claude Code) is the fallback.
/// Returns `None` only when no adapter is loaded.
pub fn detect_agent<'a, A: AsRef<Detection>>(adapters: &'a [A], payload: &Value) -> Option<&'a A> {
    let mut by_priority: Vec<&A> = adapters.iter().collect();
    by_priority.sort_by_key(|a| -a.as_ref().priority);
    for adapter in &by_priority {
        let spec = adapter.as_ref();
        for rule in &spec.detect {
            let shape_ok = shape_matches(payload, &rule.keys, &rule.absent);
            let event_ok = rule.event_in.is_empty()
                || native_event(spec, payload).is_some_and(|e| rule.event_in.contains(&e));
            if shape_ok && event_ok {
                return Some(adapter);
            }
        }
    }
    by_priority
        .iter()
        .rev()
        .find(|a| a.as_ref().detect.is_empty())
        .copied()
        .or(by_priority.last().copied())
}
