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

use super::asks::asks_the_user;
use crate::actions::{CommandKind, TurnActions, Verification};
use crate::pattern::GateText;
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
    /// The agent's todo list, as this turn last wrote it, has steps still
    /// to do (pending or in progress): the turn planned more than it
    /// marked done ([`crate::actions::plan`]).
    PlanLeftOpen,
    /// The agent's todo list, as this turn last wrote it, has a step
    /// dropped (cancelled or deleted): the turn planned more than it kept.
    PlanStepDropped,
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
    /// The rule does not hold where the message puts a question to the
    /// user ([`super::asks::asks_the_user`]): what is left open is then
    /// handed back.
    #[serde(default)]
    pub unless_it_asks: bool,
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
    /// The turn's todo list was left with steps to do.
    pub plan_left_open: bool,
    /// The turn's todo list was left with a step dropped.
    pub plan_step_dropped: bool,
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
            plan_left_open: actions.plan_left_open(),
            plan_step_dropped: actions.plan_step_dropped(),
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
            Condition::PlanLeftOpen => self.plan_left_open,
            Condition::PlanStepDropped => self.plan_step_dropped,
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
        let lists = [
            &self.keywords,
            &self.request_keywords,
            &self.request_ignores,
        ];
        self.conditions_hold(evidence, source)
            && (!self.with_signal || signal_hit)
            && self.texts_show(
                lists.map(|l| l.iter().map(String::as_str)),
                (lower, &|k| lower.contains(k)),
                request,
            )
    }

    /// Whether the text (as a [`GateText`]) and the user's request (folded,
    /// `None` when unknown) show what the rule's keyword lists ask, the lists
    /// taken from `lists` (for a rule read without them: a head's).
    pub fn texts_show_lists(
        &self,
        lists: &super::RuleKeywords,
        text: &GateText,
        request: Option<&str>,
    ) -> bool {
        let lists = [
            &lists.keywords,
            &lists.request_keywords,
            &lists.request_ignores,
        ];
        let lists = lists.map(super::Keywords::iter);
        self.texts_show(lists, (text.folded(), &|k| text.contains(k)), request)
    }

    /// Whether the texts show what the rule's lists (`keywords`,
    /// `request_keywords`, `request_ignores`) ask, and, with
    /// `unless_it_asks`, that the text asks the user nothing; `text` is the
    /// folded text and `in_text` looks for a keyword in it.
    fn texts_show<'k, L: Iterator<Item = &'k str> + Clone>(
        &self,
        [keywords, request_keywords, request_ignores]: [L; 3],
        (text, in_text): (&str, &dyn Fn(&str) -> bool),
        request: Option<&str>,
    ) -> bool {
        let empty = |list: &L| list.clone().next().is_none();
        let any_in = |mut list: L, text: &str| list.any(|k| text.contains(k));
        (empty(&keywords) || keywords.clone().any(in_text))
            && (empty(&request_keywords)
                || request.map_or(self.request_unknown == RequestUnknown::Holds, |r| {
                    if empty(&request_ignores) {
                        any_in(request_keywords, r)
                    } else {
                        let r =
                            request_ignores.fold(r.to_string(), |r, phrase| r.replace(phrase, " "));
                        any_in(request_keywords, &r)
                    }
                }))
            && !(self.unless_it_asks && asks_the_user(text))
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
#[path = "evidence_tests.rs"]
mod tests;
