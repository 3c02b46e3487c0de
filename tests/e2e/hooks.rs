//! Tiny shell hooks for proving the harness before guard's own hook exists:
//! each records every payload it receives (one JSON line per call) and then
//! answers in a fixed way (block once, deny, or nothing).

use super::Agent;
use serde_json::{json, Value};
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

/// A hook script written into a sandbox.
#[derive(Debug, Clone)]
pub struct HookScript {
    /// The executable script.
    pub path: PathBuf,
    calls: PathBuf,
}

impl HookScript {
    /// The command line to register in an agent's hook config.
    pub fn command(&self) -> String {
        format!("'{}'", self.path.display())
    }

    /// The payloads (hook stdin) of every call so far, parsed as JSON.
    pub fn calls(&self) -> Vec<Value> {
        std::fs::read_to_string(&self.calls)
            .unwrap_or_default()
            .lines()
            .filter(|l| !l.trim().is_empty())
            .map(|l| serde_json::from_str(l).unwrap_or_else(|_| Value::String(l.to_string())))
            .collect()
    }
}

/// Writes an executable `sh` script at `path`.
pub fn write_executable(path: &Path, body: &str) {
    super::agent::write_file(path, body);
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).expect("chmod hook");
}

/// Writes a hook `name` in `dir` whose answer is `answer` (shell lines run after
/// the payload was recorded; `$n` holds the number of this call, from 1).
fn write_hook(dir: &Path, name: &str, answer: &str) -> HookScript {
    let path = dir.join(format!("{name}.sh"));
    let calls = dir.join(format!("{name}.calls.jsonl"));
    let body = format!(
        "#!/bin/sh\n# Test hook {name}: records its stdin as one line, then answers.\n\
         here=$(dirname \"$0\")\n\
         {{ tr '\\n' ' ' ; echo; }} >> \"$here/{name}.calls.jsonl\"\n\
         n=$(wc -l < \"$here/{name}.calls.jsonl\")\n{answer}\n"
    );
    write_executable(&path, &body);
    HookScript { path, calls }
}

/// Records payloads and allows (exit 0, no output).
pub fn record(dir: &Path, name: &str) -> HookScript {
    write_hook(dir, name, "exit 0")
}

/// Blocks the first call with `reason` on stderr and exit 2; allows later calls.
/// Exit 2 means "block, and tell the model why" to every CLI but Copilot.
pub fn block_once(dir: &Path, name: &str, reason: &str) -> HookScript {
    super::agent::write_file(&dir.join(format!("{name}.reason")), reason);
    write_hook(
        dir,
        name,
        &format!("if [ \"$n\" -eq 1 ]; then cat \"$here/{name}.reason\" >&2; exit 2; fi\nexit 0"),
    )
}

/// Blocks the first call with `{"decision":"block","reason":…}` on stdout
/// and exit 0; allows later calls (every CLI's JSON turn-end block).
pub fn block_once_json(dir: &Path, name: &str, reason: &str) -> HookScript {
    let answer = json!({"decision": "block", "reason": reason});
    super::agent::write_file(&dir.join(format!("{name}.stdout")), &answer.to_string());
    write_hook(
        dir,
        name,
        &format!("if [ \"$n\" -eq 1 ]; then cat \"$here/{name}.stdout\"; fi\nexit 0"),
    )
}

/// Blocks the first turn end of `agent` in the way it honours: exit 2, or
/// JSON for Copilot (which ignores exit 2 there).
pub fn block_turn_end_once(dir: &Path, name: &str, agent: Agent, reason: &str) -> HookScript {
    if agent.turn_end_honours_exit_2() {
        block_once(dir, name, reason)
    } else {
        block_once_json(dir, name, reason)
    }
}

/// Denies every pre-tool call with `reason`, in `agent`'s JSON dialect.
pub fn deny(dir: &Path, name: &str, agent: Agent, reason: &str) -> HookScript {
    let answer = match agent {
        Agent::Claude | Agent::Codex | Agent::Qwen | Agent::Droid => {
            json!({"hookSpecificOutput": {"hookEventName": "PreToolUse",
            "permissionDecision": "deny", "permissionDecisionReason": reason}})
        }
        Agent::Gemini => json!({"decision": "deny", "reason": reason}),
        Agent::Copilot => json!({"permissionDecision": "deny", "permissionDecisionReason": reason}),
    };
    super::agent::write_file(&dir.join(format!("{name}.stdout")), &answer.to_string());
    write_hook(dir, name, &format!("cat \"$here/{name}.stdout\"\nexit 0"))
}
