//! `guard hook [AGENT] [PAYLOAD]`: reads the payload and answers; the exit
//! code is always one the agent reads as intended (0, or 2 for agents whose
//! protocol uses it), never a crash code.

use guard::hook::{self, HookInput, MAX_PAYLOAD_BYTES};
use std::path::PathBuf;
use std::time::Duration;

/// How long stdin may stay open before the hook answers without a payload
/// (the watchdog only starts once the payload is known).
const STDIN_WAIT: Duration = Duration::from_secs(10);

/// Reads stdin to its end (at most [`MAX_PAYLOAD_BYTES`]); `None` when it
/// has not ended within `wait`. On Unix it waits with `poll(2)` on the
/// calling thread: a reader thread would cost a thread start on every call.
#[cfg(unix)]
#[allow(unsafe_code)]
fn read_stdin(wait: Duration) -> Option<Vec<u8>> {
    use std::io::Read;
    use std::time::Instant;
    let deadline = Instant::now() + wait;
    // Each read asks for at least this much: more than the 8 KiB of std's
    // stdin buffer, so that a read goes straight to `read(2)` and never
    // leaves bytes in that buffer while `poll` waits. A fresh zeroed
    // allocation costs no page until it is written.
    const CHUNK: usize = 64 * 1024;
    let mut buf = vec![0u8; CHUNK];
    let mut len = 0;
    let mut stdin = std::io::stdin().lock();
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return None;
        }
        let mut fd = libc::pollfd {
            fd: libc::STDIN_FILENO,
            events: libc::POLLIN,
            revents: 0,
        };
        let ms = i32::try_from(left.as_millis()).unwrap_or(i32::MAX).max(1);
        // SAFETY: `fd` is one valid pollfd, and the count says one.
        let ready = unsafe { libc::poll(&mut fd, 1, ms) };
        if ready < 0 {
            if std::io::Error::last_os_error().kind() == std::io::ErrorKind::Interrupted {
                continue;
            }
            break;
        }
        if ready == 0 {
            continue;
        }
        if fd.revents & libc::POLLNVAL != 0 {
            // No stdin at all: an empty payload.
            break;
        }
        if buf.len() - len < CHUNK / 2 {
            buf.resize(buf.len() + CHUNK, 0);
        }
        match stdin.read(&mut buf[len..]) {
            Ok(0) => break,
            Ok(n) => {
                len += n;
                if len as u64 >= MAX_PAYLOAD_BYTES {
                    len = MAX_PAYLOAD_BYTES as usize;
                    break;
                }
            }
            Err(e) => match e.kind() {
                std::io::ErrorKind::Interrupted | std::io::ErrorKind::WouldBlock => {}
                _ => break,
            },
        }
    }
    buf.truncate(len);
    Some(buf)
}

/// Reads stdin to its end (at most [`MAX_PAYLOAD_BYTES`]) on a thread;
/// `None` when it has not ended within `wait`.
#[cfg(not(unix))]
fn read_stdin(wait: Duration) -> Option<Vec<u8>> {
    use std::io::Read;
    use std::sync::mpsc;
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

/// Runs the hook: reads the payload, answers and ends the process.
pub fn run(agent: Option<String>, payload: Option<String>, config: Option<PathBuf>) -> ! {
    // The hook must not panic itself: `eprintln!` would when stderr is a
    // closed pipe, and a panic inside the panic hook aborts the process.
    std::panic::set_hook(Box::new(|info| {
        use std::io::Write;
        let _ = writeln!(std::io::stderr(), "guard: internal error: {info}");
    }));
    let payload = match payload {
        Some(p) => p.into_bytes(),
        // On no payload, leave at once: stdin may never end (and on other
        // systems a reader thread is still blocked on it).
        None => read_stdin(STDIN_WAIT).unwrap_or_else(|| {
            let problem = format!(
                "no payload: stdin did not end within {} s",
                STDIN_WAIT.as_secs()
            );
            hook::answer_without_payload_and_exit(agent.as_deref(), &problem)
        }),
    };
    hook::answer_and_exit(HookInput {
        agent,
        payload,
        config_path: config,
    })
}
