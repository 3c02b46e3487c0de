//! The normalized event: what every adapter turns its agent's payload into.
//!
//! The engine, the detectors and the decision log only ever see this type, so
//! that a rule written once applies to every agent (the adapter is the
//! anti-corruption layer between a vendor payload and this model).

use crate::actions::TurnActions;
use serde::Serialize;
use serde_json::Value;
use std::path::PathBuf;

/// What happened in the agent, independent of the agent's own event name.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, serde::Deserialize,
)]
#[serde(rename_all = "snake_case")]
pub enum EventKind {
    /// The main agent is about to end its turn.
    Stop,
    /// A subagent is about to return to its parent.
    SubagentStop,
    /// A tool is about to run.
    PreTool,
    /// A tool has run.
    PostTool,
    /// The user submitted a prompt.
    PromptSubmit,
    /// The agent is about to ask the user for a permission.
    PermissionRequest,
    /// A session started or resumed.
    SessionStart,
    /// A session is closing.
    SessionEnd,
    /// Any event guard has no rule for; always allowed.
    Other,
}

impl EventKind {
    /// Every kind, in a stable order (for help texts and validation).
    pub const ALL: [EventKind; 9] = [
        EventKind::Stop,
        EventKind::SubagentStop,
        EventKind::PreTool,
        EventKind::PostTool,
        EventKind::PromptSubmit,
        EventKind::PermissionRequest,
        EventKind::SessionStart,
        EventKind::SessionEnd,
        EventKind::Other,
    ];

    /// The snake_case name used in config files, logs and `--event`.
    pub fn as_str(self) -> &'static str {
        match self {
            EventKind::Stop => "stop",
            EventKind::SubagentStop => "subagent_stop",
            EventKind::PreTool => "pre_tool",
            EventKind::PostTool => "post_tool",
            EventKind::PromptSubmit => "prompt_submit",
            EventKind::PermissionRequest => "permission_request",
            EventKind::SessionStart => "session_start",
            EventKind::SessionEnd => "session_end",
            EventKind::Other => "other",
        }
    }

    /// Parses a snake_case kind name.
    pub fn parse(name: &str) -> Option<EventKind> {
        EventKind::ALL.iter().copied().find(|k| k.as_str() == name)
    }

    /// Turn-end kinds: judged on the assistant's text, blocked by asking the
    /// agent to continue, and failing open.
    pub fn is_turn_end(self) -> bool {
        matches!(self, EventKind::Stop | EventKind::SubagentStop)
    }

    /// Gate kinds: a tool or a permission about to be granted; failing safe.
    pub fn is_gate(self) -> bool {
        matches!(self, EventKind::PreTool | EventKind::PermissionRequest)
    }
}

impl std::fmt::Display for EventKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The tool an event is about.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Tool {
    /// The agent's own name for the tool (`Bash`, `run_shell_command`, …).
    pub native_name: String,
    /// The canonical name: `shell`, `file_write`, `file_edit`, `file_read`,
    /// `mcp`, `web_fetch`, or the native name lowercased when unknown.
    pub canonical: String,
    /// The tool's input as the agent sent it.
    pub input: Value,
    /// The shell command line, when the tool runs one.
    pub command: Option<String>,
}

/// One agent event in guard's own terms.
#[derive(Debug, Clone, Serialize)]
pub struct Event {
    /// The adapter that parsed it (`claude-code`, `codex`, …).
    pub agent: String,
    /// The agent's own event name (`Stop`, `AfterAgent`, …).
    pub native_event: String,
    /// What happened.
    pub kind: EventKind,
    /// The agent's session id, when it sends one.
    pub session_id: Option<String>,
    /// The agent's turn id, when it sends one.
    pub turn_id: Option<String>,
    /// The working directory of the agent.
    pub cwd: Option<PathBuf>,
    /// The agent's transcript file, when it sends one.
    pub transcript_path: Option<PathBuf>,
    /// The assistant's text for turn-end kinds (since the last real user
    /// message, truncated to its last `text.max_bytes`).
    pub text: Option<String>,
    /// What the agent did in the turn (commands with how they ended, edited
    /// files), for turn-end kinds, read from the agent's transcript; `None`
    /// when there is no transcript to read (the text alone is judged).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub actions: Option<TurnActions>,
    /// The agent says the turn goes on because a stop hook blocked it.
    pub stop_hook_active: bool,
    /// How many times the agent has already continued after a hook
    /// (Cursor's `loop_count`), when it says.
    pub loop_count: Option<u64>,
    /// The tool, for tool kinds.
    pub tool: Option<Tool>,
    /// The user's prompt: for `prompt_submit`, the subject; for turn ends,
    /// the request that started the turn, when the payload or the
    /// transcript gives it (read by the detectors' request bypasses and
    /// shown to the judge among guard's facts).
    pub prompt: Option<String>,
    /// The payload as received.
    #[serde(skip)]
    pub raw: Value,
}

impl Event {
    /// An empty event of a kind, for one agent (used by `guard check` and tests).
    pub fn new(agent: &str, kind: EventKind) -> Event {
        Event {
            agent: agent.to_string(),
            native_event: kind.as_str().to_string(),
            kind,
            session_id: None,
            turn_id: None,
            cwd: None,
            transcript_path: None,
            text: None,
            actions: None,
            stop_hook_active: false,
            loop_count: None,
            tool: None,
            prompt: None,
            raw: Value::Null,
        }
    }

    /// The text Layer 1 and the judge look at: the assistant's text for turn
    /// ends, the shell command (or the tool input) for tool events, the prompt
    /// for prompt events.
    pub fn subject(&self) -> String {
        if self.kind.is_turn_end() {
            return self.text.clone().unwrap_or_default();
        }
        if let Some(tool) = &self.tool {
            if let Some(cmd) = &tool.command {
                return cmd.clone();
            }
            return match &tool.input {
                Value::Null => String::new(),
                v => v.to_string(),
            };
        }
        self.prompt.clone().unwrap_or_default()
    }
}
