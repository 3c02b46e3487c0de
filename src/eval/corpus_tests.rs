//! Tests of `corpus.rs`.

use super::*;

const CORPUS: &str = r#"
- id: t1
  lang: en
  text: "Shall I commit and push?"
  labels: {commit: block}
  note: a proposal
- id: t2
  lang: es
  text: "Listo."
- id: g1
  command: "rm -rf /"
  label: deny
- id: real-1
  lang: zh
  source: "github:o/r log.md (abc) turn 2"
  agent: cursor
  text: "已修复。"
  labels: {shallow-bugfix: block}
  ambiguous: true
  actions:
    - {kind: edit, path: src/a.rs}
    - {kind: command, command: cargo test, exit: 101}
    - {kind: push, remote: origin}
"#;

#[test]
fn parses_both_kinds_and_round_trips() {
    let cases = parse("c.yaml", CORPUS).unwrap();
    assert_eq!(cases.len(), 4);
    let Case::TurnEnd(t1) = &cases[0] else {
        panic!()
    };
    assert_eq!(t1.must_block, ["commit"]);
    let Case::TurnEnd(t2) = &cases[1] else {
        panic!()
    };
    assert!(t2.must_block.is_empty());
    let Case::PreTool(g1) = &cases[2] else {
        panic!()
    };
    assert_eq!(g1.label, GateLabel::Deny);
    let Case::TurnEnd(real) = &cases[3] else {
        panic!()
    };
    assert_eq!(real.agent.as_deref(), Some("cursor"));
    assert!(real.ambiguous && !t1.ambiguous);
    assert_eq!(real.actions.len(), 3);
    assert_eq!(real.actions[1].exit, Some(101));
    assert_eq!(real.actions[2].kind, "push", "unknown kinds and keys load");
    assert_eq!(parse("again", &to_yaml(&cases)).unwrap(), cases);
}

#[test]
fn rejects_incomplete_mixed_and_duplicate_cases() {
    let err = |y: &str| parse("c.yaml", y).unwrap_err().to_string();
    assert!(err("- {id: a, text: x}").contains("needs `lang`"));
    assert!(err("- {id: a, command: ls}").contains("needs `label`"));
    assert!(err("- {id: a, lang: en, text: x, command: ls, label: allow}").contains("not both"));
    assert!(
        err("- {id: a, lang: en, text: x}\n- {id: a, lang: en, text: y}").contains("used twice")
    );
    assert!(err("- {id: a, lang: en, text: x, labels: {c: maybe}}").starts_with("c.yaml:"));
    assert!(err("- {id: a, lang: en, txt: x}").starts_with("c.yaml:"));
}
