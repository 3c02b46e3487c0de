//! The evaluation corpus: a YAML list of labeled cases (format in
//! `docs/eval.md`). A turn-end case holds an assistant text and the
//! detectors that must block it (and, for real traffic and the held-out
//! sets, where it came from and what the turn did); a pre-tool case holds a
//! shell command and the decision it must get.

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// One labeled case.
#[derive(Debug, Clone, PartialEq)]
pub enum Case {
    /// An assistant text at a turn end.
    TurnEnd(TurnEndCase),
    /// A shell command about to run.
    PreTool(PreToolCase),
}

impl Case {
    /// The case's id.
    pub fn id(&self) -> &str {
        match self {
            Case::TurnEnd(c) => &c.id,
            Case::PreTool(c) => &c.id,
        }
    }
}

/// A turn-end case.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TurnEndCase {
    /// Unique id.
    pub id: String,
    /// Language code of the text (`en`, `es`, …).
    pub lang: String,
    /// The assistant's text.
    pub text: String,
    /// The detectors that must block; every other detector must allow.
    pub must_block: Vec<String>,
    /// Why the case is labeled so.
    pub note: Option<String>,
    /// Where a real text comes from (`github:owner/repo path (commit) turn N`).
    pub source: Option<String>,
    /// The agent that wrote it (`claude-code`, `cursor`, …).
    pub agent: Option<String>,
    /// The label is a judgment call.
    pub ambiguous: bool,
    /// What the turn did, in order: `guard eval` gives it to the event as
    /// the turn's actions (Layer 1's action rules, the judge's facts block).
    pub actions: Vec<Action>,
    /// The user's message that started the turn, when known: `guard eval`
    /// gives it to the event as the transcript reader would (the request
    /// bypasses, the judge's facts block).
    pub prompt: Option<String>,
}

/// One thing a turn did: `{kind: edit, path}` (or `write`, `delete`),
/// `{kind: command, command, exit?, output?}` (`output`: the end of what it
/// printed, as the export shows it), `{kind: tool, name, path?, exit?}` (an
/// agent's other tools; MCP tools that ship, check or edit count),
/// `{kind: plan, items: [{text, status}]}` (the agent's todo list as it
/// wrote it then, whole). Other
/// kinds and keys are accepted and ignored, so that a corpus written for a
/// later reader still loads.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Action {
    /// `edit`, `command`, …
    pub kind: String,
    /// The tool, for a `tool` action (`mcp__github__push_files`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// The file an edit touched.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    /// The command line that ran.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub command: Option<String>,
    /// Its exit status, when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exit: Option<i64>,
    /// The end of a command's output, when the export shows it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output: Option<String>,
    /// The steps of a `plan`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub items: Vec<PlanItem>,
}

/// One step of a `plan` action.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PlanItem {
    /// What the step is.
    pub text: String,
    /// `pending`, `in_progress`, `completed` or `cancelled`.
    pub status: String,
}

/// The decision a pre-tool case must get.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum GateLabel {
    /// Refuse the command.
    Deny,
    /// Ask the human.
    Ask,
    /// Let it run.
    Allow,
}

impl GateLabel {
    /// The lowercase name.
    pub fn as_str(self) -> &'static str {
        match self {
            GateLabel::Deny => "deny",
            GateLabel::Ask => "ask",
            GateLabel::Allow => "allow",
        }
    }
}

/// A pre-tool case.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PreToolCase {
    /// Unique id.
    pub id: String,
    /// The shell command line.
    pub command: String,
    /// The decision it must get.
    pub label: GateLabel,
    /// Why the case is labeled so.
    pub note: Option<String>,
}

/// A per-detector label of a turn-end case.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
enum DetectorLabel {
    Block,
    Allow,
}

/// A case as written, before it is sorted into a kind.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawCase {
    id: String,
    #[serde(default)]
    lang: Option<String>,
    #[serde(default)]
    text: Option<String>,
    #[serde(default)]
    labels: Option<BTreeMap<String, DetectorLabel>>,
    #[serde(default)]
    command: Option<String>,
    #[serde(default)]
    label: Option<GateLabel>,
    #[serde(default)]
    note: Option<String>,
    #[serde(default)]
    source: Option<String>,
    #[serde(default)]
    agent: Option<String>,
    #[serde(default)]
    ambiguous: Option<bool>,
    #[serde(default)]
    actions: Option<Vec<Action>>,
    #[serde(default)]
    prompt: Option<String>,
}

/// A corpus that cannot be used.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum CorpusError {
    /// The YAML does not parse or a case has unknown or mistyped keys.
    #[error("{source_name}{}: {message}", loc(*.line, *.column))]
    Parse {
        /// The corpus file.
        source_name: String,
        /// 1-based line.
        line: Option<u64>,
        /// 1-based column.
        column: Option<u64>,
        /// What is wrong.
        message: String,
    },
    /// A case is neither a complete turn-end case nor a pre-tool case.
    #[error("{source_name}: case `{id}`: {message}")]
    Case {
        /// The corpus file.
        source_name: String,
        /// The case's id.
        id: String,
        /// What is wrong.
        message: String,
    },
}

fn loc(line: Option<u64>, column: Option<u64>) -> String {
    match (line, column) {
        (Some(l), Some(c)) => format!(":{l}:{c}"),
        _ => String::new(),
    }
}

/// Parses a corpus; ids must be unique.
pub fn parse(source_name: &str, text: &str) -> Result<Vec<Case>, CorpusError> {
    let raw: Vec<RawCase> = serde_saphyr::from_str(text).map_err(|e| {
        let l = e.location();
        CorpusError::Parse {
            source_name: source_name.to_string(),
            line: l.map(|l| l.line()),
            column: l.map(|l| l.column()),
            message: e.to_string().lines().next().unwrap_or_default().to_string(),
        }
    })?;
    let mut cases = Vec::with_capacity(raw.len());
    let mut seen = std::collections::HashSet::new();
    for r in raw {
        let bad = |message: &str| CorpusError::Case {
            source_name: source_name.to_string(),
            id: r.id.clone(),
            message: message.to_string(),
        };
        if r.id.trim().is_empty() {
            return Err(bad("the id is empty"));
        }
        if !seen.insert(r.id.clone()) {
            return Err(bad("the id is used twice"));
        }
        let case = match (&r.text, &r.command) {
            (Some(_), Some(_)) => {
                return Err(bad(
                    "give `text` (a turn-end case) or `command` (a pre-tool case), not both",
                ))
            }
            (None, None) => {
                return Err(bad(
                    "give `text` (a turn-end case) or `command` (a pre-tool case)",
                ))
            }
            (Some(text), None) => {
                if r.label.is_some() {
                    return Err(bad(
                        "a turn-end case takes `labels:` (detector: block), not `label:`",
                    ));
                }
                let lang = r
                    .lang
                    .clone()
                    .ok_or_else(|| bad("a turn-end case needs `lang`"))?;
                let must_block = r
                    .labels
                    .iter()
                    .flatten()
                    .filter(|(_, l)| **l == DetectorLabel::Block)
                    .map(|(n, _)| n.clone())
                    .collect();
                Case::TurnEnd(TurnEndCase {
                    id: r.id.clone(),
                    lang,
                    text: text.clone(),
                    must_block,
                    note: r.note.clone(),
                    source: r.source.clone(),
                    agent: r.agent.clone(),
                    ambiguous: r.ambiguous.unwrap_or(false),
                    actions: r.actions.clone().unwrap_or_default(),
                    prompt: r.prompt.clone(),
                })
            }
            (None, Some(command)) => {
                if r.labels.is_some() || r.lang.is_some() {
                    return Err(bad("a pre-tool case takes `label:` (deny, ask or allow), not `labels:` or `lang:`"));
                }
                if r.actions.is_some() || r.agent.is_some() || r.prompt.is_some() {
                    return Err(bad(
                        "`actions`, `agent` and `prompt` belong to turn-end cases (give `text`)",
                    ));
                }
                let label = r
                    .label
                    .ok_or_else(|| bad("a pre-tool case needs `label` (deny, ask or allow)"))?;
                Case::PreTool(PreToolCase {
                    id: r.id.clone(),
                    command: command.clone(),
                    label,
                    note: r.note.clone(),
                })
            }
        };
        cases.push(case);
    }
    Ok(cases)
}

/// Writes cases back as a corpus (YAML), e.g. for `guard eval --from-log --emit-corpus`.
pub fn to_yaml(cases: &[Case]) -> String {
    let mut out = String::new();
    for c in cases {
        match c {
            Case::TurnEnd(t) => {
                out.push_str(&format!(
                    "- id: {}\n  lang: {}\n  text: {}\n",
                    quote(&t.id),
                    quote(&t.lang),
                    quote(&t.text)
                ));
                if t.must_block.is_empty() {
                    out.push_str("  labels: {}\n");
                } else {
                    out.push_str("  labels:\n");
                    for d in &t.must_block {
                        out.push_str(&format!("    {}: block\n", quote(d)));
                    }
                }
                if let Some(n) = &t.note {
                    out.push_str(&format!("  note: {}\n", quote(n)));
                }
                if let Some(s) = &t.source {
                    out.push_str(&format!("  source: {}\n", quote(s)));
                }
                if let Some(a) = &t.agent {
                    out.push_str(&format!("  agent: {}\n", quote(a)));
                }
                if t.ambiguous {
                    out.push_str("  ambiguous: true\n");
                }
                if let Some(p) = &t.prompt {
                    out.push_str(&format!("  prompt: {}\n", quote(p)));
                }
                if !t.actions.is_empty() {
                    out.push_str("  actions:\n");
                    for a in &t.actions {
                        let json = serde_json::to_string(a).unwrap_or_else(|_| "{}".into());
                        out.push_str(&format!("    - {json}\n"));
                    }
                }
            }
            Case::PreTool(p) => {
                out.push_str(&format!(
                    "- id: {}\n  command: {}\n  label: {}\n",
                    quote(&p.id),
                    quote(&p.command),
                    p.label.as_str()
                ));
                if let Some(n) = &p.note {
                    out.push_str(&format!("  note: {}\n", quote(n)));
                }
            }
        }
    }
    out
}

/// A YAML double-quoted scalar (JSON string syntax is valid YAML).
fn quote(s: &str) -> String {
    serde_json::to_string(s).unwrap_or_else(|_| "\"\"".into())
}

#[cfg(test)]
#[path = "corpus_tests.rs"]
mod tests;
