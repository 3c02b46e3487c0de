//! `guard install` / `guard uninstall` end to end, as a subprocess in a
//! throw-away HOME: exact files written, byte-for-byte round trips,
//! refusals that change nothing, dry runs, agent discovery, concurrency.

#[path = "install_common/mod.rs"]
mod common;

use common::{files_containing, guard_exe, Sandbox};
use std::fs;
use std::os::unix::fs::PermissionsExt;

const CLAUDE_GOLDEN: &str = r#"{
  "hooks": {
    "Stop": [
      {
        "hooks": [
          {
            "type": "command",
            "command": "@GUARD@ hook claude-code",
            "timeout": 30
          }
        ]
      }
    ],
    "SubagentStop": [
      {
        "hooks": [
          {
            "type": "command",
            "command": "@GUARD@ hook claude-code",
            "timeout": 30
          }
        ]
      }
    ],
    "PreToolUse": [
      {
        "matcher": "*",
        "hooks": [
          {
            "type": "command",
            "command": "@GUARD@ hook claude-code",
            "timeout": 18,
            "onFailure": "block"
          }
        ]
      }
    ]
  }
}
"#;

const CODEX_GOLDEN: &str = r#"{
  "hooks": {
    "Stop": [
      {
        "hooks": [
          {
            "type": "command",
            "command": "@GUARD@ hook codex",
            "timeout": 30
          }
        ]
      }
    ],
    "SubagentStop": [
      {
        "hooks": [
          {
            "type": "command",
            "command": "@GUARD@ hook codex",
            "timeout": 30
          }
        ]
      }
    ],
    "PreToolUse": [
      {
        "hooks": [
          {
            "type": "command",
            "command": "@GUARD@ hook codex",
            "timeout": 18
          }
        ]
      }
    ]
  }
}
"#;

fn golden(text: &str) -> String {
    text.replace("@GUARD@", &guard_exe().to_string_lossy())
}

/// A settings file as a person writes it: tabs, a one-line array, escapes,
/// another tool's Stop hook, keys in no particular order.
const HANDWRITTEN: &str = "{\n\t\"zeta\": 1.5e3,\n\t\"permissions\": {\"allow\": [\"Bash(ls:*)\"], \"deny\": []},\n\t\"hooks\": {\n\t\t\"Stop\": [ { \"hooks\": [ { \"type\": \"command\", \"command\": \"notify-send \\u00e9t\\u00e9\" } ] } ],\n\t\t\"SessionStart\": []\n\t},\n\t\"alpha\": null\n}";

#[test]
fn claude_settings_from_nothing_have_the_exact_expected_shape() {
    let sb = Sandbox::new();
    let out = sb.ok(&["install", "--agent", "claude-code"]);
    assert!(out.contains("created the file"), "{out}");
    assert_eq!(
        fs::read_to_string(sb.claude_settings()).unwrap(),
        golden(CLAUDE_GOLDEN)
    );
    assert!(
        files_containing(&sb.home().join(".claude"), "guard-backup").is_empty(),
        "no backup of a file that did not exist"
    );
}

#[test]
fn codex_hooks_json_has_the_exact_expected_shape_and_the_trust_notice() {
    let sb = Sandbox::new();
    let out = sb.ok(&["install", "--agent", "codex"]);
    assert!(
        out.contains("/hooks"),
        "the user is told to trust the hooks: {out}"
    );
    assert_eq!(
        fs::read_to_string(sb.codex_hooks()).unwrap(),
        golden(CODEX_GOLDEN)
    );
    assert!(
        !sb.home().join(".codex/config.toml").exists(),
        "guard never writes Codex trust state"
    );
}

#[test]
fn a_second_install_changes_no_byte() {
    let sb = Sandbox::new();
    fs::create_dir_all(sb.home().join(".claude")).unwrap();
    fs::write(sb.claude_settings(), HANDWRITTEN).unwrap();
    sb.ok(&["install", "--agent", "claude-code"]);
    let first = fs::read(sb.claude_settings()).unwrap();
    let backup = fs::read(sb.home().join(".claude/settings.json.guard-backup")).unwrap();
    assert_eq!(backup, HANDWRITTEN.as_bytes());
    let out = sb.ok(&["install", "--agent", "claude"]);
    assert!(out.contains("already up to date"), "{out}");
    assert_eq!(fs::read(sb.claude_settings()).unwrap(), first);
    assert_eq!(
        fs::read(sb.home().join(".claude/settings.json.guard-backup")).unwrap(),
        backup
    );
}

#[test]
fn install_then_uninstall_gives_back_the_original_bytes_and_permissions() {
    let sb = Sandbox::new();
    fs::create_dir_all(sb.home().join(".claude")).unwrap();
    let path = sb.claude_settings();
    fs::write(&path, HANDWRITTEN).unwrap();
    fs::set_permissions(&path, fs::Permissions::from_mode(0o600)).unwrap();
    sb.ok(&["install", "--agent", "claude-code"]);
    let installed = fs::read_to_string(&path).unwrap();
    assert!(
        installed.contains("notify-send été"),
        "other tools' hooks stay: {installed}"
    );
    assert!(
        installed.find("\"zeta\"").unwrap() < installed.find("\"permissions\"").unwrap(),
        "key order kept"
    );
    assert!(
        installed.contains("\n\t\"hooks\": {"),
        "the file's tab indentation kept"
    );
    assert_eq!(
        fs::metadata(&path).unwrap().permissions().mode() & 0o777,
        0o600
    );
    let out = sb.ok(&["uninstall", "--agent", "claude-code"]);
    assert!(out.contains("restored"), "{out}");
    assert_eq!(fs::read_to_string(&path).unwrap(), HANDWRITTEN);
    assert_eq!(
        fs::metadata(&path).unwrap().permissions().mode() & 0o777,
        0o600
    );
    assert!(
        files_containing(&sb.home().join(".claude"), "guard").is_empty(),
        "no backup or temp file left"
    );
}

#[test]
fn uninstall_keeps_later_edits_and_removes_only_guard() {
    let sb = Sandbox::new();
    fs::create_dir_all(sb.home().join(".claude")).unwrap();
    let path = sb.claude_settings();
    fs::write(&path, "{\"model\": \"opus\"}\n").unwrap();
    sb.ok(&["install", "--agent", "claude-code"]);
    let mut value: serde_json::Value =
        serde_json::from_str(&fs::read_to_string(&path).unwrap()).unwrap();
    value["hooks"]["Stop"]
        .as_array_mut()
        .unwrap()
        .push(serde_json::json!({"hooks": [{"type": "command", "command": "later-tool"}]}));
    value["theme"] = "dark".into();
    fs::write(&path, serde_json::to_string_pretty(&value).unwrap()).unwrap();
    sb.ok(&["uninstall", "--agent", "claude-code"]);
    let after: serde_json::Value =
        serde_json::from_str(&fs::read_to_string(&path).unwrap()).unwrap();
    assert_eq!(
        after,
        serde_json::json!({"model": "opus", "hooks": {"Stop": [{"hooks": [{"type": "command", "command": "later-tool"}]}]}, "theme": "dark"})
    );
}

#[test]
fn uninstall_removes_a_file_guard_created() {
    let sb = Sandbox::new();
    sb.ok(&["install", "--agent", "codex", "--agent", "claude-code"]);
    assert!(sb.codex_hooks().exists() && sb.claude_settings().exists());
    let out = sb.ok(&["uninstall", "--all"]);
    assert!(out.contains("removed the settings file"), "{out}");
    assert!(!sb.codex_hooks().exists() && !sb.claude_settings().exists());
    let again = sb.ok(&["uninstall", "--agent", "codex"]);
    assert!(again.contains("nothing to remove"), "{again}");
}

#[test]
fn malformed_files_are_refused_with_line_and_column_and_left_untouched() {
    let sb = Sandbox::new();
    fs::create_dir_all(sb.home().join(".claude")).unwrap();
    for (text, location) in [
        ("{\n  \"a\": 1,\n}\n", ":3:1"),
        ("{\n  // mine\n  \"a\": 1\n}\n", ":2:3"),
        ("[1, 2]", "top level"),
    ] {
        fs::write(sb.claude_settings(), text).unwrap();
        for args in [
            ["install", "--agent", "claude-code"],
            ["uninstall", "--agent", "claude-code"],
        ] {
            let out = sb.run(&args);
            let stderr = String::from_utf8_lossy(&out.stderr);
            assert_eq!(out.status.code(), Some(1), "{stderr}");
            assert!(
                stderr.contains("settings.json") && stderr.contains(location),
                "{stderr}"
            );
            assert!(stderr.contains("changed nothing"), "{stderr}");
            assert_eq!(fs::read_to_string(sb.claude_settings()).unwrap(), text);
            assert_eq!(
                files_containing(&sb.home().join(".claude"), "guard"),
                Vec::<String>::new()
            );
        }
    }
}

#[test]
fn dry_run_prints_a_diff_and_writes_nothing() {
    let sb = Sandbox::new();
    let out = sb.ok(&["install", "--agent", "claude-code", "--dry-run"]);
    assert!(
        out.contains("+++ ") && out.contains("+        \"matcher\": \"*\","),
        "{out}"
    );
    assert!(!sb.home().join(".claude").exists());
    fs::create_dir_all(sb.home().join(".claude")).unwrap();
    fs::write(sb.claude_settings(), "{}").unwrap();
    sb.ok(&["install", "--agent", "claude-code", "--dry-run"]);
    assert_eq!(fs::read_to_string(sb.claude_settings()).unwrap(), "{}");
    sb.ok(&["install", "--agent", "claude-code"]);
    let installed = fs::read(sb.claude_settings()).unwrap();
    let out = sb.ok(&["uninstall", "--agent", "claude-code", "--dry-run"]);
    assert!(out.contains("-") && out.contains("would have"), "{out}");
    assert_eq!(fs::read(sb.claude_settings()).unwrap(), installed);
    assert_eq!(
        files_containing(&sb.home().join(".claude"), "guard-backup").len(),
        1
    );
}

#[test]
fn all_without_any_agent_says_how_to_install_one_by_hand() {
    let sb = Sandbox::new();
    let out = sb.run(&["install", "--all"]);
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("no agent found") && stderr.contains("guard install --agent claude-code"),
        "{stderr}"
    );
}

#[test]
fn all_finds_agents_by_executable_and_by_config_directory() {
    let sb = Sandbox::new();
    fs::create_dir_all(sb.home().join(".codex")).unwrap();
    let fake = sb.bin().join("claude");
    fs::write(&fake, "#!/bin/sh\n").unwrap();
    fs::set_permissions(&fake, fs::Permissions::from_mode(0o755)).unwrap();
    let out = sb.ok(&["install", "--all"]);
    assert!(
        out.contains("claude-code:") && out.contains("codex:"),
        "{out}"
    );
    assert!(sb.claude_settings().exists() && sb.codex_hooks().exists());
}

#[test]
fn project_scope_writes_at_the_repository_root() {
    let sb = Sandbox::new();
    fs::create_dir_all(sb.work().join(".git")).unwrap();
    fs::create_dir_all(sb.work().join("src/deep")).unwrap();
    let out = sb
        .command_with(
            &guard_exe(),
            &["install", "--agent", "claude-code", "--scope", "project"],
        )
        .current_dir(sb.work().join("src/deep"))
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(sb.work().join(".claude/settings.json").exists());
    assert!(!sb.claude_settings().exists());
}

#[test]
fn unknown_and_unwirable_agents_are_refused() {
    let sb = Sandbox::new();
    let out = sb.run(&["install", "--agent", "nope"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("claude-code"),
        "lists the agents it can wire"
    );
    let out = sb.run(&["install", "--agent", "generic"]);
    assert!(String::from_utf8_lossy(&out.stderr).contains("guard hook generic"));
    assert_eq!(
        sb.run(&["install"]).status.code(),
        Some(2),
        "an agent or --all is required"
    );
}

/// A copy of the guard binary at another place (a moved or second install).
fn copy_of_guard(sb: &Sandbox, dir: &str) -> std::path::PathBuf {
    let target = sb.dir.path().join(dir).join("guard");
    fs::create_dir_all(target.parent().unwrap()).unwrap();
    // A hard link, where it can be: a copy is open for writing while it is
    // made, and a child forked meanwhile by a parallel test would keep that
    // open and make running the copy fail ("Text file busy").
    if fs::hard_link(guard_exe(), &target).is_err() {
        fs::copy(guard_exe(), &target).unwrap();
    }
    target
}

#[test]
fn a_moved_binary_replaces_its_old_entries() {
    let sb = Sandbox::new();
    let old = copy_of_guard(&sb, "old place");
    let out = sb
        .command_with(&old, &["install", "--agent", "claude-code"])
        .output()
        .unwrap();
    assert!(out.status.success());
    assert!(
        fs::read_to_string(sb.claude_settings())
            .unwrap()
            .contains("'"),
        "a path with a space is quoted"
    );
    sb.ok(&["install", "--agent", "claude-code"]);
    assert_eq!(
        fs::read_to_string(sb.claude_settings()).unwrap(),
        golden(CLAUDE_GOLDEN)
    );
}

#[test]
fn concurrent_installs_never_corrupt_the_file() {
    let sb = Sandbox::new();
    fs::create_dir_all(sb.home().join(".claude")).unwrap();
    fs::write(sb.claude_settings(), HANDWRITTEN).unwrap();
    let copies = [
        copy_of_guard(&sb, "a"),
        copy_of_guard(&sb, "b"),
        guard_exe(),
    ];
    let children: Vec<_> = (0..9)
        .map(|i| {
            let verb = if i % 4 == 3 { "uninstall" } else { "install" };
            sb.command_with(&copies[i % 3], &[verb, "--agent", "claude-code"])
                .spawn()
                .unwrap()
        })
        .collect();
    for mut child in children {
        assert!(child.wait().unwrap().success());
    }
    sb.ok(&["install", "--agent", "claude-code"]);
    let text = fs::read_to_string(sb.claude_settings()).unwrap();
    let value: serde_json::Value = serde_json::from_str(&text).unwrap();
    for event in ["Stop", "SubagentStop", "PreToolUse"] {
        let count = value["hooks"][event]
            .as_array()
            .unwrap()
            .iter()
            .flat_map(|g| g["hooks"].as_array().unwrap())
            .filter(|h| h["command"].as_str().unwrap().contains(" hook "))
            .count();
        assert_eq!(count, 1, "{event}: {text}");
    }
    assert!(text.contains("notify-send été"));
    assert!(files_containing(&sb.home().join(".claude"), "guard-tmp").is_empty());
    sb.ok(&["uninstall", "--agent", "claude-code"]);
    assert_eq!(
        fs::read_to_string(sb.claude_settings()).unwrap(),
        HANDWRITTEN
    );
}
