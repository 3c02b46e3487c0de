//! The `kiro-hooks` format: Kiro's `.kiro/hooks/<name>.json`, one list of
//! named hooks that each name their event (`trigger`), rather than a map of
//! events. guard's entries are the ones whose `action.command` runs guard;
//! everything else in the file is left as it is, as in [`super::edit`].

use super::edit::{FoundHook, GuardCommand, ShapeError, WantedHook};
use serde_json::{Map, Value};

fn command_of<'a>(hook: &'a Value, guard: &GuardCommand) -> Option<&'a str> {
    hook.get("action")?
        .get("command")?
        .as_str()
        .filter(|c| guard.matches(c))
}

fn trigger_of(hook: &Value) -> Option<&str> {
    hook.get("trigger")?.as_str()
}

fn hooks_mut(root: &mut Map<String, Value>) -> Result<&mut Vec<Value>, ShapeError> {
    root.entry("hooks")
        .or_insert_with(|| Value::Array(Vec::new()))
        .as_array_mut()
        .ok_or(ShapeError {
            path: "hooks".into(),
            expected: "an array",
        })
}

fn set(obj: &mut Map<String, Value>, key: &str, value: Value) {
    if obj.get(key) != Some(&value) {
        obj.insert(key.to_string(), value);
    }
}

/// Fills guard's entry for `w` (a new one, or the one found).
fn fill(hook: &mut Map<String, Value>, w: &WantedHook) {
    if !hook.contains_key("name") {
        hook.insert("name".into(), format!("guard-{}", w.event).into());
    }
    set(hook, "trigger", w.event.clone().into());
    match &w.matcher {
        Some(m) => set(hook, "matcher", m.clone().into()),
        None => {
            hook.shift_remove("matcher");
        }
    }
    let action = hook
        .entry("action")
        .or_insert_with(|| Value::Object(Map::new()));
    if let Some(action) = action.as_object_mut() {
        set(action, "type", "command".into());
        set(action, "command", w.command.clone().into());
    }
    if let Some(t) = w.timeout {
        set(hook, "timeout", t.into());
    }
    for (k, v) in &w.entry {
        set(hook, k, v.clone());
    }
}

/// Adds or updates guard's hooks; other hooks stay as they are.
pub fn install(
    root: &mut Map<String, Value>,
    wanted: &[WantedHook],
    guard: &GuardCommand,
) -> Result<(), ShapeError> {
    if !root.contains_key("version") {
        root.insert("version".into(), "v1".into());
    }
    let hooks = hooks_mut(root)?;
    for w in wanted {
        let mine = |h: &Value| command_of(h, guard).is_some() && trigger_of(h) == Some(&w.event);
        let own = hooks.iter().position(mine);
        let mut index = 0;
        hooks.retain(|h| {
            let keep = !mine(h) || Some(index) == own;
            index += 1;
            keep
        });
        match hooks.iter_mut().find(|h| mine(h)) {
            Some(Value::Object(hook)) => fill(hook, w),
            _ => {
                let mut hook = Map::new();
                fill(&mut hook, w);
                hooks.push(Value::Object(hook));
            }
        }
    }
    Ok(())
}

/// Removes guard's hooks (and the `hooks` list when that emptied it);
/// returns how many were removed.
pub fn uninstall(root: &mut Map<String, Value>, guard: &GuardCommand) -> usize {
    let Some(hooks) = root.get_mut("hooks").and_then(Value::as_array_mut) else {
        return 0;
    };
    let before = hooks.len();
    hooks.retain(|h| command_of(h, guard).is_none());
    let removed = before - hooks.len();
    if removed > 0 && hooks.is_empty() {
        root.shift_remove("hooks");
    }
    removed
}

/// guard's hooks in the file.
pub fn find(root: &Map<String, Value>, guard: &GuardCommand) -> Vec<FoundHook> {
    let hooks = root.get("hooks").and_then(Value::as_array);
    hooks
        .into_iter()
        .flatten()
        .filter_map(|h| {
            let command = command_of(h, guard)?;
            Some(FoundHook {
                event: trigger_of(h).unwrap_or_default().to_string(),
                matcher: h.get("matcher").and_then(Value::as_str).map(str::to_string),
                command: command.to_string(),
                timeout: h.get("timeout").and_then(Value::as_u64),
                entry: h.as_object().cloned().unwrap_or_default(),
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// Installs guard's PreToolUse hook into `root`.
    fn install_pre_tool_use(root: &mut Map<String, Value>) -> Result<(), ShapeError> {
        let w = WantedHook {
            event: "PreToolUse".into(),
            command: "/g/guard hook kiro".into(),
            timeout: Some(18),
            ..Default::default()
        };
        install(root, &[w], &GuardCommand::new(&[]))
    }

    #[test]
    fn guard_hooks_are_merged_beside_the_users_and_removed_alone() {
        let user = json!({"name": "lint", "trigger": "PostFileSave", "action": {"type": "command", "command": "npm run lint"}});
        let mut root = json!({"version": "v1", "hooks": [user.clone(),
            {"name": "old", "trigger": "PreToolUse", "action": {"type": "command", "command": "/old/guard hook kiro"}, "enabled": true},
            {"name": "dup", "trigger": "PreToolUse", "action": {"type": "command", "command": "/older/guard hook kiro"}}]})
        .as_object()
        .unwrap()
        .clone();
        let guard = GuardCommand::new(&[]);
        install_pre_tool_use(&mut root).unwrap();
        assert_eq!(
            Value::Object(root.clone()),
            json!({"version": "v1", "hooks": [user.clone(),
                {"name": "old", "trigger": "PreToolUse", "action": {"type": "command", "command": "/g/guard hook kiro"}, "enabled": true, "timeout": 18}]})
        );
        let found = find(&root, &guard);
        assert_eq!(
            (found.len(), found[0].event.as_str(), found[0].timeout),
            (1, "PreToolUse", Some(18))
        );
        assert_eq!(uninstall(&mut root, &guard), 1);
        assert_eq!(
            Value::Object(root),
            json!({"version": "v1", "hooks": [user]})
        );
    }

    #[test]
    fn a_new_file_gets_the_documented_shape() {
        let mut root = Map::new();
        install_pre_tool_use(&mut root).unwrap();
        assert_eq!(
            Value::Object(root),
            json!({"version": "v1", "hooks": [{"name": "guard-PreToolUse", "trigger": "PreToolUse",
                "action": {"type": "command", "command": "/g/guard hook kiro"}, "timeout": 18}]})
        );
    }

    #[test]
    fn hooks_that_are_not_a_list_are_refused() {
        let mut root = json!({"hooks": {"PreToolUse": []}})
            .as_object()
            .unwrap()
            .clone();
        let err = install_pre_tool_use(&mut root).unwrap_err();
        assert_eq!(err.path, "hooks");
    }
}
