//! Running a judge child process under a deadline.
//!
//! A judge is someone else's program: it may hang, crash, flood its output
//! or fork helpers. Each child runs in its own process group; the whole group
//! is killed with SIGKILL at the deadline, when the output passes its size
//! cap, and after the leader exits (so helpers it left behind die too). The
//! leader is always reaped: no zombies, no orphans.

use std::io::{Read, Write};
use std::os::unix::process::CommandExt;
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// How much of stderr is kept (the tail), for error messages.
const STDERR_KEEP: usize = 2048;

/// What to run.
#[derive(Debug, Clone)]
pub struct ChildSpec {
    /// Program and arguments.
    pub argv: Vec<String>,
    /// Extra environment variables.
    pub env: Vec<(String, String)>,
    /// Bytes for stdin (`None`: stdin is /dev/null).
    pub stdin: Option<Vec<u8>>,
    /// When the whole group is killed.
    pub deadline: Instant,
    /// The stdout size cap, in bytes.
    pub max_output_bytes: u64,
}

/// How a child ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ChildEnd {
    /// It exited with this code.
    Exited(i32),
    /// A signal killed it (not ours).
    Signaled(i32),
    /// We killed it at the deadline.
    TimedOut,
    /// We killed it when its output passed the cap.
    OutputCapped,
}

/// What a child produced.
#[derive(Debug, Clone)]
pub struct ChildOutput {
    /// How it ended.
    pub end: ChildEnd,
    /// Its stdout (at most the cap).
    pub stdout: Vec<u8>,
    /// The tail of its stderr.
    pub stderr: String,
}

/// Why a child could not be run.
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    /// The argv is empty.
    #[error("the judge command is empty")]
    EmptyCommand,
    /// The program could not be started.
    #[error("cannot start `{program}`: {source}")]
    Spawn {
        /// The program.
        program: String,
        /// The OS error.
        source: std::io::Error,
    },
    /// The threads that feed and drain the child could not be started.
    #[error("cannot start the judge's I/O threads")]
    Threads,
}

/// Runs a child to completion or to its deadline. Never blocks much past the
/// deadline: the group is killed then, and output readers that do not finish
/// soon after are abandoned.
pub fn run(spec: &ChildSpec) -> Result<ChildOutput, RunError> {
    let (program, args) = spec.argv.split_first().ok_or(RunError::EmptyCommand)?;
    let mut command = Command::new(program);
    command
        .args(args)
        .envs(spec.env.iter().map(|(k, v)| (k.as_str(), v.as_str())))
        .stdin(if spec.stdin.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0);
    let mut child = command.spawn().map_err(|source| RunError::Spawn {
        program: program.clone(),
        source,
    })?;
    let pid = child.id() as libc::pid_t;
    let capped = Arc::new(AtomicBool::new(false));

    let mut threads_ok = true;
    if let (Some(mut stdin), Some(bytes)) = (child.stdin.take(), spec.stdin.clone()) {
        threads_ok &= spawn_helper(move || {
            // A judge that does not read its stdin gets EPIPE here; that is fine.
            let _ = stdin.write_all(&bytes);
        });
    }
    let stdout_buf = Arc::new(Mutex::new(Vec::new()));
    let (done_tx, done_rx) = mpsc::channel::<()>();
    if let Some(mut out) = child.stdout.take() {
        let buf = Arc::clone(&stdout_buf);
        let capped = Arc::clone(&capped);
        let cap = spec.max_output_bytes as usize;
        let done = done_tx.clone();
        threads_ok &= spawn_helper(move || {
            let mut chunk = [0u8; 16 * 1024];
            loop {
                match out.read(&mut chunk) {
                    Ok(0) | Err(_) => break,
                    Ok(n) => {
                        let Ok(mut b) = buf.lock() else { break };
                        let room = cap.saturating_sub(b.len());
                        b.extend_from_slice(&chunk[..n.min(room)]);
                        if n > room {
                            capped.store(true, Ordering::SeqCst);
                            kill_group(pid);
                            break;
                        }
                    }
                }
            }
            let _ = done.send(());
        });
    }
    let stderr_buf = Arc::new(Mutex::new(Vec::new()));
    if let Some(mut err) = child.stderr.take() {
        let buf = Arc::clone(&stderr_buf);
        let done = done_tx.clone();
        threads_ok &= spawn_helper(move || {
            let mut chunk = [0u8; 4096];
            while let Ok(n) = err.read(&mut chunk) {
                if n == 0 {
                    break;
                }
                let Ok(mut b) = buf.lock() else { break };
                b.extend_from_slice(&chunk[..n]);
                if b.len() > 2 * STDERR_KEEP {
                    let cut = b.len() - STDERR_KEEP;
                    b.drain(..cut);
                }
            }
            let _ = done.send(());
        });
    }
    drop(done_tx);

    // Without its I/O threads the child could block forever: end it now.
    let deadline = if threads_ok {
        spec.deadline
    } else {
        Instant::now()
    };
    let exited = wait_without_reaping(pid, deadline);
    // Kill the whole group while the leader is still unreaped, so the group
    // id cannot have been reused: helpers it left behind die with it.
    kill_group(pid);
    let status = child.wait().ok();
    let end = if !threads_ok {
        return Err(RunError::Threads);
    } else if capped.load(Ordering::SeqCst) {
        ChildEnd::OutputCapped
    } else if !exited {
        ChildEnd::TimedOut
    } else {
        match status {
            Some(s) => match (s.code(), std::os::unix::process::ExitStatusExt::signal(&s)) {
                (Some(code), _) => ChildEnd::Exited(code),
                (None, Some(sig)) => ChildEnd::Signaled(sig),
                (None, None) => ChildEnd::Signaled(0),
            },
            None => ChildEnd::Signaled(0),
        }
    };
    // The group is dead, so the pipes close; give the readers a moment to
    // hand over what they read, but never wait long for them.
    let grace = Instant::now() + Duration::from_millis(250);
    for _ in 0..2 {
        let left = grace.saturating_duration_since(Instant::now());
        if done_rx.recv_timeout(left).is_err() {
            break;
        }
    }
    let stdout = stdout_buf.lock().map(|b| b.clone()).unwrap_or_default();
    let stderr = stderr_buf
        .lock()
        .map(|b| String::from_utf8_lossy(&b[b.len().saturating_sub(STDERR_KEEP)..]).into_owned())
        .unwrap_or_default();
    Ok(ChildOutput {
        end,
        stdout,
        stderr,
    })
}

/// Starts a helper thread; false when the OS refused.
fn spawn_helper(f: impl FnOnce() + Send + 'static) -> bool {
    std::thread::Builder::new()
        .name("judge-io".into())
        .spawn(f)
        .is_ok()
}

/// Waits until the child `pid` has exited (leaving it unreaped) or the
/// deadline passes. Returns whether it exited. On Linux it sleeps on a pidfd
/// and wakes the moment the child exits (a judge that answers in 1 ms is not
/// waited on for 3); elsewhere, or where pidfds are missing, it polls.
fn wait_without_reaping(pid: libc::pid_t, deadline: Instant) -> bool {
    #[cfg(target_os = "linux")]
    if let Some(exited) = wait_on_pidfd(pid, deadline) {
        return exited;
    }
    let mut pause = Duration::from_micros(100);
    loop {
        if has_exited(pid) {
            return true;
        }
        let now = Instant::now();
        if now >= deadline {
            return false;
        }
        std::thread::sleep(pause.min(deadline - now));
        pause = (pause * 2).min(Duration::from_millis(20));
    }
}

/// Whether the child `pid` has exited, without reaping it.
fn has_exited(pid: libc::pid_t) -> bool {
    // SAFETY: waitid with WNOHANG|WNOWAIT only inspects our own child and
    // writes into the zeroed siginfo we own.
    unsafe {
        let mut info: libc::siginfo_t = std::mem::zeroed();
        let rc = libc::waitid(
            libc::P_PID,
            pid as libc::id_t,
            &mut info,
            libc::WEXITED | libc::WNOHANG | libc::WNOWAIT,
        );
        // Exited when the call succeeded and filled in a pid; an error
        // (e.g. ECHILD) means there is nothing left to wait for.
        rc != 0 || info.si_pid() != 0
    }
}

/// [`wait_without_reaping`] on a pidfd (Linux 5.3 and later): `None` when
/// no pidfd can be had, and the caller polls instead.
#[cfg(target_os = "linux")]
fn wait_on_pidfd(pid: libc::pid_t, deadline: Instant) -> Option<bool> {
    use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
    // SAFETY: pidfd_open takes a pid and flags and returns a new descriptor
    // or -1; a valid one is owned (and closed) by the OwnedFd.
    let fd = unsafe { libc::syscall(libc::SYS_pidfd_open, pid, 0) };
    if fd < 0 {
        return None;
    }
    // SAFETY: fd is a fresh descriptor nobody else owns.
    let fd = unsafe { OwnedFd::from_raw_fd(fd as i32) };
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Some(has_exited(pid));
        }
        // Round up, so that the last wait does not spin on a 0 ms timeout.
        let ms = left.as_micros().div_ceil(1000).min(i32::MAX as u128) as i32;
        let mut poll = libc::pollfd {
            fd: fd.as_raw_fd(),
            events: libc::POLLIN,
            revents: 0,
        };
        // SAFETY: one pollfd we own, count 1.
        match unsafe { libc::poll(&mut poll, 1, ms) } {
            n if n > 0 => return Some(true),
            0 => {}
            _ if std::io::Error::last_os_error().kind() == std::io::ErrorKind::Interrupted => {}
            _ => return None,
        }
    }
}

/// Sends SIGKILL to the process group `pgid` (errors such as "no such group"
/// are expected and ignored).
fn kill_group(pgid: libc::pid_t) {
    if pgid > 0 {
        // SAFETY: plain syscall on a process group we created.
        unsafe {
            libc::killpg(pgid, libc::SIGKILL);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sh(script: &str, secs: u64) -> ChildSpec {
        ChildSpec {
            argv: vec!["sh".into(), "-c".into(), script.into()],
            env: vec![],
            stdin: Some(b"hello".to_vec()),
            deadline: Instant::now() + Duration::from_secs(secs),
            max_output_bytes: 1024,
        }
    }

    #[test]
    fn echoes_stdin_and_exit_code() {
        let out = run(&sh("cat; echo err >&2; exit 3", 10)).unwrap();
        assert_eq!(out.end, ChildEnd::Exited(3));
        assert_eq!(out.stdout, b"hello");
        assert_eq!(out.stderr.trim(), "err");
    }

    #[test]
    fn deadline_kills_the_group() {
        let started = Instant::now();
        let out = run(&sh("sleep 30 & sleep 30", 1)).unwrap();
        assert_eq!(out.end, ChildEnd::TimedOut);
        assert!(started.elapsed() < Duration::from_secs(3));
    }

    #[test]
    fn flood_is_capped() {
        let out = run(&sh("yes", 10)).unwrap();
        assert_eq!(out.end, ChildEnd::OutputCapped);
        assert_eq!(out.stdout.len(), 1024);
    }

    #[test]
    fn missing_program_is_an_error() {
        let spec = ChildSpec {
            argv: vec!["/nonexistent/judge".into()],
            ..sh("", 1)
        };
        assert!(matches!(run(&spec), Err(RunError::Spawn { .. })));
        let spec = ChildSpec {
            argv: vec![],
            ..sh("", 1)
        };
        assert!(matches!(run(&spec), Err(RunError::EmptyCommand)));
    }
}
