//! A Claude Code sub-agent's actions, read from its own transcript
//! (`<session>/subagents/agent-<id>.jsonl`), on recordings of the real Claude
//! Code 2.1.332 run offline: the main agent ran a sub-agent (`Agent`) that
//! wrote `src/app.py` and ran a failing command, then ran `git status`.

use super::actions::summary;
use super::*;

const SUBAGENT: &[&str] = &[
    "edit app.py Succeeded",
    "run python3 -c 'import sys; sys.exit(1)' Failed exit 1",
];

#[test]
fn a_foreground_subagents_actions_take_the_place_of_its_call() {
    let turn = last_turn(
        ClaudeCode,
        &fixture("claude-2.1.332-real-subagent.jsonl"),
        4096,
    )
    .unwrap();
    let mut expected: Vec<String> = SUBAGENT.iter().map(|s| s.to_string()).collect();
    expected.push("run git status Succeeded [Lookup]".into());
    assert_eq!(summary(&turn), expected);
    assert!(turn.actions.complete);
    assert!(
        turn.actions.edited_code(),
        "the sub-agent's edit is the turn's"
    );
    assert_eq!(turn.text.as_deref(), Some("Done."));
}

#[test]
fn a_background_subagent_is_not_followed() {
    // Launched in the background, it finished after the turn that launched
    // it; its result says `async_launched`, not `completed`.
    let turn = last_turn(
        ClaudeCode,
        &fixture("claude-2.1.332-real-subagent-background.jsonl"),
        4096,
    )
    .unwrap();
    assert!(
        summary(&turn).iter().all(|line| !line.contains("app.py")),
        "{:?}",
        summary(&turn)
    );
}

#[test]
fn a_missing_subagent_transcript_leaves_the_actions_incomplete() {
    let dir = ScratchDir::new();
    let main = dir.path("session.jsonl");
    fs::copy(fixture("claude-2.1.332-real-subagent.jsonl"), &main).unwrap();
    let turn = last_turn(ClaudeCode, &main, 4096).unwrap();
    assert_eq!(summary(&turn), vec!["run git status Succeeded [Lookup]"]);
    assert!(
        !turn.actions.complete,
        "what the sub-agent did is not known"
    );
}
