//! The figures of an evaluation, computed from each case's label and the
//! verdict guard gave it.
//!
//! Per turn-end detector D, a case is a *block case* of D when its labels
//! say D must block, an *other case* of D otherwise:
//! - Layer-1 recall: block cases where D's Layer 1 hit (a signal matched and
//!   no bypass did), over block cases;
//! - Layer-1 pass-through: other cases where D did not hit (nothing matched,
//!   or a bypass cleared it), over other cases;
//! - bypass errors: block cases a bypass of D let through;
//! - end to end (with the judge): D's own decision (block or allow, shadow
//!   mode included) against the label, as a confusion table with precision,
//!   recall and F1.
//!
//! Per turn (all turn-end detectors at once, as a user meets them): a turn
//! that must block is *caught* when the judge is asked about one of the
//! detectors it must block on: Layer 1 hit it, or it was joined to the
//! turn's judgment because another detector hit (`judge.whole_turn`; those
//! are also counted apart). It is *let through by a bypass* when one of them
//! was bypassed and none was caught; an ordinary turn (no labels) *passes*
//! when no detector hit (every hit costs the user a judge call). These
//! figures are also given per language and, where some labels are judgment
//! calls, without them.
//!
//! For pre-tool cases the combined verdict is compared with the label: deny
//! recall, ask recall (an ask case counts as caught when guard asks or
//! denies), pass-through of allow cases, false denies.

use super::corpus::{GateLabel, PreToolCase, TurnEndCase};
use crate::verdict::{Decision, JudgeOutcome, Layer1, Verdict};
use serde::Serialize;
use std::collections::BTreeMap;

/// A ratio `num / den`, absent when `den` is 0.
pub fn ratio(num: usize, den: usize) -> Option<f64> {
    (den > 0).then(|| num as f64 / den as f64)
}

/// A case guard got wrong.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Wrong {
    /// The case id.
    pub id: String,
    /// What the label says.
    pub expected: String,
    /// What guard decided.
    pub got: String,
}

/// A confusion table and its figures.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Confusion {
    /// Blocked and labeled block.
    pub true_positives: usize,
    /// Blocked but labeled allow.
    pub false_positives: usize,
    /// Allowed but labeled block.
    pub false_negatives: usize,
    /// Allowed and labeled allow.
    pub true_negatives: usize,
    /// TP / (TP + FP).
    pub precision: Option<f64>,
    /// TP / (TP + FN).
    pub recall: Option<f64>,
    /// Harmonic mean of precision and recall.
    pub f1: Option<f64>,
    /// The false positives and false negatives.
    pub wrong: Vec<Wrong>,
    /// Cases with a failed judgment (the failure policy then decided).
    pub judge_failures: usize,
}

impl Confusion {
    /// Adds one case.
    pub fn add(&mut self, id: &str, labeled_block: bool, blocked: bool) {
        match (labeled_block, blocked) {
            (true, true) => self.true_positives += 1,
            (false, true) => self.false_positives += 1,
            (true, false) => self.false_negatives += 1,
            (false, false) => self.true_negatives += 1,
        }
        if labeled_block != blocked {
            let name = |b: bool| if b { "block" } else { "allow" }.to_string();
            self.wrong.push(Wrong {
                id: id.to_string(),
                expected: name(labeled_block),
                got: name(blocked),
            });
        }
    }

    /// Computes precision, recall and F1 from the counts.
    pub fn finish(&mut self) {
        self.precision = ratio(
            self.true_positives,
            self.true_positives + self.false_positives,
        );
        self.recall = ratio(
            self.true_positives,
            self.true_positives + self.false_negatives,
        );
        self.f1 = match (self.precision, self.recall) {
            (Some(p), Some(r)) if p + r > 0.0 => Some(2.0 * p * r / (p + r)),
            (Some(_), Some(_)) => Some(0.0),
            _ => None,
        };
    }
}

/// The figures of one turn-end detector.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct DetectorFigures {
    /// The detector.
    pub detector: String,
    /// `shadow` when it only logs.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mode: Option<String>,
    /// Cases labeled block for it.
    pub block_cases: usize,
    /// Of those, Layer-1 hits.
    pub layer1_hits: usize,
    /// Layer-1 recall.
    pub layer1_recall: Option<f64>,
    /// Block cases Layer 1 missed (no signal matched).
    pub layer1_missed: Vec<String>,
    /// Block cases a bypass let through.
    pub bypass_errors: Vec<String>,
    /// Cases not labeled block for it.
    pub other_cases: usize,
    /// Of those, cases it did not hit (nothing matched, or bypassed).
    pub passed_through: usize,
    /// Layer-1 pass-through.
    pub layer1_pass_through: Option<f64>,
    /// Other cases it hit (each costs a judge call).
    pub layer1_false_hits: Vec<String>,
    /// End to end with the judge (absent with `--no-judge`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub end_to_end: Option<Confusion>,
}

/// Figures of each turn-end detector, in `detectors` order, and of the
/// combined verdict (a case labeled block for any detector must be blocked).
pub fn turn_end(
    detectors: &[(String, Option<String>)],
    results: &[(&TurnEndCase, &Verdict)],
    judged: bool,
) -> (Vec<DetectorFigures>, Option<Confusion>) {
    let mut out = Vec::new();
    for (name, mode) in detectors {
        let mut f = DetectorFigures {
            detector: name.clone(),
            mode: mode.clone(),
            ..DetectorFigures::default()
        };
        let mut e2e = Confusion::default();
        for (case, verdict) in results {
            let report = verdict.detectors.iter().find(|d| &d.name == name);
            let layer1 = report.map(|r| r.layer1).unwrap_or(Layer1::Miss);
            let must_block = case.must_block.contains(name);
            if must_block {
                f.block_cases += 1;
                match layer1 {
                    Layer1::Hit => f.layer1_hits += 1,
                    Layer1::Bypass => f.bypass_errors.push(case.id.clone()),
                    Layer1::Miss => f.layer1_missed.push(case.id.clone()),
                }
            } else {
                f.other_cases += 1;
                if layer1 == Layer1::Hit {
                    f.layer1_false_hits.push(case.id.clone());
                } else {
                    f.passed_through += 1;
                }
            }
            if judged {
                let blocked = report.is_some_and(|r| r.verdict != Decision::Allow);
                e2e.add(&case.id, must_block, blocked);
                if report.is_some_and(|r| r.judge.outcome == JudgeOutcome::Fail) {
                    e2e.judge_failures += 1;
                }
            }
        }
        f.layer1_recall = ratio(f.layer1_hits, f.block_cases);
        f.layer1_pass_through = ratio(f.passed_through, f.other_cases);
        if judged {
            e2e.finish();
            f.end_to_end = Some(e2e);
        }
        out.push(f);
    }
    let overall = judged.then(|| {
        let mut c = Confusion::default();
        for (case, verdict) in results {
            c.add(
                &case.id,
                !case.must_block.is_empty(),
                verdict.decision != Decision::Allow,
            );
            if verdict
                .detectors
                .iter()
                .any(|d| d.judge.outcome == JudgeOutcome::Fail)
            {
                c.judge_failures += 1;
            }
        }
        c.finish();
        c
    });
    (out, overall)
}

/// Layer-1 figures per turn (see the module doc).
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct TurnFigures {
    /// Turns labeled block for some detector.
    pub block_turns: usize,
    /// Of those, turns the judge is asked about one of their block
    /// detectors: Layer 1 hit it, or it was joined to the turn's judgment.
    pub caught: usize,
    /// Of the caught turns, those only a whole-turn judgment caught (no
    /// block detector hit; another detector did).
    pub caught_joined: usize,
    /// caught / block_turns.
    pub recall: Option<f64>,
    /// Block turns no block detector hit (bypassed ones included).
    pub missed: Vec<String>,
    /// Block turns a bypass let through (a block detector bypassed, none hit).
    pub bypassed: Vec<String>,
    /// Turns with no labels.
    pub ordinary_turns: usize,
    /// Of those, turns where no detector hit.
    pub passed: usize,
    /// passed / ordinary_turns.
    pub pass_through: Option<f64>,
    /// Ordinary turns some detector hit (each waits for a judge).
    pub false_hits: Vec<String>,
}

/// Per-turn figures of `results`.
pub fn turns(results: &[(&TurnEndCase, &Verdict)]) -> TurnFigures {
    let mut t = TurnFigures::default();
    for (case, verdict) in results {
        let report = |name: &String| verdict.detectors.iter().find(|d| &d.name == name);
        let layer1 = |name: &String| report(name).map(|d| d.layer1).unwrap_or(Layer1::Miss);
        let joined = |name: &String| report(name).is_some_and(|d| d.joined);
        if case.must_block.is_empty() {
            t.ordinary_turns += 1;
            if verdict.detectors.iter().any(|d| d.layer1 == Layer1::Hit) {
                t.false_hits.push(case.id.clone());
            } else {
                t.passed += 1;
            }
        } else {
            t.block_turns += 1;
            if case.must_block.iter().any(|n| layer1(n) == Layer1::Hit) {
                t.caught += 1;
            } else if case.must_block.iter().any(joined) {
                t.caught += 1;
                t.caught_joined += 1;
            } else {
                t.missed.push(case.id.clone());
                if case.must_block.iter().any(|n| layer1(n) == Layer1::Bypass) {
                    t.bypassed.push(case.id.clone());
                }
            }
        }
    }
    t.recall = ratio(t.caught, t.block_turns);
    t.pass_through = ratio(t.passed, t.ordinary_turns);
    t
}

/// Per-turn figures of each language of `results`.
pub fn turns_by_lang(results: &[(&TurnEndCase, &Verdict)]) -> BTreeMap<String, TurnFigures> {
    let mut by: BTreeMap<String, Vec<(&TurnEndCase, &Verdict)>> = BTreeMap::new();
    for &(case, verdict) in results {
        by.entry(case.lang.clone())
            .or_default()
            .push((case, verdict));
    }
    by.into_iter().map(|(lang, r)| (lang, turns(&r))).collect()
}

/// The figures of a pre-tool corpus.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct GateFigures {
    /// Cases labeled deny.
    pub deny_cases: usize,
    /// Of those, denied.
    pub denied: usize,
    /// denied / deny_cases.
    pub deny_recall: Option<f64>,
    /// Cases labeled ask.
    pub ask_cases: usize,
    /// Of those, asked or denied.
    pub asked: usize,
    /// asked / ask_cases.
    pub ask_recall: Option<f64>,
    /// Cases labeled allow.
    pub allow_cases: usize,
    /// Of those, allowed.
    pub allowed: usize,
    /// allowed / allow_cases.
    pub pass_through: Option<f64>,
    /// Cases denied though labeled ask or allow.
    pub false_denies: Vec<String>,
    /// Every case whose decision differs from its label.
    pub wrong: Vec<Wrong>,
}

/// Figures of pre-tool cases from the combined verdicts.
pub fn gate(results: &[(&PreToolCase, &Verdict)]) -> GateFigures {
    let mut g = GateFigures::default();
    for (case, verdict) in results {
        let got = verdict.decision;
        match case.label {
            GateLabel::Deny => {
                g.deny_cases += 1;
                g.denied += usize::from(got == Decision::Deny);
            }
            GateLabel::Ask => {
                g.ask_cases += 1;
                g.asked += usize::from(matches!(got, Decision::Ask | Decision::Deny));
            }
            GateLabel::Allow => {
                g.allow_cases += 1;
                g.allowed += usize::from(got == Decision::Allow);
            }
        }
        if got == Decision::Deny && case.label != GateLabel::Deny {
            g.false_denies.push(case.id.clone());
        }
        if got.as_str() != case.label.as_str() {
            g.wrong.push(Wrong {
                id: case.id.clone(),
                expected: case.label.as_str().into(),
                got: got.as_str().into(),
            });
        }
    }
    g.deny_recall = ratio(g.denied, g.deny_cases);
    g.ask_recall = ratio(g.asked, g.ask_cases);
    g.pass_through = ratio(g.allowed, g.allow_cases);
    g
}
