//! Adapters: each agent's hook protocol, as data (`adapters/*.yaml`).
//!
//! An adapter says where the fields of the agent's payload live, which of
//! its event names map to which event kind, what its tool names mean, and
//! how each verdict is written back (stdout JSON, stderr, exit code). It is
//! the anti-corruption layer: vendor payload → [`Event`], [`Verdict`] →
//! vendor response. A Claude-like agent is added with a file, no code.

mod detect;
mod parse;
mod render;

pub use detect::detect_agent;
pub use parse::{native_event, ParseError};
pub use render::HookOutput;

use crate::event::{Event, EventKind};
use crate::verdict::{Decision, Verdict};
use serde::Deserialize;
use serde_json::Value;
use std::collections::BTreeMap;

/// One agent's protocol, as written in `adapters/<name>.yaml`: its
/// [`Detection`] part (whose fields it shows as its own) and the rest.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AdapterSpec {
    /// Names, detection rules and where the event's name is.
    #[serde(flatten)]
    pub detection: Detection,
    /// One line for humans.
    #[serde(default)]
    pub description: String,
    /// Native event name → kind.
    pub events: BTreeMap<String, EventKind>,
    /// Where each normalized field is in the payload.
    #[serde(default)]
    pub fields: FieldPaths,
    /// Native tool name (a trailing `*` matches a prefix) → canonical name.
    #[serde(default)]
    pub tools: BTreeMap<String, String>,
    /// Native event name → canonical tool, for agents with one event per
    /// tool (Cursor's `beforeShellExecution`, `beforeMCPExecution`). It wins
    /// over `tools`; for a canonical other than `shell` no shell command is
    /// read from the payload.
    #[serde(default)]
    pub event_tools: BTreeMap<String, String>,
    /// The transcript format, when the agent sends a transcript path.
    #[serde(default)]
    pub transcript: Option<String>,
    /// For agents whose turn end carries no text but an earlier event does
    /// (Cursor: `afterAgentResponse` has it, `stop` does not).
    #[serde(default)]
    pub text_stash: Option<TextStash>,
    /// How verdicts are written.
    pub render: RenderSpec,
    /// How `guard install` wires this agent (read by the installer).
    #[serde(default)]
    pub install: Option<Value>,
}

/// The part of an adapter that agent detection reads: `guard hook` reads it
/// for every built-in adapter ([`detections`]), and the whole spec only of
/// the adapter it picks.
#[derive(Debug, Clone, Deserialize)]
pub struct Detection {
    /// The name used in `guard hook <name>` (a built-in adapter's file is
    /// `adapters/<name>.yaml`).
    pub name: String,
    /// Other accepted names.
    #[serde(default)]
    pub aliases: Vec<String>,
    /// How to recognise this agent's payloads when `guard hook` is not told.
    #[serde(default)]
    pub detect: Vec<DetectRule>,
    /// Detection priority: higher is tried first.
    #[serde(default)]
    pub priority: i32,
    /// Where the native event name is (first path present wins).
    #[serde(default)]
    pub event_field: Vec<String>,
    /// Rules that name the event from the payload's shape, for agents whose
    /// payload carries no event name (Copilot's camelCase dialect); tried in
    /// order when no `event_field` path is present.
    #[serde(default)]
    pub event_rules: Vec<EventRule>,
    /// The event name to assume when the payload has none.
    #[serde(default)]
    pub default_event: Option<String>,
}

impl Detection {
    /// Whether `name` is this adapter's name or an alias.
    pub fn answers_to(&self, name: &str) -> bool {
        self.name == name || self.aliases.iter().any(|a| a == name)
    }
}

impl std::ops::Deref for AdapterSpec {
    type Target = Detection;
    fn deref(&self) -> &Detection {
        &self.detection
    }
}

impl AsRef<Detection> for AdapterSpec {
    fn as_ref(&self) -> &Detection {
        &self.detection
    }
}

impl AsRef<Detection> for Detection {
    fn as_ref(&self) -> &Detection {
        self
    }
}

/// A detection rule: every key present (dotted paths), and optionally the
/// event name among a list.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DetectRule {
    /// Paths that must all be present.
    #[serde(default)]
    pub keys: Vec<String>,
    /// Paths that must all be absent.
    #[serde(default)]
    pub absent: Vec<String>,
    /// The native event name must be one of these (when given).
    #[serde(default)]
    pub event_in: Vec<String>,
}

/// Names the event from the payload's shape: every key present, every
/// `absent` key missing.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EventRule {
    /// Paths that must all be present.
    #[serde(default)]
    pub keys: Vec<String>,
    /// Paths that must all be absent.
    #[serde(default)]
    pub absent: Vec<String>,
    /// The native event name the payload then stands for.
    pub event: String,
}

/// Where the assistant's text is kept between two events of one session:
/// saved from the `save_on` events, given to the `use_on` events that carry
/// none, then forgotten.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TextStash {
    /// Native events whose text is kept.
    pub save_on: Vec<String>,
    /// Native events that take the kept text when they have none.
    pub use_on: Vec<String>,
}

/// Payload paths of the normalized fields; for each, the first present wins.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct FieldPaths {
    /// Session id.
    pub session_id: Vec<String>,
    /// Turn id (or the id of the user prompt the turn answers).
    pub turn_id: Vec<String>,
    /// Working directory (a string, or an array whose first item is used).
    pub cwd: Vec<String>,
    /// Transcript path.
    pub transcript_path: Vec<String>,
    /// The assistant's final text.
    pub text: Vec<String>,
    /// The loop flag.
    pub stop_hook_active: Vec<String>,
    /// The agent's own continuation counter.
    pub loop_count: Vec<String>,
    /// Native tool name.
    pub tool_name: Vec<String>,
    /// Tool input (an object, or a string holding JSON).
    pub tool_input: Vec<String>,
    /// Shell command line.
    pub command: Vec<String>,
    /// User prompt.
    pub prompt: Vec<String>,
}

/// How each decision is written, with per-kind overrides.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RenderSpec {
    /// Allow.
    pub allow: RenderEntry,
    /// Turn-end block.
    #[serde(default)]
    pub block: Option<RenderEntry>,
    /// Gate deny.
    #[serde(default)]
    pub deny: Option<RenderEntry>,
    /// Gate ask.
    #[serde(default)]
    pub ask: Option<RenderEntry>,
    /// The stdout key that carries a message for the user only.
    #[serde(default)]
    pub system_message_key: Option<String>,
    /// Overrides per event kind (`pre_tool`, `permission_request`, …).
    #[serde(default)]
    pub kinds: BTreeMap<EventKind, KindRender>,
    /// Overrides per native event name; they win over `kinds`. For agents
    /// whose events of one kind answer differently (Cursor's `preToolUse`
    /// ignores ask, its `beforeShellExecution` honours it).
    #[serde(default)]
    pub native_events: BTreeMap<String, KindRender>,
}

/// Per-kind (or per-native-event) overrides of [`RenderSpec`].
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct KindRender {
    /// Allow.
    pub allow: Option<RenderEntry>,
    /// Block.
    pub block: Option<RenderEntry>,
    /// Deny.
    pub deny: Option<RenderEntry>,
    /// Ask.
    pub ask: Option<RenderEntry>,
}

/// One way of answering: stdout JSON template, stderr template, exit code,
/// or "render as this other decision".
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct RenderEntry {
    /// JSON written to stdout; strings may hold `{reason}`, `{native_event}`,
    /// `{system_message}`; the string `"{detectors}"` becomes an array.
    pub stdout: Option<Value>,
    /// Text written to stderr.
    pub stderr: Option<String>,
    /// Exit code.
    pub exit: i32,
    /// Render as another decision instead (e.g. `ask` as `deny`).
    #[serde(rename = "as")]
    pub as_decision: Option<Decision>,
}

/// A bad adapter file.
#[derive(Debug, Clone, thiserror::Error)]
#[error("adapter {source_name}: {message}")]
pub struct AdapterError {
    /// The file.
    pub source_name: String,
    /// What is wrong.
    pub message: String,
}

impl AdapterSpec {
    /// Parses an adapter file.
    pub fn parse(source_name: &str, text: &str) -> Result<AdapterSpec, AdapterError> {
        serde_saphyr::from_str(text).map_err(|e| AdapterError {
            source_name: source_name.to_string(),
            message: e.to_string().lines().next().unwrap_or_default().to_string(),
        })
    }

    /// Parses a payload into an event.
    pub fn parse_payload(&self, payload: Value) -> Result<Event, ParseError> {
        parse::to_event(self, payload)
    }

    /// Renders a verdict for an event of this agent.
    pub fn render(
        &self,
        event_kind: EventKind,
        native_event: &str,
        verdict: &Verdict,
        ask_as: Option<Decision>,
    ) -> HookOutput {
        render::render(self, event_kind, native_event, verdict, ask_as)
    }
}

/// A built-in adapter, by file stem (its name), read from its pre-parsed
/// JSON form (see `build.rs`): `guard hook` reads adapters on every call,
/// and JSON reads several times faster than YAML. The unit tests read every
/// one.
pub fn builtin(stem: &str) -> Option<Result<AdapterSpec, AdapterError>> {
    let (stem, json) = crate::builtin::adapters().find(|(s, _)| *s == stem)?;
    Some(read_json(stem, json))
}

fn read_json<T: serde::de::DeserializeOwned>(stem: &str, json: &str) -> Result<T, AdapterError> {
    serde_json::from_str(json).map_err(|e| AdapterError {
        source_name: format!("adapters/{stem}.yaml (embedded)"),
        message: e.to_string(),
    })
}

/// Every built-in adapter, parsed, by priority (an unparsable file is
/// skipped and reported).
pub fn builtins() -> (Vec<AdapterSpec>, Vec<AdapterError>) {
    let (mut specs, errors) = read_all(crate::builtin::adapters());
    specs.sort_by_key(|s: &AdapterSpec| -s.priority);
    (specs, errors)
}

/// The [`Detection`] part of every built-in adapter, in file order (an
/// unparsable one is left out): what `guard hook` reads to pick an adapter.
pub fn detections() -> Vec<Detection> {
    read_all(crate::builtin::adapter_heads()).0
}

fn read_all<T: serde::de::DeserializeOwned>(
    files: impl Iterator<Item = crate::builtin::Embedded>,
) -> (Vec<T>, Vec<AdapterError>) {
    let mut read = Vec::new();
    let mut errors = Vec::new();
    for (stem, json) in files {
        match read_json(stem, json) {
            Ok(s) => read.push(s),
            Err(e) => errors.push(e),
        }
    }
    (read, errors)
}

/// The built-in adapter with this name or alias.
pub fn find(name: &str) -> Option<AdapterSpec> {
    if let Some(Ok(spec)) = builtin(name) {
        return Some(spec);
    }
    builtins().0.into_iter().find(|s| s.answers_to(name))
}

#[cfg(test)]
mod tests;
