//! `guard hook [AGENT] [PAYLOAD]`: reads the payload and answers; the exit
//! code is always one the agent reads as intended (0, or 2 for agents whose
//! protocol uses it), never a crash code.

use guard::hook::{self, HookInput, MAX_PAYLOAD_BYTES};
use std::io::Read;
use std::path::PathBuf;

/// Runs the hook; returns the exit code.
pub fn run(agent: Option<String>, payload: Option<String>, config: Option<PathBuf>) -> u8 {
    // The hook must not panic itself: `eprintln!` would when stderr is a
    // closed pipe, and a panic inside the panic hook aborts the process.
    std::panic::set_hook(Box::new(|info| {
        use std::io::Write;
        let _ = writeln!(std::io::stderr(), "guard: internal error: {info}");
    }));
    let payload = match payload {
        Some(p) => p.into_bytes(),
        None => {
            let mut buf = Vec::new();
            let _ = std::io::stdin()
                .lock()
                .take(MAX_PAYLOAD_BYTES)
                .read_to_end(&mut buf);
            buf
        }
    };
    let code = hook::run_and_emit(HookInput {
        agent,
        payload,
        config_path: config,
    });
    u8::try_from(code).unwrap_or(0)
}
