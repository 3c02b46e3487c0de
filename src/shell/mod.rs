//! Shell command classification for the `dangerous-command` detector.
//! (Placeholder: the real classifier replaces this module.)

use serde::Deserialize;

/// The `shell:` section of a detector file.
#[derive(Debug, Clone, Default, Deserialize)]
pub struct ShellRules {}
