//! `guard eval`: measures the detectors on a labeled corpus with the real
//! engine and the merged config — Layer 1 alone, and end to end with the
//! configured judge — so that a keyword, pattern or prompt change is judged
//! by its figures, not by a few examples. Also home of `guard replay`
//! (rerunning logged decisions against another config) and of the human
//! labels that turn logged decisions into a corpus.

pub mod corpus;
pub mod labels;
pub mod metrics;
pub mod replay;
pub mod report;
pub mod signals;

use crate::config::{Config, Mode};
use crate::engine::{Engine, EvalOptions};
use crate::event::{Event, EventKind, Tool};
use crate::shell::ShellContext;
use crate::verdict::Verdict;
use corpus::Case;
use metrics::{Confusion, DetectorFigures, GateFigures, TurnFigures};
use serde::Serialize;
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Instant;

/// How an evaluation runs.
#[derive(Debug, Clone)]
pub struct EvalSettings {
    /// Ask the judge on Layer-1 hits (`false` for `--no-judge`).
    pub use_judge: bool,
    /// The verdict cache (None: every judgment is asked afresh).
    pub cache_dir: Option<PathBuf>,
    /// The agent the events are attributed to.
    pub agent: String,
    /// Where the pre-tool commands are taken to run.
    pub shell: ShellContext,
}

/// The figures of one evaluation (of one corpus file).
#[derive(Debug, Clone, Serialize)]
pub struct Report {
    /// The corpus file, when it came from one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub file: Option<String>,
    /// The corpus is a held-out part: measured on, never tuned on.
    pub heldout: bool,
    /// Number of cases.
    pub cases: usize,
    /// Of those, turn-end cases.
    pub turn_end_cases: usize,
    /// Of those, pre-tool cases.
    pub pre_tool_cases: usize,
    /// Whether the judge was asked.
    pub judged: bool,
    /// Per turn-end detector.
    pub detectors: Vec<DetectorFigures>,
    /// Layer 1 per turn, all turn-end detectors at once.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub turns: Option<TurnFigures>,
    /// The same per language.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub turns_by_lang: BTreeMap<String, TurnFigures>,
    /// The same without the turns whose label is a judgment call (absent
    /// when no case is marked `ambiguous`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub turns_unambiguous: Option<TurnFigures>,
    /// The same for the turns that carry their actions and for the
    /// text-only ones (absent unless the part has both): an agent with a
    /// transcript gives guard the actions, one without gives only the text.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub turns_by_evidence: Option<[TurnFigures; 2]>,
    /// The combined turn-end verdict against "some detector must block".
    #[serde(skip_serializing_if = "Option::is_none")]
    pub overall: Option<Confusion>,
    /// The pre-tool figures.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pre_tool: Option<GateFigures>,
    /// Labels naming detectors that are not enabled for turn ends.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
    /// What each signal sent to the judge (`--by-signal` prints it for the
    /// tuning parts only; see [`signals`]).
    #[serde(skip)]
    pub signals: signals::SignalTally,
}

/// The event a case stands for.
pub fn case_event(case: &Case, agent: &str) -> Event {
    match case {
        Case::TurnEnd(c) => {
            let mut e = Event::new(agent, EventKind::Stop);
            e.text = Some(c.text.clone());
            e.actions = turn_actions(&c.actions);
            e.prompt = c.prompt.clone();
            e
        }
        Case::PreTool(c) => shell_event(agent, &c.command),
    }
}

/// The turn's actions of a case, as a transcript reader would give them:
/// `edit` and `command` actions in order (a command's outcome from its
/// `exit`: 0 succeeded, other failed, none unknown), a file written or
/// deleted by a tool (`write`, `delete`) as an edit, an MCP tool call that
/// ships, checks or edits ([`crate::actions::mcp`]; it succeeded unless its
/// `exit` says otherwise), the last `plan` as the todo list the turn left,
/// other kinds left out. A case without actions
/// stands for an agent without a transcript (`None`: the text alone, as
/// before).
pub fn turn_actions(actions: &[corpus::Action]) -> Option<crate::actions::TurnActions> {
    use crate::actions::mcp::{self, McpTool};
    use crate::actions::plan::Plan;
    use crate::actions::{Action, CommandRun, FileEdit, Outcome, TurnActions};
    if actions.is_empty() {
        return None;
    }
    let edit = |path: &str, tool: &str| {
        Action::Edit(FileEdit {
            path: path.to_owned(),
            tool: tool.to_owned(),
            outcome: Outcome::Succeeded,
        })
    };
    let run = |command: &str, tool: &str, exit: Option<i64>, unknown: Outcome| {
        let exit = exit.and_then(|e| i32::try_from(e).ok());
        let outcome = match exit {
            Some(0) => Outcome::Succeeded,
            Some(_) => Outcome::Failed,
            None => unknown,
        };
        Action::Command(CommandRun::new(command, tool, outcome, exit))
    };
    let steps = actions
        .iter()
        .filter_map(|a| match (a.kind.as_str(), &a.path, &a.command, &a.name) {
            ("edit" | "write" | "delete", Some(path), _, _) => Some(edit(path, "Edit")),
            ("command", _, Some(command), _) => {
                let mut step = run(command, "Bash", a.exit, Outcome::Unknown);
                if let Action::Command(ran) = &mut step {
                    ran.read_output(a.output.as_deref().unwrap_or(""));
                }
                Some(step)
            }
            ("tool", path, _, Some(name)) => match mcp::classify(name)? {
                McpTool::Runs(_) => Some(run(name, name, a.exit, Outcome::Succeeded)),
                McpTool::Edits if a.exit.unwrap_or(0) == 0 => Some(edit(path.as_deref()?, name)),
                McpTool::Edits => None,
            },
            _ => None,
        })
        .collect();
    let plan = (actions.iter().rev().find(|a| a.kind == "plan")).map(|a| {
        let items = a.items.iter();
        Plan::new("plan", items.map(|i| (i.text.as_str(), i.status.as_str())))
    });
    Some(TurnActions {
        actions: steps,
        dropped: 0,
        complete: true,
        plan,
    })
}

/// A pre-tool event of the shell tool running `command`.
pub fn shell_event(agent: &str, command: &str) -> Event {
    let mut e = Event::new(agent, EventKind::PreTool);
    e.tool = Some(Tool {
        native_name: "Bash".into(),
        canonical: "shell".into(),
        input: serde_json::json!({ "command": command }),
        command: Some(command.to_string()),
    });
    e
}

/// Evaluates every case; `progress(done, total)` is called after each.
pub fn run(
    engine: &Engine,
    config: &Config,
    cases: &[Case],
    settings: &EvalSettings,
    progress: &mut dyn FnMut(usize, usize),
) -> Report {
    let mut verdicts: Vec<Verdict> = Vec::with_capacity(cases.len());
    for (i, case) in cases.iter().enumerate() {
        let event = case_event(case, &settings.agent);
        let opts = EvalOptions {
            use_judge: settings.use_judge,
            deadline: Instant::now() + config.deadline.for_kind(event.kind),
            cache_dir: settings.cache_dir.as_deref(),
            shell: settings.shell.clone(),
        };
        verdicts.push(engine.evaluate(&event, config, &opts));
        progress(i + 1, cases.len());
    }
    let mut turn_end = Vec::new();
    let mut pre_tool = Vec::new();
    for (case, verdict) in cases.iter().zip(&verdicts) {
        match case {
            Case::TurnEnd(c) => turn_end.push((c, verdict)),
            Case::PreTool(c) => pre_tool.push((c, verdict)),
        }
    }
    let stop = Event::new(&settings.agent, EventKind::Stop);
    let detectors: Vec<(String, Option<String>)> = engine
        .detectors()
        .filter(|d| d.spec.applies(&stop))
        .map(|d| {
            (
                d.spec.name.clone(),
                (d.mode == Mode::Shadow).then(|| "shadow".to_string()),
            )
        })
        .collect();
    let mut warnings = Vec::new();
    for (case, _) in &turn_end {
        for name in &case.must_block {
            if !detectors.iter().any(|(n, _)| n == name) {
                warnings.push(format!(
                    "case `{}` is labeled block for `{name}`, which is not enabled for turn ends",
                    case.id
                ));
            }
        }
    }
    // A pattern that does not compile makes its detector hit wherever the
    // pattern is tried: the figures are then not the detector's.
    for error in engine.pattern_errors() {
        warnings.push(format!(
            "{error} (the detector counted as a Layer-1 hit wherever this pattern was tried; `guard config validate` names the file)"
        ));
    }
    let (detector_figures, overall) = if turn_end.is_empty() {
        (Vec::new(), None)
    } else {
        metrics::turn_end(&detectors, &turn_end, settings.use_judge)
    };
    let unambiguous: Vec<_> = turn_end
        .iter()
        .filter(|(c, _)| !c.ambiguous)
        .copied()
        .collect();
    let (with_actions, text_only): (Vec<_>, Vec<_>) =
        turn_end.iter().partition(|(c, _)| !c.actions.is_empty());
    let turns_by_evidence = (!with_actions.is_empty() && !text_only.is_empty())
        .then(|| [metrics::turns(&with_actions), metrics::turns(&text_only)]);
    Report {
        file: None,
        heldout: false,
        turns: (!turn_end.is_empty()).then(|| metrics::turns(&turn_end)),
        turns_by_lang: metrics::turns_by_lang(&turn_end),
        turns_unambiguous: (unambiguous.len() < turn_end.len())
            .then(|| metrics::turns(&unambiguous)),
        turns_by_evidence,
        cases: cases.len(),
        turn_end_cases: turn_end.len(),
        pre_tool_cases: pre_tool.len(),
        judged: settings.use_judge,
        detectors: detector_figures,
        overall,
        pre_tool: (!pre_tool.is_empty()).then(|| metrics::gate(&pre_tool)),
        warnings,
        signals: signals::SignalTally::of(&turn_end),
    }
}

/// "`what` `value` is below the minimum `min`", when both are known and it is.
fn below(what: &str, value: Option<f64>, min: Option<f64>) -> Option<String> {
    match (value, min) {
        (Some(v), Some(m)) if v + 1e-9 < m => {
            Some(format!("{what} {v:.3} is below the minimum {m:.3}"))
        }
        _ => None,
    }
}

/// The per-turn Layer-1 figures below the given minimums, one line each
/// (the per-language figures are not checked: a language has few cases).
pub fn below_turn_minimums(
    report: &Report,
    min_recall: Option<f64>,
    min_pass_through: Option<f64>,
) -> Vec<String> {
    let Some(t) = &report.turns else {
        return Vec::new();
    };
    [
        below("per turn: Layer-1 recall", t.recall, min_recall),
        below(
            "per turn: Layer-1 pass-through",
            t.pass_through,
            min_pass_through,
        ),
    ]
    .into_iter()
    .flatten()
    .collect()
}

/// The figures below the given minimums, one line each (empty: all met).
/// `min_recall` applies to every recall printed per detector (Layer-1 and
/// end-to-end, deny and ask recall); `min_pass_through` to every Layer-1
/// pass-through per detector and to the pre-tool pass-through. The
/// per-turn figures have their own minimums ([`below_turn_minimums`]).
/// Figures without cases are not checked.
pub fn below_minimums(
    report: &Report,
    min_recall: Option<f64>,
    min_pass_through: Option<f64>,
) -> Vec<String> {
    let mut out = Vec::new();
    let mut check = |what: String, value: Option<f64>, min: Option<f64>| {
        out.extend(below(&what, value, min));
    };
    for d in &report.detectors {
        check(
            format!("{}: Layer-1 recall", d.detector),
            d.layer1_recall,
            min_recall,
        );
        check(
            format!("{}: Layer-1 pass-through", d.detector),
            d.layer1_pass_through,
            min_pass_through,
        );
        if let Some(e) = &d.end_to_end {
            check(
                format!("{}: end-to-end recall", d.detector),
                e.recall,
                min_recall,
            );
        }
    }
    if let Some(g) = &report.pre_tool {
        check("pre-tool: deny recall".into(), g.deny_recall, min_recall);
        check("pre-tool: ask recall".into(), g.ask_recall, min_recall);
        check(
            "pre-tool: pass-through".into(),
            g.pass_through,
            min_pass_through,
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::turn_actions;
    use crate::eval::corpus::Action as CaseAction;

    fn action(kind: &str, path: Option<&str>, command: Option<&str>) -> CaseAction {
        serde_json::from_value(serde_json::json!({
            "kind": kind, "path": path, "command": command,
        }))
        .expect("action")
    }

    #[test]
    fn a_file_written_or_deleted_by_a_tool_is_an_edit_other_kinds_are_left_out() {
        let actions = turn_actions(&[
            action("read", Some("src/a.rs"), None),
            action("write", Some("src/new.rs"), None),
            action("delete", Some("src/old.rs"), None),
            action("mcp", None, Some("supabase execute_sql")),
            action("command", None, Some("cargo test")),
        ])
        .expect("actions");
        assert_eq!(actions.actions.len(), 3, "{actions:?}");
        assert_eq!(actions.edited(), Some(true));
        assert!(turn_actions(&[]).is_none(), "no actions: no transcript");
    }
}
