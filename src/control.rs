//! `guard pause` and `guard resume`: switch guard off and on for every agent
//! at once. The flag is the state file [`crate::state::pause_path`] (read by
//! every hook through [`crate::state::is_paused`]); each switch is also
//! written to the decision log as a record with event `pause` or `resume`,
//! so that the log explains why decisions in between were allowed.

use crate::state;
use serde_json::{json, Value};
use std::path::Path;
use std::time::Duration;

/// Pauses guard, until resumed (`None`) or for a duration. Returns the log record.
pub fn pause(
    state_dir: &Path,
    log_dir: &Path,
    duration: Option<Duration>,
) -> std::io::Result<Value> {
    let until = duration.map(|d| state::now_secs().saturating_add(d.as_secs().max(1)));
    std::fs::create_dir_all(state_dir)?;
    let path = state::pause_path(state_dir);
    let tmp = path.with_extension("tmp");
    std::fs::write(&tmp, until.unwrap_or(0).to_string())?;
    std::fs::rename(&tmp, &path)?;
    let until_text = until.map(|u| crate::logview::time::format_rfc3339(u as i64 * 1000));
    let reason = match &until_text {
        Some(t) => format!("guard paused for every agent until {t}"),
        None => "guard paused for every agent until `guard resume`".to_string(),
    };
    let mut rec = control_record("pause", &reason);
    rec["until"] = json!(until_text);
    log(log_dir, &rec)?;
    Ok(rec)
}

/// Resumes guard. Returns whether it was paused, and the log record.
pub fn resume(state_dir: &Path, log_dir: &Path) -> std::io::Result<(bool, Value)> {
    let was_paused = state::is_paused(state_dir);
    match std::fs::remove_file(state::pause_path(state_dir)) {
        Ok(()) => {}
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(e) => return Err(e),
    }
    let reason = if was_paused {
        "guard resumed for every agent"
    } else {
        "guard resumed (it was not paused)"
    };
    let rec = control_record("resume", reason);
    log(log_dir, &rec)?;
    Ok((was_paused, rec))
}

fn control_record(event: &str, reason: &str) -> Value {
    let (ts, _) = crate::log::now_rfc3339();
    json!({"id": crate::log::decision_id(), "ts": ts, "agent": "*", "event": event, "reason": reason})
}

fn log(log_dir: &Path, rec: &Value) -> std::io::Result<()> {
    let (_, date) = crate::log::now_rfc3339();
    crate::log::append(log_dir, &date, rec).map(|_| ())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pause_sets_the_flag_and_resume_clears_it_both_logged() {
        let dir = tempfile::tempdir().unwrap();
        let (state_dir, log_dir) = (dir.path().join("state"), dir.path().join("logs"));
        pause(&state_dir, &log_dir, None).unwrap();
        assert!(state::is_paused(&state_dir));
        let (was, _) = resume(&state_dir, &log_dir).unwrap();
        assert!(was && !state::is_paused(&state_dir));
        pause(&state_dir, &log_dir, Some(Duration::from_secs(3600))).unwrap();
        assert!(state::is_paused(&state_dir));
        let events: Vec<String> = crate::log::read_all(&log_dir)
            .iter()
            .map(|r| r["event"].as_str().unwrap().to_string())
            .collect();
        assert_eq!(events, ["pause", "resume", "pause"]);
        assert!(crate::log::read_all(&log_dir)[2]["until"].is_string());
    }
}
