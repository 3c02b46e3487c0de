//! Human labels on logged decisions (`guard label ID block|allow|deny|ask`),
//! appended to `<state dir>/labels.jsonl`, and the corpus they make with the
//! decisions' kept text (`guard eval --from-log`). The latest label of a
//! decision wins.

use super::corpus::{Case, GateLabel, PreToolCase, TurnEndCase};
use crate::logview::Record;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::io::Write;
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};

/// One human label.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LabelRecord {
    /// When it was given (RFC 3339 UTC).
    pub ts: String,
    /// The labeled decision.
    pub decision_id: String,
    /// `block` or `allow` (turn ends), `deny`, `ask` or `allow` (gates).
    pub label: String,
    /// The decision's event kind.
    pub event: String,
    /// For `block`: the detectors that must block.
    #[serde(default)]
    pub detectors: Vec<String>,
}

/// A label that cannot be recorded.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum LabelError {
    /// No decision has this id in the log.
    #[error("no decision `{0}` in the decision log")]
    NotFound(String),
    /// The label does not fit the decision's event kind.
    #[error("`{label}` does not fit a `{event}` decision (turn ends take block or allow; pre_tool takes deny, ask or allow)")]
    Mismatch {
        /// The label given.
        label: String,
        /// The decision's event kind.
        event: String,
    },
    /// Which detector must block is not clear from the decision.
    #[error(
        "say which detector must block with --detector (the decision's detectors that fired: {0})"
    )]
    WhichDetector(String),
    /// The labels file cannot be written.
    #[error("cannot write {path}: {message}")]
    Io {
        /// The labels file.
        path: String,
        /// The error.
        message: String,
    },
}

/// The labels file.
pub fn labels_path(state_dir: &Path) -> PathBuf {
    state_dir.join("labels.jsonl")
}

fn is_turn_end(event: &str) -> bool {
    matches!(event, "stop" | "subagent_stop")
}

/// Builds the label of decision `id` (found in `records`); for `block`, the
/// detectors are `detector` when given, else those that did not allow, else
/// the single one that fired.
pub fn make(
    records: &[Record],
    id: &str,
    label: &str,
    detector: Option<&str>,
) -> Result<LabelRecord, LabelError> {
    let rec = records
        .iter()
        .rev()
        .find(|r| r.id == id && !r.is_control())
        .ok_or_else(|| LabelError::NotFound(id.to_string()))?;
    let fits = if is_turn_end(&rec.event) {
        matches!(label, "block" | "allow")
    } else {
        matches!(label, "deny" | "ask" | "allow")
    };
    if !fits {
        return Err(LabelError::Mismatch {
            label: label.to_string(),
            event: rec.event.clone(),
        });
    }
    let detectors = if label != "block" {
        Vec::new()
    } else if let Some(d) = detector {
        vec![d.to_string()]
    } else {
        let decided: Vec<String> = rec
            .detectors
            .iter()
            .filter(|d| d.verdict != "allow" && !d.verdict.is_empty())
            .map(|d| d.name.clone())
            .collect();
        let fired: Vec<String> = rec
            .detectors
            .iter()
            .filter(|d| d.fired())
            .map(|d| d.name.clone())
            .collect();
        match (decided.is_empty(), fired.len()) {
            (false, _) => decided,
            (true, 1) => fired,
            _ => {
                return Err(LabelError::WhichDetector(if fired.is_empty() {
                    "none".into()
                } else {
                    fired.join(", ")
                }))
            }
        }
    };
    let (ts, _) = crate::log::now_rfc3339();
    Ok(LabelRecord {
        ts,
        decision_id: id.to_string(),
        label: label.to_string(),
        event: rec.event.clone(),
        detectors,
    })
}

/// Appends a label to the labels file (one line, one write).
pub fn append(state_dir: &Path, label: &LabelRecord) -> Result<(), LabelError> {
    let path = labels_path(state_dir);
    let io = |e: std::io::Error| LabelError::Io {
        path: path.display().to_string(),
        message: e.to_string(),
    };
    std::fs::create_dir_all(state_dir).map_err(io)?;
    let mut line = serde_json::to_vec(label).map_err(|e| io(std::io::Error::other(e)))?;
    line.push(b'\n');
    let mut f = std::fs::OpenOptions::new()
        .append(true)
        .create(true)
        .mode(0o600)
        .open(&path)
        .map_err(io)?;
    f.write_all(&line).map_err(io)
}

/// The latest label of each decision, by decision id.
pub fn read(state_dir: &Path) -> BTreeMap<String, LabelRecord> {
    let text = std::fs::read_to_string(labels_path(state_dir)).unwrap_or_default();
    let mut out = BTreeMap::new();
    for l in text
        .lines()
        .filter_map(|l| serde_json::from_str::<LabelRecord>(l).ok())
    {
        out.insert(l.decision_id.clone(), l);
    }
    out
}

/// Turns labeled decisions into corpus cases. Decisions whose text was not
/// kept (or missing from the log, or of other kinds) are skipped; returns
/// the cases and the number skipped.
pub fn corpus(records: &[Record], labels: &BTreeMap<String, LabelRecord>) -> (Vec<Case>, usize) {
    let mut cases = Vec::new();
    let mut skipped = 0;
    for (id, label) in labels {
        let Some(rec) = records.iter().rev().find(|r| &r.id == id) else {
            skipped += 1;
            continue;
        };
        let note = Some(format!("labeled {} at {}", label.label, label.ts));
        if is_turn_end(&rec.event) {
            let Some(text) = rec.text.clone() else {
                skipped += 1;
                continue;
            };
            let must_block = if label.label == "block" {
                label.detectors.clone()
            } else {
                Vec::new()
            };
            cases.push(Case::TurnEnd(TurnEndCase {
                id: id.clone(),
                lang: "und".into(),
                text,
                must_block,
                note,
                source: None,
                agent: None,
                ambiguous: false,
                actions: Vec::new(),
                prompt: None,
            }));
        } else {
            let gate = match label.label.as_str() {
                "deny" => GateLabel::Deny,
                "ask" => GateLabel::Ask,
                _ => GateLabel::Allow,
            };
            match rec.command.clone() {
                Some(command) if rec.event == "pre_tool" => {
                    cases.push(Case::PreTool(PreToolCase {
                        id: id.clone(),
                        command,
                        label: gate,
                        note,
                    }))
                }
                _ => skipped += 1,
            }
        }
    }
    (cases, skipped)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn records() -> Vec<Record> {
        [
            json!({"id": "a", "event": "stop", "verdict": "block", "text": "commit now?",
                   "detectors": [{"name": "commit", "layer1": "hit", "verdict": "block"}, {"name": "scope", "layer1": "hit", "verdict": "allow"}]}),
            json!({"id": "b", "event": "stop", "verdict": "allow", "text": "t",
                   "detectors": [{"name": "commit", "layer1": "hit", "verdict": "allow"}, {"name": "scope", "layer1": "hit", "verdict": "allow"}]}),
            json!({"id": "c", "event": "pre_tool", "verdict": "ask", "command": "rm -rf build"}),
            json!({"id": "d", "event": "stop", "verdict": "allow"}),
        ]
        .into_iter()
        .map(|v| serde_json::from_value(v).unwrap())
        .collect()
    }

    #[test]
    fn block_labels_name_the_deciding_detectors_or_ask_which() {
        let r = records();
        assert_eq!(make(&r, "a", "block", None).unwrap().detectors, ["commit"]);
        assert_eq!(
            make(&r, "b", "block", None),
            Err(LabelError::WhichDetector("commit, scope".into()))
        );
        assert_eq!(
            make(&r, "b", "block", Some("scope")).unwrap().detectors,
            ["scope"]
        );
        assert!(matches!(
            make(&r, "c", "block", None),
            Err(LabelError::Mismatch { .. })
        ));
        assert!(matches!(
            make(&r, "zz", "allow", None),
            Err(LabelError::NotFound(_))
        ));
    }

    #[test]
    fn labeled_decisions_with_text_become_cases_latest_label_wins() {
        let dir = tempfile::tempdir().unwrap();
        let r = records();
        append(dir.path(), &make(&r, "a", "allow", None).unwrap()).unwrap();
        append(dir.path(), &make(&r, "a", "block", None).unwrap()).unwrap();
        append(dir.path(), &make(&r, "c", "deny", None).unwrap()).unwrap();
        append(dir.path(), &make(&r, "d", "allow", None).unwrap()).unwrap();
        let labels = read(dir.path());
        let (cases, skipped) = corpus(&r, &labels);
        assert_eq!(skipped, 1, "d kept no text");
        let Case::TurnEnd(a) = &cases[0] else {
            panic!()
        };
        assert_eq!(
            (a.text.as_str(), a.must_block.clone()),
            ("commit now?", vec!["commit".to_string()])
        );
        let Case::PreTool(c) = &cases[1] else {
            panic!()
        };
        assert_eq!(
            (c.command.as_str(), c.label),
            ("rm -rf build", GateLabel::Deny)
        );
    }
}
