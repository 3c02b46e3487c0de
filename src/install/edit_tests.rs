use super::*;
use serde_json::json;

fn guard() -> GuardCommand {
    GuardCommand::new(&[])
}

fn wanted(event: &str, matcher: Option<&str>, command: &str, timeout: u64) -> WantedHook {
    WantedHook {
        event: event.into(),
        matcher: matcher.map(str::to_string),
        command: command.into(),
        timeout: Some(timeout),
        ..Default::default()
    }
}

fn fail_closed(w: WantedHook) -> WantedHook {
    WantedHook {
        entry: obj(json!({"onFailure": "block"})),
        ..w
    }
}

fn obj(v: Value) -> Map<String, Value> {
    v.as_object().unwrap().clone()
}

#[test]
fn claude_entries_have_the_documented_shape() {
    let mut root = Map::new();
    let w = [
        wanted("Stop", None, "/g/guard hook claude-code", 30),
        wanted("PreToolUse", Some("*"), "/g/guard hook claude-code", 18),
    ];
    install(&mut root, HookFormat::ClaudeHooks, &w, None, &guard()).unwrap();
    assert_eq!(
        Value::Object(root),
        json!({"hooks": {
            "Stop": [{"hooks": [{"type": "command", "command": "/g/guard hook claude-code", "timeout": 30}]}],
            "PreToolUse": [{"matcher": "*", "hooks": [{"type": "command", "command": "/g/guard hook claude-code", "timeout": 18}]}]
        }})
    );
}

#[test]
fn other_tools_hooks_in_the_same_group_stay_and_moved_binary_is_replaced() {
    let mut root = obj(json!({"hooks": {"Stop": [
        {"hooks": [{"type": "command", "command": "notify-send done"}, {"type": "command", "command": "/old/guard hook claude-code", "timeout": 5}]},
        {"hooks": [{"type": "command", "command": "/older/guard hook claude-code"}]}
    ]}}));
    install(
        &mut root,
        HookFormat::ClaudeHooks,
        &[wanted("Stop", None, "/new/guard hook claude-code", 30)],
        None,
        &guard(),
    )
    .unwrap();
    assert_eq!(
        Value::Object(root),
        json!({"hooks": {"Stop": [
            {"hooks": [{"type": "command", "command": "notify-send done"}]},
            {"hooks": [{"type": "command", "command": "/new/guard hook claude-code", "timeout": 30}]}
        ]}})
    );
}

#[test]
fn own_group_is_updated_in_place_keeping_user_added_keys() {
    let mut root = obj(json!({"hooks": {"PreToolUse": [
        {"matcher": "Bash", "hooks": [{"type": "command", "command": "/old/guard hook claude-code", "statusMessage": "judging", "timeout": 1}]},
        {"matcher": "Edit", "hooks": [{"type": "command", "command": "lint"}]}
    ]}}));
    install(
        &mut root,
        HookFormat::ClaudeHooks,
        &[wanted(
            "PreToolUse",
            Some("*"),
            "/g/guard hook claude-code",
            18,
        )],
        None,
        &guard(),
    )
    .unwrap();
    assert_eq!(
        Value::Object(root),
        json!({"hooks": {"PreToolUse": [
            {"matcher": "*", "hooks": [{"type": "command", "command": "/g/guard hook claude-code", "statusMessage": "judging", "timeout": 18}]},
            {"matcher": "Edit", "hooks": [{"type": "command", "command": "lint"}]}
        ]}})
    );
}

#[test]
fn uninstall_removes_only_what_it_emptied() {
    let mut root = obj(json!({"hooks": {
        "Stop": [{"hooks": [{"type": "command", "command": "/g/guard hook codex"}]}],
        "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "/g/guard hook codex"}, {"type": "command", "command": "other"}]}],
        "SessionStart": []
    }, "model": "x"}));
    assert_eq!(uninstall(&mut root, HookFormat::ClaudeHooks, &guard()), 2);
    assert_eq!(
        Value::Object(root),
        json!({"hooks": {
            "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "other"}]}],
            "SessionStart": []
        }, "model": "x"})
    );
    let mut only_guard =
        obj(json!({"a": 1, "hooks": {"Stop": [{"hooks": [{"command": "guard hook x"}]}]}}));
    uninstall(&mut only_guard, HookFormat::ClaudeHooks, &guard());
    assert_eq!(Value::Object(only_guard), json!({"a": 1}));
    let mut untouched = obj(json!({"hooks": {}}));
    assert_eq!(
        uninstall(&mut untouched, HookFormat::ClaudeHooks, &guard()),
        0
    );
    assert_eq!(Value::Object(untouched), json!({"hooks": {}}));
}

#[test]
fn cursor_and_copilot_entries_are_flat_and_versioned() {
    let mut cursor = Map::new();
    install(
        &mut cursor,
        HookFormat::CursorHooks,
        &[wanted("stop", None, "/g/guard hook cursor", 30)],
        None,
        &guard(),
    )
    .unwrap();
    assert_eq!(
        Value::Object(cursor.clone()),
        json!({"version": 1, "hooks": {"stop": [{"command": "/g/guard hook cursor", "timeout": 30}]}})
    );
    uninstall(&mut cursor, HookFormat::CursorHooks, &guard());
    assert_eq!(Value::Object(cursor), json!({"version": 1}));

    let mut copilot = obj(
        json!({"version": 1, "hooks": {"agentStop": [{"type": "command", "bash": "./mine.sh"}]}}),
    );
    let w = [
        wanted("agentStop", None, "/g/guard hook copilot", 30),
        wanted("preToolUse", None, "/g/guard hook copilot", 18),
    ];
    install(&mut copilot, HookFormat::CopilotHooks, &w, None, &guard()).unwrap();
    assert_eq!(
        Value::Object(copilot.clone()),
        json!({"version": 1, "hooks": {
            "agentStop": [{"type": "command", "bash": "./mine.sh"}, {"type": "command", "bash": "/g/guard hook copilot", "timeoutSec": 30}],
            "preToolUse": [{"type": "command", "bash": "/g/guard hook copilot", "timeoutSec": 18}]
        }})
    );
    let found = find(&copilot, HookFormat::CopilotHooks, &guard());
    assert_eq!(found.len(), 2);
    assert_eq!(found[0].timeout, Some(30));
}

#[test]
fn extra_keys_are_merged_not_replaced() {
    let mut root = obj(json!({"hooksConfig": {"disabled": ["x"], "enabled": false}}));
    let extra = json!({"hooksConfig": {"enabled": true}});
    install(
        &mut root,
        HookFormat::ClaudeHooks,
        &[],
        Some(&extra),
        &guard(),
    )
    .unwrap();
    assert_eq!(
        Value::Object(root),
        json!({"hooksConfig": {"disabled": ["x"], "enabled": true}, "hooks": {}})
    );
    let mut wrong = obj(json!({"hooksConfig": true}));
    assert!(install(
        &mut wrong,
        HookFormat::ClaudeHooks,
        &[],
        Some(&extra),
        &guard()
    )
    .is_err());
}

#[test]
fn unexpected_shapes_are_refused() {
    let mut root = obj(json!({"hooks": []}));
    let err = install(
        &mut root,
        HookFormat::ClaudeHooks,
        &[wanted("Stop", None, "guard hook x", 1)],
        None,
        &guard(),
    )
    .unwrap_err();
    assert_eq!(err.path, "hooks");
    let mut root = obj(json!({"hooks": {"Stop": {}}}));
    assert!(install(
        &mut root,
        HookFormat::ClaudeHooks,
        &[wanted("Stop", None, "guard hook x", 1)],
        None,
        &guard()
    )
    .is_err());
}

#[test]
fn entry_keys_are_written_kept_and_restored_on_reinstall() {
    let gate = fail_closed(wanted(
        "PreToolUse",
        Some("*"),
        "/g/guard hook claude-code",
        18,
    ));
    let stop = wanted("Stop", None, "/g/guard hook claude-code", 30);
    let mut root = Map::new();
    install(
        &mut root,
        HookFormat::ClaudeHooks,
        &[stop.clone(), gate.clone()],
        None,
        &guard(),
    )
    .unwrap();
    assert_eq!(
        Value::Object(root.clone()),
        json!({"hooks": {
            "Stop": [{"hooks": [{"type": "command", "command": "/g/guard hook claude-code", "timeout": 30}]}],
            "PreToolUse": [{"matcher": "*", "hooks": [{"type": "command", "command": "/g/guard hook claude-code", "timeout": 18, "onFailure": "block"}]}]
        }})
    );
    let found = find(&root, HookFormat::ClaudeHooks, &guard());
    assert_eq!(found[1].entry["onFailure"], "block");
    // The user turned the switch off and added a key of their own: a
    // re-install turns it back on and keeps their key.
    let entry = &mut root["hooks"]["PreToolUse"][0]["hooks"][0];
    entry["onFailure"] = json!("continue");
    entry["statusMessage"] = json!("judging");
    install(
        &mut root,
        HookFormat::ClaudeHooks,
        &[stop, gate],
        None,
        &guard(),
    )
    .unwrap();
    assert_eq!(
        root["hooks"]["PreToolUse"][0]["hooks"][0],
        json!({"type": "command", "command": "/g/guard hook claude-code", "timeout": 18, "onFailure": "block", "statusMessage": "judging"})
    );
    assert_eq!(uninstall(&mut root, HookFormat::ClaudeHooks, &guard()), 2);
    assert_eq!(Value::Object(root), json!({}));
}

#[test]
fn top_level_event_maps_are_edited_in_place() {
    let mut root = obj(
        json!({"hooksDisabled": false, "Stop": [{"hooks": [{"type": "command", "command": "notify-send done"}]}]}),
    );
    let w = [
        wanted("Stop", None, "/g/guard hook droid", 30),
        wanted("PreToolUse", Some("*"), "/g/guard hook droid", 18),
    ];
    install(
        &mut root,
        HookFormat::ClaudeHooksTopLevel,
        &w,
        None,
        &guard(),
    )
    .unwrap();
    assert_eq!(
        Value::Object(root.clone()),
        json!({"hooksDisabled": false,
            "Stop": [{"hooks": [{"type": "command", "command": "notify-send done"}]},
                     {"hooks": [{"type": "command", "command": "/g/guard hook droid", "timeout": 30}]}],
            "PreToolUse": [{"matcher": "*", "hooks": [{"type": "command", "command": "/g/guard hook droid", "timeout": 18}]}]})
    );
    assert!(root.get("hooks").is_none());
    assert_eq!(
        find(&root, HookFormat::ClaudeHooksTopLevel, &guard()).len(),
        2
    );
    assert_eq!(
        uninstall(&mut root, HookFormat::ClaudeHooksTopLevel, &guard()),
        2
    );
    assert_eq!(
        Value::Object(root),
        json!({"hooksDisabled": false, "Stop": [{"hooks": [{"type": "command", "command": "notify-send done"}]}]})
    );
}

#[test]
fn entries_an_older_guard_nested_under_hooks_move_to_the_top_level() {
    let mut root = obj(json!({"hooks": {
        "Stop": [{"hooks": [{"type": "command", "command": "/g/guard hook droid", "timeout": 30}]}],
        "Notification": [{"hooks": [{"type": "command", "command": "notify-send"}]}]
    }}));
    let w = [wanted("Stop", None, "/g/guard hook droid", 30)];
    install(
        &mut root,
        HookFormat::ClaudeHooksTopLevel,
        &w,
        None,
        &guard(),
    )
    .unwrap();
    assert_eq!(
        Value::Object(root.clone()),
        json!({"hooks": {"Notification": [{"hooks": [{"type": "command", "command": "notify-send"}]}]},
            "Stop": [{"hooks": [{"type": "command", "command": "/g/guard hook droid", "timeout": 30}]}]})
    );
}
