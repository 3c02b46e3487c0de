//! Telling the agent from the payload's shape, for `guard hook` without an
//! agent name and for agents that run hooks installed for another (Cursor
//! and Copilot run hooks from Claude Code's settings).

use super::parse::{native_event, shape_matches};
use super::{DetectRule, EventNaming};
use serde_json::Value;

/// What agent detection reads of an adapter: its full spec, or the small
/// [`AdapterHead`](super::AdapterHead) that `guard hook` reads for every
/// built-in adapter (it then parses the full spec of the one it picked).
pub trait Detectable {
    /// The adapter's name.
    fn name(&self) -> &str;
    /// Detection priority: higher is tried first.
    fn priority(&self) -> i32;
    /// The adapter's detection rules.
    fn detect(&self) -> &[DetectRule];
    /// How the adapter names a payload's event.
    fn naming(&self) -> EventNaming<'_>;
}

/// The adapter whose detection rules match the payload, by priority; the
/// lowest-priority adapter without rules (Claude Code) is the fallback.
/// Returns `None` only when no adapter is loaded.
pub fn detect_agent<'a, A: Detectable>(adapters: &'a [A], payload: &Value) -> Option<&'a A> {
    let mut by_priority: Vec<&A> = adapters.iter().collect();
    by_priority.sort_by_key(|a| -a.priority());
    for spec in &by_priority {
        for rule in spec.detect() {
            let shape_ok = shape_matches(payload, &rule.keys, &rule.absent);
            let event_ok = rule.event_in.is_empty()
                || native_event(spec.naming(), payload)
                    .is_some_and(|e| rule.event_in.iter().any(|n| *n == e));
            if shape_ok && event_ok {
                return Some(spec);
            }
        }
    }
    by_priority
        .iter()
        .rev()
        .find(|a| a.detect().is_empty())
        .copied()
        .or(by_priority.last().copied())
}
