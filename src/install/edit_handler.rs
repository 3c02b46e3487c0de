//! The handler objects of each JSON hook format: which keys hold the
//! command and the timeout, how guard's handler is recognised, and how a new
//! one is written or an existing one updated in place. Used by [`super`]
//! (the `edit` module) for every format but Kiro's and TOML's.

use super::{GuardCommand, HookFormat, WantedHook};
use serde_json::{Map, Value};

/// Field names of a format's handler objects.
pub(super) struct Fields {
    /// Nested groups (`{"matcher", "hooks": [...]}`) or flat entries.
    pub(super) nested: bool,
    /// The key holding the command line (the first is written).
    pub(super) command_keys: &'static [&'static str],
    /// The key holding the timeout.
    pub(super) timeout_key: &'static str,
    /// Whether handlers carry `"type": "command"`.
    pub(super) typed: bool,
    /// Whether the root carries `"version": 1`.
    pub(super) versioned: bool,
    /// Whether the event map is the root itself rather than its `hooks`.
    pub(super) top_level: bool,
}

pub(super) fn fields(format: HookFormat) -> Fields {
    match format {
        HookFormat::ClaudeHooks | HookFormat::ClaudeHooksTopLevel => Fields {
            nested: true,
            command_keys: &["command"],
            timeout_key: "timeout",
            typed: true,
            versioned: false,
            top_level: format == HookFormat::ClaudeHooksTopLevel,
        },
        HookFormat::CursorHooks => Fields {
            nested: false,
            command_keys: &["command"],
            timeout_key: "timeout",
            typed: false,
            versioned: true,
            top_level: false,
        },
        HookFormat::CopilotHooks => Fields {
            nested: false,
            command_keys: &["bash", "command"],
            timeout_key: "timeoutSec",
            typed: true,
            versioned: true,
            top_level: false,
        },
        // Kiro's and TOML entries are handled by `kiro` and `toml_file`;
        // these fields are not used for them.
        HookFormat::FlatHooks | HookFormat::KiroHooks | HookFormat::TomlHooks => Fields {
            nested: false,
            command_keys: &["command"],
            timeout_key: "timeout",
            typed: false,
            versioned: false,
            top_level: false,
        },
    }
}

pub(super) fn handler_command<'a>(
    handler: &'a Value,
    f: &Fields,
    guard: &GuardCommand,
) -> Option<&'a str> {
    let obj = handler.as_object()?;
    f.command_keys
        .iter()
        .filter_map(|k| obj.get(*k).and_then(Value::as_str))
        .find(|c| guard.matches(c))
}

pub(super) fn is_guard_handler(handler: &Value, f: &Fields, guard: &GuardCommand) -> bool {
    handler_command(handler, f, guard).is_some()
}

/// Sets a key, keeping its position when present and untouched when equal.
pub(super) fn set(obj: &mut Map<String, Value>, key: &str, value: Value) {
    if obj.get(key) != Some(&value) {
        obj.insert(key.to_string(), value);
    }
}

pub(super) fn new_handler(w: &WantedHook, f: &Fields, with_matcher: bool) -> Value {
    let mut h = Map::new();
    if f.typed {
        h.insert("type".into(), "command".into());
    }
    if with_matcher {
        if let Some(m) = &w.matcher {
            h.insert("matcher".into(), m.clone().into());
        }
    }
    h.insert(f.command_keys[0].into(), w.command.clone().into());
    if let Some(t) = w.timeout {
        h.insert(f.timeout_key.into(), t.into());
    }
    for (k, v) in &w.entry {
        h.insert(k.clone(), v.clone());
    }
    Value::Object(h)
}

pub(super) fn update_handler(handler: &mut Value, w: &WantedHook, f: &Fields, with_matcher: bool) {
    let Some(obj) = handler.as_object_mut() else {
        return;
    };
    if f.typed {
        set(obj, "type", "command".into());
    }
    if with_matcher {
        set_matcher(obj, &w.matcher);
    }
    // The command goes where guard's command was (e.g. Copilot's `command` or `bash`).
    let key = f
        .command_keys
        .iter()
        .find(|k| obj.get(**k).is_some_and(Value::is_string))
        .unwrap_or(&f.command_keys[0]);
    set(obj, key, w.command.clone().into());
    if let Some(t) = w.timeout {
        set(obj, f.timeout_key, t.into());
    }
    for (k, v) in &w.entry {
        set(obj, k, v.clone());
    }
}

pub(super) fn set_matcher(obj: &mut Map<String, Value>, matcher: &Option<String>) {
    match matcher {
        Some(m) => set(obj, "matcher", m.clone().into()),
        None => {
            obj.shift_remove("matcher");
        }
    }
}
