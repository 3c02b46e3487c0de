//! The payloads and transcript of each pinned CLI, recorded in one run and
//! checked against the fixtures of the pinned version, so that a version bump
//! says at once what changed in the protocol guard reads.
//!
//! One run per agent: the model runs one shell command, answers, is sent
//! back once by a blocking turn-end hook, and answers again. Recording hooks
//! sit on the gate, the tool's end, the prompt and the turn end. Then:
//! - with `GUARD_E2E_CAPTURE=1`, the payloads are written to
//!   `tests/fixtures/captured/<agent>-<version>-<event>-stdins.json` and the
//!   transcript to `tests/fixtures/transcripts/<agent>-<version>-real-stop-block.jsonl`
//!   (sandbox paths replaced by `/home/user` and `/home/user/project`);
//! - otherwise each event's payload shape (every key path and its JSON type)
//!   is compared with the pinned version's fixture, or, when that version has
//!   none yet, with the newest older one; a difference fails and names the
//!   version, the event and the keys.

use super::agent::write_file;
use super::hooks::{self, HookScript};
use super::{Agent, Sandbox, Turn};
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The model's first answer in a capture run.
pub const FIRST: &str = "E2E-CAPTURE-FIRST: done after the tool.";
/// The model's answer after the turn-end hook's feedback.
pub const SECOND: &str = "E2E-CAPTURE-SECOND: PINEAPPLE.";
/// The turn-end hook's feedback.
pub const FEEDBACK: &str = "E2E-CAPTURE-FEEDBACK: say PINEAPPLE.";

/// True when `GUARD_E2E_CAPTURE=1` asks to (re)write the fixtures.
pub fn capturing() -> bool {
    std::env::var("GUARD_E2E_CAPTURE").is_ok_and(|v| v == "1")
}

/// The events recorded for `agent`: (native event, matcher), the turn end first.
fn recorded_events(agent: Agent) -> Vec<(&'static str, Option<&'static str>)> {
    let (gate, shell) = agent.pre_shell_event();
    let mut events = vec![(agent.turn_end_event(), None), (gate, shell)];
    let more: &[&str] = match agent {
        Agent::Claude | Agent::Codex | Agent::Qwen | Agent::Droid => {
            &["PostToolUse", "UserPromptSubmit"]
        }
        Agent::Gemini => &["AfterTool", "BeforeAgent"],
        Agent::Copilot => &["postToolUse", "userPromptSubmitted", "permissionRequest"],
    };
    events.extend(more.iter().map(|e| {
        let tool_event = e.contains("Tool") || e.starts_with("permission");
        (*e, if tool_event { shell } else { None })
    }));
    events
}

/// What one capture run recorded.
pub struct Capture {
    /// The agent and its pinned version.
    pub agent: Agent,
    /// The pinned version.
    pub version: String,
    /// Native event → the payloads it got, in order (sandbox paths replaced).
    pub payloads: BTreeMap<String, Vec<Value>>,
    /// The transcript the turn-end payload names, paths replaced.
    pub transcript: Option<String>,
}

/// Runs the capture scenario on `agent`; `None` when the e2e tests are skipped.
pub fn run(agent: Agent) -> Option<Capture> {
    let sandbox = Sandbox::new(agent, "capture")?;
    let mut scripts: Vec<(&str, HookScript)> = Vec::new();
    for (event, matcher) in recorded_events(agent) {
        let name = event.to_ascii_lowercase();
        let hook = if event == agent.turn_end_event() {
            hooks::block_turn_end_once(&sandbox.scripts, &name, agent, FEEDBACK)
        } else {
            hooks::record(&sandbox.scripts, &name)
        };
        sandbox.add_hook_at(event, matcher, &hook.command());
        scripts.push((event, hook));
    }
    sandbox.script(&[
        Turn::text(SECOND).when_last_user_contains("E2E-CAPTURE-FEEDBACK"),
        Turn::shell_then("echo hi > tool-ran.txt", FIRST),
    ]);
    let run = sandbox.run("Run the tool, then answer.");
    run.assert_success();
    check_scenario(&sandbox, &run, &scripts);
    let paths = Paths::of(&sandbox);
    let mut payloads = BTreeMap::new();
    for (event, hook) in &scripts {
        let calls: Vec<Value> = hook.calls().iter().map(|p| paths.replace_in(p)).collect();
        if !calls.is_empty() {
            payloads.insert(event.to_string(), calls);
        }
    }
    let transcript = scripts
        .iter()
        .find(|(event, _)| *event == agent.turn_end_event())
        .and_then(|(_, hook)| hook.calls().into_iter().last())
        .and_then(|p| {
            p.get("transcript_path")
                .or_else(|| p.get("transcriptPath"))
                .and_then(Value::as_str)
                .map(PathBuf::from)
        })
        .and_then(|path| std::fs::read_to_string(path).ok())
        .map(|text| paths.replace(&text));
    Some(Capture {
        agent,
        version: agent.pin().version,
        payloads,
        transcript,
    })
}

/// What the scenario must show on every agent: the gate hook saw the
/// command and let it run; the blocking turn-end hook's reason is the last
/// user turn of the next model call; the second turn end says the stop hook
/// is active; the second answer ends the run.
fn check_scenario(sandbox: &Sandbox, run: &super::Run, scripts: &[(&str, HookScript)]) {
    let agent = sandbox.agent;
    let calls_of = |event: &str| {
        scripts
            .iter()
            .find(|(e, _)| *e == event)
            .map(|(_, hook)| hook.calls())
            .unwrap_or_default()
    };
    let (gate, _) = agent.pre_shell_event();
    let gate_calls = calls_of(gate);
    let command = gate_calls
        .first()
        .and_then(|p| {
            p["tool_input"]["command"]
                .as_str()
                .or(p["toolArgs"]["command"].as_str())
        })
        .unwrap_or_default();
    assert!(
        command.contains("tool-ran.txt"),
        "the gate hook did not get the command: {gate_calls:?}"
    );
    assert!(
        sandbox.work.join("tool-ran.txt").exists(),
        "the allowed command did not run\n{}",
        run.debug()
    );
    let calls = run.calls();
    let fed_back = calls
        .iter()
        .position(|c| c.last_user().contains("E2E-CAPTURE-FEEDBACK"));
    assert!(
        fed_back.is_some_and(|at| at + 1 == calls.len()),
        "the turn-end hook's reason is not the last user turn of the last call\n{}",
        run.debug()
    );
    let stops = calls_of(agent.turn_end_event());
    assert_eq!(stops.len(), 2, "two turn ends: {stops:?}");
    assert_eq!(stops[1]["stop_hook_active"], true, "{stops:?}");
    assert!(
        run.answer().contains("E2E-CAPTURE-SECOND"),
        "the second answer did not end the run\n{}",
        run.debug()
    );
}

/// The sandbox's own paths and what the fixtures say instead.
struct Paths(Vec<(String, String)>);

impl Paths {
    fn of(sandbox: &Sandbox) -> Paths {
        let mut pairs = Vec::new();
        for (path, stands_for) in [
            (&sandbox.work, "/home/user/project"),
            (&sandbox.home, "/home/user"),
            (&sandbox.root, "/tmp/e2e"),
        ] {
            let path = path.display().to_string();
            // Claude Code, Qwen Code and Droid name a project's folder after
            // its path with every `/` (and `.`) as `-`.
            let dashed = |p: &str| p.replace(['/', '.'], "-");
            pairs.push((path.clone(), stands_for.to_string()));
            pairs.push((dashed(&path), dashed(stands_for)));
        }
        Paths(pairs)
    }

    fn replace(&self, text: &str) -> String {
        self.0
            .iter()
            .fold(text.to_string(), |t, (from, to)| t.replace(from, to))
    }

    fn replace_in(&self, value: &Value) -> Value {
        match value {
            Value::String(s) => Value::String(self.replace(s)),
            Value::Array(items) => Value::Array(items.iter().map(|v| self.replace_in(v)).collect()),
            Value::Object(map) => Value::Object(
                map.iter()
                    .map(|(k, v)| (k.clone(), self.replace_in(v)))
                    .collect(),
            ),
            other => other.clone(),
        }
    }
}

/// `tests/fixtures/captured`.
fn captured_dir() -> PathBuf {
    super::repo_root().join("tests/fixtures/captured")
}

/// The fixture file of one event of one version.
fn fixture_path(agent: Agent, version: &str, event: &str) -> PathBuf {
    captured_dir().join(format!(
        "{}-{version}-{}-stdins.json",
        agent.name(),
        event.to_ascii_lowercase()
    ))
}

/// The transcript fixture of one version.
pub fn transcript_fixture(agent: Agent, version: &str) -> PathBuf {
    super::repo_root()
        .join("tests/fixtures/transcripts")
        .join(format!("{}-{version}-real-stop-block.jsonl", agent.name()))
}

impl Capture {
    /// Writes the payload and transcript fixtures of this version.
    pub fn write_fixtures(&self) {
        for (event, calls) in &self.payloads {
            let path = fixture_path(self.agent, &self.version, event);
            let text = serde_json::to_string_pretty(calls).expect("serialize payloads");
            write_file(&path, &format!("{text}\n"));
            eprintln!("e2e: captured {}", path.display());
        }
        if let Some(transcript) = &self.transcript {
            let path = transcript_fixture(self.agent, &self.version);
            write_file(&path, transcript);
            eprintln!("e2e: captured {}", path.display());
        }
    }

    /// Compares each event's payload shape with the fixtures; the problems
    /// found, each naming the version, the event and the keys.
    pub fn shape_changes(&self) -> Vec<String> {
        let Some(baseline) = baseline_version(self.agent, &self.version) else {
            return vec![format!(
                "no captured fixtures of {} at all: capture them with GUARD_E2E_CAPTURE=1",
                self.agent.name()
            )];
        };
        let mut problems = Vec::new();
        let mut events: Vec<&str> = self.payloads.keys().map(String::as_str).collect();
        for (event, _) in recorded_events(self.agent) {
            if fixture_path(self.agent, &baseline, event).exists() && !events.contains(&event) {
                events.push(event);
            }
        }
        for event in events {
            let fixture = fixture_path(self.agent, &baseline, event);
            let old = read_calls(&fixture);
            let new = self.payloads.get(event).cloned().unwrap_or_default();
            let (old_shape, new_shape) = (shape_of(&old), shape_of(&new));
            if old_shape == new_shape {
                continue;
            }
            let mut lines = Vec::new();
            if old.is_empty() {
                lines.push(format!("{event} fired, which {baseline} never did"));
            } else if new.is_empty() {
                lines.push(format!("{event} did not fire, which it did in {baseline}"));
            }
            for (key, kind) in &new_shape {
                match old_shape.get(key) {
                    None => lines.push(format!("  added   {key}: {kind}")),
                    Some(was) if was != kind => {
                        lines.push(format!("  changed {key}: {was} -> {kind}"))
                    }
                    Some(_) => {}
                }
            }
            for (key, kind) in &old_shape {
                if !new_shape.contains_key(key) {
                    lines.push(format!("  removed {key}: {kind}"));
                }
            }
            problems.push(format!(
                "{} {} (pinned in tests/e2e/agents.json) sends a {event} payload whose shape differs from {}:\n{}",
                self.agent.name(),
                self.version,
                fixture.display(),
                lines.join("\n")
            ));
        }
        problems
    }
}

fn read_calls(path: &Path) -> Vec<Value> {
    match std::fs::read_to_string(path) {
        Ok(text) => serde_json::from_str(&text)
            .unwrap_or_else(|e| panic!("fixture {} is not a JSON array: {e}", path.display())),
        Err(_) => Vec::new(),
    }
}

/// The version whose fixtures a run is compared with: the pinned one when it
/// has fixtures, else the newest older version that has.
fn baseline_version(agent: Agent, pinned: &str) -> Option<String> {
    let prefix = format!("{}-", agent.name());
    let mut versions: Vec<String> = std::fs::read_dir(captured_dir())
        .ok()?
        .flatten()
        .filter_map(|e| e.file_name().into_string().ok())
        .filter(|name| name.ends_with("-stdins.json"))
        .filter_map(|name| {
            let rest = name.strip_prefix(&prefix)?;
            let version = rest.split('-').next()?;
            version
                .starts_with(|c: char| c.is_ascii_digit())
                .then(|| version.to_string())
        })
        .collect();
    versions.sort_by_key(|v| version_key(v));
    versions.dedup();
    if versions.iter().any(|v| v == pinned) {
        return Some(pinned.to_string());
    }
    versions
        .into_iter()
        .rev()
        .find(|v| version_key(v) < version_key(pinned))
}

fn version_key(version: &str) -> Vec<u64> {
    version
        .split(|c: char| !c.is_ascii_digit())
        .filter_map(|part| part.parse().ok())
        .collect()
}

/// Every key path of the payloads (`a.b`, `list[].c`) with its JSON type;
/// the types seen at one path are joined with `|`.
pub fn shape_of(payloads: &[Value]) -> BTreeMap<String, String> {
    let mut shape: BTreeMap<String, std::collections::BTreeSet<&'static str>> = BTreeMap::new();
    fn walk(
        value: &Value,
        path: String,
        shape: &mut BTreeMap<String, std::collections::BTreeSet<&'static str>>,
    ) {
        let kind = match value {
            Value::Null => "null",
            Value::Bool(_) => "bool",
            Value::Number(_) => "number",
            Value::String(_) => "string",
            Value::Array(_) => "array",
            Value::Object(_) => "object",
        };
        if !path.is_empty() {
            shape.entry(path.clone()).or_default().insert(kind);
        }
        match value {
            Value::Object(map) => {
                for (key, child) in map {
                    let path = if path.is_empty() {
                        key.clone()
                    } else {
                        format!("{path}.{key}")
                    };
                    walk(child, path, shape);
                }
            }
            Value::Array(items) => {
                for item in items {
                    walk(item, format!("{path}[]"), shape);
                }
            }
            _ => {}
        }
    }
    for payload in payloads {
        walk(payload, String::new(), &mut shape);
    }
    shape
        .into_iter()
        .map(|(path, kinds)| (path, kinds.into_iter().collect::<Vec<_>>().join("|")))
        .collect()
}
