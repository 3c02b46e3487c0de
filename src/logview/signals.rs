//! `guard stats --by-signal`: per Layer-1 signal, on the user's own
//! decisions, how often it sent a decision to the judge and what the judge
//! found. `guard eval --by-signal` counts the same on a labeled corpus; here
//! the judge's answer stands in for the label, so a signal whose hits the
//! judge nearly always allows is one that costs the user a judge call for
//! little on their own traffic.
//!
//! A decision counts for each (detector, signal) that hit it (a hit that
//! names no signal, under `gate: keywords`, as [`NO_SIGNAL`]), and *alone*
//! for the only one when a single signal hit it: without that signal the
//! decision would not have been judged.

use super::stats::aligned;
use super::Record;
use crate::verdict::NO_SIGNAL;
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet};

/// One signal's figures.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct SignalUse {
    /// The detector.
    pub detector: String,
    /// The signal's id (`action:<rule>` for an action rule).
    pub signal: String,
    /// Decisions it hit (its detector's Layer 1 hit with it).
    pub hits: u64,
    /// Of those, decisions no other signal hit.
    pub alone: u64,
    /// Of `hits`, decisions where the judge found its detector's violation.
    pub violations: u64,
    /// Of `hits`, decisions where the judge allowed its detector.
    pub allowed: u64,
}

/// The signals' figures over decision records (pause and resume records
/// are ignored), most hits first.
pub fn compute(records: &[Record]) -> Vec<SignalUse> {
    let mut by: BTreeMap<(&str, &str), SignalUse> = BTreeMap::new();
    for r in records.iter().filter(|r| !r.is_control()) {
        let hits: BTreeSet<(&str, &str, &str)> = (r.detectors.iter())
            .filter(|d| d.layer1 == "hit")
            .flat_map(|d| {
                let outcome = d.judge.outcome.as_str();
                let ids: Vec<&str> = match d.signals.is_empty() {
                    true => vec![NO_SIGNAL],
                    false => d.signals.iter().map(String::as_str).collect(),
                };
                ids.into_iter().map(move |s| (d.name.as_str(), s, outcome))
            })
            .collect();
        let alone = hits.len() == 1;
        for (detector, signal, outcome) in hits {
            let u = by.entry((detector, signal)).or_insert_with(|| SignalUse {
                detector: detector.to_owned(),
                signal: signal.to_owned(),
                ..SignalUse::default()
            });
            u.hits += 1;
            u.alone += u64::from(alone);
            u.violations += u64::from(outcome == "violation");
            u.allowed += u64::from(outcome == "allow");
        }
    }
    let mut out: Vec<SignalUse> = by.into_values().collect();
    out.sort_by(|a, b| b.hits.cmp(&a.hits).then(b.alone.cmp(&a.alone)));
    out
}

/// The figures as an aligned text table.
pub fn table(rows: &[SignalUse]) -> String {
    let header = [
        "detector",
        "signal",
        "hits",
        "alone",
        "violations",
        "allowed",
    ];
    let mut cells: Vec<Vec<String>> = vec![header.iter().map(|s| s.to_string()).collect()];
    for u in rows {
        cells.push(vec![
            u.detector.clone(),
            u.signal.clone(),
            u.hits.to_string(),
            u.alone.to_string(),
            u.violations.to_string(),
            u.allowed.to_string(),
        ]);
    }
    aligned(&cells)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn rec(detectors: serde_json::Value) -> Record {
        let v = json!({"id": "x", "ts": "2026-12-07T10:00:00Z", "agent": "claude-code",
                       "event": "stop", "verdict": "allow", "detectors": detectors});
        serde_json::from_value(v).unwrap()
    }

    fn hit(name: &str, signals: &[&str], outcome: &str) -> serde_json::Value {
        json!({"name": name, "layer1": "hit", "signals": signals,
               "judge": {"outcome": outcome}, "verdict": "allow"})
    }

    #[test]
    fn each_signal_counts_its_hits_what_the_judge_found_and_where_it_was_alone() {
        let records = [
            rec(json!([hit("a", &["x"], "allow")])),
            rec(json!([hit("a", &["x", "y"], "violation")])),
            rec(json!([
                hit("a", &["x"], "violation"),
                hit("b", &["z"], "allow")
            ])),
            // A bypassed detector's signals sent nothing to the judge.
            rec(json!([{"name": "b", "layer1": "bypass", "signals": ["z"]}])),
            // A keyword hit names no signal.
            rec(json!([hit("k", &[], "allow")])),
            // A pause record is no decision.
            serde_json::from_value(json!({"id": "p", "ts": "t", "agent": "*", "event": "pause"}))
                .unwrap(),
        ];
        let rows = compute(&records);
        let row = |s: &str| rows.iter().find(|u| u.signal == s).unwrap();
        let figures = |u: &SignalUse| (u.hits, u.alone, u.violations, u.allowed);
        assert_eq!(figures(row("x")), (3, 1, 2, 1));
        assert_eq!(figures(row("y")), (1, 0, 1, 0));
        assert_eq!(figures(row("z")), (1, 0, 0, 1));
        assert_eq!(figures(row(NO_SIGNAL)), (1, 1, 0, 1));
        assert_eq!(rows[0].signal, "x", "most hits first");
        let text = table(&rows);
        let header: Vec<&str> = text.lines().next().unwrap().split_whitespace().collect();
        assert_eq!(
            header,
            [
                "detector",
                "signal",
                "hits",
                "alone",
                "violations",
                "allowed"
            ]
        );
        let first: Vec<&str> = text.lines().nth(1).unwrap().split_whitespace().collect();
        assert_eq!(first, ["a", "x", "3", "1", "2", "1"], "{text}");
    }
}
