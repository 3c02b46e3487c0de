//! The `install:` section of an adapter file, typed: where an agent keeps
//! its hook settings, in which shape, in which timeout unit, and which of
//! its native events guard wires. The schema is documented in
//! `docs/install.md`; every adapter file is checked against it by a test.

use crate::config::DeadlineConfig;
use crate::event::EventKind;
use serde::de::Error as _;
use serde::{Deserialize, Deserializer};
use serde_json::{Map, Value};
use std::path::{Path, PathBuf};

/// How `guard install` wires one agent (`install:` in `adapters/<name>.yaml`).
#[derive(Debug, Clone, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct InstallSpec {
    /// Executables looked up on `PATH` by `--all`: one found means the agent
    /// is installed.
    #[serde(default)]
    pub binaries: Vec<String>,
    /// Directories whose presence also means the agent is installed.
    #[serde(default)]
    pub config_dirs: Vec<String>,
    /// The settings file of the user scope (`~` and `${VAR:-default}` expand).
    #[serde(default)]
    pub user_file: Option<String>,
    /// The settings file of the project scope, relative to the repository root.
    #[serde(default)]
    pub project_file: Option<String>,
    /// The shape of the hooks in that file.
    pub format: HookFormat,
    /// The unit of the agent's hook `timeout` field.
    #[serde(default)]
    pub timeout_unit: TimeoutUnit,
    /// Keys guard makes sure are set (deep-merged), e.g. `hooksConfig.enabled`.
    #[serde(default)]
    pub extra: Option<Value>,
    /// Native event name → options, in the order entries are added.
    pub events: EventList,
    /// A file guard creates beside the settings file when it is missing
    /// (Goose's plugin manifest), and removes on uninstall when it still
    /// holds what guard wrote.
    #[serde(default)]
    pub companion: Option<Companion>,
    /// Printed after a successful install (e.g. Codex's `/hooks` trust step).
    #[serde(default)]
    pub notice: Option<String>,
    /// A TOML file where the agent records which hooks the user trusted
    /// (`[hooks.state."<hooks file>:…"]` tables, Codex); read by `guard doctor`.
    #[serde(default)]
    pub trust_state: Option<String>,
}

/// The shape of an agent's hook settings.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum HookFormat {
    /// `{"hooks": {"<Event>": [{"matcher"?, "hooks": [{"type": "command",
    /// "command", "timeout"}]}]}}` (Claude Code, Codex, Gemini, Droid, Qwen).
    ClaudeHooks,
    /// Claude Code's event map at the top level of its own file, with no
    /// `hooks` key around it: `{"<Event>": [{"matcher"?, "hooks": [...]}]}`
    /// (Factory Droid's `hooks.json`, which ignores a `hooks` key).
    ClaudeHooksTopLevel,
    /// `{"version": 1, "hooks": {"<event>": [{"command", "timeout"}]}}` (Cursor).
    CursorHooks,
    /// `{"version": 1, "hooks": {"<event>": [{"type": "command", "bash",
    /// "timeoutSec"}]}}` (GitHub Copilot CLI).
    CopilotHooks,
    /// `{"hooks": {"<event>": [{"command", "timeout"}]}}`, no version, no
    /// type (Crush, Windsurf's Cascade).
    FlatHooks,
    /// `{"version": "v1", "hooks": [{"name", "trigger", "matcher"?,
    /// "action": {"type": "command", "command"}, "timeout"}]}`: one list of
    /// named hooks, each naming its event (Kiro's `.kiro/hooks/*.json`).
    KiroHooks,
    /// `[[hooks]]` tables of a TOML file, each `{event, matcher?, command,
    /// timeout?}` (Kimi Code CLI's `config.toml`).
    TomlHooks,
}

/// A file created beside the settings file (see [`InstallSpec::companion`]).
#[derive(Debug, Clone, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Companion {
    /// Its path, relative to the settings file's directory.
    pub path: String,
    /// Its JSON content.
    pub content: Value,
}

/// The unit of a hook timeout.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum TimeoutUnit {
    /// Seconds (most agents).
    #[default]
    Seconds,
    /// Milliseconds (Gemini CLI).
    Milliseconds,
    /// The agent has no timeout field: none is written (Cascade).
    None,
}

impl TimeoutUnit {
    /// A duration in milliseconds, in this unit, rounded up.
    pub fn from_ms(self, ms: u64) -> u64 {
        match self {
            TimeoutUnit::Seconds => ms.div_ceil(1000),
            TimeoutUnit::Milliseconds | TimeoutUnit::None => ms,
        }
    }

    /// A timeout in this unit, in milliseconds.
    pub fn to_ms(self, value: u64) -> u64 {
        match self {
            TimeoutUnit::Seconds => value.saturating_mul(1000),
            TimeoutUnit::Milliseconds | TimeoutUnit::None => value,
        }
    }

    /// The unit's name, for messages.
    pub fn name(self) -> &'static str {
        match self {
            TimeoutUnit::Seconds => "seconds",
            TimeoutUnit::Milliseconds => "milliseconds",
            TimeoutUnit::None => "none",
        }
    }
}

/// Options of one wired event.
#[derive(Debug, Clone, Default, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct EventOptions {
    /// The group's `matcher` (claude-hooks), or the entry's (flat formats);
    /// absent means none is written.
    #[serde(default)]
    pub matcher: Option<String>,
    /// Keys set on guard's hook entry (the handler object), e.g. Crush's
    /// `name` or Cascade's `show_output`.
    #[serde(default)]
    pub entry: Map<String, Value>,
    /// The agent's fail-closed switch, set on guard's hook entry like
    /// `entry` (Cursor's `failClosed: true`, Claude Code's `onFailure:
    /// block`, Goose's `on_failure: block`): a guard that crashes, hangs or
    /// prints nothing then blocks the tool. `guard doctor` warns where an
    /// installed entry lacks it. Versions of the agent that predate the
    /// switch ignore it (docs/agents says which honour it).
    #[serde(default)]
    pub fail_closed: Map<String, Value>,
    /// Keys set on guard's group, for nested formats (claude-hooks), e.g.
    /// Auggie's `metadata: {includeConversationData: true}`.
    #[serde(default)]
    pub group: Map<String, Value>,
}

/// Keys of a handler object that each format writes itself, so that an
/// adapter's `entry` or `fail_closed` cannot set them.
const HANDLER_KEYS: [&str; 6] = [
    "type",
    "command",
    "bash",
    "timeout",
    "timeoutSec",
    "matcher",
];

impl EventOptions {
    /// Every key guard sets on its entry: `entry`, then `fail_closed`.
    pub fn entry_keys(&self) -> Map<String, Value> {
        let mut keys = self.entry.clone();
        keys.extend(self.fail_closed.clone());
        keys
    }
}

/// The wired events, in file order.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct EventList(pub Vec<(String, EventOptions)>);

impl<'de> Deserialize<'de> for EventList {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let map = serde_json::Map::<String, Value>::deserialize(deserializer)?;
        let mut out = Vec::new();
        for (name, options) in map {
            let options = if options.is_null() {
                EventOptions::default()
            } else {
                serde_json::from_value(options).map_err(D::Error::custom)?
            };
            out.push((name, options));
        }
        Ok(EventList(out))
    }
}

/// Margin added to guard's own deadline in the timeout written for the agent,
/// so that guard always answers (with its failure policy) before the agent
/// kills it.
pub const TIMEOUT_MARGIN_MS: u64 = 10_000;

/// The timeout to write for an event of this kind, in the agent's unit
/// (none for an agent without a timeout field).
pub fn timeout_for(kind: EventKind, deadlines: &DeadlineConfig, unit: TimeoutUnit) -> Option<u64> {
    if unit == TimeoutUnit::None {
        return None;
    }
    let deadline = deadlines.for_kind(kind).as_millis() as u64;
    Some(unit.from_ms(deadline.saturating_add(TIMEOUT_MARGIN_MS)))
}

impl InstallSpec {
    /// Reads the `install:` value of an adapter.
    pub fn from_value(value: &Value) -> Result<InstallSpec, String> {
        let spec: InstallSpec = serde_json::from_value(value.clone()).map_err(|e| e.to_string())?;
        if spec.events.0.is_empty() {
            return Err("`events` is empty: name at least one native event".into());
        }
        if spec.user_file.is_none() && spec.project_file.is_none() {
            return Err("give `user_file`, `project_file` or both".into());
        }
        if let Some(extra) = &spec.extra {
            if !extra.is_object() {
                return Err("`extra` must be a mapping".into());
            }
        }
        if matches!(spec.format, HookFormat::KiroHooks | HookFormat::TomlHooks)
            && spec.extra.is_some()
        {
            return Err("`extra` is not supported with formats kiro-hooks and toml-hooks".into());
        }
        for (event, options) in &spec.events.0 {
            if let Some(key) = options
                .entry_keys()
                .keys()
                .find(|k| HANDLER_KEYS.contains(&k.as_str()))
            {
                return Err(format!(
                    "{event}: `entry` and `fail_closed` cannot set `{key}`, which guard writes itself"
                ));
            }
        }
        Ok(spec)
    }
}

/// Expands `~/` and `${VAR:-default}` / `${VAR}` / `$VAR` in a path from an
/// adapter file. `None` when `~` is used and there is no home.
pub fn expand_path(raw: &str, home: Option<&Path>) -> Option<PathBuf> {
    let mut out = String::new();
    let mut rest = raw;
    while let Some(pos) = rest.find('$') {
        out.push_str(&rest[..pos]);
        let after = &rest[pos + 1..];
        if let Some(body) = after.strip_prefix('{') {
            let end = body.find('}')?;
            let (name, default) = match body[..end].split_once(":-") {
                Some((n, d)) => (n, Some(d)),
                None => (&body[..end], None),
            };
            match std::env::var(name).ok().filter(|v| !v.is_empty()) {
                Some(v) => out.push_str(&v),
                None => out.push_str(default.unwrap_or("")),
            }
            rest = &body[end + 1..];
        } else {
            let len = after
                .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                .unwrap_or(after.len());
            out.push_str(&std::env::var(&after[..len]).unwrap_or_default());
            rest = &after[len..];
        }
    }
    out.push_str(rest);
    if out == "~" {
        return home.map(Path::to_path_buf);
    }
    if let Some(tail) = out.strip_prefix("~/") {
        return home.map(|h| h.join(tail));
    }
    Some(PathBuf::from(out))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_builtin_install_section_parses() {
        let (specs, errors) = crate::adapter::builtins();
        assert!(errors.is_empty(), "{errors:?}");
        for adapter in specs {
            if let Some(v) = &adapter.install {
                let spec =
                    InstallSpec::from_value(v).unwrap_or_else(|e| panic!("{}: {e}", adapter.name));
                for (event, _) in &spec.events.0 {
                    assert!(
                        adapter.events.contains_key(event),
                        "{}: install event {event} is not in `events`",
                        adapter.name
                    );
                }
            }
        }
    }

    #[test]
    fn unknown_keys_are_refused() {
        let v = serde_json::json!({"format": "claude-hooks", "user_file": "x", "events": {"Stop": {}}, "colour": 1});
        assert!(InstallSpec::from_value(&v).unwrap_err().contains("colour"));
        let v = serde_json::json!({"format": "claude-hooks", "user_file": "x", "events": {"Stop": {"matchr": "*"}}});
        assert!(InstallSpec::from_value(&v).is_err());
    }

    #[test]
    fn fail_closed_keys_are_read_and_cannot_replace_the_handler_keys() {
        let v = serde_json::json!({"format": "claude-hooks", "user_file": "x",
            "events": {"PreToolUse": {"matcher": "*", "fail_closed": {"onFailure": "block"}}}});
        let spec = InstallSpec::from_value(&v).unwrap();
        let options = &spec.events.0[0].1;
        assert_eq!(options.entry_keys()["onFailure"], "block");
        for key in ["entry", "fail_closed"] {
            let v = serde_json::json!({"format": "claude-hooks", "user_file": "x",
                "events": {"PreToolUse": {key: {"timeout": 1}}}});
            assert!(InstallSpec::from_value(&v).unwrap_err().contains("timeout"));
        }
    }

    #[test]
    fn events_keep_their_order() {
        let v = serde_json::json!({"format": "claude-hooks", "user_file": "x", "events": {"Stop": {}, "PreToolUse": {"matcher": "*"}, "A": null}});
        let spec = InstallSpec::from_value(&v).unwrap();
        let names: Vec<_> = spec.events.0.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(names, ["Stop", "PreToolUse", "A"]);
        assert_eq!(spec.events.0[1].1.matcher.as_deref(), Some("*"));
    }

    #[test]
    fn timeouts_exceed_the_deadline_in_the_agent_unit() {
        let d = DeadlineConfig::default();
        assert_eq!(
            timeout_for(EventKind::Stop, &d, TimeoutUnit::Seconds),
            Some(30)
        );
        assert_eq!(
            timeout_for(EventKind::PreTool, &d, TimeoutUnit::Seconds),
            Some(18)
        );
        assert_eq!(
            timeout_for(EventKind::Stop, &d, TimeoutUnit::Milliseconds),
            Some(30_000)
        );
        assert_eq!(timeout_for(EventKind::Stop, &d, TimeoutUnit::None), None);
        let odd = DeadlineConfig {
            turn_end_ms: 20_500,
            gate_ms: 8_000,
            other_ms: 3_000,
        };
        assert_eq!(
            timeout_for(EventKind::Stop, &odd, TimeoutUnit::Seconds),
            Some(31)
        );
    }

    #[test]
    fn paths_expand_home_and_variables() {
        let home = Path::new("/h");
        assert_eq!(
            expand_path("~/.claude/settings.json", Some(home)).unwrap(),
            Path::new("/h/.claude/settings.json")
        );
        assert_eq!(expand_path("~/x", None), None);
        assert_eq!(
            expand_path(
                "${GUARD_TEST_SURELY_UNSET_VAR:-~/.codex}/hooks.json",
                Some(home)
            )
            .unwrap(),
            Path::new("/h/.codex/hooks.json")
        );
        assert_eq!(
            expand_path(".codex/hooks.json", Some(home)).unwrap(),
            Path::new(".codex/hooks.json")
        );
    }
}
