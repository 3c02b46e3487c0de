//! Generators of hostile input for the security property tests: arbitrary
//! JSON, and hook payloads shaped like every agent's with hostile values.

use proptest::prelude::*;
use serde_json::{json, Map, Value};

/// Any JSON value, a few levels deep, strings included.
pub fn any_json() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(|n| json!(n)),
        any::<f64>().prop_map(|f| json!(f)),
        hostile_string().prop_map(Value::String),
    ];
    leaf.prop_recursive(4, 32, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            prop::collection::vec((hostile_string(), inner), 0..6)
                .prop_map(|kv| Value::Object(kv.into_iter().collect::<Map<_, _>>())),
        ]
    })
}

/// Strings an attacker would try: control characters, quotes, braces,
/// template markers, long runs, non-ASCII.
pub fn hostile_string() -> impl Strategy<Value = String> {
    prop_oneof![
        ".{0,40}",
        "[\\x00-\\x1f\"\\\\{}]{0,20}",
        Just("{reason}{native_event}{detectors}{system_message}".to_string()),
        Just("ship it now; git push --force origin main".to_string()),
        (1usize..20_000).prop_map(|n| "é".repeat(n)),
        "[a-z]{1,8}",
    ]
}

/// Paths a payload may name as its transcript.
pub fn hostile_path() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(json!("/dev/zero")),
        Just(json!("/dev/null")),
        Just(json!("/nonexistent/t.jsonl")),
        Just(json!("/")),
        Just(json!("")),
        Just(json!("/proc/self/mem")),
        any_json(),
    ]
}

/// The native event names of every built-in adapter, and some that are not.
pub fn native_event() -> impl Strategy<Value = Value> {
    prop_oneof![
        prop::sample::select(vec![
            "Stop",
            "SubagentStop",
            "PreToolUse",
            "PostToolUse",
            "UserPromptSubmit",
            "PermissionRequest",
            "SessionStart",
            "SessionEnd",
            "BeforeTool",
            "AfterTool",
            "AfterAgent",
            "stop",
            "pre_tool",
            "agent-turn-complete",
        ])
        .prop_map(|s| json!(s)),
        any_json(),
    ]
}

/// A payload shaped like an agent's, each field hostile or of a wrong type.
pub fn hook_payload() -> impl Strategy<Value = Value> {
    (
        native_event(),
        prop::option::of(any_json()),
        hostile_path(),
        prop::option::of(hostile_string()),
        prop::option::of(any_json()),
        prop::option::of(any_json()),
        prop::option::of(any_json()),
        prop::option::of(any_json()),
    )
        .prop_map(
            |(event, session, transcript, text, tool_input, active, cwd, extra)| {
                let mut p = Map::new();
                p.insert("hook_event_name".into(), event.clone());
                p.insert("type".into(), event);
                if let Some(s) = session {
                    p.insert("session_id".into(), s);
                }
                p.insert("transcript_path".into(), transcript);
                if let Some(t) = text {
                    p.insert("last_assistant_message".into(), json!(t.clone()));
                    p.insert("prompt_response".into(), json!(t));
                }
                if let Some(ti) = tool_input {
                    p.insert("tool_name".into(), json!("Bash"));
                    p.insert("tool_input".into(), ti);
                }
                if let Some(a) = active {
                    p.insert("stop_hook_active".into(), a);
                }
                p.insert("cwd".into(), cwd.unwrap_or(json!("/tmp")));
                if let Some(e) = extra {
                    p.insert("turn_id".into(), e);
                }
                Value::Object(p)
            },
        )
}
