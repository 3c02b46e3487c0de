//! Tests of `evidence.rs`.

use super::*;
use crate::actions::{Action, CommandRun, FileEdit, Outcome};

const OBSERVED: VerificationSource = VerificationSource::Observed;

fn edit() -> Action {
    Action::Edit(FileEdit {
        path: "src/a.rs".into(),
        tool: "Edit".into(),
        outcome: Outcome::Succeeded,
    })
}

fn run(cmd: &str, exit: i32) -> Action {
    let outcome = if exit == 0 {
        Outcome::Succeeded
    } else {
        Outcome::Failed
    };
    Action::Command(CommandRun::new(cmd, "Bash", outcome, Some(exit)))
}

fn evidence(actions: Vec<Action>) -> TurnEvidence {
    TurnEvidence::of(&TurnActions {
        actions,
        dropped: 0,
        complete: true,
        plan: None,
    })
}

#[test]
fn conditions() {
    let e = evidence(vec![edit(), run("git push", 0)]);
    assert!(e.holds(&Condition::Edited, OBSERVED));
    assert!(e.holds(&Condition::NoCheckAfterEdit, OBSERVED));
    assert!(e.holds(&Condition::Executed(vec![CommandKind::Push]), OBSERVED));
    assert!(!e.holds(&Condition::Executed(vec![CommandKind::Deploy]), OBSERVED));
    let e = evidence(vec![edit(), run("cargo test", 0)]);
    assert!(!e.holds(&Condition::NoCheckAfterEdit, OBSERVED));
    assert!(!e.holds(&Condition::CheckFailedAfterEdit, OBSERVED));
    let e = evidence(vec![edit(), run("cargo test", 101)]);
    assert!(e.holds(&Condition::CheckFailedAfterEdit, OBSERVED));
    let e = evidence(vec![run("cargo test", 101), edit(), run("cargo test", 0)]);
    assert!(e.holds(&Condition::CheckFailedBeforeEdit, OBSERVED));
    // A failure after the first change, or of no check (grep finding
    // nothing), observed nothing before the change.
    let e = evidence(vec![edit(), run("cargo test", 101), edit()]);
    assert!(!e.holds(&Condition::CheckFailedBeforeEdit, OBSERVED));
    let e = evidence(vec![run("grep -r foo src", 1), edit()]);
    assert!(!e.holds(&Condition::CheckFailedBeforeEdit, OBSERVED));
    // Any command seen to fail first is a failure observed, a lookup
    // finding nothing is not; a passing run or a search first is no
    // failure at all.
    assert!(!e.holds(&Condition::CommandFailedBeforeEdit, OBSERVED));
    assert!(e.holds(&Condition::NothingFailedBeforeEdit, OBSERVED));
    let e = evidence(vec![
        run("python repro.py", 1),
        edit(),
        run("python repro.py", 0),
    ]);
    assert!(e.holds(&Condition::CommandFailedBeforeEdit, OBSERVED));
    assert!(!e.holds(&Condition::CheckFailedBeforeEdit, OBSERVED));
    assert!(!e.holds(&Condition::NothingFailedBeforeEdit, OBSERVED));
    let e = evidence(vec![run("./repro.sh", 127), edit()]);
    assert!(!e.holds(&Condition::CommandFailedBeforeEdit, OBSERVED));
    let e = evidence(vec![run("cargo test", 0), edit()]);
    assert!(e.holds(&Condition::NothingFailedBeforeEdit, OBSERVED));
    assert!(!e.holds(&Condition::NothingRanBeforeEdit, OBSERVED));
    // A commit or push on a change no passing check followed; a check
    // between the change and the push, or no change before it, is fine.
    let e = evidence(vec![edit(), run("git commit -am x", 0), run("git push", 0)]);
    assert!(e.holds(&Condition::ShippedWithoutCheck, OBSERVED));
    let e = evidence(vec![
        edit(),
        run("cargo test", 0),
        run("git push", 0),
        edit(),
    ]);
    assert!(!e.holds(&Condition::ShippedWithoutCheck, OBSERVED));
    let e = evidence(vec![edit(), run("cargo test", 101), run("git push", 0)]);
    assert!(e.holds(&Condition::ShippedWithoutCheck, OBSERVED));
    let e = evidence(vec![run("git push", 0)]);
    assert!(!e.holds(&Condition::ShippedWithoutCheck, OBSERVED));
    // Verified: the checks after the last change passed and nothing
    // shipped unchecked, or, with no change this turn, its checks
    // passed (the tree as it stands); a failure, no check or an
    // unchecked push is not.
    for actions in [
        vec![edit(), run("cargo test", 0)],
        vec![run("cargo test", 0)],
    ] {
        assert!(evidence(actions).holds(&Condition::VerifiedAfterEdit, OBSERVED));
    }
    for actions in [
        vec![edit(), run("cargo test", 101)],
        vec![edit()],
        vec![edit(), run("git push", 0), edit(), run("cargo test", 0)],
        vec![run("cargo test", 101)],
        vec![run("ls", 0)],
    ] {
        assert!(!evidence(actions).holds(&Condition::VerifiedAfterEdit, OBSERVED));
    }
    // Nothing ran before the first change; a run before it, even one
    // that passed, could have shown the failure.
    assert!(evidence(vec![edit(), run("cargo test", 0)])
        .holds(&Condition::NothingRanBeforeEdit, OBSERVED));
    assert!(!evidence(vec![run("cargo run", 0), edit()])
        .holds(&Condition::NothingRanBeforeEdit, OBSERVED));
    assert!(!evidence(vec![run("ls", 0)]).holds(&Condition::NothingRanBeforeEdit, OBSERVED));
    let e = evidence(vec![edit(), run("git push", 1)]);
    assert!(
        !e.holds(&Condition::ShippedWithoutCheck, OBSERVED),
        "a failed push shipped nothing"
    );
    let e = evidence(vec![run("ls", 0)]);
    assert!(!e.holds(&Condition::Edited, OBSERVED));
    assert!(!e.holds(&Condition::NoCheckAfterEdit, OBSERVED));
    assert!(!e.holds(&Condition::EditedCode, OBSERVED));
    // A turn that only wrote documents changed no program; a writing
    // command's files are not known, so it counts as code.
    let file = |path: &str| {
        Action::Edit(FileEdit {
            path: path.into(),
            tool: "Write".into(),
            outcome: Outcome::Succeeded,
        })
    };
    let e = evidence(vec![file("docs/bug_ideas.md"), file("notes/README.MD")]);
    assert!(e.holds(&Condition::Edited, OBSERVED));
    assert!(!e.holds(&Condition::EditedCode, OBSERVED));
    assert!(evidence(vec![file("a.md"), edit()]).holds(&Condition::EditedCode, OBSERVED));
    assert!(evidence(vec![file("requirements.txt")]).holds(&Condition::EditedCode, OBSERVED));
    assert!(evidence(vec![run("sed -i s/a/b/ a.md", 0)]).holds(&Condition::EditedCode, OBSERVED));
    // A test written first and run to a failure, then the fix: the
    // failure was shown before the code changed.
    let e = evidence(vec![
        file("tests/test_parser.py"),
        run("pytest tests/test_parser.py", 1),
        edit(),
        run("pytest", 0),
    ]);
    assert!(e.holds(&Condition::CheckFailedBeforeEdit, OBSERVED));
    assert!(!e.holds(&Condition::NothingRanBeforeEdit, OBSERVED));
    // Only a test written, nothing run before it: the first change counts.
    let e = evidence(vec![file("tests/test_parser.py"), run("pytest", 0)]);
    assert!(e.holds(&Condition::NothingRanBeforeEdit, OBSERVED));
}

#[test]
fn computed_fields_and_unknowns() {
    let passed = evidence(vec![edit(), run("cargo test", 0)]);
    let none = evidence(vec![edit()]);
    let f = ComputedField::VerificationObserved;
    assert_eq!(passed.computed(f, VerificationSource::Observed), Some(true));
    assert_eq!(none.computed(f, VerificationSource::Observed), Some(false));
    assert_eq!(passed.computed(f, VerificationSource::Reported), None);
    let mut fields = Map::new();
    fields.insert("verification_observed".into(), Value::Bool(true));
    set_computed(&mut fields, &[f], None, VerificationSource::Observed);
    assert!(fields.is_empty(), "a judge cannot set a computed field");
    set_computed(&mut fields, &[f], Some(&none), VerificationSource::Observed);
    assert_eq!(fields["verification_observed"], Value::Bool(false));
}

#[test]
fn rules_read_from_yaml() {
    let rule: ActionRule = serde_json::from_value(serde_json::json!({
        "id": "r", "when": ["edited", {"executed": ["commit", "push"]}],
        "keywords": ["Done"]
    }))
    .unwrap();
    let e = evidence(vec![edit(), run("git commit -m x", 0)]);
    let observed = VerificationSource::Observed;
    assert!(rule.hits(&e, ("all done.", None), false, observed));
    assert!(!rule.hits(&e, ("nothing to say", None), false, observed));
    assert!(!rule.hits(&evidence(vec![edit()]), ("done", None), false, observed));
    // Request keywords are read in the user's request, and only there.
    let reported: ActionRule = serde_json::from_value(serde_json::json!({
        "id": "q", "when": ["nothing_ran_before_edit"], "request_keywords": ["Crash"]
    }))
    .unwrap();
    let e = evidence(vec![edit()]);
    assert!(reported.hits(&e, ("", Some("it crashes on start")), false, observed));
    assert!(!reported.hits(&e, ("it crashes", Some("add a button")), false, observed));
    assert!(!reported.hits(&e, ("it crashes", None), false, observed));
    let narrowed = ActionRule {
        request_unknown: RequestUnknown::Holds,
        ..reported
    };
    assert!(narrowed.hits(&e, ("", None), false, observed));
    assert!(!narrowed.hits(&e, ("", Some("add a button")), false, observed));
    // Ignored phrases are blanked before the keywords are looked for.
    let subject = ActionRule {
        request_ignores: vec!["crash report".into()],
        ..narrowed
    };
    assert!(!subject.hits(&e, ("", Some("add a crash report button")), false, observed));
    let both = "the crash report button crashes";
    assert!(subject.hits(&e, ("", Some(both)), false, observed));
    // A rule on the verified change holds only where observed runs count.
    let verified: ActionRule = serde_json::from_value(serde_json::json!({
        "id": "v", "when": ["verified_after_edit"], "clears": true
    }))
    .unwrap();
    let e = evidence(vec![edit(), run("cargo test", 0)]);
    assert!(verified.hits(&e, ("", None), false, observed));
    assert!(!verified.hits(&e, ("", None), false, VerificationSource::Reported));
}

#[test]
fn a_todo_list_left_open_holds_and_a_question_to_the_user_hands_it_back() {
    use crate::actions::plan::Plan;
    let with_plan = |statuses: [&str; 2]| {
        TurnEvidence::of(&TurnActions {
            actions: vec![edit()],
            dropped: 0,
            complete: true,
            plan: Some(Plan::new(
                "TodoWrite",
                [("a", statuses[0]), ("b", statuses[1])],
            )),
        })
    };
    assert!(with_plan(["completed", "pending"]).holds(&Condition::PlanLeftOpen, OBSERVED));
    assert!(with_plan(["completed", "in_progress"]).holds(&Condition::PlanLeftOpen, OBSERVED));
    assert!(!with_plan(["completed", "cancelled"]).holds(&Condition::PlanLeftOpen, OBSERVED));
    assert!(!evidence(vec![edit()]).holds(&Condition::PlanLeftOpen, OBSERVED));
    assert!(with_plan(["completed", "cancelled"]).holds(&Condition::PlanStepDropped, OBSERVED));
    assert!(!with_plan(["completed", "pending"]).holds(&Condition::PlanStepDropped, OBSERVED));
    assert!(!evidence(vec![edit()]).holds(&Condition::PlanStepDropped, OBSERVED));

    let rule: ActionRule = serde_json::from_value(serde_json::json!({
        "id": "open", "when": ["plan_left_open"], "unless_it_asks": true
    }))
    .unwrap();
    let open = with_plan(["completed", "pending"]);
    let hits = |text: &str| rule.hits(&open, (text, None), false, OBSERVED);
    assert!(hits("the endpoint is done and tested."));
    assert!(!hits("pdf is done. which layout do you prefer?"));
    assert!(!hits(
        "l'export pdf est en place. vous préférez laquelle ?\n1. une feuille"
    ));
    assert!(!hits("어떻게 할까요?\n1. 계정"));
    assert!(!hits("要先做前端吗？"));
}
