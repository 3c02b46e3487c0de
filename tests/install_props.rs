//! Property tests of `guard install` / `guard uninstall` as a subprocess,
//! over generated settings files (other tools' hooks under the same events,
//! unknown keys, nested objects, any indentation): install then uninstall
//! gives back the original bytes, install twice equals install once, and a
//! malformed file is left byte-for-byte.

#[path = "install_common/mod.rs"]
mod common;

use common::{files_containing, Sandbox};
use proptest::prelude::*;
use serde_json::{Map, Value};
use std::fs;

fn leaf() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        any::<i32>().prop_map(Value::from),
        "[ -~é/\"\\\\]{0,10}".prop_map(Value::from)
    ]
}

fn json_value() -> impl Strategy<Value = Value> {
    leaf().prop_recursive(3, 16, 3, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..3).prop_map(Value::Array),
            prop::collection::vec(("[a-zA-Z_]{1,6}", inner), 0..3)
                .prop_map(|kv| Value::Object(kv.into_iter().collect())),
        ]
    })
}

fn handler() -> impl Strategy<Value = Value> {
    ("[a-z]{1,6}( --[a-z]{1,3})?", prop::option::of(1u64..900)).prop_map(|(command, timeout)| {
        let mut h = Map::new();
        h.insert("type".into(), "command".into());
        h.insert("command".into(), command.into());
        if let Some(t) = timeout {
            h.insert("timeout".into(), t.into());
        }
        Value::Object(h)
    })
}

fn settings() -> impl Strategy<Value = Value> {
    let group = (
        prop::option::of("\\*|Bash"),
        prop::collection::vec(handler(), 0..3),
    )
        .prop_map(|(m, hs)| {
            let mut g = Map::new();
            if let Some(m) = m {
                g.insert("matcher".into(), m.into());
            }
            g.insert("hooks".into(), Value::Array(hs));
            Value::Object(g)
        });
    let event = prop_oneof![
        Just("Stop"),
        Just("PreToolUse"),
        Just("SubagentStop"),
        Just("Notification")
    ];
    let hooks =
        prop::collection::vec((event, prop::collection::vec(group, 0..3)), 0..4).prop_map(|evs| {
            Value::Object(
                evs.into_iter()
                    .map(|(e, g)| (e.to_string(), Value::Array(g)))
                    .collect(),
            )
        });
    (
        prop::collection::vec(("[a-zA-Z]{1,8}", json_value()), 0..4),
        prop::option::of(hooks),
    )
        .prop_map(|(keys, hooks)| {
            let mut root: Map<String, Value> =
                keys.into_iter().filter(|(k, _)| k != "hooks").collect();
            if let Some(h) = hooks {
                root.insert("hooks".into(), h);
            }
            Value::Object(root)
        })
}

/// The value as text in one of the layouts people use.
fn layout(value: &Value, style: u8, newline: bool) -> String {
    let mut text = match style % 4 {
        0 => serde_json::to_string(value).unwrap(),
        1 => serde_json::to_string_pretty(value).unwrap(),
        n => {
            let indent: &[u8] = if n == 2 { b"    " } else { b"\t" };
            let mut buf = Vec::new();
            let mut ser = serde_json::Serializer::with_formatter(
                &mut buf,
                serde_json::ser::PrettyFormatter::with_indent(indent),
            );
            serde::Serialize::serialize(value, &mut ser).unwrap();
            String::from_utf8(buf).unwrap()
        }
    };
    if newline {
        text.push('\n');
    }
    text
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, .. ProptestConfig::default() })]

    #[test]
    fn install_then_uninstall_gives_back_the_original(value in settings(), style in any::<u8>(), newline in any::<bool>(), codex in any::<bool>()) {
        let sb = Sandbox::new();
        let (agent, path) = if codex { ("codex", sb.codex_hooks()) } else { ("claude-code", sb.claude_settings()) };
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        let original = layout(&value, style, newline);
        fs::write(&path, &original).unwrap();
        sb.ok(&["install", "--agent", agent]);
        let once = fs::read(&path).unwrap();
        sb.ok(&["install", "--agent", agent]);
        prop_assert_eq!(&fs::read(&path).unwrap(), &once, "install twice = install once");
        let installed: Value = serde_json::from_slice(&once).unwrap();
        let mut stripped = installed.clone();
        for event in ["Stop", "PreToolUse", "SubagentStop"] {
            let groups = stripped["hooks"][event].as_array_mut().unwrap();
            let guard = groups.pop().unwrap();
            let suffix = format!(" hook {agent}");
            prop_assert!(guard["hooks"][0]["command"].as_str().unwrap().ends_with(&suffix));
        }
        sb.ok(&["uninstall", "--agent", agent]);
        prop_assert_eq!(fs::read_to_string(&path).unwrap(), original);
        prop_assert!(files_containing(path.parent().unwrap(), "guard").is_empty());
    }

    #[test]
    fn malformed_files_are_left_byte_for_byte(value in settings(), cut in any::<prop::sample::Index>(), style in any::<u8>()) {
        let sb = Sandbox::new();
        let path = sb.claude_settings();
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        let full = layout(&value, style, false);
        let chars: Vec<char> = full.chars().collect();
        let broken: String = chars[..cut.index(chars.len())].iter().collect();
        prop_assume!(!broken.trim().is_empty());
        fs::write(&path, &broken).unwrap();
        for verb in ["install", "uninstall"] {
            let out = sb.run(&[verb, "--agent", "claude-code"]);
            prop_assert_eq!(out.status.code(), Some(1));
            prop_assert!(String::from_utf8_lossy(&out.stderr).contains("settings.json:"));
            prop_assert_eq!(&fs::read_to_string(&path).unwrap(), &broken);
        }
        prop_assert!(files_containing(path.parent().unwrap(), "guard").is_empty());
    }
}
