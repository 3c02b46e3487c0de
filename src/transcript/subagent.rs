//! A sub-agent's actions, counted as the turn's own.
//!
//! A sub-agent run in the foreground edits files and runs commands for the
//! turn, but its records are not in the main transcript, so a turn whose
//! sub-agent edited code and whose main agent then committed would show a
//! commit with nothing changed before it. Each such transcript is read as
//! the main one is (bounded, malformed lines skipped), and its actions take
//! the sub-agent's place. A file that is missing or unreadable leaves the
//! turn's actions marked incomplete: what the sub-agent did is then not
//! known. A sub-agent not seen to finish during the turn may finish after
//! it; its actions are not the turn's. A `SubagentStop` hook names the
//! sub-agent's own transcript (`agent_transcript_path`): read as a
//! sub-agent's, it gives the sub-agent's own turn, whose prompt is the main
//! agent's and not the user's request.
//!
//! - Claude Code (`Agent`, `Task` in older versions): the call's result
//!   names the agent (`toolUseResult.agentId`, `status: completed`); its
//!   transcript is `<session>/subagents/agent-<id>.jsonl`, every line
//!   `isSidechain`; its actions take the call's place. (Checked on 2.1.332:
//!   tests/fixtures/transcripts/claude-2.1.332-real-subagent*,
//!   tests/fixtures/captured/claude-2.1.332-subagentstop-stdin.json.)
//! - Codex (`multi_agent` v1 and v2): the main rollout records the agent's
//!   thread id when it is seen to finish; its rollout is
//!   `sessions/YYYY/MM/DD/rollout-<time>-<id>.jsonl`, in the main rollout's
//!   day or one of the two newest days (the turn may cross midnight); its
//!   actions take the place where the main agent learned it finished.
//!   (Checked on 0.171.0: tests/fixtures/transcripts/codex-0.171-real-subagent*,
//!   tests/fixtures/captured/codex-0.171.0-subagentstop-stdin.json.)
//! - Gemini CLI (`invoke_agent`, 0.61.0): the call names the agent
//!   (`agentId`, or its activity ids `<id>#…`); its session is
//!   `chats/<parent session>/<id>.jsonl` beside the main one; its actions
//!   take the call's place. Gemini has
//!   no sub-agent stop hook. (tests/fixtures/transcripts/gemini-0.61-real-subagent*.)
//!
//! Copilot CLI writes a sub-agent's records into the main file
//! ([`super::copilot`]); its `subagentStop` reads them alone.

use super::claude::ClaudeScanner;
use super::codex::CodexScanner;
use super::collect::SubagentCall;
use super::copilot::CopilotScanner;
use super::reader::{Gather, TurnReader};
use super::{RecordScanner, TranscriptFormat};
use crate::actions::{TurnActions, MAX_ACTIONS};
use serde_json::Value;
use std::path::{Path, PathBuf};

/// Puts the actions of each sub-agent in `calls` in its place, read from
/// its transcript found from `main`'s; returns the bytes read.
pub(crate) fn splice(
    format: TranscriptFormat,
    main: &Path,
    actions: &mut TurnActions,
    mut calls: Vec<SubagentCall>,
) -> u64 {
    let mut bytes_read = 0;
    // Each call's place among the main agent's own actions, filled from
    // the last place back, so that filling one moves no place still to fill.
    calls.sort_by_key(|call| call.actions_after);
    let main_len = actions.actions.len();
    for call in calls {
        let Some(at) = main_len.checked_sub(call.actions_after) else {
            continue;
        };
        let path = match format {
            TranscriptFormat::ClaudeCode => transcript_of(main, &call.agent_id),
            TranscriptFormat::Codex => codex_rollout_of(main, &call.agent_id),
            TranscriptFormat::Gemini => gemini_session_of(main, &call.agent_id),
            _ => None,
        };
        let read = path.and_then(|path| read_actions(format, &path));
        let Some((sub, bytes)) = read else {
            actions.complete = false;
            continue;
        };
        bytes_read += bytes;
        actions.complete &= sub.complete;
        actions.dropped += sub.dropped;
        actions.actions.splice(at..at, sub.actions);
    }
    if actions.actions.len() > MAX_ACTIONS {
        let excess = actions.actions.len() - MAX_ACTIONS;
        actions.actions.drain(..excess);
        actions.dropped += excess;
        actions.complete = false;
    }
    bytes_read
}

/// Whose turn a `SubagentStop` is about, as the agent records it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SubagentTurn<'a> {
    /// The sub-agent's own transcript, the one read (Claude Code, Codex).
    OwnTranscript,
    /// The records of this agent in the main transcript (Copilot CLI).
    Records(&'a str),
}

/// The sub-agent whose turn a `SubagentStop` `payload` asks for, when the
/// transcript at `path` is read for it: Claude Code's own transcript
/// (`…/subagents/agent-<id>.jsonl`) or Codex's (the payload's
/// `agent_transcript_path`); Copilot CLI's records of the payload's
/// `agentId`. None: the main agent's turn is read. Decided from the payload,
/// not by looking into the file.
pub fn subagent_turn<'a>(
    format: TranscriptFormat,
    payload: &'a Value,
    path: &Path,
) -> Option<SubagentTurn<'a>> {
    let field = |key: &str| payload.get(key).and_then(Value::as_str);
    let own = match format {
        TranscriptFormat::ClaudeCode => is_claude_subagent_transcript(path),
        TranscriptFormat::Codex => field("agent_transcript_path").map(Path::new) == Some(path),
        TranscriptFormat::Copilot => return field("agentId").map(SubagentTurn::Records),
        _ => false,
    };
    own.then_some(SubagentTurn::OwnTranscript)
}

/// The scanner of sub-agent `who`'s turn.
pub(crate) fn scanner(format: TranscriptFormat, who: SubagentTurn) -> Box<dyn RecordScanner> {
    match (format, who) {
        (TranscriptFormat::ClaudeCode, _) => Box::new(ClaudeScanner::for_subagent()),
        (TranscriptFormat::Codex, _) => Box::new(CodexScanner::for_subagent()),
        (TranscriptFormat::Copilot, SubagentTurn::Records(agent)) => {
            Box::new(CopilotScanner::for_agent(agent))
        }
        // Gemini: its turn starts at its task, a user message, as the main
        // one's; Gemini's reader takes no request from the transcript.
        _ => super::new_scanner(format),
    }
}

/// Whether `path` is a Claude Code sub-agent's own transcript
/// (`…/subagents/agent-<id>.jsonl`): its lines are all `isSidechain`, its
/// first the prompt the main agent gave it.
fn is_claude_subagent_transcript(path: &Path) -> bool {
    let named = |p: Option<&std::ffi::OsStr>, f: &dyn Fn(&str) -> bool| {
        p.and_then(|name| name.to_str()).is_some_and(f)
    };
    named(path.file_name(), &|name| name.starts_with("agent-"))
        && named(path.parent().and_then(Path::file_name), &|dir| {
            dir == "subagents"
        })
}

/// Whether a sub-agent's id is a plain name (nothing that could name
/// another path).
fn is_plain_id(agent_id: &str) -> bool {
    !agent_id.is_empty()
        && agent_id.len() <= 64
        && agent_id
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
}

/// `<dir>/<session>/subagents/agent-<id>.jsonl` for the main transcript
/// `<dir>/<session>.jsonl`; none for an id that is not a plain name.
fn transcript_of(main: &Path, agent_id: &str) -> Option<PathBuf> {
    is_plain_id(agent_id).then(|| {
        main.with_extension("")
            .join("subagents")
            .join(format!("agent-{agent_id}.jsonl"))
    })
}

/// The rollout `rollout-<time>-<id>.jsonl` of Codex sub-agent `agent_id`:
/// in the day directory of the main rollout `sessions/YYYY/MM/DD/…`, or in
/// one of the two newest day directories under `sessions` (a session
/// resumed on a later day, a turn across midnight); none for an id that is
/// not a plain name.
fn codex_rollout_of(main: &Path, agent_id: &str) -> Option<PathBuf> {
    if !is_plain_id(agent_id) {
        return None;
    }
    let suffix = format!("-{agent_id}.jsonl");
    let main_day = main.parent()?;
    let sessions = main_day.parent()?.parent()?.parent()?;
    std::iter::once(main_day.to_path_buf())
        .chain(newest_day_dirs(sessions, 2))
        .find_map(|day| {
            std::fs::read_dir(day).ok()?.flatten().find_map(|entry| {
                let name = entry.file_name();
                let name = name.to_str()?;
                (name.starts_with("rollout-") && name.ends_with(&suffix)).then(|| entry.path())
            })
        })
}

/// The session `chats/<parent session>/<id>.jsonl` of Gemini sub-agent
/// `agent_id`, for the main session `chats/session-….jsonl` (whose file name
/// holds only the start of its session id: each parent's directory is
/// looked in); none for an id that is not a plain name.
fn gemini_session_of(main: &Path, agent_id: &str) -> Option<PathBuf> {
    if !is_plain_id(agent_id) {
        return None;
    }
    let name = format!("{agent_id}.jsonl");
    std::fs::read_dir(main.parent()?)
        .ok()?
        .flatten()
        .map(|entry| entry.path().join(&name))
        .find(|path| path.is_file())
}

/// The newest `count` day directories `YYYY/MM/DD` under `sessions`.
fn newest_day_dirs(sessions: &Path, count: usize) -> Vec<PathBuf> {
    let numbered_desc = |dir: &Path| -> Vec<PathBuf> {
        let mut dirs: Vec<PathBuf> = std::fs::read_dir(dir)
            .into_iter()
            .flatten()
            .flatten()
            .map(|e| e.path())
            .filter(|p| {
                let name = p.file_name().and_then(|n| n.to_str()).unwrap_or("");
                !name.is_empty() && name.bytes().all(|b| b.is_ascii_digit()) && p.is_dir()
            })
            .collect();
        dirs.sort_unstable_by(|a, b| b.cmp(a));
        dirs
    };
    let mut days = Vec::new();
    for year in numbered_desc(sessions) {
        for month in numbered_desc(&year) {
            for day in numbered_desc(&month) {
                days.push(day);
                if days.len() == count {
                    return days;
                }
            }
        }
    }
    days
}

/// The actions of a sub-agent's transcript, and the bytes read.
fn read_actions(format: TranscriptFormat, path: &Path) -> Option<(TurnActions, u64)> {
    let (file, metadata) = super::open::open_regular_file(path).ok()?;
    let mut scanner = scanner(format, SubagentTurn::OwnTranscript);
    let mut reader = TurnReader::new(path, 0, Gather::TextAndActions);
    reader
        .read_lines_backwards(file, metadata.len(), scanner.as_mut())
        .ok()?;
    let (turn, stats, _) = reader.finish().ok()?;
    Some((turn.actions, stats.bytes_read))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_agents_transcript_sits_beside_the_main_one() {
        assert_eq!(
            transcript_of(Path::new("/p/s1.jsonl"), "a64a834bfe0f933d4"),
            Some(PathBuf::from(
                "/p/s1/subagents/agent-a64a834bfe0f933d4.jsonl"
            ))
        );
    }

    #[test]
    fn a_subagents_transcript_is_known_by_its_place() {
        assert!(is_claude_subagent_transcript(Path::new(
            "/p/s1/subagents/agent-a1.jsonl"
        )));
        assert!(!is_claude_subagent_transcript(Path::new("/p/s1.jsonl")));
        assert!(!is_claude_subagent_transcript(Path::new(
            "/p/agent-a1.jsonl"
        )));
    }

    #[test]
    fn an_id_that_is_no_plain_name_is_not_followed() {
        for id in ["", "../../etc/passwd", "a/b", "a.b", &"x".repeat(65)] {
            assert_eq!(transcript_of(Path::new("/p/s1.jsonl"), id), None, "{id}");
            let main = Path::new("/h/sessions/2026/12/07/rollout-t-m.jsonl");
            assert_eq!(codex_rollout_of(main, id), None, "{id}");
        }
    }
}
