//! Evidence from the turn's actions, as detector data: Layer-1 action rules
//! (`actions:` in a detector file) and the guard-computed fields a decision
//! rule may read (`judge.computed:`).
//!
//! Both read a [`TurnEvidence`], computed once per event and only when the
//! event carries the turn's actions (an agent with a transcript): an event
//! without actions never reaches this module, so Layer 1 and the rules then
//! behave exactly as on the text alone.
//!
//! An action rule, e.g.
//!
//! ```yaml
//! actions:
//!   - id: edited-and-talks-about-a-defect
//!     when: [edited]
//!     keywords: [crash, wrong, no longer, instead of]
//! ```
//!
//! makes Layer 1 a hit (the judge is asked) when every condition of `when`
//! holds on the actions and the text shows what the rule asks: one of its
//! `keywords` (case-insensitive substrings), one of the detector's signals
//! or the hit of a rule before it (`with_signal: true`), or nothing more.
//! `overrides` names bypasses the evidence outweighs: a prose claim ("all
//! tests pass") does not clear a turn whose actions show no test run, nor
//! (a request bypass named) a push asked for "if the tests pass" made on a
//! change no check followed. A rule with `clears: true` is a
//! bypass seen in the actions instead: where it holds, it clears a hit
//! (e.g. a test observed to fail before the first edit is a reproduction,
//! however the message words it).

use crate::actions::{CommandKind, TurnActions, Verification};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// One condition on the turn's actions.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Condition {
    /// A file was changed this turn (by an edit tool or a writing command).
    Edited,
    /// A file other than a prose document (Markdown, reStructuredText,
    /// AsciiDoc) was changed this turn: a turn that only wrote documents
    /// fixed no bug.
    EditedCode,
    /// A file was changed and no test, build or lint ran after the last change.
    NoCheckAfterEdit,
    /// A file was changed and the last check after the last change failed.
    CheckFailedAfterEdit,
    /// A file was changed, and before the first change a test, build or
    /// lint ran and failed (the failure was observed, then the code
    /// changed). Known only for a turn read whole.
    CheckFailedBeforeEdit,
    /// A file was changed, and before the first change a command other
    /// than a lookup (`grep`, `ls`, …: see the command-kind table) ran and
    /// failed: a failure observed, then the code changed. Known only for a
    /// turn read whole.
    CommandFailedBeforeEdit,
    /// A file was changed and no command ran before the first change (so
    /// nothing run this turn showed the failure). Known only for a turn
    /// read whole.
    NothingRanBeforeEdit,
    /// A file was changed and every command before the first change is
    /// known to have shown no failure (it succeeded, did not run, was a
    /// lookup or could not be run): a search or a passing test is no
    /// reproduction. Known only for a turn read whole.
    NothingFailedBeforeEdit,
    /// A command of one of these kinds was executed this turn.
    Executed(Vec<CommandKind>),
    /// A commit, push or deploy ran with a change before it that no test,
    /// build or lint checked in between (one that passed, or whose outcome
    /// is not shown).
    ShippedWithoutCheck,
    /// The computed fields read the change as verified and nothing shipped
    /// unchecked (`verification_observed` true, `shipped_without_check`
    /// false), so the commit rule can find no violation. Known only under
    /// `verification: observed`.
    VerifiedAfterEdit,
}

/// A Layer-1 action rule (see the module docs).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ActionRule {
    /// Names the rule in reports (`action:<id>` among the signals).
    pub id: String,
    /// Every condition must hold.
    pub when: Vec<Condition>,
    /// One of these must occur in the text (case-insensitive substrings,
    /// lowercased when read); empty: no keyword is needed.
    #[serde(default, deserialize_with = "lowercase")]
    pub keywords: Vec<String>,
    /// One of these must occur in the user's request that started the turn
    /// (case-insensitive substrings); empty: the request is not read.
    #[serde(default, deserialize_with = "lowercase")]
    pub request_keywords: Vec<String>,
    /// Phrases blanked out of the request before `request_keywords` are
    /// looked for (case-insensitive): a subject that uses a keyword without
    /// reporting what it names ("add line numbers to the error messages").
    #[serde(default, deserialize_with = "lowercase")]
    pub request_ignores: Vec<String>,
    /// What `request_keywords` give where the request is unknown.
    #[serde(default)]
    pub request_unknown: RequestUnknown,
    /// One of the detector's own signals must have matched, or a rule
    /// listed before this one must have made a hit.
    #[serde(default)]
    pub with_signal: bool,
    /// Bypass ids (of `bypasses` or `request_bypasses`) that do not clear
    /// a hit of this rule.
    #[serde(default)]
    pub overrides: Vec<String>,
    /// Where the rule holds it clears the detector's hit, as a bypass would
    /// (reported as `action:<id>` among the bypasses), instead of making one.
    #[serde(default)]
    pub clears: bool,
}

/// What a rule's request keywords give where the user's request is unknown.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RequestUnknown {
    /// The rule does not hold (a rule that adds hits: no request, no hit).
    #[default]
    Fails,
    /// The keywords count as found (a rule the request narrows: no request,
    /// the rule reads the text alone).
    Holds,
}

/// A field guard computes from the actions for the decision rule.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ComputedField {
    /// A test, build or lint ran after the last edit and the last run of
    /// each kind passed (false: none ran, or one failed). Known only under
    /// `verification: observed`, when the turn's actions are known and a
    /// file was edited this turn.
    VerificationObserved,
    /// A file was changed this turn.
    EditedThisTurn,
    /// A commit, push or deploy ran this turn on a change no passing check
    /// followed (the step is done, not proposed). Known only under
    /// `verification: observed`, when the turn's actions are known.
    ShippedWithoutCheck,
}

impl ComputedField {
    /// The field's name in rules.
    pub fn name(self) -> &'static str {
        match self {
            ComputedField::VerificationObserved => "verification_observed",
            ComputedField::EditedThisTurn => "edited_this_turn",
            ComputedField::ShippedWithoutCheck => "shipped_without_check",
        }
    }
}

pub use crate::config::VerificationSource;

/// What the action rules and computed fields read of a turn, computed once.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TurnEvidence {
    /// Some action changed files (`None`: unknown, the turn was read in part).
    pub edited: Option<bool>,
    /// Some action changed a file other than a prose document.
    pub edited_code: bool,
    /// Checks after the last change.
    pub verification: Verification,
    /// A check failed before the first change (in a turn read whole).
    pub failed_before_edit: bool,
    /// No command ran before the first change (in a turn read whole).
    pub nothing_ran_before_edit: bool,
    /// A command other than a lookup failed before the first change (in a
    /// turn read whole).
    pub command_failed_before_edit: bool,
    /// Every command before the first change is known to have shown no
    /// failure (in a turn read whole).
    pub nothing_failed_before_edit: bool,
    /// A commit, push or deploy shipped a change no passing check followed.
    pub shipped_unchecked: bool,
    /// Bit `i` set: a command of `CommandKind::ALL[i]` was executed.
    executed: u8,
}

impl TurnEvidence {
    /// Reads the evidence of a turn's actions.
    pub fn of(actions: &TurnActions) -> TurnEvidence {
        let mut executed = 0u8;
        for (i, kind) in CommandKind::ALL.iter().enumerate() {
            if actions.executed(*kind).next().is_some() {
                executed |= 1 << i;
            }
        }
        TurnEvidence {
            edited: actions.edited(),
            edited_code: actions.edited_code(),
            verification: actions.verification_after_last_edit(&CommandKind::CHECKS),
            failed_before_edit: actions.complete
                && actions.failed_before_first_edit(&CommandKind::CHECKS),
            nothing_ran_before_edit: actions.complete && actions.ran_nothing_before_first_edit(),
            command_failed_before_edit: actions.complete
                && actions.failure_seen_before_first_edit(),
            nothing_failed_before_edit: actions.complete
                && actions.failed_nothing_before_first_edit(),
            shipped_unchecked: actions.shipped_without_check(),
            executed,
        }
    }

    /// Whether a command of `kind` was executed.
    pub fn executed(&self, kind: CommandKind) -> bool {
        CommandKind::ALL
            .iter()
            .position(|k| *k == kind)
            .is_some_and(|i| self.executed & (1 << i) != 0)
    }

    /// Whether a condition holds (an unknown never holds) for a detector
    /// taking verification from `source`.
    pub fn holds(&self, condition: &Condition, source: VerificationSource) -> bool {
        let edited = self.edited == Some(true);
        match condition {
            Condition::Edited => edited,
            Condition::EditedCode => self.edited_code,
            Condition::NoCheckAfterEdit => edited && self.verification == Verification::NotRun,
            Condition::CheckFailedAfterEdit => edited && self.verification == Verification::Failed,
            Condition::CheckFailedBeforeEdit => edited && self.failed_before_edit,
            Condition::NothingRanBeforeEdit => edited && self.nothing_ran_before_edit,
            Condition::CommandFailedBeforeEdit => edited && self.command_failed_before_edit,
            Condition::NothingFailedBeforeEdit => edited && self.nothing_failed_before_edit,
            Condition::Executed(kinds) => kinds.iter().any(|k| self.executed(*k)),
            Condition::ShippedWithoutCheck => self.shipped_unchecked,
            Condition::VerifiedAfterEdit => {
                self.computed(ComputedField::VerificationObserved, source) == Some(true)
                    && self.computed(ComputedField::ShippedWithoutCheck, source) == Some(false)
            }
        }
    }

    /// A computed field's value (`None`: unknown, left out of the rule's
    /// fields so that `field ?? fallback` falls back).
    pub fn computed(&self, field: ComputedField, source: VerificationSource) -> Option<bool> {
        match field {
            ComputedField::EditedThisTurn => self.edited,
            ComputedField::ShippedWithoutCheck => match source {
                VerificationSource::Reported => None,
                VerificationSource::Observed => Some(self.shipped_unchecked),
            },
            // Nothing edited this turn: checks it ran that passed verified
            // the tree as it stands; otherwise the change was verified (or
            // not) in a turn guard did not read.
            ComputedField::VerificationObserved => match (source, self.verification) {
                (VerificationSource::Reported, _) | (_, Verification::Unknown) => None,
                (_, Verification::Passed) if self.edited == Some(false) => Some(true),
                _ if self.edited != Some(true) => None,
                (_, Verification::Passed) => Some(true),
                (_, Verification::NotRun | Verification::Failed) => Some(false),
            },
        }
    }
}

/// A list of strings, case-folded as it is read ([`crate::pattern::fold_text`];
/// in place where ASCII, as the built-in ones are).
fn lowercase<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Vec<String>, D::Error> {
    let mut list = Vec::<String>::deserialize(d)?;
    for k in &mut list {
        if k.is_ascii() {
            k.make_ascii_lowercase();
        } else if k.chars().any(|c| crate::pattern::fold(c) != c) {
            *k = crate::pattern::fold_text(k);
        }
    }
    Ok(list)
}

impl ActionRule {
    /// Whether every condition of `when` holds on the evidence, for a
    /// detector taking verification from `source`.
    pub fn conditions_hold(&self, evidence: &TurnEvidence, source: VerificationSource) -> bool {
        self.when.iter().all(|c| evidence.holds(c, source))
    }

    /// Whether the rule hits: its conditions hold on the evidence, and the
    /// text and the user's request (both case-folded,
    /// [`crate::pattern::fold_text`]; the request `None` when unknown) show
    /// what it asks.
    pub fn hits(
        &self,
        evidence: &TurnEvidence,
        (lower, request): (&str, Option<&str>),
        signal_hit: bool,
        source: VerificationSource,
    ) -> bool {
        let any_in =
            |keywords: &[String], text: &str| keywords.iter().any(|k| text.contains(k.as_str()));
        self.conditions_hold(evidence, source)
            && (!self.with_signal || signal_hit)
            && (self.keywords.is_empty() || any_in(&self.keywords, lower))
            && (self.request_keywords.is_empty()
                || request.map_or(self.request_unknown == RequestUnknown::Holds, |r| {
                    if self.request_ignores.is_empty() {
                        any_in(&self.request_keywords, r)
                    } else {
                        let r = (self.request_ignores.iter())
                            .fold(r.to_string(), |r, phrase| r.replace(phrase.as_str(), " "));
                        any_in(&self.request_keywords, &r)
                    }
                }))
    }
}

/// Checks a detector's action rules: each has conditions, and overrides
/// only bypasses the detector has.
pub fn validate(spec: &super::DetectorSpec) -> Result<(), String> {
    for a in &spec.actions {
        if a.when.is_empty() {
            return Err(format!("action rule `{}` has no `when`", a.id));
        }
        let known = |id: &String| {
            (spec.bypasses.iter())
                .chain(&spec.request_bypasses)
                .any(|b| &b.id == id)
        };
        if a.clears && (a.with_signal || !a.overrides.is_empty()) {
            return Err(format!(
                "action rule `{}` clears a hit, so it takes no `with_signal` or `overrides`",
                a.id
            ));
        }
        let request_set =
            a.request_unknown == RequestUnknown::Holds || !a.request_ignores.is_empty();
        if request_set && a.request_keywords.is_empty() {
            return Err(format!(
                "action rule `{}` sets `request_unknown` or `request_ignores` with no `request_keywords`",
                a.id
            ));
        }
        if let Some(id) = a.overrides.iter().find(|id| !known(id)) {
            return Err(format!(
                "action rule `{}` overrides `{id}`, which is not a bypass",
                a.id
            ));
        }
    }
    Ok(())
}

/// The computed fields of a rule set into `fields`: a judge's answer carrying
/// a computed name is overwritten or, when the value is unknown, stripped
/// (a judge, or a text quoting one, cannot set what guard computes).
pub fn set_computed(
    fields: &mut Map<String, Value>,
    computed: &[ComputedField],
    evidence: Option<&TurnEvidence>,
    source: VerificationSource,
) {
    for field in computed {
        match evidence.and_then(|e| e.computed(*field, source)) {
            Some(v) => fields.insert(field.name().to_string(), Value::Bool(v)),
            None => fields.remove(field.name()),
        };
    }
}

#[cfg(test)]
mod tests {
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
        assert!(
            evidence(vec![run("sed -i s/a/b/ a.md", 0)]).holds(&Condition::EditedCode, OBSERVED)
        );
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
}
