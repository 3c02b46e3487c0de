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

/// A line of a Claude Code transcript (`sidechain`: a sub-agent's).
fn line(kind: &str, sidechain: bool, content: serde_json::Value) -> String {
    serde_json::json!({"type": kind, "isSidechain": sidechain,
        "message": {"id": format!("m{}", content), "content": content}})
    .to_string()
}

/// A tool result line, naming the sub-agent that ran when `agent` is given.
fn result(id: &str, agent: Option<&str>) -> String {
    let mut line = serde_json::json!({"type": "user", "message": {"content": [
        {"type": "tool_result", "tool_use_id": id, "content": "ok", "is_error": false}]}});
    if let Some(agent) = agent {
        line["toolUseResult"] = serde_json::json!({"status": "completed", "agentId": agent});
    }
    line.to_string()
}

/// A sub-agent's transcript: its prompt, then one edit of `path`.
fn subagent_edit(path: &str) -> String {
    use serde_json::json;
    let edit = json!([{"type": "tool_use", "id": "s1", "name": "Edit",
        "input": {"file_path": path, "old_string": "a", "new_string": "b"}}]);
    let done = json!({"type": "user", "isSidechain": true, "message": {"content": [
        {"type": "tool_result", "tool_use_id": "s1", "content": "ok"}]}});
    [
        line("user", true, json!("do it")),
        line("assistant", true, edit),
        done.to_string(),
    ]
    .join("\n")
        + "\n"
}

#[test]
fn two_subagents_take_their_places_and_an_unchecked_edit_is_seen() {
    use serde_json::json;
    let call = |id: &str, name: &str, input: serde_json::Value| {
        line(
            "assistant",
            false,
            json!([{"type": "tool_use", "id": id, "name": name, "input": input}]),
        )
    };
    let main = [
        claude_user("add the export button and its label"),
        call(
            "t1",
            "Agent",
            json!({"description": "Add button", "prompt": "add it"}),
        ),
        result("t1", Some("abc123")),
        call("t2", "Bash", json!({"command": "npm test"})),
        result("t2", None),
        call(
            "t3",
            "Agent",
            json!({"description": "Add label", "prompt": "label it"}),
        ),
        result("t3", Some("def456")),
        call(
            "t4",
            "Bash",
            json!({"command": "git commit -qam 'Add export button'"}),
        ),
        result("t4", None),
        claude_assistant(
            "m-end",
            "Added the export button and its label, and committed them.",
        ),
    ];
    let dir = ScratchDir::new();
    fs::write(dir.path("s.jsonl"), main.join("\n") + "\n").unwrap();
    fs::create_dir_all(dir.path("s/subagents")).unwrap();
    fs::write(
        dir.path("s/subagents/agent-abc123.jsonl"),
        subagent_edit("/w/src/export.ts"),
    )
    .unwrap();
    fs::write(
        dir.path("s/subagents/agent-def456.jsonl"),
        subagent_edit("/w/src/label.ts"),
    )
    .unwrap();
    let turn = last_turn(ClaudeCode, &dir.path("s.jsonl"), 4096).unwrap();
    assert_eq!(
        summary(&turn),
        vec![
            "edit export.ts Succeeded",
            "run npm test Succeeded [Test]",
            "edit label.ts Succeeded",
            "run git commit -qam 'Add export button' Succeeded [Commit]"
        ]
    );
    assert!(turn.actions.complete);
    assert!(
        turn.actions.shipped_without_check(),
        "the second sub-agent's change was never checked"
    );
}

/// Claude Code's `SubagentStop` payload (captured from 2.1.332) names the
/// sub-agent's own transcript (`agent_transcript_path`): the sub-agent's turn
/// end is judged on its text and its actions, and the prompt the main agent
/// gave it is no user's request.
#[test]
fn a_subagent_stop_is_read_from_the_subagents_own_transcript() {
    let mut payload = captured_payload("claude-2.1.332-subagentstop-stdin.json");
    payload["transcript_path"] = fixture("claude-2.1.332-real-subagent.jsonl")
        .display()
        .to_string()
        .into();
    payload["agent_transcript_path"] =
        fixture("claude-2.1.332-real-subagent/subagents/agent-a64a834bfe0f933d4.jsonl")
            .display()
            .to_string()
            .into();
    let spec = guard::adapter::builtin("claude-code").unwrap().unwrap();
    let mut event = spec.parse_payload(payload).unwrap();
    assert_eq!(event.kind, guard::event::EventKind::SubagentStop);
    assert_eq!(guard::hook::turn_text::fill(&spec, &mut event, 4096), None);
    assert_eq!(event.text.as_deref(), Some("sub done."));
    let actions = event.actions.expect("the sub-agent's actions");
    assert!(actions.edited_code());
    assert_eq!(
        actions
            .commands()
            .filter(|run| run.showed_a_failure())
            .count(),
        1
    );
    assert_eq!(event.prompt, None);
}
