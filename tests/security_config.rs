//! Issue 9, part 3: hostile config. Alias bombs, huge files and deep nesting
//! are refused with a clear error; user regexes are size-limited and a bad
//! one names its detector and pattern; a repository's `.guard.yaml` can only
//! tighten the user's policy, and what it tried to loosen is reported.

mod support;

use serde_json::{json, Value};
use support::{stderr, stdout, Sandbox};

/// A sandbox whose user config holds the test detectors (`ship-now` blocks
/// turn ends saying "ship it now") with no judge and turn ends failing
/// closed, plus `extra`; and a repository at `repo/`.
fn with_user_policy(extra: &str) -> Sandbox {
    with_user_failure("block", extra)
}

/// [`with_user_policy`] with another failure policy for turn ends.
fn with_user_failure(stop: &str, extra: &str) -> Sandbox {
    let sb = Sandbox::new();
    let cfg = sb.test_config(&format!(
        "judge: {{backend: none}}\nfailure: {{stop: {stop}}}\n{extra}"
    ));
    std::fs::create_dir_all(sb.path().join("config/guard")).unwrap();
    std::fs::copy(cfg, sb.path().join("config/guard/config.yaml")).unwrap();
    sb.write("repo/.git/HEAD", "ref: refs/heads/main\n");
    sb
}

fn stop_in_repo(sb: &Sandbox, text: &str) -> Vec<u8> {
    json!({
        "session_id": format!("s-{text}"), "transcript_path": "/nonexistent/t.jsonl",
        "cwd": sb.path().join("repo"), "prompt_id": "p", "hook_event_name": "Stop",
        "stop_hook_active": false, "last_assistant_message": text
    })
    .to_string()
    .into_bytes()
}

fn is_block(out: &std::process::Output) -> bool {
    serde_json::from_str::<Value>(&stdout(out)).is_ok_and(|v| v["decision"] == "block")
}

fn alias_bomb() -> String {
    let mut s = String::from("agents:\n  a0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]\n");
    for i in 1..10 {
        let refs = vec![format!("*a{}", i - 1); 9].join(", ");
        s.push_str(&format!("  a{i}: &a{i} [{refs}]\n"));
    }
    s
}

fn deep_nesting() -> String {
    let mut s = String::from("agents:\n");
    for depth in 1..200 {
        s.push_str(&" ".repeat(depth));
        s.push_str("a:\n");
    }
    s
}

#[test]
fn alias_bombs_deep_nesting_and_huge_files_are_refused_with_a_clear_error() {
    let sb = Sandbox::new();
    let huge = format!("agents:\n  x: \"{}\"\n", "y".repeat(2 << 20));
    let flow = format!(
        "agents: {{x: {}{}}}\n",
        "[".repeat(10_000),
        "]".repeat(10_000)
    );
    for (name, text) in [
        ("bomb.yaml", alias_bomb()),
        ("deep.yaml", deep_nesting()),
        ("flow.yaml", flow),
        ("huge.yaml", huge),
    ] {
        let f = sb.write(name, &text);
        let out = sb.run(
            &["config", "validate", "--config", f.to_str().unwrap()],
            b"",
        );
        assert_eq!(out.status.code(), Some(1), "{name} refused");
        let err = stderr(&out);
        assert!(
            err.contains(name) && (err.contains("limit") || err.contains("at most")),
            "{name}: the error names the file and the limit: {err}"
        );
    }
}

#[test]
fn a_hostile_or_broken_project_config_is_ignored_and_the_user_policy_holds() {
    for (name, text) in [
        ("alias bomb", alias_bomb()),
        ("deep nesting", deep_nesting()),
        ("huge file", format!("# {}\n", "x".repeat(2 << 20))),
        ("bad value", "failure: {stop: maybe}\n".to_string()),
        ("not yaml", "detectors: [unclosed\n".to_string()),
    ] {
        let sb = with_user_policy("");
        sb.write("repo/.guard.yaml", &text);
        let out = sb.run(&["hook", "claude-code"], &stop_in_repo(&sb, "ship it now"));
        assert!(
            is_block(&out),
            "{name}: a broken .guard.yaml must not switch guard off: {} {}",
            stdout(&out),
            stderr(&out)
        );
        assert!(
            stderr(&out).contains(".guard.yaml") && stderr(&out).contains("ignored"),
            "{name}: reported: {}",
            stderr(&out)
        );
    }
}

#[test]
fn a_project_config_cannot_switch_a_detector_off_or_loosen_anything() {
    let loosenings = [
        (
            "detectors: {ship-now: {enabled: false}}",
            "ship-now.enabled",
        ),
        ("detectors: {ship-now: {mode: shadow}}", "ship-now.mode"),
        ("detectors: {ship-now: {file: /dev/null}}", "ship-now.file"),
        ("detectors: {ship-now: {gate: signals}}", "ship-now.gate"),
        ("failure: {stop: allow}", "failure.stop"),
        ("text: {max_bytes: 1}", "text.max_bytes"),
        ("loop_guard: {max_blocks: 0}", "max_blocks"),
        ("deadline: {turn_end_ms: 1}", "deadline"),
        ("ask_as: allow", "ask_as"),
        ("judge: {backend: command, command: [/bin/true]}", "judge"),
        ("log: {dir: /tmp/elsewhere}", "log"),
        ("agents: {claude-code: {failure: {stop: allow}}}", "agents"),
        ("trust_project_config: true", "trust_project_config"),
    ];
    for (yaml, key) in loosenings {
        let sb = with_user_policy("");
        sb.write("repo/.guard.yaml", &format!("{yaml}\n"));
        let out = sb.run(&["hook", "claude-code"], &stop_in_repo(&sb, "ship it now"));
        assert!(
            is_block(&out),
            "`{yaml}` loosened the policy: {} {}",
            stdout(&out),
            stderr(&out)
        );
        assert!(
            stderr(&out).contains("project config refused") && stderr(&out).contains(key),
            "`{yaml}`: the refusal is reported on stderr: {}",
            stderr(&out)
        );
        let rec = sb.log_records().pop().unwrap();
        assert!(
            rec["refused_project_settings"].to_string().contains(key),
            "`{yaml}`: and in the log: {rec}"
        );
        // Each of these shows in the merged config too.
        let mut cmd = sb.guard(&["config", "show"]);
        cmd.current_dir(sb.path().join("repo"));
        let shown = stdout(&sb.run_with(cmd, b""));
        assert!(
            !shown.contains("/bin/true") && !shown.contains("/tmp/elsewhere"),
            "{shown}"
        );
    }
}

#[test]
fn a_project_config_may_tighten_and_a_trusting_user_may_let_it_loosen() {
    // Tighten: a new keyword and signal for a detector, a stricter failure.
    let sb = with_user_failure("allow", "");
    sb.write(
        "repo/.guard.yaml",
        "failure: {stop: block}\ndetectors: {ship-now: {extra_keywords: [deploy], extra_signals: [{id: deploy, pattern: 'deploy to prod'}]}}\n",
    );
    let out = sb.run(
        &["hook", "claude-code"],
        &stop_in_repo(&sb, "I will deploy to prod"),
    );
    assert!(
        is_block(&out),
        "the added signal and failure policy apply: {}",
        stderr(&out)
    );
    assert!(!stderr(&out).contains("refused"), "{}", stderr(&out));

    // Tighten: a keyword hit alone goes to the judge (here none: the
    // failure policy blocks), where the user's gate wanted a signal too.
    let sb = with_user_policy("");
    let keyword_only = "we could ship the parser on Friday";
    let out = sb.run(&["hook", "claude-code"], &stop_in_repo(&sb, keyword_only));
    assert!(!is_block(&out), "no signal, no judge: {}", stdout(&out));
    sb.write(
        "repo/.guard.yaml",
        "detectors: {ship-now: {gate: keywords}}\n",
    );
    let out = sb.run(&["hook", "claude-code"], &stop_in_repo(&sb, keyword_only));
    assert!(
        is_block(&out),
        "gate: keywords sends the keyword hit on: {} {}",
        stdout(&out),
        stderr(&out)
    );
    assert!(!stderr(&out).contains("refused"), "{}", stderr(&out));

    // Trusted: the same switch-off is taken.
    let sb = with_user_policy("trust_project_config: true\n");
    sb.write(
        "repo/.guard.yaml",
        "detectors: {ship-now: {enabled: false}}\n",
    );
    let out = sb.run(&["hook", "claude-code"], &stop_in_repo(&sb, "ship it now"));
    assert!(
        !is_block(&out),
        "trusted project config applies: {}",
        stdout(&out)
    );
}

#[test]
fn an_invalid_user_regex_names_its_detector_and_pattern() {
    for (pattern, id, needle) in [
        ("ship (it", "unclosed-group", "unclosed group"),
        ("\\w{1000}\\w{1000}", "too-big", "size limit"),
    ] {
        let sb = with_user_policy("");
        let extra = sb.write(
            "extra.yaml",
            &format!("detectors: {{ship-now: {{extra_signals: [{{id: {id}, pattern: '{pattern}'}}]}}}}\n"),
        );
        let out = sb.run(
            &["hook", "claude-code", "--config", extra.to_str().unwrap()],
            &stop_in_repo(&sb, "ship it now"),
        );
        let err = stderr(&out);
        assert!(
            err.contains("detector `ship-now`") && err.contains(id) && err.contains(needle),
            "{pattern}: {err}"
        );
        assert!(
            is_block(&out),
            "a detector with a bad pattern counts as a hit and takes the failure policy"
        );
    }
}
