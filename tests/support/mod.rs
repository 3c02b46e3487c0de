//! Shared helpers for the integration tests: an isolated environment
//! (HOME, XDG dirs) per test and a way to run `guard` in it.
#![allow(dead_code)]

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

/// Spawns `cmd` with piped streams and writes `stdin` to it (then closes it).
pub fn spawn_with(mut cmd: Command, stdin: &[u8]) -> Child {
    let mut child = cmd
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn guard");
    let _ = child.stdin.take().unwrap().write_all(stdin);
    child
}

/// A temp HOME with XDG dirs inside, removed on drop.
pub struct Sandbox {
    pub dir: tempfile::TempDir,
}

impl Sandbox {
    pub fn new() -> Sandbox {
        Sandbox {
            dir: tempfile::tempdir().expect("tempdir"),
        }
    }

    pub fn path(&self) -> &Path {
        self.dir.path()
    }

    pub fn state_dir(&self) -> PathBuf {
        self.path().join("state/guard")
    }

    /// Writes a file under the sandbox and returns its path.
    pub fn write(&self, rel: &str, content: &str) -> PathBuf {
        let p = self.path().join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(&p, content).unwrap();
        p
    }

    /// A `guard` command with the sandbox's environment.
    pub fn guard(&self, args: &[&str]) -> Command {
        let mut c = Command::new(env!("CARGO_BIN_EXE_guard"));
        c.args(args)
            .env_clear()
            .env("PATH", std::env::var("PATH").unwrap_or_default())
            .env("HOME", self.path())
            .env("XDG_CONFIG_HOME", self.path().join("config"))
            .env("XDG_STATE_HOME", self.path().join("state"))
            .current_dir(self.path());
        c
    }

    /// Runs `guard ARGS` with `stdin`, returns the output.
    pub fn run(&self, args: &[&str], stdin: &[u8]) -> Output {
        self.run_with(self.guard(args), stdin)
    }

    pub fn run_with(&self, cmd: Command, stdin: &[u8]) -> Output {
        spawn_with(cmd, stdin)
            .wait_with_output()
            .expect("wait guard")
    }

    /// Like [`Sandbox::run_with`], but kills the process (so that the
    /// caller's checks fail rather than the suite hanging) if it has not
    /// exited after `limit`.
    pub fn run_killed_after(&self, cmd: Command, stdin: &[u8], limit: Duration) -> Output {
        let mut child = spawn_with(cmd, stdin);
        let started = Instant::now();
        while child.try_wait().expect("wait guard").is_none() {
            if started.elapsed() > limit {
                let _ = child.kill();
                break;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        child.wait_with_output().expect("wait guard")
    }

    /// Every decision-log record written so far.
    pub fn log_records(&self) -> Vec<serde_json::Value> {
        guard::log::read_all(&self.state_dir().join("logs"))
    }
}

pub fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

pub fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// The repository's file at `rel`.
pub fn repo_file(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(rel)
}

/// A documented payload, `tests/fixtures/<rel>`.
pub fn documented(rel: &str) -> serde_json::Value {
    serde_json::from_slice(&std::fs::read(repo_file(&format!("tests/fixtures/{rel}"))).unwrap())
        .unwrap()
}

/// What `guard hook` answered: stdout as JSON (null when empty), stderr,
/// exit code.
pub struct Answer {
    pub json: serde_json::Value,
    pub stderr: String,
    pub code: i32,
}

impl Sandbox {
    /// `guard hook <agent> --config <test config with extra>` with the payload.
    pub fn hook(&self, agent: &str, extra_config: &str, payload: &serde_json::Value) -> Answer {
        let cfg = self.test_config(extra_config);
        let out = self.run(
            &["hook", agent, "--config", cfg.to_str().unwrap()],
            payload.to_string().as_bytes(),
        );
        let text = stdout(&out);
        let json = if text.trim().is_empty() {
            serde_json::Value::Null
        } else {
            serde_json::from_str(&text).unwrap_or_else(|e| panic!("{agent}: {e}: {text:?}"))
        };
        Answer {
            json,
            stderr: stderr(&out),
            code: out.status.code().unwrap_or(-1),
        }
    }
}

pub fn fixture(name: &str) -> Vec<u8> {
    std::fs::read(repo_file(&format!("tests/fixtures/captured/{name}"))).expect("fixture")
}

/// A detector file for tests: blocks turn ends that say "ship it now", and
/// asks on shell commands containing "launch". The built-in turn-end
/// detectors are switched off so that only the test detectors decide.
pub const TEST_DETECTORS: &str = r#"
detectors:
  ship-now:
    file: DIR/ship-now.yaml
  launch:
    file: DIR/launch.yaml
  commit-before-verification: {enabled: false}
  scope-check: {enabled: false}
  scope-change: {enabled: false}
  shallow-bugfix: {enabled: false}
  bugfix-without-reproduction: {enabled: false}
"#;

pub const SHIP_NOW: &str = r#"
name: ship-now
events: [stop, subagent_stop]
keywords: [ship]
signals:
  - {id: ship-it-now, pattern: 'ship it now'}
bypasses:
  - {id: tests-pass, pattern: 'all tests pass'}
judge:
  prompt: Does the text propose to ship now?
  fields:
    - {name: new_proposal, type: boolean, required: true}
  violation: new_proposal
on_violation: block
reason: "Do not ship before verification. {judge_reason}"
"#;

pub const LAUNCH: &str = r#"
name: launch
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
on_violation: ask
reason: "Launching needs a human."
"#;

impl Sandbox {
    /// Writes the test detectors and a config using them; `extra` is YAML
    /// appended to the config. Returns the config path.
    pub fn test_config(&self, extra: &str) -> PathBuf {
        let dir = self.path().join("detectors");
        self.write("detectors/ship-now.yaml", SHIP_NOW);
        self.write("detectors/launch.yaml", LAUNCH);
        let cfg = TEST_DETECTORS.replace("DIR", &dir.display().to_string());
        self.write("test-config.yaml", &format!("{cfg}\n{extra}"))
    }
}

/// The `test_judge` example (built by a plain `cargo test`).
pub fn test_judge() -> PathBuf {
    let exe = std::env::current_exe().expect("test exe");
    let path = exe
        .parent()
        .and_then(Path::parent)
        .expect("profile dir")
        .join("examples/test_judge");
    assert!(
        path.exists(),
        "{} is missing: run `cargo build --examples` or plain `cargo test`",
        path.display()
    );
    path
}

impl Sandbox {
    /// A config with the test detectors and the test judge in `mode`
    /// (`answers=FILE`, `hang`, …), plus `extra` YAML.
    pub fn judged_config(&self, mode: &str, timeout_ms: u64, extra: &str) -> PathBuf {
        let judge = format!(
            "judge: {{backend: command, command: [{:?}, {:?}], timeout_ms: {timeout_ms}, cache_ttl_s: 0}}\ndeadline: {{turn_end_ms: 3000, gate_ms: 3000}}\n{extra}",
            test_judge().display().to_string(),
            mode
        );
        self.test_config(&judge)
    }

    /// A rules file for the test judge: `(detector, contains, fields)`.
    pub fn answers(&self, rules: &[(&str, &str, serde_json::Value)]) -> String {
        let rules: Vec<serde_json::Value> = rules
            .iter()
            .map(|(d, c, f)| serde_json::json!({"detector": d, "contains": c, "fields": f}))
            .collect();
        let p = self.write("answers.json", &serde_json::json!({"rules": rules, "default": {"new_proposal": false, "dangerous": false}}).to_string());
        format!("answers={}", p.display())
    }
}

/// A second turn-end detector on the same words as `ship-now` (keyword
/// `ship`, signal `ship it`), with a field of its own: with both, one stop
/// event makes two detectors hit on the same text.
pub const SHIP_CHECK: &str = r#"
name: ship-check
events: [stop, subagent_stop]
keywords: [ship]
signals:
  - {id: ship-it, pattern: 'ship it'}
judge:
  prompt: Does the text ship without verification?
  fields:
    - {name: unverified, type: boolean, required: true}
  violation: unverified
on_violation: block
reason: "Verify before shipping. {judge_reason}"
"#;

impl Sandbox {
    /// Like [`Sandbox::judged_config`], with `ship-check` enabled as well,
    /// so `ship-now` and `ship-check` both hit on "ship it now"; `combine`
    /// is `judge.combine`.
    pub fn two_judged_config(&self, mode: &str, combine: bool, extra: &str) -> PathBuf {
        let dir = self.path().join("detectors");
        self.write("detectors/ship-now.yaml", SHIP_NOW);
        self.write("detectors/launch.yaml", LAUNCH);
        self.write("detectors/ship-check.yaml", SHIP_CHECK);
        let detectors = TEST_DETECTORS
            .replace(
                "detectors:\n",
                "detectors:\n  ship-check:\n    file: DIR/ship-check.yaml\n",
            )
            .replace("DIR", &dir.display().to_string());
        let judge = format!(
            "judge: {{backend: command, command: [{:?}, {:?}], timeout_ms: 2000, cache_ttl_s: 0, combine: {combine}}}\ndeadline: {{turn_end_ms: 3000, gate_ms: 3000}}\n{extra}",
            test_judge().display().to_string(),
            mode
        );
        self.write("test-config.yaml", &format!("{detectors}\n{judge}"))
    }
}

/// What one Claude Code stop hook did: its answer (null when allowed), the
/// judge calls (each call's `GUARD_DETECTOR`, from the test judge's
/// `GUARD_TEST_JUDGE_CALLS`) and its log record's detector reports.
pub struct StopRun {
    pub answer: serde_json::Value,
    pub calls: Vec<String>,
    pub detectors: Vec<serde_json::Value>,
}

impl StopRun {
    /// The report of detector `name`.
    pub fn detector(&self, name: &str) -> &serde_json::Value {
        self.detectors
            .iter()
            .find(|d| d["name"] == name)
            .unwrap_or_else(|| panic!("no report for {name}: {:?}", self.detectors))
    }

    /// The detectors of the one judge call, sorted.
    pub fn one_call(&self) -> Vec<&str> {
        assert_eq!(self.calls.len(), 1, "one judge call: {:?}", self.calls);
        let mut names: Vec<&str> = self.calls[0].split(',').collect();
        names.sort();
        names
    }
}

impl Sandbox {
    /// Runs `guard hook claude-code --config cfg` on a Stop event of
    /// `session` whose last message is `text`.
    pub fn stop_run(&self, cfg: &Path, session: &str, text: &str) -> StopRun {
        let calls_file = self.path().join(format!("calls-{session}"));
        let mut cmd = self.guard(&["hook", "claude-code", "--config", cfg.to_str().unwrap()]);
        cmd.env("GUARD_TEST_JUDGE_CALLS", &calls_file);
        let payload = serde_json::json!({"session_id": session, "cwd": "/tmp", "prompt_id": session,
            "hook_event_name": "Stop", "stop_hook_active": false, "last_assistant_message": text});
        let out = self.run_with(cmd, payload.to_string().as_bytes());
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        let answer = match stdout(&out) {
            s if s.trim().is_empty() => serde_json::Value::Null,
            s => serde_json::from_str(&s).unwrap_or_else(|e| panic!("{e}: {s}")),
        };
        let calls = std::fs::read_to_string(&calls_file)
            .unwrap_or_default()
            .lines()
            .map(str::to_string)
            .collect();
        let record = self
            .log_records()
            .into_iter()
            .rfind(|r| r["session"] == session)
            .expect("a log record");
        StopRun {
            answer,
            calls,
            detectors: record["detectors"].as_array().cloned().unwrap_or_default(),
        }
    }
}
