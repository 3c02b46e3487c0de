//! Payloads of a shape the adapter cannot read: no event name where it
//! looks (another agent's payload, a new version's), or an event name it
//! does not map that another agent maps to a gate. guard never answers a
//! gate it could not read with a silent allow: such a payload is answered
//! with the gate's failure policy (ask, or deny where the agent cannot ask),
//! logged as an unknown shape and noted for `guard doctor`. Any other event
//! of an unknown shape stays allowed (and is noted too).

use super::{failure_verdict, record, HookInput};
use crate::adapter::{self, AdapterSpec, HookOutput};
use crate::config::{self, LoadOptions};
use crate::event::{Event, EventKind};
use crate::verdict::Verdict;
use serde_json::Value;
use std::time::Instant;

/// Top-level keys that mark a tool call when a payload names no event.
const TOOL_KEYS: &[&str] = &[
    "tool_name",
    "toolName",
    "tool_input",
    "toolArgs",
    "tool_info",
    "tool",
];

/// What guard makes of a payload it cannot read.
pub(super) struct Unknown {
    /// The kind guard takes the event for.
    pub(super) kind: EventKind,
    /// Its event name, when one was found.
    pub(super) native: Option<String>,
}

/// `None` when the adapter reads the payload's event (mapped or not);
/// otherwise the kind guard takes it for.
pub(super) fn classify(spec: &AdapterSpec, payload: &Value) -> Option<Unknown> {
    let object = payload.as_object()?;
    let native = adapter::native_event(spec, payload);
    if native.as_ref().is_some_and(|n| spec.events.contains_key(n)) {
        return None;
    }
    // Only an event the adapter does not map reads the other adapters.
    let all = adapter::builtins().0;
    match native {
        // The adapter's own shape, an event it does not judge: it is only
        // an unknown shape when another agent calls that event a gate.
        Some(native) => {
            let kind = kind_elsewhere(&all, &native).filter(|k| k.is_gate())?;
            Some(Unknown {
                kind,
                native: Some(native),
            })
        }
        None => {
            let native = all
                .iter()
                .find_map(|other| adapter::native_event(other, payload));
            let kind = match &native {
                Some(name) => kind_elsewhere(&all, name).unwrap_or_else(|| by_name(name)),
                None if TOOL_KEYS.iter().any(|k| object.contains_key(*k)) => EventKind::PreTool,
                None => EventKind::Other,
            };
            Some(Unknown { kind, native })
        }
    }
}

/// The kind another built-in adapter gives this event name (a gate first).
fn kind_elsewhere(all: &[AdapterSpec], native: &str) -> Option<EventKind> {
    let kinds: Vec<EventKind> = all
        .iter()
        .filter_map(|a| a.events.get(native).copied())
        .collect();
    kinds
        .iter()
        .copied()
        .find(|k| k.is_gate())
        .or(kinds.first().copied())
}

/// A gate by its name alone: "before"/"pre" a tool, command or file, or a
/// permission request (`before_tool_call`, `pre_run_command`).
fn by_name(native: &str) -> EventKind {
    let name: String = native
        .chars()
        .filter(char::is_ascii_alphanumeric)
        .collect::<String>()
        .to_ascii_lowercase();
    let before = name.starts_with("pre") || name.starts_with("before");
    let acts = [
        "tool", "command", "shell", "exec", "mcp", "write", "edit", "file",
    ]
    .iter()
    .any(|w| name.contains(w));
    if name.contains("permission") {
        EventKind::PermissionRequest
    } else if before && acts {
        EventKind::PreTool
    } else {
        EventKind::Other
    }
}

/// Answers an unknown shape: the gate's failure policy (allow while guard
/// is paused), or allow; logs it and notes it for `guard doctor`.
pub(super) fn answer(
    spec: &AdapterSpec,
    unknown: Unknown,
    payload: &Value,
    input: &HookInput,
    started: Instant,
) -> HookOutput {
    // Names only, never values, and short: they come from the payload.
    let short = |s: &str| s.chars().take(64).collect::<String>();
    let keys: Vec<String> = payload
        .as_object()
        .map(|o| o.keys().take(20).map(|k| short(k)).collect())
        .unwrap_or_default();
    let unknown = Unknown {
        native: unknown.native.as_deref().map(short),
        ..unknown
    };
    let gate = unknown.kind.is_gate();
    let problem = format!(
        "unknown payload shape for {} (event {}, keys: {}): {}",
        spec.name,
        unknown.native.as_deref().unwrap_or("not found"),
        keys.join(", "),
        if gate {
            "a gate, so its failure policy applies"
        } else {
            "not a gate, allowed"
        }
    );
    let cwd = ["cwd", "working_dir"]
        .iter()
        .find_map(|k| payload.get(*k).and_then(Value::as_str))
        .map(std::path::PathBuf::from);
    let opts = LoadOptions {
        explicit: input.config_path.clone(),
        cwd: cwd.clone(),
        agent: Some(spec.name.clone()),
        only_explicit: false,
    };
    let cfg = config::load_typed(&opts)
        .map(|(c, _)| c)
        .unwrap_or_else(|_| config::builtin(Some(&spec.name)));
    let native = unknown.native.clone().unwrap_or_default();
    let state_dir = crate::paths::state_dir();
    let _ = crate::state::touch_heartbeat(&state_dir, &spec.name);
    let paused = crate::state::is_paused(&state_dir);
    let verdict = if gate && !paused {
        failure_verdict(unknown.kind, &cfg, &problem)
    } else {
        Verdict::allow()
    };
    let mut event = Event::new(&spec.name, unknown.kind);
    event.native_event = native.clone();
    event.cwd = cwd;
    let ctx = record::Context {
        started,
        mismatch: None,
        refused: Vec::new(),
        errors: vec![problem.clone()],
        paused,
        unknown_shape: true,
    };
    record::write(&cfg, &event, &verdict, &ctx);
    let _ = crate::state::note_unknown_shape(
        &state_dir,
        &spec.name,
        unknown.native.as_deref(),
        keys,
        gate,
    );
    let mut out = spec.render(unknown.kind, &native, &verdict, cfg.ask_as);
    out.stderr.push_str(&format!("guard: {problem}\n"));
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn kind_of(agent: &str, payload: Value) -> Option<EventKind> {
        classify(&adapter::find(agent).unwrap(), &payload).map(|u| u.kind)
    }

    #[test]
    fn payloads_the_adapter_reads_are_not_unknown() {
        let stop = json!({"hook_event_name": "Stop", "session_id": "s"});
        assert!(kind_of("claude-code", stop).is_none());
        // Known shape, an event guard does not judge, a gate nowhere.
        let note = json!({"hook_event_name": "Notification", "message": "m"});
        assert!(kind_of("claude-code", note).is_none());
    }

    #[test]
    fn unreadable_gates_are_told_from_other_events() {
        let pre = json!({"eventType": "beforeToolCall", "tool_name": "x"});
        assert_eq!(kind_of("claude-code", pre), Some(EventKind::PreTool));
        let vscode_like = json!({"hookEventName": "Stop", "sessionId": "s"});
        assert_eq!(kind_of("claude-code", vscode_like), Some(EventKind::Stop));
        let idle = json!({"eventType": "sessionIdle"});
        assert_eq!(kind_of("claude-code", idle), Some(EventKind::Other));
        let pascal_gate = json!({"event": "PreToolUse", "tool": "shell"});
        assert_eq!(kind_of("generic", pascal_gate), Some(EventKind::PreTool));
        assert_eq!(by_name("pre_run_command"), EventKind::PreTool);
        assert_eq!(by_name("before_tool_call"), EventKind::PreTool);
        assert_eq!(by_name("PreCompact"), EventKind::Other);
        assert_eq!(by_name("onPermissionAsked"), EventKind::PermissionRequest);
    }
}
