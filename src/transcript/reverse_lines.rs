//! Reads a file's lines from its end towards its start, in fixed-size chunks.
//!
//! The transcript readers only care about the last turn, which sits at the end
//! of a file that may be hundreds of megabytes long. Reading backwards lets
//! them stop as soon as they have seen the turn's start, so the cost follows
//! the length of the last turn, not the length of the file. Memory stays
//! bounded: one chunk plus at most one line of `max_line_bytes`; longer lines
//! are reported as [`Line::Oversized`] with only their first `head_bytes`
//! kept. Two caps end the read (the partial line at a cap is dropped):
//! `scan_cap_bytes` on the bytes of the lines handed out whole (what the
//! caller parses), and `read_cap_bytes` on all bytes read, oversized lines
//! included (those are only searched for their line breaks, which is cheap).

use std::io::{self, Read, Seek, SeekFrom};

/// One line handed out by [`ReverseLines::next_line`], newest first.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Line {
    /// A complete line, without its trailing newline.
    Text(Vec<u8>),
    /// A line longer than the reader's per-line limit: only its first bytes
    /// (at most `head_bytes`) were kept.
    Oversized {
        /// The line's first bytes.
        head: Vec<u8>,
    },
}

/// Limits for one backwards read.
#[derive(Debug, Clone, Copy)]
pub(crate) struct ReadLimits {
    /// Bytes read per step from the end of the file.
    pub chunk_bytes: usize,
    /// Lines longer than this are skipped (reported as [`Line::Oversized`]).
    pub max_line_bytes: usize,
    /// Of an oversized line, this many first bytes are kept.
    pub head_bytes: usize,
    /// The reader stops after this many bytes of lines that were not oversized.
    pub scan_cap_bytes: u64,
    /// The reader stops after reading this many bytes in total.
    pub read_cap_bytes: u64,
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
    /// The newest pieces of an oversized line (its earliest bytes so far),
    /// newest last, enough to give its first `head_bytes`.
    oversized_head: Vec<Vec<u8>>,
    bytes_read: u64,
    /// Bytes read that belong to oversized lines.
    skipped_bytes: u64,
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
            oversized_head: Vec::new(),
            bytes_read: 0,
            skipped_bytes: 0,
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
            if self.budget() == 0 {
                // The line at the cap cannot be completed: drop it.
                self.clear_carry();
                return Ok(None);
            }
            self.read_previous_chunk()?;
        }
    }

    /// Bytes that may still be read under both caps.
    fn budget(&self) -> u64 {
        let scanned = self.bytes_read.saturating_sub(self.skipped_bytes);
        let scan_left = self.limits.scan_cap_bytes.saturating_sub(scanned);
        let read_left = self.limits.read_cap_bytes.saturating_sub(self.bytes_read);
        scan_left.min(read_left)
    }

    fn read_previous_chunk(&mut self) -> io::Result<()> {
        let step = (self.limits.chunk_bytes.max(1) as u64)
            .min(self.unread_end)
            .min(self.budget());
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
        if piece.is_empty() {
            return;
        }
        if !self.carry_oversized && self.carry_len + piece.len() > self.limits.max_line_bytes {
            // From now on the line's bytes are only skipped over.
            self.start_skipping();
        }
        if self.carry_oversized {
            self.skipped_bytes += piece.len() as u64;
            self.oversized_head.push(piece);
            self.trim_oversized_head();
            return;
        }
        self.carry_len += piece.len();
        self.carry.push(piece);
    }

    /// The line being assembled is too long: its bytes so far count as
    /// skipped, and only the pieces its first bytes need are kept.
    fn start_skipping(&mut self) {
        self.skipped_bytes += self.carry_len as u64;
        self.oversized_head = std::mem::take(&mut self.carry);
        self.carry_len = 0;
        self.carry_oversized = true;
        self.trim_oversized_head();
    }

    /// Keeps the newest piece (the earliest bytes of the oversized line so
    /// far) and as many of the later pieces as its first `head_bytes` need.
    fn trim_oversized_head(&mut self) {
        while !self.oversized_head.is_empty() {
            let after_first: usize = self.oversized_head[1..].iter().map(Vec::len).sum();
            if after_first < self.limits.head_bytes {
                break;
            }
            self.oversized_head.remove(0);
        }
    }

    fn finish_line(&mut self, head: Vec<u8>) -> Line {
        if !self.carry_oversized && self.carry_len + head.len() > self.limits.max_line_bytes {
            self.start_skipping();
        }
        if self.carry_oversized {
            self.skipped_bytes += head.len() as u64;
            let mut first = head;
            for piece in self.oversized_head.iter().rev() {
                if first.len() >= self.limits.head_bytes {
                    break;
                }
                first.extend_from_slice(piece);
            }
            first.truncate(self.limits.head_bytes);
            self.clear_carry();
            return Line::Oversized { head: first };
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
        self.oversized_head.clear();
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
            head_bytes: 4,
            scan_cap_bytes: cap,
            read_cap_bytes: cap,
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

    fn oversized(head: &str) -> Line {
        Line::Oversized {
            head: head.as_bytes().to_vec(),
        }
    }

    #[test]
    fn long_lines_are_reported_oversized_with_their_first_bytes() {
        let data = format!("short\nabcdef{}\nend", "x".repeat(50));
        for chunk in [1, 2, 3, 7, 64] {
            let (lines, _) = all_lines(data.as_bytes(), limits(chunk, 10, 1000));
            assert_eq!(
                lines,
                vec![text("end"), oversized("abcd"), text("short")],
                "chunk {chunk}"
            );
        }
        let (lines, _) = all_lines("y".repeat(30).as_bytes(), limits(4, 10, 100));
        assert_eq!(lines, vec![oversized("yyyy")]);
    }

    #[test]
    fn oversized_lines_count_against_the_read_cap_only() {
        let data = format!("first\n{}\nlast", "x".repeat(1000));
        let mut caps = limits(16, 10, 20);
        caps.read_cap_bytes = 2000;
        let (lines, read) = all_lines(data.as_bytes(), caps);
        assert_eq!(lines, vec![text("last"), oversized("xxxx"), text("first")]);
        assert_eq!(read, data.len() as u64);
        caps.read_cap_bytes = 500;
        let (lines, read) = all_lines(data.as_bytes(), caps);
        assert_eq!(lines, vec![text("last")]);
        assert_eq!(read, 500);
    }

    #[test]
    fn scan_cap_stops_reading_and_drops_the_cut_line() {
        let data = b"first line\nsecond\nthird\n";
        let (lines, read) = all_lines(data, limits(4, 100, 12));
        assert_eq!(read, 12);
        assert_eq!(lines, vec![text(""), text("third")]);
    }
}
