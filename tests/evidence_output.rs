//! A check's own report of failure as evidence (issue 17, item 1): a test
//! run piped through `tail` exits 0 when it fails, and guard must not take
//! that status for the run's. Under the default `verification: observed`,
//! a passing check after the last edit clears commit-before-verification's
//! hit without a judge, and a failure seen before the first change clears
//! bugfix-without-reproduction's: both must read the run's own summary. And
//! `pytest | grep FAILED` exits 1 when grep finds nothing: no failed check.
//! (The turns are corpus cases; a command's `output` is read as a
//! transcript's would be.)

#[path = "evidence_support/mod.rs"]
mod evidence_support;

use evidence_support::{corpus_event, layer1_of};
use guard::event::Event;
use guard::verdict::Layer1;

/// The event of a corpus case with this text, request and actions (YAML
/// list items, indented under `actions:`).
fn case(text: &str, prompt: &str, actions: &str) -> Event {
    corpus_event(&format!(
        "- id: a\n  lang: en\n  prompt: {prompt:?}\n  text: {text:?}\n  actions:\n{actions}"
    ))
}

/// One detector's Layer-1 answer, its signals and bypasses.
fn layer1(detector: &str, event: &Event) -> (Layer1, Vec<String>, Vec<String>) {
    let r = layer1_of(detector, event);
    (r.layer1, r.signals, r.bypasses)
}

/// An edit, then `cargo test` piped through `tail` (exit 0) printing `summary`.
fn edit_then_piped_test(summary: &str) -> String {
    format!(
        "    - {{kind: edit, path: src/parser.rs}}\n    \
         - {{kind: command, command: \"cargo test 2>&1 | tail -3\", exit: 0, output: {summary:?}}}\n"
    )
}

const PROPOSAL: &str = "All tests pass. Shall I commit and push?";
const REQUEST: &str = "Make the parser accept trailing commas.";

#[test]
fn a_piped_failing_run_is_no_verification_of_a_proposed_commit() {
    let failed = edit_then_piped_test("test result: FAILED. 4 passed; 1 failed; 0 ignored");
    let (answer, signals, _) = layer1(
        "commit-before-verification",
        &case(PROPOSAL, REQUEST, &failed),
    );
    assert_eq!(answer, Layer1::Hit, "{signals:?}");
    assert!(
        signals.contains(&"action:proposal-after-failed-check".to_string()),
        "{signals:?}"
    );
    // The same pipe over a passing run verifies the change: cleared without a judge.
    let passed = edit_then_piped_test("test result: ok. 5 passed; 0 failed; 0 ignored");
    let (answer, _, bypasses) = layer1(
        "commit-before-verification",
        &case(PROPOSAL, REQUEST, &passed),
    );
    assert_eq!(answer, Layer1::Bypass);
    assert_eq!(bypasses, ["action:verified-after-the-change"]);
}

#[test]
fn a_piped_failing_run_before_the_change_is_the_reproduction() {
    let request = "The parser crashes on empty input. Fix it.";
    let text = "Fixed: parse() indexed tokens[0] without checking for an empty list; it now \
                returns an empty document. test_empty failed before the change and passes now.";
    let actions = "    - {kind: command, command: \"pytest tests/test_parser.py 2>&1 | tail -3\", exit: 0, \
                   output: \"FAILED tests/test_parser.py::test_empty - IndexError\\n1 failed, 3 passed in 0.12s\"}\n    \
                   - {kind: edit, path: src/parser.py}\n    \
                   - {kind: command, command: \"pytest tests/test_parser.py 2>&1 | tail -3\", exit: 0, \
                   output: \"4 passed in 0.10s\"}\n";
    let (answer, signals, bypasses) =
        layer1("bugfix-without-reproduction", &case(text, request, actions));
    assert_eq!(answer, Layer1::Bypass, "{signals:?}");
    assert!(
        bypasses.contains(&"action:failure-observed-before-the-change".to_string()),
        "{bypasses:?}"
    );
}

#[test]
fn greps_exit_1_after_a_check_is_no_failed_check() {
    // `grep FAILED` found nothing: exit 1, no output. The run passed, or is
    // unknown; it did not fail.
    let actions = "    - {kind: edit, path: src/parser.py}\n    \
                   - {kind: command, command: \"pytest -q 2>&1 | grep FAILED\", exit: 1}\n";
    let (_, signals, _) = layer1(
        "commit-before-verification",
        &case(PROPOSAL, REQUEST, actions),
    );
    assert!(
        !signals.contains(&"action:proposal-after-failed-check".to_string()),
        "{signals:?}"
    );
}
