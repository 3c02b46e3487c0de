//! `guard install` for the agents added as data (Goose, Crush, Auggie,
//! Devin CLI, Windsurf, Kiro, Antigravity) and the fail-closed switches
//! (Cursor's `failClosed`, Goose's `on_failure`): the exact entries written,
//! the user's own settings kept beside them, and uninstall giving back what
//! was there; `guard doctor` warning where an installed gate lacks its
//! switch.

#[path = "install_common/mod.rs"]
mod common;

use common::{guard_exe, Sandbox};
use serde_json::{json, Value};
use std::fs;
use std::path::PathBuf;

fn read(path: &PathBuf) -> Value {
    serde_json::from_str(&fs::read_to_string(path).unwrap()).unwrap()
}

fn command(agent: &str) -> String {
    format!("{} hook {agent}", guard_exe().display())
}

/// Installs `agent` over `before` (written at `rel` under HOME), checks the
/// result, then uninstalls and checks the original bytes are back.
fn round_trip(agent: &str, rel: &str, before: &Value, expected: Value) -> Sandbox {
    let sb = Sandbox::new();
    let path = sb.home().join(rel);
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    let original = serde_json::to_string_pretty(before).unwrap() + "\n";
    fs::write(&path, &original).unwrap();
    sb.ok(&["install", "--agent", agent]);
    assert_eq!(read(&path), expected, "{agent}: {}", path.display());
    sb.ok(&["install", "--agent", agent]);
    assert_eq!(
        read(&path),
        expected,
        "{agent}: a second install changes nothing"
    );
    sb.ok(&["uninstall", "--agent", agent]);
    assert_eq!(fs::read_to_string(&path).unwrap(), original, "{agent}");
    sb
}

#[test]
fn crush_gets_a_flat_named_entry_beside_the_users_hooks_and_settings() {
    let mine = json!({"matcher": "^bash$", "command": "./no-haskell.sh"});
    round_trip(
        "crush",
        ".config/crush/crush.json",
        &json!({"options": {"debug": true}, "hooks": {"PreToolUse": [mine.clone()]}}),
        json!({"options": {"debug": true}, "hooks": {"PreToolUse": [mine,
            {"command": command("crush"), "timeout": 18, "name": "guard"}]}}),
    );
}

#[test]
fn windsurf_gets_shown_output_and_no_timeout_field() {
    let entry = |_: ()| json!({"command": command("windsurf"), "show_output": true});
    round_trip(
        "windsurf",
        ".codeium/windsurf/hooks.json",
        &json!({"hooks": {"post_write_code": [{"command": "prettier -w"}]}}),
        json!({"hooks": {"post_write_code": [{"command": "prettier -w"}],
            "pre_run_command": [entry(())], "pre_mcp_tool_use": [entry(())]}}),
    );
}

#[test]
fn kiro_gets_a_named_pre_tool_use_hook_in_guards_own_file() {
    let lint = json!({"name": "lint", "trigger": "PostFileSave", "action": {"type": "command", "command": "npm run lint"}});
    round_trip(
        "kiro",
        ".kiro/hooks/guard.json",
        &json!({"version": "v1", "hooks": [lint.clone()]}),
        json!({"version": "v1", "hooks": [lint, {"name": "guard-PreToolUse", "trigger": "PreToolUse",
            "action": {"type": "command", "command": command("kiro")}, "timeout": 18}]}),
    );
}

#[test]
fn auggie_asks_for_the_conversation_on_stop_in_milliseconds() {
    let handler = |t: u64| json!({"type": "command", "command": command("auggie"), "timeout": t});
    round_trip(
        "auggie",
        ".augment/settings.json",
        &json!({"model": "x"}),
        json!({"model": "x", "hooks": {
            "Stop": [{"hooks": [handler(30000)], "metadata": {"includeConversationData": true}}],
            "PreToolUse": [{"hooks": [handler(18000)]}]}}),
    );
}

#[test]
fn devin_and_antigravity_get_claude_shaped_hooks() {
    let handler = |a: &str, t: u64| json!({"type": "command", "command": command(a), "timeout": t});
    round_trip(
        "devin",
        ".config/devin/config.json",
        &json!({"agent": {"model": "opus"}}),
        json!({"agent": {"model": "opus"}, "hooks": {
            "Stop": [{"hooks": [handler("devin", 30)]}],
            "PreToolUse": [{"hooks": [handler("devin", 18)]}]}}),
    );
    round_trip(
        "antigravity",
        ".gemini/config/hooks.json",
        &json!({}),
        json!({"hooks": {"PreToolUse": [{"hooks": [handler("antigravity", 18)]}]}}),
    );
}

#[test]
fn goose_gets_its_own_plugin_with_a_fail_closed_gate() {
    let sb = Sandbox::new();
    sb.ok(&["install", "--agent", "goose"]);
    let plugin = sb.home().join(".agents/plugins/guard");
    let hooks = read(&plugin.join("hooks/hooks.json"));
    let handler = |t: u64| json!({"type": "command", "command": command("goose"), "timeout": t});
    let mut gate = handler(18);
    gate["on_failure"] = json!("block");
    assert_eq!(
        hooks,
        json!({"hooks": {"Stop": [{"hooks": [handler(30)]}], "PreToolUse": [{"hooks": [gate]}]}})
    );
    let manifest = read(&plugin.join("plugin.json"));
    assert_eq!(manifest["name"], "guard");
    sb.ok(&["uninstall", "--agent", "goose"]);
    assert!(!plugin.join("hooks/hooks.json").exists());
    assert!(
        !plugin.join("plugin.json").exists(),
        "the manifest guard wrote goes with its hooks"
    );
}

#[test]
fn cursor_gates_fail_closed_and_the_doctor_warns_when_the_switch_is_gone() {
    let sb = Sandbox::new();
    let path = sb.home().join(".cursor/hooks.json");
    sb.ok(&["install", "--agent", "cursor"]);
    let hooks = read(&path);
    for gate in ["beforeShellExecution", "beforeMCPExecution"] {
        assert_eq!(hooks["hooks"][gate][0]["failClosed"], true, "{hooks}");
    }
    for observed in ["stop", "afterAgentResponse"] {
        assert!(
            hooks["hooks"][observed][0].get("failClosed").is_none(),
            "turn ends fail open: {hooks}"
        );
    }
    let fail_closed = |sb: &Sandbox| -> Vec<String> {
        let out = sb.run(&["doctor", "--json"]);
        let report: Value = serde_json::from_slice(&out.stdout).unwrap();
        report["findings"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|f| f["agent"] == "cursor" && f["check"] == "fail closed")
            .map(|f| format!("{} {}", f["status"], f["message"]))
            .collect()
    };
    assert!(fail_closed(&sb).is_empty(), "{:?}", fail_closed(&sb));
    let mut edited = hooks.clone();
    edited["hooks"]["beforeShellExecution"][0]
        .as_object_mut()
        .unwrap()
        .remove("failClosed");
    fs::write(&path, serde_json::to_string_pretty(&edited).unwrap()).unwrap();
    let warnings = fail_closed(&sb);
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    assert!(
        warnings[0].contains("\"warn\"") && warnings[0].contains("beforeShellExecution"),
        "{warnings:?}"
    );
    sb.ok(&["install", "--agent", "cursor"]);
    assert!(
        fail_closed(&sb).is_empty(),
        "a re-install restores the switch"
    );
}

#[test]
fn kimi_gets_a_hooks_table_in_its_toml_with_the_comments_kept() {
    let sb = Sandbox::new();
    let path = sb.home().join(".kimi-code/config.toml");
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    let original = "# my Kimi settings\ndefault_model = \"kimi-k2\" # the fast one\n\n[[hooks]]\nevent = \"Notification\"\ncommand = \"notify-send done\"\n";
    fs::write(&path, original).unwrap();
    sb.ok(&["install", "--agent", "kimi"]);
    let text = fs::read_to_string(&path).unwrap();
    assert!(text.starts_with(original), "{text}");
    let added = &text[original.len()..];
    assert_eq!(
        added,
        format!(
            "\n[[hooks]]\nevent = \"PreToolUse\"\ncommand = {:?}\ntimeout = 18\n",
            command("kimi")
        )
    );
    sb.ok(&["install", "--agent", "kimi"]);
    assert_eq!(fs::read_to_string(&path).unwrap(), text, "idempotent");
    let out = sb.run(&["doctor", "--json"]);
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    let wired = report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .any(|f| f["agent"] == "kimi" && f["check"] == "wired" && f["status"] == "ok");
    assert!(wired, "{report}");
    sb.ok(&["uninstall", "--agent", "kimi"]);
    assert_eq!(fs::read_to_string(&path).unwrap(), original);
    assert!(!path.with_extension("toml.guard-backup").exists());
}

#[test]
fn a_kimi_config_that_is_not_toml_is_refused_untouched() {
    let sb = Sandbox::new();
    let path = sb.home().join(".kimi-code/config.toml");
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(&path, "default_model = \n").unwrap();
    let out = sb.run(&["install", "--agent", "kimi"]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("config.toml:1:"), "{err}");
    assert_eq!(fs::read_to_string(&path).unwrap(), "default_model = \n");
}
