//! Payload → [`Event`], driven by the adapter's field paths.

use super::{AdapterSpec, Detection};
use crate::event::{Event, EventKind, Tool};
use serde_json::Value;
use std::path::PathBuf;

/// A payload guard cannot read.
#[derive(Debug, Clone, thiserror::Error)]
pub enum ParseError {
    /// Not JSON at all, or not an object.
    #[error("the payload is not a JSON object: {0}")]
    NotAnObject(String),
    /// No event name where the adapter looks for one.
    #[error("the payload has no event name (looked at: {0})")]
    NoEventName(String),
}

/// The value at a dotted path (`tool_input.command`).
pub fn lookup<'a>(payload: &'a Value, path: &str) -> Option<&'a Value> {
    let mut v = payload;
    for part in path.split('.') {
        v = v.get(part)?;
    }
    (!v.is_null()).then_some(v)
}

fn first<'a>(payload: &'a Value, paths: &[String]) -> Option<&'a Value> {
    paths.iter().find_map(|p| lookup(payload, p))
}

fn string(payload: &Value, paths: &[String]) -> Option<String> {
    first(payload, paths).and_then(|v| match v {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        Value::Array(items) => items.first().and_then(Value::as_str).map(str::to_string),
        _ => None,
    })
}

/// Whether every `keys` path is present and every `absent` path is missing.
pub fn shape_matches(payload: &Value, keys: &[String], absent: &[String]) -> bool {
    keys.iter().all(|k| lookup(payload, k).is_some())
        && absent.iter().all(|k| lookup(payload, k).is_none())
}

/// The native event name of a payload, by the adapter's rules: the first
/// `event_field` path present, else the first `event_rules` shape that
/// matches, else `default_event`.
pub fn native_event(spec: &Detection, payload: &Value) -> Option<String> {
    first(payload, &spec.event_field)
        .and_then(Value::as_str)
        .map(str::to_string)
        .or_else(|| {
            spec.event_rules
                .iter()
                .find(|r| shape_matches(payload, &r.keys, &r.absent))
                .map(|r| r.event.clone())
        })
        .or_else(|| spec.default_event.clone())
}

/// Maps a native tool name to its canonical name.
pub fn canonical_tool(spec: &AdapterSpec, native: &str) -> String {
    if let Some(c) = spec.tools.get(native) {
        return c.clone();
    }
    for (pattern, canonical) in &spec.tools {
        if let Some(prefix) = pattern.strip_suffix('*') {
            if native.starts_with(prefix) {
                return canonical.clone();
            }
        }
    }
    native.to_lowercase()
}

/// Builds the event.
pub fn to_event(spec: &AdapterSpec, payload: Value) -> Result<Event, ParseError> {
    if !payload.is_object() {
        return Err(ParseError::NotAnObject(format!(
            "got {}",
            kind_name(&payload)
        )));
    }
    let native = native_event(&spec.detection, &payload)
        .ok_or_else(|| ParseError::NoEventName(spec.event_field.join(", ")))?;
    let kind = spec
        .events
        .get(&native)
        .copied()
        .unwrap_or(EventKind::Other);
    let f = &spec.fields;
    let mut event = Event::new(&spec.name, kind);
    event.native_event = native;
    event.session_id = string(&payload, &f.session_id);
    event.turn_id = string(&payload, &f.turn_id);
    event.cwd = string(&payload, &f.cwd).map(PathBuf::from);
    event.transcript_path = string(&payload, &f.transcript_path)
        .filter(|s| !s.is_empty())
        .map(PathBuf::from);
    event.text = string(&payload, &f.text);
    event.stop_hook_active = first(&payload, &f.stop_hook_active)
        .and_then(Value::as_bool)
        .unwrap_or(false);
    event.loop_count = first(&payload, &f.loop_count).and_then(Value::as_u64);
    event.prompt = string(&payload, &f.prompt);
    // An event that stands for one tool (Cursor's beforeMCPExecution) names
    // it; a command in such a payload is only a shell command for `shell`.
    let event_tool = spec.event_tools.get(&event.native_event);
    let reads_command = event_tool.is_none_or(|c| c == "shell");
    if let Some(native_tool) = string(&payload, &f.tool_name) {
        let input = match first(&payload, &f.tool_input) {
            Some(Value::String(s)) => {
                serde_json::from_str::<Value>(s).unwrap_or_else(|_| Value::String(s.clone()))
            }
            Some(v) => v.clone(),
            None => Value::Null,
        };
        let command = if reads_command {
            string(&payload, &f.command).or_else(|| {
                input
                    .get("command")
                    .and_then(Value::as_str)
                    .map(str::to_string)
            })
        } else {
            None
        };
        let canonical = event_tool
            .cloned()
            .unwrap_or_else(|| canonical_tool(spec, &native_tool));
        event.tool = Some(Tool {
            native_name: native_tool,
            canonical,
            input,
            command,
        });
    } else if let Some(command) = string(&payload, &f.command).filter(|_| reads_command) {
        // Agents with a dedicated shell event send the command without a tool name.
        event.tool = Some(Tool {
            native_name: "shell".into(),
            canonical: "shell".into(),
            input: Value::Null,
            command: Some(command),
        });
    }
    event.raw = payload;
    Ok(event)
}

fn kind_name(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}
