//! `guard install`, `guard uninstall` and `guard doctor`: wiring guard into
//! each agent's hook settings without ever losing the user's settings.
//!
//! What to write comes from the `install:` section of each adapter file
//! ([`spec::InstallSpec`], documented in `docs/install.md`). The edit is a
//! merge into the existing file ([`edit`]), written atomically under a lock
//! with a backup ([`json_file`]). Install then uninstall gives back the
//! original bytes: uninstall restores the backup when the file differs from
//! "install applied to the backup" only in guard's own entries ([`plan`]).

pub mod command;
pub mod discover;
pub mod doctor;
pub mod edit;
pub mod json_file;
pub mod plan;
pub mod spec;

pub use discover::{
    agents, find_agent, installed_agents, load_agents, project_root, settings_path, Agent, Scope,
};
pub use plan::{install_file, uninstall_file, Change, Outcome};

use crate::config::DeadlineConfig;
use command::{shell_quote, GuardCommand};
use edit::WantedHook;
use std::path::Path;

/// Why an install, uninstall or doctor step failed.
#[derive(Debug, thiserror::Error)]
pub enum InstallError {
    /// An adapter's `install:` section is wrong (a bug in guard's data).
    #[error("adapter {agent}: install section: {message}")]
    Spec {
        /// The agent.
        agent: String,
        /// What is wrong.
        message: String,
    },
    /// No such agent, or one guard cannot wire.
    #[error("{message} (agents guard can wire: {})", known.join(", "))]
    UnknownAgent {
        /// What is wrong.
        message: String,
        /// The agents that can be wired.
        known: Vec<String>,
    },
    /// The agent has no settings file for that scope.
    #[error("{agent} has no {scope}-scope settings file")]
    NoScope {
        /// The agent.
        agent: String,
        /// The scope.
        scope: &'static str,
    },
    /// `$HOME` is not set.
    #[error("HOME is not set: cannot find the user's settings files")]
    NoHome,
    /// The settings file cannot be read, parsed or written.
    #[error(transparent)]
    File(#[from] json_file::FileError),
    /// The settings file has a shape guard will not touch.
    #[error("{path}: {source}; guard changed nothing")]
    Shape {
        /// The file.
        path: String,
        /// The shape problem.
        source: edit::ShapeError,
    },
}

/// The command line an agent runs: `'<guard binary>' hook <agent>`.
pub fn hook_command(guard_exe: &Path, agent: &str) -> String {
    format!(
        "{} hook {}",
        shell_quote(&guard_exe.to_string_lossy()),
        agent
    )
}

/// The matcher of guard's own entries: `guard` and the running binary's name.
pub fn guard_matcher(guard_exe: &Path) -> GuardCommand {
    let name = guard_exe
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    GuardCommand::new(&[name.as_str()])
}

/// The entries guard wants for an agent: each event of its `install:`
/// section, with the timeout for the event's kind in the agent's unit.
pub fn wanted_hooks(
    agent: &Agent,
    command: &str,
    deadlines: &DeadlineConfig,
) -> Result<Vec<WantedHook>, InstallError> {
    let mut out = Vec::new();
    for (event, options) in &agent.spec.events.0 {
        let kind = agent
            .adapter
            .events
            .get(event)
            .copied()
            .ok_or_else(|| InstallError::Spec {
                agent: agent.adapter.name.clone(),
                message: format!("event {event} is not one of the adapter's `events`"),
            })?;
        out.push(WantedHook {
            event: event.clone(),
            matcher: options.matcher.clone(),
            command: command.to_string(),
            timeout: spec::timeout_for(kind, deadlines, agent.spec.timeout_unit),
            fields: options.entry_fields.clone(),
        });
    }
    Ok(out)
}

/// guard's deadlines for an agent, from the merged config (its
/// `agents.<name>` overrides applied); the defaults, with the reason, when
/// the config cannot be loaded.
pub fn deadlines_for(
    agent: &str,
    config_path: Option<&Path>,
    cwd: Option<&Path>,
) -> (DeadlineConfig, Option<String>) {
    let opts = crate::config::LoadOptions {
        explicit: config_path.map(Path::to_path_buf),
        cwd: cwd.map(Path::to_path_buf),
        agent: Some(agent.to_string()),
        only_explicit: false,
    };
    match crate::config::load(&opts) {
        Ok(loaded) => (loaded.config.deadline, None),
        Err(e) => (
            DeadlineConfig::default(),
            Some(format!(
                "config not loaded ({e}); using the default deadlines"
            )),
        ),
    }
}
