//! `guard replay`: reruns logged decisions against the current config (or
//! another one) and lists the decisions that flip. A record is replayable
//! when `log.keep_text` kept its subject (and, for tool events, its command
//! or tool); others are skipped and counted.
//!
//! The "before" decision is recomputed from the logged detector reports (the
//! strictest enforced one), so that the loop guard — stateful, not part of
//! the engine — never shows as a flip.

use crate::config::Config;
use crate::engine::{Engine, EvalOptions};
use crate::event::{Event, EventKind, Tool};
use crate::logview::Record;
use crate::shell::ShellContext;
use crate::verdict::{Decision, Verdict};
use serde::Serialize;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::time::Instant;

/// A detector whose part of a decision changed.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DetectorChange {
    /// The detector.
    pub detector: String,
    /// Its decision before (`-` when it did not apply), `~shadow` when a
    /// shadow detector would have blocked, denied or asked.
    pub before: String,
    /// Its decision now.
    pub after: String,
}

/// A decision that came out differently.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Flip {
    /// The decision id.
    pub id: String,
    /// When it was made.
    pub ts: String,
    /// The agent.
    pub agent: String,
    /// The event kind.
    pub event: String,
    /// The decision then.
    pub before: String,
    /// The decision now.
    pub after: String,
    /// The detectors whose part changed.
    pub detectors: Vec<DetectorChange>,
}

/// What a replay found.
#[derive(Debug, Clone, Default, Serialize)]
pub struct ReplayReport {
    /// Decision records read (pause and resume records excluded).
    pub records: usize,
    /// Records rerun.
    pub replayed: usize,
    /// Records without kept text (or command), skipped.
    pub skipped_without_text: usize,
    /// Records made while guard was paused, skipped.
    pub skipped_paused: usize,
    /// Decisions that flipped.
    pub flips: Vec<Flip>,
    /// Decisions that did not flip but where some detector's part changed.
    pub changed_without_flip: Vec<Flip>,
}

/// A loaded config and its engine.
pub type Setup = (Config, Engine);

/// Loads the [`Setup`] of an agent in a working directory.
pub type SetupLoader<'a> = dyn FnMut(&str, Option<&Path>) -> Result<Setup, String> + 'a;

/// Rebuilds the event of a record from what the log kept; `None` when it
/// kept too little.
pub fn rebuild_event(rec: &Record) -> Option<Event> {
    let kind = EventKind::parse(&rec.event)?;
    let mut e = Event::new(&rec.agent, kind);
    e.native_event = rec
        .native_event
        .clone()
        .unwrap_or_else(|| rec.event.clone());
    e.cwd = rec.cwd.as_ref().map(PathBuf::from);
    if kind.is_turn_end() {
        e.text = Some(rec.text.clone()?);
        return Some(e);
    }
    let tool_kind = matches!(
        kind,
        EventKind::PreTool | EventKind::PostTool | EventKind::PermissionRequest
    );
    if tool_kind {
        let (name, canonical) = rec
            .tool
            .as_ref()
            .map(|t| (t.name.clone(), t.canonical.clone()))
            .unwrap_or_else(|| ("Bash".into(), "shell".into()));
        if let Some(command) = &rec.command {
            e.tool = Some(Tool {
                native_name: name,
                canonical,
                input: serde_json::json!({ "command": command }),
                command: Some(command.clone()),
            });
        } else {
            let text = rec.text.as_ref().filter(|_| rec.tool.is_some())?;
            let input = serde_json::from_str(text)
                .unwrap_or_else(|_| serde_json::Value::String(text.clone()));
            e.tool = Some(Tool {
                native_name: name,
                canonical,
                input,
                command: None,
            });
        }
        return Some(e);
    }
    e.prompt = Some(rec.text.clone()?);
    Some(e)
}

/// A detector's part: its decision, marked `~shadow` when a shadow detector
/// would have done more than allow (a shadow allow is just an allow).
fn part(verdict: &str, shadow: bool) -> String {
    if shadow && verdict != "allow" {
        format!("{verdict}~shadow")
    } else {
        verdict.to_string()
    }
}

/// The logged decision before the loop guard: the strictest enforced detector.
fn logged_decision(rec: &Record) -> String {
    if rec.detectors.is_empty() {
        return rec.verdict.clone().unwrap_or_else(|| "allow".into());
    }
    rec.detectors
        .iter()
        .filter(|d| !d.is_shadow())
        .filter_map(|d| Decision::parse(&d.verdict))
        .max_by_key(|d| d.severity())
        .unwrap_or(Decision::Allow)
        .as_str()
        .to_string()
}

fn compare(rec: &Record, verdict: &Verdict) -> Flip {
    let mut names: Vec<&str> = rec.detectors.iter().map(|d| d.name.as_str()).collect();
    for d in &verdict.detectors {
        if !names.contains(&d.name.as_str()) {
            names.push(&d.name);
        }
    }
    let mut detectors = Vec::new();
    for name in names {
        let before = rec
            .detectors
            .iter()
            .find(|d| d.name == name)
            .map(|d| part(&d.verdict, d.is_shadow()))
            .unwrap_or_else(|| "-".into());
        let after = verdict
            .detectors
            .iter()
            .find(|d| d.name == name)
            .map(|d| part(d.verdict.as_str(), d.mode.is_some()))
            .unwrap_or_else(|| "-".into());
        if before != after {
            detectors.push(DetectorChange {
                detector: name.to_string(),
                before,
                after,
            });
        }
    }
    Flip {
        id: rec.id.clone(),
        ts: rec.ts.clone(),
        agent: rec.agent.clone(),
        event: rec.event.clone(),
        before: logged_decision(rec),
        after: verdict.decision.as_str().to_string(),
        detectors,
    }
}

/// Reruns the records. `setup(agent, cwd)` loads the config and engine the
/// record's agent gets (called once per pair).
pub fn replay(
    records: &[Record],
    setup: &mut SetupLoader,
    use_judge: bool,
    cache_dir: Option<&Path>,
) -> Result<ReplayReport, String> {
    let mut report = ReplayReport::default();
    let mut setups: HashMap<(String, Option<PathBuf>), Setup> = HashMap::new();
    for rec in records.iter().filter(|r| !r.is_control()) {
        report.records += 1;
        if rec.paused {
            report.skipped_paused += 1;
            continue;
        }
        let Some(event) = rebuild_event(rec) else {
            report.skipped_without_text += 1;
            continue;
        };
        let key = (rec.agent.clone(), event.cwd.clone());
        if !setups.contains_key(&key) {
            let s = setup(&rec.agent, event.cwd.as_deref())?;
            setups.insert(key.clone(), s);
        }
        let Some((config, engine)) = setups.get(&key) else {
            continue;
        };
        let cwd = event.cwd.clone();
        let shell = ShellContext::for_cwd(cwd);
        let opts = EvalOptions {
            use_judge,
            deadline: Instant::now() + config.deadline.for_kind(event.kind),
            cache_dir,
            shell,
        };
        let verdict = engine.evaluate(&event, config, &opts);
        report.replayed += 1;
        let diff = compare(rec, &verdict);
        if diff.before != diff.after {
            report.flips.push(diff);
        } else if !diff.detectors.is_empty() {
            report.changed_without_flip.push(diff);
        }
    }
    Ok(report)
}

/// The text form of a replay report.
pub fn text(report: &ReplayReport) -> String {
    let mut out = format!(
        "guard replay: {} decision(s): {} replayed, {} skipped without kept text, {} skipped (paused); {} flipped\n",
        report.records,
        report.replayed,
        report.skipped_without_text,
        report.skipped_paused,
        report.flips.len()
    );
    let line = |f: &Flip| {
        let changes: Vec<String> = f
            .detectors
            .iter()
            .map(|c| format!("{} {}→{}", c.detector, c.before, c.after))
            .collect();
        format!(
            "  {}  {}  {} {}  {} → {}  [{}]\n",
            f.id,
            f.ts,
            f.agent,
            f.event,
            f.before,
            f.after,
            changes.join(", ")
        )
    };
    for f in &report.flips {
        out.push_str(&line(f));
    }
    if !report.changed_without_flip.is_empty() {
        out.push_str(&format!(
            "{} decision(s) kept their verdict while a detector's part changed:\n",
            report.changed_without_flip.len()
        ));
        for f in &report.changed_without_flip {
            out.push_str(&line(f));
        }
    }
    out
}
