//! The `toml-hooks` format: `[[hooks]]` tables in a TOML config file
//! (Kimi Code CLI's `~/.kimi-code/config.toml`), each `{event, matcher?,
//! command, timeout?}`. Edited with `toml_edit`, so the user's comments,
//! key order and layout stay as they are; everything else follows the JSON
//! files' rules (`plan`): a lock, a backup before the first change, an
//! atomic write, nothing written when nothing changes, and uninstall giving
//! back the original text when the user changed nothing else.

use super::edit::{FoundHook, GuardCommand, WantedHook};
use super::json_file::{self, FileError};
use super::plan::{Change, Outcome};
use super::InstallError;
use std::path::Path;
use toml_edit::{ArrayOfTables, DocumentMut, Item, Table};

/// Reads and parses a TOML settings file (`None` text: it does not exist).
fn read(path: &Path) -> Result<(Option<String>, DocumentMut), FileError> {
    let text = match std::fs::read_to_string(path) {
        Ok(t) => Some(t),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
        Err(e) => {
            return Err(FileError::Io {
                path: path.display().to_string(),
                source: e,
            })
        }
    };
    let doc = text
        .as_deref()
        .unwrap_or("")
        .parse::<DocumentMut>()
        .map_err(|e| {
            let at = e.span().map_or(0, |s| s.start);
            let before = &text.as_deref().unwrap_or("")[..at];
            FileError::Malformed {
                path: path.display().to_string(),
                line: before.matches('\n').count() + 1,
                column: before.len() - before.rfind('\n').map_or(0, |i| i + 1) + 1,
                message: e.message().to_string(),
            }
        })?;
    Ok((text, doc))
}

fn command_of<'a>(table: &'a Table, guard: &GuardCommand) -> Option<&'a str> {
    table.get("command")?.as_str().filter(|c| guard.matches(c))
}

fn hooks_mut(doc: &mut DocumentMut) -> Option<&mut ArrayOfTables> {
    let item = doc
        .as_table_mut()
        .entry("hooks")
        .or_insert(Item::ArrayOfTables(ArrayOfTables::new()));
    item.as_array_of_tables_mut()
}

/// Adds or updates guard's `[[hooks]]` tables; other tables stay as they are.
pub fn install(doc: &mut DocumentMut, wanted: &[WantedHook], guard: &GuardCommand) -> bool {
    let Some(hooks) = hooks_mut(doc) else {
        return false;
    };
    for w in wanted {
        let mine = |t: &Table| {
            command_of(t, guard).is_some()
                && t.get("event").and_then(Item::as_str) == Some(w.event.as_str())
        };
        let mut seen = false;
        hooks.retain(|t| {
            let keep = !mine(t) || !seen;
            seen |= mine(t);
            keep
        });
        let index = hooks.iter().position(mine);
        let table = match index {
            Some(i) => hooks.get_mut(i),
            None => {
                hooks.push(Table::new());
                let last = hooks.len() - 1;
                hooks.get_mut(last)
            }
        };
        let Some(table) = table else { continue };
        let mut set = |key: &str, value: toml_edit::Value| {
            let same = table
                .get(key)
                .and_then(Item::as_value)
                .is_some_and(|v| v.to_string().trim() == value.to_string().trim());
            if !same {
                table.insert(key, Item::Value(value));
            }
        };
        set("event", w.event.as_str().into());
        if let Some(m) = &w.matcher {
            set("matcher", m.as_str().into());
        }
        set("command", w.command.as_str().into());
        if let Some(t) = w.timeout {
            set("timeout", (t as i64).into());
        }
        if w.matcher.is_none() {
            table.remove("matcher");
        }
    }
    true
}

/// Removes guard's `[[hooks]]` tables (and `hooks` when that emptied it).
pub fn uninstall(doc: &mut DocumentMut, guard: &GuardCommand) -> usize {
    let Some(hooks) = doc.get_mut("hooks").and_then(Item::as_array_of_tables_mut) else {
        return 0;
    };
    let before = hooks.len();
    hooks.retain(|t| command_of(t, guard).is_none());
    let removed = before - hooks.len();
    if removed > 0 && hooks.is_empty() {
        doc.as_table_mut().remove("hooks");
    }
    removed
}

/// guard's hooks in the document.
pub fn find(doc: &DocumentMut, guard: &GuardCommand) -> Vec<FoundHook> {
    let hooks = doc.get("hooks").and_then(Item::as_array_of_tables);
    hooks
        .into_iter()
        .flat_map(ArrayOfTables::iter)
        .filter_map(|t| {
            Some(FoundHook {
                event: t.get("event")?.as_str()?.to_string(),
                matcher: t.get("matcher").and_then(Item::as_str).map(str::to_string),
                command: command_of(t, guard)?.to_string(),
                timeout: t
                    .get("timeout")
                    .and_then(Item::as_integer)
                    .and_then(|t| u64::try_from(t).ok()),
                entry: Default::default(),
            })
        })
        .collect()
}

/// guard's hooks in the file at `path` (none when it does not exist).
pub fn find_in(path: &Path, guard: &GuardCommand) -> Result<Vec<FoundHook>, FileError> {
    Ok(find(&read(&json_file::resolve(path))?.1, guard))
}

fn shape_error(path: &Path) -> InstallError {
    InstallError::Shape {
        path: path.display().to_string(),
        source: super::edit::ShapeError {
            path: "hooks".into(),
            expected: "an array of tables ([[hooks]])",
        },
    }
}

fn outcome(path: &Path, change: Change, old: &str, new: &str) -> Outcome {
    Outcome {
        file: path.to_path_buf(),
        change,
        diff: super::plan::diff(old, new, path),
        backup: None,
    }
}

/// Adds guard's hooks to one TOML settings file.
pub fn install_file(
    path: &Path,
    wanted: &[WantedHook],
    guard: &GuardCommand,
    dry_run: bool,
) -> Result<Outcome, InstallError> {
    let path = json_file::resolve(path);
    let _lock = (!dry_run).then(|| json_file::lock(&path)).transpose()?;
    let (text, mut doc) = read(&path)?;
    if !install(&mut doc, wanted, guard) {
        return Err(shape_error(&path));
    }
    let old = text.clone().unwrap_or_default();
    let new = doc.to_string();
    if text.is_some() && new == old {
        return Ok(outcome(&path, Change::Unchanged, &old, &old));
    }
    let change = if text.is_some() {
        Change::Updated
    } else {
        Change::Created
    };
    let mut out = outcome(&path, change, &old, &new);
    if !dry_run {
        if let Some(original) = &text {
            out.backup = json_file::backup_once(&path, original)?;
        }
        json_file::write_atomic(&path, &new, None)?;
    }
    Ok(out)
}

/// Removes guard's hooks from one TOML settings file: the backup's text
/// comes back when the file, without them, is the backup; a file guard
/// created and left empty is removed.
pub fn uninstall_file(
    path: &Path,
    guard: &GuardCommand,
    dry_run: bool,
) -> Result<Outcome, InstallError> {
    let path = json_file::resolve(path);
    let _lock = (!dry_run).then(|| json_file::lock(&path)).transpose()?;
    let (text, mut doc) = read(&path)?;
    let Some(old) = text else {
        return Ok(outcome(&path, Change::Missing, "", ""));
    };
    if uninstall(&mut doc, guard) == 0 {
        return Ok(outcome(&path, Change::Unchanged, &old, &old));
    }
    let stripped = doc.to_string();
    let backup_path = json_file::backup_path(&path);
    let backup = std::fs::read_to_string(&backup_path).ok();
    let (change, new) = match &backup {
        Some(b) if b.trim() == stripped.trim() => (Change::Restored, b.clone()),
        None if stripped.trim().is_empty() => (Change::Removed, String::new()),
        _ => (Change::Updated, stripped),
    };
    let mut out = outcome(&path, change, &old, &new);
    if dry_run {
        return Ok(out);
    }
    match change {
        Change::Restored => {
            json_file::write_atomic(&path, &new, None)?;
            json_file::remove(&backup_path)?;
        }
        Change::Removed => json_file::remove(&path)?,
        _ => {
            out.backup = json_file::backup_once(&path, &old)?;
            json_file::write_atomic(&path, &new, None)?;
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn wanted(event: &str) -> WantedHook {
        WantedHook {
            event: event.into(),
            command: "/g/guard hook kimi".into(),
            timeout: Some(18),
            ..Default::default()
        }
    }

    #[test]
    fn guard_tables_go_beside_the_users_and_comments_stay() {
        let text = "# my settings\ndefault_model = \"k2\"\n\n[[hooks]]\n# notify me\nevent = \"Notification\"\ncommand = \"notify-send done\"\n\n[[hooks]]\nevent = \"PreToolUse\"\ncommand = \"/old/guard hook kimi\"\ntimeout = 5\n";
        let mut doc: DocumentMut = text.parse().unwrap();
        let guard = GuardCommand::new(&[]);
        assert!(install(&mut doc, &[wanted("PreToolUse")], &guard));
        let out = doc.to_string();
        assert!(
            out.starts_with("# my settings\ndefault_model = \"k2\"\n"),
            "{out}"
        );
        assert!(
            out.contains("# notify me\nevent = \"Notification\""),
            "{out}"
        );
        assert!(
            out.contains("command = \"/g/guard hook kimi\"\ntimeout = 18"),
            "{out}"
        );
        assert_eq!(find(&doc, &guard).len(), 1);
        let again = out.clone();
        install(&mut doc, &[wanted("PreToolUse")], &guard);
        assert_eq!(doc.to_string(), again, "a second install changes nothing");
        assert_eq!(uninstall(&mut doc, &guard), 1);
        assert!(!doc.to_string().contains("guard"));
        assert!(doc.to_string().contains("notify-send done"));
    }

    #[test]
    fn a_hooks_key_of_another_shape_is_refused() {
        let mut doc: DocumentMut = "hooks = \"none\"\n".parse().unwrap();
        assert!(!install(
            &mut doc,
            &[wanted("PreToolUse")],
            &GuardCommand::new(&[])
        ));
    }
}
