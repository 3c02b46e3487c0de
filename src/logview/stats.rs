//! `guard stats`: per detector and agent, how often it applied, fired, asked
//! the judge, blocked and failed, how often the cache answered, and the
//! judge's latency (p50, p95); plus one `(hook)` row per agent with the
//! whole hook's latency, the paused decisions and the judge calls it made
//! (a call shared by several detectors counted once).

use super::Record;
use serde::Serialize;
use std::collections::BTreeMap;

/// The figures of one (detector, agent) pair.
#[derive(Debug, Clone, Default, Serialize, PartialEq)]
pub struct StatsRow {
    /// The detector, or `(hook)` for the whole hook.
    pub detector: String,
    /// The agent.
    pub agent: String,
    /// Decisions it applied to.
    pub events: u64,
    /// Layer-1 hits (bypassed ones excluded).
    pub layer1_hits: u64,
    /// Layer-1 hits a bypass cleared.
    pub bypasses: u64,
    /// Judgments asked of the backend (cache hits excluded); on `(hook)`
    /// rows, the backend calls made (one per shared call).
    pub judge_calls: u64,
    /// Of `judge_calls`, those made in one call with other detectors.
    pub shared_calls: u64,
    /// Judgments answered from the cache.
    pub cache_hits: u64,
    /// Decisions other than allow (shadow ones included).
    pub blocks: u64,
    /// Of `blocks`, those made in shadow mode (logged, not enforced).
    pub shadow_blocks: u64,
    /// Failed judgments.
    pub failures: u64,
    /// Judgments it joined because another detector hit the turn end
    /// (`judge.whole_turn`; its Layer 1 missed).
    pub joined: u64,
    /// Of `blocks`, those a joined judgment made.
    pub joined_blocks: u64,
    /// Median latency in ms (the judge's; the hook's on `(hook)` rows).
    pub p50_ms: Option<f64>,
    /// 95th percentile latency in ms.
    pub p95_ms: Option<f64>,
}

/// The `q` quantile (0..=1) of sorted values, nearest-rank.
pub fn quantile(sorted: &[f64], q: f64) -> Option<f64> {
    if sorted.is_empty() {
        return None;
    }
    let rank = (q * sorted.len() as f64).ceil().max(1.0) as usize;
    Some(sorted[rank.min(sorted.len()) - 1])
}

/// Computes the rows over decision records (pause and resume records are
/// ignored), sorted by detector then agent, `(hook)` rows last.
pub fn compute(records: &[Record]) -> Vec<StatsRow> {
    let mut rows: BTreeMap<(bool, String, String), (StatsRow, Vec<f64>)> = BTreeMap::new();
    for r in records.iter().filter(|r| !r.is_control()) {
        let hook = rows
            .entry((true, "(hook)".into(), r.agent.clone()))
            .or_insert_with(|| (row("(hook)", &r.agent), Vec::new()));
        hook.0.events += 1;
        if r.verdict.as_deref().is_some_and(|v| v != "allow") {
            hook.0.blocks += 1;
        }
        if let Some(ms) = r.latency_ms {
            hook.1.push(ms);
        }
        let (calls, shared) = backend_calls(r);
        hook.0.judge_calls += calls;
        hook.0.shared_calls += shared;
        for d in &r.detectors {
            let (s, lat) = rows
                .entry((false, d.name.clone(), r.agent.clone()))
                .or_insert_with(|| (row(&d.name, &r.agent), Vec::new()));
            s.events += 1;
            match d.layer1.as_str() {
                "hit" => s.layer1_hits += 1,
                "bypass" => s.bypasses += 1,
                _ => {}
            }
            if d.judged() {
                if d.judge.cache_hit {
                    s.cache_hits += 1;
                } else {
                    s.judge_calls += 1;
                    if !d.judge.shared_with.is_empty() {
                        s.shared_calls += 1;
                    }
                    if let Some(ms) = d.judge.latency_ms {
                        lat.push(ms as f64);
                    }
                }
            }
            if d.judge.outcome == "fail" {
                s.failures += 1;
            }
            if d.joined {
                s.joined += 1;
            }
            if !d.verdict.is_empty() && d.verdict != "allow" {
                s.blocks += 1;
                if d.is_shadow() {
                    s.shadow_blocks += 1;
                }
                if d.joined {
                    s.joined_blocks += 1;
                }
            }
        }
    }
    rows.into_values()
        .map(|(mut s, mut lat)| {
            lat.sort_by(f64::total_cmp);
            s.p50_ms = quantile(&lat, 0.5);
            s.p95_ms = quantile(&lat, 0.95);
            s
        })
        .collect()
}

/// The backend calls one decision made, and how many of them were shared:
/// a detector judged alone is one call; detectors sharing a call count once
/// (through the one whose name sorts first among them).
fn backend_calls(r: &Record) -> (u64, u64) {
    let mut calls = 0;
    let mut shared = 0;
    for d in r
        .detectors
        .iter()
        .filter(|d| d.judged() && !d.judge.cache_hit)
    {
        if d.judge.shared_with.is_empty() {
            calls += 1;
        } else if d.judge.shared_with.iter().all(|o| *o > d.name) {
            calls += 1;
            shared += 1;
        }
    }
    (calls, shared)
}

fn row(detector: &str, agent: &str) -> StatsRow {
    StatsRow {
        detector: detector.into(),
        agent: agent.into(),
        ..StatsRow::default()
    }
}

/// The rows as an aligned text table.
pub fn table(rows: &[StatsRow]) -> String {
    let ms = |v: Option<f64>| v.map(|v| format!("{v:.0}")).unwrap_or_else(|| "-".into());
    let header = [
        "detector", "agent", "events", "l1-hits", "bypass", "judge", "cache", "blocks", "shadow",
        "fails", "p50ms", "p95ms", "shared", "joined",
    ];
    let mut cells: Vec<Vec<String>> = vec![header.iter().map(|s| s.to_string()).collect()];
    for r in rows {
        cells.push(vec![
            r.detector.clone(),
            r.agent.clone(),
            r.events.to_string(),
            r.layer1_hits.to_string(),
            r.bypasses.to_string(),
            r.judge_calls.to_string(),
            r.cache_hits.to_string(),
            r.blocks.to_string(),
            r.shadow_blocks.to_string(),
            r.failures.to_string(),
            ms(r.p50_ms),
            ms(r.p95_ms),
            // Last, so the columns before them keep their places.
            r.shared_calls.to_string(),
            // Judgments joined with the turn, and the blocks they made.
            format!("{}/{}", r.joined, r.joined_blocks),
        ]);
    }
    aligned(&cells)
}

/// `cells` (a header row first) as aligned columns: the first two to the
/// left (names), the others to the right (figures).
pub fn aligned(cells: &[Vec<String>]) -> String {
    let columns = cells.first().map_or(0, Vec::len);
    let widths: Vec<usize> = (0..columns)
        .map(|i| {
            cells
                .iter()
                .map(|c| c[i].chars().count())
                .max()
                .unwrap_or(0)
        })
        .collect();
    let mut out = String::new();
    for c in cells {
        let line: Vec<String> = c
            .iter()
            .zip(&widths)
            .enumerate()
            .map(|(i, (v, w))| {
                if i < 2 {
                    format!("{v:<w$}")
                } else {
                    format!("{v:>w$}")
                }
            })
            .collect();
        out.push_str(line.join("  ").trim_end());
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn rec(v: serde_json::Value) -> Record {
        serde_json::from_value(v).unwrap()
    }

    #[test]
    fn counts_and_latency_quantiles_per_detector_and_agent() {
        let mut records = Vec::new();
        for (i, ms) in [100u64, 200, 300, 400].iter().enumerate() {
            records.push(rec(json!({"agent": "codex", "event": "stop", "verdict": if i == 0 {"block"} else {"allow"}, "latency_ms": *ms as f64 + 5.0,
                "detectors": [{"name": "c", "layer1": "hit", "verdict": if i == 0 {"block"} else {"allow"},
                               "judge": {"outcome": if i == 3 {"fail"} else {"allow"}, "latency_ms": ms, "cache_hit": i == 2}}]})));
        }
        records.push(rec(json!({"agent": "codex", "event": "stop", "verdict": "allow",
            "detectors": [{"name": "c", "layer1": "bypass", "verdict": "allow", "judge": {"outcome": "skipped"}},
                          {"name": "s", "layer1": "hit", "verdict": "block", "mode": "shadow", "judge": {"outcome": "violation", "latency_ms": 50}}]})));
        records.push(rec(json!({"agent": "*", "event": "pause"})));
        let rows = compute(&records);
        let c = rows.iter().find(|r| r.detector == "c").unwrap();
        assert_eq!(
            (
                c.events,
                c.layer1_hits,
                c.bypasses,
                c.judge_calls,
                c.cache_hits,
                c.blocks,
                c.failures
            ),
            (5, 4, 1, 3, 1, 1, 1)
        );
        assert_eq!((c.p50_ms, c.p95_ms), (Some(200.0), Some(400.0)));
        let s = rows.iter().find(|r| r.detector == "s").unwrap();
        assert_eq!((s.blocks, s.shadow_blocks), (1, 1));
        let hook = rows.last().unwrap();
        assert_eq!(
            (hook.detector.as_str(), hook.events, hook.blocks),
            ("(hook)", 5, 1)
        );
        assert_eq!(hook.p50_ms, Some(205.0));
        assert!(!rows.iter().any(|r| r.agent == "*"));
    }

    #[test]
    fn a_shared_call_counts_once_for_the_hook() {
        let shared = |name: &str, other: &str| {
            json!({"name": name, "layer1": "hit", "verdict": "allow",
                   "judge": {"outcome": "allow", "latency_ms": 9, "shared_with": [other]}})
        };
        let records = vec![
            rec(
                json!({"agent": "codex", "event": "stop", "verdict": "allow",
                "detectors": [shared("b", "a"), shared("a", "b"),
                              {"name": "c", "layer1": "hit", "verdict": "allow", "judge": {"outcome": "allow"}}]}),
            ),
            // An older record, without `shared_with`: one call per detector.
            rec(
                json!({"agent": "codex", "event": "stop", "verdict": "allow",
                "detectors": [{"name": "a", "layer1": "hit", "verdict": "allow", "judge": {"outcome": "allow"}}]}),
            ),
        ];
        let rows = compute(&records);
        let a = rows.iter().find(|r| r.detector == "a").unwrap();
        assert_eq!((a.judge_calls, a.shared_calls), (2, 1));
        let hook = rows.last().unwrap();
        assert_eq!((hook.judge_calls, hook.shared_calls), (3, 1));
        assert!(table(&rows).contains("shared"));
    }

    #[test]
    fn joined_judgments_and_their_blocks_are_counted_apart() {
        let joined = |verdict: &str, outcome: &str| {
            json!({"name": "j", "layer1": "miss", "joined": true, "verdict": verdict,
                   "judge": {"outcome": outcome, "shared_with": ["h"]}})
        };
        let hit = json!({"name": "h", "layer1": "hit", "verdict": "block",
                         "judge": {"outcome": "violation", "shared_with": ["j"]}});
        let records = vec![
            rec(
                json!({"agent": "codex", "event": "stop", "verdict": "block",
                       "detectors": [hit.clone(), joined("block", "violation")]}),
            ),
            rec(
                json!({"agent": "codex", "event": "stop", "verdict": "block",
                       "detectors": [hit, joined("allow", "allow")]}),
            ),
        ];
        let rows = compute(&records);
        let j = rows.iter().find(|r| r.detector == "j").unwrap();
        assert_eq!(
            (
                j.layer1_hits,
                j.judge_calls,
                j.joined,
                j.blocks,
                j.joined_blocks
            ),
            (0, 2, 2, 1, 1)
        );
        let h = rows.iter().find(|r| r.detector == "h").unwrap();
        assert_eq!((h.joined, h.joined_blocks, h.blocks), (0, 0, 2));
        let table = table(&rows);
        let line = table.lines().find(|l| l.starts_with("j ")).unwrap();
        assert!(line.ends_with("2/1"), "{table}");
    }

    #[test]
    fn nearest_rank_quantiles() {
        let v: Vec<f64> = (1..=20).map(f64::from).collect();
        assert_eq!(quantile(&v, 0.5), Some(10.0));
        assert_eq!(quantile(&v, 0.95), Some(19.0));
        assert_eq!(quantile(&[7.0], 0.95), Some(7.0));
        assert_eq!(quantile(&[], 0.5), None);
    }
}
