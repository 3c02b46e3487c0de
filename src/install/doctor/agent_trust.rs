//! The trust check of `guard doctor`, for agents that keep a trust state
//! for their hooks (Codex's `[hooks.state."…"]` tables): reading the
//! records, and one finding per wired event.

use super::{Findings, Status, Wired};
use crate::install::discover::Agent;

/// One `[hooks.state."<file>:<event_key>:<group>:<handler>"]` table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TrustRecord {
    /// The table's key.
    pub key: String,
    /// Whether it holds a `trusted_hash`.
    pub trusted: bool,
    /// Whether it says `enabled = false`.
    pub disabled: bool,
}

/// Reads the trust tables of a Codex `config.toml` (a line scan: guard
/// only needs the table names and two keys).
pub fn trust_records(toml: &str) -> Vec<TrustRecord> {
    let mut out: Vec<TrustRecord> = Vec::new();
    let mut current: Option<usize> = None;
    for line in toml.lines() {
        let line = line.trim();
        if line.starts_with('[') {
            current = None;
            let header = line.trim_start_matches('[').trim_end_matches(']').trim();
            if let Some(key) = header
                .strip_prefix("hooks.state.")
                .and_then(|k| k.strip_prefix('"'))
                .and_then(|k| k.strip_suffix('"'))
            {
                out.push(TrustRecord {
                    key: key.replace("\\\\", "\\"),
                    trusted: false,
                    disabled: false,
                });
                current = Some(out.len() - 1);
            }
            continue;
        }
        let Some(record) = current.and_then(|i| out.get_mut(i)) else {
            continue;
        };
        let compact: String = line
            .split('#')
            .next()
            .unwrap_or("")
            .chars()
            .filter(|c| !c.is_whitespace())
            .collect();
        if compact.starts_with("trusted_hash=") {
            record.trusted = true;
        } else if compact == "enabled=false" {
            record.disabled = true;
        }
    }
    out
}

/// Codex's key for a native event name: `PreToolUse` → `pre_tool_use`.
pub fn snake_event(event: &str) -> String {
    let mut out = String::new();
    for (i, c) in event.chars().enumerate() {
        if c.is_ascii_uppercase() {
            if i > 0 {
                out.push('_');
            }
            out.push(c.to_ascii_lowercase());
        } else {
            out.push(c);
        }
    }
    out
}

/// Checks the agent's trust records (Codex: `[hooks.state."<file>:…"]`
/// tables with a `trusted_hash`) for each wired event. Guard cannot check
/// the hashes themselves: a hook changed since it was trusted is reported
/// fine here but skipped by the agent.
pub(super) fn check_trust(agent: &Agent, trust_file: &str, wired: &[Wired], out: &mut Findings) {
    let name = agent.adapter.name.as_str();
    let fix = Some(format!("start {}, type /hooks and trust guard's hooks (again after each install that changes them)", agent.adapter.description));
    let Some(path) = crate::install::spec::expand_path(trust_file, crate::paths::home().as_deref())
    else {
        return;
    };
    let text = std::fs::read_to_string(&path).unwrap_or_default();
    if text
        .lines()
        .any(|l| l.split('#').next().unwrap_or("").replace(' ', "") == "bypass_hook_trust=true")
    {
        out.add(
            Some(name),
            "trust",
            Status::Ok,
            format!(
                "{}: bypass_hook_trust = true (every hook runs)",
                path.display()
            ),
            None,
        );
        return;
    }
    let records = trust_records(&text);
    for w in wired {
        let mut events: Vec<&str> = w.hooks.iter().map(|h| h.event.as_str()).collect();
        events.dedup();
        for event in events {
            let canonical = std::fs::canonicalize(&w.path).unwrap_or_else(|_| w.path.clone());
            let prefixes =
                [&w.path, &canonical].map(|p| format!("{}:{}:", p.display(), snake_event(event)));
            let mine: Vec<&TrustRecord> = records
                .iter()
                .filter(|r| prefixes.iter().any(|p| r.key.starts_with(p)))
                .collect();
            if mine.iter().any(|r| r.disabled) {
                out.add(
                    Some(name),
                    "trust",
                    Status::Error,
                    format!(
                        "{event} in {} is disabled in {}",
                        w.path.display(),
                        path.display()
                    ),
                    fix.clone(),
                );
            } else if !mine.iter().any(|r| r.trusted) {
                out.add(Some(name), "trust", Status::Error, format!("{event} in {} is not trusted (no record in {}): the agent skips it silently", w.path.display(), path.display()), fix.clone());
            } else {
                out.add(Some(name), "trust", Status::Ok, format!("{event}: trust recorded (guard cannot verify the hash: if the hook changed since, trust it again)"), None);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codex_trust_tables_are_read() {
        let toml = "model = \"x\"\n[hooks.state.\"/h/.codex/hooks.json:pre_tool_use:0:0\"]\ntrusted_hash = \"sha256:ab\"\n\n[hooks.state.\"/h/.codex/hooks.json:stop:1:0\"]\nenabled = false # off\n[other]\ntrusted_hash = 1\n";
        let records = trust_records(toml);
        assert_eq!(records.len(), 2);
        assert_eq!(
            records[0],
            TrustRecord {
                key: "/h/.codex/hooks.json:pre_tool_use:0:0".into(),
                trusted: true,
                disabled: false
            }
        );
        assert!(records[1].disabled && !records[1].trusted);
        assert_eq!(snake_event("PreToolUse"), "pre_tool_use");
        assert_eq!(snake_event("Stop"), "stop");
    }
}
