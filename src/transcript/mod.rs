//! Transcript readers: the assistant's text of the last turn and what the
//! agent did in it, read from the agent's own transcript file.
//!
//! A turn-end payload does not always carry what the assistant said (older
//! agent versions, or only the last message of a long turn), and never what
//! it did. The hook then reads the transcript named in the payload. This
//! module returns, for the turn since the last *real* user message — not tool
//! results, not hook feedback, not injected context or meta lines:
//! - the assistant's text, joined with blank lines in chronological order and
//!   cut to its last `max_bytes` bytes (the end is kept: proposals sit in the
//!   last lines);
//! - the user's message that started it (Claude Code, Codex), for the
//!   detectors' request bypasses and the judge's facts;
//! - its actions ([`TurnActions`]): the shell commands with how they ended
//!   (the exit status when the transcript has it) and the files changed by
//!   edit tools, in order, each command classified (test, build, commit,
//!   push, deploy, …; see `crate::actions`).
//!
//! Reading must stay cheap and never block the hook: the file type is checked
//! before opening (FIFOs, devices and directories are refused), the file is
//! opened non-blocking, and it is read from its end in 64 KiB chunks. Reading
//! stops at the turn's start (or, for the text alone, once enough text is
//! gathered), after 32 MiB of lines parsed, or after 256 MiB read in all, so
//! a 100 MB transcript costs what a small one costs when the last turn is
//! short. A line above 16 MiB (megabytes of tool output) is not kept: its
//! first 64 KiB, which name the call and the start of its result, are read
//! as a partial record. Memory stays within one chunk, one line and the
//! turn's small records. Malformed or half-written lines (the agent may
//! still be writing) are skipped.
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
//! backwards reading), `json_prefix` (the start of an oversized line as a
//! record), `reader` (the driver and its stop rules), `turn` (gathering,
//! joining, UTF-8-safe cut), `collect` (pairing calls with their results),
//! and one scanner per agent format: `claude`, `codex` (+ `codex_actions`),
//! `gemini` (+ `gemini_actions`), `copilot`, `droid`.

mod claude;
mod codex;
mod codex_actions;
mod collect;
mod copilot;
mod droid;
mod gemini;
mod gemini_actions;
mod json_prefix;
mod open;
mod reader;
mod reverse_lines;
mod subagent;
mod turn;

pub use crate::actions::TurnActions;
use reader::{Gather, TurnReader};
use serde::Deserialize;
use serde_json::Value;
use std::fmt;
use std::io;
use std::path::{Path, PathBuf};
use std::str::FromStr;
use std::time::{Duration, Instant};
pub use subagent::{subagent_turn, SubagentTurn};
use turn::{Flow, Turn};

/// Bytes read per step from the end of the file.
pub const CHUNK_BYTES: usize = 64 * 1024;
/// Reading stops after this many bytes of lines parsed whole, whatever was found.
pub const SCAN_CAP_BYTES: u64 = 32 * 1024 * 1024;
/// Reading stops after this many bytes in all, oversized lines included.
pub const READ_CAP_BYTES: u64 = 256 * 1024 * 1024;
/// Lines longer than this (huge tool outputs) are not kept whole.
pub const MAX_LINE_BYTES: usize = 16 * 1024 * 1024;
/// Of a line longer than [`MAX_LINE_BYTES`], this many first bytes are read.
pub const HEAD_BYTES: usize = 64 * 1024;
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
    /// Of those, lines that were not JSON objects (nor, for an oversized
    /// line, the start of one).
    pub malformed_lines: usize,
    /// Lines longer than [`MAX_LINE_BYTES`], read from their first bytes only.
    pub oversized_lines: usize,
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

/// The last turn of a transcript: what the assistant said and what it did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LastTurn {
    /// The assistant's text, cut to its last `max_bytes` bytes; `None` when
    /// the turn has no assistant text.
    pub text: Option<String>,
    /// The commands and edits of the turn, in order.
    pub actions: TurnActions,
    /// The user's message that started the turn (its first 4 KiB), when the
    /// turn's start was read and a person typed it (Claude Code, Codex).
    pub prompt: Option<String>,
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
    read(format, path, max_bytes, Gather::Text, None).map(|(turn, stats)| (turn.text, stats))
}

/// The last turn in the transcript at `path`: its text (cut to its last
/// `max_bytes` bytes) and its actions.
pub fn last_turn(
    format: TranscriptFormat,
    path: &Path,
    max_bytes: usize,
) -> Result<LastTurn, TranscriptError> {
    last_turn_with_stats(format, path, max_bytes).map(|(turn, _)| turn)
}

/// [`last_turn`], also returning what the read cost.
pub fn last_turn_with_stats(
    format: TranscriptFormat,
    path: &Path,
    max_bytes: usize,
) -> Result<(LastTurn, ReadStats), TranscriptError> {
    read(format, path, max_bytes, Gather::TextAndActions, None)
}

/// [`last_turn`] of the sub-agent `who` (see [`subagent_turn`]): from the
/// task its parent gave it, which is not the user's request.
pub fn last_subagent_turn(
    format: TranscriptFormat,
    path: &Path,
    max_bytes: usize,
    who: SubagentTurn,
) -> Result<LastTurn, TranscriptError> {
    read(format, path, max_bytes, Gather::TextAndActions, Some(who)).map(|(turn, _)| turn)
}

fn read(
    format: TranscriptFormat,
    path: &Path,
    max_bytes: usize,
    gather: Gather,
    subagent: Option<SubagentTurn>,
) -> Result<(LastTurn, ReadStats), TranscriptError> {
    let (file, metadata) = open::open_regular_file(path)?;
    let mut scanner = match subagent {
        Some(who) => subagent::scanner(format, who),
        None => new_scanner(format),
    };
    let mut reader = TurnReader::new(path, max_bytes, gather);
    let is_whole_file_json =
        format == TranscriptFormat::Gemini && path.extension().is_some_and(|ext| ext == "json");
    if is_whole_file_json {
        reader.read_whole_json(file, metadata.len(), scanner.as_mut())?;
    } else {
        reader.read_lines_backwards(file, metadata.len(), scanner.as_mut())?;
    }
    let (mut turn, mut stats, subagents) = reader.finish()?;
    if gather == Gather::TextAndActions && !subagents.is_empty() {
        stats.bytes_read += subagent::splice(format, path, &mut turn.actions, subagents);
    }
    Ok((turn, stats))
}

/// One agent's record layout: fed records newest first, it adds assistant
/// texts and actions to the turn and says when the turn's start is reached.
trait RecordScanner {
    /// Looks at one record (a parsed JSON object).
    fn scan(&mut self, record: &Value, turn: &mut Turn) -> Flow;
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

/// Feeds `records` (given oldest first) to `scanner` newest first, as the
/// reader does, until the turn's start; for the scanners' tests.
#[cfg(test)]
fn scan_newest_first(scanner: &mut dyn RecordScanner, records: &[Value]) -> (Flow, Turn) {
    let mut turn = Turn::default();
    for record in records.iter().rev() {
        if scanner.scan(record, &mut turn) == Flow::Stop {
            return (Flow::Stop, turn);
        }
    }
    (Flow::Continue, turn)
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
