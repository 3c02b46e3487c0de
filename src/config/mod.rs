//! One YAML config for every agent, in layers: the embedded `config.yaml` <
//! the user's file < the project's `.guard.yaml` < `--config`/`GUARD_CONFIG`.
//!
//! Each layer is checked on its own (so an error names its file, line and
//! column), then the layers are deep-merged as JSON values (later wins) with
//! the source of every leaf kept for `guard config show`; per-agent
//! overrides (`agents.<name>`) are merged last for the agent at hand.

mod layers;
mod merge;
mod tighten;

use crate::event::EventKind;
use crate::verdict::Decision;
use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::PathBuf;

pub use layers::{
    builtin, load, load_typed, parse_layer, yaml_options, ConfigError, Layer, LoadOptions,
    LoadedConfig,
};

/// The merged configuration.
#[derive(Debug, Clone, Deserialize)]
#[serde(default, deny_unknown_fields)]
#[derive(Default)]
pub struct Config {
    /// The judge (Layer 2).
    pub judge: JudgeConfig,
    /// How much assistant text is judged.
    pub text: TextConfig,
    /// The hook's deadlines.
    pub deadline: DeadlineConfig,
    /// What a failed judgment becomes, per event kind.
    pub failure: BTreeMap<EventKind, Decision>,
    /// The turn-end loop guard.
    pub loop_guard: LoopGuardConfig,
    /// The decision log.
    pub log: LogConfig,
    /// Per-detector settings.
    pub detectors: BTreeMap<String, DetectorSettings>,
    /// Per-agent overrides: any of the keys above under an agent's name.
    pub agents: BTreeMap<String, serde_json::Value>,
    /// Render `ask` as this decision (e.g. `deny` for agents that halt on ask).
    pub ask_as: Option<Decision>,
    /// Let the project's `.guard.yaml` loosen the policy too.
    pub trust_project_config: bool,
}

/// `judge:`: the judge (Layer 2), see `crate::judge`.
#[derive(Deserialize, Clone, Debug, PartialEq)]
#[serde(default, deny_unknown_fields)]
pub struct JudgeConfig {
    /// `auto`, `none`, `command`, `codex`, `claude`, `gemini` or `http`.
    pub backend: String,
    /// The argv of the `command` backend (prompt on stdin, answer on stdout).
    pub command: Vec<String>,
    /// The model, for `codex`, `claude`, `gemini` and `http`.
    pub model: Option<String>,
    /// The base URL of the `http` backend (`/chat/completions` is added).
    pub url: Option<String>,
    /// The environment variable holding the `http` backend's API key.
    pub api_key_env: Option<String>,
    /// Time allowed for one judgment, in milliseconds (the hook's own
    /// deadline may cut it shorter).
    pub timeout_ms: u64,
    /// The judge's output size cap, in bytes.
    pub max_output_bytes: u64,
    /// How long a verdict stays in the cache, in seconds (0 = no cache).
    pub cache_ttl_s: u64,
    /// Judge every detector that hit on one text in one call (one envelope,
    /// one answer with a section per detector); `false`: one call each.
    pub combine: bool,
    /// With `combine`: a turn end that goes to the judge is also judged by
    /// the turn-end detectors whose Layer 1 missed, in the same call.
    pub whole_turn: bool,
}

impl Default for JudgeConfig {
    fn default() -> Self {
        JudgeConfig {
            backend: "auto".into(),
            command: Vec::new(),
            model: None,
            url: None,
            api_key_env: None,
            timeout_ms: 15_000,
            max_output_bytes: 1024 * 1024,
            cache_ttl_s: 24 * 3600,
            combine: true,
            whole_turn: true,
        }
    }
}

/// `text:`: what part of the assistant's text is judged.
#[derive(Debug, Clone, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct TextConfig {
    /// Keep the last N bytes of the turn's text.
    pub max_bytes: usize,
}

impl Default for TextConfig {
    fn default() -> Self {
        TextConfig { max_bytes: 4000 }
    }
}

/// `deadline:`: one deadline for the whole hook, per kind of event.
#[derive(Debug, Clone, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct DeadlineConfig {
    /// Turn ends (`stop`, `subagent_stop`).
    pub turn_end_ms: u64,
    /// Gates (`pre_tool`, `permission_request`).
    pub gate_ms: u64,
    /// Every other kind.
    pub other_ms: u64,
}

impl Default for DeadlineConfig {
    fn default() -> Self {
        DeadlineConfig {
            turn_end_ms: 20_000,
            gate_ms: 8_000,
            other_ms: 3_000,
        }
    }
}

impl DeadlineConfig {
    /// The deadline for one kind of event.
    pub fn for_kind(&self, kind: EventKind) -> std::time::Duration {
        let ms = if kind.is_turn_end() {
            self.turn_end_ms
        } else if kind.is_gate() {
            self.gate_ms
        } else {
            self.other_ms
        };
        std::time::Duration::from_millis(ms)
    }
}

/// `loop_guard:`.
#[derive(Debug, Clone, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct LoopGuardConfig {
    /// Consecutive turn-end blocks of one session before the next is allowed.
    pub max_blocks: u32,
}

impl Default for LoopGuardConfig {
    fn default() -> Self {
        LoopGuardConfig { max_blocks: 3 }
    }
}

/// `log:`.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct LogConfig {
    /// The log directory (default: the state directory's `logs`).
    pub dir: Option<PathBuf>,
    /// Keep the redacted judged text in each record.
    pub keep_text: bool,
}

impl LogConfig {
    /// The directory decisions are written to.
    pub fn dir(&self) -> PathBuf {
        self.dir
            .clone()
            .unwrap_or_else(|| crate::paths::state_dir().join("logs"))
    }
}

/// Whether a detector blocks or only logs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Mode {
    /// Blocks, denies or asks.
    #[default]
    Enforce,
    /// Logs what it would have done and allows.
    Shadow,
}

/// `detectors.<name>:`.
#[derive(Debug, Clone, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct DetectorSettings {
    /// Run the detector.
    pub enabled: bool,
    /// Enforce or shadow.
    pub mode: Mode,
    /// A detector file of the user's (for a detector that is not built in).
    pub file: Option<PathBuf>,
    /// More Layer-1 keywords.
    pub extra_keywords: Vec<String>,
    /// More signal patterns.
    pub extra_signals: Vec<crate::pattern::PatternSpec>,
    /// For a detector with shell rules: classes moved, pushes let through,
    /// what a production target looks like.
    pub shell: crate::shell::ShellSettings,
    /// Where a rule's `verification_observed ?? verification_reported`
    /// takes verification from (unset: the detector file's choice).
    pub verification: Option<VerificationSource>,
    /// What a keyword hit needs before the judge is asked (unset: the
    /// detector file's choice, `signals` for the built-in ones).
    pub gate: Option<crate::detector::Gate>,
}

impl Default for DetectorSettings {
    fn default() -> Self {
        DetectorSettings {
            enabled: true,
            mode: Mode::Enforce,
            file: None,
            extra_keywords: Vec::new(),
            extra_signals: Vec::new(),
            shell: crate::shell::ShellSettings::default(),
            verification: None,
            gate: None,
        }
    }
}

impl Config {
    /// What a failed judgment becomes for a kind: the configured value, else
    /// allow for turn ends and ask for gates.
    pub fn failure_for(&self, kind: EventKind) -> Decision {
        if let Some(d) = self.failure.get(&kind) {
            return *d;
        }
        if kind.is_gate() {
            Decision::Ask
        } else {
            Decision::Allow
        }
    }
}

/// Where commit-before-verification style rules take verification from
/// (`detectors.<name>.verification`, or `judge.verification` in a detector
/// file).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum VerificationSource {
    /// The judge's reading of the prose (`verification_reported`).
    Reported,
    /// The runs guard saw (`verification_observed`), falling back to the
    /// prose when the agent has no transcript (the default: see
    /// docs/judge.md for the measurement).
    #[default]
    Observed,
}
