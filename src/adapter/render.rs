//! [`Verdict`] → what the agent reads: stdout, stderr and exit code, from
//! the adapter's templates.

use super::{AdapterSpec, KindRender, RenderEntry};
use crate::event::EventKind;
use crate::verdict::{Decision, Verdict};
use serde_json::{Map, Value};

/// What `guard hook` writes and how it exits.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HookOutput {
    /// Written to stdout as is (empty: nothing).
    pub stdout: String,
    /// Written to stderr as is.
    pub stderr: String,
    /// The exit code.
    pub exit: i32,
}

impl HookOutput {
    /// Exit 0, nothing written.
    pub fn silent() -> HookOutput {
        HookOutput {
            stdout: String::new(),
            stderr: String::new(),
            exit: 0,
        }
    }
}

fn pick(overrides: &KindRender, d: Decision) -> Option<&RenderEntry> {
    match d {
        Decision::Allow => overrides.allow.as_ref(),
        Decision::Block => overrides.block.as_ref(),
        Decision::Deny => overrides.deny.as_ref(),
        Decision::Ask => overrides.ask.as_ref(),
    }
}

/// The entry for a decision: the native event's override, else the kind's,
/// else the adapter's default.
fn entry<'a>(
    spec: &'a AdapterSpec,
    kind: EventKind,
    native_event: &str,
    d: Decision,
) -> Option<&'a RenderEntry> {
    let per_native = spec
        .render
        .native_events
        .get(native_event)
        .and_then(|k| pick(k, d));
    let per_kind = spec.render.kinds.get(&kind).and_then(|k| pick(k, d));
    per_native.or(per_kind).or(match d {
        Decision::Allow => Some(&spec.render.allow),
        Decision::Block => spec.render.block.as_ref(),
        Decision::Deny => spec.render.deny.as_ref(),
        Decision::Ask => spec.render.ask.as_ref(),
    })
}

/// Renders the verdict; `ask_as` (config) turns an ask into another decision.
pub fn render(
    spec: &AdapterSpec,
    kind: EventKind,
    native_event: &str,
    verdict: &Verdict,
    ask_as: Option<Decision>,
) -> HookOutput {
    let mut decision = verdict.decision;
    if decision == Decision::Ask {
        decision = ask_as.unwrap_or(Decision::Ask);
    }
    let mut chosen = None;
    for _ in 0..4 {
        match entry(spec, kind, native_event, decision) {
            Some(e) if e.as_decision.is_some_and(|a| a != decision) => {
                decision = e.as_decision.unwrap_or(decision)
            }
            Some(e) => {
                chosen = Some(e);
                break;
            }
            None => break,
        }
    }
    // A decision the adapter cannot write: the nearest one it can.
    let fallback;
    let e = match chosen {
        Some(e) => e,
        None => {
            let alt = match decision {
                Decision::Ask => entry(spec, kind, native_event, Decision::Deny)
                    .or_else(|| entry(spec, kind, native_event, Decision::Block)),
                Decision::Deny => entry(spec, kind, native_event, Decision::Block),
                Decision::Block => entry(spec, kind, native_event, Decision::Deny),
                Decision::Allow => None,
            };
            fallback = alt.cloned().unwrap_or_default();
            &fallback
        }
    };
    let reason = verdict
        .reason
        .clone()
        .unwrap_or_else(|| "blocked by guard".to_string());
    let system_message = verdict.system_message.clone().unwrap_or_default();
    let detectors: Vec<Value> = verdict
        .detectors
        .iter()
        .filter(|d| d.verdict != Decision::Allow && d.mode.is_none())
        .map(|d| Value::String(d.name.clone()))
        .collect();
    let vars = Vars {
        reason: &reason,
        native_event,
        system_message: &system_message,
        detectors: &detectors,
    };
    let mut stdout_value = e.stdout.as_ref().map(|t| fill(t, &vars));
    if let (Some(key), Some(msg)) = (&spec.render.system_message_key, &verdict.system_message) {
        let obj = stdout_value.get_or_insert_with(|| Value::Object(Map::new()));
        if let Value::Object(map) = obj {
            map.insert(key.clone(), Value::String(msg.clone()));
        }
    }
    HookOutput {
        stdout: stdout_value.map(|v| format!("{v}\n")).unwrap_or_default(),
        stderr: e
            .stderr
            .as_ref()
            .map(|t| format!("{}\n", t.replace("{reason}", &reason)))
            .unwrap_or_default(),
        exit: e.exit,
    }
}

struct Vars<'a> {
    reason: &'a str,
    native_event: &'a str,
    system_message: &'a str,
    detectors: &'a [Value],
}

fn fill(template: &Value, vars: &Vars) -> Value {
    match template {
        Value::String(s) if s == "{detectors}" => Value::Array(vars.detectors.to_vec()),
        Value::String(s) => Value::String(
            s.replace("{native_event}", vars.native_event)
                .replace("{system_message}", vars.system_message)
                .replace("{reason}", vars.reason),
        ),
        Value::Array(items) => Value::Array(items.iter().map(|v| fill(v, vars)).collect()),
        Value::Object(map) => Value::Object(
            map.iter()
                .map(|(k, v)| (k.clone(), fill(v, vars)))
                .collect(),
        ),
        other => other.clone(),
    }
}
