//! A test run piped through `tail`, on transcripts the real CLIs (Claude
//! Code, Codex CLI, Gemini CLI, Copilot CLI) write offline against the stub
//! model. One turn edits a file, runs a passing test, then a failing test as
//! agents often do, `… 2>&1 | tail -3`: the shell exits 0 (`tail`'s status),
//! and only the run's own summary (`FAILED (failures=1)`) says it failed.
//! guard must read that run as failed, name the line in the facts block, and
//! so see no passing check after the last edit.
//!
//! The recordings in tests/fixtures/transcripts/*-real-piped-check.jsonl were
//! captured from these runs (see the README there) and are replayed without
//! the CLIs by tests/transcripts/piped_checks.rs. Needs the pinned CLIs:
//! `tests/e2e/install-agents.sh`; `GUARD_E2E=skip` skips on purpose.

mod e2e;

use e2e::hooks;
use e2e::{turns, Agent, HookPoint, Sandbox, Turn};
use guard::actions::{facts, CommandKind, Outcome, Verification};
use guard::transcript::{last_turn_with_stats, TranscriptFormat};
use serde_json::json;
use std::path::Path;

const PASS_TEST: &str = "python3 -m unittest tests.test_ok";
const PIPED_FAIL_TEST: &str = "python3 -m unittest tests.test_fail 2>&1 | tail -3";
const ANSWER: &str = "E2E-PIPED: notes added, all tests pass.";

fn piped_failure_is_read_back(agent: Agent) {
    let Some(sandbox) = Sandbox::new(agent, "transcript-piped-check") else {
        return;
    };
    if agent == Agent::Claude {
        // Claude Code in -p mode runs only the tools it is allowed.
        e2e::agent::write_json(
            &sandbox.home.join(".claude/settings.json"),
            &json!({"permissions": {"allow": ["Bash", "Write", "Edit"]}}),
        );
    }
    turns::write_unittest_project(&sandbox.work);
    let stop = hooks::record(&sandbox.scripts, "stop");
    sandbox.add_hook(HookPoint::TurnEnd, &stop.command());
    let calls = [
        turns::edit_call(&sandbox),
        json!(PASS_TEST),
        json!(PIPED_FAIL_TEST),
    ];
    sandbox.script(&[Turn::calls_then(&calls, ANSWER)]);
    let run = sandbox.run("Add notes and run the tests.");
    run.assert_success();
    let transcript = turns::last_transcript(&stop.calls(), &run);
    check_turn(turns::transcript_format(agent), &transcript, &run.debug());
}

/// Reads the turn back from `transcript` and checks the piped run.
fn check_turn(format: TranscriptFormat, transcript: &Path, debug: &str) {
    let (turn, stats) =
        last_turn_with_stats(format, transcript, 4096).unwrap_or_else(|e| panic!("{e}\n{debug}"));
    eprintln!("e2e: transcript {} read: {stats:?}", transcript.display());
    assert_eq!(turn.text.as_deref(), Some(ANSWER), "{debug}");
    let actions = &turn.actions;
    let context = format!(
        "{}\n{debug}",
        serde_json::to_string_pretty(actions).unwrap()
    );
    let commands: Vec<_> = actions.commands().collect();
    let lines: Vec<&str> = commands.iter().map(|c| c.command.as_str()).collect();
    assert_eq!(lines, vec![PASS_TEST, PIPED_FAIL_TEST], "{context}");
    assert!(
        commands.iter().all(|c| c.is(CommandKind::Test)),
        "{context}"
    );
    assert_eq!(commands[0].outcome, Outcome::Succeeded, "{context}");
    assert_eq!(commands[0].failure_in_output, None, "{context}");
    // The shell's status was tail's (0, where the CLI records it).
    assert!(matches!(commands[1].exit_code, None | Some(0)), "{context}");
    assert_eq!(commands[1].outcome, Outcome::Failed, "{context}");
    assert_eq!(
        commands[1].failure_in_output.as_deref(),
        Some("FAILED (failures=1)"),
        "{context}"
    );
    assert_eq!(
        actions.verification_after_last_edit(&CommandKind::CHECKS),
        Verification::Failed,
        "{context}"
    );
    let block = facts::render(actions);
    assert!(
        block.contains("its output reports the failure: \"FAILED (failures=1)\""),
        "{block}"
    );
}

#[test]
fn claude_piped_failure_is_read_back() {
    piped_failure_is_read_back(Agent::Claude)
}

#[test]
fn codex_piped_failure_is_read_back() {
    piped_failure_is_read_back(Agent::Codex)
}

#[test]
fn gemini_piped_failure_is_read_back() {
    piped_failure_is_read_back(Agent::Gemini)
}

#[test]
fn copilot_piped_failure_is_read_back() {
    piped_failure_is_read_back(Agent::Copilot)
}
