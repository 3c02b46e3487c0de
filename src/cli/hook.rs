//! `guard hook [AGENT] [PAYLOAD]`: reads the payload and answers; the exit
//! code is always one the agent reads as intended (0, or 2 for agents whose
//! protocol uses it), never a crash code.

use guard::hook::{self, HookInput, MAX_PAYLOAD_BYTES};
use std::io::Read;
use std::path::PathBuf;
use std::sync::mpsc;
use std::time::Duration;

/// How long stdin may stay open before the hook answers without a payload
/// (the watchdog only starts once the payload is known).
const STDIN_WAIT: Duration = Duration::from_secs(10);

/// Reads stdin to its end (at most [`MAX_PAYLOAD_BYTES`]); `None` when it
/// has not ended within `wait`.
fn read_stdin(wait: Duration) -> Option<Vec<u8>> {
    let read = || {
        let mut buf = Vec::new();
        let _ = std::io::stdin()
            .lock()
            .take(MAX_PAYLOAD_BYTES)
            .read_to_end(&mut buf);
        buf
    };
    let (tx, rx) = mpsc::channel();
    let reader = std::thread::Builder::new().spawn(move || {
        let _ = tx.send(read());
    });
    match reader {
        Ok(_) => rx.recv_timeout(wait).ok(),
        // No thread to spare: read without a limit rather than not at all.
        Err(_) => Some(read()),
    }
}

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
        None => match read_stdin(STDIN_WAIT) {
            Some(buf) => buf,
            None => {
                let problem = format!(
                    "no payload: stdin did not end within {} s",
                    STDIN_WAIT.as_secs()
                );
                let code = hook::answer_without_payload(agent.as_deref(), &problem);
                // The reader thread is still blocked on stdin: leave now.
                std::process::exit(code);
            }
        },
    };
    let code = hook::run_and_emit(HookInput {
        agent,
        payload,
        config_path: config,
    });
    u8::try_from(code).unwrap_or(0)
}
