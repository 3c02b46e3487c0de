//! `guard doctor`'s checks that guard fails safe where it is wired: each
//! installed gate entry carries the agent's fail-closed switch (when the
//! agent has one), and no payload reached guard in a shape no adapter reads
//! (a gate of unknown shape was answered with the failure policy, not
//! judged).

use super::discover::Agent;
use super::doctor::{Finding, Status};
use super::edit::FoundHook;
use std::path::Path;

fn finding(agent: &str, check: &str, status: Status, message: String, fix: &str) -> Finding {
    Finding {
        agent: Some(agent.to_string()),
        check: check.to_string(),
        status,
        message,
        fix: (!fix.is_empty()).then(|| fix.to_string()),
    }
}

/// A warning per installed entry that lacks a key of its event's
/// `fail_closed` switch (`install.events.<event>.fail_closed`).
pub fn fail_closed_switches(
    agent: &Agent,
    file: &Path,
    hooks: &[FoundHook],
    install_cmd: &str,
) -> Vec<Finding> {
    let name = agent.adapter.name.as_str();
    let mut out = Vec::new();
    for hook in hooks {
        let Some((_, options)) = agent.spec.events.0.iter().find(|(e, _)| *e == hook.event) else {
            continue;
        };
        for (key, want) in &options.fail_closed {
            if hook.entry.get(key) != Some(want) {
                out.push(finding(
                    name,
                    "fail closed",
                    Status::Warn,
                    format!(
                        "{}: {} lacks `\"{key}\": {want}`: if guard crashes, hangs or is missing, {} lets the tool run",
                        file.display(),
                        hook.event,
                        agent.adapter.description
                    ),
                    install_cmd,
                ));
            }
        }
    }
    out
}

/// One finding per agent for which `guard hook` met payloads of a shape no
/// adapter reads (state/unknown-shapes): a warning when gates were among
/// them.
pub fn unknown_shapes(state_dir: &Path) -> Vec<Finding> {
    crate::state::unknown_shapes(state_dir)
        .into_iter()
        .map(|(agent, note)| {
            let ago = crate::state::now_secs().saturating_sub(note.at);
            let last = format!(
                "last {} s ago: event {}, keys {}",
                ago,
                note.native_event.as_deref().unwrap_or("not found"),
                note.keys.join(", ")
            );
            let (status, what) = if note.gates > 0 {
                (Status::Warn, format!("{} of them gates, answered with the gate failure policy (ask or deny), not judged", note.gates))
            } else {
                (Status::Info, "none of them a gate (allowed)".to_string())
            };
            finding(
                &agent,
                "unknown shapes",
                status,
                format!(
                    "{} payload(s) of a shape no adapter reads, {what}; {last}",
                    note.count
                ),
                "the agent sends a payload guard does not know (a new version, or another agent running this hook): `guard log` shows the calls (unknown_shape: true); report the shape so that an adapter reads it",
            )
        })
        .collect()
}
