//! Config layering: built-in < user < project (tighten-only) < --config,
//! per-agent overrides, and errors that name file, line and column.

mod support;

use support::{stderr, stdout, Sandbox};

#[test]
fn layers_merge_in_order_and_show_their_sources() {
    let sb = Sandbox::new();
    sb.write(
        "config/guard/config.yaml",
        "judge: {backend: none, timeout_ms: 1111}\ntext: {max_bytes: 2000}\n",
    );
    sb.write("repo/.git/HEAD", "ref: refs/heads/main\n");
    sb.write(
        "repo/.guard.yaml",
        "text: {max_bytes: 3000}\nloop_guard: {max_blocks: 3}\n",
    );
    let explicit = sb.write("top.yaml", "judge: {timeout_ms: 3333}\n");
    let mut cmd = sb.guard(&["config", "show", "--config", explicit.to_str().unwrap()]);
    cmd.current_dir(sb.path().join("repo"));
    let out = sb.run_with(cmd, b"");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let s = stdout(&out);
    let line = |key: &str| {
        s.lines()
            .find(|l| l.starts_with(&format!("{key} ")))
            .unwrap_or_else(|| panic!("{key} in {s}"))
            .to_string()
    };
    assert!(
        line("judge.backend").contains("\"none\"")
            && line("judge.backend").contains("config/guard/config.yaml")
    );
    assert!(
        line("judge.timeout_ms").contains("3333") && line("judge.timeout_ms").contains("top.yaml")
    );
    assert!(
        line("text.max_bytes").contains("3000") && line("text.max_bytes").contains(".guard.yaml")
    );
    assert!(line("loop_guard.max_blocks").contains("3"));
    assert!(line("failure.stop").contains("built-in"));
}

#[test]
fn a_project_config_can_only_tighten() {
    let sb = Sandbox::new();
    sb.write("repo/.git/HEAD", "ref: refs/heads/main\n");
    sb.write(
        "repo/.guard.yaml",
        "judge: {backend: command, command: [evil]}\nfailure: {pre_tool: allow, stop: block}\ndetectors: {dangerous-command: {enabled: false}}\nloop_guard: {max_blocks: 50}\n",
    );
    let mut cmd = sb.guard(&["config", "show"]);
    cmd.current_dir(sb.path().join("repo"));
    let out = sb.run_with(cmd, b"");
    let s = stdout(&out);
    let err = stderr(&out);
    assert!(
        !s.contains("evil"),
        "the project cannot change the judge command"
    );
    assert!(
        s.lines()
            .any(|l| l.starts_with("failure.pre_tool ") && l.contains("\"ask\"")),
        "{s}"
    );
    assert!(
        s.lines()
            .any(|l| l.starts_with("failure.stop ") && l.contains("\"block\"")),
        "tightening is kept: {s}"
    );
    assert!(s
        .lines()
        .any(|l| l.starts_with("detectors.dangerous-command.enabled ") && l.contains("true")));
    assert!(s
        .lines()
        .any(|l| l.starts_with("loop_guard.max_blocks ") && l.contains('3')));
    for refused in [
        "judge",
        "failure.pre_tool",
        "dangerous-command.enabled",
        "max_blocks",
    ] {
        assert!(
            err.contains(refused),
            "refusal of {refused} reported: {err}"
        );
    }
    // The user may trust the project.
    sb.write("config/guard/config.yaml", "trust_project_config: true\n");
    let mut cmd = sb.guard(&["config", "show"]);
    cmd.current_dir(sb.path().join("repo"));
    let s = stdout(&sb.run_with(cmd, b""));
    assert!(s.contains("evil"));
}

#[test]
fn agent_overrides_apply_to_their_agent_only() {
    let sb = Sandbox::new();
    let cfg = sb.write(
        "c.yaml",
        "agents:\n  codex:\n    failure: {pre_tool: deny}\n",
    );
    let show = |agent: Option<&str>| {
        let mut args = vec!["config", "show", "--config", cfg.to_str().unwrap()];
        if let Some(a) = agent {
            args.extend(["--agent", a]);
        }
        stdout(&sb.run(&args, b""))
    };
    assert!(show(Some("codex"))
        .lines()
        .any(|l| l.starts_with("failure.pre_tool ")
            && l.contains("deny")
            && l.contains("agents.codex")));
    assert!(show(None)
        .lines()
        .any(|l| l.starts_with("failure.pre_tool ") && l.contains("ask")));
}

#[test]
fn errors_name_file_line_and_column() {
    let sb = Sandbox::new();
    for (content, needle) in [
        ("judge:\n  backend: none\n  timeout_ms: nope\n", ":3:"),
        ("judge:\n  bakend: none\n", ":2:"),
        ("failure:\n  stop: maybe\n", ":2:"),
        ("text: [unclosed\n", ":"),
    ] {
        let f = sb.write("broken.yaml", content);
        let out = sb.run(
            &["config", "validate", "--config", f.to_str().unwrap()],
            b"",
        );
        assert_eq!(out.status.code(), Some(1), "{content}");
        let err = stderr(&out);
        assert!(
            err.contains("broken.yaml") && err.contains(needle),
            "{content:?} → {err}"
        );
    }
    let missing = sb.path().join("nope.yaml");
    let out = sb.run(
        &["config", "validate", "--config", missing.to_str().unwrap()],
        b"",
    );
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("no such file"));
}

#[test]
fn an_oversized_config_is_refused() {
    let sb = Sandbox::new();
    let big = sb.write("big.yaml", &format!("# {}\n", "x".repeat(2 * 1024 * 1024)));
    let out = sb.run(
        &["config", "validate", "--config", big.to_str().unwrap()],
        b"",
    );
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("limit"));
}
