//! Shell command classification for the `dangerous-command` detector.
//!
//! An agent's shell command is lexed and parsed just enough to know which
//! programs it really runs and with which arguments: quotes, escapes,
//! separators, subshells, command substitution, heredocs, `bash -c`/`eval`
//! strings and wrappers such as `sudo`, `env` or `xargs` are all understood,
//! so that `echo 'rm -rf /'` stays data while `sudo env X=1 /bin/rm -rf ~`
//! is seen as `rm -rf ~`. The rules that decide what is dangerous are data
//! (the `shell:` section of a detector file, see [`ShellRules`]); this module
//! only provides the parser and the rule evaluator.
//!
//! Everything is bounded: nesting depth, the number of words and of commands
//! are capped, so a megabyte of input or pathological quoting finishes fast.
//! Past a cap the strictest verdict found so far is returned, or an `ask`
//! when nothing was found (the rest of the command could not be examined).

mod code;
mod expand;
mod fragments;
mod lexer;
mod matcher;
mod parse;
mod paths;
mod refs;
mod rule_regex;
mod rules;
mod scan;
mod settings;
mod token;
mod values;
mod walk;
mod wrappers;

use serde::Deserialize;
use std::path::PathBuf;

#[cfg(test)]
pub(crate) use fragments::expand as expand_fragments;
pub use paths::PathClass;
#[cfg(test)]
pub(crate) use rules::Field;
pub use rules::{ProgramSpec, ShellRule, ShellRuleError, ShellRules};
pub use settings::{ClassAction, ShellSettings};

/// Where the command runs: used to tell "the repository root" or "home" from
/// any other directory when a rule looks at path arguments.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ShellContext {
    /// The working directory of the command, if known.
    pub cwd: Option<PathBuf>,
    /// The root of the repository the agent works in, if known.
    pub repo_root: Option<PathBuf>,
    /// The user's home directory, if known.
    pub home: Option<PathBuf>,
}

impl ShellContext {
    /// The context of a command run in `cwd`: its repository root (the
    /// nearest `.git` above it) and the user's home.
    pub fn for_cwd(cwd: Option<PathBuf>) -> ShellContext {
        let repo_root = cwd.as_deref().and_then(crate::paths::repo_root);
        ShellContext {
            cwd,
            repo_root,
            home: crate::paths::home(),
        }
    }
}

/// What a matching rule asks for. Ordered by strictness: `Deny > Ask`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ShellAction {
    /// Risky but often legitimate: let the judge (or the human) decide.
    Ask,
    /// Destructive: refuse deterministically.
    Deny,
}

impl ShellAction {
    /// The lowercase name used in logs.
    pub fn as_str(self) -> &'static str {
        match self {
            ShellAction::Ask => "ask",
            ShellAction::Deny => "deny",
        }
    }
}

/// The strictest rule that matched a command.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ShellMatch {
    /// Deny or ask.
    pub action: ShellAction,
    /// The id of the rule (or `limit` when the command was too large or too
    /// deeply nested to examine fully).
    pub rule_id: String,
    /// The rule's message for the agent.
    pub reason: String,
    /// The simple command (or script text) that matched, as written.
    pub segment: String,
}

/// Nesting depth for `bash -c`, `eval`, `$( )`, heredocs fed to shells...
pub(crate) const MAX_DEPTH: usize = 8;
/// Words lexed over the whole classification, all depths together.
pub(crate) const MAX_WORDS: usize = 20_000;
/// Bytes of script text lexed over the whole classification (nested
/// scripts are copies of parts of the input, so they count again).
pub(crate) const MAX_BYTES: usize = 8 << 20;
/// Simple commands examined over the whole classification.
pub(crate) const MAX_COMMANDS: usize = 4_000;

/// Classifies one shell command line. `None` means no rule matched. When
/// several rules match, the strictest wins (deny over ask; the first found
/// among equals).
pub fn classify(command: &str, rules: &ShellRules, ctx: &ShellContext) -> Option<ShellMatch> {
    let mut walker = walk::Walker::new(rules, ctx);
    walker.script(command, 0, &[]);
    walker.finish()
}

/// The ids of every rule that matches some command run by `command`, each
/// once, in the order first matched. [`classify`] keeps only the strictest
/// match; this is for rules used as a classification (is this command line a
/// test run, a commit, a deploy?), where one line may be several things
/// (`cargo test && git push`). The walk stops early only after a `deny` rule.
pub fn matching_rule_ids(command: &str, rules: &ShellRules, ctx: &ShellContext) -> Vec<String> {
    let mut walker = walk::Walker::new(rules, ctx);
    walker.script(command, 0, &[]);
    walker.matched_ids()
}

#[cfg(test)]
mod tests;
