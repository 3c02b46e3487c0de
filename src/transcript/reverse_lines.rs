//! Reads a file's lines from its end towards its start, in fixed-size chunks.
//!
//! The transcript readers only care about the last turn, which sits at the end
//! of a file that may be hundreds of megabytes long. Reading backwards lets
//! them stop as soon as they have seen the turn's start, so the cost follows
//! the length of the last turn, not the length of the file. Memory stays
//! bounded: one chunk plus at most one line of `max_line_bytes`; longer lines
//! are reported as [`Line::Oversized`] without being kept. The total number of
//! bytes read is capped by `scan_cap_bytes`; past it the reader ends, and the
//! partial line at the cap is dropped.

use std::io::{self, Read, Seek, SeekFrom};

/// One line handed out by [`ReverseLines::next_line`], newest first.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Line {
    /// A complete line, without its trailing newline.
    Text(Vec<u8>),
    /// A line longer than the reader's per-line limit; its bytes were dropped.
    Oversized,
}

/// Limits for one backwards read.
#[derive(Debug, Clone, Copy)]
pub(crate) struct ReadLimits {
    /// Bytes read per step from the end of the file.
    pub chunk_bytes: usize,
    /// Lines longer than this are skipped (reported as [`Line::Oversized`]).
    pub max_line_bytes: usize,
    /// The reader stops after reading this many bytes in total.
    pub scan_cap_bytes: u64,
}

/// Backwards line reader over `source`, whose first `len` bytes are read.
pub(crate) struct ReverseLines<R> {
    source: R,
    limits: ReadLimits,
    /// Bytes `[0, unread_end)` of the file have not been read yet.
    unread_end: u64,
    chunk: Vec<u8>,
    /// `chunk[..chunk_cursor]` still holds lines (or a line's end) not handed out.
    chunk_cursor: usize,
    /// Pieces of the line being assembled, newest piece first.
    carry: Vec<Vec<u8>>,
    carry_len: usize,
    carry_oversized: bool,
    bytes_read: u64,
}

impl<R: Read + Seek> ReverseLines<R> {
    /// A reader over the first `len` bytes of `source` (its length when opened:
    /// bytes appended later by a writer are not read).
    pub(crate) fn new(source: R, len: u64, limits: ReadLimits) -> Self {
        ReverseLines {
            source,
            limits,
            unread_end: len,
            chunk: Vec::new(),
            chunk_cursor: 0,
            carry: Vec::new(),
            carry_len: 0,
            carry_oversized: false,
            bytes_read: 0,
        }
    }

    /// Total bytes read from the source so far.
    pub(crate) fn bytes_read(&self) -> u64 {
        self.bytes_read
    }

    /// The next line, going from the end of the file towards its start, or
    /// `None` once the start of the file or the scan cap is reached.
    pub(crate) fn next_line(&mut self) -> io::Result<Option<Line>> {
        loop {
            let pending = &self.chunk[..self.chunk_cursor];
            if let Some(newline) = memchr::memrchr(b'\n', pending) {
                let tail = pending[newline + 1..].to_vec();
                self.chunk_cursor = newline;
                return Ok(Some(self.finish_line(tail)));
            }
            // What is left of the chunk is the end of a line that starts earlier.
            let rest = self.chunk[..self.chunk_cursor].to_vec();
            self.add_to_carry(rest);
            self.chunk_cursor = 0;
            if self.unread_end == 0 {
                if self.carry_len == 0 && !self.carry_oversized {
                    return Ok(None);
                }
                return Ok(Some(self.finish_line(Vec::new())));
            }
            if self.bytes_read >= self.limits.scan_cap_bytes {
                // The line at the cap cannot be completed: drop it.
                self.clear_carry();
                return Ok(None);
            }
            self.read_previous_chunk()?;
        }
    }

    fn read_previous_chunk(&mut self) -> io::Result<()> {
        let budget = self.limits.scan_cap_bytes.saturating_sub(self.bytes_read);
        let step = (self.limits.chunk_bytes.max(1) as u64)
            .min(self.unread_end)
            .min(budget);
        let start = self.unread_end - step;
        // `step` is at most `chunk_bytes`, a usize.
        let step = step as usize;
        self.chunk.resize(step, 0);
        self.source.seek(SeekFrom::Start(start))?;
        self.source.read_exact(&mut self.chunk[..step])?;
        self.unread_end = start;
        self.chunk_cursor = step;
        self.bytes_read += step as u64;
        Ok(())
    }

    fn add_to_carry(&mut self, piece: Vec<u8>) {
        if piece.is_empty() || self.carry_oversized {
            return;
        }
        if self.carry_len + piece.len() > self.limits.max_line_bytes {
            self.clear_carry();
            self.carry_oversized = true;
            return;
        }
        self.carry_len += piece.len();
        self.carry.push(piece);
    }

    fn finish_line(&mut self, head: Vec<u8>) -> Line {
        if self.carry_oversized || self.carry_len + head.len() > self.limits.max_line_bytes {
            self.clear_carry();
            return Line::Oversized;
        }
        let mut line = head;
        line.reserve(self.carry_len);
        for piece in self.carry.iter().rev() {
            line.extend_from_slice(piece);
        }
        self.clear_carry();
        Line::Text(line)
    }

    fn clear_carry(&mut self) {
        self.carry.clear();
        self.carry_len = 0;
        self.carry_oversized = false;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Cursor;

    fn limits(chunk: usize, max_line: usize, cap: u64) -> ReadLimits {
        ReadLimits {
            chunk_bytes: chunk,
            max_line_bytes: max_line,
            scan_cap_bytes: cap,
        }
    }

    fn all_lines(data: &[u8], limits: ReadLimits) -> (Vec<Line>, u64) {
        let mut reader = ReverseLines::new(Cursor::new(data.to_vec()), data.len() as u64, limits);
        let mut lines = Vec::new();
        while let Some(line) = reader.next_line().unwrap() {
            lines.push(line);
        }
        (lines, reader.bytes_read())
    }

    fn text(s: &str) -> Line {
        Line::Text(s.as_bytes().to_vec())
    }

    #[test]
    fn yields_lines_newest_first_across_tiny_chunks() {
        for chunk in [1, 2, 3, 5, 64] {
            let (lines, read) = all_lines(b"one\ntwo\nthree\n", limits(chunk, 100, 1000));
            assert_eq!(
                lines,
                vec![text(""), text("three"), text("two"), text("one")],
                "chunk {chunk}"
            );
            assert_eq!(read, 14);
        }
    }

    #[test]
    fn last_line_without_newline_is_yielded() {
        let (lines, _) = all_lines(b"a\nhalf-writ", limits(4, 100, 1000));
        assert_eq!(lines, vec![text("half-writ"), text("a")]);
    }

    #[test]
    fn empty_input_yields_nothing() {
        let (lines, read) = all_lines(b"", limits(4, 100, 1000));
        assert!(lines.is_empty());
        assert_eq!(read, 0);
    }

    #[test]
    fn long_lines_are_reported_oversized_and_dropped() {
        let data = format!("short\n{}\nend", "x".repeat(50));
        let (lines, _) = all_lines(data.as_bytes(), limits(7, 10, 1000));
        assert_eq!(lines, vec![text("end"), Line::Oversized, text("short")]);
    }

    #[test]
    fn scan_cap_stops_reading_and_drops_the_cut_line() {
        let data = b"first line\nsecond\nthird\n";
        let (lines, read) = all_lines(data, limits(4, 100, 12));
        assert_eq!(read, 12);
        assert_eq!(lines, vec![text(""), text("third")]);
    }
}
