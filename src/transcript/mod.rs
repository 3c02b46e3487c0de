//! Transcript readers: the assistant's text of the last turn, read from the
//! agent's own transcript file.
//!
//! A turn-end payload does not always carry what the assistant said (older
//! agent versions, or only the last message of a long turn). The engine then
//! reads the transcript named in the payload. This module returns the
//! assistant's text since the last *real* user message — not tool results,
//! not hook feedback, not injected context or meta lines — joined with blank
//! lines in chronological order and cut to its last `max_bytes` bytes (the end
//! is kept: proposals sit in the last lines).
//!
//! Reading must stay cheap and never block the hook: the file type is checked
//! before opening (FIFOs, devices and directories are refused), the file is
//! opened non-blocking, and it is read from its end in 64 KiB chunks. Reading
//! stops at the turn's start, once enough text is gathered, or after 32 MiB,
//! so a 100 MB transcript costs what a small one costs when the last turn is
//! short. Malformed or half-written lines (the agent may still be writing)
//! are skipped.
//!
//! Hook feedback: when a Stop hook blocks and the agent carries on, the
//! continuation belongs to the same turn for judging purposes. The feedback
//! message is neither a turn start nor part of the text, so the assistant's
//! text from before and after the block is returned together. Claude Code
//! (`Stop hook feedback:`) and Codex (`<hook_prompt …>`) mark the feedback;
//! Copilot CLI and Factory Droid record it as a plain user message that
//! points at the blocking hook's own record (see `copilot`, `droid`); Gemini
//! CLI records it as a plain user message, which therefore counts as a turn
//! start (see `gemini`).
//!
//! Layout: `open` (refusing non-regular files), `reverse_lines` (chunked
//! backwards reading), `reader` (the driver and its stop rules), `turn`
//! (gathering, joining, UTF-8-safe cut), and one scanner per agent format:
//! `claude`, `codex`, `gemini`, `copilot`, `droid`.

mod claude;
mod codex;
mod copilot;
mod droid;
mod gemini;
mod open;
mod reader;
mod reverse_lines;
mod turn;

use reader::TurnReader;
use serde::Deserialize;
use serde_json::Value;
use std::fmt;
use std::io;
use std::path::{Path, PathBuf};
use std::str::FromStr;
use std::time::{Duration, Instant};
use turn::{Flow, TurnText};

/// Bytes read per step from the end of the file.
pub const CHUNK_BYTES: usize = 64 * 1024;
/// Reading stops after this many bytes, whatever was found.
pub const SCAN_CAP_BYTES: u64 = 32 * 1024 * 1024;
/// Lines longer than this (huge tool outputs) are skipped without being kept.
pub const MAX_LINE_BYTES: usize = 16 * 1024 * 1024;
/// With at least this many malformed lines, and more malformed than valid
/// ones, the file is not taken for a transcript.
pub const MALFORMED_LINE_LIMIT: usize = 32;

/// The agent whose transcript layout a file follows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum TranscriptFormat {
    /// Claude Code session JSONL (`~/.claude/projects/…/<session>.jsonl`).
    ClaudeCode,
    /// Codex CLI rollout JSONL (`~/.codex/sessions/…/rollout-*.jsonl`).
    Codex,
    /// Gemini CLI chat recording (`~/.gemini/tmp/…/chats/session-*.jsonl`).
    Gemini,
    /// GitHub Copilot CLI session events (`~/.copilot/session-state/<id>/events.jsonl`).
    Copilot,
    /// Factory Droid session (`~/.factory/sessions/<project>/<id>.jsonl`).
    Droid,
}

impl TranscriptFormat {
    /// Every format.
    pub const ALL: [TranscriptFormat; 5] = [
        TranscriptFormat::ClaudeCode,
        TranscriptFormat::Codex,
        TranscriptFormat::Gemini,
        TranscriptFormat::Copilot,
        TranscriptFormat::Droid,
    ];

    /// The name used in configuration: `claude-code`, `codex`, `gemini`,
    /// `copilot` or `droid`.
    pub fn name(self) -> &'static str {
        match self {
            TranscriptFormat::ClaudeCode => "claude-code",
            TranscriptFormat::Codex => "codex",
            TranscriptFormat::Gemini => "gemini",
            TranscriptFormat::Copilot => "copilot",
            TranscriptFormat::Droid => "droid",
        }
    }
}

impl fmt::Display for TranscriptFormat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A transcript format name that is not one of the known ones.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown transcript format `{0}` (expected claude-code, codex, gemini, copilot or droid)")]
pub struct UnknownTranscriptFormat(pub String);

impl FromStr for TranscriptFormat {
    type Err = UnknownTranscriptFormat;

    fn from_str(name: &str) -> Result<Self, Self::Err> {
        TranscriptFormat::ALL
            .into_iter()
            .find(|format| format.name() == name)
            .ok_or_else(|| UnknownTranscriptFormat(name.to_owned()))
    }
}

/// Why a transcript could not be read. The caller treats every case as
/// "no transcript text" and applies its failure policy.
#[derive(Debug, thiserror::Error)]
pub enum TranscriptError {
    /// Nothing exists at the path.
    #[error("transcript {path} does not exist")]
    Missing {
        /// The path given.
        path: PathBuf,
    },
    /// The path is a directory, FIFO, socket or device: refused unopened.
    #[error("transcript {path} is not a regular file (it is a {kind})")]
    NotRegularFile {
        /// The path given.
        path: PathBuf,
        /// What it is instead: `directory`, `fifo`, `socket`, `device`, `other`.
        kind: &'static str,
    },
    /// The file exists but could not be inspected, opened or read.
    #[error("transcript {path} could not be read: {source}")]
    Unreadable {
        /// The path given.
        path: PathBuf,
        /// The underlying I/O error.
        #[source]
        source: io::Error,
    },
    /// Too many lines are not JSON objects: not a transcript of this format.
    #[error("transcript {path} has {malformed} malformed lines and only {valid} valid ones")]
    TooManyMalformedLines {
        /// The path given.
        path: PathBuf,
        /// Non-empty lines that were not JSON objects (or were too long).
        malformed: usize,
        /// Lines that parsed as JSON objects.
        valid: usize,
    },
    /// A whole-file (legacy Gemini `.json`) transcript is larger than the scan cap.
    #[error("transcript {path} is {size} bytes, above the {limit}-byte limit for whole-file JSON")]
    TooLarge {
        /// The path given.
        path: PathBuf,
        /// The file's size.
        size: u64,
        /// The limit ([`SCAN_CAP_BYTES`]).
        limit: u64,
    },
}

/// What one read cost, for tests and diagnostics.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ReadStats {
    /// Bytes read from the file.
    pub bytes_read: u64,
    /// Non-empty lines looked at.
    pub lines_seen: usize,
    /// Of those, lines that were not JSON objects or were too long.
    pub malformed_lines: usize,
    /// Whether the turn's start (a real user message) was found.
    pub found_turn_start: bool,
}

/// The longest [`wait_for_writer`] waits (Copilot CLI writes its file about
/// 100 ms behind its hooks).
pub const WRITER_WAIT: Duration = Duration::from_secs(1);

/// Waits, at most `max_wait` and polling, until the agent has written the
/// turn that the turn-end hook running now (with `payload`) judges; returns
/// at once for the formats written before the hook runs (all but Copilot
/// CLI's). Whether it caught up: on `false` the reader reads what is there.
pub fn wait_for_writer(
    format: TranscriptFormat,
    path: &Path,
    payload: &Value,
    max_wait: Duration,
) -> bool {
    if format != TranscriptFormat::Copilot {
        return true;
    }
    let started = Instant::now();
    loop {
        if copilot::writer_caught_up(path, payload) {
            return true;
        }
        if started.elapsed() >= max_wait {
            return false;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// The assistant's text of the last turn in the transcript at `path`, cut to
/// its last `max_bytes` bytes; `Ok(None)` when the turn has no assistant text.
pub fn last_turn_text(
    format: TranscriptFormat,
    path: &Path,
    max_bytes: usize,
) -> Result<Option<String>, TranscriptError> {
    last_turn_text_with_stats(format, path, max_bytes).map(|(text, _)| text)
}

/// [`last_turn_text`], also returning what the read cost.
pub fn last_turn_text_with_stats(
    format: TranscriptFormat,
    path: &Path,
    max_bytes: usize,
) -> Result<(Option<String>, ReadStats), TranscriptError> {
    let (file, metadata) = open::open_regular_file(path)?;
    let mut scanner = new_scanner(format);
    let mut reader = TurnReader::new(path, max_bytes);
    let is_whole_file_json =
        format == TranscriptFormat::Gemini && path.extension().is_some_and(|ext| ext == "json");
    if is_whole_file_json {
        reader.read_whole_json(file, metadata.len(), scanner.as_mut())?;
    } else {
        reader.read_lines_backwards(file, metadata.len(), scanner.as_mut())?;
    }
    reader.finish()
}

/// One agent's record layout: fed records newest first, it adds assistant
/// texts to the turn and says when the turn's start is reached.
trait RecordScanner {
    /// Looks at one record (a parsed JSON object).
    fn scan(&mut self, record: &Value, turn: &mut TurnText) -> Flow;
}

fn new_scanner(format: TranscriptFormat) -> Box<dyn RecordScanner> {
    match format {
        TranscriptFormat::ClaudeCode => Box::<claude::ClaudeScanner>::default(),
        TranscriptFormat::Codex => Box::<codex::CodexScanner>::default(),
        TranscriptFormat::Gemini => Box::<gemini::GeminiScanner>::default(),
        TranscriptFormat::Copilot => Box::<copilot::CopilotScanner>::default(),
        TranscriptFormat::Droid => Box::<droid::DroidScanner>::default(),
    }
}

#[cfg(test)]
mod tests {
    use super::reader::parse_object;
    use super::*;

    #[test]
    fn format_names_round_trip() {
        for format in TranscriptFormat::ALL {
            assert_eq!(format.name().parse::<TranscriptFormat>().unwrap(), format);
            let quoted = format!("\"{format}\"");
            assert_eq!(
                serde_json::from_str::<TranscriptFormat>(&quoted).unwrap(),
                format
            );
        }
        assert!("claude".parse::<TranscriptFormat>().is_err());
        assert!(serde_json::from_str::<TranscriptFormat>("\"ClaudeCode\"").is_err());
    }

    #[test]
    fn only_json_objects_parse() {
        assert!(parse_object(br#"{"type":"user"}"#).is_some());
        assert!(parse_object(b"[1,2]").is_none());
        assert!(parse_object(br#"{"type":"us"#).is_none());
        assert!(parse_object(b"\xff\xfe").is_none());
    }
}
