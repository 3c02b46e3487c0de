//! The agent's todo list, read back from the transcript the real Gemini CLI
//! writes offline against the stub model (`write_todos`): one turn plans
//! two steps, marks the first done and ends; guard must read the list as the
//! turn left it, the second step still open. (The recording of this run is
//! tests/fixtures/transcripts/gemini-0.61-real-plan.jsonl.)
//!
//! The other pinned CLIs offer the stub model no todo tool, so their layouts
//! are tested on synthetic transcripts (tests/transcripts/plans.rs): Claude
//! Code 2.1.332 in `-p` mode offers neither `TaskCreate`/`TaskUpdate` nor
//! `TodoWrite`, and Codex 0.171's `codex exec` offers no `update_plan`, to the
//! stub model or to a model it knows (`gpt-5.5`).
//!
//! Needs the pinned CLIs: `tests/e2e/install-agents.sh`; `GUARD_E2E=skip`
//! skips on purpose.

mod e2e;

use e2e::hooks;
use e2e::stub::named_call;
use e2e::{turns, Agent, HookPoint, Sandbox, Turn};
use guard::actions::plan::PlanStatus;
use guard::transcript::{last_turn_with_stats, TranscriptFormat};
use serde_json::{json, Value};

const FIRST: &str = "Write the parser";
const SECOND: &str = "Document the parser";
const ANSWER: &str = "E2E-PLAN: the parser is written.";

/// Gemini CLI's `write_todos` calls: two steps planned, then the first
/// marked done.
fn plan_calls() -> Vec<Value> {
    let todos = |first: &str| {
        json!({"todos": [{"description": FIRST, "status": first},
                         {"description": SECOND, "status": "pending"}]})
    };
    vec![
        named_call("write_todos", todos("in_progress")),
        named_call("write_todos", todos("completed")),
    ]
}

#[test]
fn gemini_todo_list_is_read_back() {
    let Some(sandbox) = Sandbox::new(Agent::Gemini, "transcript-plan") else {
        return;
    };
    // Gemini CLI offers `write_todos` only when its setting asks for it.
    let path = sandbox.home.join(".gemini/settings.json");
    let mut settings = e2e::agent::read_json(&path);
    settings["useWriteTodos"] = json!(true);
    e2e::agent::write_json(&path, &settings);
    let stop = hooks::record(&sandbox.scripts, "stop");
    sandbox.add_hook(HookPoint::TurnEnd, &stop.command());
    sandbox.script(&[Turn::calls_then(&plan_calls(), ANSWER)]);
    let run = sandbox.run("Write the parser, then document it.");
    run.assert_success();
    let transcript = turns::last_transcript(&stop.calls(), &run);
    let (turn, _) = last_turn_with_stats(TranscriptFormat::Gemini, &transcript, 4096)
        .unwrap_or_else(|e| panic!("{e}\n{}", run.debug()));
    let context = format!("{:?}\n{}", turn.actions, run.debug());
    assert_eq!(turn.text.as_deref(), Some(ANSWER), "{context}");
    let plan = turn
        .actions
        .plan
        .as_ref()
        .unwrap_or_else(|| panic!("no plan\n{context}"));
    assert_eq!(
        plan.steps(),
        [
            (FIRST, PlanStatus::Completed),
            (SECOND, PlanStatus::Pending)
        ],
        "{context}"
    );
    assert!(turn.actions.plan_left_open());
}
