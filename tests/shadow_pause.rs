//! Shadow mode and pause, through `guard hook`: neither ever blocks, and
//! both are in the decision log (the shadow detector's would-be decision,
//! the paused decisions, the pause and resume switches).

mod ops_support;

use ops_support::{stderr, stdout, Env};

const PROPOSAL: &str = "All done. Shall I commit and push?";

#[test]
fn an_enforced_hit_blocks_a_shadow_hit_allows_and_is_logged() {
    let env = Env::new();
    let enforced = env.stop(PROPOSAL, &[]);
    assert_eq!(
        enforced.status.code(),
        Some(2),
        "the test config blocks a hit: {}",
        stderr(&enforced)
    );
    assert!(stdout(&enforced).contains("\"block\""));

    let shadow = env.write("shadow.yaml", "detectors:\n  t-commit: {mode: shadow}\n");
    let out = env.stop(PROPOSAL, &["--config", shadow.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(stdout(&out).contains("\"allow\""), "{}", stdout(&out));

    let log = env.log();
    assert_eq!(log.len(), 2);
    let rec = &log[1];
    assert_eq!(rec["verdict"], "allow");
    assert_eq!(rec["shadow"], serde_json::json!(["t-commit"]));
    let det = rec["detectors"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["name"] == "t-commit")
        .unwrap();
    assert_eq!(
        (
            det["mode"].as_str(),
            det["verdict"].as_str(),
            det["layer1"].as_str()
        ),
        (Some("shadow"), Some("block"), Some("hit"))
    );

    let listed = stdout(&env.guard(&["log"], None));
    assert!(
        listed
            .lines()
            .nth(1)
            .unwrap()
            .contains("allow  t-commit~shadow:block"),
        "{listed}"
    );
    let stats = env.guard(&["stats", "--json"], None);
    let rows: serde_json::Value = serde_json::from_str(&stdout(&stats)).unwrap();
    let row = rows
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["detector"] == "t-commit")
        .unwrap();
    assert_eq!(
        (
            row["events"].as_u64(),
            row["blocks"].as_u64(),
            row["shadow_blocks"].as_u64()
        ),
        (Some(2), Some(2), Some(1))
    );
}

#[test]
fn a_shadow_gate_detector_never_denies() {
    let env = Env::new();
    let shadow = env.write("shadow.yaml", "detectors:\n  t-rm: {mode: shadow}\n");
    let payload =
        serde_json::json!({"event": "pre_tool", "tool": "Bash", "command": "rm -rf build/"})
            .to_string();
    let out = env.guard(
        &["--config", shadow.to_str().unwrap(), "hook", "generic"],
        Some(&payload),
    );
    assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));
    let rec = env.log().pop().unwrap();
    assert_eq!(
        (rec["verdict"].as_str(), rec["shadow"][0].as_str()),
        (Some("allow"), Some("t-rm"))
    );
}

#[test]
fn pause_allows_everything_for_every_agent_and_is_logged_until_resume() {
    let env = Env::new();
    let out = env.guard(&["pause"], None);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(stdout(&out).contains("until `guard resume`"));

    assert_eq!(
        env.stop(PROPOSAL, &[]).status.code(),
        Some(0),
        "paused: the proposal is allowed"
    );
    assert_eq!(
        env.pre_tool("rm -rf build/").status.code(),
        Some(0),
        "paused: the gate allows"
    );
    let claude = serde_json::json!({"hook_event_name": "Stop", "session_id": "s", "transcript_path": "/nonexistent", "last_assistant_message": PROPOSAL}).to_string();
    let out = env.guard(&["hook", "claude-code"], Some(&claude));
    assert_eq!(
        out.status.code(),
        Some(0),
        "paused for claude-code too: {}",
        stdout(&out)
    );
    assert!(!stdout(&out).contains("block"), "{}", stdout(&out));

    assert_eq!(env.guard(&["resume"], None).status.code(), Some(0));
    assert_eq!(
        env.stop(PROPOSAL, &[]).status.code(),
        Some(2),
        "resumed: blocks again"
    );

    let log = env.log();
    let events: Vec<&str> = log.iter().map(|r| r["event"].as_str().unwrap()).collect();
    assert_eq!(
        events,
        ["pause", "stop", "pre_tool", "stop", "resume", "stop"]
    );
    assert!(
        log[1..4]
            .iter()
            .all(|r| r["paused"] == true && r["verdict"] == "allow"),
        "{log:?}"
    );
    assert!(log[5].get("paused").is_none());
    let listed = stdout(&env.guard(&["log"], None));
    assert!(listed.lines().next().unwrap().contains("pause"), "{listed}");
    assert!(listed.contains("allow(paused)"), "{listed}");
}

#[test]
fn a_timed_pause_is_in_force_and_says_until_when() {
    let env = Env::new();
    let out = env.guard(&["pause", "--for", "2h"], None);
    assert_eq!(out.status.code(), Some(0));
    assert!(stdout(&out).contains("until 20"), "{}", stdout(&out));
    assert_eq!(env.stop(PROPOSAL, &[]).status.code(), Some(0));
    assert!(env.log()[0]["until"].is_string());
    assert_eq!(
        env.guard(&["pause", "--for", "soon"], None).status.code(),
        Some(2)
    );
    // An expired pause no longer applies.
    std::fs::write(guard::state::pause_path(&env.state_dir()), "1000").unwrap();
    assert_eq!(env.stop(PROPOSAL, &[]).status.code(), Some(2));
}
