//! Every agent's payloads through its adapter, against golden files.
//!
//! - Every captured payload (`tests/fixtures/captured/*-stdin.json`, and the
//!   arrays in `*-stdins.json`) and every documented payload
//!   (`tests/fixtures/<adapter name>/*.json`) is detected as the right agent and
//!   normalizes to the event in `tests/golden/events/<name>.json`.
//! - Every agent renders allow/block/deny/ask as in
//!   `tests/golden/render/<agent>-<kind>-<decision>.json`.
//!
//! `GUARD_UPDATE_GOLDEN=1 cargo test --test adapters` rewrites the goldens;
//! a rewritten golden must be checked by hand against docs/agents/<agent>.md
//! before it is committed.

use guard::adapter::{self, AdapterSpec};
use guard::event::EventKind;
use guard::verdict::{Decision, DetectorReport, JudgeReport, Layer1, Verdict};
use serde_json::{json, Value};
use std::fs;
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn updating() -> bool {
    std::env::var("GUARD_UPDATE_GOLDEN").is_ok_and(|v| v == "1")
}

/// One payload and the adapter it is sent to (`guard hook <agent>`).
struct Case {
    name: String,
    agent: String,
    payload: Value,
}

fn read_json(path: &Path) -> Value {
    let text = fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn sorted_files(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    files
}

fn captured_agent(file_name: &str) -> &'static str {
    match file_name.split('-').next() {
        Some("claude") => "claude-code",
        Some("codex") => "codex",
        Some("gemini") => "gemini",
        Some("qwen") => "qwen",
        Some("copilot") => "copilot",
        Some("droid") => "droid",
        other => panic!("captured fixture {file_name}: unknown agent prefix {other:?}"),
    }
}

fn cases() -> Vec<Case> {
    let fixtures = root().join("tests/fixtures");
    let mut cases = Vec::new();
    for path in sorted_files(&fixtures.join("captured")) {
        let file = path.file_name().unwrap().to_string_lossy().to_string();
        let Some(stem) = file
            .strip_suffix(".json")
            .filter(|s| s.ends_with("-stdin") || s.ends_with("-stdins"))
        else {
            continue;
        };
        let agent = captured_agent(&file).to_string();
        match read_json(&path) {
            Value::Array(items) => {
                for (i, payload) in items.into_iter().enumerate() {
                    cases.push(Case {
                        name: format!("{stem}-{i}"),
                        agent: agent.clone(),
                        payload,
                    });
                }
            }
            payload => cases.push(Case {
                name: stem.to_string(),
                agent,
                payload,
            }),
        }
    }
    for dir in sorted_files(&fixtures) {
        let agent = dir.file_name().unwrap().to_string_lossy().to_string();
        // Only folders named after an adapter hold hook payloads (others
        // hold transcripts and such).
        if !dir.is_dir() || adapter::find(&agent).is_none_or(|s| s.name != agent) {
            continue;
        }
        for path in sorted_files(&dir) {
            if path.extension().is_some_and(|e| e == "json") {
                let stem = path.file_stem().unwrap().to_string_lossy().to_string();
                cases.push(Case {
                    name: format!("{agent}-{stem}"),
                    agent: agent.clone(),
                    payload: read_json(&path),
                });
            }
        }
    }
    assert!(
        cases.len() >= 30,
        "fixtures missing: found {} cases",
        cases.len()
    );
    cases
}

/// The agent `guard hook` without a name picks for the payload. Droid,
/// Qwen Code, Devin CLI, Kiro, Antigravity and Kimi send Claude Code's shapes:
/// they are told apart only by the name in the installed command.
fn expected_detection(agent: &str) -> &str {
    match agent {
        "droid" | "qwen" | "devin" | "kiro" | "antigravity" | "kimi" => "claude-code",
        other => other,
    }
}

fn builtins() -> Vec<AdapterSpec> {
    let (specs, errors) = adapter::builtins();
    assert!(
        errors.is_empty(),
        "adapter files that do not parse: {errors:?}"
    );
    specs
}

fn spec(name: &str) -> AdapterSpec {
    adapter::find(name).unwrap_or_else(|| panic!("no adapter {name}"))
}

/// Compares `actual` with the golden file, or writes it when updating.
fn check_golden(path: &Path, actual: &str, failures: &mut Vec<String>) {
    if updating() {
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(path, actual).unwrap();
        return;
    }
    match fs::read_to_string(path) {
        Ok(expected) if expected == actual => {}
        Ok(expected) => failures.push(format!(
            "{}:\n--- golden\n{expected}\n--- actual\n{actual}",
            path.display()
        )),
        Err(_) => failures.push(format!(
            "{}: missing golden (run with GUARD_UPDATE_GOLDEN=1)\n{actual}",
            path.display()
        )),
    }
}

#[test]
fn detection_picks_the_right_agent_for_every_fixture() {
    let specs = builtins();
    let mut wrong = Vec::new();
    for case in cases() {
        let detected = adapter::detect_agent(&specs, &case.payload).map(|s| s.name.clone());
        let expected = expected_detection(&case.agent);
        if detected.as_deref() != Some(expected) {
            wrong.push(format!(
                "{}: expected {expected}, detected {detected:?}",
                case.name
            ));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn the_installed_agent_name_is_kept_for_its_own_payloads() {
    // The hook switches to the detected agent only when that agent has
    // detection rules and is not the one named (src/hook/mod.rs).
    let specs = builtins();
    for case in cases() {
        let named = spec(&case.agent);
        let detected = adapter::detect_agent(&specs, &case.payload).unwrap();
        let switches = !detected.detect.is_empty() && !named.answers_to(&detected.name);
        assert!(
            !switches,
            "{}: `guard hook {}` would be treated as {}",
            case.name, case.agent, detected.name
        );
    }
}

#[test]
fn a_payload_sent_to_the_wrong_agent_is_detected_by_its_shape() {
    let specs = builtins();
    let gemini = read_json(&root().join("tests/fixtures/captured/gemini-afteragent-stdin.json"));
    let cursor = read_json(&root().join("tests/fixtures/cursor/stop.json"));
    let copilot = read_json(&root().join("tests/fixtures/copilot/preToolUse.json"));
    let vscode = read_json(&root().join("tests/fixtures/vscode/PreToolUse.json"));
    let auggie = read_json(&root().join("tests/fixtures/auggie/Stop.json"));
    for (payload, agent) in [
        (gemini, "gemini"),
        (cursor, "cursor"),
        (copilot, "copilot"),
        (vscode, "vscode"),
        (auggie, "auggie"),
    ] {
        let detected = adapter::detect_agent(&specs, &payload).unwrap();
        assert_eq!(detected.name, agent);
        assert!(!detected.detect.is_empty() && !spec("claude-code").answers_to(&detected.name));
    }
}

#[test]
fn every_payload_normalizes_to_its_golden_event() {
    let dir = root().join("tests/golden/events");
    let mut failures = Vec::new();
    for case in cases() {
        let event = spec(&case.agent)
            .parse_payload(case.payload)
            .unwrap_or_else(|e| panic!("{}: {e}", case.name));
        let actual = format!("{}\n", serde_json::to_string_pretty(&event).unwrap());
        check_golden(
            &dir.join(format!("{}.json", case.name)),
            &actual,
            &mut failures,
        );
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

/// The native events whose rendering is golden: (agent, kind, native event,
/// whether it is the agent's main event of that kind).
const RENDER_SAMPLES: &[(&str, EventKind, &str, bool)] = &[
    ("claude-code", EventKind::Stop, "Stop", true),
    ("claude-code", EventKind::PreTool, "PreToolUse", true),
    (
        "claude-code",
        EventKind::PermissionRequest,
        "PermissionRequest",
        true,
    ),
    ("codex", EventKind::Stop, "Stop", true),
    ("codex", EventKind::PreTool, "PreToolUse", true),
    (
        "codex",
        EventKind::PermissionRequest,
        "PermissionRequest",
        true,
    ),
    ("gemini", EventKind::Stop, "AfterAgent", true),
    ("gemini", EventKind::PreTool, "BeforeTool", true),
    ("cursor", EventKind::Stop, "stop", true),
    ("cursor", EventKind::PreTool, "beforeShellExecution", true),
    ("cursor", EventKind::PreTool, "beforeMCPExecution", false),
    ("cursor", EventKind::PreTool, "preToolUse", false),
    ("cursor", EventKind::Other, "afterAgentResponse", true),
    ("copilot", EventKind::Stop, "agentStop", true),
    ("copilot", EventKind::PreTool, "preToolUse", true),
    (
        "copilot",
        EventKind::PermissionRequest,
        "permissionRequest",
        true,
    ),
    ("copilot-pascal", EventKind::Stop, "Stop", true),
    ("copilot-pascal", EventKind::PreTool, "PreToolUse", true),
    ("droid", EventKind::Stop, "Stop", true),
    ("droid", EventKind::PreTool, "PreToolUse", true),
    ("qwen", EventKind::Stop, "Stop", true),
    ("qwen", EventKind::PreTool, "PreToolUse", true),
    ("generic", EventKind::Stop, "stop", true),
    ("generic", EventKind::PreTool, "pre_tool", true),
    ("vscode", EventKind::Stop, "Stop", true),
    ("vscode", EventKind::SubagentStop, "SubagentStop", true),
    ("vscode", EventKind::PreTool, "PreToolUse", true),
    ("goose", EventKind::Stop, "Stop", true),
    ("goose", EventKind::PreTool, "PreToolUse", true),
    ("crush", EventKind::PreTool, "PreToolUse", true),
    ("auggie", EventKind::Stop, "Stop", true),
    ("auggie", EventKind::PreTool, "PreToolUse", true),
    ("devin", EventKind::Stop, "Stop", true),
    ("devin", EventKind::PreTool, "PreToolUse", true),
    ("windsurf", EventKind::PreTool, "pre_run_command", true),
    ("kiro", EventKind::PreTool, "PreToolUse", true),
    ("antigravity", EventKind::Stop, "Stop", true),
    ("antigravity", EventKind::PreTool, "PreToolUse", true),
    ("kimi", EventKind::SubagentStop, "SubagentStop", true),
    ("kimi", EventKind::PreTool, "PreToolUse", true),
];

const REASON: &str = "guard: you said \"done\" but ran no tests; run them first.";
const SYSTEM_MESSAGE: &str = "guard let this turn end after 3 blocks.";

fn verdict(decision: Decision, with_message: bool) -> Verdict {
    let mut v = if decision == Decision::Allow {
        Verdict::allow()
    } else {
        Verdict::with(decision, REASON)
    };
    if with_message {
        v.system_message = Some(SYSTEM_MESSAGE.to_string());
    }
    v.detectors.push(DetectorReport {
        name: "commit-before-verification".into(),
        layer1: if decision == Decision::Allow {
            Layer1::Miss
        } else {
            Layer1::Hit
        },
        joined: false,
        keywords: Vec::new(),
        signals: Vec::new(),
        bypasses: Vec::new(),
        judge: JudgeReport::skipped(),
        verdict: decision,
        mode: None,
        reason: None,
    });
    v
}

/// (file label, decision, system message, ask_as from config) per kind.
fn decisions(kind: EventKind) -> Vec<(&'static str, Decision, bool, Option<Decision>)> {
    if kind.is_turn_end() {
        vec![
            ("allow", Decision::Allow, false, None),
            ("allow_message", Decision::Allow, true, None),
            ("block", Decision::Block, false, None),
        ]
    } else if kind.is_gate() {
        vec![
            ("allow", Decision::Allow, false, None),
            ("deny", Decision::Deny, false, None),
            ("ask", Decision::Ask, false, None),
            ("ask_as_deny", Decision::Ask, false, Some(Decision::Deny)),
        ]
    } else {
        vec![("allow", Decision::Allow, false, None)]
    }
}

#[test]
fn every_verdict_renders_to_its_golden() {
    let dir = root().join("tests/golden/render");
    let mut failures = Vec::new();
    for &(agent, kind, native, main) in RENDER_SAMPLES {
        let spec = spec(agent);
        assert_eq!(
            spec.events.get(native).copied().unwrap_or(EventKind::Other),
            kind,
            "{agent} {native}"
        );
        for (label, decision, message, ask_as) in decisions(kind) {
            let out = spec.render(kind, native, &verdict(decision, message), ask_as);
            let golden = json!({"stdout": out.stdout, "stderr": out.stderr, "exit": out.exit});
            let file = if main {
                format!("{agent}-{kind}-{label}.json")
            } else {
                format!("{agent}-{kind}-{native}-{label}.json")
            };
            check_golden(
                &dir.join(file),
                &format!("{}\n", serde_json::to_string_pretty(&golden).unwrap()),
                &mut failures,
            );
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}
