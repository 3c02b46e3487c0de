//! A check's failure read from the end of its output when the shell's
//! status says nothing of it (`… 2>&1 | tail -3` exits 0): on the real
//! CLIs' recordings of `tests/e2e_piped_checks.rs`, and on synthetic turns
//! for what must not change (a passing run, a command that is no check, a
//! failure the status already gave) and for grep's exit 1 after a check,
//! which says nothing of the check.

use super::*;
use guard::actions::{facts, CommandKind, Outcome, Verification};
use serde_json::json;

const PIPED_FAIL_TEST: &str = "python3 -m unittest tests.test_fail 2>&1 | tail -3";

#[test]
fn real_recordings_read_a_piped_failure_from_its_output() {
    for (format, name, exit_code) in [
        (ClaudeCode, "claude-2.1.332-real-piped-check.jsonl", None),
        (Codex, "codex-0.171-real-piped-check.jsonl", Some(0)),
        (Gemini, "gemini-0.61-real-piped-check.jsonl", None),
        (Copilot, "copilot-1.0.102-real-piped-check.jsonl", Some(0)),
    ] {
        let turn = last_turn(format, &fixture(name), 4096).unwrap();
        let actions = &turn.actions;
        let commands: Vec<_> = actions.commands().collect();
        assert_eq!(commands.len(), 2, "{name}: {actions:?}");
        assert_eq!(commands[0].outcome, Outcome::Succeeded, "{name}");
        assert_eq!(commands[1].command, PIPED_FAIL_TEST, "{name}");
        assert_eq!(commands[1].exit_code, exit_code, "{name}");
        assert_eq!(commands[1].outcome, Outcome::Failed, "{name}");
        assert_eq!(
            commands[1].failure_in_output.as_deref(),
            Some("FAILED (failures=1)"),
            "{name}"
        );
        assert_eq!(
            actions.verification_after_last_edit(&CommandKind::CHECKS),
            Verification::Failed,
            "{name}"
        );
        assert!(facts::render(actions).contains("its output reports the failure"));
    }
}

/// A Claude Code turn: one Bash call per `(command, result content)`.
fn claude_turn(dir: &ScratchDir, runs: &[(&str, &str, bool)]) -> guard::actions::TurnActions {
    let mut lines =
        vec![json!({"type": "user", "message": {"role": "user", "content": "Run the tests."}})];
    for (n, (command, content, is_error)) in runs.iter().enumerate() {
        let id = format!("t{n}");
        lines.push(
            json!({"type": "assistant", "message": {"id": format!("m{n}"), "content": [
            {"type": "tool_use", "id": id, "name": "Bash", "input": {"command": command}}]}}),
        );
        lines.push(json!({"type": "user", "message": {"content": [
            {"type": "tool_result", "tool_use_id": id, "content": content, "is_error": is_error}]}}));
    }
    lines.push(json!({"type": "assistant", "message": {"id": "m-end", "content": [{"type": "text", "text": "Done."}]}}));
    let path = dir.path("piped.jsonl");
    let text: Vec<String> = lines.iter().map(|l| l.to_string()).collect();
    fs::write(&path, text.join("\n") + "\n").unwrap();
    last_turn(ClaudeCode, &path, 4096).unwrap().actions
}

#[test]
fn only_a_check_that_reports_a_failure_is_changed() {
    let dir = ScratchDir::new();
    let actions = claude_turn(
        &dir,
        &[
            // A passing run: its summary names failures only as "0 failed".
            (
                "cargo test 2>&1 | tail -2",
                "test result: ok. 4 passed; 0 failed; 0 ignored",
                false,
            ),
            // No check: a search that prints a runner's summary line.
            (
                "grep -r 'test result: FAILED' ci.log",
                "ci.log:test result: FAILED. 1 passed; 1 failed",
                false,
            ),
            // The status already said it: the exit code stays, no line is named.
            (
                "cargo test",
                "Exit code 101\ntest result: FAILED. 3 passed; 1 failed",
                true,
            ),
            // grep's exit 1 (nothing found) with no failure in sight: unknown.
            ("pytest -q 2>&1 | grep FAILED", "Exit code 1", true),
            // A failure grep found: the run's own line says it.
            (
                "pytest -q 2>&1 | grep failed",
                "Exit code 1\n1 failed, 3 passed in 0.2s",
                true,
            ),
            // A run whose output is longer than what is kept: its end is read.
            (
                "pytest -q | tail",
                &format!("{}\n1 failed, 9 passed in 0.52s", ".".repeat(100_000)),
                false,
            ),
        ],
    );
    let runs: Vec<_> = actions.commands().collect();
    assert_eq!(runs[0].outcome, Outcome::Succeeded);
    assert_eq!(runs[1].outcome, Outcome::Succeeded);
    assert_eq!(
        (runs[2].outcome, runs[2].exit_code),
        (Outcome::Failed, Some(101))
    );
    assert_eq!(runs[2].failure_in_output, None);
    assert_eq!(
        (runs[3].outcome, runs[3].exit_code),
        (Outcome::Unknown, Some(1))
    );
    assert_eq!(
        (runs[4].outcome, runs[4].exit_code),
        (Outcome::Failed, Some(1))
    );
    assert_eq!(runs[5].outcome, Outcome::Failed);
    assert_eq!(
        runs[5].failure_in_output.as_deref(),
        Some("1 failed, 9 passed in 0.52s")
    );
    let logged = serde_json::to_value(runs[5]).unwrap();
    assert_eq!(logged["failure_in_output"], "1 failed, 9 passed in 0.52s");
}
