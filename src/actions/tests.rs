//! The queries a detector asks of a turn's actions.

use super::*;
use CommandKind::{Build, Commit, Push, Test};
use Outcome::{Failed, NotRun, Succeeded, Unknown};

fn run(command: &str, outcome: Outcome) -> Action {
    let exit_code = match outcome {
        Succeeded => Some(0),
        Failed => Some(1),
        _ => None,
    };
    Action::Command(CommandRun::new(command, "Bash", outcome, exit_code))
}

fn edit(path: &str, outcome: Outcome) -> Action {
    Action::Edit(FileEdit {
        path: path.into(),
        tool: "Edit".into(),
        outcome,
    })
}

fn turn(actions: Vec<Action>) -> TurnActions {
    TurnActions {
        actions,
        dropped: 0,
        complete: true,
        plan: None,
    }
}

#[test]
fn tests_after_the_last_edit_decide_the_verification() {
    let checks = &CommandKind::CHECKS;
    let passed = turn(vec![
        edit("src/a.rs", Succeeded),
        run("cargo test", Failed),
        edit("src/a.rs", Succeeded),
        run("cargo test", Succeeded),
    ]);
    assert_eq!(passed.last_edit(), Some(2));
    assert_eq!(
        passed.verification_after_last_edit(checks),
        Verification::Passed
    );

    let stale = turn(vec![
        run("cargo test", Succeeded),
        edit("src/a.rs", Succeeded),
        run("git commit -am fix", Succeeded),
    ]);
    assert_eq!(
        stale.verification_after_last_edit(checks),
        Verification::NotRun
    );
    assert_eq!(stale.ran_after_last_edit(checks).count(), 0);

    let failed = turn(vec![
        edit("src/a.rs", Succeeded),
        run("cargo build", Succeeded),
        run("cargo test", Failed),
    ]);
    assert_eq!(
        failed.verification_after_last_edit(checks),
        Verification::Failed
    );
    // Only the build counts when only builds are asked for.
    assert_eq!(
        failed.verification_after_last_edit(&[Build]),
        Verification::Passed
    );

    let background = turn(vec![edit("a", Succeeded), run("cargo test", Unknown)]);
    assert_eq!(
        background.verification_after_last_edit(checks),
        Verification::Unknown
    );
}

#[test]
fn failed_refused_and_shell_edits_are_told_apart() {
    let actions = turn(vec![
        edit("src/a.rs", Succeeded),
        run("cargo test", Succeeded),
        edit("src/b.rs", Failed),
        edit("src/c.rs", NotRun),
        run("sed -i s/a/b/ src/d.rs", Failed),
        run("cargo test 2>&1 | tee test.log", Succeeded),
    ]);
    // The failed and refused edits changed nothing; the test writing its log
    // is a test run, not an edit.
    assert_eq!(actions.last_edit(), Some(0));
    assert_eq!(actions.edited_files().count(), 1);
    let after = turn(vec![
        edit("a", Succeeded),
        run("sed -i s/a/b/ x.rs", Succeeded),
    ]);
    assert_eq!(after.last_edit(), Some(1));
    assert_eq!(
        after.verification_after_last_edit(&CommandKind::CHECKS),
        Verification::NotRun
    );
}

#[test]
fn executed_commits_and_pushes_leave_out_refused_ones() {
    let actions = turn(vec![
        run("git commit -m x", Succeeded),
        run("git push origin main", NotRun),
        run("git push origin feature", Failed),
    ]);
    assert_eq!(actions.executed(Commit).count(), 1);
    let pushes: Vec<&str> = actions.executed(Push).map(|r| r.command.as_str()).collect();
    assert_eq!(pushes, vec!["git push origin feature"]);
    assert_eq!(actions.executed(Test).count(), 0);
}

#[test]
fn a_commit_after_an_unchecked_code_change_ships_it_unverified() {
    let ships = |actions: Vec<Action>| turn(actions).shipped_without_check();
    let (commit, push) = (
        run("git commit -am wip", Succeeded),
        run("git push", Succeeded),
    );
    let code = edit("src/lib.rs", Succeeded);
    assert!(ships(vec![code.clone(), commit.clone()]));
    let test = run("cargo test", Succeeded);
    assert!(!ships(vec![
        code.clone(),
        test,
        commit.clone(),
        push.clone()
    ]));
    // Prose documents have no check to run; code edited beside them still does.
    let (readme, docs) = (
        edit("README.md", Succeeded),
        edit("docs/setup.md", Succeeded),
    );
    assert!(!ships(vec![readme.clone(), docs, commit.clone(), push]));
    assert!(ships(vec![readme, code.clone(), commit.clone()]));
    // A check whose outcome is unseen may have passed; a failed one did not.
    let unseen = run("cargo test", Unknown);
    assert!(!ships(vec![code.clone(), unseen, commit.clone()]));
    assert!(ships(vec![code, run("cargo test", Failed), commit]));
}

#[test]
fn a_turn_read_in_part_does_not_claim_what_it_did_not_see() {
    let mut partial = turn(vec![run("git push", Succeeded)]);
    partial.complete = false;
    assert_eq!(partial.edited(), None);
    assert_eq!(
        partial.verification_after_last_edit(&CommandKind::CHECKS),
        Verification::Unknown
    );
    // An edit seen means every later action was seen too.
    partial.actions.insert(0, edit("a", Succeeded));
    assert_eq!(partial.edited(), Some(true));
    assert_eq!(
        partial.verification_after_last_edit(&CommandKind::CHECKS),
        Verification::NotRun
    );
    assert_eq!(turn(vec![]).edited(), Some(false));
}

#[test]
fn serialized_actions_are_compact_and_tagged() {
    let actions = turn(vec![run("cargo test", Failed), edit("src/a.rs", Succeeded)]);
    let json = serde_json::to_value(&actions).unwrap();
    assert_eq!(
        json,
        serde_json::json!({"actions": [
            {"type": "command", "command": "cargo test", "tool": "Bash", "outcome": "failed",
             "exit_code": 1, "kinds": ["test"]},
            {"type": "edit", "path": "src/a.rs", "tool": "Edit", "outcome": "succeeded"}
        ], "complete": true})
    );
}

#[test]
fn a_long_command_is_stored_cut_and_classified_whole() {
    let long = format!("echo {} && git push", "x".repeat(MAX_COMMAND_BYTES));
    let run = CommandRun::new(&long, "Bash", Succeeded, Some(0));
    assert!(run.command.len() <= MAX_COMMAND_BYTES + '…'.len_utf8());
    assert_eq!(run.kinds(), &[Push]);
}

#[test]
fn clip_keeps_whole_characters() {
    assert_eq!(clip("abc", 3), "abc");
    assert_eq!(clip("héllo", 2), "h…");
    assert_eq!(head("日本語", 4), "日");
}

#[test]
fn a_failed_read_of_a_services_logs_shows_no_failure_of_the_code() {
    for read in [
        "journalctl -u app --since today",
        "export PATH=$PATH:/opt/gcloud/bin && gcloud logging read 'severity>=ERROR'",
        "kubectl logs deploy/web",
    ] {
        let actions = turn(vec![run(read, Failed), edit("src/a.rs", Succeeded)]);
        assert!(!actions.failure_seen_before_first_edit(), "{read}");
    }
    for test in [
        "npm test",
        "npm test 2>&1 | tail -20",
        "docker compose up -d api && docker inspect --format '{{.State.Health.Status}}' api",
    ] {
        let actions = turn(vec![run(test, Failed), edit("src/a.rs", Succeeded)]);
        assert!(actions.failure_seen_before_first_edit(), "{test}");
    }
}
