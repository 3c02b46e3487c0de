//! What each Layer-1 signal costs and buys (`guard eval --by-signal`).
//!
//! The per-turn figures say how many ordinary turns wait for a judge and how
//! many violations reach one; they do not say which signal is behind each.
//! Here every signal (a detector's regex signal, or `action:<rule>` for an
//! action rule) is counted on the turns Layer 1 sent to the judge:
//! - an ordinary turn (no labels) counts for each signal that hit it, and
//!   *alone* for the only one when a single signal hit it: without that
//!   signal the turn would pass;
//! - a block turn counts for each signal that catches it (see
//!   [`super::metrics`]: a hit of a detector it must block on or, when the
//!   turn's judgment joins every detector, any hit), and *alone* for the only
//!   one: without it the turn would be missed.
//!
//! A signal with many ordinary turns alone and no block turn alone costs
//! judge calls and buys nothing on that corpus. The tally is kept for tuning
//! parts only: per-signal counts on a held-out part would tell which signals
//! to change, which makes its cases tuning material.

use super::corpus::TurnEndCase;
use crate::verdict::{Layer1, Verdict, NO_SIGNAL};
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet};

/// One signal's counts (see the module doc).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct SignalFigures {
    /// The detector the signal belongs to.
    pub detector: String,
    /// The signal's id (`action:<rule>` for an action rule).
    pub signal: String,
    /// Ordinary turns it sent to the judge.
    pub ordinary_turns: usize,
    /// Of those, turns no other signal sent.
    pub ordinary_turns_alone: usize,
    /// Block turns it caught.
    pub block_turns: usize,
    /// Of those, turns no other signal caught.
    pub block_turns_alone: usize,
}

/// Per-signal counts that add up across corpus parts.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SignalTally(BTreeMap<(String, String), SignalFigures>);

impl SignalTally {
    /// The tally of `results`.
    pub fn of(results: &[(&TurnEndCase, &Verdict)]) -> SignalTally {
        let mut tally = SignalTally::default();
        for (case, verdict) in results {
            tally.add(case, verdict);
        }
        tally
    }

    fn add(&mut self, case: &TurnEndCase, verdict: &Verdict) {
        let hit = verdict.detectors.iter().filter(|d| d.layer1 == Layer1::Hit);
        // When the turn's judgment joins every detector, any hit catches it.
        let joins = verdict.detectors.iter().any(|d| d.joined);
        let counted: BTreeSet<(&str, &str)> = hit
            .filter(|d| case.must_block.is_empty() || joins || case.must_block.contains(&d.name))
            .flat_map(|d| {
                // A hit reported with no signal still sends the turn.
                let ids: Vec<&str> = match d.signals.is_empty() {
                    true => vec![NO_SIGNAL],
                    false => d.signals.iter().map(String::as_str).collect(),
                };
                ids.into_iter().map(|s| (d.name.as_str(), s))
            })
            .collect();
        let alone = counted.len() == 1;
        for (detector, signal) in counted {
            let f = self.row(detector, signal);
            match case.must_block.is_empty() {
                true => {
                    f.ordinary_turns += 1;
                    f.ordinary_turns_alone += usize::from(alone);
                }
                false => {
                    f.block_turns += 1;
                    f.block_turns_alone += usize::from(alone);
                }
            }
        }
    }

    fn row(&mut self, detector: &str, signal: &str) -> &mut SignalFigures {
        let key = (detector.to_owned(), signal.to_owned());
        self.0.entry(key).or_insert_with(|| SignalFigures {
            detector: detector.to_owned(),
            signal: signal.to_owned(),
            ..SignalFigures::default()
        })
    }

    /// Adds another part's tally to this one.
    pub fn merge(&mut self, other: &SignalTally) {
        for o in other.0.values() {
            let f = self.row(&o.detector, &o.signal);
            f.ordinary_turns += o.ordinary_turns;
            f.ordinary_turns_alone += o.ordinary_turns_alone;
            f.block_turns += o.block_turns;
            f.block_turns_alone += o.block_turns_alone;
        }
    }

    /// The signals, costliest first: most ordinary turns sent alone, then
    /// fewest block turns caught alone, then by name.
    pub fn figures(&self) -> Vec<SignalFigures> {
        let mut out: Vec<SignalFigures> = self.0.values().cloned().collect();
        out.sort_by(|a, b| {
            (b.ordinary_turns_alone.cmp(&a.ordinary_turns_alone))
                .then(a.block_turns_alone.cmp(&b.block_turns_alone))
                .then(b.ordinary_turns.cmp(&a.ordinary_turns))
                .then((&a.detector, &a.signal).cmp(&(&b.detector, &b.signal)))
        });
        out
    }
}

/// The text table of `figures` (`guard eval --by-signal`).
pub fn text(figures: &[SignalFigures], parts: usize) -> String {
    let mut out = format!(
        "\nper signal, over the {parts} tuning part(s): the turns it sends to the judge (\"alone\": no other signal does)\n"
    );
    out.push_str("  ordinary (alone)  block (alone)  detector / signal\n");
    for f in figures {
        out.push_str(&format!(
            "  {:>8} {:>7}  {:>5} {:>7}  {} / {}\n",
            f.ordinary_turns,
            format!("({})", f.ordinary_turns_alone),
            f.block_turns,
            format!("({})", f.block_turns_alone),
            f.detector,
            f.signal
        ));
    }
    out
}

#[cfg(test)]
#[path = "signals_tests.rs"]
mod tests;
