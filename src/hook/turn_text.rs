//! The text judged at a turn end: the assistant's text since the last real
//! user message, from the transcript, or the payload's own final text when
//! the transcript is missing, unreadable or lags behind the payload.

use crate::adapter::AdapterSpec;
use crate::event::Event;
use crate::transcript::{self, TranscriptError, TranscriptFormat};

/// How many bytes of the payload's text must be found in the transcript's
/// text for the transcript to count as caught up.
const CATCH_UP_PROBE: usize = 200;

/// Fills `event.text` from the transcript where that is better; returns a
/// problem worth telling the user, if any.
pub fn fill(spec: &AdapterSpec, event: &mut Event, max_bytes: usize) -> Option<String> {
    let format: TranscriptFormat = spec.transcript.as_deref()?.parse().ok()?;
    let path = event.transcript_path.clone()?;
    let payload = event
        .text
        .as_deref()
        .map(str::trim)
        .filter(|t| !t.is_empty());
    // Copilot CLI writes its transcript behind its hooks.
    transcript::wait_for_writer(format, &path, &event.raw, transcript::WRITER_WAIT);
    match transcript::last_turn_text(format, &path, max_bytes) {
        Ok(Some(from_transcript)) => {
            let caught_up = payload.is_none_or(|p| {
                from_transcript.contains(crate::engine::tail(p, CATCH_UP_PROBE).trim())
            });
            if caught_up {
                event.text = Some(from_transcript);
            }
            None
        }
        Ok(None) => None,
        Err(TranscriptError::Missing { .. }) if payload.is_some() => None,
        Err(e) => Some(if payload.is_some() {
            format!("{e}; judged the payload's final message instead")
        } else {
            format!("{e}; no turn text to judge")
        }),
    }
}
