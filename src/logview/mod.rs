//! Reading the decision log back: a typed, lenient view of its records, the
//! filters of `guard log` and `guard stats` (`--since`, `--detector`,
//! `--verdict`), the one-line listing and the per-detector statistics.
//!
//! Records are read leniently (unknown keys ignored, missing ones defaulted)
//! so that logs written by older or newer guards stay readable.

pub mod list;
pub mod signals;
pub mod stats;
pub mod time;

use serde::Deserialize;
use serde_json::{Map, Value};
use std::path::Path;

/// One decision-log record (or a `pause`/`resume` record).
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct Record {
    /// The decision id.
    pub id: String,
    /// RFC 3339 UTC time.
    pub ts: String,
    /// The adapter (`claude-code`, …), or `*` for pause and resume.
    pub agent: String,
    /// The event kind (`stop`, `pre_tool`, …), or `pause` / `resume`.
    pub event: String,
    /// The agent's own event name.
    pub native_event: Option<String>,
    /// The session id.
    pub session: Option<String>,
    /// The decision (absent on pause and resume records).
    pub verdict: Option<String>,
    /// The reason sent to the agent.
    pub reason: Option<String>,
    /// Every detector that applied.
    pub detectors: Vec<LoggedDetector>,
    /// Wall time of the hook.
    pub latency_ms: Option<f64>,
    /// guard was paused: everything allowed.
    pub paused: bool,
    /// The subject text (only with `log.keep_text`).
    pub text: Option<String>,
    /// The shell command of a tool event (only with `log.keep_text`).
    pub command: Option<String>,
    /// The tool of a tool event (only with `log.keep_text`).
    pub tool: Option<LoggedTool>,
    /// The agent's working directory (only with `log.keep_text`).
    pub cwd: Option<String>,
    /// Problems met on the hook path.
    pub errors: Vec<String>,
    /// guard's facts block the judge was shown (redacted; absent in logs
    /// written before it existed and for events without a transcript).
    pub facts: Option<String>,
}

/// The tool of a logged tool event.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct LoggedTool {
    /// The agent's name for the tool.
    pub name: String,
    /// guard's canonical name (`shell`, `file_write`, …).
    pub canonical: String,
}

/// One detector's part of a logged decision.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct LoggedDetector {
    /// The detector's name.
    pub name: String,
    /// `miss`, `hit` or `bypass`.
    pub layer1: String,
    /// The signals that matched (`action:<rule>` for an action rule).
    pub signals: Vec<String>,
    /// Judged with the turn although its Layer 1 missed (absent in older
    /// logs).
    pub joined: bool,
    /// The detector's own decision.
    pub verdict: String,
    /// `shadow` when it was not enforced.
    pub mode: Option<String>,
    /// The judge's part.
    pub judge: LoggedJudge,
}

/// The judge's part of a logged detector report.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct LoggedJudge {
    /// `violation`, `allow`, `fail` or `skipped`.
    pub outcome: String,
    /// The fields it returned.
    pub fields: Map<String, Value>,
    /// Its wall time.
    pub latency_ms: Option<u64>,
    /// Whether the answer came from the cache.
    pub cache_hit: bool,
    /// The other detectors judged in the same call (absent in older logs).
    pub shared_with: Vec<String>,
}

impl LoggedDetector {
    /// Whether Layer 1 saw something (a hit, or a hit cleared by a bypass).
    pub fn fired(&self) -> bool {
        self.layer1 == "hit" || self.layer1 == "bypass"
    }

    /// Whether this detector is in shadow mode.
    pub fn is_shadow(&self) -> bool {
        self.mode.as_deref() == Some("shadow")
    }

    /// Whether the judge was asked (from the cache or not).
    pub fn judged(&self) -> bool {
        !self.judge.outcome.is_empty() && self.judge.outcome != "skipped"
    }
}

impl Record {
    /// The record's time in milliseconds since the epoch (0 when unreadable).
    pub fn millis(&self) -> i64 {
        time::parse_rfc3339(&self.ts).unwrap_or(0)
    }

    /// A pause or resume record rather than a decision.
    pub fn is_control(&self) -> bool {
        self.event == "pause" || self.event == "resume"
    }
}

/// Reads the records of a log file, or of every `decisions-*.jsonl` in a
/// directory; unreadable lines are skipped.
pub fn read(path: &Path) -> std::io::Result<Vec<Record>> {
    let values = if path.is_dir() {
        crate::log::read_all(path)
    } else {
        let text = std::fs::read_to_string(path)?;
        text.lines()
            .filter_map(|l| serde_json::from_str::<Value>(l).ok())
            .collect()
    };
    Ok(values
        .into_iter()
        .filter_map(|v| serde_json::from_value(v).ok())
        .collect())
}

/// Which records `guard log` and `guard stats` show.
#[derive(Debug, Clone, Default)]
pub struct Filter {
    /// Only records at or after this time (ms since the epoch).
    pub since_ms: Option<i64>,
    /// Only records where this detector fired or did not allow.
    pub detector: Option<String>,
    /// Only records with this verdict.
    pub verdict: Option<String>,
}

impl Filter {
    /// Whether a record passes.
    pub fn accepts(&self, r: &Record) -> bool {
        if self.since_ms.is_some_and(|since| r.millis() < since) {
            return false;
        }
        if let Some(name) = &self.detector {
            if !r
                .detectors
                .iter()
                .any(|d| &d.name == name && (d.fired() || d.verdict != "allow"))
            {
                return false;
            }
        }
        if let Some(v) = &self.verdict {
            if r.verdict.as_deref() != Some(v.as_str()) {
                return false;
            }
        }
        true
    }
}
