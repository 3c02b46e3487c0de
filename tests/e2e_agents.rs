//! Smoke tests of the end-to-end harness on the real agent CLIs (Claude Code,
//! Codex CLI, Gemini CLI, Qwen Code, Copilot CLI, Factory Droid), offline
//! against the stub model, with tiny shell hooks standing in for guard. They
//! prove what guard relies on: the stub is reached, a turn-end hook's block
//! reaches the model as a new user turn, a pre-tool deny stops the shell
//! command and reaches the model as its result, and each payload still has
//! the shape of the pinned version's fixture (`e2e::capture`).
//!
//! Needs the pinned CLIs: `tests/e2e/install-agents.sh`. `GUARD_E2E=skip`
//! skips on purpose. Each run prints its wall time.

mod e2e;

use e2e::{capture, hooks};
use e2e::{Agent, HookPoint, Role, Sandbox, Turn};

const PLAIN: &str = "E2E-PLAIN-ANSWER-5521 all done.";
const FIRST: &str = "E2E-FIRST-ANSWER-1907 finished.";
const SECOND: &str = "E2E-SECOND-ANSWER-2288 PINEAPPLE.";
const FEEDBACK: &str = "E2E-FEEDBACK-3317: please also say the word PINEAPPLE before stopping.";
const DENY: &str = "E2E-DENY-8841: shell commands are forbidden here.";
const AFTER_TOOL: &str = "E2E-AFTER-TOOL-6403 done.";
const MARKER: &str = "e2e-marker.txt";

/// (a) A plain final answer: one model request, the text printed.
fn plain_answer(agent: Agent) {
    let Some(sandbox) = Sandbox::new(agent, "plain-answer") else {
        return;
    };
    sandbox.script(&[Turn::text(PLAIN)]);
    let run = sandbox.run("Say something.");
    run.assert_success();
    let calls = run.calls();
    assert_eq!(
        calls.len(),
        1,
        "expected exactly one model request\n{}",
        run.debug()
    );
    assert!(
        calls[0].last_user().contains("Say something."),
        "prompt not sent\n{}",
        run.debug()
    );
    assert!(
        run.answer().contains(PLAIN),
        "answer not printed\n{}",
        run.debug()
    );
}

/// (b) A turn-end hook that blocks once: its reason comes back as a user turn
/// after the first answer, and the second answer ends the run.
fn turn_end_block_once(agent: Agent) {
    let Some(sandbox) = Sandbox::new(agent, "turn-end-block-once") else {
        return;
    };
    let hook = hooks::block_turn_end_once(&sandbox.scripts, "stop", agent, FEEDBACK);
    sandbox.add_hook(HookPoint::TurnEnd, &hook.command());
    sandbox.script(&[
        Turn::text(SECOND).when_last_user_contains("E2E-FEEDBACK-3317"),
        Turn::text(FIRST),
    ]);
    let run = sandbox.run("Finish the task.");
    run.assert_success();

    let calls = run.calls();
    assert_eq!(
        calls.len(),
        2,
        "expected a second model request after the block\n{}",
        run.debug()
    );
    assert!(
        !calls[0].last_user().contains("E2E-FEEDBACK"),
        "{}",
        run.debug()
    );
    let second = &calls[1];
    assert!(
        second.last_user().contains(FEEDBACK),
        "feedback is not the last user turn\n{}",
        run.debug()
    );
    let feedback_at = second
        .conversation
        .iter()
        .rposition(|e| e.role == Role::User)
        .unwrap();
    let first_answer_at = second
        .conversation
        .iter()
        .position(|e| e.role == Role::Assistant && e.text.contains(FIRST));
    assert!(
        first_answer_at.is_some_and(|at| at < feedback_at),
        "the first answer should precede the feedback\n{}",
        run.debug()
    );
    assert!(
        run.answer().contains(SECOND),
        "final answer missing\n{}",
        run.debug()
    );

    let payloads = hook.calls();
    assert_eq!(
        payloads.len(),
        2,
        "hook should run at both turn ends: {payloads:?}"
    );
    if agent.payload_names_its_event() {
        assert_eq!(payloads[0]["hook_event_name"], agent.turn_end_event());
    }
    assert_eq!(payloads[0]["stop_hook_active"], false, "{payloads:?}");
    assert_eq!(payloads[1]["stop_hook_active"], true, "{payloads:?}");
}

/// (c) A pre-tool hook that denies: no marker file, and the model gets the reason.
fn pre_shell_deny(agent: Agent) {
    let Some(sandbox) = Sandbox::new(agent, "pre-shell-deny") else {
        return;
    };
    let hook = hooks::deny(&sandbox.scripts, "gate", agent, DENY);
    sandbox.add_hook(HookPoint::PreShell, &hook.command());
    sandbox.script(&[Turn::shell_then(
        &format!("echo ran > {MARKER}"),
        AFTER_TOOL,
    )]);
    let run = sandbox.run("Create the marker file.");
    run.assert_success();

    assert!(
        !sandbox.work.join(MARKER).exists(),
        "the denied command ran\n{}",
        run.debug()
    );
    let payloads = hook.calls();
    assert_eq!(
        payloads.len(),
        1,
        "the gate should see exactly the one shell call: {payloads:?}"
    );
    // Copilot's camelCase payloads carry it in toolArgs.
    let command = payloads[0]["tool_input"]["command"]
        .as_str()
        .or_else(|| payloads[0]["toolArgs"]["command"].as_str())
        .unwrap_or_default();
    assert!(
        command.contains(MARKER),
        "gate payload lacks the command: {payloads:?}"
    );

    let calls = run.calls();
    let last = calls.last().expect("model calls");
    assert!(
        last.texts(Role::ToolResult)
            .iter()
            .any(|t| t.contains(DENY)),
        "the deny reason did not reach the model as the tool result\n{}",
        run.debug()
    );
    assert!(run.answer().contains(AFTER_TOOL), "{}", run.debug());
}

/// (d) Control for (c): with a hook that only records, the same command runs,
/// so (c)'s missing marker is the hook's doing.
fn pre_shell_allowed(agent: Agent) {
    let Some(sandbox) = Sandbox::new(agent, "pre-shell-allowed") else {
        return;
    };
    let hook = hooks::record(&sandbox.scripts, "gate");
    sandbox.add_hook(HookPoint::PreShell, &hook.command());
    sandbox.script(&[Turn::shell_then(
        &format!("echo ran > {MARKER}"),
        AFTER_TOOL,
    )]);
    let run = sandbox.run("Create the marker file.");
    run.assert_success();

    assert!(
        sandbox.work.join(MARKER).exists(),
        "the allowed command did not run\n{}",
        run.debug()
    );
    assert_eq!(hook.calls().len(), 1, "the gate should see the shell call");
    let calls = run.calls();
    assert_eq!(
        calls.len(),
        2,
        "tool call, then the answer after its result\n{}",
        run.debug()
    );
    assert_eq!(calls[1].texts(Role::ToolResult).len(), 1, "{}", run.debug());
    assert!(run.answer().contains(AFTER_TOOL), "{}", run.debug());
}

/// (e) Every recorded payload has the shape (keys and types) of the pinned
/// version's fixture; `GUARD_E2E_CAPTURE=1` writes the fixtures instead.
fn payload_shapes_match_the_pinned_fixtures(agent: Agent) {
    let Some(capture) = capture::run(agent) else {
        return;
    };
    if capture::capturing() {
        capture.write_fixtures();
        return;
    }
    let problems = capture.shape_changes();
    assert!(
        problems.is_empty(),
        "{}\n\nIf the new version is meant: capture its fixtures with \
         `GUARD_E2E_CAPTURE=1 cargo test --test e2e_agents payload_shapes`, \
         rewrite the goldens with `GUARD_UPDATE_GOLDEN=1 cargo test --test adapters`, \
         and mend adapters/{}.yaml where a key guard reads moved.",
        problems.join("\n\n"),
        agent.guard_name()
    );
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

// The agents driven since the harness's start run every scenario. For the
// others, the capture run (`payload_shapes_…`) also checks what
// `turn_end_block_once` and `pre_shell_allowed` do, and `e2e_guard`'s
// ordinary answer what `plain_answer` does, so each costs one run less.
scenarios!(
    Claude => claude: [plain_answer, payload_shapes_match_the_pinned_fixtures, turn_end_block_once, pre_shell_deny, pre_shell_allowed],
    Codex => codex: [plain_answer, payload_shapes_match_the_pinned_fixtures, turn_end_block_once, pre_shell_deny, pre_shell_allowed],
    Gemini => gemini: [plain_answer, payload_shapes_match_the_pinned_fixtures, turn_end_block_once, pre_shell_deny, pre_shell_allowed],
    Qwen => qwen: [payload_shapes_match_the_pinned_fixtures, pre_shell_deny],
    Copilot => copilot: [payload_shapes_match_the_pinned_fixtures, pre_shell_deny],
    Droid => droid: [payload_shapes_match_the_pinned_fixtures, pre_shell_deny],
);

/// Copilot CLI ignores exit 2 on agentStop (only `{"decision":"block"}`
/// sends it back), which is why guard answers it in JSON: a hook that exits
/// 2 with a reason lets the turn end after one model call.
#[test]
fn copilot_agent_stop_ignores_exit_2() {
    let Some(sandbox) = Sandbox::new(Agent::Copilot, "agent-stop-exit-2") else {
        return;
    };
    let hook = hooks::block_once(&sandbox.scripts, "stop", FEEDBACK);
    sandbox.add_hook(HookPoint::TurnEnd, &hook.command());
    sandbox.script(&[
        Turn::text(SECOND).when_last_user_contains("E2E-FEEDBACK-3317"),
        Turn::text(FIRST),
    ]);
    let run = sandbox.run("Finish the task.");
    run.assert_success();
    assert_eq!(hook.calls().len(), 1, "{:?}", hook.calls());
    assert_eq!(run.calls().len(), 1, "exit 2 sent it back\n{}", run.debug());
}

/// The jail itself: inside it the only network interface is loopback, so no
/// run can reach anything but the stub.
#[test]
fn jail_has_only_loopback() {
    if e2e::skip_requested() {
        eprintln!("e2e: GUARD_E2E=skip is set: skipping the jail test");
        return;
    }
    let dir = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("e2e/jail");
    std::fs::create_dir_all(&dir).unwrap();
    let (script, log) = (dir.join("script.json"), dir.join("stub.jsonl"));
    e2e::stub::write_script(&script, &[Turn::text("unused")]);
    let outcome = e2e::jail::run(e2e::jail::Launch {
        stub: e2e::stub_bin(),
        script: &script,
        log: &log,
        port: e2e::agent::STUB_PORT,
        argv: ["sh", "-c", "cat /proc/net/dev"].map(String::from).to_vec(),
        cwd: &dir,
        env: vec![("PATH".into(), std::env::var("PATH").unwrap_or_default())],
        timeout: std::time::Duration::from_secs(30),
    });
    assert_eq!(outcome.code, Some(0), "{outcome:?}");
    let interfaces: Vec<&str> = outcome
        .stdout
        .lines()
        .skip(2)
        .filter_map(|l| l.split(':').next())
        .map(str::trim)
        .collect();
    assert_eq!(interfaces, ["lo"], "{}", outcome.stdout);
}

/// Codex runs only trusted hooks: without `--dangerously-bypass-hook-trust`
/// (and with no trust recorded by `/hooks`), `codex exec` skips the Stop hook
/// without a word. This is why `guard install` tells Codex users to trust
/// guard's hooks, and why the harness passes the flag.
#[test]
fn codex_exec_skips_untrusted_hooks() {
    let Some(mut sandbox) = Sandbox::new(Agent::Codex, "untrusted-hooks") else {
        return;
    };
    sandbox.bypass_hook_trust = false;
    let hook = hooks::block_once(&sandbox.scripts, "stop", FEEDBACK);
    sandbox.add_hook(HookPoint::TurnEnd, &hook.command());
    sandbox.script(&[Turn::text(FIRST)]);
    let run = sandbox.run("Finish the task.");
    run.assert_success();
    assert!(
        hook.calls().is_empty(),
        "an untrusted hook ran: {:?}",
        hook.calls()
    );
    assert_eq!(run.calls().len(), 1, "{}", run.debug());
}
