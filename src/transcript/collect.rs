//! The actions of the turn being read, gathered newest first and handed out
//! in order as a [`TurnActions`].
//!
//! Reading backwards, a tool's result comes before the call that made it, so
//! a result is kept (a few small fields and the end of its output, for a
//! check's own summary: `actions::run_output`) under its call id until the
//! call is met. Every format's scanner feeds this type, so pairing,
//! de-duplication, caps and classification behave the same for every agent.

use crate::actions::mcp::{self, McpTool};
use crate::actions::plan::PlanWrites;
use crate::actions::run_output;
use crate::actions::{
    clip, tail, Action, CommandRun, FileEdit, Outcome, TurnActions, MAX_ACTIONS, MAX_PATH_BYTES,
};
use serde_json::Value;
use std::collections::{HashMap, HashSet};

/// Results waiting for their call are kept up to this many (each with at
/// most `run_output::TAIL_BYTES` of its output: 4 MB in all at worst).
const MAX_PENDING_RESULTS: usize = 4 * MAX_ACTIONS;

/// What a tool call's result says, in short.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ToolResult {
    /// How the call ended.
    pub outcome: Outcome,
    /// The exit status, when recorded.
    pub exit_code: Option<i32>,
    /// Files the call changed, when the result lists them.
    pub paths: Vec<String>,
    /// The end of the call's output (its last [`run_output::TAIL_BYTES`]),
    /// when read.
    pub output_tail: Option<String>,
}

impl ToolResult {
    /// A result with this outcome and nothing else.
    pub(crate) fn of(outcome: Outcome) -> ToolResult {
        ToolResult {
            outcome,
            exit_code: None,
            paths: Vec::new(),
            output_tail: None,
        }
    }

    /// `self` with the end of the call's `output` kept (an empty output
    /// keeps nothing).
    pub(crate) fn with_output(mut self, output: &str) -> ToolResult {
        if !output.is_empty() {
            self.output_tail = Some(tail(output, run_output::TAIL_BYTES).to_owned());
        }
        self
    }

    /// A result from an exit status: 0 succeeded, anything else failed.
    pub(crate) fn exited(code: i32) -> ToolResult {
        ToolResult {
            outcome: if code == 0 {
                Outcome::Succeeded
            } else {
                Outcome::Failed
            },
            exit_code: Some(code),
            paths: Vec::new(),
            output_tail: None,
        }
    }

    /// Fills what `self` lacks from `other`, another record of the same call.
    fn merge(&mut self, other: ToolResult) {
        if self.exit_code.is_none() && other.exit_code.is_some() {
            self.exit_code = other.exit_code;
            if self.outcome != Outcome::NotRun {
                self.outcome = other.outcome;
            }
        }
        if self.outcome == Outcome::Unknown {
            self.outcome = other.outcome;
        }
        if self.paths.is_empty() {
            self.paths = other.paths;
        }
        if self.output_tail.is_none() {
            self.output_tail = other.output_tail;
        }
    }
}

/// The actions gathered so far, newest first.
#[derive(Debug, Default)]
pub(crate) struct ActionLog {
    newest_first: Vec<Action>,
    dropped: usize,
    results: HashMap<String, ToolResult>,
    seen_calls: HashSet<String>,
    subagents: Vec<SubagentCall>,
    /// The turn's todo-list writes.
    pub(crate) plan: PlanWrites,
}

/// A sub-agent the turn ran in the foreground, whose own actions are read
/// from its transcript and take the call's place ([`super::subagent`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct SubagentCall {
    /// The agent's id, as its result names it.
    pub agent_id: String,
    /// How many of the turn's actions came after the call.
    pub actions_after: usize,
}

/// At most this many sub-agents of one turn are read.
const MAX_SUBAGENTS: usize = 16;

impl ActionLog {
    /// Records the result of call `id`. Several records of one call (a
    /// structured event and the text the model saw) are merged.
    pub(crate) fn result(&mut self, id: &str, result: ToolResult) {
        if self.seen_calls.contains(id) {
            return;
        }
        if let Some(known) = self.results.get_mut(id) {
            known.merge(result);
        } else if self.results.len() < MAX_PENDING_RESULTS {
            self.results.insert(id.to_owned(), result);
        }
    }

    /// Whether the result recorded for call `id` lists files it changed.
    pub(crate) fn has_changed_files(&self, id: &str) -> bool {
        self.results
            .get(id)
            .is_some_and(|result| !result.paths.is_empty())
    }

    /// Drops the result recorded for call `id` (its outcome is then unknown).
    pub(crate) fn forget_result(&mut self, id: &str) {
        self.results.remove(id);
    }

    /// Takes the call `id` (false when it was taken already) and the result
    /// recorded for it, merged with `inline` (a result in the call's record).
    fn take_call(&mut self, id: Option<&str>, inline: Option<ToolResult>) -> Option<ToolResult> {
        let Some(id) = id else {
            return Some(inline.unwrap_or(ToolResult::of(Outcome::Unknown)));
        };
        if !self.seen_calls.insert(id.to_owned()) {
            return None;
        }
        let recorded = self.results.remove(id);
        Some(match (inline, recorded) {
            (Some(mut inline), Some(recorded)) => {
                inline.merge(recorded);
                inline
            }
            (Some(one), None) | (None, Some(one)) => one,
            (None, None) => ToolResult::of(Outcome::Unknown),
        })
    }

    /// A shell command call, with the result in its own record if any.
    pub(crate) fn command(
        &mut self,
        id: Option<&str>,
        tool: &str,
        command: &str,
        inline: Option<ToolResult>,
    ) {
        let Some(result) = self.take_call(id, inline) else {
            return;
        };
        let mut run = CommandRun::new(command, tool, result.outcome, result.exit_code);
        run.read_output(result.output_tail.as_deref().unwrap_or(""));
        self.push(Action::Command(run));
    }

    /// An edit-tool call on `paths` (the result's own list of changed files,
    /// when it has one, wins), with the result in its own record if any.
    pub(crate) fn edit(
        &mut self,
        id: Option<&str>,
        tool: &str,
        paths: &[String],
        inline: Option<ToolResult>,
    ) {
        let Some(result) = self.take_call(id, inline) else {
            return;
        };
        let paths = if result.paths.is_empty() {
            paths
        } else {
            &result.paths
        };
        // One action per file, in the order given, pushed newest first.
        for path in paths.iter().rev() {
            self.push(Action::Edit(FileEdit {
                path: clip(path, MAX_PATH_BYTES),
                tool: tool.to_owned(),
                outcome: result.outcome,
            }));
        }
    }

    /// An MCP tool call, kept when it ships a change or runs a check (a
    /// command named by the tool) or edits the local file its arguments
    /// name; other tools are left out.
    pub(crate) fn mcp_call(
        &mut self,
        id: Option<&str>,
        name: &str,
        arguments: Option<&Value>,
        inline: Option<ToolResult>,
    ) {
        match mcp::classify(name) {
            Some(McpTool::Runs(_)) => self.command(id, name, name, inline),
            Some(McpTool::Edits) => {
                if let Some(path) = arguments.and_then(mcp::edited_path) {
                    self.edit(id, name, &[path.to_owned()], inline);
                }
            }
            None => {}
        }
    }

    /// A sub-agent run in the foreground at this point of the turn. One met
    /// again (read backwards: earlier) takes the earlier place.
    pub(crate) fn subagent(&mut self, agent_id: &str) {
        let actions_after = self.newest_first.len();
        if let Some(call) = self.subagents.iter_mut().find(|c| c.agent_id == agent_id) {
            call.actions_after = actions_after;
        } else if self.subagents.len() < MAX_SUBAGENTS {
            self.subagents.push(SubagentCall {
                agent_id: agent_id.to_owned(),
                actions_after,
            });
        }
    }

    /// The sub-agents met so far.
    pub(crate) fn take_subagents(&mut self) -> Vec<SubagentCall> {
        std::mem::take(&mut self.subagents)
    }

    fn push(&mut self, action: Action) {
        if self.newest_first.len() < MAX_ACTIONS {
            self.newest_first.push(action);
        } else {
            self.dropped += 1;
        }
    }

    /// The actions in order; `read_from_start` when the turn was read from
    /// its start (complete unless actions were dropped past the cap).
    pub(crate) fn finish(self, read_from_start: bool) -> TurnActions {
        let mut actions = self.newest_first;
        actions.reverse();
        TurnActions {
            actions,
            dropped: self.dropped,
            complete: read_from_start && self.dropped == 0,
            plan: self.plan.finish(),
        }
    }
}

/// The first integer in `text` after `marker` (`Exit code 3`, `exited with code 1`).
pub(crate) fn code_after(text: &str, marker: &str) -> Option<i32> {
    let rest = &text[text.find(marker)? + marker.len()..];
    let rest = rest.trim_start_matches([' ', ':']);
    let digits = rest
        .char_indices()
        .take_while(|(i, c)| c.is_ascii_digit() || (*i == 0 && *c == '-'))
        .count();
    rest[..digits].parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::actions::CommandKind;

    #[test]
    fn results_seen_first_pair_with_their_calls_in_order() {
        let mut log = ActionLog::default();
        // Newest first: the push's result, the push, the edit's result, the edit.
        log.result("c2", ToolResult::exited(1));
        log.command(Some("c2"), "Bash", "git push", None);
        log.result("c1", ToolResult::of(Outcome::Succeeded));
        log.edit(Some("c1"), "Edit", &["src/a.rs".into()], None);
        // A call without a result (still running, or cut off).
        log.command(Some("c0"), "Bash", "cargo test", None);
        let turn = log.finish(true);
        let summary: Vec<String> = turn
            .actions
            .iter()
            .map(|a| match a {
                Action::Command(r) => format!("{} {:?} {:?}", r.command, r.outcome, r.exit_code),
                Action::Edit(e) => format!("edit {} {:?}", e.path, e.outcome),
            })
            .collect();
        assert_eq!(
            summary,
            vec![
                "cargo test Unknown None",
                "edit src/a.rs Succeeded",
                "git push Failed Some(1)"
            ]
        );
        assert_eq!(
            turn.actions[2].as_command().unwrap().kinds(),
            &[CommandKind::Push]
        );
    }

    #[test]
    fn records_of_one_call_merge_and_repeated_calls_are_taken_once() {
        let mut log = ActionLog::default();
        log.result("c", ToolResult::of(Outcome::Unknown));
        let mut structured = ToolResult::exited(0);
        structured.paths = vec!["b.rs".into(), "c.rs".into()];
        log.result("c", structured);
        log.edit(Some("c"), "apply_patch", &["ignored.rs".into()], None);
        log.edit(Some("c"), "apply_patch", &["again.rs".into()], None);
        let turn = log.finish(false);
        let paths: Vec<&str> = turn.edited_files().map(|e| e.path.as_str()).collect();
        assert_eq!(paths, vec!["b.rs", "c.rs"]);
        assert!(!turn.complete);
    }

    #[test]
    fn a_refusal_keeps_its_outcome_when_merged_with_a_status() {
        let mut refused = ToolResult::of(Outcome::NotRun);
        refused.merge(ToolResult::exited(1));
        assert_eq!(refused.outcome, Outcome::NotRun);
    }

    #[test]
    fn only_the_newest_actions_are_kept() {
        let mut log = ActionLog::default();
        for i in 0..MAX_ACTIONS + 5 {
            log.command(Some(&format!("c{i}")), "Bash", &format!("echo {i}"), None);
        }
        let turn = log.finish(true);
        assert_eq!(turn.actions.len(), MAX_ACTIONS);
        assert_eq!(turn.dropped, 5);
        assert_eq!(
            turn.actions.last().unwrap().as_command().unwrap().command,
            "echo 0"
        );
    }

    #[test]
    fn exit_codes_are_read_after_their_marker() {
        assert_eq!(code_after("Exit code 3\nboom", "Exit code"), Some(3));
        assert_eq!(
            code_after("Process exited with code 0\n", "exited with code"),
            Some(0)
        );
        assert_eq!(code_after("Exit Code: -1", "Exit Code"), Some(-1));
        assert_eq!(code_after("Exit code: n/a", "Exit code"), None);
        assert_eq!(code_after("nothing", "Exit code"), None);
    }
}
