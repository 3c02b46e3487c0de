//! The turn being read: its assistant text, gathered newest first and handed
//! out in chronological order, joined with blank lines and cut to its last
//! bytes, and its actions ([`ActionLog`]).
//!
//! Every format reader feeds records from the end of the file; this type is
//! where their texts meet, so that merging, joining and truncation behave the
//! same for every agent.

use super::collect::ActionLog;
use std::collections::{HashMap, HashSet};

/// The user's message that starts a turn is kept up to this many bytes (its
/// start: the request sits there).
pub(crate) const MAX_PROMPT_BYTES: usize = 4096;

/// What the scanners fill while reading one turn.
#[derive(Debug)]
pub(crate) struct Turn {
    /// The assistant's texts.
    pub(crate) text: TurnText,
    /// The commands and edits.
    pub(crate) actions: ActionLog,
    /// The user's message that started the turn, cut to its first
    /// [`MAX_PROMPT_BYTES`] bytes, once the scanner met it.
    pub(crate) prompt: Option<String>,
    /// The record being scanned is only the start of an oversized line.
    partial: bool,
    /// Texts are kept up to this many bytes: older ones would be cut away.
    text_limit: usize,
}

impl Default for Turn {
    fn default() -> Self {
        Turn {
            text: TurnText::default(),
            actions: ActionLog::default(),
            prompt: None,
            partial: false,
            text_limit: usize::MAX,
        }
    }
}

impl Turn {
    /// A turn whose text is cut to its last `text_limit` bytes.
    pub(crate) fn new(text_limit: usize) -> Self {
        Turn {
            text_limit,
            ..Turn::default()
        }
    }

    /// Adds the texts of one record, unless the record is only the start of
    /// a line (its last text would be cut short, and it is no answer) or
    /// enough newer text is kept already.
    pub(crate) fn add_text<'a>(
        &mut self,
        message_key: Option<&str>,
        texts: impl DoubleEndedIterator<Item = &'a str>,
    ) {
        if !self.partial && self.text.gathered_bytes() < self.text_limit {
            self.text.add_record(message_key, texts);
        }
    }

    /// Keeps the user's message that starts the turn (its typed texts, in
    /// order), cut to its first [`MAX_PROMPT_BYTES`] bytes.
    pub(crate) fn set_prompt<'a>(&mut self, texts: impl Iterator<Item = &'a str>) {
        let joined = texts.map(str::trim).collect::<Vec<_>>().join("\n\n");
        let kept = crate::actions::head(&joined, MAX_PROMPT_BYTES);
        self.prompt = Some(kept.to_owned()).filter(|p| !p.is_empty());
    }

    /// Whether the record being scanned is only the start of a long line:
    /// fields after the cut are missing, and its last string may be cut.
    pub(crate) fn is_partial(&self) -> bool {
        self.partial
    }

    /// Marks the records scanned from now on as partial or whole.
    pub(crate) fn set_partial(&mut self, partial: bool) {
        self.partial = partial;
    }
}

/// What a format reader tells the driver after one record.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Flow {
    /// Keep reading older records.
    Continue,
    /// The turn's start was found (a real user message): stop reading.
    Stop,
}

/// Assistant texts of the turn being read, newest first.
#[derive(Debug, Default)]
pub(crate) struct TurnText {
    newest_first: Vec<String>,
    gathered_bytes: usize,
    /// Texts already taken per message id, so that a message written over
    /// several records (or rewritten whole) is not repeated.
    seen_per_message: HashMap<String, HashSet<String>>,
}

impl TurnText {
    /// Adds the texts of one record (given in their chronological order).
    /// With a `message_key`, a text already taken for that key is skipped.
    pub(crate) fn add_record<'a>(
        &mut self,
        message_key: Option<&str>,
        texts: impl DoubleEndedIterator<Item = &'a str>,
    ) {
        for text in texts.rev() {
            let text = text.trim();
            if text.is_empty() {
                continue;
            }
            if let Some(key) = message_key {
                let seen = self.seen_per_message.entry(key.to_owned()).or_default();
                if !seen.insert(text.to_owned()) {
                    continue;
                }
            }
            self.gathered_bytes += text.len();
            self.newest_first.push(text.to_owned());
        }
    }

    /// Bytes of text gathered so far (separators not counted).
    pub(crate) fn gathered_bytes(&self) -> usize {
        self.gathered_bytes
    }

    /// The turn's text in chronological order, joined with blank lines and cut
    /// to its last `max_bytes` bytes; `None` when nothing was gathered or the
    /// cut leaves nothing.
    pub(crate) fn into_text(self, max_bytes: usize) -> Option<String> {
        let mut pieces = self.newest_first;
        pieces.reverse();
        let joined = pieces.join("\n\n");
        let kept = crate::actions::tail(&joined, max_bytes);
        if kept.is_empty() {
            None
        } else {
            Some(kept.to_owned())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_the_end_at_a_char_boundary() {
        // Each of these characters is 3 bytes in UTF-8.
        let text = "提案です";
        assert_eq!(crate::actions::tail(text, 6), "です");
        assert_eq!(crate::actions::tail(text, 7), "です");
        assert_eq!(crate::actions::tail(text, 8), "です");
        assert_eq!(crate::actions::tail(text, 9), "案です");
        assert_eq!(crate::actions::tail(text, 2), "");
        assert_eq!(crate::actions::tail(text, 100), text);
    }

    #[test]
    fn records_come_out_in_chronological_order() {
        let mut turn = TurnText::default();
        turn.add_record(None, ["third", "fourth"].into_iter());
        turn.add_record(None, ["first", "  ", "second"].into_iter());
        assert_eq!(
            turn.into_text(1000).unwrap(),
            "first\n\nsecond\n\nthird\n\nfourth"
        );
    }

    #[test]
    fn repeated_texts_of_one_message_are_taken_once() {
        let mut turn = TurnText::default();
        // Newest record first: a rewrite holding both blocks, then the first block alone.
        turn.add_record(Some("msg_1"), ["alpha", "beta"].into_iter());
        turn.add_record(Some("msg_1"), ["alpha"].into_iter());
        turn.add_record(Some("msg_0"), ["alpha"].into_iter());
        assert_eq!(turn.into_text(1000).unwrap(), "alpha\n\nalpha\n\nbeta");
    }

    #[test]
    fn empty_turn_is_none() {
        assert_eq!(TurnText::default().into_text(100), None);
        let mut turn = TurnText::default();
        turn.add_record(None, ["text"].into_iter());
        assert_eq!(turn.into_text(0), None);
    }
}
