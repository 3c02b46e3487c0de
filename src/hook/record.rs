//! The decision-log record of one hook call.

use crate::config::Config;
use crate::event::{Event, EventKind};
use crate::verdict::{Decision, DetectorReport, Verdict};
use serde::Serialize;
use std::collections::BTreeMap;
use std::time::Instant;

/// What the hook path learned besides the verdict.
pub struct Context {
    /// When the hook started.
    pub started: Instant,
    /// The agent named on the command line disagreed with the payload.
    pub mismatch: Option<String>,
    /// Project settings refused as loosening.
    pub refused: Vec<String>,
    /// Problems met (also written to stderr).
    pub errors: Vec<String>,
    /// guard was paused.
    pub paused: bool,
    /// The payload's shape was unknown to every adapter (see
    /// `hook::unknown_shape`).
    pub unknown_shape: bool,
}

/// One decision-log line. Fields are written in this order; optional ones
/// only when present (the log's format: docs/config.md, `guard log`).
#[derive(Serialize)]
struct Record<'a> {
    id: String,
    ts: String,
    agent: &'a str,
    event: EventKind,
    native_event: &'a str,
    session: &'a Option<String>,
    turn: &'a Option<String>,
    verdict: Decision,
    detectors: &'a [DetectorReport],
    latency_ms: f64,
    #[serde(skip_serializing_if = "Option::is_none")]
    reason: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    system_message: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    agent_mismatch: Option<&'a str>,
    #[serde(skip_serializing_if = "<[String]>::is_empty")]
    refused_project_settings: &'a [String],
    #[serde(skip_serializing_if = "<[String]>::is_empty")]
    errors: &'a [String],
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    paused: bool,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    unknown_shape: bool,
    /// Shadow detectors that would have blocked, denied or asked.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    shadow: Vec<&'a str>,
    /// guard's facts block of the turn (redacted), when a detector was judged
    /// and the turn's actions were known: what the judge was shown.
    #[serde(skip_serializing_if = "Option::is_none")]
    facts: Option<String>,
    #[serde(flatten)]
    kept: Option<KeptText<'a>>,
}

/// What `guard replay` needs to rebuild the event (`log.keep_text`),
/// secrets redacted.
#[derive(Serialize)]
struct KeptText<'a> {
    text: String,
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    text_redactions: BTreeMap<&'static str, usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    tool: Option<KeptTool<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    command: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    cwd: Option<&'a std::path::Path>,
}

#[derive(Serialize)]
struct KeptTool<'a> {
    name: &'a str,
    canonical: &'a str,
}

fn record<'a>(
    cfg: &Config,
    event: &'a Event,
    verdict: &'a Verdict,
    ctx: &'a Context,
    ts: String,
) -> Record<'a> {
    let kept = cfg.log.keep_text.then(|| {
        let redacted = crate::redact::redact(&crate::engine::Engine::subject(event, cfg));
        KeptText {
            text: redacted.text,
            text_redactions: redacted.counts,
            tool: event.tool.as_ref().map(|t| KeptTool {
                name: &t.native_name,
                canonical: &t.canonical,
            }),
            command: event
                .tool
                .as_ref()
                .and_then(|t| t.command.as_deref())
                .map(|c| crate::redact::redact(c).text),
            cwd: event.cwd.as_deref(),
        }
    });
    Record {
        id: crate::log::decision_id(),
        ts,
        agent: &event.agent,
        event: event.kind,
        native_event: &event.native_event,
        session: &event.session_id,
        turn: &event.turn_id,
        verdict: verdict.decision,
        detectors: &verdict.detectors,
        latency_ms: ctx.started.elapsed().as_secs_f64() * 1000.0,
        reason: verdict.reason.as_deref(),
        system_message: verdict.system_message.as_deref(),
        agent_mismatch: ctx.mismatch.as_deref(),
        refused_project_settings: &ctx.refused,
        errors: &ctx.errors,
        paused: ctx.paused,
        unknown_shape: ctx.unknown_shape,
        shadow: verdict
            .detectors
            .iter()
            .filter(|d| d.mode.is_some() && d.verdict != Decision::Allow)
            .map(|d| d.name.as_str())
            .collect(),
        facts: facts(event, verdict),
        kept,
    }
}

/// The facts block the judge was shown: the same rendering the engine
/// gives the judge, for a turn end where some detector was judged (asked or
/// answered from the cache).
fn facts(event: &Event, verdict: &Verdict) -> Option<String> {
    use crate::verdict::JudgeOutcome;
    let judged = verdict
        .detectors
        .iter()
        .any(|d| d.judge.outcome != JudgeOutcome::Skipped);
    (judged && event.kind.is_turn_end())
        .then(|| crate::engine::turn_facts(event))
        .flatten()
}

/// Appends the record to the log; a failure is reported on stderr only.
pub fn write(cfg: &Config, event: &Event, verdict: &Verdict, ctx: &Context) {
    let (ts, date) = crate::log::now_rfc3339();
    let rec = record(cfg, event, verdict, ctx, ts);
    if let Err(e) = crate::log::append(&cfg.log.dir(), &date, &rec) {
        // Never `eprintln!`: it panics when stderr is a closed pipe.
        use std::io::Write;
        let _ = writeln!(
            std::io::stderr(),
            "guard: cannot write the decision log in {} ({e})",
            cfg.log.dir().display()
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::actions::{Action, CommandRun, Outcome, TurnActions};
    use crate::verdict::{JudgeOutcome, JudgeReport, Layer1};

    fn verdict(outcome: JudgeOutcome) -> Verdict {
        let mut judge = JudgeReport::skipped();
        judge.outcome = outcome;
        crate::engine::combine(vec![DetectorReport {
            name: "commit-before-verification".into(),
            layer1: Layer1::Hit,
            joined: false,
            keywords: Vec::new(),
            signals: Vec::new(),
            bypasses: Vec::new(),
            judge,
            verdict: Decision::Allow,
            mode: None,
            reason: None,
        }])
    }

    fn line(event: &Event, verdict: &Verdict) -> crate::logview::Record {
        let ctx = Context {
            started: Instant::now(),
            mismatch: None,
            refused: Vec::new(),
            errors: Vec::new(),
            paused: false,
            unknown_shape: false,
        };
        let cfg = Config::default();
        let json = serde_json::to_string(&record(&cfg, event, verdict, &ctx, "t".into())).unwrap();
        serde_json::from_str(&json).unwrap()
    }

    #[test]
    fn the_log_carries_the_redacted_facts_of_a_judged_turn() {
        let secret = "ghp_0123456789abcdefghijklmnopqrstuvwxyzAB";
        let mut event = Event::new("claude-code", EventKind::Stop);
        event.text = Some("Shall I push?".into());
        event.actions = Some(TurnActions {
            actions: vec![Action::Command(CommandRun::new(
                &format!("git push https://x:{secret}@github.com/o/r"),
                "Bash",
                Outcome::Succeeded,
                Some(0),
            ))],
            dropped: 0,
            complete: true,
            plan: None,
        });
        let judged = line(&event, &verdict(JudgeOutcome::Violation));
        let facts = judged.facts.expect("facts of a judged turn");
        assert!(facts.contains("[push]"), "{facts}");
        assert!(!facts.contains(secret), "{facts}");
        assert!(line(&event, &verdict(JudgeOutcome::Skipped))
            .facts
            .is_none());
        event.actions = None;
        assert!(line(&event, &verdict(JudgeOutcome::Violation))
            .facts
            .is_none());
        // An old record, written before the field, still reads.
        let old: crate::logview::Record = serde_json::from_str(
            r#"{"id":"a","ts":"t","agent":"x","event":"stop","detectors":[]}"#,
        )
        .unwrap();
        assert!(old.facts.is_none());
    }
}
