//! Three peers' own test suites (tests/fixtures/peer-suites: safety-net,
//! parry, consoul; see its README and SOURCE.md) against the built-in
//! `dangerous-command` rules.
//!
//! A peer's deny or ask is caught when guard denies or asks; a peer's allow
//! must not be denied (asking there is friction, reported). Only the cases
//! that depend on no setting of the peer's count. Each suite is split into a
//! tuning half and a held-out half by a hash of the case id, and both
//! halves are reported. The first two rounds tuned on the first half only;
//! the third looked at both (README), so neither is held out any more.

mod shell_common;

use guard::shell::{classify, ShellAction};
use serde::Deserialize;
use std::collections::BTreeMap;

#[derive(Deserialize)]
struct Suites {
    cases: Vec<Case>,
}

#[derive(Deserialize)]
struct Case {
    id: String,
    command: String,
    expected: String,
    #[serde(default)]
    context: Option<serde_json::Value>,
}

/// Per suite, over both halves: the peer's denies and asks guard must catch
/// at least, and the peer's allows it may deny at most. These are the
/// figures reached in the third round, tuned on both halves (issue 18 aims
/// at 0.90 caught and 0.02 false denies); the rest are verdicts guard does
/// not share on purpose, listed in docs/shell-rules.md ("Where guard
/// differs from other gates"): the three safety-net false denies are
/// `git push --force-with-lease origin main` and two `find . -exec rm … {} \;`
/// over the whole repository, `.git` included.
const FLOORS: &[(&str, usize, usize)] = &[("sn", 199, 3), ("parry", 137, 0), ("consoul", 72, 0)];

/// The split rule of tests/fixtures/peer-suites/README.md: 32-bit FNV-1a of
/// the key, odd = held out.
pub fn held_out(key: &str) -> bool {
    let hash = key.bytes().fold(0x811c_9dc5_u32, |h, b| {
        (h ^ u32::from(b)).wrapping_mul(0x0100_0193)
    });
    hash % 2 == 1
}

#[derive(Default)]
struct Tally {
    positives: usize,
    caught: usize,
    allows: usize,
    false_denies: usize,
    friction: usize,
}

impl Tally {
    fn caught_rate(&self) -> f64 {
        self.caught as f64 / self.positives.max(1) as f64
    }
    fn false_deny_rate(&self) -> f64 {
        self.false_denies as f64 / self.allows.max(1) as f64
    }
    fn add(&mut self, other: &Tally) {
        self.positives += other.positives;
        self.caught += other.caught;
        self.allows += other.allows;
        self.false_denies += other.false_denies;
        self.friction += other.friction;
    }
    fn line(&self) -> String {
        format!(
            "caught {}/{} = {:.3}, false denies {}/{} = {:.3}, asked on allow {}",
            self.caught,
            self.positives,
            self.caught_rate(),
            self.false_denies,
            self.allows,
            self.false_deny_rate(),
            self.friction
        )
    }
}

#[test]
fn peer_suites() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/peer-suites/cases.yaml"
    );
    let suites: Suites = serde_saphyr::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    assert!(suites.cases.len() > 900, "{} cases", suites.cases.len());
    let rules = shell_common::dangerous_command_rules();
    let keywords = shell_common::dangerous_command_spec().keywords;
    let ctx = shell_common::repo_context();

    // (suite, held out) -> tally
    let mut tallies: BTreeMap<(String, bool), Tally> = BTreeMap::new();
    let mut misses = Vec::new();
    for case in suites.cases.iter().filter(|c| c.context.is_none()) {
        let suite = case.id.split('-').next().unwrap_or_default().to_string();
        let held = held_out(&case.id);
        let verdict = classify(&case.command, &rules, &ctx)
            .filter(|_| shell_common::keyword_hit(&keywords, &case.command));
        let tally = tallies.entry((suite, held)).or_default();
        let shown = verdict.as_ref().map_or("allow".to_string(), |m| {
            format!("{} ({})", m.action.as_str(), m.rule_id)
        });
        let wrong = match case.expected.as_str() {
            "deny" | "ask" => {
                tally.positives += 1;
                tally.caught += usize::from(verdict.is_some());
                verdict.is_none()
            }
            _ => {
                tally.allows += 1;
                let action = verdict.as_ref().map(|m| m.action);
                tally.false_denies += usize::from(action == Some(ShellAction::Deny));
                tally.friction += usize::from(action == Some(ShellAction::Ask));
                action == Some(ShellAction::Deny)
            }
        };
        if wrong {
            misses.push(format!(
                "  {} [{}] {:?} -> {shown}",
                case.id, case.expected, case.command
            ));
        }
    }

    let mut failures = Vec::new();
    let mut names: Vec<String> = tallies.keys().map(|(s, _)| s.clone()).collect();
    names.dedup();
    for suite in names.iter().filter(|s| !s.is_empty()) {
        let mut whole = Tally::default();
        for held in [false, true] {
            if let Some(t) = tallies.get(&(suite.clone(), held)) {
                let half = if held { "held-out" } else { "tuning  " };
                println!("{suite:10} {half}: {}", t.line());
                whole.add(t);
            }
        }
        println!("{suite:10} all     : {}", whole.line());
        let Some((_, min_caught, max_false)) = FLOORS.iter().find(|(s, _, _)| s == suite) else {
            failures.push(format!("{suite}: no floor"));
            continue;
        };
        if whole.caught < *min_caught {
            failures.push(format!("{suite}: caught {} < {min_caught}", whole.caught));
        }
        if whole.false_denies > *max_false {
            failures.push(format!(
                "{suite}: {} false denies > {max_false}",
                whole.false_denies
            ));
        }
    }
    println!("cases guard gets wrong (both halves):");
    for line in &misses {
        println!("{line}");
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn split_rule_is_the_documented_one() {
    // FNV-1a 32 of "a" is 0xe40c292c (even), of "b" 0xe70c2de5 (odd).
    assert!(!held_out("a"));
    assert!(held_out("b"));
}
