//! Where guard keeps its files: the user's config and its state (loop-guard
//! counters, verdict cache, heartbeats, pause flag, decision logs); and
//! where the programs it runs or wires are (`PATH`).
//!
//! Follows the XDG base directory spec: `$XDG_CONFIG_HOME/guard` (else
//! `~/.config/guard`) and `$XDG_STATE_HOME/guard` (else `~/.local/state/guard`).

use std::env;
use std::path::{Path, PathBuf};

/// The first of `names` found as an executable on `PATH` (judge CLIs for
/// `judge.backend: auto`, agents for `guard install` and `guard doctor`).
pub fn find_program<S: AsRef<std::ffi::OsStr>>(names: &[S]) -> Option<PathBuf> {
    names.iter().find_map(|name| which::which(name).ok())
}

/// The user's home directory, from `$HOME`.
pub fn home() -> Option<PathBuf> {
    env::var_os("HOME")
        .filter(|h| !h.is_empty())
        .map(PathBuf::from)
}

fn xdg(var: &str, fallback: &[&str]) -> Option<PathBuf> {
    if let Some(dir) = env::var_os(var)
        .filter(|d| !d.is_empty())
        .map(PathBuf::from)
    {
        if dir.is_absolute() {
            return Some(dir.join("guard"));
        }
    }
    let mut dir = home()?;
    for part in fallback {
        dir.push(part);
    }
    Some(dir.join("guard"))
}

/// `$XDG_CONFIG_HOME/guard`, else `~/.config/guard`.
pub fn config_dir() -> Option<PathBuf> {
    xdg("XDG_CONFIG_HOME", &[".config"])
}

/// The user's config file.
pub fn user_config() -> Option<PathBuf> {
    config_dir().map(|d| d.join("config.yaml"))
}

/// `$XDG_STATE_HOME/guard`, else `~/.local/state/guard`; falls back to a
/// directory under the system temp dir when there is no home.
pub fn state_dir() -> PathBuf {
    xdg("XDG_STATE_HOME", &[".local", "state"])
        .unwrap_or_else(|| env::temp_dir().join("guard-state"))
}

/// The repository root above `dir`: the nearest ancestor holding `.git`.
pub fn repo_root(dir: &Path) -> Option<PathBuf> {
    dir.ancestors()
        .find(|d| d.join(".git").exists())
        .map(Path::to_path_buf)
}
