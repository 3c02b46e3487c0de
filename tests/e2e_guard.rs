//! guard on the real agent CLIs (Claude Code, Codex CLI, Gemini CLI), offline
//! against the stub model: the hook is registered in a fresh HOME, the real
//! CLI calls it, and the test checks what reached the model and what ran.
//!
//! For now the hooks are registered by hand (`register_guard_hooks`); the
//! scenarios switch to `guard install` once it exists. Needs the pinned CLIs:
//! `tests/e2e/install-agents.sh`; `GUARD_E2E=skip` skips on purpose.

mod e2e;

use e2e::guard::TestJudge;
use e2e::{Agent, Role, Sandbox, Turn};
use serde_json::json;

/// A sandbox with guard's hooks and the e2e detectors, or `None` when skipped
/// (on purpose, or because guard has no adapter for the agent yet).
fn guarded(agent: Agent, name: &str, judge_answer: serde_json::Value) -> Option<(Sandbox, TestJudge)> {
    let adapter = e2e::repo_root().join(format!("adapters/{}.yaml", agent.guard_name()));
    if !adapter.exists() {
        eprintln!("e2e: guard has no adapter for {} yet ({}): skipping", agent.name(), adapter.display());
        return None;
    }
    let sandbox = Sandbox::new(agent, name)?;
    let judge = TestJudge::new(&sandbox.scripts, &judge_answer);
    sandbox.use_e2e_detectors(&judge, "");
    sandbox.register_guard_hooks();
    Some((sandbox, judge))
}

/// An ordinary answer passes: one model call, no feedback, guard logged an allow.
fn ordinary_answer_is_not_blocked(agent: Agent) {
    let Some((sandbox, judge)) = guarded(agent, "guard-ordinary", json!({"nonce": "__NONCE__", "unverified_push": true}))
    else {
        return;
    };
    sandbox.script(&[Turn::text("E2E-ORDINARY: here is the summary you asked for.")]);
    let run = sandbox.run("Summarize the README.");
    run.assert_success();
    assert_eq!(run.calls().len(), 1, "guard blocked an ordinary answer\n{}", run.debug());
    assert!(run.answer().contains("E2E-ORDINARY"), "{}", run.debug());
    assert!(judge.calls().is_empty(), "no keyword hit, so no judge call: {:?}", judge.calls());
    let decisions = sandbox.decisions();
    assert!(!decisions.is_empty(), "guard wrote no decision record\n{}", run.debug());
}

/// A gate whose judge cannot answer fails safe: the shell command does not run
/// and the model is told why.
fn gate_fails_safe_when_the_judge_hangs(agent: Agent) {
    let Some((sandbox, judge)) = guarded(agent, "guard-gate-judge-hangs", json!({"nonce": "__NONCE__", "dangerous": true}))
    else {
        return;
    };
    judge.hang();
    sandbox.script(&[Turn::shell_then("echo launch > e2e-marker.txt", "E2E-AFTER-GATE")]);
    let run = sandbox.run("Launch it.");
    run.assert_success();
    assert!(!sandbox.work.join("e2e-marker.txt").exists(), "the gated command ran\n{}", run.debug());
    let calls = run.calls();
    let results = calls.last().map(|c| c.texts(Role::ToolResult).join("\n")).unwrap_or_default();
    assert!(results.contains("guard"), "guard's reason did not reach the model\n{}", run.debug());
}

macro_rules! for_each_agent {
    ($($agent:ident => $module:ident),*) => {$(
        mod $module {
            use super::*;
            #[test]
            fn ordinary_answer_is_not_blocked() { super::ordinary_answer_is_not_blocked(Agent::$agent) }
            #[test]
            fn gate_fails_safe_when_the_judge_hangs() { super::gate_fails_safe_when_the_judge_hangs(Agent::$agent) }
        }
    )*};
}

for_each_agent!(Claude => claude, Codex => codex, Gemini => gemini);
