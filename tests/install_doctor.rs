//! `guard doctor` as a subprocess in a throw-away HOME: what it reports for
//! wired, broken, untrusted and never-fired agents, and its exit code.

#[path = "install_common/mod.rs"]
mod common;

use common::Sandbox;
use serde_json::Value;
use std::fs;
use std::io::Write;
use std::process::Stdio;

/// The doctor's JSON report and exit code.
fn doctor(sb: &Sandbox) -> (Value, i32) {
    let out = sb.run(&["doctor", "--json"]);
    let report: Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stdout)));
    (report, out.status.code().unwrap())
}

/// The findings about one agent, as (check, status, message, fix).
fn findings(report: &Value, agent: &str) -> Vec<(String, String, String, String)> {
    report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["agent"] == agent)
        .map(|f| {
            let s = |k: &str| f[k].as_str().unwrap_or_default().to_string();
            (s("check"), s("status"), s("message"), s("fix"))
        })
        .collect()
}

fn status_of(report: &Value, agent: &str, check: &str) -> Vec<String> {
    findings(report, agent)
        .into_iter()
        .filter(|f| f.0 == check)
        .map(|f| f.1)
        .collect()
}

fn edit_settings(sb: &Sandbox, edit: impl Fn(&mut Value)) {
    let path = sb.claude_settings();
    let mut value: Value = serde_json::from_str(&fs::read_to_string(&path).unwrap()).unwrap();
    edit(&mut value);
    fs::write(&path, serde_json::to_string_pretty(&value).unwrap()).unwrap();
}

#[test]
fn a_wired_agent_is_ok_but_warned_until_it_fires() {
    let sb = Sandbox::new();
    sb.ok(&["install", "--agent", "claude-code"]);
    let (report, _) = doctor(&sb);
    assert_eq!(status_of(&report, "claude-code", "wired"), ["ok"]);
    assert_eq!(status_of(&report, "claude-code", "last call"), ["warn"]);
    assert!(
        findings(&report, "claude-code")
            .iter()
            .all(|f| f.1 != "error"),
        "{report:#}"
    );
    assert_eq!(
        status_of(&report, "codex", "installed"),
        ["info"],
        "codex is not on this machine"
    );

    let payload = fs::read("tests/fixtures/captured/claude-stop-stdin.json").unwrap();
    let mut child = sb
        .command_with(&common::guard_exe(), &["hook", "claude-code"])
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(&payload).unwrap();
    child.wait().unwrap();
    let (report, _) = doctor(&sb);
    assert_eq!(
        status_of(&report, "claude-code", "last call"),
        ["ok"],
        "{report:#}"
    );
}

#[test]
fn a_missing_executable_fails_with_what_to_do() {
    let sb = Sandbox::new();
    sb.ok(&["install", "--agent", "claude-code"]);
    edit_settings(&sb, |v| {
        v["hooks"]["Stop"][0]["hooks"][0]["command"] = "/nowhere/guard hook claude-code".into()
    });
    let (report, code) = doctor(&sb);
    assert_eq!(code, 1);
    let broken: Vec<_> = findings(&report, "claude-code")
        .into_iter()
        .filter(|f| f.0 == "executable")
        .collect();
    assert_eq!(broken.len(), 1, "{report:#}");
    assert_eq!(broken[0].1, "error");
    assert!(
        broken[0].2.contains("/nowhere/guard")
            && broken[0].3.contains("guard install --agent claude-code")
    );
    let human = String::from_utf8_lossy(&sb.run(&["doctor"]).stdout).into_owned();
    assert!(
        human.contains("ERROR executable")
            && human.contains("fix: guard install --agent claude-code"),
        "{human}"
    );
}

#[test]
fn timeouts_not_above_the_deadline_are_errors() {
    let sb = Sandbox::new();
    sb.ok(&["install", "--agent", "claude-code"]);
    edit_settings(&sb, |v| {
        v["hooks"]["PreToolUse"][0]["hooks"][0]["timeout"] = 5.into()
    });
    let (report, code) = doctor(&sb);
    assert_eq!(code, 1);
    let bad: Vec<_> = findings(&report, "claude-code")
        .into_iter()
        .filter(|f| f.0 == "timeouts")
        .collect();
    assert_eq!(bad.len(), 1, "{report:#}");
    assert!(
        bad[0].2.contains("PreToolUse") && bad[0].2.contains("deadline"),
        "{:?}",
        bad[0]
    );
}

#[test]
fn a_missing_event_and_a_malformed_file_are_reported() {
    let sb = Sandbox::new();
    sb.ok(&["install", "--agent", "claude-code"]);
    edit_settings(&sb, |v| {
        v["hooks"]
            .as_object_mut()
            .unwrap()
            .shift_remove("SubagentStop");
    });
    let (report, _) = doctor(&sb);
    assert!(
        findings(&report, "claude-code")
            .iter()
            .any(|f| f.0 == "entries" && f.1 == "warn" && f.2.contains("SubagentStop")),
        "{report:#}"
    );
    fs::write(sb.claude_settings(), "{\"hooks\": ").unwrap();
    let (report, code) = doctor(&sb);
    assert_eq!(code, 1);
    assert!(
        findings(&report, "claude-code")
            .iter()
            .any(|f| f.1 == "error" && f.2.contains("settings.json:1:")),
        "{report:#}"
    );
}

#[test]
fn codex_hooks_need_trust() {
    let sb = Sandbox::new();
    sb.ok(&["install", "--agent", "codex"]);
    let (report, code) = doctor(&sb);
    assert_eq!(code, 1);
    let trust: Vec<_> = findings(&report, "codex")
        .into_iter()
        .filter(|f| f.0 == "trust")
        .collect();
    assert_eq!(trust.len(), 3, "{report:#}");
    assert!(trust
        .iter()
        .all(|f| f.1 == "error" && f.3.contains("/hooks")));

    let hooks = fs::canonicalize(sb.codex_hooks()).unwrap();
    let mut toml = String::from("model = \"m\"\n\n[hooks.state]\n");
    for key in ["stop:0:0", "subagent_stop:0:0", "pre_tool_use:0:0"] {
        toml.push_str(&format!(
            "[hooks.state.\"{}:{key}\"]\ntrusted_hash = \"sha256:00\"\n",
            hooks.display()
        ));
    }
    fs::write(sb.home().join(".codex/config.toml"), toml).unwrap();
    let (report, _) = doctor(&sb);
    assert_eq!(
        status_of(&report, "codex", "trust"),
        ["ok", "ok", "ok"],
        "{report:#}"
    );
}

#[test]
fn the_judge_backend_and_the_config_are_checked() {
    let sb = Sandbox::new();
    let general = |report: &Value, check: &str| -> Vec<String> {
        report["findings"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|f| f["agent"].is_null() && f["check"] == check)
            .map(|f| f["status"].as_str().unwrap().to_string())
            .collect()
    };
    let (report, _) = doctor(&sb);
    assert_eq!(
        general(&report, "judge"),
        ["warn"],
        "auto finds no judge CLI on an empty PATH: {report:#}"
    );
    assert_eq!(general(&report, "log directory"), ["ok"]);
    let config_dir = sb.home().join(".config/guard");
    fs::create_dir_all(&config_dir).unwrap();
    fs::write(
        config_dir.join("config.yaml"),
        "judge:\n  backend: claude\n",
    )
    .unwrap();
    let (report, code) = doctor(&sb);
    assert_eq!(code, 1);
    assert_eq!(general(&report, "judge"), ["error"], "{report:#}");
    fs::write(
        config_dir.join("config.yaml"),
        "judge:\n  backend: claude\n  colour: red\n",
    )
    .unwrap();
    let (report, code) = doctor(&sb);
    assert_eq!(code, 1);
    let bad: Vec<_> = report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["check"] == "config" && f["status"] == "error")
        .collect();
    assert!(
        bad.iter()
            .any(|f| f["message"].as_str().unwrap().contains("config.yaml:")),
        "{report:#}"
    );
}

#[test]
fn the_doctor_makes_a_canary_judgment() {
    let sb = Sandbox::new();
    let exe = std::env::current_exe().unwrap();
    let judge = exe
        .parent()
        .and_then(|d| d.parent())
        .unwrap()
        .join("examples/test_judge");
    assert!(judge.exists(), "build with a plain `cargo test`");
    let answers = sb.home().join("answers.json");
    let config_dir = sb.home().join(".config/guard");
    fs::create_dir_all(&config_dir).unwrap();
    let judge_status = |mode: &str| -> (String, String) {
        fs::write(
            config_dir.join("config.yaml"),
            format!(
                "judge: {{backend: command, command: [{:?}, {:?}], timeout_ms: 1500}}\n",
                judge.display().to_string(),
                mode
            ),
        )
        .unwrap();
        let (report, _) = doctor(&sb);
        let f = report["findings"]
            .as_array()
            .unwrap()
            .iter()
            .find(|f| f["agent"].is_null() && f["check"] == "judge")
            .unwrap()
            .clone();
        (
            f["status"].as_str().unwrap().to_string(),
            f["message"].as_str().unwrap().to_string(),
        )
    };
    fs::write(
        &answers,
        r#"{"rules": [], "default": {"new_proposal": true}}"#,
    )
    .unwrap();
    let (status, message) = judge_status(&format!("answers={}", answers.display()));
    assert_eq!(status, "ok", "{message}");
    assert!(message.contains("canary judgment right"));
    fs::write(
        &answers,
        r#"{"rules": [], "default": {"new_proposal": false}}"#,
    )
    .unwrap();
    assert_eq!(
        judge_status(&format!("answers={}", answers.display())).0,
        "warn",
        "a judge that answers wrongly"
    );
    let (status, message) = judge_status("hang");
    assert_eq!(status, "error");
    assert!(message.contains("canary judgment failed"), "{message}");
}
