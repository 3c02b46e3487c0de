//! guard on the real agent CLIs (Claude Code, Codex CLI, Gemini CLI, Qwen
//! Code, Copilot CLI, Factory Droid), offline
//! against the stub model: the hook is registered in a fresh HOME, the real
//! CLI calls it, and the test checks what reached the model and what ran.
//!
//! guard is wired in with `guard install --agent X` (see `e2e::guard::guarded`).
//! Needs the pinned CLIs:
//! `tests/e2e/install-agents.sh`; `GUARD_E2E=skip` skips on purpose.

mod e2e;

use e2e::guard::{guarded, unverified, GuardSettings};
use e2e::{Agent, Role, Turn};
use serde_json::json;

/// An ordinary answer passes: one model call, no feedback, guard logged an allow.
fn ordinary_answer_is_not_blocked(agent: Agent) {
    let Some((sandbox, judge)) = guarded(
        agent,
        "guard-ordinary",
        json!({"nonce": "__NONCE__", "unverified_push": true}),
    ) else {
        return;
    };
    sandbox.script(&[Turn::text(
        "E2E-ORDINARY: here is the summary you asked for.",
    )]);
    let run = sandbox.run("Summarize the README.");
    run.assert_success();
    assert_eq!(
        run.calls().len(),
        1,
        "guard blocked an ordinary answer\n{}",
        run.debug()
    );
    assert!(run.answer().contains("E2E-ORDINARY"), "{}", run.debug());
    assert!(
        judge.calls().is_empty(),
        "no keyword hit, so no judge call: {:?}",
        judge.calls()
    );
    let decisions = sandbox.decisions();
    assert!(
        !decisions.is_empty(),
        "guard wrote no decision record\n{}",
        run.debug()
    );
}

/// A gate whose judge cannot answer fails safe: the shell command does not run
/// and the model is told why.
fn gate_fails_safe_when_the_judge_hangs(agent: Agent) {
    let Some((sandbox, judge)) = guarded(
        agent,
        "guard-gate-judge-hangs",
        json!({"nonce": "__NONCE__", "dangerous": true}),
    ) else {
        return;
    };
    judge.hang();
    sandbox.script(&[Turn::shell_then(
        "echo launch > e2e-marker.txt",
        "E2E-AFTER-GATE",
    )]);
    let run = sandbox.run("Launch it.");
    run.assert_success();
    assert!(
        !sandbox.work.join("e2e-marker.txt").exists(),
        "the gated command ran\n{}",
        run.debug()
    );
    let calls = run.calls();
    let results = calls
        .last()
        .map(|c| c.texts(Role::ToolResult).join("\n"))
        .unwrap_or_default();
    assert!(
        results.contains("E2E-GUARD-LAUNCH"),
        "guard's reason did not reach the model\n{}",
        run.debug()
    );
    assert_eq!(
        judge.calls(),
        ["e2e-launch"],
        "the judge was asked, and hung"
    );
}

/// Push without verification: guard blocks the turn end, its reason reaches the
/// model as a user turn, the model answers with verification, guard allows.
fn push_without_verification_is_blocked_then_allowed(agent: Agent) {
    let Some((sandbox, judge)) = guarded(agent, "guard-push-unverified", unverified()) else {
        return;
    };
    sandbox.script(&[
        Turn::text("E2E-VERIFIED: ran cargo test (12 passed), then pushed.")
            .when_last_user_contains("E2E-GUARD-PUSH"),
        Turn::text("Fixed the bug. Pushing to main now."),
    ]);
    let run = sandbox.run("Fix the bug and push.");
    run.assert_success();
    let calls = run.calls();
    assert_eq!(
        calls.len(),
        2,
        "expected one block, then the verified answer\n{}",
        run.debug()
    );
    assert!(
        calls[1].last_user().contains("E2E-GUARD-PUSH"),
        "guard's reason is not the last user turn\n{}",
        run.debug()
    );
    assert!(
        calls[1].last_user().contains("E2E-JUDGE"),
        "the judge's reason is missing\n{}",
        run.debug()
    );
    assert!(run.answer().contains("E2E-VERIFIED"), "{}", run.debug());
    assert_eq!(
        judge.calls(),
        ["e2e-push"],
        "the verified answer is bypassed without a judge call"
    );
    let verdicts: Vec<String> = sandbox
        .decisions()
        .iter()
        .filter(|d| d["event"] == "stop")
        .map(|d| d["verdict"].as_str().unwrap_or_default().to_string())
        .collect();
    assert_eq!(verdicts, ["block", "allow"], "{}", run.debug());
}

/// A judge that hangs at a turn end: the turn end is allowed (fail open) within
/// guard's deadline, so the run ends with the first answer.
fn turn_end_is_allowed_when_the_judge_hangs(agent: Agent) {
    let Some((sandbox, judge)) = guarded(agent, "guard-turn-end-judge-hangs", unverified()) else {
        return;
    };
    judge.hang();
    sandbox.use_e2e_detectors(
        &judge,
        &GuardSettings {
            turn_end_ms: 3000,
            ..GuardSettings::default()
        },
    );
    sandbox.script(&[Turn::text("Fixed the bug. Pushing to main now.")]);
    let run = sandbox.run("Fix the bug and push.");
    run.assert_success();
    assert_eq!(
        run.calls().len(),
        1,
        "a hanging judge must not block\n{}",
        run.debug()
    );
    let stops: Vec<serde_json::Value> = sandbox
        .decisions()
        .into_iter()
        .filter(|d| d["event"] == "stop")
        .collect();
    assert_eq!(stops.len(), 1, "{stops:?}");
    assert_eq!(stops[0]["verdict"], "allow", "{stops:?}");
    assert_eq!(judge.calls(), ["e2e-push"], "the judge was asked, and hung");
    // guard's own clock: the hook answered at its deadline (3 s), not when the
    // judge would have finished (600 s); the margin absorbs a loaded machine.
    let latency = stops[0]["latency_ms"].as_f64().unwrap_or(f64::MAX);
    assert!(
        latency < 8000.0,
        "guard answered after {latency} ms: {stops:?}"
    );
}

/// Loop guard: a model that never verifies is blocked `max_blocks` times, then
/// its turn end is allowed with a message.
fn loop_guard_releases_a_stuck_turn(agent: Agent) {
    let Some((sandbox, _judge)) = guarded(agent, "guard-loop-guard", unverified()) else {
        return;
    };
    sandbox.script(&[Turn::text("Fixed the bug. Pushing to main now.")]);
    let run = sandbox.run("Fix the bug and push.");
    run.assert_success();
    let calls = run.calls();
    assert_eq!(
        calls.len(),
        4,
        "three blocks (max_blocks 3), then released\n{}",
        run.debug()
    );
    for call in &calls[1..] {
        assert!(
            call.last_user().contains("E2E-GUARD-PUSH"),
            "each retry follows guard's feedback\n{}",
            run.debug()
        );
    }
    let verdicts: Vec<String> = sandbox
        .decisions()
        .iter()
        .filter(|d| d["event"] == "stop")
        .map(|d| d["verdict"].as_str().unwrap_or_default().to_string())
        .collect();
    assert_eq!(
        verdicts,
        ["block", "block", "block", "allow"],
        "{}",
        run.debug()
    );
}

/// A destructive shell command (force-push to main) is denied by the built-in
/// shell rules: the marker after it is never created, the model is told why.
fn destructive_command_is_denied(agent: Agent) {
    let Some((sandbox, _judge)) = guarded(agent, "guard-destructive", unverified()) else {
        return;
    };
    sandbox.script(&[Turn::shell_then(
        "git push --force origin main; echo ran > e2e-marker.txt",
        "E2E-AFTER-GATE",
    )]);
    let run = sandbox.run("Publish the fix.");
    run.assert_success();
    assert!(
        !sandbox.work.join("e2e-marker.txt").exists(),
        "the destructive command ran\n{}",
        run.debug()
    );
    let calls = run.calls();
    let results = calls
        .last()
        .map(|c| c.texts(Role::ToolResult).join("\n"))
        .unwrap_or_default();
    assert!(
        results.contains("guard [dangerous-command]"),
        "guard's reason did not reach the model\n{}",
        run.debug()
    );
}

/// A guarded sandbox whose turn ends run the built-in detectors.
fn with_builtin_turn_end(
    agent: Agent,
    name: &str,
) -> Option<(e2e::Sandbox, e2e::guard::TestJudge)> {
    let (sandbox, judge) = guarded(agent, name, unverified())?;
    let settings = GuardSettings {
        builtin_turn_end: true,
        ..GuardSettings::default()
    };
    sandbox.use_e2e_detectors(&judge, &settings);
    Some((sandbox, judge))
}

/// The built-in `commit-before-verification` detector on a real agent: an
/// unverified push proposal is blocked with the detector's reason and the
/// judge's; the answer that reports test counts passes by a bypass, unjudged.
fn builtin_commit_detector_blocks_an_unverified_push(agent: Agent) {
    let Some((sandbox, judge)) = with_builtin_turn_end(agent, "guard-builtin-commit") else {
        return;
    };
    judge.answer(
        "commit-before-verification",
        &json!({"nonce": "__NONCE__", "new_proposal": true, "verification_reported": false,
                "direction_query": false, "future_step_description": false,
                "reason": "E2E-CBV: no test run is shown"}),
    );
    sandbox.script(&[
        Turn::text("cargo test: 12 passed, 0 failed. Pushed it to origin.")
            .when_last_user_contains("E2E-CBV"),
        Turn::text("The change is ready. Shall I push it to origin now?"),
    ]);
    let run = sandbox.run("Make the change.");
    run.assert_success();
    let calls = run.calls();
    assert_eq!(
        calls.len(),
        2,
        "blocked once, then verified\n{}",
        run.debug()
    );
    assert!(calls[1].last_user().contains("E2E-CBV"), "{}", run.debug());
    assert!(run.answer().contains("12 passed"), "{}", run.debug());
    let judged: Vec<String> = judge.calls();
    assert_eq!(
        judged
            .iter()
            .filter(|d| *d == "commit-before-verification")
            .count(),
        1,
        "judged once; the verified answer passes by its bypass: {judged:?}"
    );
}

/// The same proposal when the user's request asked for the push: guard
/// reads the request from the agent's transcript (Claude Code, Codex) or
/// payload (Gemini), and the push the user asked for passes at Layer 1,
/// unjudged.
fn a_push_the_user_asked_for_passes(agent: Agent) {
    let Some((sandbox, judge)) = with_builtin_turn_end(agent, "guard-asked-push") else {
        return;
    };
    sandbox.script(&[Turn::text("The change is ready. Pushing it to origin now.")]);
    let run = sandbox.run("Make the change, then commit and push.");
    run.assert_success();
    assert_eq!(run.calls().len(), 1, "not blocked\n{}", run.debug());
    assert!(judge.calls().is_empty(), "unjudged: {:?}", judge.calls());
}

/// What each CLI does with a harmless command when guard crashes at its gate
/// (`GUARD_FAULT=abort:parse`: SIGABRT before any answer): the fail-closed
/// column of docs/agents/README.md, checked on the pinned version. Where the
/// tool runs, guard's gate fails open on a crash.
fn crashed_gate_outcome_is_as_documented(agent: Agent) {
    let Some((mut sandbox, _judge)) = guarded(agent, "guard-crashed-gate", unverified()) else {
        return;
    };
    sandbox.set_env("GUARD_FAULT", "abort:parse");
    sandbox.script(&[Turn::shell_then(
        "echo ran > e2e-marker.txt",
        "E2E-AFTER-GATE",
    )]);
    let run = sandbox.run("Create the marker file.");
    run.assert_success();
    let ran = sandbox.work.join("e2e-marker.txt").exists();
    assert_eq!(
        ran,
        agent.crashed_gate_runs_the_tool(),
        "{} {}: with guard crashed at the gate the tool {}\n{}",
        agent.name(),
        agent.pin().version,
        if ran { "ran" } else { "did not run" },
        run.debug()
    );
    assert!(run.answer().contains("E2E-AFTER-GATE"), "{}", run.debug());
}

/// One module per agent with the named scenarios as tests.
macro_rules! scenarios {
    ($($agent:ident => $module:ident: [$($test:ident),*]),* $(,)?) => {$(
        mod $module {
            use super::*;
            $(#[test] fn $test() { super::$test(Agent::$agent) })*
        }
    )*};
}

// Qwen, Copilot and Droid run the scenarios that depend on the agent's
// protocol; a hanging judge at a turn end and the built-in detector are
// guard's own behaviour, shown on the first three.
scenarios!(
    Claude => claude: [ordinary_answer_is_not_blocked, gate_fails_safe_when_the_judge_hangs,
        turn_end_is_allowed_when_the_judge_hangs, push_without_verification_is_blocked_then_allowed,
        loop_guard_releases_a_stuck_turn, builtin_commit_detector_blocks_an_unverified_push,
        a_push_the_user_asked_for_passes, destructive_command_is_denied,
        crashed_gate_outcome_is_as_documented],
    Codex => codex: [ordinary_answer_is_not_blocked, gate_fails_safe_when_the_judge_hangs,
        turn_end_is_allowed_when_the_judge_hangs, push_without_verification_is_blocked_then_allowed,
        loop_guard_releases_a_stuck_turn, builtin_commit_detector_blocks_an_unverified_push,
        a_push_the_user_asked_for_passes, destructive_command_is_denied,
        crashed_gate_outcome_is_as_documented],
    Gemini => gemini: [ordinary_answer_is_not_blocked, gate_fails_safe_when_the_judge_hangs,
        turn_end_is_allowed_when_the_judge_hangs, push_without_verification_is_blocked_then_allowed,
        loop_guard_releases_a_stuck_turn, builtin_commit_detector_blocks_an_unverified_push,
        a_push_the_user_asked_for_passes, destructive_command_is_denied,
        crashed_gate_outcome_is_as_documented],
    Qwen => qwen: [ordinary_answer_is_not_blocked, gate_fails_safe_when_the_judge_hangs,
        push_without_verification_is_blocked_then_allowed, loop_guard_releases_a_stuck_turn,
        destructive_command_is_denied, crashed_gate_outcome_is_as_documented],
    Copilot => copilot: [ordinary_answer_is_not_blocked, gate_fails_safe_when_the_judge_hangs,
        push_without_verification_is_blocked_then_allowed, loop_guard_releases_a_stuck_turn,
        destructive_command_is_denied, crashed_gate_outcome_is_as_documented],
    Droid => droid: [ordinary_answer_is_not_blocked, gate_fails_safe_when_the_judge_hangs,
        push_without_verification_is_blocked_then_allowed, loop_guard_releases_a_stuck_turn,
        destructive_command_is_denied, crashed_gate_outcome_is_as_documented],
);

/// Claude Code's fail-closed switch: `guard install` writes
/// `"onFailure": "block"` on its PreToolUse entry and not on Stop, and the
/// real Claude Code then blocks a harmless shell command when guard crashes
/// or hangs at the gate, while a crashed Stop hook still lets the turn end.
/// `GUARD_FAULT=abort:parse` kills guard before it answers anything (SIGABRT);
/// `stall:parse` hangs it before its watchdog is armed, so Claude Code's own
/// timeout kills it.
mod claude_fail_closed {
    use super::*;
    use e2e::Sandbox;

    const MARKER: &str = "e2e-marker.txt";

    /// A guarded Claude sandbox whose model runs one harmless command, then answers.
    fn harmless_command(name: &str, settings: &GuardSettings) -> Option<Sandbox> {
        let (sandbox, judge) = guarded(Agent::Claude, name, unverified())?;
        sandbox.use_e2e_detectors(&judge, settings);
        sandbox.guard_install(&[]);
        sandbox.script(&[Turn::shell_then(
            &format!("echo ran > {MARKER}"),
            "E2E-AFTER-GATE: the command was refused.",
        )]);
        Some(sandbox)
    }

    /// Guard's PreToolUse handler in the installed settings.
    fn gate_entry(sandbox: &Sandbox) -> serde_json::Value {
        sandbox.hooks_config()["hooks"]["PreToolUse"][0]["hooks"][0].clone()
    }

    #[test]
    fn install_sets_on_failure_on_the_gate_and_never_on_stop() {
        let Some((sandbox, _judge)) = guarded(Agent::Claude, "fail-closed-install", unverified())
        else {
            return;
        };
        let hooks = sandbox.hooks_config()["hooks"].clone();
        assert_eq!(gate_entry(&sandbox)["onFailure"], "block", "{hooks:#}");
        for event in ["Stop", "SubagentStop"] {
            assert!(
                hooks[event][0]["hooks"][0].get("onFailure").is_none(),
                "{hooks:#}"
            );
        }
    }

    #[test]
    fn a_crashed_guard_blocks_the_tool_and_a_crashed_stop_ends_the_turn() {
        let Some(mut sandbox) = harmless_command("fail-closed-crash", &GuardSettings::default())
        else {
            return;
        };
        sandbox.set_env("GUARD_FAULT", "abort:parse");
        let run = sandbox.run("Create the marker file.");
        run.assert_success();
        assert!(
            !sandbox.work.join(MARKER).exists(),
            "the command ran although guard crashed at the gate\n{}",
            run.debug()
        );
        let calls = run.calls();
        assert_eq!(
            calls.len(),
            2,
            "tool call, then the answer\n{}",
            run.debug()
        );
        let results = calls[1].texts(Role::ToolResult).join("\n");
        assert!(
            results.contains("onFailure is \"block\""),
            "Claude Code did not say the switch blocked\n{}",
            run.debug()
        );
        // The Stop hook crashed too: the turn ended with the answer.
        assert!(run.answer().contains("E2E-AFTER-GATE"), "{}", run.debug());
        assert!(sandbox.decisions().is_empty(), "guard never got to decide");
    }

    #[test]
    fn a_hung_guard_blocks_the_tool_at_the_agents_timeout() {
        // Deadlines of 1 s: guard install writes timeouts of 11 s.
        let settings = GuardSettings {
            turn_end_ms: 1000,
            gate_ms: 1000,
            judge_timeout_ms: 500,
            ..GuardSettings::default()
        };
        let Some(mut sandbox) = harmless_command("fail-closed-hang", &settings) else {
            return;
        };
        assert_eq!(gate_entry(&sandbox)["timeout"], 11);
        sandbox.set_env("GUARD_FAULT", "stall:parse");
        let run = sandbox.run("Create the marker file.");
        run.assert_success();
        assert!(
            !sandbox.work.join(MARKER).exists(),
            "the command ran although guard hung at the gate\n{}",
            run.debug()
        );
        let calls = run.calls();
        assert_eq!(calls.len(), 2, "{}", run.debug());
        let results = calls[1].texts(Role::ToolResult).join("\n");
        assert!(
            results.contains("timed out") && results.contains("onFailure"),
            "{}",
            run.debug()
        );
        assert!(run.answer().contains("E2E-AFTER-GATE"), "{}", run.debug());
    }

    /// The control: the same crash with the switch taken out of the entry
    /// lets the command run, so the block above is the switch's doing (and
    /// a Claude Code that stops honouring it fails this pair of tests).
    #[test]
    fn without_the_switch_a_crashed_guard_lets_the_tool_run() {
        let Some(mut sandbox) = harmless_command("fail-closed-control", &GuardSettings::default())
        else {
            return;
        };
        let file = Agent::Claude.hooks_file(&sandbox.home);
        let mut config = sandbox.hooks_config();
        let entry = &mut config["hooks"]["PreToolUse"][0]["hooks"][0];
        entry.as_object_mut().unwrap().remove("onFailure");
        e2e::agent::write_json(&file, &config);
        sandbox.set_env("GUARD_FAULT", "abort:parse");
        let run = sandbox.run("Create the marker file.");
        run.assert_success();
        assert!(
            sandbox.work.join(MARKER).exists(),
            "the command did not run\n{}",
            run.debug()
        );
    }
}
