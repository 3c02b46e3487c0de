//! `guard log`: one readable line per decision — time, id, agent, event,
//! verdict, the detectors that fired, and the head of the reason.

use super::Record;

/// Longest reason head shown on a line, in characters.
const REASON_HEAD: usize = 80;

/// The detectors that fired on a record: `name` for a Layer-1 hit,
/// `name(bypass)`, and a `~shadow` suffix for shadow detectors.
pub fn fired(r: &Record) -> String {
    let names: Vec<String> = r
        .detectors
        .iter()
        .filter(|d| d.fired() || d.verdict != "allow")
        .map(|d| {
            let mut s = d.name.clone();
            if d.layer1 == "bypass" {
                s.push_str("(bypass)");
            }
            if d.is_shadow() {
                s.push_str(if d.verdict != "allow" {
                    "~shadow:"
                } else {
                    "~shadow"
                });
                if d.verdict != "allow" {
                    s.push_str(&d.verdict);
                }
            }
            s
        })
        .collect();
    if names.is_empty() {
        "-".into()
    } else {
        names.join(",")
    }
}

/// The first line of the reason, cut to [`REASON_HEAD`] characters.
pub fn reason_head(r: &Record) -> String {
    let reason = r.reason.as_deref().unwrap_or("");
    let first = reason
        .lines()
        .find(|l| !l.trim().is_empty())
        .unwrap_or("")
        .trim();
    if first.chars().count() > REASON_HEAD {
        format!(
            "{}…",
            first.chars().take(REASON_HEAD - 1).collect::<String>()
        )
    } else {
        first.to_string()
    }
}

/// One line for a record.
pub fn line(r: &Record) -> String {
    let ts = if r.ts.len() >= 19 {
        r.ts[..19].replace('T', " ")
    } else {
        r.ts.clone()
    };
    if r.is_control() {
        return format!(
            "{ts}  {}  {:<12} {:<14} {}",
            r.id,
            r.agent,
            r.event,
            r.reason.as_deref().unwrap_or("")
        );
    }
    let mut verdict = r.verdict.clone().unwrap_or_else(|| "-".into());
    if r.paused {
        verdict.push_str("(paused)");
    }
    format!(
        "{ts}  {}  {:<12} {:<14} {:<6} {}  {}",
        r.id,
        r.agent,
        r.event,
        verdict,
        fired(r),
        reason_head(r)
    )
    .trim_end()
    .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_line_shows_the_fired_detectors_and_the_reason_head() {
        let r: Record = serde_json::from_value(json!({
            "id": "abc-1-0", "ts": "2026-12-02T10:11:12.345Z", "agent": "codex", "event": "stop", "verdict": "block",
            "reason": "guard [commit]: verify first\n\nmore",
            "detectors": [
                {"name": "commit", "layer1": "hit", "verdict": "block", "judge": {"outcome": "violation"}},
                {"name": "scope", "layer1": "miss", "verdict": "allow", "judge": {"outcome": "skipped"}},
                {"name": "fix", "layer1": "hit", "verdict": "block", "mode": "shadow", "judge": {"outcome": "violation"}}
            ]
        }))
        .unwrap();
        let l = line(&r);
        assert!(l.starts_with("2026-12-02 10:11:12  abc-1-0  codex"), "{l}");
        assert!(
            l.contains(" block  commit,fix~shadow:block  guard [commit]: verify first"),
            "{l}"
        );
        assert!(!l.contains("more"));
    }
}
