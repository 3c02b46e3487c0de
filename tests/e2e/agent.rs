//! The agent CLIs under test: pinned versions, install check, and what each
//! needs to run offline against the stub (config files, env, argv).
//!
//! What each CLI needs (found with the real binaries):
//! - Claude Code: `ANTHROPIC_BASE_URL` + a dummy `ANTHROPIC_API_KEY`, telemetry
//!   and updater off; `-p PROMPT --output-format json`; as root it refuses
//!   `bypassPermissions`, so `--allowedTools Bash` lets its shell tool run.
//! - Codex CLI: `CODEX_HOME/config.toml` naming a `responses` provider at the
//!   stub, with the features that look things up at startup switched off;
//!   `exec --skip-git-repo-check --dangerously-bypass-hook-trust` (without the
//!   last flag, exec silently skips untrusted hooks) and a writable sandbox.
//! - Gemini CLI: `GOOGLE_GEMINI_BASE_URL` + `GEMINI_API_KEY`, settings with
//!   API-key auth and `hooksConfig.enabled`, a trusted workspace, always
//!   `-m gemini-2.5-flash` (else its model router retries for minutes) and
//!   `--yolo` so that `run_shell_command` is offered.

use serde_json::{json, Value};
use std::path::{Path, PathBuf};

/// The port the stub listens on inside each run's private network namespace
/// (every run has its own loopback, so a fixed port never collides).
pub const STUB_PORT: u16 = 8765;

/// One of the real agent CLIs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Agent {
    /// `@anthropic-ai/claude-code`.
    Claude,
    /// `@openai/codex`.
    Codex,
    /// `@google/gemini-cli`.
    Gemini,
}

/// A pin from `tests/e2e/agents.json`.
#[derive(Debug, Clone, serde::Deserialize)]
pub struct Pin {
    /// npm package name.
    pub package: String,
    /// Exact version.
    pub version: String,
    /// Executable name in `node_modules/.bin`.
    pub bin: String,
}

impl Agent {
    /// Every agent, in a stable order.
    pub const ALL: [Agent; 3] = [Agent::Claude, Agent::Codex, Agent::Gemini];

    /// The key in `agents.json` and the name `guard install --agent` takes.
    pub fn name(self) -> &'static str {
        match self {
            Agent::Claude => "claude",
            Agent::Codex => "codex",
            Agent::Gemini => "gemini",
        }
    }

    /// The pinned package of this agent.
    pub fn pin(self) -> Pin {
        let path = super::repo_root().join("tests/e2e/agents.json");
        let text = std::fs::read_to_string(&path).expect("read tests/e2e/agents.json");
        let pins: std::collections::BTreeMap<String, Pin> =
            serde_json::from_str(&text).expect("parse agents.json");
        pins.get(self.name())
            .cloned()
            .unwrap_or_else(|| panic!("{} is not pinned in agents.json", self.name()))
    }

    /// The installed executable, if it is there at the pinned version.
    pub fn installed(self) -> Result<PathBuf, String> {
        let pin = self.pin();
        let dir = super::agents_dir();
        let bin = dir.join("node_modules/.bin").join(&pin.bin);
        let manifest = dir
            .join("node_modules")
            .join(&pin.package)
            .join("package.json");
        let version = std::fs::read_to_string(&manifest)
            .ok()
            .and_then(|t| serde_json::from_str::<Value>(&t).ok())
            .and_then(|v| v["version"].as_str().map(str::to_string));
        match version {
            Some(v) if v == pin.version && bin.exists() => Ok(bin),
            Some(v) => Err(format!(
                "{} is {v} in {}, pinned {}",
                pin.package,
                dir.display(),
                pin.version
            )),
            None => Err(format!(
                "{}@{} is not installed in {}",
                pin.package,
                pin.version,
                dir.display()
            )),
        }
    }

    /// The installed executable; `None` (after saying so) when `GUARD_E2E=skip`;
    /// panics with install instructions when the CLI is missing.
    pub fn require(self) -> Option<PathBuf> {
        if super::skip_requested() {
            eprintln!(
                "e2e: GUARD_E2E=skip is set: skipping the {} test",
                self.name()
            );
            return None;
        }
        match self.installed() {
            Ok(bin) => Some(bin),
            Err(why) => panic!(
                "e2e: {why}.\nInstall the pinned agent CLIs with `tests/e2e/install-agents.sh` \
                 (npm, about 30 s), or set GUARD_E2E=skip to skip the end-to-end tests on purpose."
            ),
        }
    }

    /// The hook event that ends a turn (where a Stop-style block applies).
    pub fn turn_end_event(self) -> &'static str {
        match self {
            Agent::Claude | Agent::Codex => "Stop",
            Agent::Gemini => "AfterAgent",
        }
    }

    /// The hook event before a tool runs, and the matcher for the shell tool.
    pub fn pre_shell_event(self) -> (&'static str, &'static str) {
        match self {
            Agent::Claude | Agent::Codex => ("PreToolUse", "Bash"),
            Agent::Gemini => ("BeforeTool", "run_shell_command"),
        }
    }

    /// The `timeout` value of a hook entry meaning one minute: Claude Code and
    /// Codex count seconds, Gemini CLI counts milliseconds (60 there means
    /// 60 ms, and the hook times out before it can answer).
    pub fn hook_timeout_one_minute(self) -> u64 {
        match self {
            Agent::Claude | Agent::Codex => 60,
            Agent::Gemini => 60_000,
        }
    }

    /// The JSON file that holds this agent's hooks, under `home`.
    pub fn hooks_file(self, home: &Path) -> PathBuf {
        match self {
            Agent::Claude => home.join(".claude/settings.json"),
            Agent::Codex => home.join(".codex/hooks.json"),
            Agent::Gemini => home.join(".gemini/settings.json"),
        }
    }

    /// Writes the base configuration a fresh `home` needs (no hooks).
    pub fn write_base_config(self, home: &Path) {
        let url = format!("http://127.0.0.1:{STUB_PORT}");
        match self {
            Agent::Claude => write_json(&home.join(".claude/settings.json"), &json!({})),
            Agent::Codex => {
                let toml = format!(
                    "model = \"stub-model\"\nmodel_provider = \"stub\"\ncheck_for_update_on_startup = false\n\n\
                     [model_providers.stub]\nname = \"stub\"\nbase_url = \"{url}/v1\"\nwire_api = \"responses\"\nenv_key = \"STUB_API_KEY\"\n\n\
                     [analytics]\nenabled = false\n\n\
                     # Each of these makes codex look up github.com or chatgpt.com at startup.\n\
                     [features]\napps = false\nplugins = false\nremote_plugin = false\nin_app_updates = false\n\
                     plugin_sharing = false\nskill_mcp_dependency_install = false\n"
                );
                write_file(&home.join(".codex/config.toml"), &toml);
            }
            Agent::Gemini => write_json(
                &home.join(".gemini/settings.json"),
                &json!({
                    "security": {"auth": {"selectedType": "gemini-api-key"}},
                    "privacy": {"usageStatisticsEnabled": false},
                    "telemetry": {"enabled": false},
                    "general": {"disableAutoUpdate": true, "disableUpdateNag": true},
                    "hooksConfig": {"enabled": true}
                }),
            ),
        }
    }

    /// Environment variables (beyond PATH and HOME) for a run with `home`.
    pub fn env(self, home: &Path) -> Vec<(String, String)> {
        let url = format!("http://127.0.0.1:{STUB_PORT}");
        let pairs: Vec<(&str, String)> = match self {
            Agent::Claude => vec![
                ("ANTHROPIC_BASE_URL", url),
                ("ANTHROPIC_API_KEY", "dummy".into()),
                ("DISABLE_TELEMETRY", "1".into()),
                ("DISABLE_ERROR_REPORTING", "1".into()),
                ("DISABLE_AUTOUPDATER", "1".into()),
                ("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1".into()),
            ],
            Agent::Codex => vec![
                ("CODEX_HOME", home.join(".codex").display().to_string()),
                ("STUB_API_KEY", "dummy".into()),
            ],
            Agent::Gemini => vec![
                ("GEMINI_API_KEY", "dummy".into()),
                ("GOOGLE_GEMINI_BASE_URL", url),
                ("GEMINI_CLI_NO_RELAUNCH", "1".into()),
                ("GEMINI_CLI_TRUST_WORKSPACE", "true".into()),
            ],
        };
        pairs.into_iter().map(|(k, v)| (k.to_string(), v)).collect()
    }

    /// The argv (after the executable) for a headless run of `prompt`.
    pub fn args(self, prompt: &str) -> Vec<String> {
        let args: Vec<&str> = match self {
            Agent::Claude => vec![
                "-p",
                prompt,
                "--output-format",
                "json",
                "--allowedTools",
                "Bash",
            ],
            Agent::Codex => vec![
                "exec",
                "--skip-git-repo-check",
                "--dangerously-bypass-hook-trust",
                "-s",
                "workspace-write",
                prompt,
            ],
            Agent::Gemini => vec![
                "-p",
                prompt,
                "-m",
                "gemini-2.5-flash",
                "--output-format",
                "json",
                "--yolo",
            ],
        };
        args.into_iter().map(str::to_string).collect()
    }
}

/// Writes `text` to `path`, creating parent directories.
pub fn write_file(path: &Path, text: &str) {
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).expect("create config dir");
    }
    std::fs::write(path, text).unwrap_or_else(|e| panic!("write {}: {e}", path.display()));
}

/// Writes `value` as pretty JSON to `path`.
pub fn write_json(path: &Path, value: &Value) {
    write_file(
        path,
        &serde_json::to_string_pretty(value).expect("serialize json"),
    );
}

/// Reads a JSON file, or `{}` when it does not exist.
pub fn read_json(path: &Path) -> Value {
    match std::fs::read_to_string(path) {
        Ok(text) => {
            serde_json::from_str(&text).unwrap_or_else(|e| panic!("parse {}: {e}", path.display()))
        }
        Err(_) => json!({}),
    }
}
