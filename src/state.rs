//! Small state files under the state directory: the per-session loop-guard
//! counter, the pause flag, per-agent heartbeats. Each read-modify-write
//! holds an advisory lock (`flock`), taken with a bounded wait so that a
//! stuck holder never blocks a hook.

use std::fs::{self, File, OpenOptions};
use std::io::{Read, Seek, SeekFrom, Write};
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

/// Seconds since the Unix epoch.
pub fn now_secs() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0)
}

/// A file name safe for any id: letters, digits, `-` and `_` kept, the rest
/// hex-escaped, capped in length.
pub fn safe_name(id: &str) -> String {
    let mut out = String::new();
    for c in id.chars() {
        if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
            out.push(c);
        } else {
            out.push_str(&format!("%{:x}", c as u32));
        }
        if out.len() > 120 {
            break;
        }
    }
    out
}

/// Opens `path` with `options`, creating its directory if it is missing.
/// The open is tried first: the directory exists on all but the first use,
/// and creating it up front cost two system calls on every hook call.
pub fn open_in_dir(path: &Path, options: &OpenOptions) -> std::io::Result<File> {
    match options.open(path) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            if let Some(dir) = path.parent() {
                fs::create_dir_all(dir)?;
            }
            options.open(path)
        }
        other => other,
    }
}

/// An open state file held under an exclusive lock until dropped.
pub struct Locked {
    file: File,
    /// Whether the lock was obtained (false: it timed out and we went on).
    pub locked: bool,
}

impl Locked {
    /// Opens (creating) `path` and locks it, waiting at most `wait`.
    pub fn open(path: &Path, wait: Duration) -> std::io::Result<Locked> {
        let file = open_in_dir(
            path,
            OpenOptions::new()
                .read(true)
                .write(true)
                .create(true)
                .truncate(false)
                .mode(0o600),
        )?;
        Ok(Self::lock(file, wait))
    }

    /// Opens `path` if it exists and locks it, waiting at most `wait`.
    pub fn open_existing(path: &Path, wait: Duration) -> std::io::Result<Option<Locked>> {
        match OpenOptions::new().read(true).write(true).open(path) {
            Ok(file) => Ok(Some(Self::lock(file, wait))),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(e),
        }
    }

    fn lock(file: File, wait: Duration) -> Locked {
        let start = Instant::now();
        let mut locked = false;
        loop {
            // An exclusive `flock(2)`, as other guard processes take it.
            if file.try_lock().is_ok() {
                locked = true;
                break;
            }
            if start.elapsed() >= wait {
                break;
            }
            std::thread::sleep(Duration::from_millis(5));
        }
        Locked { file, locked }
    }

    /// The file's content.
    pub fn read(&mut self) -> std::io::Result<String> {
        let mut s = String::new();
        self.file.seek(SeekFrom::Start(0))?;
        (&mut self.file).take(1 << 20).read_to_string(&mut s)?;
        Ok(s)
    }

    /// Replaces the file's content.
    pub fn write(&mut self, content: &str) -> std::io::Result<()> {
        // Overwrite, then cut to length: truncating to zero first makes ext4
        // flush the file to disk on close (its rename/truncate heuristic),
        // which cost a hook call more than everything else it writes.
        self.file.seek(SeekFrom::Start(0))?;
        self.file.write_all(content.as_bytes())?;
        self.file.set_len(content.len() as u64)
    }
}

/// The loop-guard counter of one session.
#[derive(Debug, Clone, Default, serde::Serialize, serde::Deserialize, PartialEq)]
pub struct LoopState {
    /// Consecutive turn-end blocks.
    pub blocks: u32,
    /// The turn key of the last turn end.
    pub turn: Option<String>,
    /// When it was last updated (Unix seconds).
    pub updated: u64,
}

/// The loop-guard file of a session.
pub fn loop_state_path(state_dir: &Path, agent: &str, session: &str) -> PathBuf {
    state_dir
        .join("sessions")
        .join(format!("{}-{}.json", safe_name(agent), safe_name(session)))
}

/// The pause flag file: holds the Unix time until which guard is paused
/// (0 = until resumed).
pub fn pause_path(state_dir: &Path) -> PathBuf {
    state_dir.join("paused")
}

/// Whether guard is paused now.
pub fn is_paused(state_dir: &Path) -> bool {
    match fs::read_to_string(pause_path(state_dir)) {
        Ok(s) => {
            let until: u64 = s.trim().parse().unwrap_or(0);
            until == 0 || until > now_secs()
        }
        Err(_) => false,
    }
}

/// How stale a heartbeat may be before a hook rewrites it: `guard doctor`
/// reports when an agent last ran a hook, and a minute's precision spares
/// almost every call four system calls and a file write.
const HEARTBEAT_REFRESH: Duration = Duration::from_secs(60);

/// Records that a hook of this agent ran (for `guard doctor`), at most once
/// a [`HEARTBEAT_REFRESH`].
pub fn touch_heartbeat(state_dir: &Path, agent: &str) -> std::io::Result<()> {
    let path = state_dir.join("heartbeat").join(safe_name(agent));
    let fresh = fs::metadata(&path)
        .and_then(|m| m.modified())
        .ok()
        .and_then(|t| SystemTime::now().duration_since(t).ok())
        .is_some_and(|age| age < HEARTBEAT_REFRESH);
    if fresh {
        return Ok(());
    }
    let now = now_secs().to_string();
    // Overwrite in place rather than `fs::write`, whose truncation to zero
    // makes ext4 flush the file on close (see `Locked::write`).
    let mut file = open_in_dir(
        &path,
        OpenOptions::new().write(true).create(true).truncate(false),
    )?;
    file.write_all(now.as_bytes())?;
    file.set_len(now.len() as u64)
}

/// When this agent's hook last ran (Unix seconds).
pub fn last_heartbeat(state_dir: &Path, agent: &str) -> Option<u64> {
    fs::read_to_string(state_dir.join("heartbeat").join(safe_name(agent)))
        .ok()?
        .trim()
        .parse()
        .ok()
}

/// A payload of a shape no adapter reads, as `guard hook` last saw it for
/// an agent (for `guard doctor`).
#[derive(Debug, Clone, Default, serde::Serialize, serde::Deserialize, PartialEq)]
pub struct UnknownShape {
    /// When it was last seen (Unix seconds).
    pub at: u64,
    /// How many were seen (gates and others).
    pub count: u64,
    /// How many of them were gates (answered with the gate's failure policy).
    pub gates: u64,
    /// The last one's event name, if it had one guard could find.
    pub native_event: Option<String>,
    /// The last one's top-level keys (never their values).
    pub keys: Vec<String>,
    /// Whether the last one was a gate.
    pub gate: bool,
}

fn unknown_shape_path(state_dir: &Path, agent: &str) -> PathBuf {
    state_dir
        .join("unknown-shapes")
        .join(format!("{}.json", safe_name(agent)))
}

/// Records a payload of an unknown shape for this agent.
pub fn note_unknown_shape(
    state_dir: &Path,
    agent: &str,
    native_event: Option<&str>,
    keys: Vec<String>,
    gate: bool,
) -> std::io::Result<()> {
    let mut file = Locked::open(
        &unknown_shape_path(state_dir, agent),
        Duration::from_millis(200),
    )?;
    let mut note: UnknownShape = serde_json::from_str(&file.read()?).unwrap_or_default();
    note.at = now_secs();
    note.count += 1;
    note.gates += u64::from(gate);
    note.native_event = native_event.map(str::to_string);
    note.keys = keys;
    note.gate = gate;
    file.write(&serde_json::to_string(&note).unwrap_or_default())
}

/// Every agent's record of unknown shapes: (agent file stem, record).
pub fn unknown_shapes(state_dir: &Path) -> Vec<(String, UnknownShape)> {
    let Ok(dir) = fs::read_dir(state_dir.join("unknown-shapes")) else {
        return Vec::new();
    };
    let mut out: Vec<(String, UnknownShape)> = dir
        .filter_map(Result::ok)
        .filter_map(|e| {
            let name = e.path().file_stem()?.to_string_lossy().into_owned();
            let note = serde_json::from_str(&fs::read_to_string(e.path()).ok()?).ok()?;
            Some((name, note))
        })
        .collect();
    out.sort_by(|a, b| a.0.cmp(&b.0));
    out
}
