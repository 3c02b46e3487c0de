//! A Copilot CLI sub-agent's records, on a recording of the real Copilot
//! CLI 1.0.102 run offline: the main agent called `task` (`mode: sync`);
//! the sub-agent ran `echo hi > sub.txt`, created and edited
//! `sub-created.txt` and answered "SUB-DONE: …"; the main agent ended with
//! "MAIN-DONE: …". The sub-agent's records are in the main `events.jsonl`,
//! each with a top-level `agentId`.

use super::actions::summary;
use super::*;

const RECORDING: &str = "copilot-1.0.102-real-subagent.jsonl";

fn sub_agent_actions() -> Vec<&'static str> {
    vec![
        "run echo hi > sub.txt Succeeded exit 0 [FileWrite]",
        "edit sub-created.txt Succeeded",
        "edit sub-created.txt Succeeded",
    ]
}

#[test]
fn the_main_turn_has_the_subagents_actions_but_not_its_messages() {
    let turn = last_turn(Copilot, &fixture(RECORDING), 8192).unwrap();
    assert_eq!(
        turn.text.as_deref(),
        Some("MAIN-DONE: the sub-agent finished."),
        "the sub-agent's answer is not the main agent's text"
    );
    assert_eq!(summary(&turn), sub_agent_actions());
    assert_eq!(
        turn.prompt.as_deref(),
        Some("MAIN-PROMPT-3390: delegate writing sub.txt to a sub-agent.")
    );
}

/// The captured payload with its transcript at the recording.
fn payload(name: &str) -> serde_json::Value {
    let mut payload = captured_payload(name);
    payload["transcriptPath"] = fixture(RECORDING).display().to_string().into();
    payload
}

/// Copilot's `subagentStop` (captured from 1.0.102) names the sub-agent
/// (`agentId`): its turn end is judged on its own records, and the task
/// the main agent gave it is no user's request.
#[test]
fn a_subagent_stop_reads_that_subagents_records() {
    let spec = guard::adapter::builtin("copilot").unwrap().unwrap();
    let mut event = spec
        .parse_payload(payload("copilot-1.0.102-subagentstop-stdin.json"))
        .unwrap();
    assert_eq!(event.kind, guard::event::EventKind::SubagentStop);
    assert_eq!(guard::hook::turn_text::fill(&spec, &mut event, 8192), None);
    assert_eq!(
        event.text.as_deref(),
        Some("SUB-DONE: wrote sub.txt, created and edited sub-created.txt.")
    );
    let actions = event.actions.expect("the sub-agent's actions");
    assert_eq!(actions.actions.len(), 3);
    assert!(actions.edited_code());
    assert_eq!(event.prompt, None, "the task is the main agent's");
}

/// The sub-agent fires `agentStop` too, with its `agentId` and
/// `parentAgentId`: it is not the main agent's turn end, and the sub-agent
/// is judged once, at `subagentStop`.
#[test]
fn a_subagents_own_agent_stop_is_not_judged_as_the_main_turn() {
    let spec = guard::adapter::builtin("copilot").unwrap().unwrap();
    let event = spec
        .parse_payload(payload("copilot-1.0.102-agentstop-subagent-stdin.json"))
        .unwrap();
    assert!(!event.kind.is_turn_end(), "{:?}", event.kind);
}
