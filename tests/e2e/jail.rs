//! Runs a command inside a fresh network namespace that has only loopback,
//! with the stub model started inside the same namespace, under a timeout.
//!
//! Layout of one launch:
//! `unshare -n -- STUB --loopback-up ... -- CLI ARGS`
//! The stub brings `lo` up, then runs the CLI as its child and exits with the CLI's status, so the
//! stub lives exactly as long as the CLI. Nothing can leave 127.0.0.1: the
//! namespace has no other interface. The whole tree (stub, CLI, hooks) is one
//! process group, killed together on timeout or when the run ends.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// What a jailed run produced.
#[derive(Debug)]
pub struct Outcome {
    /// Exit code (128 + signal when killed by one); `None` on timeout.
    pub code: Option<i32>,
    /// Everything the CLI wrote on stdout.
    pub stdout: String,
    /// Everything written on stderr (CLI and stub).
    pub stderr: String,
    /// Wall time of the whole run.
    pub elapsed: Duration,
    /// True when the run was killed at the deadline.
    pub timed_out: bool,
}

/// Paths and settings of one jailed run.
pub struct Launch<'a> {
    /// The stub binary.
    pub stub: PathBuf,
    /// Script file for the stub.
    pub script: &'a Path,
    /// JSONL log the stub appends to.
    pub log: &'a Path,
    /// Port for the stub inside the namespace.
    pub port: u16,
    /// The CLI and its arguments.
    pub argv: Vec<String>,
    /// Working directory of the CLI.
    pub cwd: &'a Path,
    /// Complete environment of the CLI (nothing else is inherited).
    pub env: Vec<(String, String)>,
    /// Kill everything after this long.
    pub timeout: Duration,
}

/// Why a jail cannot be built on this machine, if it cannot.
pub fn unavailable() -> Option<String> {
    let path = std::env::var_os("PATH").unwrap_or_default();
    let found = std::env::split_paths(&path).any(|dir| dir.join("unshare").exists());
    (!found).then(|| "`unshare` is not installed (Debian package util-linux)".to_string())
}

/// Runs the launch and waits for it (or for its timeout).
pub fn run(launch: Launch) -> Outcome {
    if let Some(why) = unavailable() {
        panic!("e2e: cannot build a loopback-only network namespace: {why}");
    }
    // As root a plain network namespace; otherwise a user namespace maps us to root in it.
    // SAFETY: geteuid has no preconditions and cannot fail.
    let root = unsafe { libc::geteuid() } == 0;
    let mut command = Command::new("unshare");
    command.args(if root { vec!["-n"] } else { vec!["-r", "-n"] });
    command
        .arg("--")
        .arg(&launch.stub)
        .args([
            "--loopback-up",
            "--port",
            &launch.port.to_string(),
            "--script",
        ])
        .arg(launch.script)
        .arg("--log")
        .arg(launch.log)
        .arg("--")
        .args(&launch.argv)
        .current_dir(launch.cwd)
        .env_clear()
        .envs(launch.env.iter().map(|(k, v)| (k.as_str(), v.as_str())))
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    std::os::unix::process::CommandExt::process_group(&mut command, 0);

    let started = Instant::now();
    let mut child = command.spawn().expect("spawn unshare (util-linux)");
    let group = child.id() as i32;
    let stdout = drain(child.stdout.take());
    let stderr = drain(child.stderr.take());
    let mut timed_out = false;
    let status = loop {
        match child.try_wait().expect("wait for jailed run") {
            Some(status) => break Some(status),
            None if started.elapsed() >= launch.timeout => {
                timed_out = true;
                kill_group(group);
                let _ = child.wait();
                break None;
            }
            None => std::thread::sleep(Duration::from_millis(20)),
        }
    };
    // Hooks or tools the CLI left behind die with the namespace's process group.
    kill_group(group);
    let elapsed = started.elapsed();
    let code = status.map(|s| {
        use std::os::unix::process::ExitStatusExt;
        s.code().unwrap_or_else(|| 128 + s.signal().unwrap_or(0))
    });
    Outcome {
        code,
        stdout: stdout.join().unwrap_or_default(),
        stderr: stderr.join().unwrap_or_default(),
        elapsed,
        timed_out,
    }
}

fn kill_group(group: i32) {
    // SAFETY: kill with a negative pid signals that process group; no memory is involved.
    unsafe {
        libc::kill(-group, libc::SIGKILL);
    }
}

fn drain(pipe: Option<impl Read + Send + 'static>) -> std::thread::JoinHandle<String> {
    std::thread::spawn(move || {
        let mut bytes = Vec::new();
        if let Some(mut pipe) = pipe {
            let _ = pipe.read_to_end(&mut bytes);
        }
        String::from_utf8_lossy(&bytes).into_owned()
    })
}
