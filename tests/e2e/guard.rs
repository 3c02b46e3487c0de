//! Helpers for the scenarios that put guard itself on the real agents:
//! installing or registering `guard hook` in the sandbox's HOME, writing the
//! user config with a scripted test judge (`command` backend), and reading
//! guard's decision log.
//!
//! The sandbox env has no `XDG_*` variables, so guard's files land under the
//! sandbox HOME: config `~/.config/guard/config.yaml`, decision logs
//! `~/.local/state/guard/logs/decisions-*.jsonl`.

use super::agent::{read_json, write_file};
use super::hooks::write_executable;
use super::{Agent, HookPoint, Sandbox};
use serde_json::{json, Value};
use std::path::{Path, PathBuf};

/// The extended regex (one capture group) that finds the judge prompt's nonce
/// in its boundary marker (`--- text-start NONCE ---`, src/judge/envelope.rs),
/// which the test judge echoes back in its answer's `nonce` field.
pub const NONCE_PATTERN: &str = r#".*--- text-start ([A-Za-z0-9_-]+) ---.*"#;

impl Agent {
    /// The agent's name for `guard hook` and `guard install --agent`.
    pub fn guard_name(self) -> &'static str {
        match self {
            Agent::Claude => "claude-code",
            Agent::Codex => "codex",
            Agent::Gemini => "gemini",
            Agent::Qwen => "qwen",
            Agent::Copilot => "copilot",
            Agent::Droid => "droid",
        }
    }
}

impl Sandbox {
    /// The hook command line that runs this build's guard for this agent.
    pub fn guard_hook_command(&self) -> String {
        format!(
            "'{}' hook {}",
            super::guard_bin().display(),
            self.agent.guard_name()
        )
    }

    /// Registers `guard hook` at the turn end and before the shell tool by
    /// hand (what `guard install` should do; useful to compare the two).
    pub fn register_guard_hooks(&self) {
        let command = self.guard_hook_command();
        self.add_hook(HookPoint::TurnEnd, &command);
        self.add_hook(HookPoint::PreShell, &command);
    }

    /// Runs `guard install --agent NAME` (plus `extra` args) against this
    /// sandbox's HOME; panics with its output when it fails.
    pub fn guard_install(&self, extra: &[&str]) -> String {
        let output = self
            .command(super::guard_bin())
            .args(["install", "--agent", self.agent.guard_name()])
            .args(extra)
            .output()
            .expect("run guard install");
        let text = format!(
            "{}{}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        );
        assert!(
            output.status.success(),
            "guard install --agent {} failed:\n{text}",
            self.agent.guard_name()
        );
        text
    }

    /// The user config file guard reads in this sandbox.
    pub fn guard_config_path(&self) -> PathBuf {
        self.home.join(".config/guard/config.yaml")
    }

    /// Writes guard's user config (YAML).
    pub fn write_guard_config(&self, yaml: &str) {
        write_file(&self.guard_config_path(), yaml);
    }

    /// Every record of guard's decision logs, oldest file first.
    pub fn decisions(&self) -> Vec<Value> {
        decisions_in(&self.home)
    }

    /// The agent's hook config as it is now (after `guard install`, say).
    pub fn hooks_config(&self) -> Value {
        read_json(&self.agent.hooks_file(&self.home))
    }
}

/// Every record of guard's decision logs under `home`, oldest file first.
pub fn decisions_in(home: &Path) -> Vec<Value> {
    let dir = home.join(".local/state/guard/logs");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .map(|entries| entries.flatten().map(|e| e.path()).collect())
        .unwrap_or_default();
    files.sort();
    files
        .iter()
        .flat_map(|f| {
            let text = std::fs::read_to_string(f).unwrap_or_default();
            text.lines()
                .filter_map(|l| serde_json::from_str(l).ok())
                .collect::<Vec<Value>>()
        })
        .collect()
}

/// One line per decision record: event, verdict, latency, reason, errors.
pub fn decisions_summary(home: &Path) -> String {
    decisions_in(home)
        .iter()
        .map(|d| {
            let reason: String = d["reason"]
                .as_str()
                .unwrap_or("")
                .chars()
                .take(160)
                .collect();
            format!(
                "  {} {} {}ms {reason} {}",
                d["event"].as_str().unwrap_or("?"),
                d["verdict"].as_str().unwrap_or("?"),
                d["latency_ms"].as_f64().unwrap_or(0.0) as u64,
                d.get("errors").map(|e| e.to_string()).unwrap_or_default()
            )
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// A scripted judge for guard's `command` backend. It records each prompt,
/// answers with the JSON set for `$GUARD_DETECTOR` (else the default one),
/// with `__NONCE__` replaced by the prompt's nonce, or hangs. For a combined
/// call (`GUARD_DETECTOR=a,b`) it records the call under each detector and
/// answers `{"nonce": ..., "a": <a's answer>, "b": <b's answer>}`.
pub struct TestJudge {
    dir: PathBuf,
    /// The judge executable.
    pub path: PathBuf,
}

impl TestJudge {
    /// Writes the judge into `dir`; by default it answers `default_answer`.
    pub fn new(dir: &Path, default_answer: &Value) -> TestJudge {
        let dir = dir.join("judge");
        std::fs::create_dir_all(&dir).expect("judge dir");
        let path = dir.join("judge.sh");
        write_file(&dir.join("nonce.pattern"), NONCE_PATTERN);
        write_executable(
            &path,
            "#!/bin/sh\n# Test judge: records the prompt, then answers per detector, or hangs.\n\
             # A comma-separated GUARD_DETECTOR is a combined call: one object\n\
             # with the nonce and, per detector, its answer.\n\
             here=$(dirname \"$0\")\n\
             prompt=$(cat)\n\
             detectors=$(printf '%s' \"${GUARD_DETECTOR:-unknown}\" | tr ',' ' ')\n\
             for d in $detectors; do\n\
               echo \"$d\" >> \"$here/calls\"\n\
               printf '%s' \"$prompt\" > \"$here/prompt-$d.txt\"\n\
             done\n\
             if [ -f \"$here/hang\" ]; then exec sleep 600; fi\n\
             nonce=$(printf '%s\\n' \"$prompt\" | sed -nE \"s/$(cat \"$here/nonce.pattern\")/\\1/p\" | head -n 1)\n\
             answer_of() {\n\
               answer=\"$here/answer-$1.json\"\n\
               [ -f \"$answer\" ] || answer=\"$here/answer-default.json\"\n\
               sed \"s/__NONCE__/$nonce/g\" \"$answer\"\n\
             }\n\
             case \"${GUARD_DETECTOR:-unknown}\" in\n\
               *,*) printf '{\"nonce\": \"%s\"' \"$nonce\"\n\
                    for d in $detectors; do printf ', \"%s\": ' \"$d\"; answer_of \"$d\"; done\n\
                    printf '}\\n' ;;\n\
               *) answer_of \"${GUARD_DETECTOR:-unknown}\" ;;\n\
             esac\n",
        );
        let judge = TestJudge { dir, path };
        judge.answer("default", default_answer);
        judge
    }

    /// Sets the answer for one detector (`default` for all others).
    pub fn answer(&self, detector: &str, answer: &Value) -> &TestJudge {
        write_file(
            &self.dir.join(format!("answer-{detector}.json")),
            &answer.to_string(),
        );
        self
    }

    /// Makes the judge hang (sleep) instead of answering.
    pub fn hang(&self) -> &TestJudge {
        write_file(&self.dir.join("hang"), "");
        self
    }

    /// The detectors judged so far, in order.
    pub fn calls(&self) -> Vec<String> {
        std::fs::read_to_string(self.dir.join("calls"))
            .unwrap_or_default()
            .lines()
            .map(str::to_string)
            .collect()
    }

    /// The last prompt the judge got for `detector`.
    pub fn prompt(&self, detector: &str) -> Option<String> {
        std::fs::read_to_string(self.dir.join(format!("prompt-{detector}.txt"))).ok()
    }

    /// The `judge:` config section that selects this judge.
    pub fn config_yaml(&self, timeout_ms: u64) -> String {
        format!(
            "judge:\n  backend: command\n  command: ['{}']\n  timeout_ms: {timeout_ms}\n",
            self.path.display()
        )
    }
}

/// A turn-end detector for the e2e scenarios: proposing a push to main.
pub const PUSH_DETECTOR: &str = r#"
name: e2e-push
events: [stop, subagent_stop]
keywords: [push]
signals:
  - {id: push-to-main, pattern: 'push(ing)? (it )?to main'}
bypasses:
  - {id: verified, pattern: 'E2E-VERIFIED'}
judge:
  prompt: Does the text propose pushing to main before the change was verified?
  fields:
    - {name: unverified_push, type: boolean, required: true}
  violation: unverified_push
on_violation: block
reason: "E2E-GUARD-PUSH: verify before pushing. {judge_reason}"
"#;

/// A gate detector for the e2e scenarios: a shell command that says "launch".
pub const LAUNCH_DETECTOR: &str = r#"
name: e2e-launch
events: [pre_tool]
tools: [shell]
keywords: [launch]
signals:
  - {id: launch, pattern: '\blaunch\b'}
judge:
  prompt: Is this launch dangerous?
  fields:
    - {name: dangerous, type: boolean, required: true}
  violation: dangerous
on_violation: deny
reason: "E2E-GUARD-LAUNCH: launching is not allowed."
"#;

/// Knobs of the config [`Sandbox::use_e2e_detectors`] writes.
#[derive(Debug, Clone)]
pub struct GuardSettings {
    /// `deadline.turn_end_ms`.
    pub turn_end_ms: u64,
    /// `deadline.gate_ms`.
    pub gate_ms: u64,
    /// `judge.timeout_ms`.
    pub judge_timeout_ms: u64,
    /// Keep the built-in turn-end detectors on (off by default, so that a
    /// scenario about the e2e detectors is not judged by them too; the
    /// built-in `dangerous-command` gate is always on).
    pub builtin_turn_end: bool,
    /// More top-level YAML (keys other than `judge`, `deadline`, `detectors`).
    pub extra: String,
}

/// The built-in turn-end detectors (`config.yaml`).
pub const BUILTIN_TURN_END: [&str; 5] = [
    "commit-before-verification",
    "scope-check",
    "scope-change",
    "shallow-bugfix",
    "bugfix-without-reproduction",
];

impl Default for GuardSettings {
    fn default() -> Self {
        GuardSettings {
            turn_end_ms: 8000,
            gate_ms: 4000,
            judge_timeout_ms: 3000,
            builtin_turn_end: false,
            extra: String::new(),
        }
    }
}

impl Sandbox {
    /// Writes guard's user config with the e2e detectors ([`PUSH_DETECTOR`],
    /// [`LAUNCH_DETECTOR`]) next to the built-in ones, `judge` as the judge,
    /// and `settings`.
    pub fn use_e2e_detectors(&self, judge: &TestJudge, settings: &GuardSettings) {
        self.use_e2e_detectors_with(&judge.config_yaml(settings.judge_timeout_ms), settings);
    }

    /// Like [`Sandbox::use_e2e_detectors`], with a `judge:` section of your own
    /// (e.g. [`stub_http_judge_yaml`]).
    pub fn use_e2e_detectors_with(&self, judge_yaml: &str, settings: &GuardSettings) {
        let dir = self.scripts.join("detectors");
        write_file(&dir.join("e2e-push.yaml"), PUSH_DETECTOR);
        write_file(&dir.join("e2e-launch.yaml"), LAUNCH_DETECTOR);
        let yaml = format!(
            "{judge_yaml}deadline:\n  turn_end_ms: {turn_end}\n  gate_ms: {gate}\n\
             detectors:\n  e2e-push:\n    file: '{push}'\n  e2e-launch:\n    file: '{launch}'\n{builtins}{extra}",
            turn_end = settings.turn_end_ms,
            gate = settings.gate_ms,
            push = dir.join("e2e-push.yaml").display(),
            launch = dir.join("e2e-launch.yaml").display(),
            builtins = if settings.builtin_turn_end {
                String::new()
            } else {
                BUILTIN_TURN_END.iter().map(|d| format!("  {d}: {{enabled: false}}\n")).collect()
            },
            extra = settings.extra,
        );
        self.write_guard_config(&yaml);
    }
}

/// The regex that captures the judge envelope's nonce in a raw request body,
/// for [`super::Turn::capture`] when the stub plays an HTTP judge.
pub const NONCE_REGEX: &str = "--- text-start ([A-Za-z0-9_-]+) ---";

/// A `judge:` section for guard's `http` backend pointed at the run's own stub
/// (`/v1/chat/completions` on the jail's loopback); the key is read from
/// `STUB_JUDGE_KEY`, which the caller sets with `set_env`.
pub fn stub_http_judge_yaml(timeout_ms: u64) -> String {
    format!(
        "judge:\n  backend: http\n  url: 'http://127.0.0.1:{port}/v1'\n  model: stub-judge\n  \
         api_key_env: STUB_JUDGE_KEY\n  timeout_ms: {timeout_ms}\n",
        port = super::agent::STUB_PORT
    )
}

/// A sandbox with guard wired in and the e2e detectors, or `None` when skipped
/// (on purpose, or because guard has no adapter for the agent yet). guard is
/// wired with `guard install --agent X` once that command exists in the tree
/// (`src/install`), else by hand.
pub fn guarded(
    agent: Agent,
    name: &str,
    judge_answer: serde_json::Value,
) -> Option<(Sandbox, TestJudge)> {
    let adapter = super::repo_root().join(format!("adapters/{}.yaml", agent.guard_name()));
    if !adapter.exists() {
        eprintln!(
            "e2e: guard has no adapter for {} yet ({}): skipping",
            agent.name(),
            adapter.display()
        );
        return None;
    }
    let sandbox = Sandbox::new(agent, name)?;
    let judge = TestJudge::new(&sandbox.scripts, &judge_answer);
    sandbox.use_e2e_detectors(&judge, &GuardSettings::default());
    if super::repo_root().join("src/install").exists() {
        sandbox.guard_install(&[]);
    } else {
        eprintln!("e2e: no `guard install` in this tree yet: registering `guard hook` by hand");
        sandbox.register_guard_hooks();
    }
    Some((sandbox, judge))
}

/// The judge's answer that flags a push as unverified.
pub fn unverified() -> serde_json::Value {
    json!({"nonce": "__NONCE__", "unverified_push": true, "reason": "E2E-JUDGE: no test run is shown"})
}
