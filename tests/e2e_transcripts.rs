//! The transcript readers on transcripts the real CLIs (Claude Code, Codex
//! CLI, Gemini CLI, Copilot CLI) write, offline against the stub model. One turn edits a
//! file, runs a failing and then a passing test, commits, and tries a push
//! that a pre-tool hook refuses; guard must read those actions back, in
//! order, from the transcript the turn-end hook was given.
//!
//! The recordings in tests/fixtures/transcripts/*-real-actions.jsonl were
//! captured from these runs (see the README there). Needs the pinned CLIs:
//! `tests/e2e/install-agents.sh`; `GUARD_E2E=skip` skips on purpose.

mod e2e;

use e2e::hooks;
use e2e::{turns, Agent, HookPoint, Sandbox, Turn};
use guard::actions::{CommandKind, Outcome, Verification};
use guard::transcript::{last_turn_with_stats, TranscriptFormat};
use serde_json::json;
use std::path::Path;

const FAIL_TEST: &str = "python3 -m unittest tests.test_fail";
const PASS_TEST: &str = "python3 -m unittest tests.test_ok";
const COMMIT: &str =
    "git add -A && git -c user.name=e2e -c user.email=e2e@example.com commit -qm 'Add notes'";
const PUSH: &str = "git push origin main";
const ANSWER: &str = "E2E-ACTIONS: notes added, tests pass, committed.";

/// A project with one passing and one failing test, in a git repository.
fn write_project(work: &Path, home: &Path) {
    turns::write_unittest_project(work);
    let git = |args: &[&str]| {
        let status = std::process::Command::new("git")
            .args(args)
            .current_dir(work)
            .env("HOME", home)
            .output()
            .expect("run git");
        assert!(status.status.success(), "git {args:?}: {status:?}");
    };
    git(&["init", "-q", "-b", "main"]);
    git(&["add", "-A"]);
    git(&[
        "-c",
        "user.name=e2e",
        "-c",
        "user.email=e2e@example.com",
        "commit",
        "-qm",
        "init",
    ]);
}

/// A pre-tool hook that refuses `git push` in the agent's own dialect.
fn refuse_pushes(sandbox: &Sandbox) {
    let deny = match sandbox.agent {
        Agent::Claude | Agent::Codex => json!({"hookSpecificOutput": {
            "hookEventName": "PreToolUse", "permissionDecision": "deny",
            "permissionDecisionReason": "E2E-NO-PUSH: pushes are refused here."}}),
        Agent::Gemini => {
            json!({"decision": "deny", "reason": "E2E-NO-PUSH: pushes are refused here."})
        }
        Agent::Copilot => json!({"permissionDecision": "deny",
            "permissionDecisionReason": "E2E-NO-PUSH: pushes are refused here."}),
        Agent::Qwen | Agent::Droid => unreachable!("{:?} is not run here", sandbox.agent),
    };
    let script = sandbox.scripts.join("refuse-push.sh");
    hooks::write_executable(
        &script,
        &format!("#!/bin/sh\nif grep -q 'git push'; then echo '{deny}'; fi\nexit 0\n"),
    );
    sandbox.add_hook(HookPoint::PreShell, &format!("'{}'", script.display()));
}

fn turn_actions_are_read_back(agent: Agent) {
    let Some(sandbox) = Sandbox::new(agent, "transcript-actions") else {
        return;
    };
    if agent == Agent::Claude {
        // Claude Code in -p mode runs only the tools it is allowed.
        e2e::agent::write_json(
            &sandbox.home.join(".claude/settings.json"),
            &json!({"permissions": {"allow": ["Bash", "Write", "Edit"]}}),
        );
    }
    write_project(&sandbox.work, &sandbox.home);
    refuse_pushes(&sandbox);
    let stop = hooks::record(&sandbox.scripts, "stop");
    sandbox.add_hook(HookPoint::TurnEnd, &stop.command());
    let calls = [
        turns::edit_call(&sandbox),
        json!(FAIL_TEST),
        json!(PASS_TEST),
        json!(COMMIT),
        json!(PUSH),
    ];
    sandbox.script(&[Turn::calls_then(&calls, ANSWER)]);
    let run = sandbox.run("Add notes, test, commit and push.");
    run.assert_success();

    let transcript = turns::last_transcript(&stop.calls(), &run);
    // Claude Code and Gemini CLI record the exit status of failures only (a
    // success has no status line); Codex records both. Codex's
    // workspace-write sandbox keeps .git read-only: the commit runs and fails.
    let expected = Expected {
        success_code: matches!(agent, Agent::Codex | Agent::Copilot).then_some(0),
        commit: if agent == Agent::Codex {
            Outcome::Failed
        } else {
            Outcome::Succeeded
        },
    };
    check_turn(
        turns::transcript_format(agent),
        &transcript,
        &expected,
        &run.debug(),
    );
}

/// How the CLIs differ on the same turn.
struct Expected {
    /// The exit status recorded for the passing test.
    success_code: Option<i32>,
    /// How the commit ended.
    commit: Outcome,
}

/// Reads the turn back from `transcript` and checks what the scripted turn did.
fn check_turn(format: TranscriptFormat, transcript: &Path, expected: &Expected, debug: &str) {
    let (turn, stats) =
        last_turn_with_stats(format, transcript, 4096).unwrap_or_else(|e| panic!("{e}\n{debug}"));
    eprintln!("e2e: transcript {} read: {stats:?}", transcript.display());
    assert_eq!(turn.text.as_deref(), Some(ANSWER), "{debug}");
    let actions = &turn.actions;
    let summary: Vec<String> = actions
        .actions
        .iter()
        .map(|action| serde_json::to_string(action).unwrap())
        .collect();
    let context = format!("{summary:#?}\n{debug}");
    assert!(actions.complete, "{context}");
    assert_eq!(actions.actions.len(), 5, "{context}");

    let edits: Vec<_> = actions.edited_files().collect();
    assert_eq!(edits.len(), 1, "{context}");
    assert!(edits[0].path.ends_with("notes.txt"), "{context}");
    assert_eq!(actions.last_edit(), Some(0), "{context}");

    let commands: Vec<_> = actions.commands().collect();
    let lines: Vec<&str> = commands.iter().map(|c| c.command.as_str()).collect();
    assert_eq!(lines, vec![FAIL_TEST, PASS_TEST, COMMIT, PUSH], "{context}");
    assert_eq!(commands[0].outcome, Outcome::Failed, "{context}");
    assert_eq!(commands[1].outcome, Outcome::Succeeded, "{context}");
    assert!(commands[0].is(CommandKind::Test) && commands[1].is(CommandKind::Test));
    assert_eq!(commands[0].exit_code, Some(1), "{context}");
    assert_eq!(commands[1].exit_code, expected.success_code, "{context}");
    assert_eq!(
        actions.verification_after_last_edit(&[CommandKind::Test]),
        Verification::Passed,
        "{context}"
    );
    assert_eq!(commands[2].outcome, expected.commit, "{context}");
    assert_eq!(
        actions.executed(CommandKind::Commit).count(),
        1,
        "{context}"
    );
    assert_eq!(commands[3].outcome, Outcome::NotRun, "{context}");
    assert_eq!(actions.executed(CommandKind::Push).count(), 0, "{context}");
}

#[test]
fn claude_turn_actions_are_read_back() {
    turn_actions_are_read_back(Agent::Claude)
}

#[test]
fn codex_turn_actions_are_read_back() {
    turn_actions_are_read_back(Agent::Codex)
}

#[test]
fn gemini_turn_actions_are_read_back() {
    turn_actions_are_read_back(Agent::Gemini)
}

/// The same turn on the GitHub Copilot CLI (BYOK against the stub, its
/// hooks in `~/.copilot/hooks/`). Copilot records every exit status.
#[test]
fn copilot_turn_actions_are_read_back() {
    turn_actions_are_read_back(Agent::Copilot)
}
