//! One end-to-end run's world: a fresh HOME with the agent's base config, a
//! working directory, the stub's script and log, hook registration, and the
//! run itself (inside the loopback-only jail).

use super::agent::{self, Agent, HookLayout, STUB_PORT};
use super::jail;
use super::stub::{self, ModelCall, StubLog, Turn};
use serde_json::json;
use std::path::PathBuf;
use std::process::Command;
use std::time::Duration;

/// Where in the agent's life a hook is registered.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HookPoint {
    /// The turn is about to end (Claude/Codex `Stop`, Gemini `AfterAgent`).
    TurnEnd,
    /// The shell tool is about to run (`PreToolUse` on the shell tool,
    /// Gemini `BeforeTool`, Copilot `preToolUse`).
    PreShell,
}

/// A fresh sandbox for one agent run.
pub struct Sandbox {
    /// The agent under test.
    pub agent: Agent,
    /// The agent's executable.
    pub bin: PathBuf,
    /// Root of everything below (kept after the run for debugging).
    pub root: PathBuf,
    /// The fresh HOME.
    pub home: PathBuf,
    /// The agent's working directory (the "project").
    pub work: PathBuf,
    /// Where test hooks and helper scripts go.
    pub scripts: PathBuf,
    /// The stub's script file.
    pub script_path: PathBuf,
    /// The stub's JSONL log.
    pub log_path: PathBuf,
    /// Extra environment for the CLI (and so for its hooks).
    pub extra_env: Vec<(String, String)>,
    /// Deadline for one run.
    pub timeout: Duration,
    /// Codex only: pass `--dangerously-bypass-hook-trust` (default true;
    /// without it `codex exec` silently skips hooks nobody trusted).
    pub bypass_hook_trust: bool,
}

impl Sandbox {
    /// A fresh sandbox named `test_name` for `agent`; `None` when the e2e tests
    /// are skipped on purpose (`GUARD_E2E=skip`). Panics if the CLI is missing.
    pub fn new(agent: Agent, test_name: &str) -> Option<Sandbox> {
        let bin = agent.require()?;
        let root = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
            .join("e2e")
            .join(format!("{}-{test_name}", agent.name()));
        let _ = std::fs::remove_dir_all(&root);
        let (home, work, scripts) = (root.join("home"), root.join("work"), root.join("scripts"));
        for dir in [&home, &work, &scripts] {
            std::fs::create_dir_all(dir).expect("create sandbox dir");
        }
        agent.write_base_config(&home);
        // The sandbox lies inside this repository's target/: without a
        // repository of its own, the CLIs would take guard's for the project
        // (and put its status and commits in their prompts and transcripts).
        let git_init = Command::new("git")
            .args(["init", "-q"])
            .current_dir(&work)
            .status();
        if !git_init.is_ok_and(|s| s.success()) {
            eprintln!(
                "e2e: `git init` failed in {}: the CLI sees the enclosing repository",
                work.display()
            );
        }
        let timeout = std::env::var("GUARD_E2E_TIMEOUT_SECS")
            .ok()
            .and_then(|s| s.parse().ok())
            .unwrap_or(120);
        let sandbox = Sandbox {
            agent,
            bin,
            script_path: root.join("script.json"),
            log_path: root.join("stub.jsonl"),
            root,
            home,
            work,
            scripts,
            extra_env: Vec::new(),
            timeout: Duration::from_secs(timeout),
            bypass_hook_trust: true,
        };
        sandbox.script(&[Turn::text("stub_model: the test wrote no script")]);
        Some(sandbox)
    }

    /// Sets the turns the stub plays (priority order).
    pub fn script(&self, turns: &[Turn]) {
        stub::write_script(&self.script_path, turns);
    }

    /// Registers `command` as a hook at `point` in the agent's hook config in HOME.
    pub fn add_hook(&self, point: HookPoint, command: &str) {
        let (event, matcher) = match point {
            HookPoint::TurnEnd => (self.agent.turn_end_event(), None),
            HookPoint::PreShell => self.agent.pre_shell_event(),
        };
        self.add_hook_at(event, matcher, command);
    }

    /// Registers `command` as a hook on the native `event` (with `matcher`
    /// where the layout has matchers) in the agent's hook config in HOME.
    pub fn add_hook_at(&self, event: &str, matcher: Option<&str>, command: &str) {
        let file = self.agent.hooks_file(&self.home);
        let mut config = agent::read_json(&file);
        let timeout = self.agent.hook_timeout_one_minute();
        let entry = match self.agent.hook_layout() {
            HookLayout::Flat => {
                json!({"type": "command", "bash": command, "timeoutSec": timeout})
            }
            HookLayout::Nested | HookLayout::NestedTopLevel => {
                let mut group =
                    json!({"hooks": [{"type": "command", "command": command, "timeout": timeout}]});
                if let Some(matcher) = matcher {
                    group["matcher"] = json!(matcher);
                }
                group
            }
        };
        let events = match self.agent.hook_layout() {
            HookLayout::NestedTopLevel => &mut config,
            HookLayout::Flat | HookLayout::Nested => {
                if self.agent.hook_layout() == HookLayout::Flat {
                    config["version"] = json!(1);
                }
                if !config["hooks"].is_object() {
                    config["hooks"] = json!({});
                }
                &mut config["hooks"]
            }
        };
        match events[event].as_array_mut() {
            Some(entries) => entries.push(entry),
            None => events[event] = json!([entry]),
        }
        agent::write_json(&file, &config);
    }

    /// Adds an environment variable for the CLI and its hooks.
    pub fn set_env(&mut self, key: &str, value: &str) {
        self.extra_env.push((key.to_string(), value.to_string()));
    }

    /// The complete environment of the CLI: PATH (pinned CLIs and guard first),
    /// HOME, the agent's own variables, then `extra_env`.
    pub fn env(&self) -> Vec<(String, String)> {
        let mut path = vec![super::agents_dir().join("node_modules/.bin")];
        if let Some(dir) = super::guard_bin().parent() {
            path.push(dir.to_path_buf());
        }
        path.extend(std::env::split_paths(
            &std::env::var_os("PATH").unwrap_or_default(),
        ));
        let path = std::env::join_paths(path).expect("join PATH");
        let mut env = vec![
            ("PATH".to_string(), path.to_string_lossy().into_owned()),
            ("HOME".to_string(), self.home.display().to_string()),
            ("LANG".to_string(), "C.UTF-8".to_string()),
            ("TERM".to_string(), "dumb".to_string()),
        ];
        env.extend(self.agent.env(&self.home));
        env.extend(self.extra_env.iter().cloned());
        env
    }

    /// A command for `program` with the sandbox's environment and working
    /// directory (e.g. to run `guard install --agent X` into this HOME).
    pub fn command(&self, program: impl AsRef<std::ffi::OsStr>) -> Command {
        let mut command = Command::new(program);
        command.env_clear().envs(self.env()).current_dir(&self.work);
        command
    }

    /// Runs the agent headless on `prompt`, inside the jail, and collects the result.
    pub fn run(&self, prompt: &str) -> Run {
        let mut argv = vec![self.bin.display().to_string()];
        argv.extend(
            self.agent
                .args(prompt)
                .into_iter()
                .filter(|a| self.bypass_hook_trust || a != "--dangerously-bypass-hook-trust"),
        );
        let outcome = jail::run(jail::Launch {
            stub: super::stub_bin(),
            script: &self.script_path,
            log: &self.log_path,
            port: STUB_PORT,
            argv,
            cwd: &self.work,
            env: self.env(),
            timeout: self.timeout,
        });
        eprintln!(
            "e2e: {} run in {}: {:.1} s, exit {:?}{}",
            self.agent.name(),
            self.root.display(),
            outcome.elapsed.as_secs_f64(),
            outcome.code,
            if outcome.timed_out {
                " (TIMED OUT)"
            } else {
                ""
            }
        );
        Run {
            agent: self.agent,
            log: StubLog::read(&self.log_path),
            outcome,
            home: self.home.clone(),
        }
    }
}

/// The result of one run.
#[derive(Debug)]
pub struct Run {
    /// Which agent ran.
    pub agent: Agent,
    /// Exit code, output and wall time.
    pub outcome: jail::Outcome,
    /// What the stub saw and answered.
    pub log: StubLog,
    /// The sandbox HOME (for guard's decision log in `debug`).
    pub home: PathBuf,
}

impl Run {
    /// The model calls, in order.
    pub fn calls(&self) -> Vec<ModelCall> {
        self.log.model_calls()
    }

    /// Everything useful to understand a failed assertion.
    pub fn debug(&self) -> String {
        let tail = |s: &str| {
            s.chars()
                .rev()
                .take(3000)
                .collect::<Vec<_>>()
                .into_iter()
                .rev()
                .collect::<String>()
        };
        format!(
            "agent {} exit {:?} after {:.1} s\n--- stdout ---\n{}\n--- stderr (tail) ---\n{}\n--- model calls ---\n{}\n--- guard decisions ---\n{}",
            self.agent.name(),
            self.outcome.code,
            self.outcome.elapsed.as_secs_f64(),
            tail(&self.outcome.stdout),
            tail(&self.outcome.stderr),
            self.log.summary(),
            super::guard::decisions_summary(&self.home)
        )
    }

    /// Asserts the CLI finished by itself with exit code 0.
    pub fn assert_success(&self) {
        assert!(
            !self.outcome.timed_out && self.outcome.code == Some(0),
            "run did not succeed\n{}",
            self.debug()
        );
    }

    /// The agent's final answer as printed on stdout (`result` of Claude's
    /// and Qwen's JSON, `response` of Gemini's, the others' plain stdout).
    pub fn answer(&self) -> String {
        self.agent.answer_in(&self.outcome.stdout)
    }
}
