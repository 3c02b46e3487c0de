//! What install and uninstall do to one settings file, as pure plans over
//! parsed values (easy to test exhaustively), and the file operations that
//! carry them out under a lock: re-read, plan, check nothing changed on disk
//! meanwhile, back up, write atomically.
//!
//! Uninstall gives back the original bytes: when the file, without guard's
//! entries, equals what "install, then remove guard's entries" makes of the
//! backup, the user changed nothing else, so the backup's text is restored
//! (and the backup removed). When guard created the file, it is removed.
//! Otherwise guard's entries are removed and the file rewritten.

use super::discover::Agent;
use super::edit::{self, GuardCommand, WantedHook};
use super::json_file::{self, JsonFile};
use super::spec::HookFormat;
use super::InstallError;
use serde_json::{Map, Value};
use std::path::{Path, PathBuf};

/// What happened (or, with `--dry-run`, would happen) to a file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Change {
    /// Already as wanted: not a byte written.
    Unchanged,
    /// The file did not exist and was created.
    Created,
    /// The file was rewritten.
    Updated,
    /// The original text was restored from the backup.
    Restored,
    /// The file guard had created was removed.
    Removed,
    /// There is no such file.
    Missing,
}

/// The result for one file.
#[derive(Debug, Clone)]
pub struct Outcome {
    /// The file (symlinks resolved).
    pub file: PathBuf,
    /// What changed.
    pub change: Change,
    /// A unified diff of the change (empty when unchanged).
    pub diff: String,
    /// The backup written by this run, if any.
    pub backup: Option<PathBuf>,
}

/// The file after install.
pub fn plan_install(
    current: &Map<String, Value>,
    agent: &Agent,
    wanted: &[WantedHook],
    guard: &GuardCommand,
) -> Result<Map<String, Value>, edit::ShapeError> {
    let mut next = current.clone();
    edit::install(
        &mut next,
        agent.spec.format,
        wanted,
        agent.spec.extra.as_ref(),
        guard,
    )?;
    Ok(next)
}

/// What uninstall does to a file.
#[derive(Debug, Clone, PartialEq)]
pub enum UninstallPlan {
    /// No guard entries: leave it.
    Nothing,
    /// Put the backup's text back.
    RestoreBackup,
    /// Remove the file (guard created it).
    RemoveFile,
    /// Write this value.
    Write(Map<String, Value>),
}

/// Plans an uninstall. `backup` is the parsed backup, when there is one.
pub fn plan_uninstall(
    current: &Map<String, Value>,
    backup: Option<&Map<String, Value>>,
    agent: &Agent,
    wanted: &[WantedHook],
    guard: &GuardCommand,
) -> UninstallPlan {
    let format = agent.spec.format;
    let mut stripped = current.clone();
    if edit::uninstall(&mut stripped, format, guard) == 0 {
        return UninstallPlan::Nothing;
    }
    let reference = backup.cloned().unwrap_or_default();
    if edit::find(&reference, format, guard).is_empty() {
        if let Ok(mut reinstalled) = plan_install(&reference, agent, wanted, guard) {
            edit::uninstall(&mut reinstalled, format, guard);
            if reinstalled == stripped {
                return if backup.is_some() {
                    UninstallPlan::RestoreBackup
                } else {
                    UninstallPlan::RemoveFile
                };
            }
        }
    }
    UninstallPlan::Write(stripped)
}

/// guard's entries in an agent's settings file: the file (symlinks
/// resolved) and the entries, or `None` when the file does not exist.
pub fn find_in_file(
    path: &Path,
    agent: &Agent,
    guard: &GuardCommand,
) -> Result<Option<(PathBuf, Vec<edit::FoundHook>)>, json_file::FileError> {
    let file = json_file::resolve(path);
    if agent.spec.format == HookFormat::TomlHooks {
        if !file.exists() {
            return Ok(None);
        }
        let hooks = super::toml_file::find_in(&file, guard)?;
        return Ok(Some((file, hooks)));
    }
    let read = json_file::read(&file)?;
    if read.text.is_none() {
        return Ok(None);
    }
    let hooks = edit::find(&read.value, agent.spec.format, guard);
    Ok(Some((read.path, hooks)))
}

/// A unified diff of a file's change.
pub(super) fn diff(old: &str, new: &str, path: &Path) -> String {
    let name = path.display().to_string();
    similar::TextDiff::from_lines(old, new)
        .unified_diff()
        .context_radius(3)
        .header(&name, &name)
        .to_string()
}

fn unchanged_on_disk(file: &JsonFile) -> bool {
    std::fs::read_to_string(&file.path).ok() == file.text
}

fn shape_error(file: &JsonFile, source: edit::ShapeError) -> InstallError {
    InstallError::Shape {
        path: file.path.display().to_string(),
        source,
    }
}

fn conflict(path: &Path) -> InstallError {
    InstallError::File(json_file::FileError::Io {
        path: path.display().to_string(),
        source: std::io::Error::other("the file kept changing while guard edited it; try again"),
    })
}

/// How many times a plan is redone when the file changed under it.
const ATTEMPTS: usize = 5;

/// Installs guard's entries into one settings file.
pub fn install_file(
    path: &Path,
    agent: &Agent,
    wanted: &[WantedHook],
    guard: &GuardCommand,
    dry_run: bool,
) -> Result<Outcome, InstallError> {
    if agent.spec.format == HookFormat::TomlHooks {
        return super::toml_file::install_file(path, wanted, guard, dry_run);
    }
    let target = json_file::resolve(path);
    let _lock = if dry_run {
        None
    } else {
        Some(json_file::lock(&target)?)
    };
    for _ in 0..ATTEMPTS {
        let file = json_file::read(&target)?;
        let next =
            plan_install(&file.value, agent, wanted, guard).map_err(|e| shape_error(&file, e))?;
        if file.text.is_some() && next == file.value {
            if !dry_run {
                ensure_companion(&file.path, agent)?;
            }
            return Ok(Outcome {
                file: file.path,
                change: Change::Unchanged,
                diff: String::new(),
                backup: None,
            });
        }
        let text = json_file::render(&next, &file.style);
        let change = if file.text.is_some() {
            Change::Updated
        } else {
            Change::Created
        };
        let diff = diff(file.text.as_deref().unwrap_or(""), &text, &file.path);
        if dry_run {
            return Ok(Outcome {
                file: file.path,
                change,
                diff,
                backup: None,
            });
        }
        if !unchanged_on_disk(&file) {
            continue;
        }
        let backup = match &file.text {
            Some(original) => json_file::backup_once(&file.path, original)?,
            None => None,
        };
        json_file::write_atomic(&file.path, &text, None)?;
        ensure_companion(&file.path, agent)?;
        return Ok(Outcome {
            file: file.path,
            change,
            diff,
            backup,
        });
    }
    Err(conflict(&target))
}

/// The companion of a settings file (`install.companion`), if any: its
/// path and its content.
fn companion<'a>(settings: &Path, agent: &'a Agent) -> Option<(PathBuf, &'a Value)> {
    let companion = agent.spec.companion.as_ref()?;
    Some((settings.parent()?.join(&companion.path), &companion.content))
}

/// Writes the companion file when it is missing (a file the user changed
/// is left as it is).
fn ensure_companion(settings: &Path, agent: &Agent) -> Result<(), InstallError> {
    let Some((path, content)) = companion(settings, agent).filter(|(p, _)| !p.exists()) else {
        return Ok(());
    };
    let text = format!(
        "{}\n",
        serde_json::to_string_pretty(content).unwrap_or_default()
    );
    json_file::write_atomic(&path, &text, None)?;
    Ok(())
}

/// Removes the companion file once its settings file is gone, when it
/// still holds what guard wrote.
fn remove_companion(settings: &Path, agent: &Agent) -> Result<(), InstallError> {
    let Some((path, content)) = companion(settings, agent) else {
        return Ok(());
    };
    let ours = std::fs::read_to_string(&path)
        .ok()
        .and_then(|t| serde_json::from_str::<Value>(&t).ok())
        .is_some_and(|v| &v == content);
    if ours {
        json_file::remove(&path)?;
    }
    Ok(())
}

/// Removes guard's entries from one settings file.
pub fn uninstall_file(
    path: &Path,
    agent: &Agent,
    wanted: &[WantedHook],
    guard: &GuardCommand,
    dry_run: bool,
) -> Result<Outcome, InstallError> {
    if agent.spec.format == HookFormat::TomlHooks {
        return super::toml_file::uninstall_file(path, guard, dry_run);
    }
    let target = json_file::resolve(path);
    let _lock = if dry_run {
        None
    } else {
        Some(json_file::lock(&target)?)
    };
    for _ in 0..ATTEMPTS {
        let file = json_file::read(&target)?;
        let Some(current_text) = file.text.clone() else {
            return Ok(Outcome {
                file: file.path,
                change: Change::Missing,
                diff: String::new(),
                backup: None,
            });
        };
        let backup_path = json_file::backup_path(&file.path);
        let backup = std::fs::read_to_string(&backup_path)
            .ok()
            .and_then(|t| json_file::parse(&backup_path, &t).ok().map(|v| (t, v)));
        let plan = plan_uninstall(
            &file.value,
            backup.as_ref().map(|(_, v)| v),
            agent,
            wanted,
            guard,
        );
        let (change, text) = match &plan {
            UninstallPlan::Nothing => {
                return Ok(Outcome {
                    file: file.path,
                    change: Change::Unchanged,
                    diff: String::new(),
                    backup: None,
                })
            }
            UninstallPlan::RestoreBackup => (
                Change::Restored,
                backup.as_ref().map(|(t, _)| t.clone()).unwrap_or_default(),
            ),
            UninstallPlan::RemoveFile => (Change::Removed, String::new()),
            UninstallPlan::Write(value) => (Change::Updated, json_file::render(value, &file.style)),
        };
        let diff = diff(&current_text, &text, &file.path);
        if dry_run {
            return Ok(Outcome {
                file: file.path,
                change,
                diff,
                backup: None,
            });
        }
        if !unchanged_on_disk(&file) {
            continue;
        }
        let mut written_backup = None;
        match change {
            Change::Restored => {
                json_file::write_atomic(&file.path, &text, None)?;
                // The file now equals the backup: keeping it would only go stale.
                json_file::remove(&backup_path)?;
            }
            Change::Removed => {
                json_file::remove(&file.path)?;
                remove_companion(&file.path, agent)?;
            }
            _ => {
                written_backup = json_file::backup_once(&file.path, &current_text)?;
                json_file::write_atomic(&file.path, &text, None)?;
            }
        }
        return Ok(Outcome {
            file: file.path,
            change,
            diff,
            backup: written_backup,
        });
    }
    Err(conflict(&target))
}

#[cfg(test)]
#[path = "plan_tests.rs"]
mod tests;
