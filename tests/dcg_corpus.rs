//! The dcg regression corpus (tests/fixtures/dcg-corpus, MIT, see its
//! SOURCE.md) run against the built-in `dangerous-command` rules.
//!
//! dcg has two outcomes, guard three: a dcg `deny` is caught when guard
//! denies or asks; a dcg `allow` must never be denied by guard (asking there
//! is friction, counted and kept low); every case, `edge_cases/` included,
//! must classify without panicking.

mod shell_common;

use guard::shell::{classify, ShellAction};
use std::path::{Path, PathBuf};

/// dcg verdicts guard deliberately does not share, with the reason.
const EXCEPTIONS: &[(&str, &str)] = &[
    (
        "echo yes | rm -rf && echo done",
        "`rm -rf` with no operand deletes nothing; guard classifies what a command would touch",
    ),
    (
        "kubectl delete namespace prod",
        "dcg's future_packs.toml: 'ideally blocked', allowed only while dcg lacks a Kubernetes pack; guard denies deleting a namespace (issue 18)",
    ),
];

/// Allow cases guard may ask about, at most (friction budget).
const MAX_FRICTION: usize = 12;

/// The split of tests/fixtures/peer-suites/README.md: 32-bit FNV-1a of the
/// command, odd = held out.
fn held_out(key: &str) -> bool {
    let hash = key.bytes().fold(0x811c_9dc5_u32, |h, b| {
        (h ^ u32::from(b)).wrapping_mul(0x0100_0193)
    });
    hash % 2 == 1
}

struct Case {
    file: String,
    command: String,
    expected: String,
}

fn toml_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            toml_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "toml") {
            out.push(path);
        }
    }
}

fn load_cases() -> Vec<Case> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/dcg-corpus");
    let mut files = Vec::new();
    toml_files(&root, &mut files);
    let mut cases = Vec::new();
    for path in files {
        let text = std::fs::read_to_string(&path).unwrap();
        let doc: toml::Table = text
            .parse()
            .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let rel = path
            .strip_prefix(&root)
            .unwrap()
            .to_string_lossy()
            .to_string();
        for case in doc
            .get("case")
            .and_then(|c| c.as_array())
            .into_iter()
            .flatten()
        {
            let Some(command) = case.get("command").and_then(|c| c.as_str()) else {
                continue;
            };
            let expected = case
                .get("expected")
                .or_else(|| case.get("expected_decision"))
                .and_then(|e| e.as_str())
                .unwrap_or("allow");
            cases.push(Case {
                file: rel.clone(),
                command: command.to_string(),
                expected: expected.to_string(),
            });
        }
    }
    cases
}

#[test]
fn dcg_corpus() {
    let rules = shell_common::dangerous_command_rules();
    let keywords = shell_common::dangerous_command_spec().keywords;
    let ctx = shell_common::repo_context();
    let cases = load_cases();
    assert!(
        cases.len() > 300,
        "corpus not found or truncated: {} cases",
        cases.len()
    );

    // (caught, denies, false denies, allows) for the tuning and held-out halves.
    let mut halves = [(0, 0, 0, 0); 2];
    let (mut denies, mut caught_deny, mut caught_ask) = (0, 0, 0);
    let (mut allows, mut edge) = (0, 0);
    let mut missed = Vec::new();
    let mut false_denies = Vec::new();
    let mut friction = Vec::new();
    for case in &cases {
        if case.file.starts_with("edge_cases") {
            edge += 1;
        }
        let verdict = classify(&case.command, &rules, &ctx);
        let action = verdict.as_ref().map(|m| m.action);
        assert!(
            action.is_none() || shell_common::keyword_hit(&keywords, &case.command),
            "no keyword for {:?}",
            case.command
        );
        let excepted = EXCEPTIONS.iter().any(|(c, _)| *c == case.command);
        let half = &mut halves[usize::from(held_out(&case.command))];
        if case.expected == "deny" {
            half.1 += 1;
            half.0 += usize::from(action.is_some());
        } else {
            half.3 += 1;
            half.2 += usize::from(action == Some(ShellAction::Deny));
        }
        match case.expected.as_str() {
            "deny" => {
                denies += 1;
                match action {
                    Some(ShellAction::Deny) => caught_deny += 1,
                    Some(ShellAction::Ask) => caught_ask += 1,
                    None if excepted => println!("  exception: {:?}", case.command),
                    None => missed.push(format!("{}: {:?}", case.file, case.command)),
                }
            }
            _ => {
                allows += 1;
                if let Some(m) = &verdict {
                    let line = format!(
                        "{}: {:?} -> {} ({})",
                        case.file,
                        case.command,
                        m.rule_id,
                        m.action.as_str()
                    );
                    match m.action {
                        ShellAction::Deny if !excepted => false_denies.push(line),
                        ShellAction::Deny => {}
                        ShellAction::Ask => friction.push(line),
                    }
                }
            }
        }
    }

    println!("dcg corpus: {} cases ({edge} edge cases)", cases.len());
    for (name, (caught, positives, false_denies, allows)) in
        ["tuning", "held-out"].iter().zip(halves)
    {
        println!("  {name:8}: caught {caught}/{positives}, false denies {false_denies}/{allows}");
    }
    println!(
        "  dcg deny : {denies}: guard deny {caught_deny}, ask {caught_ask}, missed {}",
        missed.len()
    );
    println!(
        "  dcg allow: {allows}: guard deny {}, ask (friction) {}",
        false_denies.len(),
        friction.len()
    );
    for line in &friction {
        println!("    friction: {line}");
    }
    assert!(
        missed.is_empty(),
        "dcg denies guard lets through:\n{}",
        missed.join("\n")
    );
    assert!(
        false_denies.is_empty(),
        "dcg allows guard denies:\n{}",
        false_denies.join("\n")
    );
    assert!(
        friction.len() <= MAX_FRICTION,
        "too much friction: {} allow cases asked",
        friction.len()
    );
}
