//! The hook path with a real judge process (the `command` backend and the
//! test judge): violations block, allows pass, a broken judge follows the
//! failure policy within the deadline, and no secret leaves the machine.

mod support;

use serde_json::{json, Value};
use std::time::{Duration, Instant};
use support::{stderr, stdout, Sandbox};

fn stop(session: &str, text: &str) -> Vec<u8> {
    json!({"session_id": session, "cwd": "/tmp", "prompt_id": session, "hook_event_name": "Stop",
           "stop_hook_active": false, "last_assistant_message": text})
    .to_string()
    .into_bytes()
}

fn pre_tool(command: &str) -> Vec<u8> {
    json!({"session_id": "s", "cwd": "/tmp", "prompt_id": "p", "hook_event_name": "PreToolUse",
           "tool_name": "Bash", "tool_input": {"command": command}})
    .to_string()
    .into_bytes()
}

#[test]
fn the_judge_decides_on_a_layer1_hit() {
    let sb = Sandbox::new();
    let answers = sb.answers(&[
        (
            "ship-now",
            "for real",
            json!({"new_proposal": true, "reason": "proposes shipping untested"}),
        ),
        ("launch", "rocket", json!({"dangerous": true})),
    ]);
    let cfg = sb.judged_config(&answers, 2000, "");
    let cfg = cfg.to_str().unwrap();
    let out = sb.run(
        &["hook", "claude-code", "--config", cfg],
        &stop("a", "Done. Ship it now, for real."),
    );
    let v: Value = serde_json::from_str(&stdout(&out))
        .unwrap_or_else(|_| panic!("{} {}", stdout(&out), stderr(&out)));
    assert_eq!(v["decision"], "block");
    assert!(
        v["reason"]
            .as_str()
            .unwrap()
            .contains("proposes shipping untested"),
        "the judge's reason reaches the agent"
    );
    let out = sb.run(
        &["hook", "claude-code", "--config", cfg],
        &stop("b", "Should we ship it now? Options below."),
    );
    assert_eq!(stdout(&out), "", "the judge said no proposal");
    let out = sb.run(
        &["hook", "claude-code", "--config", cfg],
        &pre_tool("./launch rocket"),
    );
    let v: Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(v["hookSpecificOutput"]["permissionDecision"], "ask");
    let recs = sb.log_records();
    let judged = &recs[0]["detectors"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["name"] == "ship-now")
        .unwrap()["judge"];
    assert_eq!(judged["outcome"], "violation");
    assert_eq!(judged["backend"], "command");
    assert!(judged["latency_ms"].as_u64().is_some());
}

#[test]
fn a_hanging_judge_is_cut_at_the_deadline_and_the_policy_applies() {
    let sb = Sandbox::new();
    let cfg = sb.judged_config("hang", 60_000, "");
    // The judge's own timeout is long: the hook deadline (3 s) must cut it.
    let cfg = cfg.to_str().unwrap();
    let t = Instant::now();
    let out = sb.run(
        &["hook", "claude-code", "--config", cfg],
        &stop("h", "ship it now"),
    );
    assert!(
        t.elapsed() >= Duration::from_millis(2500),
        "the judge really hung until the deadline"
    );
    assert!(
        t.elapsed() < Duration::from_secs(3 + 2),
        "answered within the deadline plus a margin: {:?}",
        t.elapsed()
    );
    assert_eq!(
        (out.status.code(), stdout(&out)),
        (Some(0), String::new()),
        "turn end fails open"
    );
    let t = Instant::now();
    let out = sb.run(
        &["hook", "codex", "--config", cfg],
        &pre_tool("./launch rocket"),
    );
    assert!(t.elapsed() < Duration::from_secs(3 + 2));
    let v: Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(
        v["hookSpecificOutput"]["permissionDecision"], "deny",
        "Codex cannot ask: the gate fails safe as deny"
    );
}

#[test]
fn secrets_never_reach_the_judge_the_log_or_stderr() {
    let sb = Sandbox::new();
    let judge_log = sb.path().join("judge-stdin.log");
    let cfg = sb.judged_config("ok", 2000, "log: {keep_text: true}\n");
    let secrets = [
        "ghp_Q7f3kZ9vB2mN8xR4tY6wL1pD5sH0jC3aE7gU",
        "AKIAIOSFODNN7Q3XK2PZ",
        "sk-ant-api03-Zx8Yq2Lm4Nv6Bc9Df1Gh3Jk5Lp7Qr9St1Uv3Wx5Yz7Ab9Cd1Ef3Gh5Ij7Kl9Mn1Op3Qr5St7Uv9Wx1Yz3Ab5Cd7Ef9Gh1Ij3Kl5Mn7Op9",
        "xoxb-2048611112222-4096733334444-Qm8Rt2Wp6Zx0Cv4Bn8Lk2Jh6",
    ];
    let text = format!(
        "Config dump: GITHUB_TOKEN={} aws={} key={} slack={}. Ship it now.",
        secrets[0], secrets[1], secrets[2], secrets[3]
    );
    let mut cmd = sb.guard(&["hook", "claude-code", "--config", cfg.to_str().unwrap()]);
    cmd.env("GUARD_TEST_JUDGE_LOG", &judge_log);
    let out = sb.run_with(cmd, &stop("sec", &text));
    assert_eq!(out.status.code(), Some(0));
    let judged = std::fs::read_to_string(&judge_log).expect("the judge was called");
    assert!(
        judged.contains("[REDACTED:"),
        "typed placeholders reach the judge"
    );
    let log = std::fs::read_to_string(
        std::fs::read_dir(sb.state_dir().join("logs"))
            .unwrap()
            .next()
            .unwrap()
            .unwrap()
            .path(),
    )
    .unwrap();
    for s in secrets {
        assert!(!judged.contains(s), "judge stdin holds {s}");
        assert!(!log.contains(s), "decision log holds {s}");
        assert!(
            !stderr(&out).contains(s) && !stdout(&out).contains(s),
            "output holds {s}"
        );
    }
    assert!(log.contains("text_redactions"));
}

#[test]
fn a_judge_that_runs_guard_hook_does_not_recurse() {
    let sb = Sandbox::new();
    // The "judge" is a script that itself runs `guard hook` (as an agent CLI
    // used as a judge would), records what it answered, then answers.
    let marker = sb.path().join("inner.out");
    let script = sb.write(
        "judge.sh",
        &format!(
            "#!/bin/sh\ncat >/dev/null\necho '{{\"hook_event_name\":\"Stop\",\"session_id\":\"x\",\"last_assistant_message\":\"ship it now\"}}' | {} hook claude-code > {} 2>&1\necho \"rc=$?\" >> {}\necho '{{\"new_proposal\": false}}'\n",
            env!("CARGO_BIN_EXE_guard"),
            marker.display(),
            marker.display()
        ),
    );
    std::process::Command::new("chmod")
        .args(["+x", script.to_str().unwrap()])
        .status()
        .unwrap();
    let cfg = sb.test_config(&format!(
        "judge: {{backend: command, command: [{:?}]}}\nfailure: {{stop: block}}\n",
        script.display().to_string()
    ));
    let out = sb.run(
        &["hook", "claude-code", "--config", cfg.to_str().unwrap()],
        &stop("r", "ship it now"),
    );
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(
        std::fs::read_to_string(&marker).unwrap().trim(),
        "rc=0",
        "the inner hook allowed at once, with no output"
    );
    assert_eq!(
        sb.log_records().len(),
        1,
        "only the outer hook logged a decision"
    );
}
