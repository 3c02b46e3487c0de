//! Shared set-up of the measuring tests (eval, replay, shadow, pause): a
//! temporary home with its own XDG directories, a user config that turns
//! every built-in detector off and loads the test detectors below, and a
//! way to run the `guard` binary in it.

#![allow(dead_code)]

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

/// A commit-proposal detector: keywords, a signal, a bypass, a judge.
pub const COMMIT: &str = r#"
name: t-commit
events: [stop]
keywords: [commit, push]
signals:
  - {id: proposal, pattern: "(shall|should|can) i (commit|push)|ready to (commit|push)"}
bypasses:
  - {id: tests-passed, pattern: "tests? (pass|passed)"}
judge:
  prompt: Does the assistant propose to record or publish its changes?
  fields:
    - {name: new_proposal, type: boolean, required: true}
  violation: new_proposal
reason: "Verify before you propose it. {judge_reason}"
"#;

/// A scope-shrinking detector.
pub const SCOPE: &str = r#"
name: t-scope
events: [stop]
keywords: [later, defer, out of scope, follow-up]
signals:
  - {id: defer, pattern: "(defer|leave) .* (later|follow-up)|out of scope"}
bypasses:
  - {id: user-asked, pattern: "as you asked"}
judge:
  prompt: Does the assistant drop part of the agreed work?
  fields:
    - {name: shrinks_scope, type: boolean, required: true}
  violation: shrinks_scope
reason: "Do the whole agreed task. {judge_reason}"
"#;

/// A destructive-command detector for pre-tool events (no shell rules:
/// signals on the command line, the judge decides, violations deny).
pub const RM: &str = r#"
name: t-rm
events: [pre_tool]
tools: [shell]
keywords: [rm, git push]
signals:
  - {id: rm-rf, pattern: "rm\\s+-rf"}
  - {id: force-push, pattern: "git push .*--force"}
judge:
  prompt: Does the command destroy work?
  fields:
    - {name: destructive, type: boolean, required: true}
  violation: destructive
on_violation: deny
reason: "Destructive command. {judge_reason}"
"#;

/// A temporary home for one test.
pub struct Env {
    pub dir: tempfile::TempDir,
}

impl Env {
    /// A fresh home with the test detectors written and a user config that
    /// disables the built-ins, loads the test detectors, fails the judge
    /// (`none`) and turns a failed turn-end judgment into a block, so that
    /// a Layer-1 hit blocks deterministically.
    pub fn new() -> Env {
        let env = Env {
            dir: tempfile::tempdir().unwrap(),
        };
        for (name, text) in [("t-commit", COMMIT), ("t-scope", SCOPE), ("t-rm", RM)] {
            env.write(&format!("detectors/{name}.yaml"), text);
        }
        env.user_config("");
        env
    }

    /// The root of the temporary home.
    pub fn path(&self) -> &Path {
        self.dir.path()
    }

    /// Writes a file under the home; returns its path.
    pub fn write(&self, rel: &str, content: &str) -> PathBuf {
        let p = self.path().join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(&p, content).unwrap();
        p
    }

    /// The base user config plus `extra` YAML (top-level keys merged by hand:
    /// `extra` is appended and must not repeat `judge`, `failure` or `detectors`).
    pub fn base_config(&self, extra: &str) -> String {
        let mut detectors = String::new();
        for spec in guard::detector::load::builtins().unwrap() {
            detectors.push_str(&format!("  {}: {{enabled: false}}\n", spec.name));
        }
        for name in ["t-commit", "t-scope", "t-rm"] {
            detectors.push_str(&format!(
                "  {name}: {{file: {}}}\n",
                self.path().join(format!("detectors/{name}.yaml")).display()
            ));
        }
        format!("judge: {{backend: none}}\nfailure: {{stop: block, pre_tool: ask}}\ndetectors:\n{detectors}{extra}")
    }

    /// Writes the user config (`$XDG_CONFIG_HOME/guard/config.yaml`).
    pub fn user_config(&self, extra: &str) {
        self.write("config/guard/config.yaml", &self.base_config(extra));
    }

    /// The state directory guard uses.
    pub fn state_dir(&self) -> PathBuf {
        self.path().join("state/guard")
    }

    /// The decision log directory.
    pub fn log_dir(&self) -> PathBuf {
        self.state_dir().join("logs")
    }

    /// Runs guard with `args` (and `stdin`), in the home, with its own XDG dirs.
    pub fn guard(&self, args: &[&str], stdin: Option<&str>) -> Output {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_guard"));
        cmd.args(args)
            .current_dir(self.path())
            .env("HOME", self.path())
            .env("XDG_CONFIG_HOME", self.path().join("config"))
            .env("XDG_STATE_HOME", self.path().join("state"))
            .env_remove("GUARD_CONFIG")
            .env_remove("GUARD_JUDGE_ACTIVE")
            .env_remove("GUARD_FAULT")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        let mut child = cmd.spawn().unwrap();
        let mut pipe = child.stdin.take().unwrap();
        pipe.write_all(stdin.unwrap_or("").as_bytes()).unwrap();
        drop(pipe);
        child.wait_with_output().unwrap()
    }

    /// Runs `guard hook generic` on a stop event with this text.
    pub fn stop(&self, text: &str, extra_args: &[&str]) -> Output {
        let payload = serde_json::json!({"event": "stop", "text": text}).to_string();
        let mut args: Vec<&str> = extra_args.to_vec();
        args.extend(["hook", "generic"]);
        self.guard(&args, Some(&payload))
    }

    /// Runs `guard hook generic` on a pre-tool shell event.
    pub fn pre_tool(&self, command: &str) -> Output {
        let payload = serde_json::json!({"event": "pre_tool", "tool": "Bash", "command": command})
            .to_string();
        self.guard(&["hook", "generic"], Some(&payload))
    }

    /// Every record of the decision log.
    pub fn log(&self) -> Vec<serde_json::Value> {
        guard::log::read_all(&self.log_dir())
    }
}

/// Stdout as a string.
pub fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// Stderr as a string.
pub fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}
