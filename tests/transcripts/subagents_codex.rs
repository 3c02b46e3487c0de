//! A Codex sub-agent's actions, read from its own rollout, on recordings of
//! the real Codex CLI 0.171.0 run offline (`multi_agent` v1, the default,
//! and v2): the main agent spawned a sub-agent and waited for it; the
//! sub-agent ran `echo … > sub.txt` and added `patched.txt` with
//! `apply_patch`, then the main agent ended its turn.

use super::actions::summary;
use super::*;
use guard::transcript::{last_subagent_turn, SubagentTurn};

const DAY: &str = "sessions/2026/12/07";
const V1_MAIN: &str = "rollout-2026-12-07T09-27-18-01a24fd4-3aa3-7163-ac52-f999b36e8f6b.jsonl";
const V1_SUB: &str = "rollout-2026-12-07T09-27-18-01a24fd4-3b73-7dc2-8b4c-60a4e80118a4.jsonl";
const V2_MAIN: &str = "rollout-2026-12-07T09-27-36-01a24fd4-8181-7bd1-bd51-28bf97d0c309.jsonl";

fn recording(version: &str, file: &str) -> PathBuf {
    fixture(&format!("codex-0.171-real-subagent{version}/{DAY}/{file}"))
}

fn sub_agent_actions() -> Vec<String> {
    vec![
        "run echo SUBCMD-MARK-8832 > sub.txt; echo SUBCMD-OUT-8833 Succeeded exit 0 [FileWrite]"
            .to_string(),
        "edit patched.txt Succeeded".to_string(),
    ]
}

#[test]
fn a_subagent_the_main_agent_saw_finish_gives_the_turn_its_actions() {
    for (version, main, prompt) in [
        ("", V1_MAIN, "MAIN-PROMPT-2: delegate"),
        ("-v2", V2_MAIN, "MAIN-PROMPT-3: delegate"),
    ] {
        let turn = last_turn(Codex, &recording(version, main), 4096).unwrap();
        assert_eq!(summary(&turn), sub_agent_actions(), "multi_agent{version}");
        assert!(turn.actions.complete, "multi_agent{version}");
        assert!(turn.actions.edited_code(), "multi_agent{version}");
        assert_eq!(turn.text.as_deref(), Some("MAIN-DONE"));
        assert_eq!(turn.prompt.as_deref(), Some(prompt));
    }
}

#[test]
fn a_missing_subagent_rollout_leaves_the_actions_incomplete() {
    let dir = ScratchDir::new();
    fs::create_dir_all(dir.path(DAY)).unwrap();
    let main = dir.path(&format!("{DAY}/{V1_MAIN}"));
    fs::copy(recording("", V1_MAIN), &main).unwrap();
    let turn = last_turn(Codex, &main, 4096).unwrap();
    assert!(summary(&turn).is_empty());
    assert!(
        !turn.actions.complete,
        "what the sub-agent did is not known"
    );
}

#[test]
fn a_subagent_rollout_of_a_later_day_is_found() {
    // The session was started the day before and resumed: its rollout
    // stays in its first day's directory, the sub-agent's is in today's.
    let dir = ScratchDir::new();
    let yesterday = "sessions/2026/12/06";
    fs::create_dir_all(dir.path(yesterday)).unwrap();
    fs::create_dir_all(dir.path(DAY)).unwrap();
    let main = dir.path(&format!("{yesterday}/{V1_MAIN}"));
    fs::copy(recording("", V1_MAIN), &main).unwrap();
    fs::copy(recording("", V1_SUB), dir.path(&format!("{DAY}/{V1_SUB}"))).unwrap();
    let turn = last_turn(Codex, &main, 4096).unwrap();
    assert_eq!(summary(&turn), sub_agent_actions());
    assert!(turn.actions.complete);
}

/// Codex's `SubagentStop` payload (captured from 0.171.0) names the
/// sub-agent's own rollout (`agent_transcript_path`): the sub-agent's turn
/// end is judged on its text and its actions, and the task the main agent
/// gave it is no user's request.
#[test]
fn a_subagent_stop_is_read_from_the_subagents_own_rollout() {
    let mut payload = captured_payload("codex-0.171.0-subagentstop-stdin.json");
    payload["transcript_path"] = recording("", V1_MAIN).display().to_string().into();
    payload["agent_transcript_path"] = recording("", V1_SUB).display().to_string().into();
    let spec = guard::adapter::builtin("codex").unwrap().unwrap();
    let mut event = spec.parse_payload(payload).unwrap();
    assert_eq!(event.kind, guard::event::EventKind::SubagentStop);
    assert_eq!(guard::hook::turn_text::fill(&spec, &mut event, 4096), None);
    assert_eq!(event.text.as_deref(), Some("SUB-FINAL-4471"));
    let actions = event.actions.expect("the sub-agent's actions");
    assert!(actions.edited_code());
    assert_eq!(event.prompt, None, "the task is the main agent's");
}

#[test]
fn a_main_rollout_is_not_read_as_a_subagents() {
    // Read as the main agent's, the sub-agent's rollout would take its
    // task for the user's request; read as a sub-agent's (what its
    // SubagentStop payload asks for), it is the sub-agent's turn.
    let sub = recording("", V1_SUB);
    let turn = last_subagent_turn(Codex, &sub, 4096, SubagentTurn::OwnTranscript).unwrap();
    assert_eq!(turn.prompt, None);
    assert_eq!(summary(&turn), sub_agent_actions());
    let main = last_turn(Codex, &recording("", V1_MAIN), 4096).unwrap();
    assert!(main.prompt.is_some());
}

#[test]
fn a_commit_after_the_subagents_unchecked_edit_is_shipped_without_check() {
    // The recorded v1 turn, with the main agent committing after the
    // sub-agent finished and before its last message.
    let recorded = fs::read_to_string(recording("", V1_MAIN)).unwrap();
    let mut lines: Vec<String> = recorded.lines().map(str::to_owned).collect();
    let last_message = lines
        .iter()
        .rposition(|l| l.contains("\"role\":\"assistant\""))
        .unwrap();
    let commit = [
        r#"{"type":"response_item","payload":{"type":"function_call","name":"exec_command","arguments":"{\"cmd\":\"git commit -qam sub\"}","call_id":"c-commit"}}"#,
        r#"{"type":"response_item","payload":{"type":"function_call_output","call_id":"c-commit","output":"Process exited with code 0\n"}}"#,
    ];
    lines.splice(last_message..last_message, commit.map(str::to_owned));
    let dir = ScratchDir::new();
    fs::create_dir_all(dir.path(DAY)).unwrap();
    let main = dir.path(&format!("{DAY}/{V1_MAIN}"));
    fs::write(&main, lines.join("\n") + "\n").unwrap();
    fs::copy(recording("", V1_SUB), dir.path(&format!("{DAY}/{V1_SUB}"))).unwrap();
    let turn = last_turn(Codex, &main, 4096).unwrap();
    let mut expected = sub_agent_actions();
    expected.push("run git commit -qam sub Succeeded exit 0 [Commit]".into());
    assert_eq!(summary(&turn), expected);
    assert!(turn.actions.shipped_without_check());
}
