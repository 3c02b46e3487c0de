//! guard's own labelled shell corpus (tests/corpus/pre-tool.yaml) against
//! the built-in `dangerous-command` rules: every `deny` case is denied, no
//! `allow` case is denied, and the recall on `ask` cases is reported (and
//! kept high).

mod shell_common;

use guard::shell::{classify, ShellAction};
use serde::Deserialize;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Case {
    id: String,
    command: String,
    label: String,
    #[serde(default)]
    #[allow(dead_code)]
    note: Option<String>,
}

#[test]
fn shell_corpus() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/corpus/pre-tool.yaml");
    let cases: Vec<Case> = serde_saphyr::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    assert!(cases.len() >= 200, "only {} cases", cases.len());
    let rules = shell_common::dangerous_command_rules();
    let keywords = shell_common::dangerous_command_spec().keywords;
    let ctx = shell_common::repo_context();

    let mut failures = Vec::new();
    let (mut asks, mut asks_caught, mut allow_asked) = (0, 0, Vec::new());
    for case in &cases {
        let verdict = classify(&case.command, &rules, &ctx);
        let action = verdict.as_ref().map(|m| m.action);
        if action.is_some() && !shell_common::keyword_hit(&keywords, &case.command) {
            failures.push(format!(
                "{}: {:?} matches a rule but no keyword: Layer 1 would skip it",
                case.id, case.command
            ));
        }
        let shown = verdict.as_ref().map_or("none".to_string(), |m| {
            format!("{} ({})", m.action.as_str(), m.rule_id)
        });
        match case.label.as_str() {
            "deny" if action != Some(ShellAction::Deny) => failures.push(format!(
                "{}: {:?} should be denied, got {shown}",
                case.id, case.command
            )),
            "allow" if action == Some(ShellAction::Deny) => failures.push(format!(
                "{}: {:?} should be allowed, got {shown}",
                case.id, case.command
            )),
            "allow" if action.is_some() => {
                allow_asked.push(format!("{}: {:?} -> {shown}", case.id, case.command))
            }
            "ask" => {
                asks += 1;
                if action.is_some() {
                    asks_caught += 1;
                } else {
                    println!("  ask missed: {}: {:?}", case.id, case.command);
                }
            }
            "deny" | "allow" => {}
            other => failures.push(format!("{}: unknown label {other}", case.id)),
        }
    }
    let denies = cases.iter().filter(|c| c.label == "deny").count();
    let allows = cases.iter().filter(|c| c.label == "allow").count();
    println!(
        "shell corpus: {} cases: {denies} deny, {asks} ask, {allows} allow",
        cases.len()
    );
    println!(
        "  ask recall: {asks_caught}/{asks}; allow cases asked: {}",
        allow_asked.len()
    );
    for line in &allow_asked {
        println!("    asked: {line}");
    }
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
    assert!(
        asks_caught * 10 >= asks * 9,
        "ask recall below 90%: {asks_caught}/{asks}"
    );
}

/// Rules that name common programs (`cat`, `echo`, `grep`, `env`) but only
/// match when an argument or a pipeline partner carries a keyword: a
/// credential file's name (`.env`, `id_rsa`, `.aws`), a secret word
/// (`token`, `secret`, `passw`), a system, device or start-up file
/// (`/etc/`, `/dev/`, `bashrc`, `authorized_keys`, `LaunchAgents`), a
/// network client or shell it is piped to
/// (`curl`, `nc`, `sh`), a deploy task's name. Their corpus cases check
/// that each hit contains a keyword.
const GATED_BY_ARGUMENTS: &[&str] = &[
    "secret-file-printed",
    "secret-file-searched",
    "secret-variable-printed",
    "secret-variable-printenv",
    "secret-variable-to-network",
    "env-secrets-filtered",
    "env-dump-to-network",
    "history-to-network",
    "credentials-piped-to-network",
    "escapes-to-shell",
    "ssh-authorized-keys-copy",
    "shell-rc-replace",
    "shell-rc-edit",
    "system-file-copied",
    "system-file-edited",
    "deploy-task",
    "network-interface-change",
    "autostart-copied",
    "copy-to-device",
    "write-account-file-copy",
];

/// Every program a rule names contains a Layer-1 keyword, otherwise the
/// engine would never run the rule on it. (Rules without `command`, and
/// those in [`GATED_BY_ARGUMENTS`], are covered by the corpus cases: their
/// hits must contain a keyword.)
#[test]
fn every_rule_program_has_a_keyword() {
    let spec = shell_common::dangerous_command_spec();
    let rules = spec.shell.as_ref().unwrap();
    let mut missing = Vec::new();
    for rule in rules
        .rules
        .iter()
        .filter(|r| !GATED_BY_ARGUMENTS.contains(&r.id.as_str()))
    {
        for program in &rule.command {
            if !shell_common::keyword_hit(&spec.keywords, program.trim_end_matches('*')) {
                missing.push(format!("{}: {program}", rule.id));
            }
        }
    }
    assert!(
        missing.is_empty(),
        "programs without a keyword:\n{}",
        missing.join("\n")
    );
    for keyword in &spec.keywords {
        assert!(
            keyword.is_ascii() && *keyword == keyword.to_lowercase(),
            "keyword {keyword:?} must be ASCII lowercase"
        );
    }
}
