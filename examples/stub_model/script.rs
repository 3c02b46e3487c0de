//! The script the stub plays: which reply to give to a model request.
//!
//! A script is a JSON file, re-read on every request so a test may rewrite it
//! between runs:
//!
//! ```json
//! {"turns": [
//!   {"when": {"last_user_contains": "verify"}, "text": "Ran the tests: all pass."},
//!   {"tool": "git push origin main", "text": "Pushed."},
//!   {"text": "Hello from the stub."}
//! ]}
//! ```
//!
//! The first turn whose `when` matches the request is played (a turn without
//! `when` matches anything). A turn replies with its tool calls first (`tool`
//! or `tools`: shell commands, or `{"name", "input"}` for any other tool the
//! request offers), one per model request, and then with its `text` once
//! every call has a result. The choice depends only on the request,
//! never on earlier requests, so CLI retries and probes cannot shift it.
//! `capture` (a regex on the raw body) fills `$1`, `$2`, ... in the text, so the
//! stub can play an LLM judge that must echo a nonce from its prompt.

use crate::conversation::{self, Api, Entry};
use serde::Deserialize;
use std::path::Path;

/// The whole script file.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Script {
    /// Candidate turns in priority order.
    #[serde(default)]
    pub turns: Vec<Turn>,
}

/// One scripted model turn.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Turn {
    /// When this turn applies (all given fields must hold).
    #[serde(default)]
    pub when: When,
    /// A single shell command to run before answering.
    #[serde(default)]
    pub tool: Option<String>,
    /// Several tool calls (shell commands or named tools), one per model
    /// request, before answering.
    #[serde(default)]
    pub tools: Vec<ToolCall>,
    /// The final answer of the turn.
    #[serde(default)]
    pub text: Option<String>,
    /// Wait this long before replying (to play a slow or hanging model).
    #[serde(default)]
    pub delay_ms: u64,
    /// Answer with this HTTP error status instead of a model reply.
    #[serde(default)]
    pub http_status: Option<u16>,
    /// After the shell calls, call this tool (when the request offers it) with
    /// the turn's text, parsed as JSON, as its arguments; e.g. Claude Code's
    /// `StructuredOutput` tool under `--json-schema`.
    #[serde(default)]
    pub call_tool: Option<String>,
    /// A regex run on the raw request body; `$1`, `$2`, ... in `text` become its
    /// capture groups (e.g. to echo a judge prompt's nonce).
    #[serde(default)]
    pub capture: Option<String>,
}

/// One scripted tool call.
#[derive(Debug, Clone, Deserialize)]
#[serde(untagged)]
pub enum ToolCall {
    /// A shell command, run with the CLI's own shell tool.
    Shell(String),
    /// A call of the named tool (e.g. `Write`, `apply_patch`, `write_file`)
    /// with these arguments; when the request does not offer the tool, the
    /// stub answers with a text saying so.
    Named {
        /// The tool's name, as the request offers it.
        name: String,
        /// Its arguments.
        #[serde(default)]
        input: serde_json::Value,
    },
}

/// Conditions on a request; every field given must hold.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct When {
    /// The last user entry of the conversation contains this text.
    pub last_user_contains: Option<String>,
    /// The last user entry does not contain this text.
    pub last_user_lacks: Option<String>,
    /// Any entry of the conversation (of any role) contains this text.
    pub conversation_contains: Option<String>,
    /// The raw request body contains this text (system prompts included).
    pub request_contains: Option<String>,
    /// The request used this wire protocol (`anthropic`, `responses`, `chat`, `gemini`).
    pub api: Option<String>,
    /// The request offers tools (true) or offers none (false).
    pub offers_tools: Option<bool>,
}

/// What the stub decided to answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Reply {
    /// Final assistant text; ends the model turn.
    Text(String),
    /// A shell tool call with this command line.
    Shell(String),
    /// A call of the named tool with these JSON arguments.
    Tool {
        /// The tool's name, as the request offered it.
        name: String,
        /// Its arguments.
        input: serde_json::Value,
    },
    /// An HTTP error with this status.
    Error(u16),
}

/// The text given when no turn matches, so a bad script is easy to spot.
pub const UNSCRIPTED: &str = "stub_model: no scripted turn matched this request";

/// Everything about a request that a script may look at.
pub struct RequestView<'a> {
    /// Protocol used.
    pub api: Api,
    /// Raw body text.
    pub raw: &'a str,
    /// Flattened conversation.
    pub conversation: &'a [Entry],
    /// Whether the request offers any tool.
    pub offers_tools: bool,
    /// The names of the tools the request offers.
    pub tool_names: &'a [String],
}

impl Script {
    /// Loads the script; a missing or invalid file is an error message.
    pub fn load(path: &Path) -> Result<Script, String> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| format!("cannot read script {}: {e}", path.display()))?;
        serde_json::from_str(&text).map_err(|e| format!("invalid script {}: {e}", path.display()))
    }

    /// Picks the reply for a request: `(index of the turn, reply, delay)`.
    pub fn choose(&self, view: &RequestView) -> (Option<usize>, Reply, u64) {
        let Some((index, turn)) = self
            .turns
            .iter()
            .enumerate()
            .find(|(_, t)| t.when.matches(view))
        else {
            return (None, Reply::Text(UNSCRIPTED.to_string()), 0);
        };
        if let Some(status) = turn.http_status {
            return (Some(index), Reply::Error(status), turn.delay_ms);
        }
        let single = turn
            .tool
            .iter()
            .map(|command| ToolCall::Shell(command.clone()));
        let calls: Vec<ToolCall> = single.chain(turn.tools.iter().cloned()).collect();
        let answered = conversation::answered_calls_this_turn(view.conversation);
        let text = turn.filled_text(view.raw);
        let reply = match (calls.get(answered), &turn.call_tool) {
            (Some(ToolCall::Shell(command)), _) if view.offers_tools => {
                Reply::Shell(command.clone())
            }
            (Some(ToolCall::Named { name, input }), _) if view.tool_names.contains(name) => {
                Reply::Tool {
                    name: name.clone(),
                    input: input.clone(),
                }
            }
            (Some(ToolCall::Named { name, .. }), _) => Reply::Text(format!(
                "stub_model: the request does not offer tool {name}"
            )),
            (None, Some(name)) if answered == calls.len() && view.tool_names.contains(name) => {
                Reply::Tool {
                    name: name.clone(),
                    input: serde_json::from_str(&text).unwrap_or(serde_json::Value::String(text)),
                }
            }
            _ => Reply::Text(text),
        };
        (Some(index), reply, turn.delay_ms)
    }
}

impl Turn {
    /// The turn's text with `$N` replaced by the `capture` regex's groups (an
    /// invalid regex or no match leaves the text as it is).
    fn filled_text(&self, raw: &str) -> String {
        let text = self.text.clone().unwrap_or_default();
        let Some(pattern) = &self.capture else {
            return text;
        };
        let Ok(regex) = regex::Regex::new(pattern) else {
            eprintln!("stub_model: invalid capture regex {pattern}");
            return text;
        };
        let Some(groups) = regex.captures(raw) else {
            return text;
        };
        let mut filled = text;
        for index in (1..groups.len()).rev() {
            let value = groups.get(index).map(|m| m.as_str()).unwrap_or("");
            filled = filled.replace(&format!("${index}"), value);
        }
        filled
    }
}

impl When {
    fn matches(&self, view: &RequestView) -> bool {
        let last_user = conversation::last_user_text(view.conversation);
        self.last_user_contains
            .as_ref()
            .is_none_or(|s| last_user.contains(s.as_str()))
            && self
                .last_user_lacks
                .as_ref()
                .is_none_or(|s| !last_user.contains(s.as_str()))
            && self.conversation_contains.as_ref().is_none_or(|s| {
                view.conversation
                    .iter()
                    .any(|e| e.text.contains(s.as_str()))
            })
            && self
                .request_contains
                .as_ref()
                .is_none_or(|s| view.raw.contains(s.as_str()))
            && self.api.as_ref().is_none_or(|a| a == view.api.as_str())
            && self.offers_tools.is_none_or(|o| o == view.offers_tools)
    }
}
