//! The hook's watchdog: if the normal path has not answered by the deadline
//! (plus a grace period), the failure-policy answer, rendered in advance, is
//! written and the process exits. Whatever hangs (a transcript on a stuck
//! filesystem, a lock, a bug), the agent gets an answer in time.
//!
//! On Unix it is a `SIGALRM` timer whose handler only makes async-signal-safe
//! calls (`write`, `_exit`) on bytes prepared before the timer was armed: a
//! watchdog thread cost every hook a thread start (clone, stack, a malloc
//! arena: tens of microseconds and a dozen page faults) to guard against
//! something that almost never happens. Elsewhere it is a thread.

use super::{emit, ANSWERED};
use crate::adapter::HookOutput;
use std::sync::atomic::Ordering;
use std::time::Instant;

/// Arms the watchdog to answer `out` at `wake`. Call once per process.
#[cfg(unix)]
pub(super) fn arm(out: HookOutput, wake: Instant) {
    use std::sync::OnceLock;
    static ANSWER: OnceLock<HookOutput> = OnceLock::new();

    extern "C" fn on_alarm(_: libc::c_int) {
        // The normal path is answering (or the watchdog already did).
        if ANSWERED.swap(true, Ordering::SeqCst) {
            return;
        }
        let code = match ANSWER.get() {
            Some(out) => {
                write_all(libc::STDOUT_FILENO, out.stdout.as_bytes());
                write_all(libc::STDERR_FILENO, out.stderr.as_bytes());
                out.exit
            }
            None => 0,
        };
        // SAFETY: `_exit` is async-signal-safe and ends the process.
        unsafe { libc::_exit(code) }
    }

    if ANSWER.set(out).is_err() {
        return;
    }
    let left = wake.saturating_duration_since(Instant::now());
    // SAFETY: the handler only touches atomics and prepared bytes and calls
    // async-signal-safe functions; the structs are fully initialized.
    unsafe {
        let mut action: libc::sigaction = std::mem::zeroed();
        action.sa_sigaction = on_alarm as extern "C" fn(libc::c_int) as libc::sighandler_t;
        action.sa_flags = libc::SA_RESTART;
        libc::sigemptyset(&mut action.sa_mask);
        if libc::sigaction(libc::SIGALRM, &action, std::ptr::null_mut()) != 0 {
            return arm_thread(ANSWER.get().cloned(), wake);
        }
        let timer = libc::itimerval {
            it_interval: libc::timeval {
                tv_sec: 0,
                tv_usec: 0,
            },
            it_value: libc::timeval {
                tv_sec: libc::time_t::try_from(left.as_secs()).unwrap_or(libc::time_t::MAX),
                // At least 1 µs: a zero value would disarm the timer.
                tv_usec: libc::suseconds_t::from(left.subsec_micros().max(1)),
            },
        };
        if libc::setitimer(libc::ITIMER_REAL, &timer, std::ptr::null_mut()) != 0 {
            arm_thread(ANSWER.get().cloned(), wake);
        }
    }
}

/// Writes all of `bytes` to `fd` with write(2) (async-signal-safe).
#[cfg(unix)]
fn write_all(fd: libc::c_int, mut bytes: &[u8]) {
    while !bytes.is_empty() {
        // SAFETY: `bytes` is valid for `bytes.len()` bytes.
        let n = unsafe { libc::write(fd, bytes.as_ptr().cast(), bytes.len()) };
        match usize::try_from(n) {
            Ok(n) if n > 0 => bytes = &bytes[n..],
            _ if std::io::Error::last_os_error().raw_os_error() == Some(libc::EINTR) => {}
            _ => return,
        }
    }
}

/// Arms the watchdog to answer `out` at `wake`. Call once per process.
#[cfg(not(unix))]
pub(super) fn arm(out: HookOutput, wake: Instant) {
    arm_thread(Some(out), wake)
}

/// The portable watchdog: a thread that sleeps until `wake`.
fn arm_thread(out: Option<HookOutput>, wake: Instant) {
    let Some(out) = out else { return };
    std::thread::spawn(move || {
        let now = Instant::now();
        if wake > now {
            std::thread::sleep(wake - now);
        }
        if emit(&out) {
            std::process::exit(out.exit);
        }
    });
}
