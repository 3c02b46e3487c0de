//! A Claude Code sub-agent's actions, counted as the turn's own.
//!
//! A sub-agent (the `Agent` tool, `Task` in older versions) run in the
//! foreground edits files and runs commands for the turn, but its records
//! are not in the main transcript: they are in
//! `<session>/subagents/agent-<id>.jsonl` beside it, and the call's result
//! names the agent (`toolUseResult.agentId`). A turn whose sub-agent edited
//! code and whose main agent then committed would otherwise show a commit
//! with nothing changed before it. Each such file is read as the main one
//! is (bounded, malformed lines skipped), and its actions take the call's
//! place. A file that is missing or unreadable leaves the turn's actions
//! marked incomplete: what the sub-agent did is then not known. A
//! sub-agent run in the background may finish after the turn ends; its
//! actions are not the turn's. A `SubagentStop` hook names the file itself
//! (`agent_transcript_path`): read as a sub-agent's, it gives the
//! sub-agent's own turn, whose prompt is the main agent's and not the user's
//! request. (Layout checked on Claude Code 2.1.332:
//! tests/fixtures/transcripts/claude-2.1.332-real-subagent*,
//! tests/fixtures/captured/claude-2.1.332-subagentstop-stdin.json.)

use super::claude::ClaudeScanner;
use super::collect::SubagentCall;
use super::reader::{Gather, TurnReader};
use crate::actions::{TurnActions, MAX_ACTIONS};
use std::path::{Path, PathBuf};

/// Puts the actions of each sub-agent in `calls` in the place of its call,
/// read from its transcript beside `main`; returns the bytes read.
pub(crate) fn splice(main: &Path, actions: &mut TurnActions, calls: &[SubagentCall]) -> u64 {
    let mut bytes_read = 0;
    // Each call's place among the main agent's own actions; the calls come
    // newest first, so filling a later place moves no earlier one.
    let main_len = actions.actions.len();
    for call in calls {
        let Some(at) = main_len.checked_sub(call.actions_after) else {
            continue;
        };
        let read = transcript_of(main, &call.agent_id).and_then(|path| read_actions(&path));
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

/// Whether `path` is a sub-agent's own transcript
/// (`…/subagents/agent-<id>.jsonl`, the `agent_transcript_path` of a
/// `SubagentStop` hook): its lines are all `isSidechain`, its first the
/// prompt the main agent gave it.
pub(crate) fn is_subagent_transcript(path: &Path) -> bool {
    let named = |p: Option<&std::ffi::OsStr>, f: &dyn Fn(&str) -> bool| {
        p.and_then(|name| name.to_str()).is_some_and(f)
    };
    named(path.file_name(), &|name| name.starts_with("agent-"))
        && named(path.parent().and_then(Path::file_name), &|dir| {
            dir == "subagents"
        })
}

/// `<dir>/<session>/subagents/agent-<id>.jsonl` for the main transcript
/// `<dir>/<session>.jsonl`; none for an id that is not a plain name.
fn transcript_of(main: &Path, agent_id: &str) -> Option<PathBuf> {
    let plain = !agent_id.is_empty()
        && agent_id.len() <= 64
        && agent_id
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_');
    plain.then(|| {
        main.with_extension("")
            .join("subagents")
            .join(format!("agent-{agent_id}.jsonl"))
    })
}

/// The actions of a sub-agent's transcript, and the bytes read.
fn read_actions(path: &Path) -> Option<(TurnActions, u64)> {
    let (file, metadata) = super::open::open_regular_file(path).ok()?;
    let mut reader = TurnReader::new(path, 0, Gather::TextAndActions);
    reader
        .read_lines_backwards(file, metadata.len(), &mut ClaudeScanner::for_subagent())
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
        assert!(is_subagent_transcript(Path::new(
            "/p/s1/subagents/agent-a1.jsonl"
        )));
        assert!(!is_subagent_transcript(Path::new("/p/s1.jsonl")));
        assert!(!is_subagent_transcript(Path::new("/p/agent-a1.jsonl")));
    }

    #[test]
    fn an_id_that_is_no_plain_name_is_not_followed() {
        for id in ["", "../../etc/passwd", "a/b", "a.b", &"x".repeat(65)] {
            assert_eq!(transcript_of(Path::new("/p/s1.jsonl"), id), None, "{id}");
        }
    }
}
