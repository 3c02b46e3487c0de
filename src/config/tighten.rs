//! The project layer's tighten-only rule: a repository's `.guard.yaml` may
//! make guard stricter, never looser, unless the user's own config says
//! `trust_project_config: true`. A repository is someone else's text: it
//! must not switch a detector off, stretch a deadline or pick the judge.

use crate::verdict::Decision;
use serde_json::Value;

/// Removes from a project layer every setting that would loosen `current`;
/// returns a description of each one removed.
pub(super) fn tighten_only(current: &Value, project: &mut Value) -> Vec<String> {
    let mut refused = Vec::new();
    let Some(map) = project.as_object_mut() else {
        return refused;
    };
    // The judge and the log are the user's; deadlines cut short would make
    // turn ends fail open and stretched ones would hang the agent.
    for key in [
        "judge",
        "log",
        "agents",
        "trust_project_config",
        "ask_as",
        "deadline",
    ] {
        if map.remove(key).is_some() {
            refused.push(format!("{key}: only your own config may set it"));
        }
    }
    if let Some(max) = map
        .get("text")
        .and_then(|t| t.get("max_bytes"))
        .and_then(Value::as_u64)
    {
        let old = current
            .get("text")
            .and_then(|t| t.get("max_bytes"))
            .and_then(Value::as_u64)
            .unwrap_or(0);
        if max < old {
            if let Some(t) = map.get_mut("text").and_then(Value::as_object_mut) {
                t.remove("max_bytes");
            }
            refused.push(format!(
                "text.max_bytes: {max} would judge less of the text than {old}"
            ));
        }
    }
    if let Some(Value::Object(dets)) = map.get_mut("detectors") {
        for (name, settings) in dets.iter_mut() {
            let Some(s) = settings.as_object_mut() else {
                continue;
            };
            if s.get("enabled") == Some(&Value::Bool(false)) {
                s.remove("enabled");
                refused.push(format!(
                    "detectors.{name}.enabled: false would switch a detector off"
                ));
            }
            if s.get("mode").and_then(Value::as_str) == Some("shadow") {
                s.remove("mode");
                refused.push(format!(
                    "detectors.{name}.mode: shadow would stop it blocking"
                ));
            }
            if s.remove("verification").is_some() {
                refused.push(format!(
                    "detectors.{name}.verification: only your own config may set it"
                ));
            }
            if s.get("gate")
                .is_some_and(|g| g.as_str() != Some("keywords"))
            {
                s.remove("gate");
                refused.push(format!(
                    "detectors.{name}.gate: a project may only set it to keywords"
                ));
            }
            if s.remove("file").is_some() {
                refused.push(format!(
                    "detectors.{name}.file: only your own config may load detector files"
                ));
            }
            if let Some(shell) = s.get_mut("shell").and_then(Value::as_object_mut) {
                for key in ["allow_push", "production"] {
                    if shell.remove(key).is_some() {
                        refused.push(format!(
                            "detectors.{name}.shell.{key}: only your own config may set it"
                        ));
                    }
                }
                if let Some(classes) = shell.get_mut("classes").and_then(Value::as_object_mut) {
                    classes.retain(|class, action| {
                        let keep = action.as_str() == Some("deny");
                        if !keep {
                            refused.push(format!(
                                "detectors.{name}.shell.classes.{class}: a project may only move a class to deny"
                            ));
                        }
                        keep
                    });
                }
            }
        }
    }
    if let Some(Value::Object(fail)) = map.get_mut("failure") {
        let before = current.get("failure").cloned().unwrap_or(Value::Null);
        fail.retain(|kind, v| {
            // Unset, a kind has its default policy (ask for gates).
            let default = serde_json::from_value(Value::String(kind.clone()))
                .map(|k| super::Config::default().failure_for(k))
                .unwrap_or(Decision::Allow);
            let old = before
                .get(kind)
                .and_then(Value::as_str)
                .and_then(Decision::parse)
                .unwrap_or(default);
            let new = v
                .as_str()
                .and_then(Decision::parse)
                .unwrap_or(Decision::Allow);
            let keep = new.severity() >= old.severity();
            if !keep {
                refused.push(format!(
                    "failure.{kind}: {} is looser than {}",
                    new.as_str(),
                    old.as_str()
                ));
            }
            keep
        });
    }
    if let Some(max) = map
        .get("loop_guard")
        .and_then(|l| l.get("max_blocks"))
        .and_then(Value::as_u64)
    {
        let old = current
            .get("loop_guard")
            .and_then(|l| l.get("max_blocks"))
            .and_then(Value::as_u64)
            .unwrap_or(3);
        // Fewer blocks let a violation through sooner; more let an agent
        // loop longer: only the user may change it.
        if max != old {
            if let Some(l) = map.get_mut("loop_guard").and_then(Value::as_object_mut) {
                l.remove("max_blocks");
            }
            let why = if max < old {
                "would let a blocked turn end through sooner"
            } else {
                "would let an agent loop longer"
            };
            refused.push(format!("loop_guard.max_blocks: {max} {why} than {old}"));
        }
    }
    refused
}
