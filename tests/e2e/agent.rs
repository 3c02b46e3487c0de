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
//! - Qwen Code: `OPENAI_BASE_URL` + `OPENAI_API_KEY` + `OPENAI_MODEL` with
//!   `security.auth.selectedType: openai` (Chat Completions); the prompt as
//!   the positional argument, `--output-format json --yolo`.
//! - GitHub Copilot CLI: its BYOK mode, `COPILOT_PROVIDER_BASE_URL` (Chat
//!   Completions) with `COPILOT_OFFLINE=true`, which needs no GitHub login;
//!   `-p PROMPT --allow-all-tools --no-auto-update -s`.
//! - Factory Droid: a BYOK custom model in `~/.factory/settings.json`
//!   (`provider: generic-chat-completion-api`, `baseUrl` at the stub), which
//!   needs no Factory login; `exec --auto high -m custom:stub-model PROMPT`.

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
    /// `@qwen-code/qwen-code`.
    Qwen,
    /// `@github/copilot` (camelCase hooks).
    Copilot,
    /// `@factory/cli` (`droid`).
    Droid,
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
    /// More packages installed beside it (e.g. a platform binary the main
    /// package does not pull in by itself), as `name@version`.
    #[serde(default)]
    pub with: Vec<String>,
}

/// How an agent's hook file lays out its entries.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HookLayout {
    /// `{"hooks": {"<Event>": [{"matcher"?, "hooks": [{"type", "command", "timeout"}]}]}}`.
    Nested,
    /// The same event map at the top level of the file (Factory Droid).
    NestedTopLevel,
    /// `{"version": 1, "hooks": {"<event>": [{"type", "bash", "timeoutSec"}]}}` (Copilot).
    Flat,
}

impl Agent {
    /// Every agent, in a stable order.
    pub const ALL: [Agent; 6] = [
        Agent::Claude,
        Agent::Codex,
        Agent::Gemini,
        Agent::Qwen,
        Agent::Copilot,
        Agent::Droid,
    ];

    /// The key in `agents.json` and the prefix of its captured fixtures.
    pub fn name(self) -> &'static str {
        match self {
            Agent::Claude => "claude",
            Agent::Codex => "codex",
            Agent::Gemini => "gemini",
            Agent::Qwen => "qwen",
            Agent::Copilot => "copilot",
            Agent::Droid => "droid",
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
            Ok(bin) => {
                self.warm_shared_cache(&bin);
                Some(bin)
            }
            Err(why) => panic!(
                "e2e: {why}.\nInstall the pinned agent CLIs with `tests/e2e/install-agents.sh` \
                 (npm, about 30 s), or set GUARD_E2E=skip to skip the end-to-end tests on purpose."
            ),
        }
    }

    /// The cache folder (`XDG_CACHE_HOME`) runs of this agent share, when
    /// they share one: Copilot CLI unpacks itself (235 MB, 5 s) into its
    /// cache on the first start, which a fresh HOME would redo every run.
    pub fn shared_cache(self) -> Option<PathBuf> {
        (self == Agent::Copilot).then(|| super::agents_dir().join("xdg-cache"))
    }

    /// Fills the shared cache once, before parallel runs could race to.
    /// `tests/e2e/install-agents.sh` does the same.
    fn warm_shared_cache(self, bin: &Path) {
        static WARM: std::sync::Once = std::sync::Once::new();
        let Some(cache) = self.shared_cache() else {
            return;
        };
        WARM.call_once(|| {
            let status = std::process::Command::new(bin)
                .arg("--version")
                .env("XDG_CACHE_HOME", &cache)
                .env("COPILOT_AUTO_UPDATE", "false")
                .stdin(std::process::Stdio::null())
                .stdout(std::process::Stdio::null())
                .status();
            if !status.is_ok_and(|s| s.success()) {
                eprintln!(
                    "e2e: `{} --version` failed: the cache stays cold",
                    bin.display()
                );
            }
        });
    }

    /// The hook event that ends a turn (where a Stop-style block applies).
    pub fn turn_end_event(self) -> &'static str {
        match self {
            Agent::Claude | Agent::Codex | Agent::Qwen | Agent::Droid => "Stop",
            Agent::Gemini => "AfterAgent",
            Agent::Copilot => "agentStop",
        }
    }

    /// The hook event before a tool runs, and the matcher for the shell tool
    /// (Copilot's camelCase entries have no matcher).
    pub fn pre_shell_event(self) -> (&'static str, Option<&'static str>) {
        match self {
            Agent::Claude | Agent::Codex => ("PreToolUse", Some("Bash")),
            Agent::Gemini => ("BeforeTool", Some("run_shell_command")),
            Agent::Qwen => ("PreToolUse", Some("run_shell_command")),
            Agent::Copilot => ("preToolUse", None),
            Agent::Droid => ("PreToolUse", Some("Execute")),
        }
    }

    /// Whether the payload names its event in `hook_event_name` (Copilot's
    /// camelCase payloads name none: the event is told by the shape).
    pub fn payload_names_its_event(self) -> bool {
        self != Agent::Copilot
    }

    /// Whether a turn-end hook that exits 2 blocks the turn end. Copilot CLI
    /// ignores exit 2 on agentStop; only `{"decision":"block"}` continues it.
    pub fn turn_end_honours_exit_2(self) -> bool {
        self != Agent::Copilot
    }

    /// Whether the tool still runs when guard crashes at the gate (aborts
    /// with no answer), as seen on the pinned version with the entries
    /// `guard install` writes: Claude Code blocks (`onFailure: block`), and
    /// Copilot CLI denies on any non-zero exit of a preToolUse hook.
    pub fn crashed_gate_runs_the_tool(self) -> bool {
        !matches!(self, Agent::Claude | Agent::Copilot)
    }

    /// The `timeout` value of a hook entry meaning one minute: Gemini CLI
    /// counts milliseconds (60 there means 60 ms, and the hook times out
    /// before it can answer); the others count seconds (Qwen Code reads
    /// values of 1000 and more as milliseconds, its old unit).
    pub fn hook_timeout_one_minute(self) -> u64 {
        match self {
            Agent::Gemini => 60_000,
            _ => 60,
        }
    }

    /// The JSON file that holds this agent's hooks, under `home` (for
    /// Copilot, the file `guard install` writes in its hooks folder).
    pub fn hooks_file(self, home: &Path) -> PathBuf {
        match self {
            Agent::Claude => home.join(".claude/settings.json"),
            Agent::Codex => home.join(".codex/hooks.json"),
            Agent::Gemini => home.join(".gemini/settings.json"),
            Agent::Qwen => home.join(".qwen/settings.json"),
            Agent::Copilot => home.join(".copilot/hooks/guard.json"),
            Agent::Droid => home.join(".factory/hooks.json"),
        }
    }

    /// How the hooks file lays out its entries.
    pub fn hook_layout(self) -> HookLayout {
        match self {
            Agent::Copilot => HookLayout::Flat,
            Agent::Droid => HookLayout::NestedTopLevel,
            _ => HookLayout::Nested,
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
            Agent::Qwen => write_json(
                &home.join(".qwen/settings.json"),
                &json!({
                    "security": {"auth": {"selectedType": "openai"}},
                    "privacy": {"usageStatisticsEnabled": false},
                    "telemetry": {"enabled": false},
                    "general": {"disableAutoUpdate": true, "disableUpdateNag": true},
                    // Else a background memory agent asks the model once more
                    // after every answer.
                    "memory": {"enableManagedAutoMemory": false, "enableManagedAutoDream": false}
                }),
            ),
            // Copilot writes its own config.json on the first run.
            Agent::Copilot => {}
            Agent::Droid => write_json(
                &home.join(".factory/settings.json"),
                &json!({"customModels": [{
                    "model": "stub-model", "displayName": "Stub", "baseUrl": format!("{url}/v1"),
                    "apiKey": "dummy", "provider": "generic-chat-completion-api", "maxOutputTokens": 4096
                }]}),
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
            Agent::Qwen => vec![
                ("OPENAI_API_KEY", "dummy".into()),
                ("OPENAI_BASE_URL", format!("{url}/v1")),
                ("OPENAI_MODEL", "stub-model".into()),
                ("QWEN_CODE_SUPPRESS_YOLO_WARNING", "1".into()),
            ],
            Agent::Copilot => vec![
                (
                    "XDG_CACHE_HOME",
                    self.shared_cache()
                        .unwrap_or_default()
                        .display()
                        .to_string(),
                ),
                ("COPILOT_OFFLINE", "true".into()),
                ("COPILOT_PROVIDER_BASE_URL", format!("{url}/v1")),
                ("COPILOT_PROVIDER_API_KEY", "dummy".into()),
                ("COPILOT_MODEL", "stub-model".into()),
                ("COPILOT_AUTO_UPDATE", "false".into()),
            ],
            Agent::Droid => vec![],
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
            Agent::Qwen => vec![prompt, "--output-format", "json", "--yolo"],
            Agent::Copilot => vec!["-p", prompt, "--allow-all-tools", "--no-auto-update", "-s"],
            Agent::Droid => vec!["exec", "--auto", "high", "-m", "custom:stub-model", prompt],
        };
        args.into_iter().map(str::to_string).collect()
    }

    /// The agent's final answer in what it printed on stdout.
    pub fn answer_in(self, stdout: &str) -> String {
        let stdout = stdout.trim();
        let parsed: Option<Value> = serde_json::from_str(stdout).ok();
        match (self, parsed) {
            (Agent::Claude, Some(v)) => v["result"].as_str().unwrap_or_default().to_string(),
            (Agent::Gemini, Some(v)) => v["response"].as_str().unwrap_or_default().to_string(),
            // Qwen's JSON is the list of events; the last one is the result.
            (Agent::Qwen, Some(Value::Array(events))) => events
                .iter()
                .rev()
                .find(|e| e["type"] == "result")
                .and_then(|e| e["result"].as_str())
                .unwrap_or_default()
                .to_string(),
            _ => stdout.to_string(),
        }
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
