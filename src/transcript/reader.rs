//! The driver of one read: feeds a format's scanner with records, newest
//! first, counts what it costs, and decides when to stop (turn start found,
//! enough text gathered when only the text is wanted, a cap reached, or the
//! file is not JSON lines). An oversized line is fed as the record its first
//! bytes begin (`json_prefix`), marked partial.

use super::collect::SubagentCall;
use super::json_prefix::parse_prefix;
use super::reverse_lines::{Line, ReadLimits, ReverseLines};
use super::turn::{Flow, Turn};
use super::{
    LastTurn, ReadStats, RecordScanner, TranscriptError, CHUNK_BYTES, HEAD_BYTES,
    MALFORMED_LINE_LIMIT, MAX_LINE_BYTES, READ_CAP_BYTES, SCAN_CAP_BYTES,
};
use serde_json::Value;
use std::fs::File;
use std::io::Read;
use std::path::Path;

/// What a read gathers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Gather {
    /// The text only: reading may stop once enough text is gathered.
    Text,
    /// The text and the actions: reading goes on to the turn's start.
    TextAndActions,
}

/// The state of one read: the turn gathered so far and its cost.
pub(crate) struct TurnReader<'a> {
    path: &'a Path,
    max_bytes: usize,
    gather: Gather,
    turn: Turn,
    stats: ReadStats,
    /// Every record of the file was looked at (no turn start, no cap).
    read_whole_file: bool,
}

impl<'a> TurnReader<'a> {
    pub(crate) fn new(path: &'a Path, max_bytes: usize, gather: Gather) -> Self {
        TurnReader {
            path,
            max_bytes,
            gather,
            turn: Turn::new(max_bytes),
            stats: ReadStats::default(),
            read_whole_file: false,
        }
    }

    pub(crate) fn read_lines_backwards(
        &mut self,
        file: File,
        len: u64,
        scanner: &mut dyn RecordScanner,
    ) -> Result<(), TranscriptError> {
        let limits = ReadLimits {
            chunk_bytes: CHUNK_BYTES,
            max_line_bytes: MAX_LINE_BYTES,
            head_bytes: HEAD_BYTES,
            scan_cap_bytes: SCAN_CAP_BYTES,
            read_cap_bytes: READ_CAP_BYTES,
        };
        let mut lines = ReverseLines::new(file, len, limits);
        loop {
            let next = lines.next_line();
            self.stats.bytes_read = lines.bytes_read();
            let line = match next {
                Ok(Some(line)) => line,
                Ok(None) => {
                    self.read_whole_file = lines.bytes_read() == len;
                    return Ok(());
                }
                Err(source) => {
                    return Err(TranscriptError::Unreadable {
                        path: self.path.to_owned(),
                        source,
                    })
                }
            };
            let (record, partial) = match line {
                Line::Oversized { head } => {
                    self.stats.oversized_lines += 1;
                    (parse_prefix(&head), true)
                }
                Line::Text(bytes) if bytes.iter().all(u8::is_ascii_whitespace) => continue,
                Line::Text(bytes) => (parse_object(&bytes), false),
            };
            self.turn.set_partial(partial);
            let flow = self.take(record, scanner)?;
            self.turn.set_partial(false);
            if flow == Flow::Stop {
                return Ok(());
            }
        }
    }

    /// Older Gemini versions write one JSON object with a `messages` array.
    pub(crate) fn read_whole_json(
        &mut self,
        file: File,
        len: u64,
        scanner: &mut dyn RecordScanner,
    ) -> Result<(), TranscriptError> {
        if len > SCAN_CAP_BYTES {
            return Err(TranscriptError::TooLarge {
                path: self.path.to_owned(),
                size: len,
                limit: SCAN_CAP_BYTES,
            });
        }
        let mut bytes = Vec::new();
        let read = file.take(SCAN_CAP_BYTES).read_to_end(&mut bytes);
        read.map_err(|source| TranscriptError::Unreadable {
            path: self.path.to_owned(),
            source,
        })?;
        self.stats.bytes_read = bytes.len() as u64;
        if bytes.iter().all(u8::is_ascii_whitespace) {
            return Ok(());
        }
        let Some(document) = parse_object(&bytes) else {
            self.stats.lines_seen = 1;
            self.stats.malformed_lines = 1;
            return Ok(());
        };
        let messages = document.get("messages").and_then(Value::as_array);
        for message in messages.into_iter().flatten().rev() {
            if self.take(Some(message.clone()), scanner)? == Flow::Stop {
                return Ok(());
            }
        }
        self.read_whole_file = true;
        Ok(())
    }

    /// Counts one record (`None`: malformed) and hands it to the scanner.
    fn take(
        &mut self,
        record: Option<Value>,
        scanner: &mut dyn RecordScanner,
    ) -> Result<Flow, TranscriptError> {
        self.stats.lines_seen += 1;
        let Some(record) = record else {
            self.stats.malformed_lines += 1;
            let valid = self.stats.lines_seen - self.stats.malformed_lines;
            if valid == 0 && self.stats.malformed_lines >= MALFORMED_LINE_LIMIT {
                return Err(self.too_many_malformed());
            }
            return Ok(Flow::Continue);
        };
        if scanner.scan(&record, &mut self.turn) == Flow::Stop {
            self.stats.found_turn_start = true;
            return Ok(Flow::Stop);
        }
        // Enough text: older texts would be cut away anyway.
        if self.gather == Gather::Text && self.turn.text.gathered_bytes() >= self.max_bytes {
            return Ok(Flow::Stop);
        }
        Ok(Flow::Continue)
    }

    fn too_many_malformed(&self) -> TranscriptError {
        TranscriptError::TooManyMalformedLines {
            path: self.path.to_owned(),
            malformed: self.stats.malformed_lines,
            valid: self.stats.lines_seen - self.stats.malformed_lines,
        }
    }

    pub(crate) fn finish(
        mut self,
    ) -> Result<(LastTurn, ReadStats, Vec<SubagentCall>), TranscriptError> {
        let valid = self.stats.lines_seen - self.stats.malformed_lines;
        if self.stats.malformed_lines >= MALFORMED_LINE_LIMIT && self.stats.malformed_lines > valid
        {
            return Err(self.too_many_malformed());
        }
        let subagents = self.turn.actions.take_subagents();
        let turn = LastTurn {
            text: self.turn.text.into_text(self.max_bytes),
            actions: self
                .turn
                .actions
                .finish(self.stats.found_turn_start || self.read_whole_file),
            prompt: self.turn.prompt,
        };
        Ok((turn, self.stats, subagents))
    }
}

/// Parses one line as a JSON object; anything else counts as malformed.
pub(crate) fn parse_object(bytes: &[u8]) -> Option<Value> {
    match serde_json::from_slice::<Value>(bytes) {
        Ok(value @ Value::Object(_)) => Some(value),
        _ => None,
    }
}
