//! The loop guard: after `loop_guard.max_blocks` consecutive turn-end blocks
//! in one session, the next turn end is allowed with a message saying why,
//! instead of blocking again (a blocked agent that keeps rephrasing the same
//! answer would otherwise fill the conversation).
//!
//! A turn end continues the previous one when the agent says so
//! (`stop_hook_active`, Cursor's `loop_count`) or when it answers the same
//! user prompt as the last block (same turn id). Any other turn end starts
//! the count again. The flag alone never turns a block into an allow.

use crate::config::Config;
use crate::event::Event;
use crate::state::{self, Locked, LoopState};
use crate::verdict::{Decision, Verdict};
use std::path::Path;
use std::time::{Duration, Instant};

/// Longest wait for the loop-guard lock (a holder only keeps it for one
/// read and write; this covers a holder starved of CPU by many hooks).
const LOOP_LOCK_WAIT: Duration = Duration::from_secs(5);

/// [`apply`] with `cfg`'s `loop_guard.max_blocks`, waiting for the lock at
/// most [`LOOP_LOCK_WAIT`] and never past the deadline: a holder that died
/// released it; one that is stuck cannot hold us.
pub fn apply_before(
    event: &Event,
    verdict: &mut Verdict,
    cfg: &Config,
    deadline: Instant,
    state_dir: &Path,
) -> std::io::Result<bool> {
    let lock_wait = deadline
        .saturating_duration_since(Instant::now())
        .clamp(Duration::from_millis(50), LOOP_LOCK_WAIT);
    apply(
        event,
        verdict,
        cfg.loop_guard.max_blocks,
        state_dir,
        lock_wait,
    )
}

/// Applies the loop guard to a turn-end verdict; returns whether it let the
/// turn end. Errors (unwritable state, a lock still held after `lock_wait`)
/// leave the verdict as it is.
pub fn apply(
    event: &Event,
    verdict: &mut Verdict,
    max_blocks: u32,
    state_dir: &Path,
    lock_wait: Duration,
) -> std::io::Result<bool> {
    let Some(session) = event.session_id.as_deref().filter(|s| !s.is_empty()) else {
        return Ok(false);
    };
    let path = state::loop_state_path(state_dir, &event.agent, session);
    let blocking = verdict.decision == Decision::Block;
    // A turn end that is not blocked only resets the count: without a file
    // there is nothing to reset, and nothing is created.
    let mut file = if blocking {
        Locked::open(&path, lock_wait)?
    } else {
        match Locked::open_existing(&path, lock_wait)? {
            Some(file) => file,
            None => return Ok(false),
        }
    };
    if !file.locked {
        // Another hook holds the lock past the wait: leave the count alone
        // rather than race it.
        return Err(std::io::Error::new(
            std::io::ErrorKind::WouldBlock,
            "its lock is held by another hook",
        ));
    }
    let mut st: LoopState = serde_json::from_str(&file.read()?).unwrap_or_default();
    if !blocking && st.blocks == 0 {
        // Already reset (the turn it names only counts with blocks).
        return Ok(false);
    }
    let same_turn = event.turn_id.is_some() && st.turn == event.turn_id;
    let continuation =
        event.stop_hook_active || event.loop_count.unwrap_or(0) > 0 || (same_turn && st.blocks > 0);
    if !continuation {
        st.blocks = 0;
    }
    let mut released = false;
    if blocking {
        if st.blocks >= max_blocks {
            released = true;
            let why = verdict.reason.take().unwrap_or_default();
            verdict.decision = Decision::Allow;
            verdict.system_message = Some(format!(
                "guard let this turn end after {} consecutive blocks in this session, to avoid a loop. \
                 Please review the last answer yourself. The last block was:\n{why}",
                st.blocks
            ));
            st.blocks = 0;
        } else {
            st.blocks += 1;
        }
    } else {
        st.blocks = 0;
    }
    st.turn = event.turn_id.clone();
    st.updated = state::now_secs();
    file.write(&serde_json::to_string(&st).unwrap_or_default())?;
    Ok(released)
}
