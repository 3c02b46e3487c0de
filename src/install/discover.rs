//! Which agents guard can wire, which of them are on this machine (an
//! executable on `PATH`, or a config directory), and where each one's
//! settings file is for a scope.

use super::spec::{expand_path, InstallSpec};
use super::InstallError;
use crate::adapter::AdapterSpec;
use std::path::{Path, PathBuf};

/// An agent guard knows how to wire.
#[derive(Debug, Clone)]
pub struct Agent {
    /// Its adapter.
    pub adapter: AdapterSpec,
    /// Its `install:` section.
    pub spec: InstallSpec,
}

/// Whose settings file is edited.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Scope {
    /// The user's own settings (`~/...`).
    #[default]
    User,
    /// The repository's settings (relative to the repository root).
    Project,
}

impl Scope {
    /// The scope's name.
    pub fn name(self) -> &'static str {
        match self {
            Scope::User => "user",
            Scope::Project => "project",
        }
    }
}

/// Every built-in agent with an `install:` section, in adapter-file order,
/// and the adapters whose file or `install:` section is wrong (one broken
/// adapter never stops the others from being wired).
pub fn load_agents() -> (Vec<Agent>, Vec<InstallError>) {
    let mut agents = Vec::new();
    let mut errors = Vec::new();
    for (stem, _) in crate::builtin::adapters() {
        let adapter = match crate::adapter::builtin(stem) {
            Some(Ok(a)) => a,
            None => continue,
            Some(Err(e)) => {
                errors.push(InstallError::Spec {
                    agent: stem.to_string(),
                    message: e.to_string(),
                });
                continue;
            }
        };
        if let Some(value) = &adapter.install {
            match InstallSpec::from_value(value) {
                Ok(spec) => agents.push(Agent { adapter, spec }),
                Err(message) => errors.push(InstallError::Spec {
                    agent: adapter.name.clone(),
                    message,
                }),
            }
        }
    }
    (agents, errors)
}

/// Every built-in agent guard can wire.
pub fn agents() -> Vec<Agent> {
    load_agents().0
}

/// The agent with this name or alias.
pub fn find_agent(name: &str) -> Result<Agent, InstallError> {
    let (all, errors) = load_agents();
    if let Some(agent) = all.iter().find(|a| a.adapter.answers_to(name)) {
        return Ok(agent.clone());
    }
    if let Some(e) = errors
        .into_iter()
        .find(|e| matches!(e, InstallError::Spec { agent, .. } if agent == name))
    {
        return Err(e);
    }
    let known: Vec<String> = all.iter().map(|a| a.adapter.name.clone()).collect();
    let message = match crate::adapter::find(name) {
        Some(adapter) => format!(
            "{} has no `install:` section: wire it by hand with the command `guard hook {}`",
            adapter.name, adapter.name
        ),
        None => format!("unknown agent {name:?}"),
    };
    Err(InstallError::UnknownAgent { message, known })
}

/// Why an agent counts as installed here, if it does.
pub fn presence(spec: &InstallSpec) -> Option<String> {
    if let Some(bin) = crate::paths::find_program(&spec.binaries) {
        return Some(format!("{} on PATH", bin.display()));
    }
    let home = crate::paths::home();
    spec.config_dirs
        .iter()
        .filter_map(|d| expand_path(d, home.as_deref()))
        .find(|d| d.is_dir())
        .map(|d| format!("{} exists", d.display()))
}

/// The agents installed on this machine.
pub fn installed_agents() -> Vec<Agent> {
    agents()
        .into_iter()
        .filter(|a| presence(&a.spec).is_some())
        .collect()
}

/// The settings file of an agent for a scope; `project_root` is the
/// repository root (or the working directory outside a repository).
pub fn settings_path(
    agent: &Agent,
    scope: Scope,
    project_root: &Path,
) -> Result<PathBuf, InstallError> {
    let home = crate::paths::home();
    let (raw, what) = match scope {
        Scope::User => (agent.spec.user_file.as_deref(), "user"),
        Scope::Project => (agent.spec.project_file.as_deref(), "project"),
    };
    let raw = raw.ok_or_else(|| InstallError::NoScope {
        agent: agent.adapter.name.clone(),
        scope: what,
    })?;
    let path = expand_path(raw, home.as_deref()).ok_or(InstallError::NoHome)?;
    Ok(if path.is_absolute() {
        path
    } else {
        project_root.join(path)
    })
}

/// The project root for `--scope project`: the repository around `cwd`, else `cwd`.
pub fn project_root(cwd: &Path) -> PathBuf {
    crate::paths::repo_root(cwd).unwrap_or_else(|| cwd.to_path_buf())
}
