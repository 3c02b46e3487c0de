//! A Gemini CLI sub-agent's actions, read from its own session file, on
//! recordings of the real Gemini CLI 0.61.0 run offline (`--yolo`): the main
//! agent called `invoke_agent` (generalist); the sub-agent ran
//! `echo hi > sub.txt`, wrote `sub-written.txt` and called `complete_task`;
//! the main agent ended. Its session is `chats/<parent session>/<id>.jsonl`;
//! the main session holds only the call and a summary of its activity.

use super::actions::summary;
use super::*;

const MAIN: &str = "chats/session-2026-12-07T10-00-763a54e3.jsonl";
const MAIN_ADK: &str = "chats/session-2026-12-07T10-00-8bf75044.jsonl";

fn sub_agent_actions() -> Vec<&'static str> {
    vec![
        "run echo hi > sub.txt Succeeded [FileWrite]",
        "edit sub-written.txt Succeeded",
    ]
}

#[test]
fn an_invoked_subagents_actions_take_the_place_of_its_call() {
    // The call names the agent (`agentId`); with
    // `experimental.adk.agentSessionSubagentEnabled` only its activity ids do.
    for (recording, main) in [
        ("gemini-0.61-real-subagent", MAIN),
        ("gemini-0.61-real-subagent-adk", MAIN_ADK),
    ] {
        let path = fixture(&format!("{recording}/{main}"));
        let turn = last_turn(Gemini, &path, 4096).unwrap();
        assert_eq!(summary(&turn), sub_agent_actions(), "{recording}");
        assert!(turn.actions.complete, "{recording}");
        assert!(turn.actions.edited_code(), "{recording}");
        assert_eq!(
            turn.text.as_deref(),
            Some("MAIN-FINAL-2024: the sub-agent finished.")
        );
    }
}

#[test]
fn a_missing_subagent_session_leaves_the_actions_incomplete() {
    let dir = ScratchDir::new();
    fs::create_dir_all(dir.path("chats")).unwrap();
    let main = dir.path(MAIN);
    fs::copy(fixture(&format!("gemini-0.61-real-subagent/{MAIN}")), &main).unwrap();
    let turn = last_turn(Gemini, &main, 4096).unwrap();
    assert!(summary(&turn).is_empty());
    assert!(
        !turn.actions.complete,
        "what the sub-agent did is not known"
    );
}
