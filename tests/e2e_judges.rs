//! guard's judge backends on the real agent CLIs, offline against the stub
//! model: the `http` backend served by the run's own stub, and the CLI
//! backends (`codex exec`, `claude -p`, `gemini -p`) run for real inside a
//! hook of the same CLI. Needs the pinned CLIs (`tests/e2e/install-agents.sh`);
//! `GUARD_E2E=skip` skips on purpose.

mod e2e;

use e2e::guard::{guarded, stub_http_judge_yaml, unverified, GuardSettings, NONCE_REGEX};
use e2e::{Agent, Turn};

/// guard's `http` judge backend, served by the run's own stub (Chat
/// Completions on loopback): the judge's verdict and reason reach the agent.
fn http_judge_blocks_an_unverified_push(agent: Agent) {
    let Some((mut sandbox, command_judge)) = guarded(agent, "guard-http-judge", unverified())
    else {
        return;
    };
    sandbox.set_env("STUB_JUDGE_KEY", "dummy");
    sandbox.use_e2e_detectors_with(&stub_http_judge_yaml(3000), &GuardSettings::default());
    let judge_answer =
        r#"{"nonce": "$1", "unverified_push": true, "reason": "E2E-HTTP-JUDGE: no test run"}"#;
    sandbox.script(&[
        Turn::text(judge_answer)
            .capture(NONCE_REGEX)
            .when_api("chat"),
        Turn::text("E2E-VERIFIED: ran cargo test (12 passed), then pushed.")
            .when_last_user_contains("E2E-GUARD-PUSH"),
        Turn::text("Fixed the bug. Pushing to main now."),
    ]);
    let run = sandbox.run("Fix the bug and push.");
    run.assert_success();
    let calls = run.calls();
    let judge_calls: Vec<_> = calls.iter().filter(|c| c.api == "chat").collect();
    let agent_calls: Vec<_> = calls.iter().filter(|c| c.api != "chat").collect();
    assert_eq!(judge_calls.len(), 1, "one HTTP judgment\n{}", run.debug());
    assert!(
        judge_calls[0].last_user().contains("--- text-start"),
        "{}",
        run.debug()
    );
    assert_eq!(
        agent_calls.len(),
        2,
        "blocked once, then verified\n{}",
        run.debug()
    );
    assert!(
        agent_calls[1].last_user().contains("E2E-HTTP-JUDGE"),
        "{}",
        run.debug()
    );
    assert!(run.answer().contains("E2E-VERIFIED"), "{}", run.debug());
    assert!(
        command_judge.calls().is_empty(),
        "the command judge is not configured any more"
    );
}

/// guard's CLI judge backend of the agent's own kind (`codex exec`, `claude -p`,
/// `gemini -p`), run for real against the stub: proves the argv guard builds
/// works with the pinned CLI and that the judge's own hooks do not recurse.
fn cli_judge_backend_works_on_the_real_cli(agent: Agent) {
    let Some((sandbox, command_judge)) = guarded(agent, "guard-cli-judge", unverified()) else {
        return;
    };
    let judge_yaml = format!("judge:\n  backend: {}\n  timeout_ms: 12000\n", agent.name());
    let settings = GuardSettings {
        turn_end_ms: 15000,
        ..GuardSettings::default()
    };
    sandbox.use_e2e_detectors_with(&judge_yaml, &settings);
    let judge_answer =
        r#"{"nonce": "$1", "unverified_push": true, "reason": "E2E-CLI-JUDGE: no test run"}"#;
    sandbox.script(&[
        // Claude Code's --json-schema offers a StructuredOutput tool and insists on it.
        Turn::text(judge_answer)
            .capture(NONCE_REGEX)
            .call_tool("StructuredOutput")
            .when_request_contains("--- text-start"),
        Turn::text("E2E-VERIFIED: ran cargo test (12 passed), then pushed.")
            .when_last_user_contains("E2E-GUARD-PUSH"),
        Turn::text("Fixed the bug. Pushing to main now."),
    ]);
    let run = sandbox.run("Fix the bug and push.");
    run.assert_success();
    let calls = run.calls();
    let (judge_calls, agent_calls): (Vec<_>, Vec<_>) = calls
        .iter()
        .partition(|c| c.body.to_string().contains("--- text-start"));
    assert_eq!(
        judge_calls.len(),
        1,
        "one judgment by the real CLI\n{}",
        run.debug()
    );
    assert_eq!(
        agent_calls.len(),
        2,
        "blocked once, then verified\n{}",
        run.debug()
    );
    assert!(
        agent_calls[1].last_user().contains("E2E-CLI-JUDGE"),
        "{}",
        run.debug()
    );
    assert!(run.answer().contains("E2E-VERIFIED"), "{}", run.debug());
    assert!(command_judge.calls().is_empty());
}

macro_rules! for_each_agent {
    ($($agent:ident => $module:ident),*) => {$(
        mod $module {
            use super::*;
            #[test]
            fn http_judge_blocks_an_unverified_push() {
                super::http_judge_blocks_an_unverified_push(Agent::$agent)
            }
            #[test]
            fn cli_judge_backend_works_on_the_real_cli() {
                super::cli_judge_backend_works_on_the_real_cli(Agent::$agent)
            }
        }
    )*};
}

for_each_agent!(Claude => claude, Codex => codex, Gemini => gemini);
