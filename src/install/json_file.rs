//! Reading and writing an agent's JSON settings file without ever losing it:
//! strict parsing (a malformed file, or one with comments, is refused with
//! its line and column), the file's own indentation kept, a backup beside it
//! before guard's first change, atomic replacement (temp file in the same
//! directory, fsync, rename, same permissions), and a lock so that two
//! guards never interleave their read-modify-write.

use serde_json::{Map, Value};
use std::fs::{self, File, OpenOptions};
use std::io::Write;
use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};

/// Largest settings file guard edits.
const MAX_SETTINGS_BYTES: u64 = 8 * 1024 * 1024;

/// Why a settings file cannot be edited.
#[derive(Debug, thiserror::Error)]
pub enum FileError {
    /// Not valid JSON (or JSON with comments).
    #[error("{path}:{line}:{column}: {message}; guard changed nothing")]
    Malformed {
        /// The file.
        path: String,
        /// 1-based line.
        line: usize,
        /// 1-based column.
        column: usize,
        /// What is wrong.
        message: String,
    },
    /// The top level is not an object.
    #[error("{path}: the top level is not a JSON object; guard changed nothing")]
    NotAnObject {
        /// The file.
        path: String,
    },
    /// Reading or writing failed.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: String,
        /// The error.
        source: std::io::Error,
    },
}

fn io_err(path: &Path, source: std::io::Error) -> FileError {
    FileError::Io {
        path: path.display().to_string(),
        source,
    }
}

/// How a file is laid out, so a rewrite looks like the original.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Style {
    /// The indentation unit; `None` for a one-line file.
    pub indent: Option<String>,
    /// Whether the file ends with a newline.
    pub trailing_newline: bool,
}

impl Default for Style {
    fn default() -> Self {
        Style {
            indent: Some("  ".into()),
            trailing_newline: true,
        }
    }
}

/// A settings file as read.
#[derive(Debug, Clone)]
pub struct JsonFile {
    /// The file actually written (symlinks resolved, so a link stays a link).
    pub path: PathBuf,
    /// Its text; `None` when it does not exist.
    pub text: Option<String>,
    /// Its content; empty when it does not exist or is blank.
    pub value: Map<String, Value>,
    /// Its layout.
    pub style: Style,
}

/// Follows symlinks to the file that is really edited (even a dangling one).
pub fn resolve(path: &Path) -> PathBuf {
    let mut current = path.to_path_buf();
    for _ in 0..16 {
        match fs::read_link(&current) {
            Ok(target) => current = current.parent().map(|p| p.join(&target)).unwrap_or(target),
            Err(_) => break,
        }
    }
    current
}

/// Reads and parses a settings file; a missing file reads as empty.
pub fn read(path: &Path) -> Result<JsonFile, FileError> {
    let path = resolve(path);
    let text = match fs::metadata(&path) {
        Ok(meta) if meta.len() > MAX_SETTINGS_BYTES => {
            return Err(io_err(
                &path,
                std::io::Error::other(format!(
                    "{} bytes is too large for a settings file",
                    meta.len()
                )),
            ))
        }
        Ok(_) => Some(fs::read_to_string(&path).map_err(|e| io_err(&path, e))?),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
        Err(e) => return Err(io_err(&path, e)),
    };
    let (value, style) = match &text {
        Some(t) => (parse(&path, t)?, detect_style(t)),
        None => (Map::new(), Style::default()),
    };
    Ok(JsonFile {
        path,
        text,
        value,
        style,
    })
}

/// Parses settings text: strict JSON, an object at the top level; blank
/// text is an empty object.
pub fn parse(path: &Path, text: &str) -> Result<Map<String, Value>, FileError> {
    let name = path.display().to_string();
    if text.trim().is_empty() {
        return Ok(Map::new());
    }
    if let Some((line, column)) = find_comment(text) {
        return Err(FileError::Malformed {
            path: name,
            line,
            column,
            message: "the file has comments, which guard would lose on rewrite; remove them, or add guard's hooks by hand (see `guard install --dry-run`)".into(),
        });
    }
    if let Err(e) = serde_json::from_str::<NoDuplicateKeys>(text) {
        return Err(FileError::Malformed {
            path: name,
            line: e.line(),
            column: e.column(),
            message: format!("{e}"),
        });
    }
    match serde_json::from_str::<Value>(text) {
        Ok(Value::Object(map)) => Ok(map),
        Ok(_) => Err(FileError::NotAnObject { path: name }),
        Err(e) => Err(FileError::Malformed {
            path: name,
            line: e.line(),
            column: e.column(),
            message: format!("not valid JSON ({e})"),
        }),
    }
}

/// A JSON document walked only to refuse duplicate keys: a rewrite would
/// keep one of the values and silently drop the other.
struct NoDuplicateKeys;

impl<'de> serde::Deserialize<'de> for NoDuplicateKeys {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(NoDuplicateKeys)
    }
}

impl<'de> serde::de::Visitor<'de> for NoDuplicateKeys {
    type Value = NoDuplicateKeys;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("JSON")
    }

    fn visit_bool<E>(self, _: bool) -> Result<Self, E> {
        Ok(self)
    }
    fn visit_i64<E>(self, _: i64) -> Result<Self, E> {
        Ok(self)
    }
    fn visit_u64<E>(self, _: u64) -> Result<Self, E> {
        Ok(self)
    }
    fn visit_f64<E>(self, _: f64) -> Result<Self, E> {
        Ok(self)
    }
    fn visit_str<E>(self, _: &str) -> Result<Self, E> {
        Ok(self)
    }
    fn visit_unit<E>(self) -> Result<Self, E> {
        Ok(self)
    }

    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<Self, A::Error> {
        while seq.next_element::<NoDuplicateKeys>()?.is_some() {}
        Ok(self)
    }

    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<Self, A::Error> {
        let mut seen = std::collections::HashSet::new();
        while let Some(key) = map.next_key::<String>()? {
            if !seen.insert(key.clone()) {
                return Err(serde::de::Error::custom(format!("the key {key:?} appears twice in one object; guard would lose one of its values")));
            }
            map.next_value::<NoDuplicateKeys>()?;
        }
        Ok(self)
    }
}

/// The 1-based line and column of the first `//` or `/*` outside strings.
fn find_comment(text: &str) -> Option<(usize, usize)> {
    let (mut line, mut column) = (1, 0);
    let mut in_string = false;
    let mut escaped = false;
    let mut previous = '\0';
    for c in text.chars() {
        column += 1;
        if c == '\n' {
            line += 1;
            column = 0;
        }
        if in_string {
            if escaped {
                escaped = false;
            } else if c == '\\' {
                escaped = true;
            } else if c == '"' {
                in_string = false;
            }
        } else if c == '"' {
            in_string = true;
        } else if previous == '/' && (c == '/' || c == '*') {
            return Some((line, column - 1));
        }
        previous = if in_string { '\0' } else { c };
    }
    None
}

/// The indentation of the first indented line, and the final newline.
pub fn detect_style(text: &str) -> Style {
    let indent = text
        .lines()
        .skip(1)
        .map(|l| &l[..l.len() - l.trim_start().len()])
        .find(|ws| !ws.is_empty())
        .map(str::to_string);
    let multi_line = text.trim_end().contains('\n');
    Style {
        indent: if multi_line {
            Some(indent.unwrap_or_else(|| "  ".into()))
        } else {
            None
        },
        trailing_newline: text.ends_with('\n') || text.trim().is_empty(),
    }
}

/// Serializes a value in a style.
pub fn render(value: &Map<String, Value>, style: &Style) -> String {
    let mut out = match &style.indent {
        Some(indent) => {
            let mut buf = Vec::new();
            let formatter = serde_json::ser::PrettyFormatter::with_indent(indent.as_bytes());
            let mut ser = serde_json::Serializer::with_formatter(&mut buf, formatter);
            // Serializing a map of JSON values into memory cannot fail.
            let _ = serde::Serialize::serialize(value, &mut ser);
            String::from_utf8(buf).unwrap_or_default()
        }
        None => serde_json::to_string(value).unwrap_or_default(),
    };
    if style.trailing_newline {
        out.push('\n');
    }
    out
}

/// The backup path of a settings file.
pub fn backup_path(path: &Path) -> PathBuf {
    let mut name = path
        .file_name()
        .map(|n| n.to_os_string())
        .unwrap_or_default();
    name.push(".guard-backup");
    path.with_file_name(name)
}

/// Copies the original text beside the file, unless a backup exists.
/// Returns the backup's path when one was written.
pub fn backup_once(path: &Path, original: &str) -> Result<Option<PathBuf>, FileError> {
    let backup = backup_path(path);
    if fs::symlink_metadata(&backup).is_ok() {
        return Ok(None);
    }
    write_atomic(&backup, original, Some(path))?;
    Ok(Some(backup))
}

/// Replaces `path` with `text` atomically: a temp file in the same
/// directory, fsynced, with the permissions of `perms_from` (or of the
/// file itself), renamed over it; the directory is fsynced too.
pub fn write_atomic(path: &Path, text: &str, perms_from: Option<&Path>) -> Result<(), FileError> {
    let dir = path
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    fs::create_dir_all(dir).map_err(|e| io_err(dir, e))?;
    let mode = fs::metadata(perms_from.unwrap_or(path))
        .ok()
        .map(|m| m.permissions().mode() & 0o7777);
    let file_name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    static COUNTER: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let n = COUNTER.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let tmp = dir.join(format!(".{file_name}.guard-tmp-{}-{n}", std::process::id()));
    let result = (|| {
        let mut file = OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o666)
            .open(&tmp)?;
        if let Some(mode) = mode {
            file.set_permissions(fs::Permissions::from_mode(mode))?;
        }
        file.write_all(text.as_bytes())?;
        file.sync_all()?;
        fs::rename(&tmp, path)?;
        if let Ok(d) = File::open(dir) {
            let _ = d.sync_all();
        }
        Ok(())
    })();
    if result.is_err() {
        let _ = fs::remove_file(&tmp);
    }
    result.map_err(|e| io_err(path, e))
}

/// Removes a file guard created, syncing its directory.
pub fn remove(path: &Path) -> Result<(), FileError> {
    fs::remove_file(path).map_err(|e| io_err(path, e))?;
    if let Some(d) = path.parent().and_then(|d| File::open(d).ok()) {
        let _ = d.sync_all();
    }
    Ok(())
}

/// An exclusive lock on one settings file, held until dropped. The lock
/// file lives in guard's state directory, never beside the user's file.
pub struct FileLock {
    _lock: crate::state::Locked,
}

/// Locks `path` for a read-modify-write, waiting up to 30 s.
pub fn lock(path: &Path) -> Result<FileLock, FileError> {
    use std::hash::{Hash, Hasher};
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    path.hash(&mut hasher);
    let lock_path = crate::paths::state_dir()
        .join("locks")
        .join(format!("settings-{:016x}.lock", hasher.finish()));
    let locked = crate::state::Locked::open(&lock_path, std::time::Duration::from_secs(30))
        .map_err(|e| io_err(&lock_path, e))?;
    if !locked.locked {
        return Err(io_err(
            path,
            std::io::Error::other("another guard install is still editing this file (waited 30 s)"),
        ));
    }
    Ok(FileLock { _lock: locked })
}

#[cfg(test)]
#[path = "json_file_tests.rs"]
mod tests;
