//! The decision-log record of one hook call.

use crate::config::Config;
use crate::event::Event;
use crate::verdict::Verdict;
use serde_json::{json, Value};
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
}

/// Builds the record.
pub fn build(cfg: &Config, event: &Event, verdict: &Verdict, ctx: &Context) -> Value {
    let (ts, _) = crate::log::now_rfc3339();
    let mut rec = json!({
        "id": crate::log::decision_id(),
        "ts": ts,
        "agent": event.agent,
        "event": event.kind,
        "native_event": event.native_event,
        "session": event.session_id,
        "turn": event.turn_id,
        "verdict": verdict.decision,
        "detectors": verdict.detectors,
        "latency_ms": ctx.started.elapsed().as_secs_f64() * 1000.0,
    });
    let obj = rec.as_object_mut().expect("json! object");
    if let Some(r) = &verdict.reason {
        obj.insert("reason".into(), json!(r));
    }
    if let Some(m) = &verdict.system_message {
        obj.insert("system_message".into(), json!(m));
    }
    if let Some(m) = &ctx.mismatch {
        obj.insert("agent_mismatch".into(), json!(m));
    }
    if !ctx.refused.is_empty() {
        obj.insert("refused_project_settings".into(), json!(ctx.refused));
    }
    if !ctx.errors.is_empty() {
        obj.insert("errors".into(), json!(ctx.errors));
    }
    if ctx.paused {
        obj.insert("paused".into(), json!(true));
    }
    let shadow: Vec<&str> = verdict
        .detectors
        .iter()
        .filter(|d| d.mode.is_some() && d.verdict != crate::verdict::Decision::Allow)
        .map(|d| d.name.as_str())
        .collect();
    if !shadow.is_empty() {
        // Shadow detectors that would have blocked, denied or asked.
        obj.insert("shadow".into(), json!(shadow));
    }
    if cfg.log.keep_text {
        // What `guard replay` needs to rebuild the event, secrets redacted.
        let redacted = crate::redact::redact(&crate::engine::Engine::subject(event, cfg));
        obj.insert("text".into(), json!(redacted.text));
        if !redacted.counts.is_empty() {
            obj.insert("text_redactions".into(), json!(redacted.counts));
        }
        if let Some(tool) = &event.tool {
            obj.insert(
                "tool".into(),
                json!({"name": tool.native_name, "canonical": tool.canonical}),
            );
            if let Some(c) = &tool.command {
                obj.insert("command".into(), json!(crate::redact::redact(c).text));
            }
        }
        if let Some(cwd) = &event.cwd {
            obj.insert("cwd".into(), json!(cwd));
        }
    }
    rec
}

/// Appends the record to the log; a failure is reported on stderr only.
pub fn write(cfg: &Config, event: &Event, verdict: &Verdict, ctx: &Context) {
    let rec = build(cfg, event, verdict, ctx);
    let (_, date) = crate::log::now_rfc3339();
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
