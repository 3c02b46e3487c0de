//! The driver of one read: feeds a format's scanner with records, newest
//! first, counts what it costs, and decides when to stop (turn start found,
//! enough text gathered, scan cap reached, or the file is not JSON lines).

use super::reverse_lines::{Line, ReadLimits, ReverseLines};
use super::turn::{Flow, TurnText};
use super::{
    ReadStats, RecordScanner, TranscriptError, CHUNK_BYTES, MALFORMED_LINE_LIMIT, MAX_LINE_BYTES,
    SCAN_CAP_BYTES,
};
use serde_json::Value;
use std::fs::File;
use std::io::Read;
use std::path::Path;

/// The state of one read: the turn gathered so far and its cost.
pub(crate) struct TurnReader<'a> {
    path: &'a Path,
    max_bytes: usize,
    turn: TurnText,
    stats: ReadStats,
}

impl<'a> TurnReader<'a> {
    pub(crate) fn new(path: &'a Path, max_bytes: usize) -> Self {
        TurnReader {
            path,
            max_bytes,
            turn: TurnText::default(),
            stats: ReadStats::default(),
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
            scan_cap_bytes: SCAN_CAP_BYTES,
        };
        let mut lines = ReverseLines::new(file, len, limits);
        loop {
            let next = lines.next_line();
            self.stats.bytes_read = lines.bytes_read();
            let line = match next {
                Ok(Some(line)) => line,
                Ok(None) => return Ok(()),
                Err(source) => {
                    return Err(TranscriptError::Unreadable {
                        path: self.path.to_owned(),
                        source,
                    })
                }
            };
            let record = match line {
                Line::Oversized => None,
                Line::Text(bytes) if bytes.iter().all(u8::is_ascii_whitespace) => continue,
                Line::Text(bytes) => parse_object(&bytes),
            };
            if self.take(record, scanner)? == Flow::Stop {
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
                break;
            }
        }
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
        if self.turn.gathered_bytes() >= self.max_bytes {
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

    pub(crate) fn finish(self) -> Result<(Option<String>, ReadStats), TranscriptError> {
        let valid = self.stats.lines_seen - self.stats.malformed_lines;
        if self.stats.malformed_lines >= MALFORMED_LINE_LIMIT && self.stats.malformed_lines > valid
        {
            return Err(self.too_many_malformed());
        }
        Ok((self.turn.into_text(self.max_bytes), self.stats))
    }
}

/// Parses one line as a JSON object; anything else counts as malformed.
pub(crate) fn parse_object(bytes: &[u8]) -> Option<Value> {
    match serde_json::from_slice::<Value>(bytes) {
        Ok(value @ Value::Object(_)) => Some(value),
        _ => None,
    }
}
