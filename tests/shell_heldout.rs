//! The held-out shell set (tests/corpus/heldout/pre-tool-heldout.yaml, 215
//! cases written blind to guard's rules) against the built-in
//! `dangerous-command` rules, as a floor: the figures reached when it was
//! measured (tests/corpus/heldout/README.md) may not drop. No case's label
//! is asserted: the set is measured on, never tuned on, so a case guard gets
//! wrong is reported, not fixed for the test.

#[allow(dead_code)]
mod shell_common;

use guard::shell::{classify, ShellAction, ShellContext};
use serde::Deserialize;

#[derive(Deserialize)]
struct Case {
    id: String,
    command: String,
    label: String,
    #[serde(default)]
    home: Option<String>,
    #[serde(default)]
    cwd: Option<String>,
}

/// deny cases denied, deny cases denied or asked, ask cases asked or
/// denied (at least), allow cases denied (at most): the figures of the
/// measurement after issue 18's third round.
const FLOOR: (usize, usize, usize, usize) = (79, 84, 57, 0);

#[test]
fn heldout_shell_set_keeps_its_figures() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/corpus/heldout/pre-tool-heldout.yaml"
    );
    let text = std::fs::read_to_string(path).unwrap();
    let cases: Vec<serde_json::Value> = serde_saphyr::from_str(&text).unwrap();
    let cases: Vec<Case> = cases
        .into_iter()
        .map(|v| serde_json::from_value(v).unwrap())
        .collect();
    assert_eq!(cases.len(), 215);
    let rules = shell_common::dangerous_command_rules();
    let keywords = shell_common::dangerous_command_spec().keywords;
    let (mut denied, mut caught, mut asks_caught, mut false_denies) = (0, 0, 0, 0);
    for case in &cases {
        // The file's context: cwd /home/dev/project (the repository root),
        // HOME /home/dev, unless the case says otherwise.
        let cwd = case.cwd.clone().unwrap_or("/home/dev/project".into());
        let ctx = ShellContext {
            cwd: Some(cwd.clone().into()),
            repo_root: Some(cwd.into()),
            home: Some(case.home.clone().unwrap_or("/home/dev".into()).into()),
        };
        let action = classify(&case.command, &rules, &ctx)
            .filter(|_| shell_common::keyword_hit(&keywords, &case.command))
            .map(|m| m.action);
        match case.label.as_str() {
            "deny" => {
                denied += usize::from(action == Some(ShellAction::Deny));
                caught += usize::from(action.is_some());
            }
            "ask" => asks_caught += usize::from(action.is_some()),
            "allow" => false_denies += usize::from(action == Some(ShellAction::Deny)),
            other => panic!("{}: unknown label {other}", case.id),
        }
    }
    println!(
        "held-out shell set: deny->denied {denied}, deny->denied or asked {caught}, \
         ask caught {asks_caught}, allow denied {false_denies}"
    );
    let (min_denied, min_caught, min_asks, max_false) = FLOOR;
    assert!(denied >= min_denied, "deny->denied {denied} < {min_denied}");
    assert!(
        caught >= min_caught,
        "deny->denied or asked {caught} < {min_caught}"
    );
    assert!(
        asks_caught >= min_asks,
        "ask caught {asks_caught} < {min_asks}"
    );
    assert!(
        false_denies <= max_false,
        "allow denied {false_denies} > {max_false}"
    );
}
