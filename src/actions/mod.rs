//! What the agent did during a turn: the commands it ran and the files it
//! edited, in order, as its transcript records them (an MCP tool call that
//! ships, checks or edits counts as one of them: [`mcp`]).
//!
//! A turn's prose can claim "tests pass" or propose a push; its actions say
//! whether a test ran after the last edit and whether a push was actually
//! executed. The transcript readers (`crate::transcript`) build a
//! [`TurnActions`] beside the turn's text; the event carries it
//! (`Event::actions`), so detectors and the judge can weigh what was done,
//! not only what was said. Each command is classified the first time its
//! kinds are asked for ([`CommandRun::kinds`]; [`CommandKind`]: test, build,
//! lint, commit, push, deploy, file write), from the table in
//! `command_kinds.yaml` (see [`kinds`]), so a hook that never asks pays
//! nothing for it.
//!
//! The queries below are the ones a detector needs: the last edit, whether a
//! test or build ran after it and how it ended, and which commits, pushes and
//! deploys were executed. They account for a turn read only in part
//! ([`TurnActions::complete`]): a verdict that needs the older, unread
//! actions comes back as unknown rather than as a guess.

pub mod facts;
pub mod file_kinds;
pub mod kinds;
pub mod mcp;
pub mod plan;
pub mod run_output;

pub use kinds::{classify_command, CommandKind};
use serde::ser::SerializeStruct;
use serde::Serialize;
use std::sync::OnceLock;

/// At most this many actions are kept per turn (the newest ones).
pub const MAX_ACTIONS: usize = 256;
/// A command line is kept up to this many bytes (the start is kept).
pub const MAX_COMMAND_BYTES: usize = 2048;
/// A path is kept up to this many bytes.
pub const MAX_PATH_BYTES: usize = 1024;

/// The actions of one turn, oldest first.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct TurnActions {
    /// The actions in the order the agent took them (the newest
    /// [`MAX_ACTIONS`] when the turn had more).
    pub actions: Vec<Action>,
    /// Older actions of the turn left out past [`MAX_ACTIONS`].
    #[serde(skip_serializing_if = "is_zero")]
    pub dropped: usize,
    /// Whether every action of the turn is here: the turn was read from its
    /// start (the user's message) and none was dropped. When false (a turn
    /// longer than the read caps or [`MAX_ACTIONS`]), older ones are missing.
    pub complete: bool,
    /// The agent's todo list as the turn left it, when the turn wrote one
    /// ([`plan`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub plan: Option<plan::Plan>,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

/// One thing the agent did.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Action {
    /// A shell command.
    Command(CommandRun),
    /// A file changed with an edit tool (not through the shell).
    Edit(FileEdit),
}

/// A shell command the agent ran (or tried to run). Serialized as
/// `{command, tool, outcome, exit_code?, failure_in_output?, kinds?}`.
#[derive(Debug, Clone)]
pub struct CommandRun {
    /// The command line, cut to [`MAX_COMMAND_BYTES`].
    pub command: String,
    /// The agent's tool that ran it (`Bash`, `exec_command`, `run_shell_command`).
    pub tool: String,
    /// How it ended.
    pub outcome: Outcome,
    /// The exit status, when the transcript records it.
    pub exit_code: Option<i32>,
    /// The line of its output that reports a failed run, when its status
    /// said success or nothing (a check piped through `tail`: [`run_output`]);
    /// the outcome is then [`Outcome::Failed`].
    pub failure_in_output: Option<String>,
    /// The kinds, classified on first use from the whole command line (the
    /// stored `command` may be cut).
    kinds: OnceLock<Vec<CommandKind>>,
    /// The command line as read, kept until it is classified.
    unclassified: Option<String>,
}

/// A file the agent changed with an edit tool.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct FileEdit {
    /// The file, as the tool was given it (cut to [`MAX_PATH_BYTES`]).
    pub path: String,
    /// The agent's tool (`Edit`, `Write`, `apply_patch`, `replace`, …).
    pub tool: String,
    /// How it ended.
    pub outcome: Outcome,
}

impl FileEdit {
    /// Whether the file is a prose document (Markdown, reStructuredText,
    /// AsciiDoc), by its extension.
    pub fn is_document(&self) -> bool {
        file_kinds::is_document(&self.path)
    }

    /// Whether the file is a test, by its path.
    pub fn is_test(&self) -> bool {
        file_kinds::is_test(&self.path)
    }
}

/// How an action ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    /// It ran and succeeded (exit status 0, or the tool reported success).
    Succeeded,
    /// It ran and failed (non-zero exit status, or the tool reported an error).
    Failed,
    /// It did not run: refused by a hook, a permission rule or the user, or
    /// rejected by the tool before running.
    NotRun,
    /// The transcript does not say (no result recorded, the result was cut,
    /// or the command went on in the background).
    Unknown,
}

/// Whether checks (tests, builds, linters) ran after the last edit.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Verification {
    /// None ran after the last edit.
    NotRun,
    /// Checks ran after the last edit and the last run of each kind succeeded.
    Passed,
    /// The last run of some kind failed.
    Failed,
    /// Checks ran but some outcome is unknown, or the turn was read only in
    /// part and nothing after an edit was seen.
    Unknown,
}

impl CommandRun {
    /// A command run, its kinds to be classified from `command` when asked.
    pub fn new(command: &str, tool: &str, outcome: Outcome, exit_code: Option<i32>) -> Self {
        let stored = clip(command, MAX_COMMAND_BYTES);
        let unclassified = (stored.len() != command.len())
            .then(|| head(command, kinds::CLASSIFY_BYTES).to_owned());
        CommandRun {
            command: stored,
            tool: tool.to_owned(),
            outcome,
            exit_code,
            failure_in_output: None,
            kinds: OnceLock::new(),
            unclassified,
        }
    }

    /// For a test, build or lint run, what the end of its `output` says
    /// beside its status ([`run_output`]): a status of success (or none)
    /// whose output reports a failure is a failed run; an exit 1 of a line
    /// that also looks something up (`pytest | grep FAILED`: grep found
    /// nothing) whose output reports no failure says nothing of the check,
    /// and is unknown.
    pub fn read_output(&mut self, output: &str) {
        if !self.kinds().iter().any(|kind| kind.is_check()) {
            return;
        }
        match self.outcome {
            Outcome::Succeeded | Outcome::Unknown => {
                if let Some(line) = run_output::failure_reported(output) {
                    self.outcome = Outcome::Failed;
                    self.failure_in_output = Some(line);
                }
            }
            Outcome::Failed
                if self.exit_code == Some(1)
                    && self.is(CommandKind::Lookup)
                    && run_output::failure_reported(output).is_none() =>
            {
                self.outcome = Outcome::Unknown;
            }
            Outcome::Failed | Outcome::NotRun => {}
        }
    }

    /// What the command is, by the programs it runs (empty: none of the
    /// kinds), in [`CommandKind::ALL`] order; for a shipping MCP tool call,
    /// kept under the tool's name, the tool's kinds ([`mcp`]).
    pub fn kinds(&self) -> &[CommandKind] {
        self.kinds
            .get_or_init(|| match mcp::kinds_of_tool_name(&self.command) {
                Some(kinds) => kinds.to_vec(),
                None => classify_command(self.unclassified.as_deref().unwrap_or(&self.command)),
            })
    }

    /// Whether the command is of `kind`.
    pub fn is(&self, kind: CommandKind) -> bool {
        self.kinds().contains(&kind)
    }

    /// Whether it ran and showed a failure: it failed, and was no lookup
    /// (whose exit 1 may only mean "not found") and no command the shell
    /// could not find or run (exit 127 or 126).
    pub fn showed_a_failure(&self) -> bool {
        self.outcome == Outcome::Failed
            && !matches!(self.exit_code, Some(126 | 127))
            && !self.is(CommandKind::Lookup)
    }
}

/// Two runs are equal when they are the same command ended the same way,
/// whether or not their kinds were asked for yet.
impl PartialEq for CommandRun {
    fn eq(&self, other: &Self) -> bool {
        (
            &self.command,
            &self.tool,
            self.outcome,
            self.exit_code,
            &self.failure_in_output,
            &self.unclassified,
        ) == (
            &other.command,
            &other.tool,
            other.outcome,
            other.exit_code,
            &other.failure_in_output,
            &other.unclassified,
        )
    }
}

impl Eq for CommandRun {}

impl Serialize for CommandRun {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let kinds = self.kinds();
        let fields = 3
            + usize::from(self.exit_code.is_some())
            + usize::from(self.failure_in_output.is_some())
            + usize::from(!kinds.is_empty());
        let mut out = serializer.serialize_struct("CommandRun", fields)?;
        out.serialize_field("command", &self.command)?;
        out.serialize_field("tool", &self.tool)?;
        out.serialize_field("outcome", &self.outcome)?;
        if let Some(code) = self.exit_code {
            out.serialize_field("exit_code", &code)?;
        }
        if let Some(line) = &self.failure_in_output {
            out.serialize_field("failure_in_output", line)?;
        }
        if !kinds.is_empty() {
            out.serialize_field("kinds", kinds)?;
        }
        out.end()
    }
}

impl Action {
    /// Whether the action changed files: an edit tool's change, or a shell
    /// command that writes files (`sed -i`, `> file`, …) and is not itself a
    /// check (a test run writing a log is a test run). Failed and refused
    /// actions changed nothing.
    pub fn changes_files(&self) -> bool {
        match self {
            Action::Edit(edit) => !matches!(edit.outcome, Outcome::Failed | Outcome::NotRun),
            Action::Command(run) => {
                run.is(CommandKind::FileWrite)
                    && !run.kinds().iter().any(|k| k.is_check())
                    && !matches!(run.outcome, Outcome::Failed | Outcome::NotRun)
            }
        }
    }

    /// Whether the action changed a file other than a prose document
    /// (Markdown, reStructuredText, AsciiDoc); a writing command counts, as
    /// the files it wrote are not known.
    pub fn changes_code(&self) -> bool {
        self.changes_files() && !matches!(self, Action::Edit(edit) if edit.is_document())
    }

    /// The command, for a command action.
    pub fn as_command(&self) -> Option<&CommandRun> {
        match self {
            Action::Command(run) => Some(run),
            Action::Edit(_) => None,
        }
    }
}

impl TurnActions {
    /// The commands, in order.
    pub fn commands(&self) -> impl Iterator<Item = &CommandRun> {
        self.actions.iter().filter_map(Action::as_command)
    }

    /// The files changed by edit tools, in order (failed and refused edits
    /// left out).
    pub fn edited_files(&self) -> impl Iterator<Item = &FileEdit> {
        self.actions.iter().filter_map(|action| match action {
            Action::Edit(edit) if action.changes_files() => Some(edit),
            _ => None,
        })
    }

    /// The position of the last action that changed files.
    pub fn last_edit(&self) -> Option<usize> {
        self.actions.iter().rposition(Action::changes_files)
    }

    /// Whether some action of the turn changed files (`None`: none seen in a
    /// turn read only in part, so an older one may exist).
    pub fn edited(&self) -> Option<bool> {
        match (self.last_edit(), self.complete) {
            (Some(_), _) => Some(true),
            (None, true) => Some(false),
            (None, false) => None,
        }
    }

    /// Whether some action changed a file other than a prose document (a
    /// writing command counts: the files it wrote are not known).
    pub fn edited_code(&self) -> bool {
        self.actions.iter().any(Action::changes_code)
    }

    /// The commands of one of `kinds` that ran after the last edit (all of
    /// them when nothing was edited), in order.
    pub fn ran_after_last_edit<'a>(
        &'a self,
        kinds: &'a [CommandKind],
    ) -> impl Iterator<Item = &'a CommandRun> + 'a {
        let start = self.last_edit().map_or(0, |index| index + 1);
        self.actions[start..]
            .iter()
            .filter_map(Action::as_command)
            .filter(move |run| run.outcome != Outcome::NotRun)
            .filter(move |run| kinds.iter().any(|kind| run.is(*kind)))
    }

    /// Whether checks of `kinds` (e.g. [`CommandKind::CHECKS`]) ran after the
    /// last edit, and how the last run of each kind ended.
    pub fn verification_after_last_edit(&self, kinds: &[CommandKind]) -> Verification {
        let mut any_run = false;
        let mut unknown = false;
        for kind in kinds {
            let Some(last) = self.ran_after_last_edit(std::slice::from_ref(kind)).last() else {
                continue;
            };
            any_run = true;
            match last.outcome {
                Outcome::Failed => return Verification::Failed,
                Outcome::Succeeded => {}
                Outcome::NotRun | Outcome::Unknown => unknown = true,
            }
        }
        match (any_run, unknown) {
            (false, _) if self.last_edit().is_none() && !self.complete => Verification::Unknown,
            (false, _) => Verification::NotRun,
            (true, true) => Verification::Unknown,
            (true, false) => Verification::Passed,
        }
    }

    /// Whether a commit, push or deploy ran (and did not fail) with a change
    /// before it that no passing test, build or lint checked in between. A
    /// change to prose documents only (a README, docs) has no check to wait
    /// for: committing it ships nothing unverified. A check whose outcome
    /// the transcript does not show may have passed: the change is then not
    /// known to be unchecked, and the message and the judge decide.
    pub fn shipped_without_check(&self) -> bool {
        let ships = [CommandKind::Commit, CommandKind::Push, CommandKind::Deploy];
        // A code change not yet followed by a check that passed (or may have).
        let mut unchecked = false;
        for action in &self.actions {
            if action.changes_files() {
                unchecked |= action.changes_code();
                continue;
            }
            let Some(run) = action.as_command() else {
                continue;
            };
            let ran = matches!(run.outcome, Outcome::Succeeded | Outcome::Unknown);
            if ran && unchecked && ships.iter().any(|k| run.is(*k)) {
                return true;
            }
            // A check that passed, or may have (its outcome unseen).
            if ran && run.kinds().iter().any(|k| k.is_check()) {
                unchecked = false;
            }
        }
        false
    }

    /// Whether a command of one of `kinds` ran and failed before the first
    /// action that changed files other than tests (false when nothing
    /// changed files).
    pub fn failed_before_first_edit(&self, kinds: &[CommandKind]) -> bool {
        self.commands_before_first_edit().is_some_and(|mut runs| {
            runs.any(|run| run.outcome == Outcome::Failed && kinds.iter().any(|k| run.is(*k)))
        })
    }

    /// Whether files were changed and no command ran before the first
    /// change of files other than tests (nothing the agent ran could have
    /// shown it the failure).
    pub fn ran_nothing_before_first_edit(&self) -> bool {
        self.commands_before_first_edit()
            .is_some_and(|mut runs| runs.all(|run| run.outcome == Outcome::NotRun))
    }

    /// Whether a command showed a failure ([`CommandRun::showed_a_failure`])
    /// before the first change of files other than tests (false when
    /// nothing changed files): the agent saw it, then changed the code.
    pub fn failure_seen_before_first_edit(&self) -> bool {
        self.commands_before_first_edit()
            .is_some_and(|mut runs| runs.any(CommandRun::showed_a_failure))
    }

    /// Whether files were changed and every command before the first
    /// change of files other than tests is known to have shown no failure
    /// ([`CommandRun::showed_a_failure`]; an unknown outcome may have).
    pub fn failed_nothing_before_first_edit(&self) -> bool {
        self.commands_before_first_edit().is_some_and(|mut runs| {
            runs.all(|run| run.outcome != Outcome::Unknown && !run.showed_a_failure())
        })
    }

    /// The commands before the first action that changed files other than
    /// tests (`None` when nothing changed files). Tests written before that
    /// change belong to the reproduction: a test written first and run to a
    /// failure showed the failure. When only tests changed, the first
    /// change counts.
    fn commands_before_first_edit(&self) -> Option<impl Iterator<Item = &CommandRun>> {
        let changes = |action: &Action| action.changes_files();
        let first_edit = self.actions.iter().position(changes)?;
        let first_change_of_code = self
            .actions
            .iter()
            .position(|a| changes(a) && !matches!(a, Action::Edit(edit) if edit.is_test()));
        let first = first_change_of_code.unwrap_or(first_edit);
        Some(self.actions[..first].iter().filter_map(Action::as_command))
    }

    /// Whether the turn's own todo list was left with steps to do (pending
    /// or in progress).
    pub fn plan_left_open(&self) -> bool {
        self.plan.as_ref().is_some_and(plan::Plan::left_open)
    }

    /// Whether the turn's own todo list, as the turn left it, has a step
    /// dropped (cancelled or deleted).
    pub fn plan_step_dropped(&self) -> bool {
        (self.plan.as_ref()).is_some_and(|plan| plan.dropped_items().next().is_some())
    }

    /// The commands of `kind` that were executed (refused ones left out),
    /// e.g. the commits, pushes or deploys of the turn.
    pub fn executed(&self, kind: CommandKind) -> impl Iterator<Item = &CommandRun> {
        self.commands()
            .filter(move |run| run.is(kind) && run.outcome != Outcome::NotRun)
    }
}

/// The longest prefix of `text` of at most `max_bytes` bytes that ends on a
/// character boundary.
pub(crate) fn head(text: &str, max_bytes: usize) -> &str {
    if text.len() <= max_bytes {
        return text;
    }
    let mut end = max_bytes;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    &text[..end]
}

/// The longest suffix of `text` of at most `max_bytes` bytes that starts on
/// a character boundary (also `engine::tail`).
pub fn tail(text: &str, max_bytes: usize) -> &str {
    if text.len() <= max_bytes {
        return text;
    }
    let mut start = text.len() - max_bytes;
    while !text.is_char_boundary(start) {
        start += 1;
    }
    &text[start..]
}

/// [`head`], with `…` appended when something was cut.
pub(crate) fn clip(text: &str, max_bytes: usize) -> String {
    let kept = head(text, max_bytes);
    if kept.len() == text.len() {
        return text.to_owned();
    }
    format!("{kept}…")
}

#[cfg(test)]
mod tests;
