//! Shell command classification for the `dangerous-command` detector.
//! (Placeholder: the real classifier replaces this module.)

use serde::Deserialize;
use std::path::PathBuf;

/// The `shell:` section of a detector file.
#[derive(Debug, Clone, Default, Deserialize)]
pub struct ShellRules {}

/// A rule set that cannot be used.
#[derive(Debug, Clone, thiserror::Error)]
#[error("invalid shell rule")]
pub struct ShellRuleError;

impl ShellRules {
    /// Checks every rule.
    pub fn validate(&self) -> Result<(), ShellRuleError> {
        Ok(())
    }
}

/// Where the command runs.
#[derive(Debug, Clone, Default)]
pub struct ShellContext {
    /// The working directory.
    pub cwd: Option<PathBuf>,
    /// The repository root.
    pub repo_root: Option<PathBuf>,
    /// The user's home.
    pub home: Option<PathBuf>,
}

/// What a matching rule says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ShellAction {
    /// Risky but often legitimate: the judge or a human decides.
    Ask,
    /// Clearly destructive.
    Deny,
}

/// The strictest rule that matched.
#[derive(Debug, Clone)]
pub struct ShellMatch {
    /// Deny or ask.
    pub action: ShellAction,
    /// The rule's id.
    pub rule_id: String,
    /// The rule's message.
    pub reason: String,
    /// The simple command that matched.
    pub segment: String,
}

/// Classifies a command line.
pub fn classify(_command: &str, _rules: &ShellRules, _ctx: &ShellContext) -> Option<ShellMatch> {
    None
}
