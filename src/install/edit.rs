//! Adding, finding and removing guard's hook entries in a parsed settings
//! file, for each hook format. Everything else in the file is left as it
//! is: other keys, other tools' hooks (even in the same group), key order.
//!
//! Guard's entries are recognised by their command ([`GuardCommand`]),
//! so a re-install after the binary moved replaces the old entry.

pub use super::command::{shell_quote, GuardCommand};
use super::spec::HookFormat;
use serde_json::{Map, Value};

#[path = "edit_handler.rs"]
mod handler;
use handler::{
    fields, handler_command, is_guard_handler, new_handler, set, set_matcher, update_handler,
    Fields,
};

/// The settings file has a shape guard does not know how to change safely.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unexpected shape at `{path}`: expected {expected}")]
pub struct ShapeError {
    /// Dotted path of the offending value.
    pub path: String,
    /// What guard expected there.
    pub expected: &'static str,
}

/// One hook entry guard wants in the file.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct WantedHook {
    /// The agent's native event name.
    pub event: String,
    /// The matcher to write, if any.
    pub matcher: Option<String>,
    /// The command line (`'/path/guard' hook <agent>`).
    pub command: String,
    /// The timeout, in the agent's unit (none for agents without one).
    pub timeout: Option<u64>,
    /// Other keys of guard's entry (its fail-closed switch, …).
    pub entry: Map<String, Value>,
    /// Keys of guard's group (nested formats).
    pub group: Map<String, Value>,
}

/// A guard entry found in a file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FoundHook {
    /// The native event it is under.
    pub event: String,
    /// Its matcher (the group's, or the entry's).
    pub matcher: Option<String>,
    /// Its command line.
    pub command: String,
    /// Its timeout, when it is a whole number.
    pub timeout: Option<u64>,
    /// The entry itself (the handler object), for checks of its other keys.
    pub entry: Map<String, Value>,
}

/// The event map: the root itself, or its `hooks` object, created when absent.
fn hooks_mut<'a>(
    root: &'a mut Map<String, Value>,
    f: &Fields,
) -> Result<&'a mut Map<String, Value>, ShapeError> {
    if f.top_level {
        return Ok(root);
    }
    root.entry("hooks")
        .or_insert_with(|| Value::Object(Map::new()))
        .as_object_mut()
        .ok_or(ShapeError {
            path: "hooks".into(),
            expected: "an object",
        })
}

/// Handlers of a nested group, when it has the expected shape.
fn group_handlers(group: &Value) -> Option<&Vec<Value>> {
    group.as_object()?.get("hooks")?.as_array()
}

/// Removes guard's handlers from a nested group; whether any was removed.
fn strip_group(group: &mut Value, f: &Fields, guard: &GuardCommand) -> bool {
    let Some(handlers) = group
        .as_object_mut()
        .and_then(|g| g.get_mut("hooks"))
        .and_then(Value::as_array_mut)
    else {
        return false;
    };
    let before = handlers.len();
    handlers.retain(|h| !is_guard_handler(h, f, guard));
    handlers.len() != before
}

/// Removes guard's entries from one event's array (except the one at
/// `keep`); entries or groups emptied by the removal go too.
fn strip_event(
    items: &mut Vec<Value>,
    keep: Option<usize>,
    f: &Fields,
    guard: &GuardCommand,
) -> usize {
    let mut removed = 0;
    let old = std::mem::take(items);
    for (i, mut item) in old.into_iter().enumerate() {
        if Some(i) == keep {
            items.push(item);
        } else if f.nested {
            let before = group_handlers(&item).map_or(0, Vec::len);
            if strip_group(&mut item, f, guard) {
                let after = group_handlers(&item).map_or(0, Vec::len);
                removed += before - after;
                if after == 0 {
                    continue;
                }
            }
            items.push(item);
        } else if is_guard_handler(&item, f, guard) {
            removed += 1;
        } else {
            items.push(item);
        }
    }
    removed
}

fn install_event(
    hooks: &mut Map<String, Value>,
    w: &WantedHook,
    f: &Fields,
    guard: &GuardCommand,
) -> Result<(), ShapeError> {
    let items = hooks
        .entry(w.event.clone())
        .or_insert_with(|| Value::Array(Vec::new()))
        .as_array_mut()
        .ok_or_else(|| ShapeError {
            path: format!("hooks.{}", w.event),
            expected: "an array",
        })?;
    if f.nested {
        // Guard's own group: the first whose handlers are all guard's.
        let own = items.iter().position(|g| {
            group_handlers(g).is_some_and(|hs| {
                !hs.is_empty() && hs.iter().all(|h| is_guard_handler(h, f, guard))
            })
        });
        strip_event(items, own, f, guard);
        match own {
            Some(_) => {
                let index = items.iter().position(|g| {
                    group_handlers(g).is_some_and(|hs| {
                        hs.iter().all(|h| is_guard_handler(h, f, guard)) && !hs.is_empty()
                    })
                });
                if let Some(group) = index.and_then(|i| items[i].as_object_mut()) {
                    set_matcher(group, &w.matcher);
                    for (k, v) in &w.group {
                        set(group, k, v.clone());
                    }
                    if let Some(handlers) = group.get_mut("hooks").and_then(Value::as_array_mut) {
                        handlers.truncate(1);
                        update_handler(&mut handlers[0], w, f, false);
                    }
                }
            }
            None => {
                let mut group = Map::new();
                if let Some(m) = &w.matcher {
                    group.insert("matcher".into(), m.clone().into());
                }
                group.insert("hooks".into(), Value::Array(vec![new_handler(w, f, false)]));
                for (k, v) in &w.group {
                    group.insert(k.clone(), v.clone());
                }
                items.push(Value::Object(group));
            }
        }
    } else {
        let own = items.iter().position(|h| is_guard_handler(h, f, guard));
        strip_event(items, own, f, guard);
        match own {
            Some(_) => {
                if let Some(h) = items.iter_mut().find(|h| is_guard_handler(h, f, guard)) {
                    update_handler(h, w, f, true);
                }
            }
            None => items.push(new_handler(w, f, true)),
        }
    }
    Ok(())
}

/// Makes sure every leaf of `extra` is set in `root` (objects merged).
fn ensure_extra(
    root: &mut Map<String, Value>,
    extra: &Map<String, Value>,
    prefix: &str,
) -> Result<(), ShapeError> {
    for (key, want) in extra {
        let path = if prefix.is_empty() {
            key.clone()
        } else {
            format!("{prefix}.{key}")
        };
        match (root.get_mut(key), want) {
            (Some(Value::Object(have)), Value::Object(want)) => ensure_extra(have, want, &path)?,
            (Some(_), Value::Object(_)) => {
                return Err(ShapeError {
                    path,
                    expected: "an object",
                })
            }
            (Some(have), want) => {
                if have != want {
                    *have = want.clone();
                }
            }
            (None, want) => {
                root.insert(key.clone(), want.clone());
            }
        }
    }
    Ok(())
}

/// Adds or updates guard's entries; other tools' entries stay as they are.
pub fn install(
    root: &mut Map<String, Value>,
    format: HookFormat,
    wanted: &[WantedHook],
    extra: Option<&Value>,
    guard: &GuardCommand,
) -> Result<(), ShapeError> {
    if format == HookFormat::KiroHooks {
        return super::kiro::install(root, wanted, guard);
    }
    let f = fields(format);
    if f.versioned && !root.contains_key("version") {
        root.insert("version".into(), 1.into());
    }
    if f.top_level {
        // Entries an older guard wrote under a `hooks` key, which the agent
        // never read: the new ones replace them.
        uninstall(root, HookFormat::ClaudeHooks, guard);
    }
    let hooks = hooks_mut(root, &f)?;
    for w in wanted {
        install_event(hooks, w, &f, guard)?;
    }
    if let Some(Value::Object(extra)) = extra {
        ensure_extra(root, extra, "")?;
    }
    Ok(())
}

/// Removes guard's entries under every event, and the groups, arrays and
/// `hooks` object the removal emptied; returns how many were removed.
pub fn uninstall(root: &mut Map<String, Value>, format: HookFormat, guard: &GuardCommand) -> usize {
    if format == HookFormat::KiroHooks {
        return super::kiro::uninstall(root, guard);
    }
    let f = fields(format);
    let mut removed = 0;
    if f.top_level {
        // And those an older guard wrote under a `hooks` key.
        removed += uninstall(root, HookFormat::ClaudeHooks, guard);
    }
    let hooks = if f.top_level {
        &mut *root
    } else {
        match root.get_mut("hooks").and_then(Value::as_object_mut) {
            Some(hooks) => hooks,
            None => return 0,
        }
    };
    let mut emptied = Vec::new();
    for (event, items) in hooks.iter_mut() {
        if let Some(items) = items.as_array_mut() {
            let n = strip_event(items, None, &f, guard);
            if n > 0 && items.is_empty() {
                emptied.push(event.clone());
            }
            removed += n;
        }
    }
    for event in emptied {
        hooks.shift_remove(&event);
    }
    if removed > 0 && hooks.is_empty() && !f.top_level {
        root.shift_remove("hooks");
    }
    removed
}

/// Guard's entries in the file.
pub fn find(root: &Map<String, Value>, format: HookFormat, guard: &GuardCommand) -> Vec<FoundHook> {
    if format == HookFormat::KiroHooks {
        return super::kiro::find(root, guard);
    }
    let f = fields(format);
    let mut out = Vec::new();
    let hooks = if f.top_level {
        root
    } else {
        match root.get("hooks").and_then(Value::as_object) {
            Some(hooks) => hooks,
            None => return out,
        }
    };
    let found = |h: &Value, matcher: Option<&Value>| {
        handler_command(h, &f, guard).map(|command| FoundHook {
            event: String::new(),
            matcher: matcher.and_then(Value::as_str).map(str::to_string),
            command: command.to_string(),
            timeout: h.get(f.timeout_key).and_then(Value::as_u64),
            entry: h.as_object().cloned().unwrap_or_default(),
        })
    };
    for (event, items) in hooks {
        for item in items.as_array().into_iter().flatten() {
            let hits: Vec<FoundHook> = if f.nested {
                group_handlers(item)
                    .into_iter()
                    .flatten()
                    .filter_map(|h| found(h, item.get("matcher")))
                    .collect()
            } else {
                found(item, item.get("matcher")).into_iter().collect()
            };
            out.extend(hits.into_iter().map(|h| FoundHook {
                event: event.clone(),
                ..h
            }));
        }
    }
    out
}

#[cfg(test)]
#[path = "edit_tests.rs"]
mod tests;
